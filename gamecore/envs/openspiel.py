"""The games as OpenSpiel (``pyspiel``) Python games, over the same kernels as the PettingZoo envs.

Importing this module registers one pyspiel game per library game (it needs ``open_spiel``, in the
``dev`` extra; ``import gamecore`` does not import it)::

    import pyspiel
    import gamecore.envs.openspiel  # noqa: F401  (registers tabletop_<game> for every game)
    game = pyspiel.load_game("tabletop_<game>", {"players": 3})
    # or: pyspiel.load_game("tabletop_<game>(players=4,seed=7)")

Names and parameters
--------------------
``tabletop_<game>`` for each name ``<game>`` of :data:`gamecore.kernel.games.GAMES`. Every game takes:

* ``players``: every count the game supports (default: the game's default count, as the envs);
* ``seed`` (int 0..2**31 - 1, default 0): the game's seed stream. The k-th
  ``new_initial_state()`` of a game loaded with ``seed=s`` is the game an env plays after
  ``reset(seed=s)`` and k further ``reset()`` s (``seed=-1``: a stream drawn from fresh entropy
  when the game is loaded), whatever is called on states and observers in between. pyspiel
  builds every ``clone()``, ``child()`` and deserialized state from a ``new_initial_state()``,
  and its C++ ``observation_tensor`` / ``information_state_tensor`` build one to size their
  output: called from Python none of them draws a game of the stream (the states' tensor methods
  are written here, the same values), but the states that pyspiel's C++ side builds itself
  (``random_sim_test``'s clones, a C++ ``pyspiel._Observation``'s constructor) take their turn in it.
  pyspiel's int parameters are C++ ``int`` (32 bits): a ``seed`` of 2**31 or more fails inside
  pyspiel before the game sees it (``load_game(name, {"seed": 2**31})``: pybind11's RuntimeError
  "Unable to cast Python instance of type <class 'int'>"; ``"name(seed=2147483648)"``: a
  SpielError from pyspiel's parameter parser; the game class itself refuses it with a ValueError).
  ``game.new_initial_state(seed=s)`` (Python callers only) starts the game of ``reset(seed=s)``
  for any ``0 <= s < 2**63``;
* the game's own options whose value is an int, a bool or a str, under the env's keyword
  (``GameSpec.option_defaults``, with the same defaults); an option whose value pyspiel cannot
  carry (say, the env's ``None``) takes the strings that ``GameSpec.option_strings`` names for
  its values (say, ``"random"``). The game's env docstring documents each option.

Rewards are the library's ``rank`` rewards (+1 winner, -1 last, linear in between, ties share the
average; zero-sum), so ``utility`` is ZERO_SUM and the env's ``reward_mode="score"`` is not offered.
A bad value (players out of range, a wrong type) raises the game's own ValueError / TypeError; an
unknown parameter is refused by pyspiel itself.

Bad arguments
-------------
Every entry that takes a player, a viewer, an action or a seed checks it before any kernel sees it
(the kernels check no bounds: a seat of 99 once wrote outside an observation buffer): a wrong kind
(a float, a str, a bool, None) raises TypeError, a wrong value ValueError (an action applied:
:class:`~gamecore.kernel.options.IllegalActionError`), and nothing changes. Players are seats
``0..n-1``; ``legal_actions``,
``legal_actions_mask``, ``action_to_string`` and ``string_to_action`` also take the current
player's id as pyspiel has it (``TERMINAL`` once the game is over). No number gives more than a
seat's own view: the observers' ``set_from`` / ``string_from`` and ``view_string`` take a seat and
nothing else, ``public_action_string`` a seat or ``VIEW_PUBLIC``. A ``player`` that is not the
decider's is accepted by ``action_to_string``, which names the decider's action all the same.

The mapping
-----------
* GameType: SEQUENTIAL; chance mode SAMPLED_STOCHASTIC: the kernels' generator lives in the state
  array, so there are no chance nodes and a cloned state replays the same future (a search that
  must not know it calls ``resample_from_infostate`` first, as ISMCTS does); information
  PERFECT_INFORMATION where the game hides nothing at that player count
  (``GameSpec.hides_information(n)`` false), else IMPERFECT_INFORMATION
  (the registered type of a game that hides something at some count says IMPERFECT); reward model
  TERMINAL.
* ``num_distinct_actions`` = ``GameSpec.num_actions``; ``current_player`` = ``state[H_CURRENT]``
  (``TERMINAL`` once ``state[H_TERMINAL]``); ``legal_actions`` = the ``legal_mask`` kernel;
  ``apply_action`` validates the action against that mask (an illegal or out-of-range action raises
  :class:`~gamecore.kernel.options.IllegalActionError`, a ValueError, and changes nothing, history included) and calls
  ``apply``; action strings are ``GameSpec.action_to_string``; ``str(state)`` is the ansi render
  of the public view; ``clone()`` (and ``copy.deepcopy``) copies the state array exactly.
  ``apply_actions`` (simultaneous moves) raises ValueError.
* Observation tensor: the seat-relative ``observe`` kernel as float32, in the env's observation
  shape (``(S, S, C)`` planes for a game observed as board planes, else a flat vector; one piece named
  ``"observation"`` in ``make_observation(game).dict``). Observation string: the seat's
  ``to_dict`` view as compact JSON (sorted keys). Both show only what that seat may know.
* Information state string / tensor: the same seat view. It is the seat's whole current view, not
  a perfect-recall history: two histories that leave a seat the same view give it the same
  string (for ISMCTS, whose nodes are keyed by it, a transposition). Tabular algorithms that need
  perfect recall (CFR and the like) are out of reach of games this size anyway.
* ``resample_from_infostate(player, sampler)`` = a clone passed through the kernels'
  ``resample(state, player, seed)`` with ``seed`` drawn from ``sampler()`` (a number in [0, 1];
  anything else raises ValueError):
  everything ``player`` cannot see is redealt and the generator reseeded; the seat's views are
  unchanged. It depends only on that seat's view and the seed, never on the hidden part.
* ``action_to_string`` names the decider's action in full (as the env's does), so a record of
  every seat's action strings is not a view; ``state.public_action_string(action, viewer)`` gives
  what ``viewer`` learns of it (``GameSpec.public_action_string``).
* ``history()`` is pyspiel's own list of every action taken, secret ones included (say, a card
  kept face down), like any OpenSpiel game's; it is not a view.
* Serialization: ``state.serialize()`` is one line of JSON, no pickle: the game's pyspiel name,
  the kernels' params, the ``[player, action]`` pairs of the history and the state array's ints.
  ``game.deserialize_state(text)`` reads only that form and gives the same state exactly; it
  unpickles nothing and checks everything before a kernel runs on it (ValueError, the game and its
  seed stream unchanged): the same game, player count and options, a history of this game's seats
  and actions as long as the array's decision count, and an array the game can continue from (the
  ``check_state`` kernel, as the env's ``set_state``); the legal mask and everything the game
  determines come from the game, never from the text. pyspiel's default form for Python states
  (``history=...``, ``move_number=...``, ``__dict__=`` a base64 pickle, which runs any code it
  names when loaded) is refused with a ValueError that says so.
  ``pickle`` works for games (parameters, seed stream and its position) and states (the game and
  ``serialize()``, checked the same way on loading) through this module's own ``__reduce__``
  (``pickle`` itself stays unsafe for untrusted data); pyspiel's ``State.__setstate__`` is refused.
  pyspiel's ``Game::Serialize`` (so ``serialize_game_and_state``, ``game.serialize()`` and
  ``random_sim_test(serialize=True)``) fails with "GetRNGState unimplemented": it asks every
  SAMPLED_STOCHASTIC game for ``GetRNGState``, and pyspiel (2.0.2) gives a Python game no way to
  implement it (its ``PyGame`` trampoline overrides neither ``GetRNGState`` nor ``SetRNGState``,
  and neither is bound). **pyspiel.deserialize_game_and_state unpickles for every Python game:
  never give it untrusted text; use** ``game.deserialize_state(text)`` **with text from**
  ``state.serialize()``. It is pyspiel's C++ (``PyGame::DeserializeState``, which never calls a
  Python ``deserialize_state``): it ``pickle.loads`` the ``__dict__=`` part of any text it is
  given before the game sees anything, and refuses the JSON form with a ``SpielError``.
* ``max_game_length``: an upper bound on the decisions of one game (a whole match for a game
  whose options make one game a match of several), derived from the rules (see
  :func:`max_game_length`); random games play far fewer.

What works with OpenSpiel's tools is listed in ``docs/compatibility.md`` (checked by
``tests/test_openspiel.py``).
"""

