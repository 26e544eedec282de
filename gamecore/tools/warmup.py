"""Compile a game's kernels into numba's cache ahead of use, on every path the library offers.

numba compiles a kernel the first time it is called (seconds to a minute per game, cold) and then
caches the machine code (:mod:`gamecore.kernel.jit`), so every later process loads it. This module does
that first call on purpose, for the AEC env, the batched path and the search agents::

    python -m gamecore warmup                      # every game, one process per core
    python -m gamecore warmup GAME GAME ...        # some games, by name
    NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=... python -m gamecore warmup   # a bounds-checked cache

The test suite runs it before its pytest-xdist workers start, so that the workers load every
kernel from the cache instead of each compiling its own copy (``tests/conftest.py``).

:func:`warm_game` compiles in this process. :func:`warm` runs one subprocess per game, as many at
once as there are cores, under a lock per game and cache directory, and skips a game whose
kernels are already in that cache for the current kernel sources, numba version and bounds-check
setting (a stamp file next to the cache), so calling it again costs a few milliseconds.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

#: the paths :func:`warm_game` can compile: the game's own kernels (what the AEC env and the
#: fuzz tests call), the batched kernels, the search agents' kernels
PATHS = ("aec", "batched", "agents")


def warm_game(name: str, paths: tuple[str, ...] = PATHS, steps: int = 60) -> None:
    """Call every kernel of ``name`` that the given paths use, in this process."""
    from gamecore.kernel.games import GAMES, game_key, get_game
    from gamecore.search.agents import aec_action, make_agent, shipped_baseline

    game = get_game(name)
    pkg = importlib.import_module(GAMES[game_key(name)])
    rng = np.random.default_rng(0)
    # AEC: reset, observe, masks, step, check_state through set_state, resample, scores
    env = pkg.raw_env(num_players=game.default_players)
    env.reset(seed=0)
    for _ in range(steps):
        if env.game_over:
            break
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    env.set_state(env.get_state())
    env.to_dict()
    kernels = game.kernels
    state = env.get_state()
    kernels.resample(state, 0, 1)
    out = np.zeros(game.default_players)
    kernels.scores(state, out)
    kernels.rank_keys(state, out)
    if "batched" in paths:  # reset, step, random actions, global states, whole-game rollouts
        _warm_batched(name)
    if "agents" in paths:  # search agents, on the AEC env
        for spec in ("random", "greedy", "mcts:4"):
            aec_action(make_agent(spec, name, seed=0), env)
        baseline = shipped_baseline(name)
        if baseline is not None and baseline.suffix == ".npz" and not env.game_over:  # vgreedy's kernel
            aec_action(make_agent("baseline", name, seed=0), env)
        if not env.game_over:  # the batched PUCT search's kernels (gamecore.search.puct)
            from gamecore.search.puct import puct_search, uniform_evaluator

            puct_search(game, env.get_state()[None], uniform_evaluator, 2, np.zeros(1, dtype=np.int64))


def _warm_batched(name: str) -> None:
    import numba

    from gamecore.envs.batched import BatchedGames

    # one thread (the default: serial kernels), then more where the machine has them (the parallel
    # copies, gamecore.kernel.batch_kernels.Threaded)
    for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
        batch = BatchedGames(name, 2, seed=0, num_threads=threads)
        batch.reset()
        batch.step(batch.random_actions())
        batch.global_states()
        batch.random_rollout(1)


def _stamp(name: str, paths: tuple[str, ...], env: dict[str, str]) -> str:
    """What the cached kernels of ``name`` depend on: sources, numba, numpy, Python, bounds-check,
    and the CPU numba compiles for (its cache keys machine code by CPU name and features, so a cache
    directory shared by nodes of different CPUs is warm for one kind only: "cached" must not be
    said for the other)."""
    import numba
    from llvmlite import binding as ll

    from gamecore.kernel.games import GAMES, game_key
    from gamecore.kernel.jit import kernel_digest

    cpu = env.get("NUMBA_CPU_NAME") or ll.get_host_cpu_name()  # as numba.core.config reads them
    features = env.get("NUMBA_CPU_FEATURES")
    if features is None:
        features = "" if cpu.lower() == "generic" else ll.get_host_cpu_features().flatten()
    h = hashlib.sha256()
    for part in (kernel_digest(GAMES[game_key(name)]), kernel_digest(None), numba.__version__, np.__version__,
                 sys.version, env.get("NUMBA_BOUNDSCHECK", "0"), cpu, features, *paths):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _stamp_dir(env: dict[str, str]) -> Path:
    cache = env.get("NUMBA_CACHE_DIR")
    if cache:
        return Path(cache)
    return Path(__file__).resolve().parent.parent / "__pycache__"  # numba's in-tree cache of the sources


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on ``path`` between processes (where the platform has ``fcntl``)."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock, at worst two processes compile the same kernel
        yield
        return
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _subprocess_paths(env: dict[str, str]) -> dict[str, str]:
    """``PYTHONPATH`` and :data:`~gamecore.kernel.games.GAMES_VARIABLE` for a subprocess that must
    find gamecore and every game this process knows, the ones added here included (their folders
    ahead of the caller's path)."""
    from gamecore.kernel.games import GAMES_VARIABLE, added_packages
    from gamecore.kernel.jit import _package_dir

    added = added_packages()
    folders = [str(Path(__file__).resolve().parents[2])]
    for package in added:
        folder = _package_dir(package)
        if folder is not None:
            folders.append(str(folder.parent))
    named = [p for p in env.get(GAMES_VARIABLE, "").split(",") if p.strip()]
    out = {"PYTHONPATH": os.pathsep.join(dict.fromkeys([*folders, *filter(None, [env.get("PYTHONPATH")])]))}
    if added:
        out[GAMES_VARIABLE] = ",".join(dict.fromkeys([*named, *added]))
    return out


def warm_one(name: str, env: dict[str, str] | None = None, paths: tuple[str, ...] = PATHS) -> float:
    """Compile ``name``'s kernels for ``paths`` in a subprocess with ``env`` (default: this
    process's), unless its stamp says they are cached; returns the seconds spent (0.0: cached)."""
    bad = sorted(set(paths) - set(PATHS))
    if bad or not paths:
        raise ValueError(f"paths must be a non-empty selection of {', '.join(PATHS)}, got {paths!r}")
    env = dict(os.environ if env is None else env)
    folder = _stamp_dir(env)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only install: stamps beside numba's last-resort cache
        from gamecore.kernel.jit import _fallback_cache_dir

        folder = Path(_fallback_cache_dir())
        folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / f"warm-{name}-{'-'.join(paths)}.stamp"
    want = _stamp(name, paths, env)
    with _locked(folder / f"warm-{name}.lock"):
        if stamp.is_file() and stamp.read_text() == want:
            return 0.0
        t0 = time.perf_counter()
        env.update(_subprocess_paths(env))
        proc = subprocess.run([sys.executable, "-m", "gamecore.tools.warmup", "--here", ",".join(paths), name], env=env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"compiling {name}'s kernels failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        stamp.write_text(want)
        return time.perf_counter() - t0


def _source_bytes(package: str) -> int:
    """The size of a game package's own kernel sources: what its cold compile takes grows with it,
    so the subprocesses start longest first (the parent imports no game to ask)."""
    from gamecore.kernel.jit import _package_dir, kernel_sources

    folder = _package_dir(package)
    return sum(f.stat().st_size for f in kernel_sources(package) if folder is not None and folder in f.parents)


def longest_first(names) -> list[str]:
    """Game names, the longest cold compile first (by ``_source_bytes``)."""
    from gamecore.kernel.games import GAMES

    return sorted(names, key=lambda g: -_source_bytes(GAMES[g]))


def warm(games: list[str] | None = None, env: dict[str, str] | None = None,
         jobs: int | None = None) -> dict[str, float]:
    """Compile the kernels of ``games`` (default: all) in parallel subprocesses, one per core at
    most, longest first; returns the seconds each took (0.0: already cached)."""
    from gamecore.kernel.games import GAMES, game_key

    names = [game_key(g) for g in (games or list(GAMES))]
    for g in names:
        if g not in GAMES:
            raise ValueError(f"unknown game {g!r}; available: {', '.join(sorted(GAMES))}")
    names = longest_first(dict.fromkeys(names))
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(names)))
    with ThreadPoolExecutor(jobs) as pool:
        return dict(zip(names, pool.map(lambda g: warm_one(g, env), names), strict=True))


