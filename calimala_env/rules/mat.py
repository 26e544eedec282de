"""Calimala rules: the mat vector (:func:`fill_mat`), the feasibility of each action
(:func:`can_do`) and the exact search over card plays (:func:`achievable`). Part of
:mod:`calimala_env.rules`; the rules as implemented: ``docs/rules/calimala.md``.

The mat vector (:data:`MAT`, ``V_*``), what the feasibility of one player's actions depends on:

{MAT_TABLE}
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    ARTWORK,
    BRICK,
    BUILD,
    BUILD_HOUSE,
    BUILD_SHIP,
    BUILD_WORKSHOP,
    CLOTH,
    CONTRIBUTE,
    FIRST_TRADE,
    HAND,
    HOUSE,
    MARBLE,
    MAX_SHIPS,
    MAX_WORKSHOPS,
    NUM_BUILDINGS,
    NUM_CARDS,
    NUM_CHURCHES,
    NUM_PORTS,
    NUM_RES,
    NUM_TRADE,
    NUM_TYPES,
    RESERVE,
    SHIP,
    SHIPS,
    TRANSPORT,
    WAREHOUSE_CAP,
    WEAVE,
    WH,
    WOOD,
    WORKSHOP_CAP,
    WORKSHOPS,
)
from calimala_env.rules.accessors import P, art_free, church_free, city_free
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.layout import Layout
from gamecore.kernel.scratch import stack_empty

# ---- the mat vector: what the feasibility of one player's actions depends on ---------------------
# (layout :data:`MAT`, the table in the module's docstring)
MAT = Layout("mat vector")
V_HAND = MAT.add("HAND", NUM_TYPES, "``V_HAND + t``: cards of type t in the hand")
V_WH = MAT.add("WH", NUM_RES, "``V_WH + r``: cubes in the warehouse of resource r")
V_RES = MAT.add("RES", 1, "cubes in reserve")
V_CLOTH = MAT.add("CLOTH", MAX_WORKSHOPS, "``V_CLOTH + w``: cloth in workshop w")
V_WS = MAT.add("WS", 1, "workshops built")
V_SHIPS = MAT.add("SHIPS", 1, "ships built")
V_HOUSE = MAT.add("HOUSE", NUM_TRADE, "``V_HOUSE + t``: 1 if the player has a trade house in trade city t")
V_TFREE = MAT.add("TFREE", NUM_TRADE, "``V_TFREE + t``: free delivery slots of trade city t")
V_PFREE = MAT.add("PFREE", 1, f"free delivery slots of the {NUM_PORTS} port cities together")
V_CFREE = MAT.add("CFREE", NUM_RES, f"``V_CFREE + r``: free contribution slots of resource r over the {NUM_CHURCHES} "
                  "churches")
V_AFREE = MAT.add("AFREE", 1, f"free artwork slots over the {NUM_BUILDINGS} buildings")
VLEN = MAT.size

__doc__ = (__doc__ or "").replace("{MAT_TABLE}", MAT.table())

# the card plays the search tries: (card type, parameter); a parameter picks the variant that
# matters for feasibility (build kind / trade city / resource)
MOVE_TYPE = np.array([WOOD, BRICK, MARBLE, WEAVE, SHIP, BUILD, BUILD, BUILD, BUILD, BUILD, ARTWORK,
                      TRANSPORT, TRANSPORT, TRANSPORT, CONTRIBUTE, CONTRIBUTE, CONTRIBUTE], dtype=np.int64)
MOVE_ARG = np.array([0, 1, 2, 0, 0, BUILD_SHIP, BUILD_WORKSHOP, BUILD_HOUSE, BUILD_HOUSE + 1, BUILD_HOUSE + 2, 0,
                     0, 1, 2, 0, 1, 2], dtype=np.int64)
NUM_MOVES = 17
MOVE_TYPE.setflags(write=False)
MOVE_ARG.setflags(write=False)
# NB: constants passed to another kernel are wrapped in np.int64(...): numba compiles a separate
# specialization (with its whole call tree) for every literal argument value
SEARCH_TABLE = 4096  # visited-state hash table of one search (smaller for small hands)
SEARCH_DEPTH = NUM_CARDS + 1  # the search's stack: one mat per card played, a hand holds at most every card
SEARCH_BUDGET = 3000  # at most this many distinct states per search (never reached in our tests)
# HELPS[t]: the actions a card of type t can make possible, by the quantities its action raises
# (Wood / Brick / Marble: that warehouse's cubes; Weave: cloth; Ship / Transport: workshop room;
# Build: warehouse room, reserve, ships, trade houses, workshop room; Artwork: marble room;
# Contribute: warehouse room). An action that is impossible now can become possible only if a card
# in hand raises one of the quantities it needs.
_W, _B, _M, _V, _S, _U, _A, _T, _C = (1 << t for t in range(9))
HELPS = np.array([_U | _C, _U | _C, _A | _C, _S | _T, _V, _W | _B | _M | _V | _S | _T, _M, _V, _W | _B | _M],
                 dtype=np.int64)
HELPS.setflags(write=False)


# =================================================================================================
# the mat vector and the feasibility of each action
# =================================================================================================
@jit
def fill_mat(state: np.ndarray, p: int, v: np.ndarray) -> None:
    """Player p's mat vector (see V_*)."""
    for t in range(NUM_TYPES):
        v[V_HAND + t] = state[HAND + NUM_TYPES * p + t]
    for r in range(NUM_RES):
        v[V_WH + r] = state[WH + NUM_RES * p + r]
    v[V_RES] = state[RESERVE + p]
    for w in range(MAX_WORKSHOPS):
        v[V_CLOTH + w] = state[CLOTH + MAX_WORKSHOPS * p + w]
    v[V_WS] = state[WORKSHOPS + p]
    v[V_SHIPS] = state[SHIPS + p]
    for t in range(NUM_TRADE):
        v[V_HOUSE + t] = state[HOUSE + P * t + p]
        v[V_TFREE + t] = city_free(state, FIRST_TRADE + t)
    pf = 0
    for c in range(NUM_PORTS):
        pf += city_free(state, c)
    v[V_PFREE] = pf
    for r in range(NUM_RES):
        cf = 0
        for b in range(NUM_CHURCHES):
            cf += church_free(state, b, r)
        v[V_CFREE + r] = cf
    af = 0
    for b in range(NUM_BUILDINGS):
        af += art_free(state, b)
    v[V_AFREE] = af