from __future__ import annotations

import base64
import json
import pickle
from typing import Any

import numpy as np
import pyspiel

from gamecore.kernel.games import GAMES, get_game
from gamecore.kernel.options import IllegalActionError, short_repr
from gamecore.kernel.protocol import H_CURRENT, H_DECISIONS, H_NPLAYERS, H_TERMINAL, VIEW_PUBLIC, GameSpec
from gamecore.kernel.rewards import rank_rewards
from gamecore.kernel.rng import episode_seed, python_seed_to_int

#: pyspiel short name of each registered game (:func:`register_all`)
SHORT_NAMES: dict[str, str] = {}



#: the largest ``seed`` game parameter: pyspiel's int parameters are C++ ``int`` (32 bits)
MAX_PARAM_SEED = 2**31 - 1


# ---- argument checks (numba does not check bounds: nothing unchecked reaches a kernel) -------

_CURRENT = object()  # "no player given": pyspiel's overload for the current player


def _int_arg(value: Any, what: str) -> int:
    """``value`` as an int (a Python or numpy int, never a bool), else TypeError naming ``what``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an int, got {short_repr(value)}")
    return int(value)


def _seat_arg(value: Any, n: int, what: str) -> int:
    """``value`` as a seat ``0 <= seat < n``: TypeError for a wrong kind, ValueError out of range."""
    p = _int_arg(value, what)
    if not 0 <= p < n:
        raise ValueError(f"{what} must be a seat 0..{n - 1}, got {p}")
    return p


def _action_arg(value: Any, num_actions: int, what: str, error: type[ValueError] = ValueError) -> int:
    """``value`` as an action ``0 <= a < num_actions``: TypeError for a wrong kind, ``error`` (a
    ValueError) out of range."""
    a = _int_arg(value, what)
    if not 0 <= a < num_actions:
        raise error(f"{what} {a} is out of range 0..{num_actions - 1}")
    return a


# ---- game length bounds ---------------------------------------------------------------------


def max_game_length(spec: GameSpec, params: np.ndarray) -> int:
    """An upper bound on the decisions (applied actions) of one game: the game's own
    (:meth:`~gamecore.kernel.protocol.GameSpec.max_game_length`, derived from its rules)."""
    bound = spec.max_game_length(params)
    if isinstance(bound, (bool, np.bool_)) or not isinstance(bound, (int, np.integer)) or bound < 1:
        raise ValueError(f"{spec.name}: max_game_length must be a positive int, got {short_repr(bound)}")
    return int(bound)


# ---- parameters ---------------------------------------------------------------------------


def _exposed_options(spec: GameSpec) -> dict[str, Any]:
    """The game's options pyspiel can carry (int / bool / str values), with pyspiel defaults."""
    out: dict[str, Any] = {}
    for key, default in spec.option_defaults.items():
        names = spec.option_strings.get(key, {})
        named = [text for text, value in names.items() if value is default or value == default]
        if named:  # a value pyspiel cannot carry, by the string that stands for it
            out[key] = named[0]
        elif isinstance(default, (bool, int, str)):
            out[key] = default
    return out


