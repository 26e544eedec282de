"""One seat of a game against fixed opponents, as a single-agent ``gymnasium.Env``.

For every game of :data:`gamecore.kernel.games.GAMES` Gymnasium knows ``"tabletop-rl-envs/<Game>-v1"``
(``<Game>``: the game's name with its first letter capitalised) once ``gamecore.envs`` is imported::

    import gymnasium as gym
    import gamecore.envs  # noqa: F401  (registers every game with PettingZoo and Gymnasium)

    env = gym.make("tabletop-rl-envs/<Game>-v1", num_players=3, opponent="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())

or without importing first: ``gym.make("gamecore.envs:tabletop-rl-envs/<Game>-v1")``.

Each episode is one game (a whole match for a game whose options make one game a match of several).
The learner plays one seat: fixed (``learner_seat=k``) or, with ``learner_seat="rotate"`` (default),
seat ``k mod n`` in the k-th game after a seeded reset, so one policy learns every seat;
``reset(options={"learner_seat": s})`` picks the seat of one episode. Every other seat is played
inside ``step`` by the ``opponent``: ``"random"`` (uniform over legal actions, seeded by
``reset(seed=...)``) or any callable ``(obs, masks) -> actions`` on a batch (here a batch of one:
``obs`` shaped ``(1, *obs_shape)``, ``masks`` ``(1, A)`` bool) -- the same callables
:class:`gamecore.envs.sb3.SelfPlayVecEnv` takes, so a frozen copy of the learner (``model.predict``
with ``action_masks``) plays the other seats for self-play. The opponent sees its own seat's
observation in the learner's format.

Spaces: ``observation_space`` is a ``Box`` of int8 in ``[0, 127]`` (``obs_encoding="scaled"``:
float32 in ``[0, 1]``, each entry divided by its documented maximum, :mod:`gamecore.envs.encoding`):
flat by default (what ``MlpPolicy`` and SB3's checker want), the game's own shape with
``flatten=False`` (``(S, S, C)`` planes for a game observed as board planes, for a convolutional
policy); ``action_space`` is ``Discrete(A)``.
``action_masks()`` returns the learner's legal actions as a bool array (what ``MaskablePPO``
calls, also through SB3's ``ActionMasker``); ``info["action_mask"]`` carries the same mask as
int8 after every ``reset`` and ``step`` (all zeros once the game is over), with
``info["learner_seat"]``.

Rewards are the learner's terminal rewards (``reward_mode="rank" | "score"``, as for the AEC env).
``illegal`` means what it means for the AEC env: ``"lose"`` (default, like ``env()``: plain
unmasked PPO / DQN and the env checkers, which sample unmasked actions, can run) ends the game at
once with -1 for the mover and 0 for everyone else, and sets ``info["illegal_action"]`` when the
learner was the mover (``info["forfeit_by"]`` names the seat); ``"raise"`` raises
:class:`gamecore.kernel.options.IllegalActionError` and changes nothing. An action outside the action space
or not an integer always raises. A step is all or nothing: if an opponent raises, the game is put
back as it was before the step and the error propagates.

``render_mode``, ``viewer`` and the game's own options are those of the game's ``env()``;
``env.unwrapped.aec`` is the underlying AEC env (``action_to_string``, ``to_dict``,
``get_state`` ...).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from gamecore.envs.aec import BaseRawEnv, IllegalActionError
from gamecore.envs.batched import RandomOpponent
from gamecore.kernel.games import GAMES, game_key, get_game
from gamecore.kernel.options import check_options, short_repr
from gamecore.kernel.protocol import H_CURRENT, GameSpec

Opponent = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: opponents that can be named instead of passed (name -> factory taking a seed)
NAMED_OPPONENTS: dict[str, Callable[[int | None], Opponent]] = {"random": RandomOpponent}

_OWN_KEYWORDS = ("learner_seat", "opponent", "illegal", "flatten", "reward_mode", "render_mode", "viewer",
                 "obs_encoding")


def _no_time(action: Any, who: str) -> Any:
    """``action`` unless it is a NumPy time value (``np.timedelta64(5)`` converts to 5, but it is no
    action)."""
    if isinstance(action, (np.timedelta64, np.datetime64)) or (
            isinstance(action, np.ndarray) and action.dtype.kind in "mM"):
        raise IllegalActionError(f"{who} must act with an integer action, got {short_repr(action)}")
    return action


def raw_env_class(game: str | GameSpec) -> type[BaseRawEnv]:
    """The ``raw_env`` class of a game of :data:`~gamecore.kernel.games.GAMES`."""
    spec = get_game(game)
    return importlib.import_module(GAMES[game_key(spec.name)]).raw_env


def make_opponent(opponent: Opponent | str, seed: int | None) -> tuple[Opponent, bool]:
    """``(callable, is_named)`` for an opponent given as a callable or a name of :data:`NAMED_OPPONENTS`."""
    if isinstance(opponent, str):
        if opponent not in NAMED_OPPONENTS:
            raise ValueError(
                f"opponent must be a callable (obs, masks) -> actions or one of {sorted(NAMED_OPPONENTS)}, "
                f"got {short_repr(opponent)}"
            )
        return NAMED_OPPONENTS[opponent](seed), True
    if not callable(opponent):
        raise TypeError(f"opponent must be a callable (obs, masks) -> actions or a name, got {type(opponent).__name__}")
    return opponent, False


class SingleAgentEnv(gymnasium.Env):
    """A game seen from one seat, the other seats played by ``opponent`` (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str | GameSpec,
        num_players: int | None = None,
        learner_seat: int | str = "rotate",
        opponent: Opponent | str = "random",
        illegal: str = "lose",
        flatten: bool = True,
        reward_mode: str = "rank",
        render_mode: str | None = None,
        viewer: int | str = "public",
        obs_encoding: str = "int8",
        **options: Any,
    ) -> None:
        spec = get_game(game)
        check_options(spec, options, _OWN_KEYWORDS, "SingleAgentEnv")
        self.aec: BaseRawEnv = raw_env_class(spec)(
            num_players=num_players,
            reward_mode=reward_mode,
            render_mode=render_mode,
            viewer=viewer,
            illegal=illegal,
            obs_encoding=obs_encoding,
            **options,
        )
        self.obs_encoding = obs_encoding
        raw = self.aec
        self.game = spec
        self.num_players = raw.num_players
        self.illegal = illegal
        self.render_mode = render_mode
        if not isinstance(flatten, (bool, np.bool_)):
            raise TypeError(f"flatten must be True or False, got {short_repr(flatten)}")
        self.flatten = bool(flatten)
        if learner_seat != "rotate" and not (
            isinstance(learner_seat, (int, np.integer))
            and not isinstance(learner_seat, (bool, np.bool_))
            and 0 <= learner_seat < self.num_players
        ):
            raise ValueError(
                f"learner_seat must be 'rotate' or a seat 0..{self.num_players - 1}, got {short_repr(learner_seat)}"
            )
        self.learner_seat = learner_seat
        box = raw.observation_spaces[raw.possible_agents[0]]["observation"]
        shape = (int(np.prod(box.shape or ())),) if self.flatten else tuple(box.shape or ())
        self.observation_space = raw._encoder.space(shape)
        self.action_space = spaces.Discrete(raw._num_actions)
        self._opponent_arg = opponent
        self.opponent, self._named_opponent = make_opponent(opponent, None)
        self.seat = 0 if learner_seat == "rotate" else int(learner_seat)
        self._games = 0  # games started since the last seeded reset
        self._opponent_seeded = False
        self._over = True

    # ---- opponents ------------------------------------------------------------------------
    def set_opponent(self, opponent: Opponent | str) -> None:
        """Swap the opponent (a callable or a name); a named one is seeded from the env's generator."""
        seed = int(self.np_random.integers(2**63)) if isinstance(opponent, str) else None
        self.opponent, self._named_opponent = make_opponent(opponent, seed)
        self._opponent_arg = opponent

    # ---- helpers ---------------------------------------------------------------------------
    @property
    def _agent(self) -> str:
        return self.aec.possible_agents[self.seat]

    def _obs(self, seat: int) -> np.ndarray:
        obs = self.aec.observe(self.aec.possible_agents[seat])["observation"]
        return obs.reshape(-1) if self.flatten else obs

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask().astype(np.int8), "learner_seat": self.seat}

    def _mask(self) -> np.ndarray:
        if self._over or int(self.aec.state_array[H_CURRENT]) != self.seat:
            return np.zeros(self.aec._num_actions, dtype=bool)
        return self.aec._legal_mask().astype(bool)

    def _play_opponents(self) -> tuple[float, dict[str, Any]]:
        """Let the other seats move until the learner decides or the game ends; returns the
        learner's reward meanwhile and what an illegal move ended."""
        raw, reward, extra = self.aec, 0.0, {}
        while not raw.game_over and int(raw.state_array[H_CURRENT]) != self.seat:
            mover = int(raw.state_array[H_CURRENT])
            agent = raw.possible_agents[mover]
            mask = raw._legal_mask().astype(bool)
            action = np.asarray(self.opponent(self._obs(mover)[None], mask[None])).reshape(-1)[0]
            raw.step(_no_time(action, f"the opponent ({agent})"))
            reward += raw.rewards.get(self._agent, 0.0)
            if raw.infos.get(agent, {}).get("illegal_action"):
                extra["forfeit_by"] = mover
        return reward, extra

    # ---- Gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        seat = options.pop("learner_seat", None)
        if options:
            raise ValueError(f"reset options may only hold 'learner_seat', got {short_repr(sorted(options))}")
        if seed is not None:
            self._games = 0
        if self._named_opponent and (seed is not None or not self._opponent_seeded):
            # a named opponent draws from the env's generator: reset(seed=s) replays exactly
            self.opponent, _ = make_opponent(self._opponent_arg, int(self.np_random.integers(2**63)))
        self._opponent_seeded = True
        if seat is not None:
            if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) \
                    or not 0 <= seat < self.num_players:
                raise ValueError(f"learner_seat must be a seat 0..{self.num_players - 1}, got {short_repr(seat)}")
            self.seat = int(seat)
        elif self.learner_seat == "rotate":
            self.seat = self._games % self.num_players
        else:
            self.seat = int(self.learner_seat)
        self.aec.reset(seed=seed)
        self._games += 1
        self._over = False
        _, extra = self._play_opponents()
        self._over = self.aec.game_over
        if self._over:
            why = f" (seat {extra['forfeit_by']} played a masked-out action)" if "forfeit_by" in extra else ""
            raise RuntimeError(f"{self.game.name}: the game ended before the learner (seat {self.seat}) decided{why}")
        return self._obs(self.seat), self._info()

    def step(self, action: Any):
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        raw = self.aec
        saved = raw.get_state()
        try:
            raw.step(_no_time(action, self._agent))
            reward = raw.rewards.get(self._agent, 0.0)
            extra: dict[str, Any] = {}
            if raw.infos.get(self._agent, {}).get("illegal_action"):
                extra = {"illegal_action": True, "forfeit_by": self.seat}
            more, opp = self._play_opponents()
        except BaseException:
            if not np.array_equal(raw.get_state(), saved):
                raw.set_state(saved)  # an opponent failed after the learner moved: undo the move
            raise
        reward += more
        extra.update(opp)
        self._over = raw.game_over
        info = self._info()
        info.update(extra)
        return self._obs(self.seat), float(reward), self._over, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, bool (all False once the game is over)."""
        return self._mask()

    def action_to_string(self, action: int) -> str:
        return self.aec.action_to_string(action)

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


__all__ = ["SingleAgentEnv", "NAMED_OPPONENTS", "make_opponent", "raw_env_class"]