@jit
def copy_row(rows: np.ndarray, m: int, v: np.ndarray) -> None:
    """rows[m] = v (a plain loop: numba's slice assignment compiles much more code)."""
    for i in range(VLEN):
        rows[m, i] = v[i]


@jit
def v_cloth(v: np.ndarray) -> int:
    return v[V_CLOTH] + v[V_CLOTH + 1] + v[V_CLOTH + 2]


@ijit
def v_room(v: np.ndarray) -> bool:
    for w in range(v[V_WS]):
        if v[V_CLOTH + w] < WORKSHOP_CAP:
            return True
    return False


@jit
def can_build(v: np.ndarray, kind: int) -> bool:
    """Build a ship (2 wood), a workshop (1 wood + 1 brick) or a trade house in trade city
    ``kind - BUILD_HOUSE`` where the player has none (2 brick)."""
    if kind == BUILD_SHIP:
        return v[V_SHIPS] < MAX_SHIPS and v[V_WH + WOOD] >= 2
    if kind == BUILD_WORKSHOP:
        return v[V_WS] < MAX_WORKSHOPS and v[V_WH + WOOD] >= 1 and v[V_WH + BRICK] >= 1
    return v[V_HOUSE + kind - BUILD_HOUSE] == 0 and v[V_WH + BRICK] >= 2


@jit
def can_transport_to(v: np.ndarray, t: int) -> bool:
    return v[V_HOUSE + t] == 1 and v[V_TFREE + t] > 0 and v_cloth(v) > 0