def _parser(prog: str = "python -m gamecore warmup") -> argparse.ArgumentParser:
    from gamecore.kernel.games import GAMES

    p = argparse.ArgumentParser(
        prog=prog,
        description="Compile the games' numba kernels into numba's cache ahead of use (the AEC env, the batched "
                    "path, the search agents), one process per core; a game already cached for these sources "
                    "is skipped.",
        epilog="NUMBA_CACHE_DIR picks the cache; NUMBA_BOUNDSCHECK=1 warms a bounds-checked one.")
    p.add_argument("games", nargs="*", metavar="GAME",
                   help=f"games to compile: {', '.join(sorted(GAMES))} (default: all of them)")
    return p


def main(argv: list[str] | None = None, prog: str = "python -m gamecore warmup") -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--here"]:  # the subprocess of warm_one: compile in this process
        for name in args[2:]:
            warm_game(name, tuple(args[1].split(",")))
        return 0
    parser = _parser(prog)
    games = parser.parse_args(args).games
    t0 = time.perf_counter()
    try:
        took = warm(games or None)
    except ValueError as exc:
        parser.error(str(exc))
    for name, s in took.items():
        print(f"{name}: {'cached' if s == 0.0 else f'compiled in {s:.1f} s'}")
    print(f"all kernels in the cache after {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
