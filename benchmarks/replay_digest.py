#!/usr/bin/env python
"""One digest of every legal mask and every state of seeded random games: run it on two trees to
check that a kernel change left the rules' behaviour alone.

Plays ``--games`` uniformly random games at each player count from Python (``legal_mask``, a pick
from a seeded generator, ``apply`` with its automatic steps) and hashes each mask and each state
after each decision, in order. Equal digests on two trees mean the same legal sets and the same
states at every decision of those games. The time in ``legal_mask`` is printed too (after one
warm-up call, so compiling is not in it).

::

    python benchmarks/replay_digest.py cultivo --games 60          # in this tree
    (cd ../old-tree && python benchmarks/replay_digest.py cultivo --games 60)
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def replay_digest(game: str, players: list[int], games: int, seed: int = 0) -> tuple[str, int, float]:
    """(hex digest, decisions, seconds in ``legal_mask``) of ``games`` random games per count."""
    import importlib

    from gamecore.kernel.games import GAMES
    from gamecore.kernel.header import H_TERMINAL

    spec = importlib.import_module(GAMES[game]).GAME
    K = spec.kernels
    digest = hashlib.sha256()
    decisions = 0
    in_mask = 0.0
    for n in players:
        params = spec.make_params(n)
        state = np.zeros(K.STATE_LEN, dtype=np.int64)
        mask = np.zeros(spec.num_actions(params), dtype=np.int8)
        K.init(state, params, seed)
        K.legal_mask(state, mask)  # compile or load before the clock
        rng = np.random.default_rng([seed, n])
        for g in range(games):
            K.init(state, params, seed * 1_000_003 + 1000 * n + g)
            while not state[H_TERMINAL]:
                t0 = time.perf_counter()
                count = K.legal_mask(state, mask)
                in_mask += time.perf_counter() - t0
                digest.update(mask.tobytes())
                K.apply(state, int(np.flatnonzero(mask)[int(rng.integers(count))]))
                digest.update(state.tobytes())
                decisions += 1
    return digest.hexdigest()[:16], decisions, in_mask


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help="callisto, calcada, calimala or cultivo")
    ap.add_argument("--players", default="all", help="player counts, e.g. 2,3 (default: every count the game supports)")
    ap.add_argument("--games", type=int, default=60, help="random games per player count (default 60)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import importlib

    from gamecore.kernel.games import GAMES

    if args.game not in GAMES:
        ap.error(f"unknown game {args.game!r}; choose from {', '.join(GAMES)}")
    spec = importlib.import_module(GAMES[args.game]).GAME
    supported = list(range(spec.min_players, spec.max_players + 1))
    players = supported if args.players == "all" else [int(p) for p in args.players.split(",")]
    bad = [p for p in players if p not in supported]
    if bad:
        ap.error(f"{args.game} plays {supported[0]}-{supported[-1]} players, not {bad}")
    digest, decisions, in_mask = replay_digest(args.game, players, args.games, args.seed)
    print(f"{args.game} players {','.join(map(str, players))}: {decisions} decisions of {args.games} games each, "
          f"digest {digest}; legal_mask {in_mask:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