def _parameter_specification(spec: GameSpec) -> dict[str, Any]:
    return {"players": spec.default_players, "seed": 0, **_exposed_options(spec)}


def _game_options(spec: GameSpec, values: dict[str, Any]) -> dict[str, Any]:
    """pyspiel parameter values -> the keyword options of ``make_params``."""
    options = {k: values[k] for k in _exposed_options(spec)}
    for key, names in spec.option_strings.items():
        text = options.get(key)
        if isinstance(text, str) and text.lower() in names:
            options[key] = names[text.lower()]
    return options


def _game_type(spec: GameSpec, perfect: bool) -> pyspiel.GameType:
    info = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=SHORT_NAMES[spec.name],
        long_name=f"{spec.display_name} (tabletop-rl-envs)",
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
        seed = _int_arg(values["seed"], f"{SHORT_NAMES[spec.name]}: seed")
        if not -1 <= seed <= MAX_PARAM_SEED:
            raise ValueError(f"{SHORT_NAMES[spec.name]}: seed must be an int 0..2**31 - 1 (pyspiel's int parameters "
                             f"are 32-bit), or -1 for fresh entropy, got {seed}; for a larger seed use "
                             "game.new_initial_state(seed=s)")
        self._stream = python_seed_to_int(None if seed == -1 else int(seed))
        self._episode = 0
        self._num_actions = int(spec.num_actions(self._params))
        self._obs_shape = tuple(int(d) for d in spec.obs_shape(self._params))
        self._perfect = not spec.hides_information(n)
        #: what a state and an observer must share (the kernels' params: sizes of arrays)
        self._key = (spec.name, tuple(int(x) for x in self._params))
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

    def deserialize_state(self, data: str) -> TabletopState:
        """The state ``state.serialize()`` wrote (a JSON text: the game, its params, the history and
        the state array), exactly. Nothing is unpickled: pyspiel's own form (``history=...``,
        ``move_number=...``, ``__dict__=`` a pickle, which runs any code it names when loaded) is
        refused with ValueError, and so is a text of another game or player count or options, a
        history that is not this game's actions, and a state array the game could not continue
        from (the ``check_state`` kernel, as the env's ``set_state``). The mask and the
        game-derived attributes come from this game, never from the text. pyspiel builds the state
        from a ``new_initial_state()``; that one does not count as a game of the seed stream."""
        history, st = _parse_serialized(self, data)
        # pyspiel's C++ DeserializeState is the only way to give a Python state a history: it takes
        # "history=...\nmove_number=...\n__dict__=<base64 pickle>" and unpickles the last part.
        # It gets the checked history and the pickle of an empty dict made here (in this process,
        # never from the text); the state array is set below.
        text = "history={}\nmove_number={}\n__dict__={}".format(
            ",".join(f"{p}:{a}" for p, a in history), len(history), _EMPTY_PICKLED_DICT)
        episode = self._episode
        try:
            state = pyspiel.Game.deserialize_state(self, text)
        finally:
            self._episode = episode
        state._state[:] = st
        state._mask_fresh = False
        return state

    def __reduce__(self):
        """``pickle`` / ``copy.deepcopy``: the same game (parameters, seed stream and its position).
        pyspiel's own pickling goes through ``Game.Serialize``, which needs a ``GetRNGState`` that a
        Python game cannot implement (see ``docs/compatibility.md``)."""
        return _unpickle_game, (self.spec.name, dict(self.get_parameters()), self._stream, self._episode)

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
        self._key = game._key
        self._n = int(game._params[0])
        size = int(np.prod(game.obs_shape))
        self._raw = np.zeros(size, dtype=np.int8)
        self.tensor = np.zeros(size, dtype=np.float32)
        self.dict = {"observation": self.tensor.reshape(game.obs_shape)}

    def _check(self, state: Any, player: Any, what: str) -> int:
        """The seat, once ``state`` is a state of this observer's game (same player count and
        options, so the same array sizes) and ``player`` a seat of it."""
        what = f"{self.spec.name}: {what}"
        if not isinstance(state, TabletopState):
            raise TypeError(f"{what}: state must be a {SHORT_NAMES[self.spec.name]} state, got "
                            f"{type(state).__name__}")
        if state._key != self._key:
            raise ValueError(f"{what}: the state is of another game ({state._key[0]} with params "
                             f"{list(state._key[1])}) than this observer's ({self._key[0]} with params "
                             f"{list(self._key[1])})")
        return _seat_arg(player, self._n, f"{what}: player")

    def set_from(self, state: TabletopState, player: int) -> None:
        """The tensor of ``player``'s (a seat 0..n-1) observation of ``state``."""
        p = self._check(state, player, "set_from")
        self.spec.kernels.observe(state.state_array, p, self._raw)
        self.tensor[:] = self._raw

    def string_from(self, state: TabletopState, player: int) -> str:
        """``player``'s (a seat 0..n-1) view of ``state`` as a string."""
        return state.view_string(self._check(state, player, "string_from"))


