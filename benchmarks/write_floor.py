#!/usr/bin/env python
"""The memory floor of a batched step: how fast one thread can merely write what a step writes.

``BatchedGames.step`` writes, for every game of the batch, the observation of the seat to move
(int8) and its legal mask (int8), besides playing the move. This script times, for each game and
player count, that writing alone: every row of an ``(N, obs)`` int8 array
copied from a template row (a memcpy of the observation's bytes) and every row of an ``(N, actions)``
int8 mask zeroed with one entry set, N = 1024 as in ``bench.py``, by numpy (whose contiguous
copies run at the memory's speed). That rate is an upper bound of the batched step's decisions/s on
this machine that no rules kernel can pass, whatever the rules cost. Beside it, measured in the same
process: the rules alone (``random_rollout``: whole random games, masks but no observation written,
one thread), what the two together allow (``1 / (1 / floor + 1 / rules)``), and the step itself
(``step()`` alone, random legal actions picked outside the timed call, one thread, on
``bench.py``'s batch whose games are spread over every phase of a game)::

    python benchmarks/write_floor.py
    python benchmarks/write_floor.py --games callisto --players 3,4 --seconds 2

Where the step is near the floor, its speed is bounded by the bytes of its observation and mask,
not by its rules: only a smaller observation, or a smaller batch whose arrays stay in the CPU's
caches, makes it faster. Where it is near "floor + rules", a faster step needs faster rules or
fewer bytes, not a better observation kernel.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def write_rows(obs: np.ndarray, template: np.ndarray, masks: np.ndarray, k: int) -> None:
    """Copy ``template`` into every row of ``obs``; zero every row of ``masks`` and set entry k."""
    obs[:] = template
    masks[:] = 0
    masks[:, k] = 1


def _rate(fn, rows: int, seconds: float, windows: int = 3) -> float:
    """Best rows/s over ``windows`` equal windows of ``seconds`` in all."""
    best = 0.0
    for _ in range(windows):
        done, t0 = 0, time.perf_counter()
        while True:
            fn()
            done += rows
            dt = time.perf_counter() - t0
            if dt >= seconds / windows:
                break
        best = max(best, done / dt)
    return best


def _bench():
    """``benchmarks/bench.py`` as a module: its staggered batch (:func:`steady_batch`)."""
    if "bench" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench", Path(__file__).resolve().parent / "bench.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench"] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules["bench"]


def measure(game: str, players: int, num_envs: int, seconds: float) -> dict:
    bench = _bench()
    from gamecore.envs.batched import ThreadChooser

    b = bench.steady_batch(game, players, num_envs)  # phases spread as in a long run, as bench.py's rows
    b.threads = ThreadChooser(1, num_envs)
    obs_bytes = b._obs.shape[1]
    mask_bytes = b.masks.shape[1]
    state_bytes = b.states.shape[1] * 8
    obs = np.zeros_like(b._obs)
    masks = np.zeros_like(b.masks)
    template = np.ones(obs_bytes, dtype=np.int8)
    floor = _rate(lambda: write_rows(obs, template, masks, 0), num_envs, seconds)

    actions = b.random_actions()
    elapsed = [0.0]

    def one_step() -> None:
        actions[:] = b.random_actions()
        t0 = time.perf_counter()
        b.step(actions)
        elapsed[0] += time.perf_counter() - t0

    one_step()
    best = 0.0
    for _ in range(3):
        elapsed[0], calls = 0.0, 0
        while elapsed[0] < seconds / 3:
            one_step()
            calls += 1
        best = max(best, calls * num_envs / elapsed[0])
    b.random_rollout(1, seed=0)  # compile or load
    rules, seed = 0.0, 1
    for _ in range(3):
        decisions, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds / 3:
            decisions += b.random_rollout(1, seed=seed)
            seed += num_envs
        rules = max(rules, decisions / (time.perf_counter() - t0))
    return {"game": game, "players": players, "obs_bytes": obs_bytes, "mask_bytes": mask_bytes,
            "state_bytes": state_bytes, "floor": floor, "rules": rules, "step": best}


def main(argv: list[str] | None = None) -> None:
    from gamecore.kernel.games import GAMES, get_game

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(GAMES), help="comma list of games (default: all)")
    ap.add_argument("--players", default="all", help="comma list of counts, or 'all' (default)")
    ap.add_argument("--num-envs", type=int, default=1024, help="games in the batch (default 1024, as bench.py)")
    ap.add_argument("--seconds", type=float, default=1.5, help="timed seconds per row and measure")
    args = ap.parse_args(argv)
    print("| game | players | obs + mask bytes | write floor | rules alone (random_rollout) | floor + rules | "
          "step() alone | step / (floor + rules) |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    for game in args.games.split(","):
        spec = get_game(game)
        counts = spec.player_counts if args.players == "all" else [int(p) for p in args.players.split(",")]
        for n in counts:
            if n not in spec.player_counts:
                continue
            r = measure(game, n, args.num_envs, args.seconds)
            both = 1.0 / (1.0 / r["floor"] + 1.0 / r["rules"])
            print(f"| {game} | {n} | {r['obs_bytes']:,} + {r['mask_bytes']:,} | {r['floor']:,.0f} | "
                  f"{r['rules']:,.0f} | {both:,.0f} | {r['step']:,.0f} | {r['step'] / both:.2f} |", flush=True)


if __name__ == "__main__":
    main()
