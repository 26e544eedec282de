#!/usr/bin/env python
"""Time the same recorded decisions on two trees: a kernel change's effect on the slowest
decisions and on typical ones, without the noise of playing different games.

``record`` plays ``--games`` seeded random games of one count from Python (``legal_mask``, a pick
from a seeded generator, ``apply``), times each decision once, and saves to an ``.npz`` file the
state before each decision and its action: the ``--slowest`` slowest decisions, plus every decision
of the phases named in ``--phases``. ``time`` replays a file (state restored, ``legal_mask`` then
``apply``) ``--reps`` times and keeps each decision's fastest time, so a busy moment of the machine
touches one repetition, not the result; it prints the total and the slowest per decision kind. Run
``time`` in both trees on the same file, alternating::

    python benchmarks/replay_timing.py record cultivo /tmp/slow.npz --players 4 --games 100 --slowest 300
    (cd ../old-tree && python benchmarks/replay_timing.py time /tmp/slow.npz)
    python benchmarks/replay_timing.py time /tmp/slow.npz
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    """``benchmarks/bench.py`` as a module (this script may be loaded by path, as in the tests)."""
    if "bench" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench", Path(__file__).resolve().parent / "bench.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench"] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules["bench"]


def _game(name: str, players: int):
    """bench.py's ``_one_game`` (spec, kernels, params, state, mask), with a clear error for an unknown
    game or a count it does not play."""
    from gamecore.kernel.games import GAMES

    if name not in GAMES:
        raise SystemExit(f"unknown game {name!r}; choose from {', '.join(GAMES)}")
    spec = importlib.import_module(GAMES[name]).GAME
    if not spec.min_players <= players <= spec.max_players:
        raise SystemExit(f"{name} plays {spec.min_players}-{spec.max_players} players, not {players}")
    return _bench()._one_game(name, players)


def record(game: str, players: int, games: int, slowest: int, phases: list[str], seed: int = 0) -> dict:
    """The recorded decisions (arrays ``states``, ``actions``, ``phases`` and the game, count, seed)."""
    spec, K, params, state, mask = _game(game, players)
    unknown = [p for p in phases if p not in spec.phase_names]
    if unknown:
        raise SystemExit(f"{game} has no phase {unknown}; its phases: {', '.join(spec.phase_names)}")
    keep_phases = {spec.phase_names.index(p) for p in phases}
    rng = np.random.default_rng([seed, players])
    # (ns, state before, action, phase) of every decision: the loop of bench.py's decision tail
    rows = [(ns, before, a, ph) for ns, ph, a, before in
            _bench().timed_random_decisions(K, params, state, mask, games, seed, rng, keep_states=True)]
    order = sorted(range(len(rows)), key=lambda i: -rows[i][0])
    chosen = sorted(set(order[:slowest]) | {i for i, r in enumerate(rows) if r[3] in keep_phases})
    return {"game": np.array(game), "players": np.array(players), "seed": np.array(seed),
            "states": np.array([rows[i][1] for i in chosen], dtype=np.int64).reshape(len(chosen), -1),
            "actions": np.array([rows[i][2] for i in chosen], dtype=np.int64),
            "phases": np.array([rows[i][3] for i in chosen], dtype=np.int64)}


def time_file(rec, reps: int = 5) -> dict:
    """Per decision the fastest of ``reps`` replays (seconds), and the totals by decision kind."""
    spec, K, params, state, mask = _game(str(rec["game"]), int(rec["players"]))
    states, actions, phases = rec["states"], rec["actions"], rec["phases"]
    if states.shape[1] != K.STATE_LEN:
        raise SystemExit(f"the file's states have {states.shape[1]} slots, this tree's {K.STATE_LEN}")
    K.init(state, params, 0)
    K.legal_mask(state, mask)
    best = np.full(len(actions), np.inf)
    clock = time.perf_counter_ns
    for _ in range(reps):
        for i in range(len(actions)):
            state[:] = states[i]
            t0 = clock()
            K.legal_mask(state, mask)
            K.apply(state, int(actions[i]))
            best[i] = min(best[i], (clock() - t0) / 1e9)
    kinds = {}
    for ph in np.unique(phases):
        sel = best[phases == ph]
        kinds[spec.phase_names[ph]] = {"n": int(sel.size), "total_s": float(sel.sum()), "max_s": float(sel.max()),
                                       "median_s": float(np.median(sel))}
    return {"per_decision_s": best, "kinds": kinds, "total_s": float(best.sum())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="play seeded random games and save the decisions to replay")
    r.add_argument("game", help="callisto, calcada, calimala or cultivo")
    r.add_argument("file", help="the .npz file to write")
    r.add_argument("--players", type=int, required=True, help="seats")
    r.add_argument("--games", type=int, default=100, help="seeded random games to play (default 100)")
    r.add_argument("--slowest", type=int, default=300, help="keep this many of the slowest decisions (default 300)")
    r.add_argument("--phases", default="", help="also keep every decision of these phases, e.g. pay,step")
    r.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    t = sub.add_parser("time", help="replay a recorded file in this tree")
    t.add_argument("file", help="an .npz file written by record")
    t.add_argument("--reps", type=int, default=5, help="replays; each decision's fastest is kept (default 5)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.cmd == "record":
        rec = record(args.game, args.players, args.games, args.slowest,
                     [p for p in args.phases.split(",") if p], args.seed)
        np.savez_compressed(args.file, **rec)
        print(f"{len(rec['actions'])} decisions of {args.games} random {args.players}-player {args.game} games "
              f"-> {args.file}")
        return 0
    with np.load(args.file) as f:
        rec = {k: f[k] for k in f.files}
    res = time_file(rec, args.reps)
    print(f"{len(rec['actions'])} decisions, fastest of {args.reps}: total {1e3 * res['total_s']:.1f} ms")
    for name, k in sorted(res["kinds"].items(), key=lambda kv: -kv[1]["total_s"]):
        print(f"  {name:14s} {k['n']:6d}  total {1e3 * k['total_s']:8.1f} ms  median {1e6 * k['median_s']:8.1f} µs"
              f"  slowest {1e3 * k['max_s']:6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