# ---- state ----------------------------------------------------------------------------------


class TabletopState(pyspiel.State):
    """One game: the kernels' int64 state array and a legal-mask cache; one subclass per game sets
    ``spec``. pyspiel's ``clone`` copies the instance's attributes deeply, the array exactly."""

    spec: GameSpec

    def __init__(self, game: TabletopGame, seed: int) -> None:
        super().__init__(game)
        self._params = game._params
        self._key = game._key
        self._num_actions = game._num_actions
        self._obs_size = int(np.prod(game.obs_shape))
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

    def _apply_actions(self, actions: Any) -> None:
        raise ValueError(f"{self.spec.name} is a sequential game: apply_actions is for simultaneous moves, "
                         "use apply_action")

    def _action_to_string(self, player: int, action: int) -> str:
        self._check_player(player, "action_to_string: player")
        a = _action_arg(action, self._num_actions, f"{self.spec.name}: action_to_string: action")
        return self.spec.action_to_string(self._state, a)

    # -- checks at the Python boundary: pyspiel's own methods, with their arguments checked first
    #    (pyspiel lets a bool through as an int, range-checks some players with a SpielError, none
    #    in legal_actions(p) or action_to_string, and the kernels check nothing) --
    def _check_player(self, player: Any, what: str, pseudo: bool = True) -> int:
        """A seat 0..n-1, or (``pseudo``) the current player's id as pyspiel gives it
        (``TERMINAL`` once the game is over)."""
        p = _int_arg(player, f"{self.spec.name}: {what}")
        n = int(self._params[0])
        if 0 <= p < n or (pseudo and p == self.current_player()):
            return p
        raise ValueError(f"{self.spec.name}: {what} must be a seat 0..{n - 1}, got {p}")

    def _check_action(self, action: Any, what: str) -> int:
        return _action_arg(action, self._num_actions, f"{self.spec.name}: {what}", IllegalActionError)

    def action_to_string(self, *args: Any) -> str:
        """``action_to_string(player, action)`` or ``action_to_string(action)``: the decider's action
        in full; ``player`` a seat, ``action`` 0..num_distinct_actions-1."""
        if len(args) not in (1, 2):
            raise TypeError(f"action_to_string takes (player, action) or (action), got {len(args)} arguments")
        a = _action_arg(args[-1], self._num_actions, f"{self.spec.name}: action_to_string: action")
        if len(args) == 2:
            return pyspiel.State.action_to_string(self, self._check_player(args[0], "action_to_string: player"), a)
        return pyspiel.State.action_to_string(self, a)

    def legal_actions(self, player: Any = _CURRENT) -> list[int]:
        if player is _CURRENT:
            return pyspiel.State.legal_actions(self)
        return pyspiel.State.legal_actions(self, self._check_player(player, "legal_actions: player"))

    def legal_actions_mask(self, player: Any = _CURRENT) -> list[int]:
        if player is _CURRENT:
            return pyspiel.State.legal_actions_mask(self)
        return pyspiel.State.legal_actions_mask(self, self._check_player(player, "legal_actions_mask: player"))

    def observation_string(self, player: Any = _CURRENT) -> str:
        if player is _CURRENT:
            return pyspiel.State.observation_string(self)
        return pyspiel.State.observation_string(
            self, self._check_player(player, "observation_string: player", pseudo=False))

    def _seat_tensor(self, player: Any, what: str, base: Any) -> list[float]:
        """``player``'s (a seat; no player: the current one) view as pyspiel's tensor methods give
        it (a list of floats, the ``observe`` kernel's values), written here: pyspiel's C++ sizes
        its buffer with a ``new_initial_state()`` (a game of the seed stream) and then asks the
        observer for the same values."""
        if player is _CURRENT:
            player = self.current_player()
            if player < 0:  # the game is over: pyspiel's own SpielError ("player >= 0"), before any state is built
                return base(self)
        else:
            player = self._check_player(player, f"{what}: player", pseudo=False)
        raw = np.zeros(self._obs_size, dtype=np.int8)
        self.spec.kernels.observe(self._state, player, raw)
        return raw.astype(np.float64).tolist()

    def observation_tensor(self, player: Any = _CURRENT) -> list[float]:
        return self._seat_tensor(player, "observation_tensor", pyspiel.State.observation_tensor)

    def information_state_string(self, player: Any = _CURRENT) -> str:
        if player is _CURRENT:
            return pyspiel.State.information_state_string(self)
        return pyspiel.State.information_state_string(
            self, self._check_player(player, "information_state_string: player", pseudo=False))

    def information_state_tensor(self, player: Any = _CURRENT) -> list[float]:
        return self._seat_tensor(player, "information_state_tensor", pyspiel.State.information_state_tensor)

    def player_return(self, player: Any) -> float:
        return pyspiel.State.player_return(self, self._check_player(player, "player_return: player", pseudo=False))

    def player_reward(self, player: Any) -> float:
        return pyspiel.State.player_reward(self, self._check_player(player, "player_reward: player", pseudo=False))

    def string_to_action(self, *args: Any) -> int:
        """``string_to_action(player, text)`` or ``string_to_action(text)``."""
        if len(args) == 2:
            args = (self._check_player(args[0], "string_to_action: player"), args[1])
        return pyspiel.State.string_to_action(self, *args)

    def apply_action(self, action: Any) -> None:
        """Apply a legal action (an int; a bool, an out-of-range or illegal action raises and
        changes nothing, history included)."""
        pyspiel.State.apply_action(self, self._check_action(action, "action"))

    apply_action_with_legality_check = apply_action

    def child(self, action: Any) -> TabletopState:
        a = self._check_action(action, "action")
        child = self.clone()
        child.apply_action(a)
        return child

    def clone(self) -> TabletopState:
        """pyspiel's ``clone``: the state array exactly and the history. pyspiel builds the copy
        from a ``new_initial_state()``; called from Python that one does not count as a game of the
        seed stream (a clone pyspiel's C++ side makes does count, as in ``random_sim_test``)."""
        game = self.get_game()
        episode = game._episode
        try:
            return pyspiel.State.clone(self)
        finally:
            game._episode = episode

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
        p = _seat_arg(player_id, int(self._params[0]), f"{self.spec.name}: resample_from_infostate: player_id")
        u = probability_sampler()
        if isinstance(u, (bool, np.bool_)) or not isinstance(u, (int, float, np.integer, np.floating)) \
                or not 0.0 <= float(u) <= 1.0:
            raise ValueError(f"{self.spec.name}: resample_from_infostate: probability_sampler() must return a "
                             f"number in [0, 1], got {short_repr(u)}")
        seed = int(float(u) * float(1 << 53)) % (1 << 53)
        clone = self.clone()
        self.spec.kernels.resample(clone._state, p, seed)
        clone._mask_fresh = False
        return clone

    def __deepcopy__(self, memo: dict) -> TabletopState:
        return self.clone()  # pyspiel's pickling path needs a generator state it does not have

    def serialize(self) -> str:
        """The state as one line of JSON (no pickle): ``{"format", "game", "params", "history",
        "state"}`` (the pyspiel name, the kernels' params, ``[player, action]`` pairs of
        ``full_history()``, the state array's ints), which ``game.deserialize_state`` reads back
        exactly. pyspiel's own ``Serialize`` (C++, used by ``serialize_game_and_state``, which
        fails earlier with "GetRNGState unimplemented") is not this method."""
        return json.dumps({
            "format": SERIALIZE_FORMAT,
            "game": SHORT_NAMES[self.spec.name],
            "params": list(self._key[1]),
            "history": [[int(pa.player), int(pa.action)] for pa in self.full_history()],
            "state": self._state.tolist(),
        }, separators=(",", ":"))

    def __reduce__(self):
        """``pickle``: the game (see :meth:`TabletopGame.__reduce__`) and ``self.serialize()`` (the
        history and the state array), restored exactly by ``game.deserialize_state``, which checks
        it. pyspiel's own pickling goes through ``serialize_game_and_state``, which needs a
        ``GetRNGState``."""
        return _unpickle_state, (self.get_game(), self.serialize())

    def __setstate__(self, data: Any) -> None:
        """Refused: pyspiel's ``__setstate__`` would load a ``serialize_game_and_state`` text, whose
        state part is a pickle, and set the attributes it holds unchecked. This module's pickles
        never call it (see :meth:`__reduce__`)."""
        raise ValueError(f"{self.spec.name}: pyspiel's __setstate__ (a serialize_game_and_state text, a pickle "
                         "inside) is not supported: pickle the state itself (gamecore.envs.openspiel's __reduce__) or "
                         "use game.deserialize_state(state.serialize())")

    def view_string(self, seat: int) -> str:
        """The seat's (0..n-1) ``to_dict`` view as compact JSON: the observation / information state
        string. Any other seat number raises (ValueError; TypeError for a non-int): no number gives
        the public or the all-seeing view."""
        p = _seat_arg(seat, int(self._params[0]), f"{self.spec.name}: view_string: viewer")
        return json.dumps(self.spec.to_dict(self._state, p), sort_keys=True, separators=(",", ":"))

    def public_action_string(self, action: int, viewer: int = VIEW_PUBLIC) -> str:
        """``action`` (0..num_distinct_actions-1) of the deciding seat as ``viewer`` learns it
        (``GameSpec.public_action_string``): ``viewer`` is a seat 0..n-1 or ``VIEW_PUBLIC`` (-1, a
        spectator); no viewer sees more than a seat may."""
        a = _action_arg(action, self._num_actions, f"{self.spec.name}: public_action_string: action")
        v = _int_arg(viewer, f"{self.spec.name}: public_action_string: viewer")
        n = int(self._params[0])
        if v != VIEW_PUBLIC and not 0 <= v < n:
            raise ValueError(f"{self.spec.name}: public_action_string: viewer must be a seat 0..{n - 1} or "
                             f"{VIEW_PUBLIC} (public), got {v}")
        return self.spec.public_action_string(self._state, a, v)

    def __str__(self) -> str:
        return self.spec.render_ansi(self._state, VIEW_PUBLIC)


