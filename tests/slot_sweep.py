"""Slot sweep of a game's ``check_state``, run by tests/test_state_sweep.py under NUMBA_BOUNDSCHECK=1.

    python tests/slot_sweep.py GAME SEED [STATES_PER_PHASE]

At every player count the game supports, seeded random play collects states from every phase (and
finished games). Every slot of each collected state is then set, one at a time, to a few values:
-1, 2**62, ``MAX_COUNTER`` (2**40, the largest decision count), one more than the largest value the
slot takes in the states seen, and a random value between its smallest and largest. Each corrupted
state must be either refused by ``check_state`` (or, as ``set_state`` does, for a running game
whose decider has no legal action) or safe: every seat's observation in its space, ``to_dict``
(every viewer) and ``render_ansi`` working (there and at the end), ``resample`` keeping it sound,
and random legal play from it reaching the end with ``check_state`` holding, every seat's
observation in its space and a legal action for the decider after every step.

A kernel that indexes out of bounds raises IndexError here (bounds checking) instead of crashing.
Prints ``sweep ok GAME states=S corrupted=C accepted=A`` or the first failures and exits 1.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gamecore.kernel import bits  # noqa: E402
from gamecore.kernel.games import GAMES  # noqa: E402
from gamecore.kernel.protocol import (  # noqa: E402
    H_CURRENT,
    H_DONE,
    H_PHASE,
    H_TERMINAL,
    MAX_COUNTER,
    VIEW_ALL,
    VIEW_PUBLIC,
)
from gamecore.kernel.rng import episode_seed  # noqa: E402

COLLECT_GAMES = 4  # random games per player count the states are drawn from
MORE_GAMES = 12  # ... or up to this many while some phase has not been seen (Cultivo's refill is rare)
MAX_DECISIONS = 50_000
VIEWS_EVERY = 500  # steps between to_dict / render_ansi checks while an accepted state plays on
MAX_FAILURES = 12


class Sweep:
    def __init__(self, name: str, n: int, seed: int, per_phase: int) -> None:
        self.name = name
        self.game = importlib.import_module(GAMES[name]).GAME
        self.K = self.game.kernels
        self.n = n
        self.params = self.game.make_params(num_players=n)
        self.A = self.game.num_actions(self.params)
        self.high = self.game.obs_high(self.params)
        self.obs_len = int(np.prod(self.game.obs_shape(self.params)))
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.per_phase = per_phase
        self.failures: list[str] = []
        self.corrupted = self.accepted = self.states = 0

    def legal(self, state: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.A, dtype=np.int8)
        count = self.K.legal_mask(state, mask)
        assert count == int(mask.sum()), "legal_mask's count differs from its mask"
        return np.flatnonzero(mask)

    def collect(self) -> list[np.ndarray]:
        """``per_phase`` states of each phase (and of finished games) from seeded random play: the
        one seen closest to the end of its game (short play-outs), the others a uniform pick among
        all; also sets each slot's range over every state seen."""
        best: dict[int, tuple[int, np.ndarray]] = {}  # phase -> (decisions left in its game, state)
        picks: dict[int, list[np.ndarray]] = {}
        seen: dict[int, int] = {}
        lo = hi = None
        keep = self.per_phase - 1
        state = np.zeros(self.K.STATE_LEN, dtype=np.int64)
        phases = len(self.game.phase_names)
        for g in range(MORE_GAMES):
            if g >= COLLECT_GAMES and len(best) > phases:  # every phase and a finished game
                break
            self.K.init(state, self.params, episode_seed(self.seed, g))
            last: dict[int, tuple[int, np.ndarray]] = {}
            steps = 0
            while True:
                lo = state.copy() if lo is None else np.minimum(lo, state)
                hi = state.copy() if hi is None else np.maximum(hi, state)
                key = -1 if state[H_TERMINAL] else int(state[H_PHASE])
                last[key] = (steps, state.copy())
                seen[key] = seen.get(key, 0) + 1
                pool = picks.setdefault(key, [])
                if len(pool) < keep:
                    pool.append(state.copy())
                elif keep and self.rng.random() < keep / seen[key]:
                    pool[int(self.rng.integers(keep))] = state.copy()
                if state[H_TERMINAL]:
                    break
                legal = self.legal(state)
                self.K.apply(state, int(legal[self.rng.integers(len(legal))]))
                steps += 1
                assert steps < MAX_DECISIONS, f"{self.name} {self.n}p: game {g} does not end"
            for key, (at, st) in last.items():
                if key not in best or steps - at < best[key][0]:
                    best[key] = (steps - at, st)
        self.lo, self.hi = lo, hi
        missing = set(range(len(self.game.phase_names))) - set(best)
        if missing:
            print(f"{self.name} {self.n}p: random play reached no state of phase(s) {sorted(missing)}")
        return [s for key in sorted(best) for s in [*picks[key], best[key][1]]]

    def values(self, slot: int, orig: int) -> list[int]:
        lo, hi = int(self.lo[slot]), int(self.hi[slot])
        vals = [-1, 2**62, MAX_COUNTER, hi + 1, int(self.rng.integers(lo, hi + 1))]
        out = []
        for v in vals:
            if v != orig and v not in out:
                out.append(v)
        return out

    def views(self, state: np.ndarray, seats: bool) -> None:
        for viewer in (VIEW_PUBLIC, VIEW_ALL, *(range(self.n) if seats else ())):
            self.game.to_dict(state, viewer)
        self.game.render_ansi(state, VIEW_PUBLIC)
        self.game.render_ansi(state, VIEW_ALL)

    def sound(self, state: np.ndarray, where: str) -> np.ndarray:
        bad = self.K.check_state(state, self.params)
        assert bad == 0, f"{where}: check_state says slot {bad - 1}"
        for p in range(self.n):
            obs = np.zeros(self.obs_len, dtype=np.int8)
            self.K.observe(state, p, obs)
            assert obs.min() >= 0 and obs.max() <= self.high, f"{where}: observation of seat {p} out of range"
        if state[H_TERMINAL]:
            assert len(self.legal(state)) == 0, f"{where}: a finished game has legal actions"
            return np.zeros(0, dtype=np.int64)
        cur = int(state[H_CURRENT])
        assert not (int(state[H_DONE]) >> cur) & 1, f"{where}: seat {cur} is done but decides"
        legal = self.legal(state)
        assert len(legal) > 0, f"{where}: the decider has no legal action"
        return legal

    def play_out(self, state: np.ndarray, where: str) -> None:
        """The checks of an accepted state, then random legal play to the end."""
        self.views(state, True)
        copy = state.copy()
        self.K.resample(copy, int(self.rng.integers(self.n)), int(self.rng.integers(2**62)))
        bad = self.K.check_state(copy, self.params)
        assert bad == 0, f"{where}: resample made slot {bad - 1} bad"
        st = state.copy()
        steps = 0
        while True:
            legal = self.sound(st, f"{where}, step {steps}")
            if st[H_TERMINAL]:
                break
            self.K.apply(st, int(legal[self.rng.integers(len(legal))]))
            steps += 1
            if steps % VIEWS_EVERY == 0:
                self.views(st, False)
            assert steps < MAX_DECISIONS, f"{where}: the game does not end"
        self.views(st, False)

    def run(self) -> None:
        states = self.collect()
        self.states = len(states)
        for k, base in enumerate(states):
            phase = "end" if base[H_TERMINAL] else self.game.phase_names[int(base[H_PHASE])]
            assert self.K.check_state(base, self.params) == 0, f"collected state {k} is refused"
            for slot in range(self.K.STATE_LEN):
                orig = int(base[slot])
                for v in self.values(slot, orig):
                    where = f"{self.name} {self.n}p state {k} ({phase}) slot {slot} = {v} (was {orig})"
                    st = base.copy()
                    st[slot] = v
                    self.corrupted += 1
                    try:
                        if self.K.check_state(st, self.params):
                            continue
                        if not st[H_TERMINAL] and len(self.legal(st)) == 0:
                            continue  # set_state refuses it too (its decider has no legal action)
                        self.accepted += 1
                        self.play_out(st, where)
                    except Exception as exc:  # an assertion, or IndexError from bounds checking
                        self.failures.append(f"{where}: {type(exc).__name__}: {exc}\n"
                                             + "".join(traceback.format_tb(exc.__traceback__)[-3:]))
                        if len(self.failures) >= MAX_FAILURES:
                            return


def main(name: str, seed: int, per_phase: int) -> int:
    game = importlib.import_module(GAMES[name]).GAME
    states = corrupted = accepted = 0
    failures: list[str] = []
    for n in game.player_counts:
        sweep = Sweep(name, n, seed + n, per_phase)
        sweep.run()
        states += sweep.states
        corrupted += sweep.corrupted
        accepted += sweep.accepted
        failures += sweep.failures
        if len(failures) >= MAX_FAILURES:
            break
    if failures:
        print(f"sweep FAILED {name}: {len(failures)} failure(s) (stopped at {MAX_FAILURES})")
        for f in failures:
            print(f)
        return 1
    print(f"sweep ok {name} states={states} corrupted={corrupted} accepted={accepted} "
          f"boundscheck={os.environ.get('NUMBA_BOUNDSCHECK', '0')} checked_stores={int(bits.CHECKED)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 2))
