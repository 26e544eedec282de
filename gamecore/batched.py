"""N games in one ``(N, STATE_LEN)`` array, stepped by a parallel numba kernel.

:class:`BatchedGames` is the plain batched API: every call advances all N games by one decision
(the deciding seat of each game acts), finished games restart automatically, and the returned
observation of game ``i`` is the one of the seat that decides next in it.

:class:`gamecore.sb3.SelfPlayVecEnv` turns it into a Stable-Baselines3 ``VecEnv``.

Game ``i`` of a batch seeded ``s`` plays exactly the games of a sequential env reset with
``seed=s + i`` and then reset without a seed after each game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gamecore.games import batched_kernels, get_game
from gamecore.protocol import GameSpec
from gamecore.rewards import REWARD_MODES
from gamecore.rng import python_seed_to_int


class BatchedGames:
    """``num_envs`` games of one kind stepped together.

    Attributes after :meth:`reset` / :meth:`step` (views, overwritten by the next call):
    ``observations`` (N, *obs_shape) int8, ``masks`` (N, A) int8, ``current_players`` (N,) int64,
    ``rewards`` (N, num_players) float64 (non-zero only on the step that ended a game),
    ``dones`` (N,) bool, ``final_states`` (N, STATE_LEN) (the finished game, valid where done).
    """

    def __init__(
        self,
        game: str | GameSpec,
        num_envs: int,
        seed: int | None = None,
        reward_mode: str = "rank",
        **options: Any,
    ) -> None:
        self.game = get_game(game)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {sorted(REWARD_MODES)}, got {reward_mode!r}")
        self.num_envs = int(num_envs)
        self.params = self.game.make_params(**options)
        self.num_players = int(self.params[0])
        self.num_actions = self.game.num_actions(self.params)
        self.obs_shape = self.game.obs_shape(self.params)
        self.reward_mode = reward_mode
        self._reward_code = REWARD_MODES[reward_mode]
        self._k = batched_kernels(self.game)
        n, slen = self.num_envs, self.game.kernels.STATE_LEN
        self.states = np.zeros((n, slen), dtype=np.int64)
        self.final_states = np.zeros((n, slen), dtype=np.int64)
        self.masks = np.zeros((n, self.num_actions), dtype=np.int8)
        self._obs = np.zeros((n, int(np.prod(self.obs_shape))), dtype=np.int8)
        self.current_players = np.zeros(n, dtype=np.int64)
        self.rewards = np.zeros((n, self.num_players), dtype=np.float64)
        self._keys = np.zeros((n, self.num_players), dtype=np.float64)
        self._dones = np.zeros(n, dtype=np.int64)
        self._all = np.ones(n, dtype=np.int8)
        self.streams = np.zeros(n, dtype=np.int64)
        self.episodes = np.zeros(n, dtype=np.int64)
        self._seed = seed
        self._has_reset = False

    @property
    def observations(self) -> np.ndarray:
        return self._obs.reshape((self.num_envs, *self.obs_shape))

    @property
    def dones(self) -> np.ndarray:
        return self._dones.astype(bool)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game afresh; returns ``(observations, masks)``."""
        if seed is None:
            seed = self._seed
        base = python_seed_to_int(seed)
        self.streams[:] = (base + np.arange(self.num_envs, dtype=np.int64)) & ((1 << 63) - 1)
        self.episodes[:] = 0
        self._k.batch_reset(
            self.states, self.params, self.streams, self.episodes, self.masks, self._obs, self.current_players
        )
        self._dones[:] = 0
        self.rewards[:] = 0.0
        self._has_reset = True
        return self.observations, self.masks

    def action_masks(self) -> np.ndarray:
        """(N, A) bool: the legal actions of the seat deciding in each game."""
        return self.masks.astype(bool)

    def check_actions(self, actions: Any, active: np.ndarray | None = None) -> np.ndarray:
        """Validate a batch of actions (before any kernel sees them)."""
        if not self._has_reset:
            raise RuntimeError("reset() must be called before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
                a = a.astype(np.int64)
            else:
                raise TypeError(f"actions must be integers, got dtype {a.dtype}")
        a = a.astype(np.int64)
        rows = np.arange(self.num_envs) if active is None else np.flatnonzero(active)
        sub = a[rows]
        bad = (sub < 0) | (sub >= self.num_actions)
        if bad.any():
            i = int(rows[np.flatnonzero(bad)[0]])
            raise ValueError(
                f"game {i}: action {int(a[i])} is out of range 0..{self.num_actions - 1} "
                f"(player_{int(self.current_players[i])} to move)"
            )
        illegal = self.masks[rows, sub] == 0
        if illegal.any():
            i = int(rows[np.flatnonzero(illegal)[0]])
            name = self.game.action_to_string(self.states[i], int(a[i]))
            raise ValueError(
                f"game {i}: action {int(a[i])} ({name!r}) is not legal for player_{int(self.current_players[i])}"
            )
        return a

    def step(self, actions: Any, active: np.ndarray | None = None):
        """Apply one decision in every game (or only where ``active``); returns
        ``(observations, rewards, dones, masks)``. Inactive games are left untouched."""
        a = self.check_actions(actions, active)
        act = self._all if active is None else np.ascontiguousarray(active, dtype=np.int8)
        self._k.batch_step(
            self.states, a, act, self.params, self.streams, self.episodes, self._reward_code,
            self.rewards, self._dones, self.final_states, self.masks, self._obs, self.current_players,
            self._keys,
        )
        if active is not None:
            self._dones[act == 0] = 0
            self.rewards[act == 0] = 0.0
        return self.observations, self.rewards, self.dones, self.masks

    def random_rollout(self, games_per_env: int = 1, seed: int | None = None) -> int:
        """Play ``games_per_env`` uniformly random games in every slot inside one jitted call;
        return the number of decisions taken (the throughput path for benchmarks)."""
        rng = (python_seed_to_int(seed) + np.arange(self.num_envs, dtype=np.int64)) & ((1 << 63) - 1)
        decisions = np.zeros(self.num_envs, dtype=np.int64)
        self._k.batch_random_rollout(self.states, self.params, rng, self.masks, int(games_per_env), decisions)
        self._has_reset = False  # the states now hold finished games
        return int(decisions.sum())


def random_opponent(seed: int | None = None) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """An opponent that picks uniformly among legal actions."""
    rng = np.random.default_rng(seed)

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        noise = rng.random(masks.shape)
        return np.argmax(np.where(masks > 0, noise, -1.0), axis=1)

    return act