# ---- serialization ---------------------------------------------------------------------------

#: the ``"format"`` of ``state.serialize()``'s JSON text (what ``game.deserialize_state`` reads)
SERIALIZE_FORMAT = "gamecore.envs.openspiel state 1"
_SERIALIZE_KEYS = ("format", "game", "params", "history", "state")
_PYSPIEL_PICKLE_TAG = "__dict__="
#: the pickle of an empty dict, made here: what pyspiel's C++ DeserializeState gets to unpickle
_EMPTY_PICKLED_DICT = base64.b64encode(pickle.dumps({})).decode("ascii")
_INT64 = (-(2**63), 2**63 - 1)


def _max_serialized_len(game: TabletopGame) -> int:
    """The longest text ``deserialize_state`` reads for ``game``: what ``serialize()`` writes at
    most (every int at most 20 characters), twice over for whitespace, plus room for the keys."""
    ints = game.spec.kernels.STATE_LEN + len(game._params) + 2 * game.max_game_length()
    return 2 * 22 * ints + 1024


def _int_list(value: Any, what: str, length: int | None = None) -> list[int]:
    """``value`` as a list of ints (JSON ints, never bools or floats) in int64 range, else ValueError."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of ints, got {short_repr(value)}")
    if length is not None and len(value) != length:
        raise ValueError(f"{what} must hold {length} ints, got {len(value)}")
    for v in value:
        if type(v) is not int or not _INT64[0] <= v <= _INT64[1]:
            raise ValueError(f"{what} must hold int64 ints, got {short_repr(v)}")
    return value


def _parse_serialized(game: TabletopGame, data: Any) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The checked ``(history, state array)`` of a ``state.serialize()`` text of ``game``; ValueError
    (TypeError for a non-str) naming what is wrong. Nothing in ``data`` is unpickled or evaluated."""
    spec = game.spec
    name = SHORT_NAMES[spec.name]
    what = f"{name}: deserialize_state"
    if not isinstance(data, str):
        raise TypeError(f"{what}: the text must be a str (from state.serialize()), got {type(data).__name__}")
    limit = _max_serialized_len(game)
    if len(data) > limit:
        raise ValueError(f"{what}: the text is {len(data)} characters long; a state.serialize() text of this game "
                         f"has at most {limit}")
    if _PYSPIEL_PICKLE_TAG in data and not data.lstrip().startswith("{"):
        raise ValueError(f"{what}: this is pyspiel's default serialization of a Python state, whose "
                         f"{_PYSPIEL_PICKLE_TAG} part is a pickle (loading a pickle runs any code it names); "
                         "gamecore.envs.openspiel never unpickles a state text. Write the text with this version's "
                         "state.serialize() (JSON)")
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{what}: not a state.serialize() text (JSON): {short_repr(str(exc))}") from None
    if not isinstance(obj, dict) or obj.get("format") != SERIALIZE_FORMAT:
        raise ValueError(f"{what}: not a state.serialize() text: a JSON object with \"format\": "
                         f"{SERIALIZE_FORMAT!r} expected")
    if sorted(obj) != sorted(_SERIALIZE_KEYS):
        raise ValueError(f"{what}: the text must have the keys {', '.join(_SERIALIZE_KEYS)}, got "
                         f"{', '.join(map(repr, obj))}")
    params = list(game._key[1])
    if obj["game"] != name:
        raise ValueError(f"{what}: the text is a state of {short_repr(obj['game'])}, not of {name}")
    if _int_list(obj["params"], f"{what}: params") != params:
        raise ValueError(f"{what}: the text is a state of {name} with params {short_repr(obj['params'])}, this "
                         f"game's are {params} (another player count or other options)")
    n = int(game._params[0])
    num_actions = game._num_actions
    raw = obj["history"]
    if not isinstance(raw, list) or len(raw) > game.max_game_length():
        raise ValueError(f"{what}: history must be a list of at most {game.max_game_length()} [player, action] "
                         "pairs (the game's length bound)")
    history = []
    for i, pair in enumerate(raw):
        p, a = _int_list(pair, f"{what}: history[{i}]", 2)
        if not 0 <= p < n or not 0 <= a < num_actions:
            raise ValueError(f"{what}: history[{i}] = {pair} is not a seat 0..{n - 1} and an action "
                             f"0..{num_actions - 1}")
        history.append((p, a))
    K = spec.kernels
    st = np.array(_int_list(obj["state"], f"{what}: state", K.STATE_LEN), dtype=np.int64)
    if int(st[H_NPLAYERS]) != n:
        raise ValueError(f"{what}: the state array is for {int(st[H_NPLAYERS])} players, this game has {n}")
    bad = K.check_state(st, game._params)
    if bad:
        raise ValueError(f"{what}: malformed {spec.name} state: slot {bad - 1} is out of range or inconsistent")
    if not st[H_TERMINAL] and K.legal_mask(st, np.zeros(num_actions, dtype=np.int8)) == 0:
        raise ValueError(f"{what}: malformed {spec.name} state: the game is running but the decider has no legal "
                         "action")
    if int(st[H_DECISIONS]) != len(history):
        raise ValueError(f"{what}: the history holds {len(history)} actions, the state array counts "
                         f"{int(st[H_DECISIONS])} decisions")
    return history, st