@jit
def can_do(v: np.ndarray, t: int) -> bool:
    """Action t can be carried out at least partly (else it gives a card instead).

    Wood / Brick / Marble: the warehouse has room and a cube is in reserve. Weave: a workshop has
    room and a cube is in reserve. Ship: a ship, a cloth and a free port slot. Build: one of the
    three builds is possible. Artwork: a marble and a free artwork slot. Transport: a cloth and an
    own trade house in a city with a free slot. Contribute: a cube whose resource has a free
    church slot."""
    if t <= MARBLE:
        return v[V_WH + t] < WAREHOUSE_CAP and v[V_RES] > 0
    if t == WEAVE:
        return v[V_RES] > 0 and v_room(v)
    if t == SHIP:
        return v[V_SHIPS] > 0 and v_cloth(v) > 0 and v[V_PFREE] > 0
    if t == BUILD:
        for kind in range(BUILD_HOUSE + NUM_TRADE):
            if can_build(v, kind):
                return True
        return False
    if t == ARTWORK:
        return v[V_WH + MARBLE] > 0 and v[V_AFREE] > 0
    if t == TRANSPORT:
        for k in range(NUM_TRADE):
            if can_transport_to(v, k):
                return True
        return False
    for r in range(NUM_RES):
        if v[V_WH + r] > 0 and v[V_CFREE + r] > 0:
            return True
    return False


@ijit
def feasible_bits(v: np.ndarray) -> int:
    """Bit t set for every action t that can be carried out now."""
    f = 0
    for t in range(NUM_TYPES):
        if can_do(v, t):
            f |= 1 << t
    return f


# ---- effects on the mat vector (the same effects as the real actions below) ----------------------
@jit
def v_remove_cloth(v: np.ndarray) -> None:
    """One cloth leaves the fullest workshop (ruling: never worse for the player)."""
    best = 0
    for w in range(1, v[V_WS]):
        if v[V_CLOTH + w] > v[V_CLOTH + best]:
            best = w
    v[V_CLOTH + best] -= 1


@jit
def v_weave(v: np.ndarray) -> None:
    """One cloth into every workshop with room, emptiest first while the reserve lasts."""
    todo = 0
    for w in range(v[V_WS]):
        if v[V_CLOTH + w] < WORKSHOP_CAP:
            todo |= 1 << w
    while todo and v[V_RES] > 0:
        best = -1
        for w in range(v[V_WS]):
            if (todo >> w) & 1 and (best < 0 or v[V_CLOTH + w] < v[V_CLOTH + best]):
                best = w
        v[V_CLOTH + best] += 1
        v[V_RES] -= 1
        todo &= ~(1 << best)


@jit
def v_build(v: np.ndarray, kind: int) -> None:
    if kind == BUILD_SHIP:
        v[V_WH + WOOD] -= 2
        v[V_SHIPS] += 1
    elif kind == BUILD_WORKSHOP:
        v[V_WH + WOOD] -= 1
        v[V_WH + BRICK] -= 1
        v[V_CLOTH + v[V_WS]] = 0
        v[V_WS] += 1
    else:
        v[V_WH + BRICK] -= 2
        v[V_HOUSE + kind - BUILD_HOUSE] = 1
    v[V_RES] += 2


@jit
def move_ok(v: np.ndarray, m: int) -> bool:
    """Search move m (a card play with a variant) is possible: the card is in hand and its action,
    in that variant, can be carried out."""
    t = MOVE_TYPE[m]
    if v[V_HAND + t] == 0:
        return False
    a = MOVE_ARG[m]
    if t == BUILD:
        return can_build(v, a)
    if t == TRANSPORT:
        return can_transport_to(v, a)
    if t == CONTRIBUTE:
        return v[V_WH + a] > 0 and v[V_CFREE + a] > 0
    return can_do(v, t)


