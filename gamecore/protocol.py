"""The kernel interface every game implements, written down once.

A game is two objects:

* a **kernel module** (``<game>_env/rules.py``) of numba functions on plain arrays, with no
  gymnasium / pettingzoo imports; the AEC env, the batched path and the benchmarks all call the same
  functions, so the rules exist exactly once;
* a :class:`GameSpec` subclass (``<game>_env/game.py``): the Python-side facts about the game
  (options, sizes, action strings, rendering, JSON view) used by the wrappers.

State
-----
One game is a 1-D ``int64`` array of ``kernels.STATE_LEN`` slots; a batch is ``(N, STATE_LEN)``.
The first :data:`HEADER_LEN` slots are common to all games:

=====  ================  ==========================================================
Index  Name              Meaning
=====  ================  ==========================================================
0      ``H_RNG``         xorshift64* state (see :mod:`gamecore.rng`)
1      ``H_NPLAYERS``    number of seats, 2..5
2      ``H_CURRENT``     seat that takes the next decision (not necessarily the seat
                         whose turn it is: any seat may be asked to decide)
3      ``H_TERMINAL``    1 once the game (or match) is over
4      ``H_DONE``        bit ``p`` set once seat ``p`` takes no further decision
5      ``H_DECISIONS``   number of decisions applied so far
6, 7   reserved
=====  ================  ==========================================================

Because the generator lives in the state, copying the array copies the future exactly; hidden
information (deck order) is in the state but never in an observation.

Kernel functions (all ``@gamecore.jit.jit``)
--------------------------------------------
``init(state, params, seed)``
    Fill ``state`` for a new game. ``params`` is the int64 option vector made by
    :meth:`GameSpec.make_params` (``params[0]`` is always the number of players).
``legal_mask(state, mask) -> int``
    Write the int8 legal-action mask of the deciding seat into ``mask`` and return how many actions
    are legal. All zeros (and 0) once the game is terminal.
``apply(state, action)``
    Apply a *legal* action of the deciding seat, then advance to the next decision (automatic
    skips, end-of-game, next game of a match). Kernels do not check legality: the Python boundary
    (env, batched API) does, using ``legal_mask``.
``scores(state, out)``
    Final score of every seat in game terms, higher is better (Callisto: minus the penalty).
``rank_keys(state, out)``
    A float per seat, higher ranks first; equal keys share a rank (tie-breaks are folded in).
``observe(state, player, out)``
    Write seat ``player``'s int8 observation (flat, seat-relative: that seat's data first) into
    ``out``. Never reveals another seat's hidden cards or the order of a face-down stack.
``check_state(state, params) -> int``
    0 when every slot of ``state`` is within its range for these params, else the index of the first
    bad slot plus one. ``set_state`` calls it so that no malformed array reaches a kernel.

Batched kernels (``<game>_env/batched.py``, ``@gamecore.jit.pjit``)
------------------------------------------------------------------
``batch_reset``, ``batch_step`` and ``batch_random_rollout`` loop ``prange`` over the games of a
batch and call the kernels above. They are a dozen lines per game and are written out per game on
purpose: numba cannot cache a function that reaches another game's kernels through a closure
(numba issues #2065, #6264), and an uncached batched kernel would recompile at every start.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

import numpy as np

H_RNG = 0
H_NPLAYERS = 1
H_CURRENT = 2
H_TERMINAL = 3
H_DONE = 4
H_DECISIONS = 5
HEADER_LEN = 8


class Kernels(Protocol):
    """What a game's ``rules`` module provides (see the module docstring)."""

    STATE_LEN: int

    def init(self, state: np.ndarray, params: np.ndarray, seed: int) -> None: ...
    def legal_mask(self, state: np.ndarray, mask: np.ndarray) -> int: ...
    def apply(self, state: np.ndarray, action: int) -> None: ...
    def scores(self, state: np.ndarray, out: np.ndarray) -> None: ...
    def rank_keys(self, state: np.ndarray, out: np.ndarray) -> None: ...
    def observe(self, state: np.ndarray, player: int, out: np.ndarray) -> None: ...
    def check_state(self, state: np.ndarray, params: np.ndarray) -> int: ...


class GameSpec:
    """Python-side description of one game; subclass per game.

    Subclasses set ``name``, ``env_id``, ``kernels`` and implement the abstract methods.
    """

    name: str = ""
    env_id: str = ""
    kernels: ModuleType
    min_players: int = 2
    max_players: int = 4
    #: options accepted by make_params besides num_players, with defaults
    option_defaults: dict[str, Any] = {}

    # ---- options ---------------------------------------------------------------------------
    def make_params(self, num_players: int = 2, **options: Any) -> np.ndarray:
        """Validate options and pack them into the int64 params vector."""
        unknown = sorted(set(options) - set(self.option_defaults))
        if unknown:
            raise TypeError(
                f"{self.name}: unknown option(s) {', '.join(map(repr, unknown))}; "
                f"known options: num_players, {', '.join(self.option_defaults)}"
            )
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise TypeError(f"{self.name}: num_players must be an int, got {num_players!r}")
        if not self.min_players <= int(num_players) <= self.max_players:
            raise ValueError(
                f"{self.name}: num_players must be between {self.min_players} and "
                f"{self.max_players}, got {num_players}"
            )
        merged = dict(self.option_defaults)
        merged.update(options)
        return self._pack_params(int(num_players), merged)

    def _pack_params(self, num_players: int, options: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def params_to_options(self, params: np.ndarray) -> dict[str, Any]:
        raise NotImplementedError

    # ---- sizes -----------------------------------------------------------------------------
    def num_actions(self, params: np.ndarray) -> int:
        raise NotImplementedError

    def obs_shape(self, params: np.ndarray) -> tuple[int, ...]:
        raise NotImplementedError

    def obs_high(self, params: np.ndarray) -> int:
        """Largest value any observation entry takes (the Box's ``high``)."""
        return 127

    # ---- people ----------------------------------------------------------------------------
    def action_to_string(self, state: np.ndarray, action: int) -> str:
        raise NotImplementedError

    def to_dict(self, state: np.ndarray, player: int | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def render_ansi(self, state: np.ndarray) -> str:
        raise NotImplementedError

    def render_rgb(self, state: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def player_name(self, seat: int) -> str:
        return f"player_{seat}"

    def invariant_errors(self, state: np.ndarray) -> list[str]:
        """Game-specific consistency checks used by the fuzz tests (conservation of pieces...)."""
        return []


def check_int_array(name: str, arr: Any, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Return ``arr`` as a C-contiguous int64 array, or raise a clear error."""
    a = np.asarray(arr)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array, got dtype {a.dtype}")
    if shape is not None and a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {a.shape}")
    return np.ascontiguousarray(a, dtype=np.int64)
