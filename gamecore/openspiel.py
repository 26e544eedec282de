"""The games as OpenSpiel (``pyspiel``) Python games, over the same kernels as the PettingZoo envs.

Importing this module registers one pyspiel game per library game (it needs ``open_spiel``, in the
``dev`` extra; ``import gamecore`` does not import it)::

    import pyspiel
    import gamecore.openspiel  # noqa: F401  (registers tabletop_callisto ... tabletop_cultivo)
    game = pyspiel.load_game("tabletop_cultivo", {"players": 3})
    # or: pyspiel.load_game("tabletop_calimala(players=4,seed=7)")

Names and parameters
--------------------
``tabletop_<game>`` for each name of :data:`gamecore.games.GAMES` (``tabletop_callisto``,
``tabletop_calcada``, ``tabletop_calimala``, ``tabletop_cultivo``). Every game takes:

* ``players``: every count the game supports (default: the game's default count, as the envs);
* ``seed`` (int, default 0): the game's seed stream. The k-th ``new_initial_state()`` of a game
  loaded with ``seed=s`` is the game an env plays after ``reset(seed=s)`` and k further
  ``reset()`` s (``seed=-1``: a stream drawn from fresh entropy when the game is loaded); calls
  that pyspiel's C++ side makes itself (``random_sim_test``) take their turn in the stream too.
  ``game.new_initial_state(seed=s)`` (Python callers only) starts the game of ``reset(seed=s)``;
* the game's own options whose value is an int, a bool or a str, under the env's keyword:
  Callisto ``start_player``, ``match``; Calçada ``start_player``, ``board_side``; Calimala
  ``start_player``, ``action_layout`` (a str: ``"random"`` for the env's ``None``,
  ``"first_game"`` or 9 action names separated by spaces or ``/``); Cultivo ``start_player``,
  ``random_villages``, ``max_rounds``.

Rewards are the library's ``rank`` rewards (+1 winner, -1 last, linear in between, ties share the
average; zero-sum), so ``utility`` is ZERO_SUM and the env's ``reward_mode="score"`` is not offered.
A bad value (players out of range, a wrong type) raises the game's own ValueError / TypeError; an
unknown parameter is refused by pyspiel itself.

The mapping
-----------
* GameType: SEQUENTIAL; chance mode SAMPLED_STOCHASTIC: the kernels' generator lives in the state
  array, so there are no chance nodes and a cloned state replays the same future (a search that
  must not know it calls ``resample_from_infostate`` first, as ISMCTS does); information
  PERFECT_INFORMATION where the game hides nothing at that player count
  (``GameSpec.hides_information``: Callisto, Cultivo with 2 players), else IMPERFECT_INFORMATION
  (the registered type of a game that hides something at some count says IMPERFECT); reward model
  TERMINAL.
* ``num_distinct_actions`` = ``GameSpec.num_actions``; ``current_player`` = ``state[H_CURRENT]``
  (``TERMINAL`` once ``state[H_TERMINAL]``); ``legal_actions`` = the ``legal_mask`` kernel;
  ``apply_action`` validates the action against that mask (an illegal or out-of-range action raises
  :class:`IllegalActionError`, a ValueError, and changes nothing, history included) and calls
  ``apply``; action strings are ``GameSpec.action_to_string``; ``str(state)`` is the ansi render
  of the public view; ``clone()`` (and ``copy.deepcopy``, which pyspiel's C++ side uses) copies the
  state array exactly.
* Observation tensor: the seat-relative ``observe`` kernel as float32, in the env's observation
  shape (Callisto's ``(S, S, C)`` planes, a flat vector for the others; one piece named
  ``"observation"`` in ``make_observation(game).dict``). Observation string: the seat's
  ``to_dict`` view as compact JSON (sorted keys). Both show only what that seat may know.
* Information state string / tensor: the same seat view. It is the seat's whole current view, not
  a perfect-recall history: two histories that leave a seat the same view give it the same
  string (for ISMCTS, whose nodes are keyed by it, a transposition). Tabular algorithms that need
  perfect recall (CFR and the like) are out of reach of games this size anyway.
* ``resample_from_infostate(player, sampler)`` = a clone passed through the kernels'
  ``resample(state, player, seed)`` with ``seed`` drawn from ``sampler()`` (a float in [0, 1)):
  everything ``player`` cannot see is redealt and the generator reseeded; the seat's views are
  unchanged. It depends only on that seat's view and the seed, never on the hidden part.
* ``action_to_string`` names the decider's action in full (as the env's does), so a record of
  every seat's action strings is not a view; ``state.public_action_string(action, viewer)`` gives
  what ``viewer`` learns of it (``GameSpec.public_action_string``).
* ``history()`` is pyspiel's own list of every action taken, secret ones included (Calimala's kept
  scoring cards), like any OpenSpiel game's; it is not a view. pyspiel's ``serialize_state`` /
  ``deserialize_state`` replay it from ``new_initial_state()``, which is the next game of the
  stream, not the same deal: use ``clone`` instead.
* ``max_game_length``: an upper bound on the decisions of one game (one match for Callisto's
  ``match=True``), derived from the rules (see :func:`max_game_length`); random games play far
  fewer.

What works with OpenSpiel's tools is listed in ``docs/compatibility.md`` (checked by
``tests/test_openspiel.py``).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from gamecore.games import GAMES, get_game
from gamecore.protocol import H_CURRENT, H_TERMINAL, VIEW_PUBLIC, GameSpec
from gamecore.rewards import rank_rewards
from gamecore.rng import episode_seed, python_seed_to_int

#: pyspiel short name of each library game
SHORT_NAMES = {name: f"tabletop_{name}" for name in GAMES}

_LONG_NAMES = {"callisto": "Callisto", "calcada": "Calçada", "calimala": "Calimala", "cultivo": "Cultivo"}
_RANDOM_LAYOUT = "random"  # Calimala's action_layout=None as a pyspiel str parameter


class IllegalActionError(ValueError):
    """An action that is out of range or not legal in the state it is applied to."""


# ---- game length bounds ---------------------------------------------------------------------


def max_game_length(spec: GameSpec, params: np.ndarray) -> int:
    """An upper bound on the decisions (applied actions) of one game, from the rules as implemented.

    * Callisto: every decision places one of the mover's 3 pillars or 13 tiles (skips are not
      decisions), so a game has at most 16 n decisions, a match (``match=True``) n games.
    * Calçada: a turn is a declare and a placement, or one move without placing, plus bonus-tile
      spends (moves, swaps), one tile each. Tiles placed are at most 25 per board (and 125), every
      round but the last places a tile, so there are at most ``(min(25 n, 125) + 1) n`` turns;
      bonus tiles ever held are at most 2 n (start) + 2 x 25 (the bonus-symbol tiles).
    * Calimala: a turn places a disc from the reserve, which never grows (a promoted white disc is
      exchanged for a coloured one), so there are at most T = n x discs per seat turns. A turn has
      at most 8 pending street actions (4 for the top disc, 2 each for the two below), so at most 8
      resolves and 8 cards drawn; cards played are at most those drawn plus the n start cards; each
      action carried out takes at most 4 more decisions (3 ships or trade cities and a stop); plus
      at most 3 ``end activation`` and 1 ``promote`` per turn, and 2 n setup decisions.
    * Cultivo: at most ``max_rounds`` rounds of n turns of at most 3 actions (2, plus the 10th
      worker's extra action); an action takes at most 4 + F + 6 n decisions (the kind, a target, an
      origin or worker, at most F steps of a simple path over the F fields, at most n amounts per
      colour of the payment, the exchange; a purchase or building fewer: slot, split, 6 stalls,
      refill), plus n setup decisions.
    """
    n = int(params[0])
    name = spec.name
    if name == "callisto":
        games = n if spec.params_to_options(params)["match"] else 1
        return 16 * n * games
    if name == "calcada":
        turns = (min(25 * n, 125) + 1) * n
        return 2 * turns + 2 * n + 50
    if name == "calimala":
        from calimala_env import layout as cl

        coloured, white = cl.DISCS[n]
        turns = n * (coloured + white)
        actions = 8 * turns + (8 * turns + n)
        return 2 * n + 5 * turns + 5 * actions
    if name == "cultivo":
        from cultivo_env import layout as cu

        fields = int(cu.NUM_FIELDS[n])
        rounds = int(spec.params_to_options(params)["max_rounds"])
        return n + 3 * n * rounds * (4 + fields + 6 * n)
    raise ValueError(f"no game length bound for {name!r}")  # pragma: no cover


# ---- parameters ---------------------------------------------------------------------------


def _exposed_options(spec: GameSpec) -> dict[str, Any]:
    """The game's options pyspiel can carry (int / bool / str values), with pyspiel defaults."""
    out: dict[str, Any] = {}
    for key, default in spec.option_defaults.items():
        if spec.name == "calimala" and key == "action_layout":
            out[key] = _RANDOM_LAYOUT if default is None else str(default)
        elif isinstance(default, (bool, int, str)):
            out[key] = default
    return out


