#!/usr/bin/env python
"""Where a game's cold numba compile goes: kernel by kernel, and inside LLVM.

Runs a game's AEC first step (import, ``env()``, ``reset``, one ``step``; with ``--batched`` the
batched one: ``BatchedGames(16)``, ``reset``, one ``step``) with an empty ``NUMBA_CACHE_DIR``, so
that every kernel compiles, and prints:

* the wall time, and the time numba held its LLVM lock (LLVM's passes and machine code; the rest is
  numba's own Python: type inference and lowering);
* LLVM's time by phase, for the kernels the step calls from Python (*entries*: compiled with no
  other project kernel compiling) and for the *nested* kernels they call: the function passes of
  each kernel's own IR, the module passes over its final module (its IR with every callee's linked
  in, optimised once more) and its machine code;
* the kernels with the most compile time of their own (their compile less the nested compiles it
  started), with the number of compiles (one per signature).

::

    python benchmarks/compile_breakdown.py cultivo
    python benchmarks/compile_breakdown.py calimala --players 3 --top 15
    python benchmarks/compile_breakdown.py calimala --batched

The LLVM phases are measured by wrapping three methods of numba's ``JITCodeLibrary``; if numba
moved them, that table is left out (the rest does not need them).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: numba's JITCodeLibrary methods timed, and the phase each is reported as
LLVM_PHASES = {"_optimize_functions": "function passes", "_optimize_final_module": "final module passes",
               "_finalize_specific": "machine code"}


def exclusive_times(events: list[tuple[float, bool, str]]) -> dict[str, tuple[float, int]]:
    """``{name: (seconds of its own, compiles)}`` from ``(time, is_start, name)`` compile events,
    properly nested as numba raises them: each compile's time less the compiles started inside it."""
    stack: list[list] = []
    out: dict[str, tuple[float, int]] = {}
    for ts, is_start, name in events:
        if is_start:
            stack.append([name, ts, 0.0])
            continue
        if not stack or stack[-1][0] != name:
            raise ValueError(f"compile events not nested: end of {name!r}")
        _, t0, inner = stack.pop()
        own, count = out.get(name, (0.0, 0))
        out[name] = (own + (ts - t0) - inner, count + 1)
        if stack:
            stack[-1][2] += ts - t0
    if stack:
        raise ValueError(f"compile events not closed: {[s[0] for s in stack]}")
    return out


def _install_llvm_timers(depth: list[int], phases: dict[tuple[str, bool], float]) -> bool:
    """Wrap the LLVM phases of numba's JIT code libraries; seconds go to ``phases[(phase, nested)]``
    (nested: more than one kernel compiling). False if numba moved them."""
    try:
        from numba.core.codegen import JITCodeLibrary
    except ImportError:
        return False
    if not all(hasattr(JITCodeLibrary, m) for m in LLVM_PHASES):
        return False

    def timed(name, orig):
        def wrapper(self, *args, **kwargs):
            t0 = time.perf_counter()
            try:
                return orig(self, *args, **kwargs)
            finally:
                key = (LLVM_PHASES[name], depth[0] > 1)
                phases[key] = phases.get(key, 0.0) + time.perf_counter() - t0
        return wrapper

    for name in LLVM_PHASES:
        setattr(JITCodeLibrary, name, timed(name, getattr(JITCodeLibrary, name)))
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help="callisto, calcada, calimala or cultivo")
    ap.add_argument("--players", type=int, default=None, help="seats (default: the game's smallest count)")
    ap.add_argument("--top", type=int, default=25, help="kernels listed (default 25)")
    ap.add_argument("--batched", action="store_true",
                    help="the batched first step (BatchedGames(16): reset, one step) instead of the AEC one")
    args = ap.parse_args(argv)
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="compile-breakdown-")
    sys.path.insert(0, str(ROOT))
    from numba.core import event

    depth = [0]
    events: list[tuple[float, bool, str]] = []

    class Compiles(event.Listener):
        def on_start(self, ev) -> None:
            depth[0] += 1
            events.append((time.perf_counter(), True, _kernel_name(ev)))

        def on_end(self, ev) -> None:
            events.append((time.perf_counter(), False, _kernel_name(ev)))
            depth[0] -= 1

    phases: dict[tuple[str, bool], float] = {}
    timed = _install_llvm_timers(depth, phases)
    lock = event.TimingListener()
    event.register("numba:llvm_lock", lock)
    event.register("numba:compile", Compiles())

    import importlib

    import numpy as np

    from gamecore.kernel.games import GAMES

    if args.game not in dict(GAMES):
        ap.error(f"unknown game {args.game!r}; choose from {', '.join(dict(GAMES))}")
    t0 = time.perf_counter()
    package = importlib.import_module(dict(GAMES)[args.game])
    spec = package.GAME
    players = int(spec.make_params(args.players)[0])
    if args.batched:
        from gamecore.envs.batched import BatchedGames

        batch = BatchedGames(args.game, 16, seed=0, num_players=players)
        batch.reset()
        batch.step(batch.random_actions())
    else:
        env = package.env(num_players=players)
        env.reset(seed=0)
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    wall = time.perf_counter() - t0

    own = exclusive_times(events)
    print(f"## {args.game} ({players} players): cold {'batched' if args.batched else 'AEC'} first step {wall:.1f} s, "
          f"{sum(c for _, c in own.values())} compiles of {len(own)} functions")
    print(f"\nLLVM (numba's LLVM lock held) {lock.duration:.1f} s; numba's own Python (typing, lowering) and "
          f"the imports {wall - lock.duration:.1f} s\n")
    if timed:
        print("| LLVM phase | entries s | nested s |\n|---|---:|---:|")
        for phase in LLVM_PHASES.values():
            print(f"| {phase} | {phases.get((phase, False), 0.0):.1f} | {phases.get((phase, True), 0.0):.1f} |")
        print()
    print("| kernel | own compile s | compiles |\n|---|---:|---:|")
    for name, (secs, count) in sorted(own.items(), key=lambda kv: -kv[1][0])[: args.top]:
        print(f"| {name} | {secs:.2f} | {count} |")
    return 0


def _kernel_name(ev) -> str:
    func = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
    if func is None:
        return "?"
    return f"{func.__module__}.{func.__qualname__}"


if __name__ == "__main__":
    sys.exit(main())
