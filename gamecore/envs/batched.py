"""N games in one ``(N, STATE_LEN)`` array, stepped by one numba kernel (on one thread by default).

:class:`BatchedGames` is the plain batched API: every call advances all N games by one decision
(the deciding seat of each game acts), finished games restart automatically, and the returned
observation of game ``i`` is the one of the seat that decides next in it.

:class:`gamecore.envs.sb3.SelfPlayVecEnv` turns it into a Stable-Baselines3 ``VecEnv``.

Game ``i`` of a batch seeded ``s`` plays exactly the games of a sequential env reset with
``seed=s + i`` and then reset without a seed after each game.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from gamecore.envs.encoding import ObsEncoder, check_obs_encoding
from gamecore.envs.global_state import global_state_view
from gamecore.kernel.batch_kernels import batch_pick_legal, build, first_bad_action
from gamecore.kernel.games import get_game
from gamecore.kernel.options import check_options, short_repr
from gamecore.kernel.protocol import GameSpec
from gamecore.kernel.rewards import REWARD_MODES
from gamecore.kernel.rng import MAX_SEED, check_seed, episode_seed, python_seed_to_int, rng_pick_rows, rng_seed_array

#: salt of the generators that pick random actions (apart from every game's own seeds)
_PICK_SALT = -2
#: fewest games per thread worth a thread of its own
MIN_GAMES_PER_THREAD = 64


def _max_threads() -> int:
    """numba's thread pool size (``NUMBA_NUM_THREADS``), the most threads a kernel can use."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set at numba's import


def run_with_threads(threads: int, kernel, *args) -> float:
    """Call ``kernel(threads, *args)`` (a :class:`gamecore.kernel.batch_kernels.Threaded` kernel or a
    wrapper over one: serial for one thread, on ``threads`` numba threads otherwise); returns the
    seconds it took."""
    t0 = time.perf_counter()
    kernel(threads, *args)
    return time.perf_counter() - t0