def _parameter_specification(spec: GameSpec) -> dict[str, Any]:
    return {"players": spec.default_players, "seed": 0, **_exposed_options(spec)}


def _game_options(spec: GameSpec, values: dict[str, Any]) -> dict[str, Any]:
    """pyspiel parameter values -> the keyword options of ``make_params``."""
    options = {k: values[k] for k in _exposed_options(spec)}
    if spec.name == "calimala" and str(options["action_layout"]).lower() == _RANDOM_LAYOUT:
        options["action_layout"] = None
    return options


def _game_type(spec: GameSpec, perfect: bool) -> pyspiel.GameType:
    info = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=SHORT_NAMES[spec.name],
        long_name=f"{_LONG_NAMES.get(spec.name, spec.name)} (tabletop-rl-envs)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=info.PERFECT_INFORMATION if perfect else info.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=_parameter_specification(spec),
        default_loadable=True,
    )


def _registered_type(spec: GameSpec) -> pyspiel.GameType:
    perfect = not any(spec.hides_information(n) for n in spec.player_counts)
    return _game_type(spec, perfect)


# ---- game -----------------------------------------------------------------------------------


class TabletopGame(pyspiel.Game):
    """A library game as a pyspiel game; one subclass per game sets ``spec``."""

    spec: GameSpec
    state_class: type[TabletopState]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = self.spec
        given = dict(params or {})
        unknown = sorted(set(given) - set(_parameter_specification(spec)))
        if unknown:
            raise ValueError(f"{SHORT_NAMES[spec.name]}: unknown parameter(s) {', '.join(map(repr, unknown))}; "
                             f"known: {', '.join(_parameter_specification(spec))}")
        values = {**_parameter_specification(spec), **given}
        players = values["players"]
        self._params = spec.make_params(num_players=players, **_game_options(spec, values))
        n = int(self._params[0])
        seed = values["seed"]
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < -1:
            raise ValueError(f"{SHORT_NAMES[spec.name]}: seed must be an int >= 0, or -1 for fresh entropy, "
                             f"got {seed!r}")
        self._stream = python_seed_to_int(None if seed == -1 else int(seed))
        self._episode = 0
        self._num_actions = int(spec.num_actions(self._params))
        self._obs_shape = tuple(int(d) for d in spec.obs_shape(self._params))
        self._perfect = not spec.hides_information(n)
        info = pyspiel.GameInfo(
            num_distinct_actions=self._num_actions,
            max_chance_outcomes=0,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(spec, self._params),
        )
        super().__init__(_game_type(spec, self._perfect), info, given)

    def new_initial_state(self, seed: int | None = None) -> TabletopState:
        """The next game of the seed stream, or (``seed`` given) the game of an env's
        ``reset(seed=seed)``."""
        if seed is None:
            game_seed = episode_seed(self._stream, self._episode)
            self._episode += 1
        else:
            game_seed = episode_seed(python_seed_to_int(seed), 0)
        return self.state_class(self, int(game_seed))

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: dict[str, Any] | None = None) -> SeatObserver:
        """The seat view for observations and information states (see the module docstring)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        if iig_obs_type is not None and not self._perfect:
            private = iig_obs_type.private_info
            if private != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
                raise ValueError("only a seat's own view (public info and its own private info) is supported")
        return SeatObserver(self)

    # pyspiel's own versions of these build an initial state (drawing a game of the seed stream)
    # to measure an observation; the shape is known without one.
    def observation_tensor_shape(self) -> list[int]:
        return list(self._obs_shape)

    def observation_tensor_size(self) -> int:
        return int(np.prod(self._obs_shape))

    information_state_tensor_shape = observation_tensor_shape
    information_state_tensor_size = observation_tensor_size

    @property
    def params_array(self) -> np.ndarray:
        """The library's int64 params vector of this game."""
        return self._params.copy()

    @property
    def obs_shape(self) -> tuple[int, ...]:
        return self._obs_shape


