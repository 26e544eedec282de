"""A game with no rules, for measuring the AEC wrapper floor.

It goes through exactly the machinery a real game does (``BaseRawEnv``, ``make_env_factory``, numba
kernels behind the same interface), but its kernels do almost nothing: 2 players, 8 actions all
legal, a one-byte-per-action observation, and the game ends after 40 decisions. The AEC loop's
time per step on it is what the wrappers and the Python around the kernels cost; a real game's
extra time is its rules.
"""

from __future__ import annotations

import sys

import numba
import numpy as np

from gamecore.envs.aec import BaseRawEnv, make_env_factory
from gamecore.kernel.kernels import plain_apply_legal
from gamecore.kernel.protocol import H_CURRENT, H_DECISIONS, H_DONE, H_NPLAYERS, H_OWNER, H_TERMINAL, GameSpec

STATE_LEN = 8
NUM_ACTIONS = 8
LENGTH = 40
APPLY_LEGAL_FUSED = False


@numba.njit(cache=True)
def init(state, params, seed):
    state[:] = 0
    state[H_NPLAYERS] = params[0]


@numba.njit(cache=True)
def legal_mask(state, mask):
    if state[H_TERMINAL]:
        mask[:] = 0
        return 0
    mask[:] = 1
    return NUM_ACTIONS


@numba.njit(cache=True)
def apply(state, action):
    state[H_DECISIONS] += 1
    if state[H_DECISIONS] >= LENGTH:
        state[H_TERMINAL] = 1
        state[H_DONE] = (1 << state[H_NPLAYERS]) - 1
        state[H_CURRENT] = 0
    else:
        state[H_CURRENT] = (state[H_CURRENT] + 1) % state[H_NPLAYERS]
    state[H_OWNER] = state[H_CURRENT]


@numba.njit(cache=True)
def scores(state, out):
    out[:] = 0.0


@numba.njit(cache=True)
def rank_keys(state, out):
    for p in range(state[H_NPLAYERS]):
        out[p] = float(p)


@numba.njit(cache=True)
def observe(state, player, out):
    out[:] = 0
    out[state[H_DECISIONS] % NUM_ACTIONS] = 1


@numba.njit(cache=True)
def resample(state, player, seed):
    pass


@numba.njit(cache=True)
def check_state(state, params):
    return 0


apply_legal = plain_apply_legal(sys.modules[__name__])


class NoopGame(GameSpec):
    name = "noop"
    env_id = "noop-v0"
    min_players = 2
    max_players = 2

    @property
    def kernels(self):
        import sys

        return sys.modules[__name__]

    def _pack_params(self, num_players, options):
        return np.array([num_players], dtype=np.int64)

    def num_actions(self, params):
        return NUM_ACTIONS

    def obs_shape(self, params):
        return (NUM_ACTIONS,)

    def action_to_string(self, state, action):
        return f"action {action}"


GAME = NoopGame()


class raw_env(BaseRawEnv):  # noqa: N801
    game = GAME


env = make_env_factory(raw_env)
