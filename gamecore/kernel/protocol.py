"""The kernel interface every game implements, written down once.

A game is two objects:

* a **kernel module** (``<game>_env.rules``: ``rules.py``, or for a game with large rules a
  ``rules/`` package of one module per rule area whose ``__init__`` exports only the functions and
  constants below) of numba functions on plain arrays, with no gymnasium / pettingzoo imports; the
  AEC env, the batched path and the benchmarks all call the same functions, so the rules exist
  exactly once;
* a :class:`GameSpec` subclass (``<game>_env/game.py``): the Python-side facts about the game
  (options, sizes, action strings, rendering, JSON view) used by the wrappers.

State
-----
One game is a 1-D ``int64`` array of ``kernels.STATE_LEN`` slots; a batch is ``(N, STATE_LEN)``.
Games allocate their slots with :func:`state_layout` (:mod:`gamecore.kernel.layout`), whose first
:data:`HEADER_LEN` slots are common to all games:

{HEADER_TABLE}

Because the generator lives in the state, copying the array copies the future exactly. The state
therefore knows things no seat may know (the generator, the order of face-down stacks, other seats'
hands): those never reach an observation or a seat's ``to_dict`` view, and search agents first
call ``resample`` so that a copied state no longer knows them either.

Turns made of several decisions
-------------------------------
A turn is a small state machine kept in the state, never a per-game invention:

* ``H_OWNER`` is the seat whose turn it is; ``H_CURRENT`` is the seat that must decide now. They
  differ when a rule asks another seat (say, the owners of the lower pieces of a stack act in
  the placing player's turn); the turn owner does not change while they decide.
* ``H_PHASE`` is the kind of the pending decision (a small game-specific enum, named by
  :attr:`GameSpec.phase_names`); the context that decision needs (a declared number, the fields of
  a travel so far, the actions still pending) lives in named state slots of the game.
* ``apply`` takes one decision, then advances: it sets the next phase and decider, applies every
  step that leaves no choice (a forced move is not a decision), and passes the turn on when the
  turn's last decision is taken.
* ``legal_mask`` offers only decisions that can still be completed: a feasibility check, never a
  dead end discovered later. The fuzz tests check, at every step of thousands of random games,
  that a non-terminal state has at least one legal decision, and search every continuation of
  sampled turns for a dead end.
* The observation of the decider names the decision: every game's observation includes
  ``H_PHASE`` one-hot, and the seat that owns the turn relative to the observer.

Views
-----
Whatever a person or an agent sees is a *view* of the state for a *viewer*: a seat ``0..n-1``
(what that seat may know), :data:`VIEW_PUBLIC` (what a spectator sees: no hands, no secret cards,
no deck order) or :data:`VIEW_ALL` (everything, for debugging and replays). Observations are always
a seat's view; ``to_dict`` and the renderers take the viewer as an argument, and the env renders the
public view unless it is built with ``viewer="all"`` or a seat.

Kernel functions (numba kernels of ``gamecore.kernel.jit``)
-----------------------------------------------------------
``init(state, params, seed)``
    Fill ``state`` for a new game. ``params`` is the int64 option vector made by
    :meth:`GameSpec.make_params` (``params[0]`` is always the number of players).
``legal_mask(state, mask) -> int``
    Write the int8 legal-action mask of the deciding seat into ``mask`` and return how many actions
    are legal. All zeros (and 0) once the game is terminal.
``apply(state, action)``
    Apply a *legal* action of the deciding seat, then advance to the next decision (automatic
    steps, end-of-game, next game of a match). Kernels do not check legality: the Python boundary
    (env, batched API) does, using ``legal_mask``.
``apply_legal(state, action, mask) -> int``
    ``apply``, then ``legal_mask`` of the position reached, in one call: what the AEC step, the
    batched step and rollouts call. A game whose ``apply`` already computes the next legal set
    (for its forced-decision checks) writes it out instead of computing it
    again and sets the module constant ``APPLY_LEGAL_FUSED = True``; the others take
    ``gamecore.kernel.kernels.plain_apply_legal(module)`` (the two kernels, inlined where it is called: no
    compiled function of its own) and set it False, and the AEC env then calls ``apply`` and
    computes the mask when it is read. ``mask`` is ``num_actions`` long.
``scores(state, out)``
    Final score of every seat in game terms, higher is better (a game scored by penalties: minus the penalty). On a
    running game: the score each seat would have if the game ended now (what has been scored so
    far plus the end-of-game scoring of the position as it stands); greedy agents
    (:mod:`gamecore.search.agents`) read it after each candidate decision.
``rank_keys(state, out)``
    A float per seat, higher ranks first; equal keys share a rank (tie-breaks are folded in).
``observe(state, player, out)``
    Write seat ``player``'s int8 observation (flat, seat-relative: that seat's data first) into
    ``out``. Never reveals what that seat may not know, and never the generator state.
``resample(state, player, seed)``
    Redeal, in place, everything seat ``player`` cannot see (other seats' hands and secret cards,
    the order of every face-down stack or deck), uniformly among the deals consistent with what
    that seat has seen, and reseed the generator from ``seed``. Afterwards ``observe(state,
    player)`` and the seat's ``to_dict`` view are unchanged and play continues legally. A game with
    nothing hidden only reseeds. The result depends only on what ``player`` can see and on
    ``seed``, never on the hidden part it replaces (put the unknown cards in a canonical order
    before shuffling them): two states the seat cannot tell apart resample to the same state, so
    a search that resamples first cannot be steered by what it may not know.
``check_state(state, params) -> int``
    0 when ``state`` is a position of these params that play can continue from (every slot in its
    range, the pieces accounted for, the counters consistent), else the index of the first bad
    slot plus one. Every slot is checked in every phase: context slots the pending decision does
    not use must hold their unused values, since kernels, views and renderers read them all. A
    state it accepts stays accepted along any legal play from it (turn counters follow from the
    position; ``H_DECISIONS`` stops at ``MAX_COUNTER``), so ``set_state(get_state())`` works at
    every point. ``set_state`` calls it (and then checks that a running game's decider has a
    legal action) so that no malformed array reaches a kernel; ``tests/slot_sweep.py`` corrupts
    every slot of states from every phase and checks each is refused or plays on safely.

Batched kernels
---------------
:mod:`gamecore.envs.batched` builds ``batch_reset``, ``batch_step`` and ``batch_random_rollout`` for a
game from its kernel module with one factory, shared by all games (the factory closes over the
*module*, which numba can cache across processes).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

import numpy as np

from gamecore.kernel.header import (
    _HEADER,
    H_CURRENT,
    H_DECISIONS,
    H_DONE,
    H_NPLAYERS,
    H_OWNER,
    H_PHASE,
    H_RNG,
    H_TERMINAL,
    HEADER_LEN,
    MAX_COUNTER,
    VIEW_ALL,
    VIEW_PUBLIC,
    state_layout,
)
from gamecore.kernel.layout import Layout, rst_table
from gamecore.kernel.options import short_repr

__doc__ = (__doc__ or "").replace("{HEADER_TABLE}", _HEADER.table())


class Kernels(Protocol):
    """What a game's ``rules`` module provides (see the module docstring)."""

    STATE_LEN: int
    APPLY_LEGAL_FUSED: bool

    def init(self, state: np.ndarray, params: np.ndarray, seed: int) -> None: ...
    def legal_mask(self, state: np.ndarray, mask: np.ndarray) -> int: ...
    def apply(self, state: np.ndarray, action: int) -> None: ...
    def apply_legal(self, state: np.ndarray, action: int, mask: np.ndarray) -> int: ...
    def scores(self, state: np.ndarray, out: np.ndarray) -> None: ...
    def rank_keys(self, state: np.ndarray, out: np.ndarray) -> None: ...
    def observe(self, state: np.ndarray, player: int, out: np.ndarray) -> None: ...
    def resample(self, state: np.ndarray, player: int, seed: int) -> None: ...
    def check_state(self, state: np.ndarray, params: np.ndarray) -> int: ...


