"""Stable-Baselines3 ``VecEnv`` over :class:`gamecore.envs.batched.BatchedGames` (needs the ``train`` extra).

In each game one seat is the learner (rotating over the seats from game to game); every decision of
the other seats is taken inside ``step`` by the ``opponent`` (uniform random over legal actions by
default, or any callable ``(obs, masks) -> actions``, e.g. a frozen copy of the learner for
self-play, or an agent of :mod:`gamecore.search.agents` such as ``greedy``, which also reads the states),
so SB3 sees a single-agent environment whose ``action_masks()`` feed ``MaskablePPO``.

``illegal`` means what it means for the AEC env: ``"raise"`` (default) raises on a masked-out
action and changes nothing; ``"lose"`` ends that game at once with -1 for the mover (learner or
opponent) and 0 for every other seat, and the slot starts its next game, so unmasked algorithms
(plain PPO, DQN) can train; ``infos[i]["illegal_action"]`` is True when the learner forfeited and
``infos[i]["forfeit_by"]`` names the seat that did. An action that is not an integer in range
always raises.

``margin_shaping=c`` (default 0: off) adds a dense reward for the learner: at each of its decisions,
``c`` times the change of its score margin (its ``scores`` entry less the best other seat's: the
points so far plus final scoring as if the game ended there, what ``greedy`` maximises) from that
decision to its next one, or to the end of the game. Over a game these sum to ``c`` times the final
margin less the margin at the learner's first decision (which its policy does not change), so the
objective becomes the rank reward plus ``c`` times the final margin. The margin is read from the
full state (another seat's hidden cards included): a training signal only, never an observation.

``obs_encoding="scaled"`` gives float32 observations in ``[0, 1]`` (each entry divided by its
documented maximum, :mod:`gamecore.envs.encoding`) instead of the int8 counts, for the learner, its
``terminal_observation`` and the opponent alike; the space is then ``Box(0, 1, float32)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from gamecore.envs.aec import ILLEGAL_MODES
from gamecore.envs.batched import BatchedGames, RandomOpponent, random_opponent
from gamecore.kernel.games import get_game
from gamecore.kernel.options import check_options, short_repr
from gamecore.kernel.protocol import GameSpec
from gamecore.kernel.rng import check_seed

__all__ = ["SelfPlayVecEnv", "random_opponent"]

_OWN_KEYWORDS = ("num_envs", "seed", "opponent", "learner_seat", "reward_mode", "illegal", "num_threads",
                 "obs_encoding", "margin_shaping")
_SNAPSHOT = (
    "states", "final_states", "masks", "legal_counts", "_obs", "current_players", "rewards", "_dones", "streams",
    "episodes", "_pick_rng",
)


class SelfPlayVecEnv(VecEnv):
    """Stable-Baselines3 ``VecEnv`` over :class:`~gamecore.envs.batched.BatchedGames` for one learning seat per game.

    ``learner_seat="rotate"`` (default) makes the learner seat ``k mod n`` in the k-th game of each
    slot, so one policy learns every seat; an int fixes it. Rewards are the learner's terminal
    rewards; ``info["terminal_observation"]`` holds the learner's last observation of a finished
    game, as SB3 expects. Use :meth:`set_opponent` to swap the opponent (e.g. a policy snapshot).

    ``seed`` fixes everything: the games and the default random opponent (seeded from it).
    A step is all or nothing: if the opponent raises or returns an illegal action, every game is
    put back as it was before the step and the error propagates.
    """

    def __init__(
        self,
        game: str | GameSpec,
        num_envs: int = 8,
        seed: int | None = None,
        opponent: Callable[[np.ndarray, np.ndarray], np.ndarray] | str = "random",
        learner_seat: int | str = "rotate",
        reward_mode: str = "rank",
        illegal: str = "raise",
        num_threads: int | str = 1,
        obs_encoding: str = "int8",
        margin_shaping: float = 0.0,
        **options: Any,
    ) -> None:
        check_options(get_game(game), options, _OWN_KEYWORDS, "SelfPlayVecEnv")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal must be one of {list(ILLEGAL_MODES)}, got {short_repr(illegal)}")
        if isinstance(margin_shaping, (bool, np.bool_)) or not isinstance(margin_shaping, (int, float, np.integer,
                                                                                           np.floating)) \
                or not np.isfinite(margin_shaping) or margin_shaping < 0:
            raise ValueError(f"margin_shaping must be a finite number >= 0, got {short_repr(margin_shaping)}")
        self.margin_shaping = float(margin_shaping)
        self.illegal = illegal
        self.games = BatchedGames(game, num_envs, seed=seed, reward_mode=reward_mode, num_threads=num_threads,
                                  obs_encoding=obs_encoding, **options)
        g = self.games
        self.obs_encoding = g.obs_encoding
        self.render_mode = None
        super().__init__(g.num_envs, g.observation_space, spaces.Discrete(g.num_actions))
        if not (isinstance(learner_seat, str) and learner_seat == "rotate") and not (
            isinstance(learner_seat, (int, np.integer)) and not isinstance(learner_seat, (bool, np.bool_))
            and 0 <= learner_seat < g.num_players
        ):
            raise ValueError(f"learner_seat must be 'rotate' or a seat 0..{g.num_players - 1}, "
                             f"got {short_repr(learner_seat)}")
        self.learner_seat = learner_seat
        self._seed = seed
        self.set_opponent(opponent)
        self._seats = np.zeros(self.num_envs, dtype=np.int64)
        self._games_played = np.zeros(self.num_envs, dtype=np.int64)
        self._margins = np.zeros(self.num_envs, dtype=np.float64)  # learner's margin at its decision now
        self._scores = np.zeros(g.num_players, dtype=np.float64)
        self._actions: np.ndarray | None = None

    # ---- opponents ----------------------------------------------------------------------------
    def set_opponent(self, opponent: Callable[[np.ndarray, np.ndarray], np.ndarray] | str) -> None:
        default = isinstance(opponent, str)
        if isinstance(opponent, str):
            if opponent != "random":
                raise ValueError("opponent must be 'random' or a callable (obs, masks) -> actions")
            opponent = RandomOpponent(None if self._seed is None else self._seed + 7919)
        if not callable(opponent):
            raise TypeError("opponent must be callable")
        self._default_opponent = default
        self.opponent = opponent

    def _seat_for(self, k: np.ndarray) -> np.ndarray:
        if self.learner_seat == "rotate":
            return k % self.games.num_players
        return np.full_like(k, int(self.learner_seat))

    def _play_opponents(self, rewards: np.ndarray, dones: np.ndarray, terminal_obs: dict, forfeits: dict) -> None:
        """Let opponents move until the learner decides in every game."""
        g = self.games
        lost = np.zeros(self.num_envs, dtype=np.int64)  # games an opponent forfeited in this call, per slot
        while True:
            waiting = g.current_players != self._seats
            if not waiting.any():
                return
            idx = np.flatnonzero(waiting)
            agent: Any = self.opponent
            if getattr(agent, "needs_state", False):  # a search agent (gamecore.search.agents)
                out = agent.act(g.observations[idx], g.masks[idx].astype(bool), g.states[idx],
                                        g.current_players[idx])
            else:
                out = self.opponent(g.observations[idx], g.masks[idx].astype(bool))
            lost += self._apply(self._opponent_actions(out, idx), waiting, rewards, dones, terminal_obs, forfeits)
            if (lost > g.num_players).any():  # every seat has started a game and it still forfeits
                raise RuntimeError(
                    f"game {int(np.argmax(lost))}: the opponent forfeited {int(lost.max())} games in a row by "
                    "masked-out actions before the learner could decide"
                )

    def _opponent_actions(self, out: Any, idx: np.ndarray) -> np.ndarray:
        """The opponent's actions for the games ``idx`` in an (N,) array of the dtype it returned
        (no cast: ``check_actions`` then refuses a non-integral or out-of-range value as given,
        never a truncated or wrapped one)."""
        a = np.asarray(out)
        if a.shape != (len(idx),):
            raise ValueError(f"the opponent must return one action per game it plays, shape ({len(idx)},), "
                             f"got {a.shape}")
        full = np.zeros(self.num_envs, dtype=a.dtype)
        full[idx] = a
        return full

    def _apply(self, actions: Any, active: np.ndarray, rewards, dones, terminal_obs: dict, forfeits: dict):
        """One decision in the games ``active``; masked-out ones forfeit under ``illegal="lose"``.
        Returns where a game was forfeited (bool, (N,))."""
        g = self.games
        bad = np.zeros(self.num_envs, dtype=bool)
        if self.illegal == "lose":
            safe = g.check_actions(actions, active.astype(np.int8), legal=False)
            bad = active & (g.masks[np.arange(self.num_envs), safe] == 0)
            if bad.any():
                for i in np.flatnonzero(bad & ~dones):
                    forfeits[int(i)] = int(g.current_players[i])
                g.forfeit(bad)
                self._finish(g.dones, rewards, dones, terminal_obs)
                active = active & ~bad
                if not active.any():
                    return bad
            actions = safe
        g.step(actions, active=None if active.all() else active.astype(np.int8))
        self._finish(g.dones, rewards, dones, terminal_obs)
        return bad

    def _finish(self, ended: np.ndarray, rewards: np.ndarray, dones: np.ndarray, terminal_obs: dict) -> None:
        g = self.games
        for i in np.flatnonzero(ended):
            if not dones[i]:  # a second game can only end in one step by a forfeit before the learner moved
                rewards[i] = g.rewards[i, self._seats[i]]
                dones[i] = True
                obs = np.empty(int(np.prod(g.obs_shape)), dtype=np.int8)
                g.game.kernels.observe(g.final_states[i], int(self._seats[i]), obs)
                terminal_obs[i] = (g.encoder(obs).reshape(g.obs_shape), int(self._seats[i]))
            self._games_played[i] += 1
            self._seats[i] = self._seat_for(self._games_played[i : i + 1])[0]

    def _margin(self, state: np.ndarray, seat: int) -> float:
        """Seat's score less the best other seat's (``margin_shaping``)."""
        self.games.game.kernels.scores(state, self._scores)
        others = np.delete(self._scores, seat)
        return float(self._scores[seat] - others.max())

    # ---- VecEnv API -------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        g = self.games
        if self._default_opponent and self._seed is not None:
            self.opponent = RandomOpponent(self._seed + 7919)  # a seeded reset replays exactly
        g.reset()
        self._games_played[:] = 0
        self._seats[:] = self._seat_for(self._games_played)
        self._play_opponents(np.zeros(self.num_envs), np.zeros(self.num_envs, bool), {}, {})
        if self.margin_shaping:
            self._margins[:] = [self._margin(g.states[i], int(self._seats[i])) for i in range(self.num_envs)]
        return g.observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def _save(self) -> list[np.ndarray]:
        g = self.games
        saved = [getattr(g, name).copy() for name in _SNAPSHOT]
        return saved + [self._seats.copy(), self._games_played.copy(), self._margins.copy()]

    def _restore(self, saved: list[np.ndarray]) -> None:
        g = self.games
        for name, arr in zip(_SNAPSHOT, saved[: len(_SNAPSHOT)], strict=True):
            getattr(g, name)[...] = arr
        g._encode()  # the scaled observations follow the restored int8 ones
        self._seats[:], self._games_played[:], self._margins[:] = saved[-3:]

    def step_wait(self):
        g = self.games
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        terminal_obs: dict[int, tuple[np.ndarray, int]] = {}
        forfeits: dict[int, int] = {}
        actions, self._actions = self._actions, None
        if actions is None:
            raise RuntimeError("step_async() must be called before step_wait()")
        saved = self._save()
        try:
            learner_seats = self._seats.copy()  # the seat that moves now in each game
            self._apply(actions, np.ones(self.num_envs, dtype=bool), rewards, dones, terminal_obs, forfeits)
            self._play_opponents(rewards, dones, terminal_obs, forfeits)
        except BaseException:
            self._restore(saved)
            raise
        if self.margin_shaping:
            for i in range(self.num_envs):
                now = self._margin(g.states[i], int(self._seats[i]))
                end = self._margin(g.final_states[i], int(learner_seats[i])) if dones[i] else now
                rewards[i] += np.float32(self.margin_shaping * (end - self._margins[i]))
                self._margins[i] = now
        infos = [{} for _ in range(self.num_envs)]
        for i, (o, seat) in terminal_obs.items():
            infos[i]["terminal_observation"] = o
            infos[i]["learner_seat"] = seat
        for i, seat in forfeits.items():
            infos[i]["forfeit_by"] = seat
            if seat == learner_seats[i]:
                infos[i]["illegal_action"] = True
        return g.observations.copy(), rewards, dones, infos

    def step(self, actions: np.ndarray):
        self.step_async(actions)
        return self.step_wait()

    def action_masks(self) -> np.ndarray:
        return self.games.action_masks()

    def close(self) -> None:
        pass

    def seed(self, seed: int | None = None) -> list[None]:
        """Seed the next :meth:`reset` (checked here, as the constructor checks it: nothing changes
        on a bad seed)."""
        if seed is not None:
            check_seed(seed, span=self.num_envs)
        self.games._seed = seed
        self._seed = seed
        if self._default_opponent:
            self.set_opponent("random")
        return [None] * self.num_envs

    def get_images(self) -> list[np.ndarray]:
        if not self.games._has_reset:
            raise RuntimeError("reset() must be called before get_images(): there are no games to draw yet")
        return [self.games.game.render_rgb(s) for s in self.games.states]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[self._indices(indices)])
        result = getattr(self, method_name)(*args, **kwargs)
        return [result] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)
