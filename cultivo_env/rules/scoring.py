"""Cultivo rules: final scoring (:func:`final_score`) and the kernel interface's ``scores`` and
``rank_keys``. Part of :mod:`cultivo_env.rules`; the rules as implemented: ``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    BUILDING,
    BUILT,
    CASTLE,
    CASTLE_PER_VILLAGE,
    EQ_VP,
    EQUIP_LOC,
    FIELD_COLOUR,
    FIELDS_PER_VILLAGE,
    LOC_OWNED,
    MANOR,
    MANOR_PER_WORKER,
    MILL_PER_WORKER,
    MONASTERY,
    MONASTERY_MAX,
    MONASTERY_PER_WORKER,
    NEIGH,
    NUM_COLOURS,
    NUM_EQUIP,
    NUM_FIELDS,
    NUM_PLACES,
    NUM_TYPES,
    TOWER,
    TOWER_MAX,
    TOWER_PER_BUILDING,
    VP_TILES_S,
    WORKER,
    WORKERS_ON_MAP,
    WORKSHOP,
    WORKSHOP_MAX,
    WORKSHOP_PER_TYPE,
    YELLOW,
)
from cultivo_env.rules.accessors import goods, owns
from gamecore.kernel.header import H_NPLAYERS
from gamecore.kernel.jit import ijit, jit


# =============================================================================================
# Final scoring
# =============================================================================================
@jit
def goods_triples(state: np.ndarray, p: int) -> int:
    """The most disjoint sets of 3 goods of 3 different colours: the largest k with
    sum_c min(goods_c, k) >= 3k."""
    total = 0
    for c in range(NUM_COLOURS):
        total += goods(state, p, c)
    k = total // 3
    while k > 0:
        t = 0
        for c in range(NUM_COLOURS):
            t += min(goods(state, p, c), k)
        if t >= 3 * k:
            return k
        k -= 1
    return 0


@jit
def building_points(state: np.ndarray, p: int, b: int) -> int:
    """Points of the seat's building of type (= colour) b, 0 if not built."""
    n = state[H_NPLAYERS]
    if not (state[BUILT + p] >> b) & 1:
        return 0
    nf = NUM_FIELDS[n]
    if b == MONASTERY:
        return min(MONASTERY_PER_WORKER * state[WORKERS_ON_MAP + p], MONASTERY_MAX)
    if b == WORKSHOP:
        k = 0
        for t in range(NUM_TYPES):
            for c in range(NUM_COLOURS):
                if owns(state, p, t, c):
                    k += 1
                    break
        return min(WORKSHOP_PER_TYPE * k, WORKSHOP_MAX)
    if b == TOWER:
        k = 0
        for c in range(NUM_COLOURS):
            k += (state[BUILT + p] >> c) & 1
        return min(TOWER_PER_BUILDING * k, TOWER_MAX)
    if b == CASTLE:
        k = 0
        for pl in range(NUM_PLACES[n]):
            for i in range(FIELDS_PER_VILLAGE):
                if state[WORKER + FIELDS_PER_VILLAGE * pl + i] == p + 1:
                    k += 1
                    break
        return CASTLE_PER_VILLAGE * k
    if b == MANOR:
        at = -1
        for f in range(nf):
            if state[BUILDING + f] == p + 1 and state[FIELD_COLOUR + f] == MANOR:
                at = f
        k = 1 if state[WORKER + at] == p + 1 else 0
        for d in range(4):
            v = NEIGH[n, at, d]
            if v >= 0 and state[WORKER + v] == p + 1:
                k += 1
        return MANOR_PER_WORKER * k
    # mill
    k = 0
    for f in range(nf):
        if state[WORKER + f] == p + 1 and state[FIELD_COLOUR + f] == YELLOW:
            k += 1
    return MILL_PER_WORKER * k


@ijit
def equipment_points(state: np.ndarray, p: int) -> int:
    v = 0
    for e in range(NUM_EQUIP):
        if state[EQUIP_LOC + e] == LOC_OWNED + p:
            v += EQ_VP[e // NUM_COLOURS]
    return v


@jit
def final_score(state: np.ndarray, p: int) -> int:
    """Goods triples + VP tiles + printed VP of own equipment + the six buildings."""
    total = goods_triples(state, p) + state[VP_TILES_S + p] + equipment_points(state, p)
    for b in range(NUM_COLOURS):
        total += building_points(state, p, b)
    return total


@ijit
def tiebreak_goods(state: np.ndarray, p: int) -> int:
    """Goods left after the goods of the scored triples go back to the supply."""
    total = 0
    for c in range(NUM_COLOURS):
        total += goods(state, p, c)
    return total - 3 * goods_triples(state, p)


@jit
def scores(state: np.ndarray, out: np.ndarray) -> None:
    for p in range(state[H_NPLAYERS]):
        out[p] = float(final_score(state, p))


@jit
def rank_keys(state: np.ndarray, out: np.ndarray) -> None:
    """Most VP first; a tie goes to more goods left after the triples; still tied: shared."""
    for p in range(state[H_NPLAYERS]):
        out[p] = float(final_score(state, p)) * 1e6 + float(min(tiebreak_goods(state, p), 999_999))
