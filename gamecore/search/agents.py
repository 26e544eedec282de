"""Baseline agents for every game, on the AEC and the batched path alike.

One interface: an :class:`Agent` maps a batch of decisions to actions,

``agent.act(obs, masks, states=None, seats=None) -> actions``
    ``obs`` ``(B, *obs_shape)`` int8: the deciding seats' observations; ``masks`` (B, A): their legal
    actions; ``states`` (B, STATE_LEN) int64 and ``seats`` (B,): the game states and the deciding
    seats, read only by search agents (``needs_state``), which search copies and first redeal
    what the seat cannot see (``resample``), so they never use hidden cards. Returns (B,) int64.

``agent.act_one(obs, mask, state=None, seat=None) -> int`` is the same for one decision, and
:func:`aec_action` feeds it from a PettingZoo env (``env.last()`` plus the state). Agents that do
not need the state are also plain ``(obs, masks) -> actions`` callables, the opponent signature of
:class:`gamecore.envs.sb3.SelfPlayVecEnv`.

Agents, by spec string (:func:`make_agent`)::

    random                  uniform over the legal actions
    greedy                  one turn of lookahead on the game's score (gamecore.search.mcts), ties random;
    greedy:depth=2,samples=8    options: decisions looked at, resamples averaged, node cap
    mcts:200                MCTS with 200 simulations per decision (the strength knob);
    mcts:800,c=0.7,widen=0      options: UCT constant, progressive widening (0: off)
    mcts:200,horizon=40,scale=20    rollouts cut after 40 random decisions, valued tanh(margin / 20)
                            (0: to the end; default: the game's, GameSpec.mcts_horizon and mcts_value_scale)
    ppo:runs/x.zip          a MaskablePPO model saved by examples/train.py (deterministic policy)
    ppo:runs/x.zip,sims=200,c=1.25  the model guiding a PUCT search (gamecore.search.puct) of 200 simulations per
                            decision: its policy's logits are the priors, its value head the leaf values
    ppo:runs/x.zip,sims=200,mix=1   leaf values mixed with random rollouts' (AlphaGo; weight mix, 0..1;
                            horizon / scale as for mcts: the game's unless given)
    vgreedy:runs/x.npz      greedy's lookahead with a learned leaf value saved by examples/value_greedy.py
                            (gamecore.search.value_net): leaves valued by margin + weight x the model
    vgreedy:runs/x.npz,weight=0.5   options: weight (default: the one saved with the model; 0 is greedy),
                            depth, samples, cap as for greedy
    baseline                the game's shipped baseline model (in the game package: a value model,
                            ``<package>/baseline/vgreedy.npz``, played as vgreedy; a ppo model,
                            ``<package>/baseline/maskppo.zip``; or an alphazero.py network,
                            ``<package>/baseline/az.pt``; :func:`shipped_baseline`)
    baseline:sims=200       a shipped network guiding a PUCT search, as ``ppo:...,sims=200`` (an az
                            baseline searches anyway: sims is its budget); mix / horizon / scale too;
                            a vgreedy baseline takes vgreedy's options instead
    az:runs/x-az.pt         a network saved by examples/alphazero.py guiding a PUCT search (gamecore.search.puct);
    az:runs/x-az.pt,sims=64,c=1.5   options: simulations per decision (default: the training's), c_puct,
                            mix / horizon / scale (rollout leaf values, as for ppo)

Every agent takes a ``seed``; with the same seed it makes the same decisions.

Budgets are capped, and refused by the constructor before any search: simulations per decision
(``mcts:N``, ``sims=``) at most :data:`gamecore.search.mcts.MAX_SIMS` (1,000,000), greedy ``samples`` at
most :data:`gamecore.search.mcts.MAX_SAMPLES` (1,000) and ``samples`` x ``cap`` at most
:data:`gamecore.search.mcts.MAX_GREEDY_NODES` (10**8); a search whose arrays would not fit in the memory
available is refused too (:class:`gamecore.search.mcts.SearchMemoryError`). Each option is given once.

``act`` checks what it is given before any kernel sees it (numba checks no bounds): ``masks`` a
(B, A) array of bools or 0/1 integers with a legal action in every row, ``A`` the game's action
count; ``states`` (B, STATE_LEN) integers, each a running position of the game that play can
continue from (its ``check_state``, as ``set_state`` does), with ``masks`` its legal masks;
``seats`` (B,) integers, the deciding seats of ``states`` (0..n-1 when no states come with them).
Anything else is a TypeError (a wrong kind of value: floats, bools as seats, strings) or a
ValueError (a wrong shape or value), and nothing is changed. ``obs`` is read (and checked) only
by the agents that read it (``ppo``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from gamecore.kernel.games import GAMES, get_game
from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import H_NPLAYERS, GameSpec
from gamecore.search import mcts as M

__all__ = [
    "Agent",
    "RandomAgent",
    "GreedyAgent",
    "ValueGreedyAgent",
    "MCTSAgent",
    "PPOAgent",
    "AZAgent",
    "make_agent",
    "parse_spec",
    "shipped_baseline",
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
        mask = np.asarray(mask)
        if mask.ndim != 1:
            raise ValueError(f"mask must be 1-D (one entry per action), got shape {mask.shape}")
        states = None
        if state is not None:
            state = np.asarray(state)
            if state.ndim != 1:
                raise ValueError(f"state must be 1-D (one game state), got shape {state.shape}")
            states = state[None]
        seats = None
        if seat is not None:
            if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)):
                raise TypeError(f"seat must be an int, got {short_repr(seat)}")
            if not 0 <= seat < self.game.max_players:
                raise ValueError(f"seat must be a seat 0..{self.game.max_players - 1}, got {short_repr(seat)}")
            seats = np.array([int(seat)], dtype=np.int64)
        return int(self.act(None if obs is None else np.asarray(obs)[None], mask[None], states, seats)[0])

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.needs_state:
            raise TypeError(f"{self.spec} searches the game state: call act(obs, masks, states, seats)")
        return self.act(obs, masks)

    def _seeds(self, k: int) -> np.ndarray:
        return self.rng.integers(0, 2**62, size=k, dtype=np.int64)

    def _widths(self) -> set[int]:
        """The action counts of the game at its player counts (masks come in one of these widths)."""
        return {self.game.num_actions(self.game.make_params(n)) for n in self.game.player_counts}

    def _check(self, masks: Any, states: Any = None, seats: Any = None) -> tuple[np.ndarray, np.ndarray | None,
                                                                                   np.ndarray | None]:
        """``(masks, states, seats)`` checked (see the module docstring), as int8 / int64 / int64
        arrays; ``states`` and ``seats`` None when not given (``seats`` defaults to the deciders of
        ``states``). Search agents need the states."""
        m = np.asarray(masks)
        if m.dtype.kind not in "biu":
            raise TypeError(f"masks must hold bools or 0/1 integers, got dtype {m.dtype}")
        if m.ndim != 2:
            raise ValueError(f"masks must be 2-D (decisions, actions), got shape {m.shape}")
        if m.dtype.kind != "b" and m.size and not np.all((m == 0) | (m == 1)):
            raise ValueError("masks must hold only 0/1 (or True/False)")
        b, width = m.shape
        m = m.astype(np.int8)
        if states is None:
            if self.needs_state:
                raise ValueError(f"{self.spec} searches the game: pass states (and seats)")
            if width not in self._widths():
                raise ValueError(f"masks must have one column per {self.game.name} action "
                                 f"({' or '.join(map(str, sorted(self._widths())))}), got {width}")
            _some_legal(m)
            if seats is None:
                return m, None, None
            s, wrong = M.seat_array(seats, b, self.game.max_players, "mask")
            if len(wrong):
                i = int(wrong[0])
                raise ValueError(f"seats[{i}] is {short_repr(s[i].item())}, not a seat "
                                 f"0..{self.game.max_players - 1}")
            return m, None, s.astype(np.int64)
        st = np.asarray(states)
        if st.dtype.kind in "iu" and st.ndim == 2 and st.shape[0] != b:
            raise ValueError(f"states must have one row per mask ({b}), got shape {st.shape}")
        st, sts, legal = M.check_search(self.game, st, seats)
        if len(st) and legal.shape[1] != width:
            raise ValueError(f"masks must have one column per action of these states ({legal.shape[1]}), got {width}")
        _some_legal(m)
        wrong = np.flatnonzero((legal != m).any(axis=1))
        if len(wrong):
            i = int(wrong[0])
            raise ValueError(f"masks[{i}] is not the legal mask of states[{i}]")
        return m, st, sts

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


class RandomAgent(Agent):
    """Uniformly random among the legal actions."""

    spec = "random"

    def act(self, obs, masks, states=None, seats=None):
        masks, _, _ = self._check(masks, states, seats)
        noise = self.rng.random(masks.shape)
        return np.argmax(np.where(masks > 0, noise, -1.0), axis=1).astype(np.int64)


class GreedyAgent(Agent):
    """The decision whose turn ends best for the mover by the game's score (see :mod:`gamecore.search.mcts`:
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
        self.depth, self.node_cap, self.samples = M.check_greedy("greedy: ", depth, node_cap, samples)
        M._fits(f"greedy: a search of depth {self.depth:,}", M.greedy_bytes(
            self.game.kernels.STATE_LEN, min(self._widths()), self.game.min_players, self.depth), 1)
        self.spec = "greedy" + _options_suffix({"depth": (self.depth, M.DEFAULT_DEPTH), "samples": (
            self.samples, default_samples), "cap": (self.node_cap, M.DEFAULT_NODE_CAP)})

    def _samples_for(self, states: np.ndarray) -> int:
        """One redeal is enough where the game hides nothing at the states' player count."""
        if self._auto_samples and len(states) and not self.game.hides_information(int(states[0][H_NPLAYERS])):
            return 1
        return self.samples

    #: a learned leaf value for the search (:class:`ValueGreedyAgent`); None: the margin alone
    net: tuple | None = None

    def _check_players(self, states: np.ndarray) -> None:
        """Refuse states this agent cannot search (every player count is fine for plain greedy)."""

    def values(self, states: np.ndarray, seats: np.ndarray | None = None,
               num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(actions, values): the choice and the value of every decision (-inf if illegal).
        ``num_actions`` defaults to the game's count for the states' players and default options."""
        states, seats, legal = M.check_search(self.game, states, seats, num_actions)
        self._check_players(states)
        return M._greedy(self.game.kernels, states, seats, self._seeds(len(states)), self.depth, self.node_cap,
                         self._samples_for(states), legal.shape[1], self.net)

    def act(self, obs, masks, states=None, seats=None):
        masks, states, seats = self._check(masks, states, seats)
        self._check_players(states)
        actions, _ = M._greedy(self.game.kernels, states, seats, self._seeds(len(states)), self.depth, self.node_cap,
                               self._samples_for(states), masks.shape[1], self.net)
        return actions


class ValueGreedyAgent(GreedyAgent):
    """The greedy turn lookahead with a learned leaf value (:mod:`gamecore.search.value_net`): every leaf
    where the game goes on is valued by its margin plus ``weight`` times the model's estimate of
    how the searching seat's margin moves over the next decisions (default: the weight saved with
    the model). ``weight=0`` is exactly :class:`GreedyAgent`. Options as for greedy otherwise."""

    def __init__(self, game, path: str | Path, seed=None, weight: float | None = None, depth: int = M.DEFAULT_DEPTH,
                 samples: int | None = None, node_cap: int = M.DEFAULT_NODE_CAP) -> None:
        super().__init__(game, seed, depth=depth, samples=samples, node_cap=node_cap)
        from gamecore.search.value_net import ValueNet

        self.model = ValueNet.load(path)
        if self.model.game != self.game.name:
            raise ValueError(f"vgreedy: {path} was trained on {self.model.game}, not {self.game.name}")
        if weight is not None:
            weight = M.check_real("vgreedy: weight", weight)
        self.net = self.model.kernel_arg(self.game, weight)
        self.path = Path(path)
        suffix = self.spec[len("greedy:"):] if self.spec.startswith("greedy:") else ""
        self.spec = f"vgreedy:{path}" + _options_suffix({"weight": (weight, None)}, lead=",") + (
            "," + suffix if suffix else "")

    def _check_players(self, states: np.ndarray) -> None:
        if len(states) and np.any(states[:, H_NPLAYERS] != self.model.players):
            raise ValueError(f"{self.spec} was trained for {self.model.players} players, got states of "
                             f"{int(states[0, H_NPLAYERS])}")


class MCTSAgent(Agent):
    """Monte Carlo tree search with ``budget`` simulations per decision (see :mod:`gamecore.search.mcts`)."""

    needs_state = True

    def __init__(self, game, seed=None, budget: int = 200, c: float = M.DEFAULT_C,
                 widen: float = M.DEFAULT_WIDEN, horizon: int | None = None, scale: float | None = None) -> None:
        super().__init__(game, seed)
        if isinstance(budget, (bool, np.bool_)) or not isinstance(budget, (int, np.integer)):
            raise TypeError(f"mcts: the simulation budget must be an int, got {short_repr(budget)}")
        if budget < 1:
            raise ValueError(f"mcts: the simulation budget must be at least 1, got {short_repr(budget)}")
        if budget > M.MAX_SIMS:
            raise ValueError(f"mcts: the simulation budget must be at most {M.MAX_SIMS:,}, got {short_repr(budget)}")
        self.budget, self.c, self.widen = int(budget), M.check_real("mcts: c", c), M.check_real("mcts: widen", widen)
        M._fits(f"mcts: a budget of {self.budget:,} simulations", M.mcts_bytes(
            self.budget, min(self._widths()), self.game.min_players), 1)
        self.horizon, self.scale = M.check_horizon(self.game, horizon, scale)
        self.spec = f"mcts:{self.budget}" + _options_suffix(
            {"c": (self.c, M.DEFAULT_C), "widen": (self.widen, M.DEFAULT_WIDEN),
             "horizon": (self.horizon, self.game.mcts_horizon), "scale": (self.scale, self.game.mcts_value_scale)},
            lead=",")

    def visits(self, states: np.ndarray, seats: np.ndarray | None = None, determinize: bool = True,
               num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(actions, root visit counts per action); ``num_actions`` as for :meth:`GreedyAgent.values`."""
        if not isinstance(determinize, (bool, np.bool_)):
            raise TypeError(f"determinize must be True or False, got {short_repr(determinize)}")
        states, seats, legal = M.check_search(self.game, states, seats, num_actions)
        return M._mcts(self.game.kernels, states, seats, self._seeds(len(states)), self.budget, self.c, self.widen,
                       bool(determinize), legal.shape[1], self.horizon, self.scale)

    def act(self, obs, masks, states=None, seats=None):
        masks, states, seats = self._check(masks, states, seats)
        actions, _ = M._mcts(self.game.kernels, states, seats, self._seeds(len(states)), self.budget, self.c,
                             self.widen, True, masks.shape[1], self.horizon, self.scale)
        return actions