# ---- pickling --------------------------------------------------------------------------------


def _unpickle_game(name: str, params: dict[str, Any], stream: int, episode: int) -> TabletopGame:
    game = GAME_CLASSES[name](params)
    game._stream = int(stream)  # a seed=-1 game's stream came from fresh entropy
    game._episode = int(episode)
    return game


def _unpickle_state(game: TabletopGame, data: str) -> TabletopState:
    """The state :meth:`TabletopState.__reduce__` pickled: ``game.deserialize_state(data)``, which
    checks the text as for any other (a pickled state can name no array a kernel would choke on)."""
    if not isinstance(game, TabletopGame):
        raise TypeError(f"a pickled tabletop state needs its tabletop game, got {type(game).__name__}")
    return game.deserialize_state(data)


# ---- registration ---------------------------------------------------------------------------

GAME_CLASSES: dict[str, type[TabletopGame]] = {}


def _register(name: str) -> None:
    spec = get_game(name)
    SHORT_NAMES[name] = f"tabletop_{name}"
    title = "".join(part.capitalize() for part in name.split("_"))
    state_cls = type(f"Tabletop{title}State", (TabletopState,), {"spec": spec, "__module__": __name__})
    cls = type(f"Tabletop{title}Game", (TabletopGame,),
               {"spec": spec, "state_class": state_cls, "__module__": __name__})
    GAME_CLASSES[name] = cls
    short = SHORT_NAMES[name]
    if short not in pyspiel.registered_names():
        pyspiel.register_game(_registered_type(spec), cls)


def register_all() -> None:
    """Register every game of the registry with pyspiel (idempotent): done on import; call it again
    after adding a game to the process (:func:`gamecore.kernel.games.add_game`)."""
    for name in GAMES:
        if name not in GAME_CLASSES:
            _register(name)


register_all()

__all__ = ["GAME_CLASSES", "MAX_PARAM_SEED", "SERIALIZE_FORMAT", "SHORT_NAMES", "IllegalActionError", "SeatObserver",
           "TabletopGame", "TabletopState", "max_game_length", "register_all"]
