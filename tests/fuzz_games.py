"""Random-play fuzzing of a game's kernels, run by tests/test_fuzz.py under NUMBA_BOUNDSCHECK=1.

    python tests/fuzz_games.py GAME GAMES_PER_PLAYER_COUNT SEED [PLAYERS]

(every player count the game supports, or only PLAYERS; the games of one count do not depend on
which other counts run)

Every step of every game, at every player count the game supports, checks: the state passes
``check_state`` and the game's invariants, the deciding seat is not done and has a legal action,
every seat's observation is inside its space, and ``apply_legal`` reaches the state and mask that
``apply`` then ``legal_mask`` do. On a sample of steps it also checks:

* **no dead ends**: every continuation of the current turn (all sequences of legal decisions while
  the turn owner stays the same, up to a node budget) reaches only states where the decider has a
  legal action;
* **resampling**: after ``resample`` for a random seat, that seat's observation and ``to_dict``
  view are unchanged, the state is sound, and random play continues legally from it;
* **the generator is in no view**: a different generator state changes no observation and no
  seat's ``to_dict``.

The game ends within a bound; at the end rank rewards sum to zero. Prints
``fuzz ok GAME games=N steps=M``.
"""

from __future__ import annotations

import importlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gamecore.kernel import bits  # noqa: E402
from gamecore.kernel.games import GAMES  # noqa: E402
from gamecore.kernel.protocol import H_CURRENT, H_DONE, H_OWNER, H_RNG, H_TERMINAL  # noqa: E402
from gamecore.kernel.rewards import rank_rewards  # noqa: E402
from gamecore.kernel.rng import episode_seed  # noqa: E402

MAX_DECISIONS = 50_000
DEAD_END_EVERY = 97  # steps between dead-end searches
DEAD_END_NODES = 400  # node budget of one search
RESAMPLE_EVERY = 61
VIEW_EVERY = 211  # steps between the (slower, Python) to_dict comparisons


