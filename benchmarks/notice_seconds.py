#!/usr/bin/env python
"""The cold compile of each game and path, as the compile notice estimates it.

Each game's registration (``gamecore.kernel.games.GamePackage``, given in its package's
``__init__``) holds the seconds the notice prints ("compiling Cultivo kernels, once: ~N s on an
idle 2-core machine") and the kernel counts its progress lines count against.
This script measures both: per game, one empty
``NUMBA_CACHE_DIR`` and one fresh process per path in turn, each timing its first use of that path after the imports
(with the kernels of the paths before it already in that cache) and counting the project kernels
numba compiled in it:

* ``aec``: ``env()``, ``reset``, one step (the game's own kernels);
* ``batched``: ``BatchedGames(game, 16)``, ``reset``, one step (the batched kernels on top);
* ``threaded``: the same on two threads (the batched kernels' ``prange`` copy);
* ``mcts``: one ``mcts:4`` decision on the AEC env (the MCTS agent's kernels);
* ``greedy``: one ``greedy`` decision (the greedy and value-greedy agents' kernel);
* ``puct``: one ``puct_search`` of 4 simulations on two batched games (the PUCT search's kernels).

::

    python benchmarks/notice_seconds.py                 # every game
    python benchmarks/notice_seconds.py cultivo calimala

Run it on an idle machine: the compile runs on one core, and other work stretches it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the code each path's process times, after importing the game package and gamecore's modules
CASES = {
    "aec": ("e = pkg.env()\ne.reset(seed=0)\n"
            "e.step(int(np.flatnonzero(e.observe(e.agent_selection)['action_mask'])[0]))"),
    "batched": "b = BatchedGames(GAME, 16, seed=0)\nb.reset()\nb.step(b.random_actions())",
    "threaded": "b = BatchedGames(GAME, 16, seed=0, num_threads=2)\nb.reset()\nb.step(b.random_actions())",
    "mcts": "e = pkg.env()\ne.reset(seed=0)\naec_action(make_agent('mcts:4', GAME, seed=0), e)",
    "greedy": "e = pkg.env()\ne.reset(seed=0)\naec_action(make_agent('greedy', GAME, seed=0), e)",
    "puct": ("from gamecore.search.puct import puct_search, uniform_evaluator\nb = BatchedGames(GAME, 2, seed=0)\n"
             "b.reset()\npuct_search(GAME, b.states, uniform_evaluator, 4, seeds=np.arange(2))"),
}


def measure(game: str) -> dict[str, dict[str, float]]:
    """``{"seconds": {path: s}, "kernels": {path: count}}`` of ``game`` on an empty cache."""
    from gamecore.kernel.games import GAMES, game_key

    with tempfile.TemporaryDirectory(prefix="notice-seconds-") as cache:
        return _measure_in(game, GAMES[game_key(game)], cache)


def _measure_in(game: str, package: str, cache: str) -> dict[str, dict[str, float]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench import run_script  # the first-step tables' runner: a fresh process on a given cache

    seconds: dict[str, float] = {}
    kernels: dict[str, float] = {}
    for path, body in CASES.items():
        code = (f"import importlib, json, sys, time\nsys.path.insert(0, {str(ROOT)!r})\nimport numpy as np\n"
                "from gamecore.kernel import jit\n"
                "from gamecore.envs.batched import BatchedGames\n"
                "from gamecore.search.agents import aec_action, make_agent\n"
                f"GAME = {game!r}\npkg = importlib.import_module({package!r})\n"
                "t0 = time.perf_counter()\n" + body + "\n"
                "print(json.dumps({'s': time.perf_counter() - t0, 'kernels': sum(jit._NOTICE.kernels.values())}))\n")
        out = run_script(code, cache)
        seconds[path] = round(out["s"], 1)
        kernels[path] = out["kernels"]
    return {"seconds": seconds, "kernels": kernels}


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from gamecore.kernel.games import GAMES, game_key

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("``", ""))
    ap.add_argument("games", nargs="*", metavar="GAME",
                    help=f"games to measure: {', '.join(sorted(GAMES))} (default: all of them)")
    games = ap.parse_args(argv).games or list(GAMES)
    bad = [g for g in games if game_key(g) not in GAMES]
    if bad:
        ap.error(f"no game {bad[0]!r}; games: {', '.join(sorted(GAMES))}")
    for g in games:
        print(g, json.dumps(measure(g)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