class GameSpec:
    """Python-side description of one game; subclass per game.

    Subclasses set ``kernels``, the player limits and implement the abstract methods; ``name``,
    ``env_id`` and ``display_name`` are what the game's package registered
    (:func:`gamecore.kernel.games.register_package`: one home for them), so a spec outside a
    registered package sets ``name`` and ``env_id`` itself. ``default_players`` is the smallest
    supported count unless a game says otherwise; it is used wherever a caller omits ``num_players``.
    """

    kernels: ModuleType
    min_players: int = 2
    max_players: int = 4
    #: options accepted by make_params besides num_players, with defaults
    option_defaults: dict[str, Any] = {}
    #: names of the H_PHASE values (kinds of decision), index = value
    phase_names: tuple[str, ...] = ("turn",)
    #: True when some seat may not see part of the state (hands, stacks, secret cards)
    hidden_information: bool = False
    #: observation blocks (names in :meth:`obs_layout`) that show the observer's own secrets
    #: (its hand, its secret cards): left out of the public global state (``gamecore.envs.global_state``)
    private_obs_blocks: tuple[str, ...] = ()
    #: parts of ``to_dict(viewer=seat)`` an observation leaves out, as dotted paths (a list applies
    #: the rest of the path to each item), each with the reason; the env docstring prints them. Two
    #: states whose views differ anywhere else give the seat different observations
    #: (``tests/test_obs_faithful.py``).
    obs_leaves_out: dict[str, str] = {}
    #: observation blocks that show the pending decision: its kind and the seat to move (all zero
    #: once the game is over)
    obs_pending_blocks: tuple[str, ...] = ()
    #: MCTS rollouts stop after this many random decisions (0: play them to the end) and the
    #: position reached is valued by ``tanh(margin / mcts_value_scale)`` (see :mod:`gamecore.search.mcts`)
    mcts_horizon: int = 0
    mcts_value_scale: float = 0.0

    #: option values that are not an int, a bool or a str, by the string that stands for them where
    #: only those can be passed (OpenSpiel's game parameters): ``{"action_layout": {"random": None}}``
    option_strings: dict[str, dict[str, Any]] = {}

    def _registration(self):
        from gamecore.kernel.games import registered

        entry = registered(type(self).__module__.partition(".")[0])
        if entry is None:
            raise AttributeError(f"{type(self).__name__} is not in a registered game package: set name and env_id")
        return entry

    @property
    def name(self) -> str:
        """The game's name, ``"facade"``: the env id without its version."""
        return self._registration().name

    @property
    def env_id(self) -> str:
        """The PettingZoo id, ``"facade-v1"``, as the package registered it."""
        return self._registration().env_id

    @property
    def display_name(self) -> str:
        """The game's name as people write it (``"Façade"``, e.g. in OpenSpiel's long name): the
        title its package registered, else the capitalised ``name``."""
        from gamecore.kernel.games import registered

        entry = registered(type(self).__module__.partition(".")[0])
        return entry.title if entry is not None else self.name.capitalize()

    def max_game_length(self, params: np.ndarray) -> int:
        """An upper bound on the decisions (applied actions) of one game (one episode) under
        ``params``, from the rules as implemented: OpenSpiel's ``max_game_length`` and the size
        checks of the records it reads. A game that runs on OpenSpiel implements it."""
        raise NotImplementedError(f"{self.name}: no bound on the length of a game (GameSpec.max_game_length)")

    def hides_information(self, num_players: int) -> bool:
        """Whether some seat may not see part of the state at this player count (a game may hide
        nothing at some counts: say, its 2-player game has no face-down stack)."""
        return self.hidden_information

    @property
    def default_players(self) -> int:
        return self.min_players

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(range(self.min_players, self.max_players + 1))

    # ---- options ---------------------------------------------------------------------------
    def make_params(self, num_players: int | None = None, **options: Any) -> np.ndarray:
        """Validate options and pack them into the int64 params vector."""
        unknown = sorted(set(options) - set(self.option_defaults))
        if unknown:
            raise TypeError(
                f"{self.name}: unknown option(s) {', '.join(map(repr, unknown))}; "
                f"known options: {', '.join(self.known_options())}"
            )
        if num_players is None:
            num_players = self.default_players
        if isinstance(num_players, (bool, np.bool_)) or not isinstance(num_players, (int, np.integer)):
            raise TypeError(f"{self.name}: num_players must be an int, got {short_repr(num_players)}")
        if not self.min_players <= int(num_players) <= self.max_players:
            raise ValueError(
                f"{self.name}: num_players must be between {self.min_players} and "
                f"{self.max_players}, got {short_repr(num_players)}"
            )
        merged = dict(self.option_defaults)
        merged.update(options)
        return self._pack_params(int(num_players), merged)

    def known_options(self) -> list[str]:
        """Every keyword the env constructors accept, for error messages."""
        return ["num_players", *self.option_defaults, "reward_mode", "render_mode", "viewer", "illegal", "obs_encoding"]

    def _pack_params(self, num_players: int, options: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def params_to_options(self, params: np.ndarray) -> dict[str, Any]:
        raise NotImplementedError

    def state_options(self, state: np.ndarray) -> dict[str, Any]:
        """The options a state records in its own slots (those ``check_state`` compares with the
        params), read as they stand: :meth:`~gamecore.kernel.protocol.GameSpec.params_of_state` validates them."""
        return {}

    def params_of_state(self, state: np.ndarray) -> np.ndarray:
        """The params of the game ``state`` belongs to, from its player count and the options it
        records (:meth:`state_options`; the others at their defaults, which ``check_state`` does
        not compare), for checking a state that comes with no env (the agents' ``act``). ValueError
        when those slots hold no valid options; ``check_state`` then checks the rest."""
        n = state[H_NPLAYERS]
        try:
            return self.make_params(int(n), **self.state_options(state))
        except (TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"not a {self.name} state: its player count and option slots hold no valid options "
                             f"({exc})") from None

    # ---- sizes -----------------------------------------------------------------------------
    def num_actions(self, params: np.ndarray) -> int:
        raise NotImplementedError

    def obs_shape(self, params: np.ndarray) -> tuple[int, ...]:
        raise NotImplementedError

    def obs_high(self, params: np.ndarray) -> int:
        """The ``high`` of the int8 observation Box: the int8 range every entry stays in (127). Each
        entry's own, tighter maximum: :meth:`~gamecore.kernel.protocol.GameSpec.obs_high_vector`."""
        return 127

    def obs_high_vector(self, params: np.ndarray) -> np.ndarray:
        """The largest value each observation entry can take, from the rules (the ``high`` of every
        block of :meth:`obs_layout`, which the env docstring's ``Range`` column states): a flat
        int64 vector of the observation's length (C order), every value in ``0..obs_high``. It
        depends on the player count only, never on other options, so that observations scaled by
        it (``obs_encoding="scaled"``) mean the same under every option. A game whose observation is
        not one flat block layout (board planes, say) overrides this."""
        lay = self.obs_layout(params)
        if lay is None:
            raise NotImplementedError(f"{self.name}: no observation layout to read the maxima from")
        return lay.high_vector()

    def obs_layout(self, params: np.ndarray) -> Layout | None:
        """The flat observation's named blocks (covering it exactly), or None for an observation
        that is not one flat sequence of blocks (board planes, say); a game with
        ``private_obs_blocks`` must name its blocks."""
        return None

    def observation_views(self, obs: np.ndarray, params: np.ndarray) -> dict[str, np.ndarray]:
        """Named views onto an observation (as OpenSpiel's ``Observation.dict``): block name ->
        the block's entries in its documented shape, in the order and with the names of the env
        docstring's observation table, which is printed from the same layout. ``obs`` is one
        int8 or scaled observation of this game and player count, or a batch of them (leading
        axes are kept); the views share its memory. A game whose observation is not one flat
        block layout (board planes, say) overrides this."""
        lay = self.obs_layout(params)
        if lay is None:
            raise NotImplementedError(f"{self.name}: no observation layout to name the entries by")
        arr = np.asarray(obs)
        shape = self.obs_shape(params)
        if arr.shape[arr.ndim - len(shape):] != tuple(shape):
            raise ValueError(f"{self.name}: an observation of shape {tuple(shape)} (or a batch of them) is needed, "
                             f"got shape {arr.shape}")
        return lay.views(arr.reshape(*arr.shape[: arr.ndim - len(shape)], -1))

    # ---- people ----------------------------------------------------------------------------
    def action_to_string(self, state: np.ndarray, action: int) -> str:
        raise NotImplementedError

    def public_action_string(self, state: np.ndarray, action: int, viewer: int = VIEW_PUBLIC) -> str:
        """The decision ``action`` of the seat to move in ``state`` as ``viewer`` may know it once
        it is taken: :meth:`action_to_string` unless the decision is secret (a card kept face down),
        where a game names only what ``viewer`` learns (``"keep a scoring card"``). The mover and
        VIEW_ALL always get the whole string. Games without secret decisions keep this default."""
        return self.action_to_string(state, action)

    def to_dict(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> dict[str, Any]:
        """JSON-serialisable view of the state for ``viewer`` (a seat, VIEW_PUBLIC or VIEW_ALL)."""
        raise NotImplementedError

    def render_ansi(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> str:
        raise NotImplementedError

    def render_rgb(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> np.ndarray:
        raise NotImplementedError

    def render_terminal(self, state: np.ndarray, viewer: int = VIEW_PUBLIC, colour: bool = True) -> str:
        """The board for a terminal (``python -m gamecore play``): ``render_ansi`` unless a game
        draws it in colour (ANSI escape codes when ``colour``)."""
        return self.render_ansi(state, viewer)

    def phase_name(self, state: np.ndarray) -> str:
        phase = int(state[H_PHASE])
        return self.phase_names[phase] if 0 <= phase < len(self.phase_names) else f"phase {phase}"

    def player_name(self, seat: int) -> str:
        return f"player_{seat}"

    def invariant_errors(self, state: np.ndarray) -> list[str]:
        """Game-specific consistency checks used by the fuzz tests (conservation of pieces...)."""
        return []


def viewer_name(viewer: int) -> str | int:
    """How a view names its viewer in ``to_dict``: the seat, ``"public"`` or ``"all"``."""
    if viewer == VIEW_PUBLIC:
        return "public"
    if viewer == VIEW_ALL:
        return "all"
    return int(viewer)


def check_int_array(name: str, arr: Any, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Return ``arr`` as a C-contiguous int64 array, or raise a clear error."""
    a = np.asarray(arr)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array, got dtype {a.dtype}")
    if shape is not None and a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {a.shape}")
    if a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds values beyond int64")
    return np.ascontiguousarray(a, dtype=np.int64)


__all__ = [
    "GameSpec",
    "Kernels",
    "HEADER_LEN",
    "H_CURRENT",
    "H_DECISIONS",
    "H_DONE",
    "H_NPLAYERS",
    "H_OWNER",
    "H_PHASE",
    "H_RNG",
    "H_TERMINAL",
    "MAX_COUNTER",
    "VIEW_ALL",
    "VIEW_PUBLIC",
    "rst_table",
    "state_layout",
    "viewer_name",
]
