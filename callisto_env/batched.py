"""Batched Callisto kernels: one game per ``prange`` iteration (see gamecore.protocol for why each
game writes these few loops itself)."""

from __future__ import annotations

from numba import prange

from callisto_env import rules as K
from gamecore.jit import pjit
from gamecore.protocol import H_CURRENT, H_TERMINAL
from gamecore.rewards import REWARD_SCORE, rank_rewards
from gamecore.rng import episode_seed, rng_pick_legal


@pjit
def batch_reset(states, params, streams, episodes, masks, obs, players):
    for i in prange(states.shape[0]):
        K.init(states[i], params, episode_seed(streams[i], episodes[i]))
        K.legal_mask(states[i], masks[i])
        players[i] = states[i, H_CURRENT]
        K.observe(states[i], players[i], obs[i])


@pjit
def batch_step(states, actions, active, params, streams, episodes, reward_mode, rewards, dones,
               final_states, masks, obs, players, keys):
    """Step the games with ``active[i]``; a finished game records its rewards and final state and
    starts the next game of its seed stream."""
    n = params[0]
    for i in prange(states.shape[0]):
        if not active[i]:
            continue
        K.apply(states[i], actions[i])
        dones[i] = states[i, H_TERMINAL]
        if dones[i]:
            if reward_mode == REWARD_SCORE:
                K.scores(states[i], rewards[i])
            else:
                K.rank_keys(states[i], keys[i])
                rank_rewards(keys[i], n, rewards[i])
            final_states[i] = states[i]
            episodes[i] += 1
            K.init(states[i], params, episode_seed(streams[i], episodes[i]))
        else:
            rewards[i] = 0.0
        K.legal_mask(states[i], masks[i])
        players[i] = states[i, H_CURRENT]
        K.observe(states[i], players[i], obs[i])


@pjit
def batch_random_rollout(states, params, rng, masks, games_per_env, decisions):
    """Play ``games_per_env`` random games in every slot; count decisions per slot."""
    for i in prange(states.shape[0]):
        total = 0
        for g in range(games_per_env):
            K.init(states[i], params, episode_seed(rng[i], g))
            while not states[i, H_TERMINAL]:
                count = K.legal_mask(states[i], masks[i])
                K.apply(states[i], rng_pick_legal(masks[i], count, rng, i))
                total += 1
        decisions[i] = total