class PPOAgent(Agent):
    """A MaskablePPO policy saved by ``examples/train.py`` (needs the ``train`` extra); plays its most
    likely legal action (``deterministic=False`` samples instead).

    A model trained on scaled observations (``obs_encoding="scaled"``: its saved observation space is
    a float32 ``Box(0, 1)``) is fed them scaled: int8 observations (the arena's, the AEC env's
    default) are divided by the game's per-entry maxima first (:mod:`gamecore.envs.encoding`); float
    observations are taken as already scaled (an opponent inside a scaled env).

    ``sims``: instead of playing the policy, guide a batched PUCT search (:mod:`gamecore.search.puct`, as
    the ``az`` agent does) of ``sims`` simulations per decision with the model: the policy's logits
    are the priors, the value head's estimate (clipped to [-1, 1]) the leaf decider's expected
    rank reward, which is what the value head of a model trained by ``examples/train.py`` (rank
    reward, no discounting, the learner the decider) estimates; ``c`` is the PUCT constant;
    ``mix`` > 0 mixes random rollouts' values into the leaf values (``horizon`` / ``scale``:
    :func:`gamecore.search.puct.puct_search`). The search redeals what the searching seat cannot see,
    plays the most visited decision and needs the game states (``needs_state``)."""

    def __init__(self, game, path: str | Path, seed=None, deterministic: bool = True, sims: int | None = None,
                 c: float | None = None, mix: float | None = None, horizon: int | None = None,
                 scale: float | None = None) -> None:
        super().__init__(game, seed)
        from gamecore.search import puct

        if sims is not None:
            sims = puct.check_sims_fit("ppo: sims", sims, self.game)
        if c is not None and sims is None:
            raise ValueError("ppo: c is the PUCT constant of a search: give sims too (ppo:<path>,sims=200,c=1.25)")
        if mix is not None and sims is None:
            raise ValueError("ppo: mix weighs the rollouts of a search: give sims too (ppo:<path>,sims=200,mix=1)")
        self.sims = sims
        self.c = puct.check_real("ppo: c", c if c is not None else puct.DEFAULT_C_PUCT, strict=True)
        self.search_options = _search_options("ppo", self.game, mix, horizon, scale)
        self.needs_state = sims is not None
        path = Path(path)
        if not path.is_file() and path.with_name(path.name + ".zip").is_file():
            path = path.with_name(path.name + ".zip")
        if not path.is_file():  # before the import: a wrong path is reported without sb3 installed
            raise FileNotFoundError(f"ppo: no saved model at {path}")
        from gamecore.search.model_io import load_maskppo

        self.model = load_maskppo(path, self.game, device="cpu")  # runs no code of the file's
        if seed is not None:
            self.model.set_random_seed(seed)
        self.path = path
        self.deterministic = deterministic
        self.spec = f"ppo:{path}" + _options_suffix({"sims": (sims, None), "c": (c, None), "mix": (mix, None),
                                                     "horizon": (horizon, None), "scale": (scale, None)}, lead=",")
        space = self.model.observation_space
        #: whether the model was trained on scaled (float32, [0, 1]) observations
        self.scaled = np.dtype(space.dtype).kind == "f" and float(np.max(space.high)) <= 1.0
        self._encoder = None

    def _scale(self, obs: np.ndarray) -> np.ndarray:
        """int8 observations scaled as the model saw them in training."""
        if self._encoder is None:
            from gamecore.envs.encoding import ObsEncoder

            size = int(np.prod(obs.shape[1:]))
            for n in self.game.player_counts:
                params = self.game.make_params(n)
                if int(np.prod(self.game.obs_shape(params))) == size:
                    self._encoder = ObsEncoder(self.game, params, "scaled")
                    break
            else:
                raise ValueError(f"{self.spec}: observations of shape {obs.shape[1:]} fit no player count of "
                                 f"{self.game.name}")
        return self._encoder(obs.reshape(len(obs), -1)).reshape(obs.shape)

    def evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The :data:`gamecore.search.puct.Evaluator` of the model: (logits, values) of the leaves' int8
        observations ``(k, obs_len)``, one forward pass of the policy network without gradients."""
        import torch

        pol = self.model.policy
        x = np.asarray(obs).reshape(len(obs), *self.model.observation_space.shape)
        if self.scaled:
            x = self._scale(x)
        with torch.no_grad():
            features = pol.extract_features(torch.as_tensor(x, dtype=torch.float32))
            if pol.share_features_extractor:
                latent_pi, latent_vf = pol.mlp_extractor(features)
            else:
                latent_pi = pol.mlp_extractor.forward_actor(features[0])
                latent_vf = pol.mlp_extractor.forward_critic(features[1])
            logits = pol.action_net(latent_pi).numpy()
            values = pol.value_net(latent_vf).squeeze(-1).numpy()
        return logits, np.clip(values, -1.0, 1.0)

    def act(self, obs, masks, states=None, seats=None):
        if self.sims is not None:
            from gamecore.search import puct

            masks, states, seats = self._check(masks, states, seats)
            if masks.shape[1] != self.model.action_space.n:
                raise ValueError(f"{self.spec} was trained with {self.model.action_space.n} actions, got masks of "
                                 f"{masks.shape[1]}")
            want = self.model.observation_space.shape
            if len(states) and tuple(self.game.obs_shape(self.game.params_of_state(states[0]))) != tuple(want):
                raise ValueError(f"{self.spec} was trained on observations of shape {want}, not those of "
                                 f"{int(states[0, H_NPLAYERS])}-player games")
            return puct.puct_search(self.game, states, self.evaluate, self.sims, self._seeds(len(states)),
                                    c_puct=self.c, seats=seats, **self.search_options).actions
        obs = np.asarray(obs)
        want = self.model.observation_space.shape
        if obs.dtype.kind not in "iu" and not (self.scaled and obs.dtype.kind == "f"):
            raise TypeError(f"{self.spec}: observations must be an integer array, got dtype {obs.dtype}")
        if obs.shape[1:] != want:
            raise ValueError(f"{self.spec} was trained on observations of shape {want}, got {obs.shape[1:]} "
                             "(another game or player count?)")
        if self.scaled and obs.dtype.kind in "iu":
            obs = self._scale(obs)
        masks, _, _ = self._check(masks, states, seats)
        if obs.shape[0] != len(masks):
            raise ValueError(f"{self.spec}: one observation per mask: got {obs.shape[0]} for {len(masks)}")
        if masks.shape[1] != self.model.action_space.n:
            raise ValueError(f"{self.spec} was trained with {self.model.action_space.n} actions, got masks of "
                             f"{masks.shape[1]}")
        actions, _ = self.model.predict(obs, action_masks=masks.astype(bool), deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(len(obs))


class AZAgent(Agent):
    """A policy / value network saved by ``examples/alphazero.py`` guiding a batched PUCT search
    (:mod:`gamecore.search.puct`) of ``sims`` simulations per decision (default: the simulations it was
    trained with), no root noise, the most visited decision (needs torch); ``mix`` / ``horizon`` /
    ``scale``: rollout leaf values, as for :class:`PPOAgent` (default: the training's, where its
    config has them: ``examples/alphazero.py --mix``)."""

    needs_state = True

    def __init__(self, game, path: str | Path, seed=None, sims: int | None = None, c: float | None = None,
                 mix: float | None = None, horizon: int | None = None, scale: float | None = None) -> None:
        super().__init__(game, seed)
        from gamecore.search import aznet, puct

        self.net, self.config = aznet.load_network(path)
        if self.config["game"] != self.game.name:
            raise ValueError(f"az: {path} was trained on {self.config['game']}, not {self.game.name}")
        self.sims = puct.check_sims_fit(
            "az: sims", sims if sims is not None else int(self.config.get("simulations", 64)), self.game)
        self.c = puct.check_real("az: c", c if c is not None else float(self.config.get("c_puct",
                                 puct.DEFAULT_C_PUCT)), strict=True)
        self.evaluate = aznet.make_evaluator(self.net)
        asked = {"sims": sims, "c": c, "mix": mix, "horizon": horizon, "scale": scale}  # the spec names these
        if mix is None and self.config.get("mix"):  # searched with rollouts in training: so in play
            mix = float(self.config["mix"])
            horizon = self.config.get("horizon") if horizon is None else horizon
            scale = self.config.get("scale") if scale is None else scale
        self.search_options = _search_options("az", self.game, mix, horizon, scale)
        self.spec = f"az:{path}" + _options_suffix({k: (v, None) for k, v in asked.items()}, lead=",")

    def act(self, obs, masks, states=None, seats=None):
        from gamecore.search import puct

        masks, states, seats = self._check(masks, states, seats)
        want = int(self.config["players"])
        if len(states) and np.any(states[:, H_NPLAYERS] != want):
            raise ValueError(f"{self.spec} was trained for {want} players, got states of "
                             f"{int(states[0, H_NPLAYERS])}")
        return puct.puct_search(self.game, states, self.evaluate, self.sims, self._seeds(len(states)),
                                c_puct=self.c, seats=seats, **self.search_options).actions


def _search_options(kind: str, game: GameSpec, mix: Any, horizon: Any, scale: Any) -> dict[str, Any]:
    """The rollout options of a network-guided search, checked (:func:`gamecore.search.puct.puct_search`)."""
    from gamecore.search import puct

    if mix is None and (horizon is not None or scale is not None):
        raise ValueError(f"{kind}: horizon and scale shape the rollouts of mix > 0: give mix too (mix=1)")
    m = puct.check_real(f"{kind}: mix", mix if mix is not None else 0.0, high=1.0)
    h, v = M.check_horizon(game, horizon, scale)
    return {"mix": m, "horizon": h, "scale": v}


def _some_legal(masks: np.ndarray) -> None:
    empty = np.flatnonzero(~masks.any(axis=1))
    if len(empty):
        raise ValueError(f"masks[{int(empty[0])}] has no legal action: there is no decision to take")


def _options_suffix(options: dict[str, tuple[Any, Any]], lead: str = ":") -> str:
    """``":depth=2"`` for the options that differ from their defaults (``lead`` first)."""
    parts = [f"{k}={_fmt(v)}" for k, (v, default) in options.items() if v != default]
    return (lead + ",".join(parts)) if parts else ""


def _fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _count(text: str) -> int:
    """A spec's whole number (``"200"``; not ``"2.7"``, ``"-1"`` or ``"1e3"``)."""
    text = text.strip()
    if not re.fullmatch(r"[0-9]{1,18}", text):
        raise ValueError(text)
    return int(text)