class SeatObserver:
    """pyspiel's PyObserver interface: ``tensor`` / ``dict`` / ``set_from`` / ``string_from``."""

    def __init__(self, game: TabletopGame) -> None:
        self.spec = game.spec
        size = int(np.prod(game.obs_shape))
        self._raw = np.zeros(size, dtype=np.int8)
        self.tensor = np.zeros(size, dtype=np.float32)
        self.dict = {"observation": self.tensor.reshape(game.obs_shape)}

    def set_from(self, state: TabletopState, player: int) -> None:
        self.spec.kernels.observe(state.state_array, int(player), self._raw)
        self.tensor[:] = self._raw

    def string_from(self, state: TabletopState, player: int) -> str:
        return state.view_string(int(player))


# ---- state ----------------------------------------------------------------------------------


class TabletopState(pyspiel.State):
    """One game: the kernels' int64 state array and a legal-mask cache; one subclass per game sets
    ``spec``. pyspiel's ``clone`` copies the instance's attributes deeply, the array exactly."""

    spec: GameSpec

    def __init__(self, game: TabletopGame, seed: int) -> None:
        super().__init__(game)
        self._params = game._params
        self._num_actions = game._num_actions
        self._state = np.zeros(self.spec.kernels.STATE_LEN, dtype=np.int64)
        self.spec.kernels.init(self._state, self._params, seed)
        self._mask = np.zeros(self._num_actions, dtype=np.int8)
        self._mask_fresh = False

    @property
    def state_array(self) -> np.ndarray:
        """The live kernel state (read it, do not write it)."""
        return self._state

    def _legal(self) -> np.ndarray:
        if not self._mask_fresh:
            self.spec.kernels.legal_mask(self._state, self._mask)
            self._mask_fresh = True
        return self._mask

    # -- pyspiel API --
    def current_player(self) -> int:
        if self._state[H_TERMINAL]:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self._state[H_CURRENT])

    def _legal_actions(self, player: int) -> list[int]:
        if self._state[H_TERMINAL] or player != int(self._state[H_CURRENT]):
            return []
        return np.flatnonzero(self._legal()).tolist()

    def _apply_action(self, action: int) -> None:
        if self._state[H_TERMINAL]:
            raise IllegalActionError(f"{self.spec.name}: the game is over, no action can be applied")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"{self.spec.name}: an action must be an int, got {action!r}")
        a = int(action)
        if not 0 <= a < self._num_actions:
            raise IllegalActionError(f"{self.spec.name}: action {a} is out of range 0..{self._num_actions - 1}")
        if not self._legal()[a]:
            raise IllegalActionError(f"{self.spec.name}: action {a} ({self.spec.action_to_string(self._state, a)!r}) "
                                     f"is not legal for player {int(self._state[H_CURRENT])} now")
        self.spec.kernels.apply(self._state, a)
        self._mask_fresh = False

    def _action_to_string(self, player: int, action: int) -> str:
        return self.spec.action_to_string(self._state, int(action))

    def is_terminal(self) -> bool:
        return bool(self._state[H_TERMINAL])

    def returns(self) -> list[float]:
        n = int(self._params[0])
        if not self._state[H_TERMINAL]:
            return [0.0] * n
        keys = np.zeros(n, dtype=np.float64)
        out = np.zeros(n, dtype=np.float64)
        self.spec.kernels.rank_keys(self._state, keys)
        rank_rewards(keys, n, out)
        return [float(v) for v in out]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TabletopState:
        """A copy in which everything ``player_id`` cannot see is redealt (the kernels' ``resample``)
        and the generator reseeded, with a seed drawn from ``probability_sampler()`` (a float in
        [0, 1), e.g. ``pyspiel.UniformProbabilitySampler(0., 1.)``, or the C++ bots' generator)."""
        n = int(self._params[0])
        if not 0 <= int(player_id) < n:
            raise ValueError(f"{self.spec.name}: player_id must be a seat 0..{n - 1}, got {player_id!r}")
        u = float(probability_sampler())
        seed = int(min(max(u, 0.0), 1.0) * float(1 << 53)) % (1 << 53)
        clone = self.clone()
        self.spec.kernels.resample(clone._state, int(player_id), seed)
        clone._mask_fresh = False
        return clone

    def __deepcopy__(self, memo: dict) -> TabletopState:
        return self.clone()  # pyspiel's pickling path needs a generator state it does not have

    def view_string(self, seat: int) -> str:
        """The seat's ``to_dict`` view as compact JSON: the observation / information state string."""
        return json.dumps(self.spec.to_dict(self._state, seat), sort_keys=True, separators=(",", ":"))

    def public_action_string(self, action: int, viewer: int = VIEW_PUBLIC) -> str:
        """``action`` of the deciding seat as ``viewer`` learns it (``GameSpec.public_action_string``)."""
        return self.spec.public_action_string(self._state, int(action), int(viewer))

    def __str__(self) -> str:
        return self.spec.render_ansi(self._state, VIEW_PUBLIC)


# ---- registration ---------------------------------------------------------------------------

GAME_CLASSES: dict[str, type[TabletopGame]] = {}


def _register(name: str) -> None:
    spec = get_game(name)
    title = name.capitalize()
    state_cls = type(f"Tabletop{title}State", (TabletopState,), {"spec": spec, "__module__": __name__})
    cls = type(f"Tabletop{title}Game", (TabletopGame,),
               {"spec": spec, "state_class": state_cls, "__module__": __name__})
    GAME_CLASSES[name] = cls
    short = SHORT_NAMES[name]
    if short not in pyspiel.registered_names():
        pyspiel.register_game(_registered_type(spec), cls)


for _name in GAMES:
    _register(_name)

__all__ = ["GAME_CLASSES", "SHORT_NAMES", "IllegalActionError", "SeatObserver", "TabletopGame", "TabletopState",
           "max_game_length"]
