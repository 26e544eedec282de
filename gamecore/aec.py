"""PettingZoo AEC environment over a numba kernel: the behaviour all four games share.

A game's ``raw_env`` is a three-line subclass of :class:`BaseRawEnv` naming its :class:`GameSpec`.
This class owns everything generic: agent names, spaces, seeding, the observation dict, masks that
are zero for seats not deciding, terminal rewards, the illegal-action policy, dead steps, state
save/restore, and the ``ansi`` / ``rgb_array`` / ``human`` render modes.

Seats that are out before the game ends (Callisto) are terminated at once, but they are stepped
with ``None`` (and removed from ``agents``) only when the whole game ends, so that they still
receive their terminal reward, which can depend on how the others finish.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from gamecore.protocol import H_CURRENT, H_DONE, H_NPLAYERS, H_TERMINAL, GameSpec, check_int_array
from gamecore.rewards import REWARD_MODES, REWARD_SCORE, rank_rewards
from gamecore.rng import episode_seed, python_seed_to_int


class IllegalActionError(ValueError):
    """An action that is out of range or not legal in the current position."""


class BaseRawEnv(AECEnv):
    """Generic AEC env; a subclass sets ``game`` (a :class:`GameSpec` instance), which also names
    it in ``metadata`` (``callisto-v0`` -> ``callisto_v0``)."""

    game: ClassVar[GameSpec]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "base_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "game" in cls.__dict__ and "metadata" not in cls.__dict__:
            cls.metadata = {**BaseRawEnv.metadata, "name": cls.game.env_id.replace("-", "_")}

    def __init__(
        self,
        num_players: int = 2,
        reward_mode: str = "rank",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {sorted(REWARD_MODES)}, got {reward_mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        game = self.game
        self._params = game.make_params(num_players=num_players, **options)
        self.num_players = int(self._params[0])
        self.reward_mode = reward_mode
        self._reward_code = REWARD_MODES[reward_mode]
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._num_actions = game.num_actions(self._params)
        self._obs_shape = game.obs_shape(self._params)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=0, high=game.obs_high(self._params), shape=self._obs_shape, dtype=np.int8
                ),
                "action_mask": spaces.Box(low=0, high=1, shape=(self._num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self._state = np.zeros(self._kernels.STATE_LEN, dtype=np.int64)
        self._mask = np.zeros(self._num_actions, dtype=np.int8)
        self._mask_fresh = False
        self._zero_mask = np.zeros(self._num_actions, dtype=np.int8)
        self._keys = np.zeros(self.num_players, dtype=np.float64)
        self._final = np.zeros(self.num_players, dtype=np.float64)
        self._stream: int | None = None
        self._episode = 0
        self._has_reset = False

    @property
    def _kernels(self):
        # a property, not an attribute: modules cannot be pickled or deep-copied
        return self.game.kernels

    # ---- spaces ----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---- reset / step ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. ``reset(seed=s)`` fully determines it; a later ``reset()`` without a
        seed plays the next game of the same seeded stream (as the batched path does).
        ``options`` is accepted for API compatibility and ignored: game options are fixed at
        construction, since they decide the spaces."""
        if seed is not None or self._stream is None:
            self._stream = python_seed_to_int(seed)
            self._episode = 0
        else:
            self._episode += 1
        self._kernels.init(self._state, self._params, episode_seed(self._stream, self._episode))
        self._fresh_bookkeeping()
        self._sync()

    def _fresh_bookkeeping(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._has_reset = True

    def _sync(self) -> None:
        """Bring the AEC bookkeeping in line with the kernel state after it changed."""
        self._mask_fresh = False
        st = self._state
        done_bits = int(st[H_DONE])
        for agent in self.agents:
            self.terminations[agent] = bool((done_bits >> self.agent_name_mapping[agent]) & 1)
        if st[H_TERMINAL]:
            for agent in self.agents:
                self.terminations[agent] = True
            self._final_rewards()
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[int(st[H_CURRENT])]

    def _final_rewards(self) -> None:
        n = self.num_players
        if self._reward_code == REWARD_SCORE:
            self._kernels.scores(self._state, self._final)
        else:
            self._kernels.rank_keys(self._state, self._keys)
            rank_rewards(self._keys, n, self._final)
        for agent in self.agents:
            self.rewards[agent] = float(self._final[self.agent_name_mapping[agent]])

    def _legal_mask(self) -> np.ndarray:
        if not self._mask_fresh:
            self._kernels.legal_mask(self._state, self._mask)
            self._mask_fresh = True
        return self._mask

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise RuntimeError("reset() must be called before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._dead_step(action)
            return
        a = self._check_action(action, agent)
        self._cumulative_rewards[agent] = 0.0
        self._kernels.apply(self._state, a)
        for ag in self.agents:
            self.rewards[ag] = 0.0
        self._sync()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, action: Any, agent: str) -> int:
        if action is None or isinstance(action, (bool, np.bool_)):
            raise IllegalActionError(f"{agent} must act, got action {action!r}")
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise IllegalActionError(f"{agent}: action must be an integer, got {action!r}") from None
        if a != action:
            raise IllegalActionError(f"{agent}: action must be an integer, got {action!r}")
        if not 0 <= a < self._num_actions:
            raise IllegalActionError(
                f"{agent}: action {action!r} is out of range 0..{self._num_actions - 1}"
            )
        if not self._legal_mask()[a]:
            raise IllegalActionError(
                f"{agent}: action {a} ({self.action_to_string(a)!r}) is not legal now"
            )
        return a

    def _dead_step(self, action: Any) -> None:
        if action is not None:
            raise ValueError("when an agent is terminated, the only valid action is None")
        agent = self.agent_selection
        if not self._state[H_TERMINAL]:
            raise RuntimeError(f"{agent} is out but the game is still running")  # pragma: no cover
        for d in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
            del d[agent]
        self.agents.remove(agent)
        for ag in self.agents:
            self.rewards[ag] = 0.0
        if self.agents:
            self.agent_selection = self.agents[0]

    # ---- observation -----------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        obs = np.empty(int(np.prod(self._obs_shape)), dtype=np.int8)
        self._kernels.observe(self._state, seat, obs)
        deciding = (
            not self._state[H_TERMINAL]
            and int(self._state[H_CURRENT]) == seat
            and not self.terminations.get(agent, True)
        )
        mask = self._legal_mask().copy() if deciding else self._zero_mask.copy()
        return {"observation": obs.reshape(self._obs_shape), "action_mask": mask}

    # ---- people ----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """The action's name in the current position, e.g. ``"T5 r90 c5"``."""
        a = int(action)
        if not 0 <= a < self._num_actions:
            raise IllegalActionError(f"action {action!r} is out of range 0..{self._num_actions - 1}")
        return self.game.action_to_string(self._state, a)

    def string_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_string` in the current position (legal actions first)."""
        want = " ".join(str(text).split())
        mask = self._legal_mask()
        for a in np.flatnonzero(mask):
            if self.game.action_to_string(self._state, int(a)) == want:
                return int(a)
        for a in range(self._num_actions):
            if not mask[a] and self.game.action_to_string(self._state, a) == want:
                return a
        legal = [self.game.action_to_string(self._state, int(a)) for a in np.flatnonzero(mask)[:8]]
        raise ValueError(f"no action is named {text!r}; legal now include {legal}")

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self._legal_mask())]

    def legal_action_strings(self) -> list[str]:
        return sorted(self.action_to_string(a) for a in self.legal_actions())

    def to_dict(self, player: int | str | None = None) -> dict[str, Any]:
        """The game in plain terms as a JSON-serialisable dict: everything, or what ``player`` sees."""
        seat = None
        if player is not None:
            seat = self.agent_name_mapping[player] if isinstance(player, str) else int(player)
            if not 0 <= seat < self.num_players:
                raise ValueError(f"player must be 0..{self.num_players - 1} or an agent name, got {player!r}")
        return self.game.to_dict(self._state, seat)

    # ---- save / restore --------------------------------------------------------------------
    def get_state(self) -> np.ndarray:
        """A copy of the whole game state (restore it with :meth:`set_state`)."""
        return self._state.copy()

    def set_state(self, state: np.ndarray) -> None:
        """Restore a state from :meth:`get_state`. All seats are live agents again (a finished
        game's seats are terminated and step with ``None``); reward accumulators start at zero."""
        st = check_int_array("state", state, (self._kernels.STATE_LEN,))
        if int(st[H_NPLAYERS]) != self.num_players:
            raise ValueError(
                f"state is for {int(st[H_NPLAYERS])} players, this env has {self.num_players}"
            )
        bad = self._kernels.check_state(st, self._params)
        if bad:
            raise ValueError(f"malformed {self.game.name} state: slot {bad - 1} is out of range")
        self._state[:] = st
        self._fresh_bookkeeping()
        if self._stream is None:
            self._stream = 0
        self._sync()
        if self._state[H_TERMINAL]:
            for agent in self.agents:
                self.rewards[agent] = 0.0

    @property
    def state_array(self) -> np.ndarray:
        """The live state array (read it, do not write it)."""
        return self._state

    @property
    def params(self) -> np.ndarray:
        return self._params.copy()

    # ---- rendering -------------------------------------------------------------------------
    def render(self) -> Any:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self._state)
        text = self.game.render_ansi(self._state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return self.game.render_ansi(self._state) if self._has_reset else f"{self.game.env_id} (not reset)"


def wrap_env(raw: BaseRawEnv) -> AECEnv:
    """PettingZoo's classic wrapper stack: an illegal move ends the game and the mover loses."""
    from pettingzoo.utils import wrappers

    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)