@jit
def move_apply(v: np.ndarray, m: int) -> None:
    """Play search move m: one card of its type leaves the hand and its action is carried out
    (Ship / Transport: one cloth; shipping more never makes another action possible)."""
    t = MOVE_TYPE[m]
    a = MOVE_ARG[m]
    v[V_HAND + t] -= 1
    if t <= MARBLE:
        v[V_WH + t] += 1
        v[V_RES] -= 1
    elif t == WEAVE:
        v_weave(v)
    elif t == SHIP:
        v_remove_cloth(v)
        v[V_PFREE] -= 1
    elif t == BUILD:
        v_build(v, a)
    elif t == ARTWORK:
        v[V_WH + MARBLE] -= 1
        v[V_AFREE] -= 1
    elif t == TRANSPORT:
        v_remove_cloth(v)
        v[V_TFREE + a] -= 1
    else:
        v[V_WH + a] -= 1
        v[V_CFREE + a] -= 1


@ijit
def _v_hash(v: np.ndarray) -> np.int64:
    h = np.uint64(0xCBF29CE484222325)
    for i in range(VLEN):
        h = (h ^ np.uint64(v[i] + 1)) * np.uint64(0x100000001B3)
    x = np.int64(h >> np.uint64(1))
    return x if x != 0 else np.int64(1)


@jit
def search_achievable(v0: np.ndarray, goal: int, stop_at_first: int) -> int:
    """Which of the actions in ``goal`` (bits) can be made possible by playing cards from the hand
    (each card only when its own action can be carried out): an exhaustive depth-first search over
    card plays and their choices, visiting each reachable mat once. Returns the bits of ``goal``
    found (with ``stop_at_first``, as soon as one is found)."""
    found = 0
    helpers = 0
    for t in range(NUM_TYPES):
        if (goal >> t) & 1 and can_do(v0, t):
            found |= 1 << t
        if v0[V_HAND + t] > 0:
            helpers |= HELPS[t]
    if found == goal or (stop_at_first and found):
        return found
    # only an action some card in hand can help may become possible
    if (goal & ~found & helpers) == 0:
        return found
    cards = 0
    for t in range(NUM_TYPES):
        cards += v0[V_HAND + t]
    # the table grows with the hand: up to 4 cards the budget exceeds the number of card-play
    # sequences there are (so the search is exhaustive); beyond, far more than we ever saw used
    size = 64 if cards <= 2 else (512 if cards == 3 else SEARCH_TABLE)
    budget = size * 3 // 4 if size < SEARCH_TABLE else SEARCH_BUDGET
    # scratch on the stack (gamecore.kernel.scratch), sized for the largest hand
    stack = stack_empty((SEARCH_DEPTH, VLEN), np.int64)
    nxt = stack_empty(SEARCH_DEPTH, np.int64)
    nxt[0] = 0
    table = stack_empty(SEARCH_TABLE, np.int64)
    table[:size] = 0
    for i in range(VLEN):
        stack[0, i] = v0[i]
    depth = 0
    nodes = 0
    while depth >= 0:
        m = nxt[depth]
        if m >= NUM_MOVES:
            depth -= 1
            continue
        nxt[depth] = m + 1
        cur = stack[depth]
        if not move_ok(cur, m):
            continue
        child = stack[depth + 1]
        for i in range(VLEN):
            child[i] = cur[i]
        move_apply(child, m)
        h = _v_hash(child)
        slot = h & (size - 1)
        seen = False
        while table[slot] != 0:
            if table[slot] == h:
                seen = True
                break
            slot = (slot + 1) & (size - 1)
        if seen:
            continue
        table[slot] = h
        nodes += 1
        for t in range(NUM_TYPES):
            if (goal >> t) & 1 and not (found >> t) & 1 and can_do(child, t):
                found |= 1 << t
        if found == goal or (stop_at_first and found) or nodes >= budget:
            return found
        helpers = 0
        for t in range(NUM_TYPES):
            if child[V_HAND + t] > 0:
                helpers |= HELPS[t]
        if goal & ~found & helpers:  # else no card left can help an action still wanted
            depth += 1
            nxt[depth] = 0
    return found


@jit
def achievable(v: np.ndarray, goal: int) -> bool:
    """Some action in ``goal`` can be carried out, now or after playing cards from the hand."""
    if goal == 0:
        return False
    return search_achievable(v, goal, np.int64(1)) != 0