def _real(text: str) -> float:
    """A spec's finite number (``"0.7"``; not ``"nan"`` or ``"inf"``)."""
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(text)
    return v


#: agent kinds and the options each accepts (besides the positional argument)
AGENT_KINDS = {
    "random": {},
    "greedy": {"depth": _count, "samples": _count, "cap": _count},
    "vgreedy": {"weight": _real, "depth": _count, "samples": _count, "cap": _count},
    "mcts": {"c": _real, "widen": _real, "horizon": _count, "scale": _real},
    "ppo": {"sims": _count, "c": _real, "mix": _real, "horizon": _count, "scale": _real},
    "baseline": {"sims": _count, "c": _real, "mix": _real, "horizon": _count, "scale": _real, "weight": _real,
                 "depth": _count, "samples": _count, "cap": _count},
    "az": {"sims": _count, "c": _real, "mix": _real, "horizon": _count, "scale": _real},
}


#: the files a shipped baseline can be, in the order they are looked for
BASELINE_FILES = ("vgreedy.npz", "maskppo.zip", "az.pt")


def shipped_baseline(game: str | GameSpec) -> Path | None:
    """The baseline model shipped in the game's package (``<package>/baseline/vgreedy.npz``, an
    ``examples/value_greedy.py`` value model; ``maskppo.zip``, a MaskablePPO model; or ``az.pt``,
    an ``examples/alphazero.py`` network; its training command and results in
    ``baseline/README.md`` beside it), or None where the game has none yet."""
    import importlib

    spec = get_game(game)
    package = importlib.import_module(type(spec).__module__.rsplit(".", 1)[0])
    for name in BASELINE_FILES:
        path = Path(package.__file__).parent / "baseline" / name
        if path.is_file():
            return path
    return None


