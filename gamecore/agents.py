"""Baseline agents for every game, on the AEC and the batched path alike.

One interface: an :class:`Agent` maps a batch of decisions to actions,

``agent.act(obs, masks, states=None, seats=None) -> actions``
    ``obs`` (B, *obs_shape) int8: the deciding seats' observations; ``masks`` (B, A): their legal
    actions; ``states`` (B, STATE_LEN) int64 and ``seats`` (B,): the game states and the deciding
    seats, read only by search agents (``needs_state``), which search copies and first redeal
    what the seat cannot see (``resample``), so they never use hidden cards. Returns (B,) int64.

``agent.act_one(obs, mask, state=None, seat=None) -> int`` is the same for one decision, and
:func:`aec_action` feeds it from a PettingZoo env (``env.last()`` plus the state). Agents that do
not need the state are also plain ``(obs, masks) -> actions`` callables, the opponent signature of
:class:`gamecore.sb3.SelfPlayVecEnv`.

Agents, by spec string (:func:`make_agent`)::

    random                  uniform over the legal actions
    greedy                  one turn of lookahead on the game's score (gamecore.mcts), ties random;
    greedy:depth=2,samples=8    options: decisions looked at, resamples averaged, node cap
    mcts:200                MCTS with 200 simulations per decision (the strength knob);
    mcts:800,c=0.7,widen=0      options: UCT constant, progressive widening (0: off)
    ppo:runs/x.zip          a MaskablePPO model saved by examples/train.py (deterministic policy)

Every agent takes a ``seed``; with the same seed it makes the same decisions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gamecore import mcts as M
from gamecore.games import get_game
from gamecore.protocol import H_CURRENT, H_NPLAYERS, GameSpec

__all__ = [
    "Agent",
    "RandomAgent",
    "GreedyAgent",
    "MCTSAgent",
    "PPOAgent",
    "make_agent",
    "parse_spec",
    "aec_action",
    "AGENT_KINDS",
]


class Agent:
    """Base class: subclasses implement :meth:`act`. ``needs_state``: True for search agents."""

    needs_state = False
    #: the spec string that makes this agent (``"mcts:200"``), also its name in tables
    spec: str = "agent"

    def __init__(self, game: str | GameSpec, seed: int | None = None) -> None:
        self.game = get_game(game)
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, masks: np.ndarray, states: np.ndarray | None = None,
            seats: np.ndarray | None = None) -> np.ndarray:
        raise NotImplementedError

    def act_one(self, obs: np.ndarray, mask: np.ndarray, state: np.ndarray | None = None,
                seat: int | None = None) -> int:
        states = None if state is None else np.asarray(state)[None]
        if seat is None and state is not None:
            seat = int(state[H_CURRENT])
        seats = None if seat is None else np.array([seat], dtype=np.int64)
        return int(self.act(np.asarray(obs)[None], np.asarray(mask)[None], states, seats)[0])

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.needs_state:
            raise TypeError(f"{self.spec} searches the game state: call act(obs, masks, states, seats)")
        return self.act(obs, masks)

    def _seeds(self, k: int) -> np.ndarray:
        return self.rng.integers(0, 2**62, size=k, dtype=np.int64)

    def _need(self, states: np.ndarray | None, seats: np.ndarray | None, b: int) -> tuple[np.ndarray, np.ndarray]:
        if states is None:
            raise ValueError(f"{self.spec} searches the game: pass states (and seats)")
        states = np.ascontiguousarray(states, dtype=np.int64)
        if states.ndim != 2 or states.shape != (b, self.game.kernels.STATE_LEN):
            raise ValueError(f"states must have shape ({b}, {self.game.kernels.STATE_LEN}), got {states.shape}")
        seats = states[:, H_CURRENT].copy() if seats is None else np.ascontiguousarray(seats, dtype=np.int64)
        return states, seats

    def _num_actions(self, states: np.ndarray) -> int:
        return self.game.num_actions(self.game.make_params(int(states[0, H_NPLAYERS])))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


class RandomAgent(Agent):
    """Uniformly random among the legal actions."""

    spec = "random"

    def act(self, obs, masks, states=None, seats=None):
        masks = np.asarray(masks)
        noise = self.rng.random(masks.shape)
        return np.argmax(np.where(masks > 0, noise, -1.0), axis=1).astype(np.int64)


class GreedyAgent(Agent):
    """The decision whose turn ends best for the mover by the game's score (see :mod:`gamecore.mcts`:
    the margin over the best other seat of the ``scores`` kernel on a copy, the seat's further
    decisions in the same turn searched up to ``depth`` decisions in all). With hidden information
    the lookahead is averaged over ``samples`` redeals of what the seat cannot see (default 4 at a
    player count where the game hides something, else 1)."""

    needs_state = True

    def __init__(self, game, seed=None, depth: int = M.DEFAULT_DEPTH, samples: int | None = None,
                 node_cap: int = M.DEFAULT_NODE_CAP) -> None:
        super().__init__(game, seed)
        default_samples = 4 if self.game.hidden_information else 1
        self._auto_samples = samples is None
        if samples is None:
            samples = default_samples
        for name, v in (("depth", depth), ("samples", samples), ("node_cap", node_cap)):
            if int(v) < 1:
                raise ValueError(f"greedy: {name} must be at least 1, got {v}")
        self.depth, self.samples, self.node_cap = int(depth), int(samples), int(node_cap)
        self.spec = "greedy" + _options_suffix({"depth": (self.depth, M.DEFAULT_DEPTH), "samples": (
            self.samples, default_samples), "cap": (self.node_cap, M.DEFAULT_NODE_CAP)})

    def _samples_for(self, states: np.ndarray) -> int:
        """One redeal is enough where the game hides nothing at the states' player count."""
        if self._auto_samples and len(states) and not self.game.hides_information(int(states[0][H_NPLAYERS])):
            return 1
        return self.samples

    def values(self, states: np.ndarray, seats: np.ndarray | None = None,
               num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(actions, values): the choice and the value of every decision (-inf if illegal).
        ``num_actions`` defaults to the game's count for the states' players and default options."""
        states, seats = self._need(states, seats, len(states))
        a = num_actions or self._num_actions(states)
        return M.greedy_actions(self.game.kernels, states, seats, a, self._seeds(len(states)), self.depth,
                                self.node_cap, self._samples_for(states))

    def act(self, obs, masks, states=None, seats=None):
        states, seats = self._need(states, seats, len(masks))
        actions, _ = M.greedy_actions(self.game.kernels, states, seats, np.asarray(masks).shape[1],
                                      self._seeds(len(states)), self.depth, self.node_cap, self._samples_for(states))
        return actions


class MCTSAgent(Agent):
    """Monte Carlo tree search with ``budget`` simulations per decision (see :mod:`gamecore.mcts`)."""

    needs_state = True

    def __init__(self, game, seed=None, budget: int = 200, c: float = M.DEFAULT_C,
                 widen: float = M.DEFAULT_WIDEN) -> None:
        super().__init__(game, seed)
        if int(budget) < 1:
            raise ValueError(f"mcts: the simulation budget must be at least 1, got {budget}")
        if c < 0 or widen < 0:
            raise ValueError("mcts: c and widen must be >= 0")
        self.budget, self.c, self.widen = int(budget), float(c), float(widen)
        self.spec = f"mcts:{self.budget}" + _options_suffix(
            {"c": (self.c, M.DEFAULT_C), "widen": (self.widen, M.DEFAULT_WIDEN)}, lead=",")

    def visits(self, states: np.ndarray, seats: np.ndarray | None = None, determinize: bool = True,
               num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(actions, root visit counts per action); ``num_actions`` as for :meth:`GreedyAgent.values`."""
        states, seats = self._need(states, seats, len(states))
        a = num_actions or self._num_actions(states)
        return M.mcts_actions(self.game.kernels, states, seats, a, self._seeds(len(states)), self.budget, self.c,
                              self.widen, determinize)

    def act(self, obs, masks, states=None, seats=None):
        states, seats = self._need(states, seats, len(masks))
        actions, _ = M.mcts_actions(self.game.kernels, states, seats, np.asarray(masks).shape[1],
                                    self._seeds(len(states)), self.budget, self.c, self.widen)
        return actions


class PPOAgent(Agent):
    """A MaskablePPO policy saved by ``examples/train.py`` (needs the ``train`` extra); plays its most
    likely legal action (``deterministic=False`` samples instead)."""

    def __init__(self, game, path: str | Path, seed=None, deterministic: bool = True) -> None:
        super().__init__(game, seed)
        path = Path(path)
        if not path.is_file() and path.with_name(path.name + ".zip").is_file():
            path = path.with_name(path.name + ".zip")
        if not path.is_file():  # before the import: a wrong path is reported without sb3 installed
            raise FileNotFoundError(f"ppo: no saved model at {path}")
        from sb3_contrib import MaskablePPO

        self.model = MaskablePPO.load(path, device="cpu")
        if seed is not None:
            self.model.set_random_seed(seed)
        self.path = path
        self.deterministic = deterministic
        self.spec = f"ppo:{path}"

    def act(self, obs, masks, states=None, seats=None):
        obs = np.asarray(obs)
        want = self.model.observation_space.shape
        if obs.shape[1:] != want:
            raise ValueError(f"{self.spec} was trained on observations of shape {want}, got {obs.shape[1:]} "
                             "(another game or player count?)")
        actions, _ = self.model.predict(obs, action_masks=np.asarray(masks, dtype=bool),
                                        deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(len(obs))


def _options_suffix(options: dict[str, tuple[Any, Any]], lead: str = ":") -> str:
    """``":depth=2"`` for the options that differ from their defaults (``lead`` first)."""
    parts = [f"{k}={_fmt(v)}" for k, (v, default) in options.items() if v != default]
    return (lead + ",".join(parts)) if parts else ""


def _fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


#: agent kinds and the options each accepts (besides the positional argument)
AGENT_KINDS = {
    "random": {},
    "greedy": {"depth": int, "samples": int, "cap": int},
    "mcts": {"c": float, "widen": float},
    "ppo": {},
}


def parse_spec(spec: str) -> tuple[str, str | None, dict[str, Any]]:
    """``"mcts:400,c=0.7"`` -> ``("mcts", "400", {"c": 0.7})``; ``"ppo:runs/x.zip"`` ->
    ``("ppo", "runs/x.zip", {})``. Raises ValueError naming what is accepted."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string, got {spec!r}")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {kind!r} in {spec!r}; agents: {', '.join(AGENT_KINDS)} "
                         "(e.g. random, greedy, mcts:200, ppo:runs/callisto_maskppo.zip)")
    if kind == "ppo":
        if not rest:
            raise ValueError("ppo needs the path of a saved model: ppo:runs/<game>_maskppo.zip")
        return kind, rest, {}
    positional = None
    options: dict[str, Any] = {}
    for part in [p for p in rest.split(",") if p.strip()] if rest else []:
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq:
            if positional is not None:
                raise ValueError(f"{spec!r}: more than one positional argument")
            positional = key
            continue
        if key not in AGENT_KINDS[kind]:
            known = ", ".join(AGENT_KINDS[kind]) or "none"
            raise ValueError(f"{spec!r}: unknown option {key!r} for {kind} (options: {known})")
        try:
            options[key] = AGENT_KINDS[kind][key](value)
        except ValueError:
            raise ValueError(f"{spec!r}: bad value {value!r} for {key}") from None
    if kind == "mcts" and positional is not None and not positional.isdigit():
        raise ValueError(f"{spec!r}: the MCTS budget is a number of simulations, e.g. mcts:200")
    if kind in ("random", "greedy") and positional is not None:
        raise ValueError(f"{spec!r}: {kind} takes no positional argument")
    return kind, positional, options


def make_agent(spec: str | Agent, game: str | GameSpec, seed: int | None = None) -> Agent:
    """The agent a spec string names, for ``game`` (an :class:`Agent` is returned as it is)."""
    if isinstance(spec, Agent):
        return spec
    kind, positional, options = parse_spec(spec)
    if kind == "random":
        return RandomAgent(game, seed)
    if kind == "greedy":
        return GreedyAgent(game, seed, depth=options.get("depth", M.DEFAULT_DEPTH), samples=options.get("samples"),
                           node_cap=options.get("cap", M.DEFAULT_NODE_CAP))
    if kind == "mcts":
        return MCTSAgent(game, seed, budget=int(positional) if positional else 200, c=options.get("c", M.DEFAULT_C),
                         widen=options.get("widen", M.DEFAULT_WIDEN))
    return PPOAgent(game, positional, seed)


def aec_action(agent: Agent, env: Any) -> int | None:
    """The agent's action for the env's current agent (None for a terminated one): the AEC path."""
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        return None
    raw = env.unwrapped
    state = raw.state_array if agent.needs_state else None
    seat = raw.agent_name_mapping[raw.agent_selection]
    return agent.act_one(obs["observation"], obs["action_mask"], state, seat)
