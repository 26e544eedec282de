"""Cultivo rules: small accessors of the state (goods, owners, equipment, fields) and array helpers
the other rule modules share. Part of :mod:`cultivo_env.rules`; the rules as implemented:
``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    BARGE,
    CART,
    EQ_VP,
    EQUIP_LOC,
    FIELDS_PER_VILLAGE,
    GOODS_S,
    LOC_OWNED,
    NUM_COLOURS,
    NUM_TYPES,
    PLACE_WHEAT_ARR,
    SCALES,
    STALL,
)
from gamecore.kernel.jit import jit
from gamecore.kernel.layout import Layout

#: the rows :func:`write_context` fills, in this order, NUM_COLOURS entries each: (name, meaning)
PAY_CONTEXT = (
    ("H", "the payer's goods of colour c"),
    ("SCAL", "1 if the payer owns the scales of colour c"),
    ("STL", "1 if the payer owns the market stall of colour c"),
    ("COWN", "owner of the cart of colour c (-1: nobody)"),
    ("BOWN", "owner of the barge of colour c (-1: nobody)"),
)


def add_pay_context(lay: Layout) -> tuple[int, int, int, int, int]:
    """Allocate in ``lay`` the rows :func:`write_context` fills (:data:`PAY_CONTEXT`, one after the
    other, as it writes them from one offset); their offsets ``(H, SCAL, STL, COWN, BOWN)``."""
    h, scal, stl, cown, bown = (lay.add(name, NUM_COLOURS, f"{meaning} (written by ``write_context``)")
                                for name, meaning in PAY_CONTEXT)
    return h, scal, stl, cown, bown


# =============================================================================================
# Small accessors
# =============================================================================================
@jit
def place_of(f: int) -> int:
    return f // FIELDS_PER_VILLAGE


@jit
def goods(state: np.ndarray, p: int, c: int) -> int:
    return state[GOODS_S + NUM_COLOURS * p + c]


@jit
def owner(state: np.ndarray, e: int) -> int:
    """Seat owning piece ``e``, or -1."""
    loc = state[EQUIP_LOC + e]
    return loc - LOC_OWNED if loc >= LOC_OWNED else -1


@jit
def owns(state: np.ndarray, p: int, kind: int, c: int) -> bool:
    return state[EQUIP_LOC + NUM_COLOURS * kind + c] == LOC_OWNED + p


@jit
def equipment_value(state: np.ndarray, p: int, c: int) -> int:
    """Printed VP of the seat's equipment of colour c."""
    v = 0
    for t in range(NUM_TYPES):
        if owns(state, p, t, c):
            v += EQ_VP[t]
    return v


@jit
def place_wheat(k: int) -> int:
    """Wheat paid before placing the k-th worker (workers 5-6: 1, 7-8: 2, 9: 3, 10: 4)."""
    return PLACE_WHEAT_ARR[k - 1]


@jit
def bit(f: int) -> np.int64:
    return np.int64(1) << np.int64(f)


@jit
def copy_range(dst: np.ndarray, doff: int, src: np.ndarray, soff: int, k: int) -> None:
    """``dst[doff:doff + k] = src[soff:soff + k]`` (a loop: no broadcasting machinery to compile)."""
    for i in range(k):
        dst[doff + i] = src[soff + i]


@jit
def write_context(state: np.ndarray, p: int, out: np.ndarray, off: int) -> None:
    """The payer's goods, own scales and stalls, and the owner of each colour's cart and barge, six
    of each, into ``out[off:off + 30]``."""
    for c in range(NUM_COLOURS):  # the rows of PAY_CONTEXT, in order
        out[off + c] = goods(state, p, c)
        out[off + NUM_COLOURS + c] = 1 if state[EQUIP_LOC + NUM_COLOURS * SCALES + c] == LOC_OWNED + p else 0
        out[off + 2 * NUM_COLOURS + c] = 1 if state[EQUIP_LOC + NUM_COLOURS * STALL + c] == LOC_OWNED + p else 0
        out[off + 3 * NUM_COLOURS + c] = owner(state, NUM_COLOURS * CART + c)
        out[off + 4 * NUM_COLOURS + c] = owner(state, NUM_COLOURS * BARGE + c)


@jit
def pay_context(state: np.ndarray, p: int):
    """The payer's goods, own scales and stalls, and the owner of each colour's cart and barge
    (views of one small array: :func:`write_context`)."""
    ctx = np.empty(5 * NUM_COLOURS, dtype=np.int64)
    write_context(state, p, ctx, 0)
    return ctx[0:6], ctx[6:12], ctx[12:18], ctx[18:24], ctx[24:30]


@jit
def grow(a: np.ndarray, size: int) -> np.ndarray:
    """``a`` copied into an array of at least ``size`` (doubling)."""
    if size <= a.shape[0]:
        return a
    cap = 2 * a.shape[0]
    while cap < size:
        cap *= 2
    b = np.empty(cap, dtype=np.int64)
    copy_range(b, 0, a, 0, a.shape[0])
    return b
