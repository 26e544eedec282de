"""Random-play fuzzing of a game's kernels, run by tests/test_fuzz.py under NUMBA_BOUNDSCHECK=1.

    python tests/fuzz_games.py GAME GAMES_PER_PLAYER_COUNT SEED

Every step checks: the state passes ``check_state`` and the game's invariants, the deciding seat has
a legal action and is not done, every seat's observation is inside its space, and the game ends
within a bound; at the end, rank rewards sum to zero. Prints ``fuzz ok GAME games=N steps=M``.
"""

from __future__ import annotations

import importlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gamecore.games import GAMES  # noqa: E402
from gamecore.protocol import H_CURRENT, H_DONE, H_TERMINAL  # noqa: E402
from gamecore.rewards import rank_rewards  # noqa: E402
from gamecore.rng import episode_seed  # noqa: E402

MAX_DECISIONS = 20_000


def fuzz(name: str, games_per_count: int, seed: int) -> tuple[int, int]:
    game = importlib.import_module(GAMES[name]).GAME
    K = game.kernels
    rng = np.random.default_rng(seed)
    total_games = total_steps = 0
    for n in range(game.min_players, game.max_players + 1):
        params = game.make_params(num_players=n)
        A = game.num_actions(params)
        high = game.obs_high(params)
        mask = np.zeros(A, dtype=np.int8)
        obs = np.zeros(int(np.prod(game.obs_shape(params))), dtype=np.int8)
        state = np.zeros(K.STATE_LEN, dtype=np.int64)
        keys = np.zeros(n)
        rewards = np.zeros(n)
        for g in range(games_per_count):
            K.init(state, params, episode_seed(seed, g))
            steps = 0
            while not state[H_TERMINAL]:
                where = f"{name} {n}p game {g} step {steps}"
                assert K.check_state(state, params) == 0, f"{where}: check_state {K.check_state(state, params)}"
                errors = game.invariant_errors(state)
                assert not errors, f"{where}: {errors}"
                cur = int(state[H_CURRENT])
                assert not (int(state[H_DONE]) >> cur) & 1, f"{where}: seat {cur} is done but decides"
                count = K.legal_mask(state, mask)
                assert count == int(mask.sum()) and count > 0, f"{where}: {count} legal actions"
                for p in range(n):
                    K.observe(state, p, obs)
                    assert obs.min() >= 0 and obs.max() <= high, f"{where}: observation out of range"
                legal = np.flatnonzero(mask)
                K.apply(state, int(legal[rng.integers(len(legal))]))
                steps += 1
                assert steps < MAX_DECISIONS, f"{where}: game does not end"
            assert K.check_state(state, params) == 0
            assert K.legal_mask(state, mask) == 0
            K.rank_keys(state, keys)
            rank_rewards(keys, n, rewards)
            assert abs(rewards.sum()) < 1e-9
            total_games += 1
            total_steps += steps
    return total_games, total_steps


if __name__ == "__main__":
    name, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    games, steps = fuzz(name, count, seed)
    print(f"fuzz ok {name} games={games} steps={steps} boundscheck={os.environ.get('NUMBA_BOUNDSCHECK', '0')}")
