"""The batched kernels of every game, built by one factory over the game's kernel module.

``build(K)`` returns ``batch_reset``, ``batch_step``, ``batch_random_rollout`` and
``batch_observe_seats`` (the observation entries of a global state, ``gamecore.envs.global_state``)
for the rules module ``K``. The first three are thin Python functions over one kernel,
``batch_run`` (their ``.kernel``): a kernel links all the game kernels it calls into its own module
and optimises them again, so one kernel for the three instead of three cut the batched path's cold
compile by about a third (the largest game: 36 s of kernels to ~14 s).
:data:`batch_pick_legal`, which serves every game, picks random legal actions. The
functions close over the *module* (not over its dispatchers): numba hashes a closure's cell
contents into the cache key, a module pickles by name, so each game's batched kernels are cached
across processes like any other kernel (``tests/test_caching.py`` checks it).

Every batched kernel is a :class:`Threaded`: one loop over the games, compiled on first use either
as a plain loop (one thread, the default) or as a ``prange`` loop on numba's threads (a count above
one). A parallel kernel costs 2-10 s more to compile cold than the plain loop (numba's parfor
passes, and the game's code optimised once more inside the outlined loop body: the cold batched
first step of the games shipped with the library went from 9.0-57.8 s to 6.5-47.3 s without it), so
a process on the default thread count never pays for it. Both copies borrow their array arguments
(``gamecore.kernel.scratch.borrowed``), as numba does for a ``prange`` body: the per-game row views
count no references, which made the plain loop 5-20% faster.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numba
import numpy as np
from numba import prange

from gamecore.kernel.header import H_CURRENT, H_TERMINAL
from gamecore.kernel.jit import jit, pjit
from gamecore.kernel.rewards import REWARD_SCORE, rank_rewards
from gamecore.kernel.rng import episode_seed, rng_pick_legal, rng_seed
from gamecore.kernel.scratch import borrowed


class Threaded:
    """One batched kernel body, compiled (each on first use) as ``serial`` (the loop over games a
    plain ``range``) and as ``parallel`` (a ``prange`` on numba's threads). ``make(loop)`` returns
    the Python function with its game loop ``for i in loop(...)``: a closure over ``loop``, so the
    two compiled copies hash to different cache entries. ``kernel(threads, *args)`` runs the serial
    copy for ``threads <= 1`` and the parallel one on ``threads`` numba threads otherwise (the
    count restored after); every game is stepped by exactly one thread either way, so the results
    never depend on the count."""

    __slots__ = ("serial", "parallel")

    def __init__(self, make: Callable) -> None:
        self.serial = jit(make(range))
        self.parallel = pjit(make(prange))

    def __call__(self, threads: int, *args):
        if threads <= 1:
            return self.serial(*args)
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            return self.parallel(*args)
        finally:
            numba.set_num_threads(before)


_BUILT: dict[str, tuple] = {}
#: what :func:`build`'s ``batch_run`` does with the batch
MODE_STEP, MODE_RESET, MODE_ROLLOUT = 0, 1, 2


def build(K: ModuleType) -> tuple:
    """(batch_reset, batch_step, batch_random_rollout, batch_observe_seats) for the rules module ``K``
    (built once)."""
    if K.__name__ in _BUILT:
        return _BUILT[K.__name__]

    def make_run(loop):
        def batch_run(mode, states, actions, active, params, streams, episodes, reward_mode, rewards, dones,
                      final_states, masks, counts, obs, players, keys, rng, games_per_env, decisions):
            """The reset, step and rollout of the batch in one kernel (``mode``: :data:`MODE_RESET`,
            :data:`MODE_STEP`, :data:`MODE_ROLLOUT`; the wrappers below document each), so that the
            game's kernels are linked into and optimised in one compiled function, not three."""
            n = params[0]
            # the row views below count no references (a prange loop's threads get arrays like these)
            states, masks, obs, rewards, keys = borrowed(states), borrowed(masks), borrowed(obs), \
                borrowed(rewards), borrowed(keys)
            for i in loop(states.shape[0]):
                if mode == MODE_ROLLOUT:
                    total = 0
                    state = states[i]
                    mask = masks[i]
                    for g in range(games_per_env):
                        K.init(state, params, episode_seed(streams[i], g))
                        count = K.legal_mask(state, mask)
                        while not state[H_TERMINAL]:
                            count = K.apply_legal(state, rng_pick_legal(mask, count, rng, i), mask)
                            total += 1
                    decisions[i] = total
                    continue
                if not active[i]:
                    continue
                if mode == MODE_STEP:
                    count = K.apply_legal(states[i], actions[i], masks[i])
                    dones[i] = states[i, H_TERMINAL]
                    if dones[i]:
                        if reward_mode == REWARD_SCORE:
                            K.scores(states[i], rewards[i])
                        else:
                            K.rank_keys(states[i], keys[i])
                            rank_rewards(keys[i], n, rewards[i])
                        for k in range(states.shape[1]):  # not ``final_states[i] = states[i]``: its
                            final_states[i, k] = states[i, k]  # shape check compiles a ~1.5 s raise path
                        episodes[i] += 1
                        K.init(states[i], params, episode_seed(streams[i], episodes[i]))
                        count = K.legal_mask(states[i], masks[i])
                    else:
                        for k in range(rewards.shape[1]):
                            rewards[i, k] = 0.0
                else:
                    K.init(states[i], params, episode_seed(streams[i], episodes[i]))
                    count = K.legal_mask(states[i], masks[i])
                counts[i] = count
                players[i] = states[i, H_CURRENT]
                K.observe(states[i], players[i], obs[i])

        return batch_run

    batch_run = Threaded(make_run)

    # what a mode does not read, with the types the other modes pass (one specialisation in all)
    no_i64 = np.zeros(0, dtype=np.int64)
    no_i8 = np.zeros(0, dtype=np.int8)
    no_i64_2d = np.zeros((0, 0), dtype=np.int64)
    no_i8_2d = np.zeros((0, 0), dtype=np.int8)
    no_f64_2d = np.zeros((0, 0), dtype=np.float64)

    def batch_reset(threads, states, params, streams, episodes, masks, counts, obs, players, active):
        """Start game ``episodes[i]`` of stream ``streams[i]`` in every slot with ``active[i]``;
        ``counts[i]`` = its number of legal actions."""
        batch_run(threads, MODE_RESET, states, no_i64, active, params, streams, episodes, 0, no_f64_2d, no_i64,
                  no_i64_2d, masks, counts, obs, players, no_f64_2d, no_i64, 0, no_i64)

    def batch_step(threads, states, actions, active, params, streams, episodes, reward_mode, rewards, dones,
                   final_states, masks, counts, obs, players, keys):
        """Step the games with ``active[i]``; a finished game records its rewards and final state
        and starts the next game of its seed stream."""
        batch_run(threads, MODE_STEP, states, actions, active, params, streams, episodes, reward_mode, rewards, dones,
                  final_states, masks, counts, obs, players, keys, no_i64, 0, no_i64)

    def batch_random_rollout(threads, states, params, streams, rng, masks, games_per_env, decisions):
        """Play ``games_per_env`` uniformly random games in every slot (game g of slot i is episode
        g of stream ``streams[i]``; the action picks use ``rng[i]``); count decisions per slot."""
        batch_run(threads, MODE_ROLLOUT, states, no_i64, no_i8, params, streams, no_i64, 0, no_f64_2d, no_i64,
                  no_i64_2d, masks, no_i64, no_i8_2d, no_i64, no_f64_2d, rng, games_per_env, decisions)

    for wrapper in (batch_reset, batch_step, batch_random_rollout):
        wrapper.kernel = batch_run  # the compiled kernel behind them (its stats, signatures)

    def make_observe_seats(loop):
        def batch_observe_seats(states, obs_len, index, bounds, out):
            """``out[i, k] = observe(states[i], s)[index[k]]`` for ``bounds[s] <= k < bounds[s + 1]``:
            chosen entries of chosen seats' observations, side by side (the observation part of a
            global state; seats with an empty range are not observed). Columns from ``bounds[-1]`` on
            are left as they are."""
            states = borrowed(states)
            for i in loop(states.shape[0]):
                buf = np.zeros(obs_len, dtype=np.int8)
                for s in range(bounds.shape[0] - 1):
                    if bounds[s + 1] > bounds[s]:
                        K.observe(states[i], s, buf)
                        for k in range(bounds[s], bounds[s + 1]):
                            out[i, k] = buf[index[k]]

        return batch_observe_seats

    batch_observe_seats = Threaded(make_observe_seats)

    _BUILT[K.__name__] = (batch_reset, batch_step, batch_random_rollout, batch_observe_seats)
    return _BUILT[K.__name__]


def _make_pick_legal(loop):
    def batch_pick_legal(masks, counts, rng, out):
        """``out[i]`` = a uniformly random legal action of row ``i`` (``counts[i]`` of them, -1 if
        none), drawn from generator ``rng[i]``: each row its own stream, so any thread count picks the
        same actions."""
        masks = borrowed(masks)
        for i in loop(masks.shape[0]):
            out[i] = rng_pick_legal(masks[i], counts[i], rng, i)

    return batch_pick_legal


#: ``batch_pick_legal(threads, masks, counts, rng, out)``
batch_pick_legal = Threaded(_make_pick_legal)


@jit
def first_bad_action(masks, actions):
    """(i, why) of the first game whose action is not one of ``masks[i]``'s legal ones (why 1: out
    of range, 2: masked out), or (-1, 0): the one-pass check of a whole batch of integer actions,
    each range-checked before its mask entry is read."""
    num_actions = masks.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= num_actions:
            return i, 1
        if masks[i, a] == 0:
            return i, 2
    return -1, 0


__all__ = ["Threaded", "batch_pick_legal", "build", "first_bad_action", "rng_seed"]