class ThreadChooser:
    """How many numba threads the batched kernels use.

    One thread is the default because it is the only count that is never slower than one thread
    whatever else holds the cores (a busy process, RLlib runners, torch's pool): a parallel kernel
    waits for its slowest thread, and beside a busy process 2 threads measured up to 1.35x slower
    than 1 (``benchmarks/README.md``). On dedicated cores ask for more: an int fixes the count, and
    ``num_threads="auto"`` tries, from time to time, one thread against all of them (at most one
    per MIN_GAMES_PER_THREAD games) on the live workload and uses whichever took less time in all
    until the next trial. Each candidate runs a block of consecutive calls whose first call is not
    timed (a worker that has just woken up is scheduled ahead of a busy process for a moment, so a
    short or best-of trial flatters the thread count that is slow under sustained load); the trials
    themselves cost time on busy cores. The results never depend on the count: every game is
    stepped by exactly one thread.
    """

    EXPLORE = 8  # consecutive calls per candidate in a trial (all but the first timed)
    EXPLOIT = 800  # calls between trials

    def __init__(self, requested: int | str, num_envs: int) -> None:
        most = max(1, min(_max_threads(), num_envs // MIN_GAMES_PER_THREAD))
        if requested == "auto":
            self.candidates = sorted({1, most})
        elif isinstance(requested, (int, np.integer)) and not isinstance(requested, (bool, np.bool_)) \
                and 1 <= requested <= _max_threads():
            self.candidates = [int(requested)]
        else:
            raise ValueError(f"num_threads must be 'auto' or an int 1..{_max_threads()}, "
                             f"got {short_repr(requested)}")
        self.requested = requested
        self.best = self.candidates[-1]
        self._calls = 0
        self._trial: dict[int, float] = {}

    def _pick(self) -> tuple[int, bool]:
        if len(self.candidates) == 1:
            return self.candidates[0], False
        k = self._calls % (self.EXPLOIT + self.EXPLORE * len(self.candidates))
        if k < self.EXPLORE * len(self.candidates):
            return self.candidates[k // self.EXPLORE], k % self.EXPLORE != 0
        return self.best, False

    def run_untimed(self, kernel, *args) -> None:
        """Run ``kernel`` with the current choice, outside the trials (a side kernel such as the
        action pick, whose times are not comparable with the step's)."""
        run_with_threads(self.best, kernel, *args)

    def run(self, kernel, *args) -> None:
        threads, timed = self._pick()
        dt = run_with_threads(threads, kernel, *args)
        self._calls += 1
        if timed:  # total, not best, time: under load a lucky fast call must not win the trial
            self._trial[threads] = self._trial.get(threads, 0.0) + dt
            if len(self._trial) == len(self.candidates) and \
                    self._calls % (self.EXPLOIT + self.EXPLORE * len(self.candidates)) == \
                    self.EXPLORE * len(self.candidates):
                self.best = min(self._trial, key=lambda t: self._trial[t])
                self._trial = {}


def available_memory() -> int | None:
    """Bytes of memory the OS reports as available (Linux), or None when unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def batch_bytes(game: GameSpec, params: np.ndarray, num_envs: int, obs_encoding: str = "int8") -> int:
    """Bytes the arrays of a ``num_envs``-game batch take (states, final states, masks, obs, ...)."""
    n = int(params[0])
    per_game = (
        2 * game.kernels.STATE_LEN * 8  # states, final states
        + game.num_actions(params)  # masks
        + int(np.prod(game.obs_shape(params))) * (5 if obs_encoding == "scaled" else 1)  # observations (+ float32)
        + 8 * (4 + 2 * n)  # players, streams, episodes, dones, rewards, keys
        + 1  # active flags
    )
    return per_game * num_envs


class BatchedGames:
    """``num_envs`` games of one kind stepped together.

    ``num_players`` (and every game option) as for the game's ``env()``; omitted, the game's own
    default count. ``num_threads``: 1 (default), a fixed count, or ``"auto"``, see :class:`ThreadChooser`.
    ``obs_encoding``: ``"int8"`` (default) or ``"scaled"`` (float32 in [0, 1], each entry divided by
    its documented maximum in one vectorised pass into a preallocated buffer after each kernel call;
    :mod:`gamecore.envs.encoding`). ``raw_observations`` is always the int8 batch.
    Attributes after :meth:`reset` / :meth:`step` (views, overwritten by the next
    call): ``observations`` ``(N, *obs_shape)`` int8 (float32 when scaled), ``masks`` (N, A) int8,
    ``legal_counts`` (N,) int64 (the number of legal actions in each mask), ``current_players`` (N,)
    int64, ``rewards``
    (N, num_players) float64 (non-zero only on the step that ended a game), ``dones`` (N,) bool,
    ``final_states`` (N, STATE_LEN) (the finished game, valid where done).
    """

    def __init__(
        self,
        game: str | GameSpec,
        num_envs: int,
        seed: int | None = None,
        reward_mode: str = "rank",
        num_threads: int | str = 1,
        obs_encoding: str = "int8",
        **options: Any,
    ) -> None:
        self.game = get_game(game)
        check_options(self.game, options, ("num_envs", "seed", "reward_mode", "num_threads", "obs_encoding"),
                      "BatchedGames")
        check_obs_encoding(obs_encoding)
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {short_repr(num_envs)}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {sorted(REWARD_MODES)}, got {short_repr(reward_mode)}")
        self.num_envs = int(num_envs)
        self.params = self.game.make_params(**options)
        self.num_players = int(self.params[0])
        self.num_actions = self.game.num_actions(self.params)
        self.obs_shape = self.game.obs_shape(self.params)
        self.reward_mode = reward_mode
        self._reward_code = REWARD_MODES[reward_mode]
        if seed is not None:
            check_seed(seed, span=self.num_envs)
        need = batch_bytes(self.game, self.params, self.num_envs, obs_encoding)
        avail = available_memory()
        if avail is not None and need > avail:
            raise MemoryError(
                f"{self.game.name}: a batch of {self.num_envs} games with {self.num_players} players needs "
                f"{need:,} bytes ({need / 2**30:.1f} GiB) of arrays; only {avail:,} bytes are available"
            )
        n, slen = self.num_envs, self.game.kernels.STATE_LEN
        self.states = np.zeros((n, slen), dtype=np.int64)
        self.final_states = np.zeros((n, slen), dtype=np.int64)
        self.masks = np.zeros((n, self.num_actions), dtype=np.int8)
        self.legal_counts = np.zeros(n, dtype=np.int64)
        self._pick_rng = np.zeros(n, dtype=np.int64)
        self._obs = np.zeros((n, int(np.prod(self.obs_shape))), dtype=np.int8)
        self.obs_encoding = obs_encoding
        self.encoder = ObsEncoder(self.game, self.params, obs_encoding)
        #: the scaled observations (float32), filled from ``_obs`` after every kernel call; None for int8
        self._obs_scaled = np.zeros(self._obs.shape, dtype=np.float32) if self.encoder.scaled else None
        self.current_players = np.zeros(n, dtype=np.int64)
        self.rewards = np.zeros((n, self.num_players), dtype=np.float64)
        self._keys = np.zeros((n, self.num_players), dtype=np.float64)
        self._dones = np.zeros(n, dtype=np.int64)
        self._all = np.ones(n, dtype=np.int8)
        self.streams = np.zeros(n, dtype=np.int64)
        self.episodes = np.zeros(n, dtype=np.int64)
        self._seed = seed
        self._has_reset = False
        self.threads = ThreadChooser(num_threads, self.num_envs)

    @property
    def num_threads(self) -> int:
        """Threads the batched kernels use now (see :class:`ThreadChooser`)."""
        return self.threads.best

    @property
    def _k(self):
        # the kernels are looked up, not stored: modules cannot be pickled or deep-copied
        return _Kernels(*build(self.game.kernels))

    @property
    def observations(self) -> np.ndarray:
        """The deciding seats' observations in the batch's encoding, ``(N, *obs_shape)``."""
        obs = self._obs if self._obs_scaled is None else self._obs_scaled
        return obs.reshape((self.num_envs, *self.obs_shape))

    @property
    def raw_observations(self) -> np.ndarray:
        """The same observations as the kernels write them: int8, whatever the encoding."""
        return self._obs.reshape((self.num_envs, *self.obs_shape))

    @property
    def observation_space(self):
        """The gymnasium ``Box`` of one row of :attr:`observations` (int8 ``[0, 127]``, or float32
        ``[0, 1]`` when scaled)."""
        return self.encoder.space(self.obs_shape)

    def _encode(self) -> None:
        """Refresh the scaled observations from the int8 ones (nothing to do for int8)."""
        if self._obs_scaled is not None:
            self.encoder(self._obs, out=self._obs_scaled)

    @property
    def dones(self) -> np.ndarray:
        return self._dones.astype(bool)

    def reset(self, seed: int | None = None, streams: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game afresh; returns ``(observations, masks)``. Game ``i`` plays stream
        ``seed + i`` (the constructor's seed when omitted, fresh entropy when both are None), or
        ``streams[i]`` when given: games given the same stream play the same games (the arena
        seats agents differently at the same deals)."""
        if streams is not None:
            given = np.asarray(streams)
            if given.shape != (self.num_envs,) or given.dtype.kind not in "iu":
                raise ValueError(f"streams must be {self.num_envs} integers, got {given.dtype} {given.shape}")
            for s in {int(x) for x in given.tolist()}:
                check_seed(s)
            self.streams[:] = given
        else:
            if seed is None:
                seed = self._seed
            if seed is not None:
                check_seed(seed, span=self.num_envs)
                base = int(seed)
            else:
                base = python_seed_to_int(None) % (MAX_SEED - self.num_envs)
            self.streams[:] = base + np.arange(self.num_envs, dtype=np.int64)
        self.episodes[:] = 0
        self.threads.run(
            self._k.reset, self.states, self.params, self.streams, self.episodes, self.masks, self.legal_counts,
            self._obs, self.current_players, self._all,
        )
        self._encode()
        rng_seed_array(self._pick_rng, self.streams, _PICK_SALT)
        self._dones[:] = 0
        self.rewards[:] = 0.0
        self._has_reset = True
        return self.observations, self.masks

    def action_masks(self) -> np.ndarray:
        """(N, A) bool: the legal actions of the seat deciding in each game."""
        return self.masks.astype(bool)

    def check_active(self, active: Any) -> np.ndarray:
        """``active`` as an (N,) int8 array of 0/1, or a clear error (before any kernel sees it)."""
        a = np.asarray(active)
        if a.shape != (self.num_envs,):
            raise ValueError(f"active must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype == np.bool_:
            return a.astype(np.int8)
        if a.dtype.kind not in "iu":
            raise TypeError(f"active must be a bool or 0/1 integer array, got dtype {a.dtype}")
        bad = (a != 0) & (a != 1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"active[{i}] is {a[i]!r}; active must hold only 0/1 (or True/False)")
        return a.astype(np.int8)

    def check_actions(self, actions: Any, active: np.ndarray | None = None, legal: bool = True) -> np.ndarray:
        """Validate a batch of actions (before any kernel sees them); ``active`` already checked.
        Errors name the game, the value as passed and the action's string. With ``legal=False``
        a masked-out action passes (the caller handles it, e.g. by :meth:`forfeit`); a value that
        is not an integer in range still raises."""
        if not self._has_reset:
            raise RuntimeError("reset() must be called before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if active is None and legal and a.dtype.kind in "iu":
            # the common call, a whole batch of integers: one jitted pass checks range and mask
            safe = np.ascontiguousarray(a, dtype=np.int64)
            i, why = first_bad_action(self.masks, safe)  # (a uint64 beyond int64 reads as negative)
            if why == 1:
                self._out_of_range(i, a[i])
            if why == 2:
                self._not_legal(i, int(safe[i]))
            return safe
        rows = np.arange(self.num_envs) if active is None else np.flatnonzero(active)
        sub = a[rows]
        kind = a.dtype.kind
        if kind == "O":
            if not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in sub.tolist()):
                raise TypeError("actions must be integers")
        elif kind == "f":
            if not (np.all(np.isfinite(sub)) and np.all(sub == np.round(sub))):
                raise TypeError(f"actions must be integers, got dtype {a.dtype} with non-integral values")
        elif kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {a.dtype}")
        if kind == "O":
            bad = np.array([not 0 <= x < self.num_actions for x in sub.tolist()], dtype=bool)
        else:  # exact for every integer width and for floats: no cast before the comparison
            bad = (sub < 0) | (sub >= self.num_actions)
        if bad.any():
            i = int(rows[np.flatnonzero(bad)[0]])
            self._out_of_range(i, a[i])
        if active is None and kind in "iu":
            safe = np.ascontiguousarray(a, dtype=np.int64)
        else:
            safe = np.zeros(self.num_envs, dtype=np.int64)
            safe[rows] = sub.astype(np.int64) if kind != "O" else np.array([int(x) for x in sub.tolist()], np.int64)
        if not legal:
            return safe
        illegal = self.masks[rows, safe[rows]] == 0
        if illegal.any():
            i = int(rows[np.flatnonzero(illegal)[0]])
            self._not_legal(i, int(safe[i]))
        return safe

    def _not_legal(self, i: int, action: int) -> None:
        name = self.game.action_to_string(self.states[i], action)
        raise ValueError(f"game {i}: action {action} ({name!r}) is not legal for player_{int(self.current_players[i])}")

    def _out_of_range(self, i: int, value: Any) -> None:
        if isinstance(value, np.generic):
            value = value.item()
        raise ValueError(
            f"game {i}: action {value!r} is out of range 0..{self.num_actions - 1} "
            f"(player_{int(self.current_players[i])} to move)"
        )

    def step(self, actions: Any, active: np.ndarray | None = None):
        """Apply one decision in every game (or only where ``active``); returns
        ``(observations, rewards, dones, masks)``. Inactive games are left untouched."""
        act = self._all if active is None else self.check_active(active)
        a = self.check_actions(actions, None if active is None else act)
        self.threads.run(
            self._k.step, self.states, a, act, self.params, self.streams, self.episodes, self._reward_code,
            self.rewards, self._dones, self.final_states, self.masks, self.legal_counts, self._obs,
            self.current_players, self._keys,
        )
        self._encode()
        if active is not None:
            self._dones[act == 0] = 0
            self.rewards[act == 0] = 0.0
        return self.observations, self.rewards, self.dones, self.masks

    def forfeit(self, rows: np.ndarray) -> None:
        """End the games ``rows`` (bool (N,) or indices) as lost by their deciding seat, as an illegal
        move does under ``illegal="lose"``: -1 for the decider, 0 for every other seat, the position
        kept in ``final_states``, and the next game of each stream started. Afterwards ``dones`` and
        ``rewards`` describe exactly this (other games: not done, no reward), as after a step.
        Indices are game numbers 0..N-1 (no negative ones counted from the end)."""
        if not self._has_reset:
            raise RuntimeError("reset() must be called before forfeit()")
        act = self._forfeit_rows(rows)
        idx = np.flatnonzero(act)
        self._dones[:] = act
        self.rewards[:] = 0.0
        self.rewards[idx, self.current_players[idx]] = -1.0
        self.final_states[idx] = self.states[idx]
        self.episodes[idx] += 1
        self.threads.run_untimed(
            self._k.reset, self.states, self.params, self.streams, self.episodes, self.masks, self.legal_counts,
            self._obs, self.current_players, act,
        )
        self._encode()

    def _forfeit_rows(self, rows: Any) -> np.ndarray:
        """``rows`` of :meth:`forfeit` as (N,) int8 flags, or a clear error naming the value given."""
        r = np.asarray(rows)
        act = np.zeros(self.num_envs, dtype=np.int8)
        if r.dtype == np.bool_:
            if r.shape != (self.num_envs,):
                raise ValueError(f"rows as flags must have shape ({self.num_envs},), got {r.shape}")
            act[r] = 1
            return act
        if r.size == 0 and r.ndim == 1:  # [] (float64 to numpy): no game
            return act
        if r.dtype.kind not in "iu":
            raise TypeError(f"rows must be game indices (integers) or (N,) bools, got dtype {r.dtype}")
        if r.ndim != 1:
            raise ValueError(f"rows must be a 1-D array of game indices, got shape {r.shape}")
        bad = np.flatnonzero((r < 0) | (r >= self.num_envs))
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"rows[{i}] is {short_repr(r[i].item())}, not a game 0..{self.num_envs - 1}")
        act[r.astype(np.int64)] = 1
        return act

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game, as an (N,) int64 array to pass to
        :meth:`step`: the fast way to play random moves (one jitted pass over the masks, no (N, A)
        temporaries). Game ``i`` draws from its own generator, seeded by :meth:`reset` from its
        stream, so a seeded batch replays the same picks whatever the thread count."""
        if not self._has_reset:
            raise RuntimeError("reset() must be called before random_actions()")
        out = np.empty(self.num_envs, dtype=np.int64)
        self.threads.run_untimed(batch_pick_legal, self.masks, self.legal_counts, self._pick_rng, out)
        return out

    def random_rollout(self, games_per_env: int = 1, seed: int | None = None) -> int:
        """Play ``games_per_env`` uniformly random games in every slot inside one jitted call and
        return the number of decisions taken (the throughput path for benchmarks).

        Slot ``i`` plays episodes ``0..games_per_env-1`` of stream ``seed + i`` (the games a
        sequential env reset with ``seed=seed + i`` plays); the picks are seeded from the same
        streams. The batch's own games are not touched: ``step()`` continues them afterwards."""
        if isinstance(games_per_env, (bool, np.bool_)) or not isinstance(games_per_env, (int, np.integer)) \
                or games_per_env < 1:
            raise ValueError(f"games_per_env must be a positive int, got {short_repr(games_per_env)}")
        if seed is None:
            seed = self._seed if self._seed is not None else python_seed_to_int(None) % (MAX_SEED - self.num_envs)
        check_seed(seed, span=self.num_envs)
        streams = int(seed) + np.arange(self.num_envs, dtype=np.int64)
        rng = np.zeros(self.num_envs, dtype=np.int64)
        rng_seed_array(rng, streams, -1)
        scratch = np.zeros_like(self.states)
        masks = np.zeros_like(self.masks)
        decisions = np.zeros(self.num_envs, dtype=np.int64)
        self.threads.run_untimed(self._k.rollout, scratch, self.params, streams, rng, masks, int(games_per_env),
                                 decisions)
        return int(decisions.sum())

    def global_states(self, view: str = "public") -> np.ndarray:
        """The global state of every game's current position, as a new (N, size) int8 array: row
        ``i`` equals ``env.state(view)`` of an AEC env in game ``i``'s position (the position its
        :attr:`observations` row belongs to). Public by default: seats in absolute order, nothing
        any seat hides; ``view="all"`` adds every seat's private observation blocks. One jitted
        pass over the batch (``gamecore.envs.global_state`` describes the layout)."""
        if not self._has_reset:
            raise RuntimeError("reset() must be called before global_states()")
        gs = global_state_view(self.game, self.params, view)
        out = np.zeros((self.num_envs, gs.size), dtype=np.int8)
        self.threads.run_untimed(self._k.observe_seats, self.states, gs.obs_len, gs.index, gs.bounds, out)
        gs.write_header(self.states, out)
        return out

    def global_state_space(self, view: str = "public"):
        """The gymnasium ``Box`` of one row of :meth:`global_states` (dtype int8, exact bounds)."""
        return global_state_view(self.game, self.params, view).space

    def global_state_layout(self, view: str = "public"):
        """The named blocks of one row of :meth:`global_states` (a :class:`gamecore.kernel.layout.Layout`)."""
        return global_state_view(self.game, self.params, view).layout

    def __repr__(self) -> str:
        return f"BatchedGames({self.game.name!r}, num_envs={self.num_envs}, num_players={self.num_players})"


class _Kernels:
    __slots__ = ("reset", "step", "rollout", "observe_seats")

    def __init__(self, reset, step, rollout, observe_seats) -> None:
        self.reset, self.step, self.rollout, self.observe_seats = reset, step, rollout, observe_seats


class RandomOpponent:
    """Picks uniformly among legal actions, from its own seeded generator (picklable; its whole
    state is one int64, so a copy replays the same picks). A row with no legal action gets -1."""

    def __init__(self, seed: int | None = None) -> None:
        # any seed numpy accepts (None: fresh entropy), folded into one int63 stream
        stream = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)
        self.rng = np.zeros(1, dtype=np.int64)
        rng_seed_array(self.rng, np.array([stream], dtype=np.int64), _PICK_SALT)

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        m = np.ascontiguousarray(masks)
        if m.dtype.kind not in "biu":
            raise TypeError(f"masks must hold bools or integers (non-zero: legal), got dtype {m.dtype}")
        if m.ndim != 2:
            raise ValueError(f"masks must be 2-D (rows, actions), got shape {m.shape}")
        m = m.view(np.int8) if m.dtype == np.bool_ else (m != 0).view(np.int8)
        out = np.empty(m.shape[0], dtype=np.int64)
        rng_pick_rows(m, self.rng, 0, out)
        return out


def random_opponent(seed: int | None = None) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """An opponent that picks uniformly among legal actions."""
    return RandomOpponent(seed)


__all__ = ["BatchedGames", "RandomOpponent", "ThreadChooser", "random_opponent", "batch_bytes", "episode_seed"]
