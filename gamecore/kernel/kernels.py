"""Small numba kernels every game's rules module shares."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from gamecore.kernel.header import (
    H_CURRENT,
    H_DECISIONS,
    H_DONE,
    H_NPLAYERS,
    H_OWNER,
    H_PHASE,
    H_TERMINAL,
    MAX_COUNTER,
)
from gamecore.kernel.jit import ijit, jit


@jit
def check_header(state: np.ndarray, n: int, num_phases: int) -> int:
    """``check_state`` for the shared header: 0 if sound, else the first bad slot + 1.

    A running game has a decider and a turn owner among the seats, the decider not done, a phase
    below ``num_phases`` and a decision counter of at most ``MAX_COUNTER`` (where
    :func:`count_decision` stops); a finished game has every seat
    done.
    """
    if state[H_NPLAYERS] != n:
        return H_NPLAYERS + 1
    if state[H_CURRENT] < 0 or state[H_CURRENT] >= n:
        return H_CURRENT + 1
    if state[H_TERMINAL] < 0 or state[H_TERMINAL] > 1:
        return H_TERMINAL + 1
    if state[H_DONE] < 0 or state[H_DONE] >= (1 << n):
        return H_DONE + 1
    if state[H_TERMINAL] == 1 and state[H_DONE] != (1 << n) - 1:
        return H_DONE + 1
    if state[H_TERMINAL] == 0 and (state[H_DONE] >> state[H_CURRENT]) & 1:
        return H_CURRENT + 1
    if state[H_DECISIONS] < 0 or state[H_DECISIONS] > MAX_COUNTER:
        return H_DECISIONS + 1
    if state[H_OWNER] < 0 or state[H_OWNER] >= n:
        return H_OWNER + 1
    if state[H_PHASE] < 0 or state[H_PHASE] >= num_phases:
        return H_PHASE + 1
    return 0


@jit
def count_decision(state: np.ndarray) -> None:
    """One more decision in ``H_DECISIONS``, saturating at :data:`MAX_COUNTER`: a state
    ``check_state`` accepts stays acceptable however long play goes on from it."""
    if state[H_DECISIONS] < MAX_COUNTER:
        state[H_DECISIONS] += 1


@jit
def in_range(v: int, lo: int, hi: int) -> bool:
    """lo <= v <= hi."""
    return lo <= v <= hi


@jit
def clip8(v: int) -> int:
    """``v`` clipped to 0..127, the range of an int8 observation entry."""
    if v > 127:
        return 127
    if v < 0:
        return 0
    return v


@jit
def rel_seat(seat: int, player: int, n: int) -> int:
    """``(seat - player) mod n`` for seats 0..n-1 (where ``seat`` sits relative to ``player``), without
    a division: observations compute it for every seat at every step."""
    r = seat - player
    return r + n if r < 0 else r


def plain_apply_legal(K: ModuleType):
    """The ``apply_legal`` kernel (``gamecore.kernel.protocol``) of a rules module ``K`` whose ``apply``
    computes nothing the mask could reuse: ``K.apply``, then ``K.legal_mask`` of the position
    reached; returns the legal count. Inlined where it is called (``ijit``), so it adds no compiled
    function of its own; such a module sets ``APPLY_LEGAL_FUSED = False``. It closes over the
    module (which numba's cache key pickles by name), not over its kernels."""

    @ijit
    def apply_legal(state: np.ndarray, action: int, mask: np.ndarray) -> int:
        K.apply(state, action)
        return K.legal_mask(state, mask)

    return apply_legal