def parse_spec(spec: str) -> tuple[str, str | None, dict[str, Any]]:
    """``"mcts:400,c=0.7"`` -> ``("mcts", "400", {"c": 0.7})``; ``"ppo:runs/x.zip"`` ->
    ``("ppo", "runs/x.zip", {})``. Raises ValueError naming what is accepted (an option given twice,
    ``mcts:20,c=1,c=2``, is refused rather than the last one taken)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string, got {short_repr(spec)}")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {short_repr(kind)} in {short_repr(spec)}; agents: {', '.join(AGENT_KINDS)} "
                         "(e.g. random, greedy, mcts:200, ppo:runs/x.zip)")
    if kind in ("ppo", "az", "vgreedy"):  # the model's path first, then options
        path, _, rest = rest.partition(",")
        if not path.strip():
            if kind == "ppo":
                raise ValueError("ppo needs the path of a saved model: ppo:runs/<game>_maskppo.zip (options: "
                                 ",sims=200,c=1.25)")
            if kind == "vgreedy":
                raise ValueError("vgreedy needs the path of a value model: vgreedy:runs/<game>_vgreedy.npz (options: "
                                 ",weight=1,depth=3,samples=4,cap=20000)")
            raise ValueError("az needs the path of a checkpoint: az:runs/<game>-az.pt (options: ,sims=64,c=1.25)")
        if any("=" not in p for p in rest.split(",") if p.strip()):
            raise ValueError(f"{short_repr(spec)}: {kind} takes the model's path, then key=value options")
        positional = path.strip()
    else:
        positional = None
    options: dict[str, Any] = {}
    for part in [p for p in rest.split(",") if p.strip()] if rest else []:
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq:
            if positional is not None:
                raise ValueError(f"{short_repr(spec)}: more than one positional argument")
            positional = key
            continue
        if key not in AGENT_KINDS[kind]:
            known = ", ".join(AGENT_KINDS[kind]) or "none"
            raise ValueError(f"{short_repr(spec)}: unknown option {short_repr(key)} for {kind} (options: {known})")
        if key in options:
            raise ValueError(f"{short_repr(spec)}: option {key} given twice (give each option once)")
        try:
            options[key] = AGENT_KINDS[kind][key](value)
        except ValueError:
            what = "a whole number" if AGENT_KINDS[kind][key] is _count else "a finite number"
            raise ValueError(f"{short_repr(spec)}: bad value {short_repr(value)} for {key} ({what})") from None
    if kind == "mcts" and positional is not None:
        try:
            positional = str(_count(positional))
        except ValueError:
            raise ValueError(f"{short_repr(spec)}: the MCTS budget is a whole number of simulations, e.g. "
                             "mcts:200") from None
    if kind in ("random", "greedy") and positional is not None:
        raise ValueError(f"{short_repr(spec)}: {kind} takes no positional argument")
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
                         widen=options.get("widen", M.DEFAULT_WIDEN), horizon=options.get("horizon"),
                         scale=options.get("scale"))
    if kind == "baseline":
        if positional is not None:
            raise ValueError(f"{short_repr(spec)}: baseline takes no argument (it is the game's shipped model)")
        path = shipped_baseline(game)
        if path is None:
            have = [g for g in sorted(GAMES) if shipped_baseline(g) is not None]
            raise ValueError(f"baseline: no baseline model is shipped for {get_game(game).name} yet (shipped for: "
                             f"{', '.join(have) or 'none'}); train one with examples/train.py and use ppo:<path>")
        if path.suffix == ".npz":
            bad = sorted(set(options) - set(AGENT_KINDS["vgreedy"]))
            if bad:
                raise ValueError(f"{short_repr(spec)}: {get_game(game).name}'s baseline is a vgreedy value model: "
                                 f"it takes {', '.join(AGENT_KINDS['vgreedy'])}, not {', '.join(bad)}")
            agent = _vgreedy(game, path, seed, options)
        else:
            bad = sorted(set(options) & {"weight", "depth", "samples", "cap"})
            if bad:
                raise ValueError(f"{short_repr(spec)}: {get_game(game).name}'s baseline is a network: it takes "
                                 f"sims, c, mix, horizon, scale, not {', '.join(bad)}")
            kind_of = AZAgent if path.suffix == ".pt" else PPOAgent
            agent = kind_of(game, path, seed, **options)
        agent.spec = "baseline" + _options_suffix({k: (options.get(k), None) for k in AGENT_KINDS["baseline"]})
        return agent
    if kind == "az":
        return AZAgent(game, positional, seed, **options)
    if kind == "vgreedy":
        return _vgreedy(game, positional, seed, options)
    return PPOAgent(game, positional, seed, **options)


def _vgreedy(game: str | GameSpec, path: str | Path, seed: int | None, options: dict[str, Any]) -> ValueGreedyAgent:
    return ValueGreedyAgent(game, path, seed, weight=options.get("weight"), depth=options.get("depth", M.DEFAULT_DEPTH),
                            samples=options.get("samples"), node_cap=options.get("cap", M.DEFAULT_NODE_CAP))


def aec_action(agent: Agent, env: Any) -> int | None:
    """The agent's action for the env's current agent (None for a terminated one): the AEC path."""
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        return None
    raw = env.unwrapped
    state = raw.state_array if agent.needs_state else None
    seat = raw.agent_name_mapping[raw.agent_selection]
    return agent.act_one(obs["observation"], obs["action_mask"], state, seat)