class Fuzzer:
    def __init__(self, name: str, n: int, seed: int) -> None:
        self.name = name
        self.game = importlib.import_module(GAMES[name]).GAME
        self.K = self.game.kernels
        self.n = n
        self.params = self.game.make_params(num_players=n)
        self.A = self.game.num_actions(self.params)
        self.high = self.game.obs_high(self.params)
        self.obs_len = int(np.prod(self.game.obs_shape(self.params)))
        self.rng = np.random.default_rng(seed)

    def legal(self, state: np.ndarray) -> np.ndarray:
        mask = np.zeros(self.A, dtype=np.int8)
        count = self.K.legal_mask(state, mask)
        assert count == int(mask.sum())
        return np.flatnonzero(mask)

    def observe(self, state: np.ndarray, p: int) -> np.ndarray:
        obs = np.zeros(self.obs_len, dtype=np.int8)
        self.K.observe(state, p, obs)
        return obs

    def check_step(self, state: np.ndarray, where: str) -> np.ndarray:
        bad = self.K.check_state(state, self.params)
        assert bad == 0, f"{where}: check_state says slot {bad - 1}"
        errors = self.game.invariant_errors(state)
        assert not errors, f"{where}: {errors}"
        cur = int(state[H_CURRENT])
        assert not (int(state[H_DONE]) >> cur) & 1, f"{where}: seat {cur} is done but decides"
        legal = self.legal(state)
        assert len(legal) > 0, f"{where}: the decider has no legal action"
        for p in range(self.n):
            obs = self.observe(state, p)
            assert obs.min() >= 0 and obs.max() <= self.high, f"{where}: observation of seat {p} out of range"
        return legal

    def no_dead_ends(self, state: np.ndarray, where: str) -> None:
        """Depth-first over every continuation of this turn, within the node budget."""
        owner = int(state[H_OWNER])
        stack = [state.copy()]
        nodes = 0
        while stack and nodes < DEAD_END_NODES:
            st = stack.pop()
            nodes += 1
            if st[H_TERMINAL] or int(st[H_OWNER]) != owner:
                continue
            legal = self.legal(st)
            assert len(legal) > 0, f"{where}: a continuation of this turn reaches a dead end"
            order = self.rng.permutation(legal)
            for a in order[:8]:
                nxt = st.copy()
                self.K.apply(nxt, int(a))
                stack.append(nxt)

    def views_equal(self, a: np.ndarray, b: np.ndarray, p: int, where: str, what: str, dicts: bool) -> None:
        assert np.array_equal(self.observe(a, p), self.observe(b, p)), f"{where}: {what} changed seat {p}'s observation"
        if dicts:
            assert self.game.to_dict(a, p) == self.game.to_dict(b, p), f"{where}: {what} changed seat {p}'s to_dict"

    def resample_check(self, state: np.ndarray, step: int, where: str) -> None:
        p = int(self.rng.integers(self.n))
        copy = state.copy()
        self.K.resample(copy, p, int(self.rng.integers(2**62)))
        dicts = step % VIEW_EVERY == 0
        self.views_equal(state, copy, p, where, "resample", dicts)
        bad = self.K.check_state(copy, self.params)
        assert bad == 0, f"{where}: resample made slot {bad - 1} bad"
        for k in range(20):  # play continues legally from the redealt state
            if copy[H_TERMINAL]:
                break
            legal = self.check_step(copy, f"{where} (after resample, step {k})")
            self.K.apply(copy, int(legal[self.rng.integers(len(legal))]))
        # the generator is in no view
        other = state.copy()
        other[H_RNG] = np.int64(self.rng.integers(1, 2**62))
        for q in range(self.n):
            self.views_equal(state, other, q, where, "the generator state", dicts)

    def apply_legal_check(self, state: np.ndarray, action: int, where: str) -> None:
        """Take ``action`` with ``apply_legal``; the state, mask and count must be those of
        ``apply`` then ``legal_mask`` on a copy."""
        copy = state.copy()
        self.K.apply(copy, action)
        want = np.zeros(self.A, dtype=np.int8)
        want_count = self.K.legal_mask(copy, want)
        mask = np.full(self.A, 7, dtype=np.int8)  # every entry must be written
        count = self.K.apply_legal(state, action, mask)
        assert np.array_equal(state, copy), f"{where}: apply_legal reached another state than apply"
        assert count == want_count and np.array_equal(mask, want), f"{where}: apply_legal's mask is not legal_mask's"

    def run(self, games: int, seed: int) -> int:
        state = np.zeros(self.K.STATE_LEN, dtype=np.int64)
        keys = np.zeros(self.n)
        rewards = np.zeros(self.n)
        steps_total = 0
        for g in range(games):
            self.K.init(state, self.params, episode_seed(seed, g))
            steps = 0
            while not state[H_TERMINAL]:
                where = f"{self.name} {self.n}p game {g} step {steps}"
                legal = self.check_step(state, where)
                if steps % DEAD_END_EVERY == g % DEAD_END_EVERY:
                    self.no_dead_ends(state, where)
                if steps % RESAMPLE_EVERY == g % RESAMPLE_EVERY:
                    self.resample_check(state, steps, where)
                self.apply_legal_check(state, int(legal[self.rng.integers(len(legal))]), where)
                steps += 1
                assert steps < MAX_DECISIONS, f"{where}: game does not end"
            assert self.K.check_state(state, self.params) == 0
            assert len(self.legal(state)) == 0
            self.K.rank_keys(state, keys)
            rank_rewards(keys, self.n, rewards)
            assert abs(rewards.sum()) < 1e-9
            steps_total += steps
        return steps_total


def fuzz(name: str, games_per_count: int, seed: int, players: int | None = None) -> tuple[int, int]:
    game = importlib.import_module(GAMES[name]).GAME
    counts = game.player_counts if players is None else (players,)
    assert set(counts) <= set(game.player_counts), f"{name} is played by {game.player_counts} players"
    total_games = total_steps = 0
    for n in counts:
        total_steps += Fuzzer(name, n, seed + n).run(games_per_count, seed + 1000 * n)
        total_games += games_per_count
    return total_games, total_steps


if __name__ == "__main__":
    name, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    games, steps = fuzz(name, count, seed, int(sys.argv[4]) if len(sys.argv) > 4 else None)
    print(f"fuzz ok {name} games={games} steps={steps} boundscheck={os.environ.get('NUMBA_BOUNDSCHECK', '0')} "
          f"checked_stores={int(bits.CHECKED)}")
