"""PettingZoo AEC environment over a numba kernel: the behaviour all four games share.

A game's ``raw_env`` is a three-line subclass of :class:`BaseRawEnv` naming its
:class:`~gamecore.kernel.protocol.GameSpec`.
This class owns everything generic: agent names, spaces, seeding, the observation dict, masks that
are zero for seats not deciding, terminal rewards, the illegal-action policy, dead steps, state
save/restore, views, and the ``ansi`` / ``rgb_array`` / ``human`` render modes.

Options every game's env takes besides its own: ``num_players`` (default: the game's smallest
count), ``reward_mode`` (``"rank"`` | ``"score"``), ``render_mode``, ``viewer`` (what renders
show: ``"public"`` (default: no hands, secret cards or deck order), ``"all"`` or a seat / agent
name) and ``illegal``: what a masked-out action does. ``"raise"`` (``raw_env``'s default) raises
:class:`~gamecore.kernel.options.IllegalActionError` and changes nothing; ``"lose"`` (``env()``'s default, PettingZoo's
classic convention) ends the game at once with -1 for the mover and 0 for everyone else. An action
outside the action space, or not an integer, always raises. ``obs_encoding`` is how observations
come: ``"int8"`` (default: the kernel's int8 counts, Box ``[0, 127]``) or ``"scaled"`` (float32 in
``[0, 1]``, each entry divided by its documented maximum; :mod:`gamecore.envs.encoding`).

``state()`` / ``state_space`` are PettingZoo's global state for centralised critics: one int8
vector per position, the same whoever decides (seats in absolute order), holding what is public
(the board, every seat's public holdings, the decider, the turn owner and the pending decision) and
nothing any seat hides (no hand or secret card, no order of a face-down deck or stack, never the
generator): seat 0's observation less the blocks that show only the observer's secrets, then the
header (``gamecore.envs.global_state`` gives the design and why). ``state(view="all")`` adds every
seat's private observation blocks, for a critic given privileged information (still no deck order
or generator); ``global_state_space(view)`` / ``global_state_layout(view)`` describe either. A
game ended by a forfeit (``illegal="lose"``) shows the position as it stood when it ended, and
the game over as the env reports it: no decider, every seat done, ``H_TERMINAL`` 1.
:meth:`gamecore.envs.batched.BatchedGames.global_states` gives the same rows for a batch.

Seats that are out before the game ends (in a game that lets a seat drop out) are terminated at
once, but they are stepped with ``None`` (and removed from ``agents``) only when the whole game
ends, so that they still receive their terminal reward, which can depend on how the others finish.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from gamecore.envs.encoding import ObsEncoder, check_obs_encoding
from gamecore.envs.global_state import global_state_view
from gamecore.kernel.options import IllegalActionError, short_repr
from gamecore.kernel.protocol import (
    H_CURRENT,
    H_DONE,
    H_NPLAYERS,
    H_TERMINAL,
    VIEW_ALL,
    VIEW_PUBLIC,
    GameSpec,
    check_int_array,
)
from gamecore.kernel.rewards import REWARD_MODES, REWARD_SCORE, rank_rewards
from gamecore.kernel.rng import episode_seed, python_seed_to_int

ILLEGAL_MODES = ("raise", "lose")
class BaseRawEnv(AECEnv):
    """Generic AEC env; a subclass sets ``game`` (a :class:`~gamecore.kernel.protocol.GameSpec` instance),
    which also names it in ``metadata`` (``<game>-v1`` -> ``<game>_v1``)."""

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
        num_players: int | None = None,
        reward_mode: str = "rank",
        render_mode: str | None = None,
        viewer: int | str = "public",
        illegal: str = "raise",
        obs_encoding: str = "int8",
        **options: Any,
    ) -> None:
        super().__init__()
        game = self.game
        check_obs_encoding(obs_encoding)
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {sorted(REWARD_MODES)}, got {short_repr(reward_mode)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {short_repr(render_mode)}"
            )
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal must be one of {list(ILLEGAL_MODES)}, got {short_repr(illegal)}")
        self._params = game.make_params(num_players=num_players, **options)
        self.num_players = int(self._params[0])
        self.reward_mode = reward_mode
        self._reward_code = REWARD_MODES[reward_mode]
        self.render_mode = render_mode
        self.illegal = illegal
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.viewer = self._viewer_code(viewer)
        self._num_actions = game.num_actions(self._params)
        self._obs_shape = game.obs_shape(self._params)
        self._obs_len = int(np.prod(self._obs_shape))
        #: the observation encoding (``"int8"`` or ``"scaled"``) and its scaling
        self.obs_encoding = obs_encoding
        self._encoder = ObsEncoder(game, self._params, obs_encoding)
        obs_space = spaces.Dict(
            {
                "observation": self._encoder.space(),
                "action_mask": spaces.Box(low=0, high=1, shape=(self._num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        #: the Box of :meth:`state` (public view); ``global_state_space("all")`` for the other
        self.state_space = self.global_state_space("public")
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
        self._forfeit = False  # the game ended on an illegal action (illegal="lose")

    @property
    def _kernels(self):
        # a property, not an attribute: modules cannot be pickled or deep-copied
        return self.game.kernels

    def _viewer_code(self, viewer: int | str | None) -> int:
        """A viewer (seat, agent name, "public", "all") as the int the game's views take."""
        if viewer is None or viewer == "public":
            return VIEW_PUBLIC
        if viewer == "all":
            return VIEW_ALL
        if isinstance(viewer, str) and viewer in self.agent_name_mapping:
            return self.agent_name_mapping[viewer]
        if isinstance(viewer, (int, np.integer)) and not isinstance(viewer, (bool, np.bool_)) \
                and 0 <= int(viewer) < self.num_players:
            return int(viewer)
        raise ValueError(
            f"viewer must be 'public', 'all', a seat 0..{self.num_players - 1} or an agent name, "
            f"got {short_repr(viewer)}"
        )

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise RuntimeError(f"reset() must be called before {what}")

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
        self._done_bits = 0  # the H_DONE bits that ``terminations`` shows
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._has_reset = True
        self._forfeit = False

    def _sync(self) -> None:
        """Bring the AEC bookkeeping in line with the kernel state after it changed."""
        self._mask_fresh = False
        st = self._state
        if st.item(H_TERMINAL):
            for agent in self.agents:
                self.terminations[agent] = True
            self._final_rewards()
            self.agent_selection = self.agents[0]
            return
        done_bits = st.item(H_DONE)
        if done_bits != self._done_bits:  # the seats out of the game changed (rarely: not every step)
            self._done_bits = done_bits
            for agent in self.agents:
                self.terminations[agent] = bool((done_bits >> self.agent_name_mapping[agent]) & 1)
        self.agent_selection = self.possible_agents[st.item(H_CURRENT)]

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

    @property
    def game_over(self) -> bool:
        """True once the game has ended (normally or by a forfeit under ``illegal="lose"``)."""
        return bool(self._state[H_TERMINAL]) or self._forfeit

    def step(self, action: Any) -> None:
        self._require_reset("step()")
        if not self.agents:
            raise RuntimeError("the game is over and every agent has been stepped with None: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._dead_step(action)
            return
        a = self._check_action(action, agent)
        if a is None:  # illegal="lose": the game ended with the mover losing
            return
        self._cumulative_rewards[agent] = 0.0
        K = self._kernels
        if K.APPLY_LEGAL_FUSED:
            K.apply_legal(self._state, a, self._mask)
        else:
            K.apply(self._state, a)
        rewards = self.rewards
        for ag in rewards:
            rewards[ag] = 0.0
        self._sync()
        self._mask_fresh = K.APPLY_LEGAL_FUSED  # if so, apply_legal left the next mask in it
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, action: Any, agent: str) -> int | None:
        a = self._action_int(action, agent)
        if not self._legal_mask()[a]:
            if self.illegal == "lose":
                self._forfeit_game(agent)
                return None
            raise IllegalActionError(f"{agent}: action {a} ({self.action_to_string(a)!r}) is not legal now")
        return a

    def _action_int(self, action: Any, who: str) -> int:
        """An action as an int in range, or IllegalActionError naming ``who`` and the value."""
        kind = type(action)
        if kind is int or kind is np.int64:  # what agents pass: no array probe needed
            a = int(action)
        elif action is None or isinstance(action, (bool, np.bool_)) or np.asarray(action).dtype.kind in "bmMUSV":
            # a bool, a time (np.timedelta64(5) == 5), a string, bytes: never an action
            raise IllegalActionError(f"{who} must act with an integer action, got {short_repr(action)}")
        elif isinstance(action, (int, np.integer)):
            a = int(action)
        else:
            try:
                a = int(action)
                integral = a == action
            except (TypeError, ValueError, OverflowError):
                integral = False
            if not integral:
                raise IllegalActionError(f"{who}: action must be an integer, got {short_repr(action)}") from None
        if not 0 <= a < self._num_actions:
            raise IllegalActionError(f"{who}: action {short_repr(action)} is out of range 0..{self._num_actions - 1}")
        return a

    def _forfeit_game(self, agent: str) -> None:
        """PettingZoo's classic rule for an illegal move: the game ends, the mover gets -1."""
        self._forfeit = True
        for ag in self.agents:
            self.terminations[ag] = True
            self.rewards[ag] = 0.0
        self.rewards[agent] = -1.0
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {"illegal_action": True}
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def _dead_step(self, action: Any) -> None:
        if action is not None:
            raise ValueError("when an agent is terminated, the only valid action is None")
        agent = self.agent_selection
        if not self.game_over:
            raise RuntimeError(f"{agent} is out but the game is still running")  # pragma: no cover
        for d in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
            del d[agent]
        self.agents.remove(agent)
        for ag in self.agents:
            self.rewards[ag] = 0.0
        if self.agents:
            self.agent_selection = self.agents[0]

    def last(self, observe: bool = True):
        self._require_reset("last()")
        if not self.agents:
            raise RuntimeError("the game is over and every agent has been stepped with None: call reset()")
        return super().last(observe)

    # ---- observation -----------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_reset("observe()")
        seat = self.agent_name_mapping[agent]
        obs = np.empty(self._obs_len, dtype=np.int8)
        self._kernels.observe(self._state, seat, obs)
        deciding = (
            not self.game_over
            and int(self._state[H_CURRENT]) == seat
            and not self.terminations.get(agent, True)
        )
        mask = self._legal_mask().copy() if deciding else self._zero_mask.copy()
        return {"observation": self._encoder(obs).reshape(self._obs_shape), "action_mask": mask}

    # ---- global state ----------------------------------------------------------------------
    def state(self, view: str = "public") -> np.ndarray:
        """The global state for centralised critics: one int8 vector, the same whoever decides
        (seats in absolute order), holding what is public (board, every seat's public holdings,
        decider, turn owner, pending decision) and nothing any seat hides (hands, secret cards,
        the order of face-down decks and stacks, the generator); see ``gamecore.envs.global_state``.
        ``view="all"`` adds every seat's private observation blocks (hands, secret cards: what the
        seats know between them, for a privileged critic), still no deck order or generator."""
        self._require_reset("state()")
        gs = global_state_view(self.game, self._params, view)
        out = gs.of_state(self._kernels, self._state)
        if self._forfeit and not self._state[H_TERMINAL]:
            gs.write_game_over(out)  # the kernels never saw the forfeit: the game is over all the same
        return out

    def global_state_space(self, view: str = "public") -> spaces.Box:
        """The ``Box`` of ``state(view)`` (``state_space`` is the public one)."""
        return global_state_view(self.game, self._params, view).space

    def global_state_layout(self, view: str = "public"):
        """The named blocks of ``state(view)`` (a :class:`gamecore.kernel.layout.Layout`: ``names()``,
        ``offset(name)``, ``table()``)."""
        return global_state_view(self.game, self._params, view).layout

    # ---- people ----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """The action's name in the current position, e.g. ``"T5 r90 c5"``."""
        self._require_reset("action_to_string()")
        return self.game.action_to_string(self._state, self._action_int(action, "action_to_string"))

    def string_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_string` in the current position (legal actions first)."""
        self._require_reset("string_to_action()")
        if not isinstance(text, str):
            raise TypeError(f"an action string must be a str, got {short_repr(text)}")
        want = " ".join(text.split())
        mask = self._legal_mask()
        for a in np.flatnonzero(mask):
            if self.game.action_to_string(self._state, int(a)) == want:
                return int(a)
        if len(want) <= 200:
            for b in range(self._num_actions):
                if not mask[b] and self.game.action_to_string(self._state, b) == want:
                    return b
        legal = [self.game.action_to_string(self._state, int(a)) for a in np.flatnonzero(mask)[:8]]
        raise ValueError(f"no action is named {short_repr(text)}; legal now include {legal}")

    def legal_actions(self) -> list[int]:
        self._require_reset("legal_actions()")
        if self.game_over:
            return []
        return [int(a) for a in np.flatnonzero(self._legal_mask())]

    def legal_action_strings(self) -> list[str]:
        return sorted(self.action_to_string(a) for a in self.legal_actions())

    def to_dict(self, viewer: int | str | None = "public") -> dict[str, Any]:
        """The game in plain terms as a JSON-serialisable dict, as ``viewer`` sees it: a seat or
        agent name (what that seat may know), ``"public"`` (default: what a spectator sees) or
        ``"all"`` (everything, including hands and the order of face-down stacks)."""
        self._require_reset("to_dict()")
        return self.game.to_dict(self._state, self._viewer_code(viewer))

    # ---- save / restore --------------------------------------------------------------------
    def get_state(self) -> np.ndarray:
        """A copy of the whole game state (restore it with :meth:`set_state`)."""
        self._require_reset("get_state()")
        return self._state.copy()

    def set_state(self, state: np.ndarray) -> None:
        """Restore a state from :meth:`get_state`. All seats are live agents again (a finished
        game's seats are terminated and step with ``None``); reward accumulators start at zero.
        A state the game could not continue from is rejected with ValueError and changes nothing."""
        st = check_int_array("state", state, (self._kernels.STATE_LEN,))
        if int(st[H_NPLAYERS]) != self.num_players:
            raise ValueError(f"state is for {int(st[H_NPLAYERS])} players, this env has {self.num_players}")
        bad = self._kernels.check_state(st, self._params)
        if bad:
            raise ValueError(f"malformed {self.game.name} state: slot {bad - 1} is out of range or inconsistent")
        if not st[H_TERMINAL]:
            probe = np.zeros(self._num_actions, dtype=np.int8)
            if self._kernels.legal_mask(st, probe) == 0:
                raise ValueError(f"malformed {self.game.name} state: the game is running but the decider has no "
                                 "legal action")
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
        self._require_reset("render()")
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self._state, self.viewer)
        text = self.game.render_ansi(self._state, self.viewer)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        if not self._has_reset:
            return f"{self.game.env_id} (not reset)"
        return self.game.render_ansi(self._state, self.viewer)


def _forwarded(name: str) -> property:
    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}``.")


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the attributes the agent loop reads every step
    (``last()``, ``agent_selection``, ``terminations`` ...) forwarded directly. The generic wrapper
    reaches each through two ``__getattr__`` hops, which cost more per step than our rules do;
    behaviour is unchanged."""

    agent_selection = _forwarded("agent_selection")
    agents = _forwarded("agents")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    num_agents = _forwarded("num_agents")
    _cumulative_rewards = _forwarded("_cumulative_rewards")

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def state(self, view: str = "public") -> np.ndarray:
        """The wrapped env's :meth:`BaseRawEnv.state`, ``view`` passed on."""
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return self.env.state(view)


def wrap_env(raw: BaseRawEnv) -> AECEnv:
    """PettingZoo's order-enforcing wrapper around a raw env (``env()`` of every game)."""
    return OrderEnforcingWrapper(raw)


def make_env_factory(raw_cls: type[BaseRawEnv]):
    """The game's ``env(**kwargs)``: ``raw_env`` with ``illegal="lose"`` by default, inside
    PettingZoo's order-enforcing wrapper."""

    def env(**kwargs: Any) -> AECEnv:
        """`raw_env` inside PettingZoo's order-enforcing wrapper; an illegal (masked-out) action ends
        the game with -1 for the mover unless `illegal="raise"`."""
        kwargs.setdefault("illegal", "lose")
        return wrap_env(raw_cls(**kwargs))

    return env
