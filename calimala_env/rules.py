"""Calimala rules as numba kernels on the state array (layout, data and action encoding in
:mod:`calimala_env.layout`; the rules as implemented in ``docs/rules/calimala.md``).

A game is a sequence of decisions; ``H_PHASE`` names the kind of the pending one::

    keep (each seat, from the start seat)  ->  start_card (from the seat before the start seat, backwards)
    place  ->  activate  <->  ship / transport / build / artwork / contribute   (per activated disc)
           ->  [promote]  ->  place (next seat) ...

Every rule has a function here named after it: the actions (``gain_resource``, ``weave``,
``ship_cloth``, ``transport_cloth``, ``build_ship``, ``build_workshop``, ``build_house``,
``make_artwork``, ``contribute``), their feasibility (``can_do``), the placing player's duty
(``achievable``: an exact search over card plays), card handling (``draw_card``, ``play_card``,
``reshuffle_discard``), the turn (``place_disc``, ``resolve_action``, ``end_activation``,
``promote_fourth_disc``, ``end_turn``), scoring (``category_value``, ``tie_key``, ``award``,
``score_tile``, ``final_scoring``) and the game end (``end_game``).

Feasibility is computed on a small *mat vector* of the deciding player (hand, warehouses, cloth,
ships, trade houses and the free slots of the board that matter to them): ``fill_mat``. The same
vector drives the direct checks and the card-play search, so the two cannot disagree.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    A_ARTWORK,
    A_BUILD,
    A_CARD,
    A_CONTRIB,
    A_END,
    A_KEEP,
    A_PLACE,
    A_PROMOTE,
    A_RESOLVE,
    A_SHIP,
    A_START,
    A_STOP,
    A_TRANSPORT,
    ACT_I,
    ACT_N,
    ACT_OWNER,
    ACT_TIMES,
    ART,
    ART_SLOTS,
    ART_USED,
    ARTWORK,
    BRICK,
    BUILD,
    BUILD_HOUSE,
    BUILD_SHIP,
    BUILD_WORKSHOP,
    CARD_COUNT,
    CAT_PALAZZO,
    CATEGORY_NAMES,
    CENTRE,
    CENTRE_ACTION,
    CHURCH_SLOTS,
    CITY,
    CITY_SLOTS,
    CITY_USED,
    CLOTH,
    COL_OUT,
    COLOURED,
    CONTRIB,
    CONTRIB_USED,
    CONTRIBUTE,
    COUNCIL,
    COUNCIL_ART,
    COUNCIL_PTS,
    CUBES,
    DEAL_EACH,
    DEAL_OUT,
    DEAL_UP,
    DEALT,
    DECK,
    DECK_N,
    DISC_COLOURED,
    DISC_WHITE,
    DISCARD,
    END_TRIGGERED,
    EXEC_CARD,
    EXEC_KIND,
    EXEC_USED,
    FACE_UP,
    FINAL_PTS,
    FIRST_TRADE,
    HAND,
    HOUSE,
    KEPT,
    KNOWN,
    LAYOUT,
    MARBLE,
    MAX_DEALT,
    MAX_HOUSES,
    MAX_PLAYERS,
    MAX_SHIPS,
    MAX_STACK,
    MAX_WORKSHOPS,
    NEXT_SEAT,
    NUM_ACTIONS,
    NUM_BUILDINGS,
    NUM_CARDS,
    NUM_CELLS,
    NUM_CHURCHES,
    NUM_CITIES,
    NUM_PHASES,
    NUM_PORTS,
    NUM_RES,
    NUM_SCORING_CARDS,
    NUM_SEATS,
    NUM_SPACES,
    NUM_START,
    NUM_TILES,
    NUM_TRADE,
    NUM_TYPES,
    O_ACT,
    O_COUNCIL_ART,
    O_CURRENT,
    O_DECK_N,
    O_DISCARD,
    O_END,
    O_EXEC,
    O_EXEC_CARD,
    O_EXEC_USED,
    O_FACE_UP,
    O_LAYOUT,
    O_MY_DEALT,
    O_MY_HAND,
    O_MY_KEPT,
    O_NEXT_SEAT,
    O_OBLIG,
    O_OWNER,
    O_PENDING,
    O_PHASE,
    O_SEAT_OWNER,
    O_SEATS,
    O_SPACE,
    O_STACK_N,
    O_STACKS,
    O_START,
    O_START_LEFT,
    O_TILES,
    OBLIG,
    OBS_DISC,
    OBS_OFF,
    OBS_SEAT,
    OS_ART,
    OS_CITIES,
    OS_CLOTH,
    OS_COLOURED,
    OS_CONTRIB,
    OS_HAND_COUNT,
    OS_HOUSES,
    OS_KNOWN,
    OS_PLACED,
    OS_RESERVE,
    OS_SEATS,
    OS_SHIPS,
    OS_VP,
    OS_WH,
    OS_WHITE,
    OS_WORKSHOPS,
    OUT_CARD,
    P_LAYOUT,
    P_PLAYERS,
    P_START,
    PENDING,
    PH_ACTIVATE,
    PH_ARTWORK,
    PH_BUILD,
    PH_CONTRIBUTE,
    PH_KEEP,
    PH_PLACE,
    PH_PROMOTE,
    PH_SHIP,
    PH_START,
    PH_TRANSPORT,
    PLACED,
    RESERVE,
    SCORING_CARD_CATEGORY,
    SEAT,
    SEAT_BASE,
    SEAT_EMPTY,
    SEAT_NONE,
    SEATS,
    SETUP_I,
    SHIP,
    SHIPS,
    SPACE,
    STACK,
    STACK_N,
    START,
    START_LEFT,
    START_TYPES,
    STATE_LEN,
    STREET_CELLS,
    TILES,
    TRANSPORT,
    TURNS,
    VP,
    WAREHOUSE_CAP,
    WEAVE,
    WH,
    WHITE,
    WHITE_BASE,
    WHITE_OUT,
    WOOD,
    WORKSHOP_CAP,
    WORKSHOPS,
)
from gamecore.header import H_CURRENT, H_DONE, H_NPLAYERS, H_OWNER, H_PHASE, H_RNG, H_TERMINAL
from gamecore.jit import jit
from gamecore.kernels import check_header, clip8, count_decision
from gamecore.rng import rng_seed, rng_shuffle

STATE_LEN = STATE_LEN  # re-exported: part of the kernel interface
_ = CATEGORY_NAMES  # documented beside the data; kernels use ids only

P = MAX_PLAYERS

# ---- the mat vector: what the feasibility of one player's actions depends on ---------------------
V_HAND = 0  # 9 card counts
V_WH = 9  # 3 warehouse counts
V_RES = 12  # cubes in reserve
V_CLOTH = 13  # 3 workshop cloth counts
V_WS = 16  # workshops built
V_SHIPS = 17  # ships built
V_HOUSE = 18  # 3: own trade house in trade city t
V_TFREE = 21  # 3: free delivery slots of trade city t
V_PFREE = 24  # free delivery slots of the 3 port cities together
V_CFREE = 25  # 3: free contribution slots of resource r over the 3 churches
V_AFREE = 28  # free artwork slots over the 4 buildings
VLEN = 29

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
# small helpers
# =================================================================================================
@jit
def space_type(state: np.ndarray, s: int, k: int) -> int:
    """Action of the k-th cell (0 or 1) of street s."""
    return state[LAYOUT + STREET_CELLS[s, k]]


@jit
def discs_left(state: np.ndarray, p: int) -> int:
    return state[COLOURED + p] + state[WHITE + p]


@jit
def cloth_total(state: np.ndarray, p: int) -> int:
    t = 0
    for w in range(MAX_WORKSHOPS):
        t += state[CLOTH + MAX_WORKSHOPS * p + w]
    return t


@jit
def hand_count(state: np.ndarray, p: int) -> int:
    t = 0
    for k in range(NUM_TYPES):
        t += state[HAND + NUM_TYPES * p + k]
    return t


@jit
def city_free(state: np.ndarray, c: int) -> int:
    return CITY_SLOTS - state[CITY_USED + c]


@jit
def church_free(state: np.ndarray, b: int, r: int) -> int:
    return CHURCH_SLOTS[b, r] - state[CONTRIB_USED + NUM_RES * b + r]


@jit
def art_free(state: np.ndarray, b: int) -> int:
    return ART_SLOTS[b] - state[ART_USED + b]


@jit
def recount_board(state: np.ndarray) -> None:
    """Set the all-players totals of the cities, churches and buildings from the per-player slots."""
    n = state[H_NPLAYERS]
    for c in range(NUM_CITIES):
        t = 0
        for q in range(n):
            t += state[CITY + P * c + q]
        state[CITY_USED + c] = t
    for b in range(NUM_CHURCHES):
        for r in range(NUM_RES):
            t = 0
            for q in range(n):
                t += state[CONTRIB + NUM_RES * P * b + P * r + q]
            state[CONTRIB_USED + NUM_RES * b + r] = t
    for b in range(NUM_BUILDINGS):
        t = 0
        for q in range(n):
            t += state[ART + P * b + q]
        state[ART_USED + b] = t


@jit
def street_bits(state: np.ndarray, s: int) -> int:
    """Bits of the two actions of street s."""
    bits = 0
    for k in range(2):
        bits |= 1 << state[LAYOUT + STREET_CELLS[s, k]]
    return bits


@jit
def pending_goal(state: np.ndarray) -> int:
    """Bit t set for each street action t still pending in the current activation."""
    s = state[SPACE]
    g = 0
    for k in range(2):
        if state[PENDING + k] > 0:
            g |= 1 << space_type(state, s, k)
    return g


@jit
def placer_duty(state: np.ndarray) -> bool:
    """The placing player's activation runs and none of the street's actions is carried out yet."""
    return state[OBLIG] == 1 and state[ACT_I] == 0


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


@jit
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


@jit
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


@jit
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
    stack = np.empty((cards + 1, VLEN), dtype=np.int64)
    nxt = np.zeros(cards + 1, dtype=np.int64)
    table = np.zeros(size, dtype=np.int64)
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


# =================================================================================================
# the actions, on the state
# =================================================================================================
@jit
def gain_resource(state: np.ndarray, p: int, r: int) -> None:
    """Wood / Brick / Marble: one cube from the reserve into that warehouse."""
    state[WH + NUM_RES * p + r] += 1
    state[RESERVE + p] -= 1


@jit
def weave(state: np.ndarray, p: int) -> None:
    """One cloth into every workshop with room (emptiest first while the reserve lasts)."""
    base = CLOTH + MAX_WORKSHOPS * p
    nws = state[WORKSHOPS + p]
    todo = 0
    for w in range(nws):
        if state[base + w] < WORKSHOP_CAP:
            todo |= 1 << w
    while todo and state[RESERVE + p] > 0:
        best = -1
        for w in range(nws):
            if (todo >> w) & 1 and (best < 0 or state[base + w] < state[base + best]):
                best = w
        state[base + best] += 1
        state[RESERVE + p] -= 1
        todo &= ~(1 << best)


@jit
def remove_cloth(state: np.ndarray, p: int) -> None:
    """One cloth leaves p's fullest workshop (ruling)."""
    base = CLOTH + MAX_WORKSHOPS * p
    best = 0
    for w in range(1, state[WORKSHOPS + p]):
        if state[base + w] > state[base + best]:
            best = w
    state[base + best] -= 1


@jit
def ship_cloth(state: np.ndarray, p: int, c: int) -> None:
    """One ship takes one cloth to port city c."""
    remove_cloth(state, p)
    state[CITY + P * c + p] += 1
    state[CITY_USED + c] += 1


@jit
def transport_cloth(state: np.ndarray, p: int, t: int) -> None:
    """One cloth to trade city t, where p has a trade house."""
    remove_cloth(state, p)
    state[CITY + P * (FIRST_TRADE + t) + p] += 1
    state[CITY_USED + FIRST_TRADE + t] += 1


@jit
def build_ship(state: np.ndarray, p: int) -> None:
    state[WH + NUM_RES * p + WOOD] -= 2
    state[RESERVE + p] += 2
    state[SHIPS + p] += 1


@jit
def build_workshop(state: np.ndarray, p: int) -> None:
    state[WH + NUM_RES * p + WOOD] -= 1
    state[WH + NUM_RES * p + BRICK] -= 1
    state[RESERVE + p] += 2
    state[CLOTH + MAX_WORKSHOPS * p + state[WORKSHOPS + p]] = 0
    state[WORKSHOPS + p] += 1


@jit
def build_house(state: np.ndarray, p: int, t: int) -> None:
    state[WH + NUM_RES * p + BRICK] -= 2
    state[RESERVE + p] += 2
    state[HOUSE + P * t + p] = 1


@jit
def make_artwork(state: np.ndarray, p: int, b: int) -> None:
    """One marble to a free artwork slot of building b (the council's slots are filled in order)."""
    state[WH + NUM_RES * p + MARBLE] -= 1
    if b == COUNCIL:
        for i in range(ART_SLOTS[COUNCIL]):
            if state[COUNCIL_ART + i] == 0:
                state[COUNCIL_ART + i] = 1 + p
                break
    state[ART + P * b + p] += 1
    state[ART_USED + b] += 1


@jit
def contribute(state: np.ndarray, p: int, r: int, b: int) -> None:
    state[WH + NUM_RES * p + r] -= 1
    state[CONTRIB + NUM_RES * P * b + P * r + p] += 1
    state[CONTRIB_USED + NUM_RES * b + r] += 1


# =================================================================================================
# action cards
# =================================================================================================
@jit
def reshuffle_discard(state: np.ndarray) -> None:
    """The face-up discard pile becomes the new face-down deck, shuffled."""
    n = state[DECK_N]
    for t in range(NUM_TYPES):
        for _ in range(state[DISCARD + t]):
            state[DECK + n] = t
            n += 1
        state[DISCARD + t] = 0
    state[DECK_N] = n
    rng_shuffle(state, H_RNG, state, np.int64(DECK), DECK + n)


@jit
def draw_card(state: np.ndarray, p: int) -> int:
    """Draw the top card into p's hand; the last card drawn makes the discard pile the new deck at
    once. With deck and discard pile both empty nothing is drawn (ruling). Returns the type or -1."""
    if state[DECK_N] == 0:
        reshuffle_discard(state)
        if state[DECK_N] == 0:
            return -1
    n = state[DECK_N] - 1
    t = state[DECK + n]
    state[DECK + n] = 0
    state[DECK_N] = n
    state[HAND + NUM_TYPES * p + t] += 1
    if n == 0:
        reshuffle_discard(state)
    return t


@jit
def play_card(state: np.ndarray, p: int, t: int) -> None:
    """The card leaves p's hand face up onto the discard pile (a known card first: every seat
    still knows as much of the rest of the hand)."""
    state[HAND + NUM_TYPES * p + t] -= 1
    if state[KNOWN + NUM_TYPES * p + t] > 0:
        state[KNOWN + NUM_TYPES * p + t] -= 1
    state[DISCARD + t] += 1


# =================================================================================================
# scoring
# =================================================================================================
@jit
def category_value(state: np.ndarray, cat: int, p: int) -> int:
    """A city: cloth there; a church: its contributions + artworks; Artwork: artworks on all 4
    buildings; Port / Trade cities: cloth in those 3 cities; Contributed wood / brick / marble:
    those cubes in the 3 churches; Palazzo Vecchio (final card): seats + council artworks."""
    if cat < NUM_CITIES:
        return state[CITY + P * cat + p]
    if cat < NUM_CITIES + NUM_CHURCHES:
        b = cat - NUM_CITIES
        v = state[ART + P * b + p]
        for r in range(NUM_RES):
            v += state[CONTRIB + NUM_RES * P * b + P * r + p]
        return v
    if cat == NUM_CITIES + NUM_CHURCHES:
        v = 0
        for b in range(NUM_BUILDINGS):
            v += state[ART + P * b + p]
        return v
    if cat == NUM_CITIES + NUM_CHURCHES + 1 or cat == NUM_CITIES + NUM_CHURCHES + 2:
        first = 0 if cat == NUM_CITIES + NUM_CHURCHES + 1 else FIRST_TRADE
        v = 0
        for c in range(first, first + 3):
            v += state[CITY + P * c + p]
        return v
    if cat == CAT_PALAZZO:
        return state[SEATS + p] + state[ART + P * COUNCIL + p]
    r = cat - (NUM_CITIES + NUM_CHURCHES + 3)
    v = 0
    for b in range(NUM_CHURCHES):
        v += state[CONTRIB + NUM_RES * P * b + P * r + p]
    return v


@jit
def tie_key(state: np.ndarray, value: int, p: int) -> int:
    """A player's place in a scoring: higher value first; a tie goes to more (seats + council
    artworks), then more seats, then who reached that seat count first (the earlier seat), then,
    without seats, who made the first council artwork first. Equal keys share."""
    seats = state[SEATS + p]
    art = state[ART + P * COUNCIL + p]
    k4 = 0
    if seats > 0:
        count = 0
        for k in range(NUM_SEATS):
            if state[SEAT + k] == SEAT_BASE + p:
                count += 1
                if count == seats:
                    k4 = NUM_SEATS - k
                    break
    elif art > 0:
        for i in range(ART_SLOTS[COUNCIL]):
            if state[COUNCIL_ART + i] == 1 + p:
                k4 = ART_SLOTS[COUNCIL] - i
                break
    return ((value * 32 + seats + art) * 16 + seats) * 16 + k4


@jit
def award(state: np.ndarray, cat: int, points: np.ndarray) -> None:
    """Score one category: points[0..2] to the three best players with a non-zero value; tied
    players share the points of the places they occupy, each rounded down."""
    n = state[H_NPLAYERS]
    keys = np.zeros(MAX_PLAYERS, dtype=np.int64)
    order = np.zeros(MAX_PLAYERS, dtype=np.int64)
    m = 0
    for p in range(n):
        v = category_value(state, cat, p)
        if v > 0:
            keys[p] = tie_key(state, v, p)
            order[m] = p
            m += 1
    for i in range(1, m):  # insertion sort, best first
        j = i
        while j > 0 and keys[order[j]] > keys[order[j - 1]]:
            t = order[j]
            order[j] = order[j - 1]
            order[j - 1] = t
            j -= 1
    pos = 0
    while pos < m and pos < 3:
        g = 1
        while pos + g < m and keys[order[pos + g]] == keys[order[pos]]:
            g += 1
        total = 0
        for k in range(pos, pos + g):
            if k < 3:
                total += points[k]
        share = total // g
        for k in range(pos, pos + g):
            state[VP + order[k]] += share
        pos += g


@jit
def score_tile(state: np.ndarray, who: int) -> None:
    """Fill the next council seat (``who`` = -1: it stays empty) and score its tile (3/2/1). Once
    all 15 tiles are scored the end is triggered."""
    k = state[NEXT_SEAT]
    if who >= 0:
        state[SEAT + k] = SEAT_BASE + who
        state[SEATS + who] += 1
    else:
        state[SEAT + k] = SEAT_EMPTY
    award(state, state[TILES + k], COUNCIL_PTS)
    state[NEXT_SEAT] = k + 1
    if k + 1 == NUM_SEATS:
        state[END_TRIGGERED] = 1


@jit
def final_scoring(state: np.ndarray) -> None:
    """Each player's kept scoring card and the face-up card score 5/3/1 (same tie rules)."""
    n = state[H_NPLAYERS]
    cards = np.empty(MAX_PLAYERS + 1, dtype=np.int64)
    for i in range(MAX_PLAYERS + 1):
        cards[i] = -1
    for p in range(n):
        j = state[KEPT + p] - 1
        if j >= 0:
            cards[p] = state[DEALT + MAX_DEALT * p + j] - 1
    cards[MAX_PLAYERS] = state[FACE_UP] - 1
    for i in range(MAX_PLAYERS + 1):
        if cards[i] >= 0:
            award(state, SCORING_CARD_CATEGORY[cards[i]], FINAL_PTS)


@jit
def end_game(state: np.ndarray) -> None:
    """Tiles still unscored are scored in order without seats; then the final cards."""
    while state[NEXT_SEAT] < NUM_SEATS:
        score_tile(state, np.int64(-1))
    final_scoring(state)
    n = state[H_NPLAYERS]
    state[H_TERMINAL] = 1
    state[H_DONE] = (1 << n) - 1
    state[H_CURRENT] = 0
    state[H_OWNER] = 0
    state[H_PHASE] = PH_PLACE
    clear_turn(state)


# =================================================================================================
# the turn
# =================================================================================================
@jit
def clear_turn(state: np.ndarray) -> None:
    state[SPACE] = 0
    state[ACT_N] = 0
    state[ACT_I] = 0
    for i in range(3):
        state[ACT_OWNER + i] = 0
        state[ACT_TIMES + i] = 0
    state[PENDING] = 0
    state[PENDING + 1] = 0
    state[OBLIG] = 0
    state[EXEC_KIND] = 0
    state[EXEC_CARD] = 0
    state[EXEC_USED] = 0


@jit
def start_activation(state: np.ndarray, i: int) -> None:
    """Disc i of the activation list acts: each of the street's two actions ACT_TIMES times."""
    state[ACT_I] = i
    state[PENDING] = state[ACT_TIMES + i]
    state[PENDING + 1] = state[ACT_TIMES + i]
    state[OBLIG] = 1 if i == 0 else 0
    state[H_CURRENT] = state[ACT_OWNER + i]
    state[H_PHASE] = PH_ACTIVATE


@jit
def place_disc(state: np.ndarray, s: int, white: int) -> None:
    """Put an own disc on top of street s; the top disc (twice each action if white) and the 2nd
    and 3rd discs from the top, if coloured, will be activated in that order."""
    p = state[H_OWNER]
    h = state[STACK_N + s]
    if white:
        state[WHITE + p] -= 1
        state[STACK + MAX_STACK * s + h] = WHITE_BASE + p
    else:
        state[COLOURED + p] -= 1
        state[STACK + MAX_STACK * s + h] = 1 + p
    state[STACK_N + s] = h + 1
    state[PLACED + p] += 1
    state[SPACE] = s
    state[ACT_OWNER] = p
    state[ACT_TIMES] = 2 if white else 1
    k = 1
    for d in range(1, 3):
        i = h - d
        if i < 0:
            break
        disc = state[STACK + MAX_STACK * s + i]
        if disc < WHITE_BASE:
            state[ACT_OWNER + k] = disc - 1
            state[ACT_TIMES + k] = 1
            k += 1
    state[ACT_N] = k
    start_activation(state, np.int64(0))


@jit
def do_simple(state: np.ndarray, p: int, t: int) -> bool:
    """Carry out an action without choices (Wood, Brick, Marble, Weave); False for the others."""
    if t <= MARBLE:
        gain_resource(state, p, t)
        return True
    if t == WEAVE:
        weave(state, p)
        return True
    return False


@jit
def begin_exec(state: np.ndarray, t: int) -> None:
    """An action with choices starts: its own decisions follow (EXEC_CARD says where it comes from)."""
    state[EXEC_KIND] = t
    state[EXEC_USED] = 0
    if t == SHIP:
        state[H_PHASE] = PH_SHIP
    elif t == TRANSPORT:
        state[H_PHASE] = PH_TRANSPORT
    elif t == BUILD:
        state[H_PHASE] = PH_BUILD
    elif t == ARTWORK:
        state[H_PHASE] = PH_ARTWORK
    else:
        state[H_PHASE] = PH_CONTRIBUTE


@jit
def end_exec(state: np.ndarray) -> None:
    state[EXEC_KIND] = 0
    state[EXEC_CARD] = 0
    state[EXEC_USED] = 0
    state[H_PHASE] = PH_ACTIVATE


@jit
def resolve_action(state: np.ndarray, t: int) -> None:
    """Take one pending street action t: carry it out if it can be carried out at least partly (the
    placing player's duty is then done), else draw its card at once (it may be played now)."""
    p = state[H_CURRENT]
    s = state[SPACE]
    for k in range(2):
        if space_type(state, s, k) == t:
            state[PENDING + k] -= 1
            break
    v = np.empty(VLEN, dtype=np.int64)
    fill_mat(state, p, v)
    if can_do(v, t):
        if state[ACT_I] == 0:
            state[OBLIG] = 0
        if not do_simple(state, p, t):
            state[EXEC_CARD] = 0
            begin_exec(state, t)
    else:
        draw_card(state, p)


@jit
def play_action_card(state: np.ndarray, t: int) -> None:
    """Play a card of type t: its action is carried out once."""
    p = state[H_CURRENT]
    play_card(state, p, t)
    if not do_simple(state, p, t):
        state[EXEC_CARD] = 1
        begin_exec(state, t)


@jit
def end_activation(state: np.ndarray) -> bool:
    """Every pending action is resolved: one that could be carried out is skipped (no card), one
    that cannot gives 1 card per time it was pending. Then the next activated disc acts; returns
    True when the turn's activations are over (the fourth disc comes next)."""
    p = state[H_CURRENT]
    s = state[SPACE]
    v = np.empty(VLEN, dtype=np.int64)
    fill_mat(state, p, v)
    draws = 0
    for k in range(2):
        if state[PENDING + k] > 0 and not can_do(v, space_type(state, s, k)):
            draws += state[PENDING + k]
        state[PENDING + k] = 0
    for _ in range(draws):
        draw_card(state, p)
    if state[ACT_I] + 1 < state[ACT_N]:
        start_activation(state, state[ACT_I] + 1)
        return False
    state[OBLIG] = 0
    state[H_CURRENT] = state[H_OWNER]
    return True


@jit
def remove_from_stack(state: np.ndarray, s: int, i: int) -> int:
    """Take the i-th disc (from the bottom) out of street s; the discs above move down."""
    base = STACK + MAX_STACK * s
    h = state[STACK_N + s]
    disc = state[base + i]
    for j in range(i, h - 1):
        state[base + j] = state[base + j + 1]
    state[base + h - 1] = 0
    state[STACK_N + s] = h - 1
    return disc


@jit
def own_disc_elsewhere(state: np.ndarray, p: int, s: int, d: int) -> bool:
    """The disc d-th from the top of street s is a coloured disc of p (and s is not this turn's)."""
    if s == state[SPACE]:
        return False
    h = state[STACK_N + s]
    if d >= h:
        return False
    return state[STACK + MAX_STACK * s + h - 1 - d] == 1 + p


@jit
def promote_option(state: np.ndarray, p: int, s: int, d: int) -> bool:
    """Moving that disc is a choice of its own: it is p's coloured disc on another street and the
    disc right above it is not also p's (taking either of two such discs leaves the same stack)."""
    if not own_disc_elsewhere(state, p, s, d):
        return False
    return d == 0 or not own_disc_elsewhere(state, p, s, d - 1)


@jit
def promote_fourth_disc(state: np.ndarray) -> None:
    """After the activations: a 4-disc stack loses its bottom disc (never activated). It goes to the
    next council seat, whose tile is scored; after the end was triggered it leaves the game
    instead. A white 4th disc: the placing player puts an own coloured disc from reserve on the seat
    and takes the white one; without one in reserve, an own coloured disc from another street (a
    decision, ``promote`` phase: the choice waits in EXEC_USED as 1 + 3 street + depth) goes to the
    seat and the white disc on top of that street; without that either, the seat stays empty and
    the white disc leaves the game (ruling). Then the turn ends."""
    s = state[SPACE]
    if state[STACK_N + s] == MAX_STACK:
        disc = state[STACK + MAX_STACK * s]
        p = state[H_OWNER]
        choice = state[EXEC_USED] - 1 if state[H_PHASE] == PH_PROMOTE else -1
        if choice < 0 and not state[END_TRIGGERED] and disc >= WHITE_BASE and state[COLOURED + p] == 0:
            for s2 in range(NUM_SPACES):
                for d in range(3):
                    if promote_option(state, p, s2, d):
                        state[H_CURRENT] = p
                        state[H_PHASE] = PH_PROMOTE
                        return
        remove_from_stack(state, s, np.int64(0))
        who = -2  # nobody is seated: the end was triggered
        if state[END_TRIGGERED]:
            if disc >= WHITE_BASE:
                state[WHITE_OUT] += 1
            else:
                state[COL_OUT + disc - 1] += 1
        elif disc < WHITE_BASE:
            who = disc - 1
        elif state[COLOURED + p] > 0:
            state[COLOURED + p] -= 1
            state[WHITE + p] += 1
            who = p
        elif choice >= 0:
            s2 = choice // 3
            h = state[STACK_N + s2]
            remove_from_stack(state, s2, h - 1 - choice % 3)
            state[STACK + MAX_STACK * s2 + h - 1] = WHITE_BASE + p
            state[STACK_N + s2] = h
            who = p
        else:
            state[WHITE_OUT] += 1
            who = -1
        if who >= -1:
            score_tile(state, who)
    end_turn(state)


@jit
def end_turn(state: np.ndarray) -> None:
    """Pass the turn clockwise to the next seat with a disc in reserve. The game ends when nobody
    has a disc left, or, once all tiles are scored, when the round is complete (the start seat
    would be next)."""
    n = state[H_NPLAYERS]
    o = state[H_OWNER]
    state[TURNS] += 1
    clear_turn(state)
    nxt = -1
    for j in range(1, n + 1):
        q = (o + j) % n
        if q == state[START] and state[END_TRIGGERED]:
            break
        if discs_left(state, q) > 0:
            nxt = q
            break
    if nxt < 0:
        end_game(state)
        return
    state[H_OWNER] = nxt
    state[H_CURRENT] = nxt
    state[H_PHASE] = PH_PLACE


# =================================================================================================
# setup
# =================================================================================================
@jit
def init(state: np.ndarray, params: np.ndarray, seed: np.int64) -> None:
    for i in range(STATE_LEN):
        state[i] = 0
    n = params[P_PLAYERS]
    rng_seed(state, H_RNG, seed)
    state[H_NPLAYERS] = n
    start = params[P_START]
    state[START] = start
    # action tiles: the 8 outer cells get the 8 tiles at random (or the layout given)
    if params[P_LAYOUT] < 0:
        tiles = np.empty(NUM_CELLS - 1, dtype=np.int64)
        k = 0
        for t in range(NUM_TYPES):
            if t != CENTRE_ACTION:
                tiles[k] = t
                k += 1
        rng_shuffle(state, H_RNG, tiles, np.int64(0), np.int64(NUM_CELLS - 1))
        k = 0
        for c in range(NUM_CELLS):
            if c == CENTRE:
                state[LAYOUT + c] = CENTRE_ACTION
            else:
                state[LAYOUT + c] = tiles[k]
                k += 1
    else:
        for c in range(NUM_CELLS):
            state[LAYOUT + c] = params[P_LAYOUT + c]
    # scoring tiles shuffled onto the council seats
    for k in range(NUM_SEATS):
        state[TILES + k] = k
    rng_shuffle(state, H_RNG, state, np.int64(TILES), np.int64(TILES + NUM_SEATS))
    # players
    for p in range(n):
        state[RESERVE + p] = CUBES
        state[WORKSHOPS + p] = 1
        state[COLOURED + p] = DISC_COLOURED[n]
        state[WHITE + p] = DISC_WHITE[n]
    # scoring cards: dealt, one face up (3 and 4 players), one out unseen (4 players)
    cards = np.empty(NUM_SCORING_CARDS, dtype=np.int64)
    for c in range(NUM_SCORING_CARDS):
        cards[c] = c
    rng_shuffle(state, H_RNG, cards, np.int64(0), np.int64(NUM_SCORING_CARDS))
    k = 0
    for p in range(n):
        for j in range(DEAL_EACH[n]):
            state[DEALT + MAX_DEALT * p + j] = 1 + cards[k]
            k += 1
    if DEAL_UP[n]:
        state[FACE_UP] = 1 + cards[k]
        k += 1
    if DEAL_OUT[n]:
        state[OUT_CARD] = 1 + cards[k]
        k += 1
    # action cards: the 5 start cards lie face up; the other 40 form the deck
    for i in range(NUM_START):
        state[START_LEFT + i] = 1
    k = 0
    for t in range(NUM_TYPES):
        copies = CARD_COUNT[t]
        for i in range(NUM_START):
            if START_TYPES[i] == t:
                copies -= 1
        for _ in range(copies):
            state[DECK + k] = t
            k += 1
    state[DECK_N] = k
    rng_shuffle(state, H_RNG, state, np.int64(DECK), DECK + k)
    state[H_PHASE] = PH_KEEP
    state[H_CURRENT] = start
    state[H_OWNER] = start


@jit
def keep_card(state: np.ndarray, c: int) -> None:
    """The deciding seat keeps dealt scoring card c (secretly); the next seat clockwise chooses.
    After the last, the start cards are taken from the seat before the start seat backwards."""
    n = state[H_NPLAYERS]
    p = state[H_CURRENT]
    for j in range(MAX_DEALT):
        if state[DEALT + MAX_DEALT * p + j] == 1 + c:
            state[KEPT + p] = j + 1
    state[SETUP_I] += 1
    if state[SETUP_I] < n:
        q = (p + 1) % n
    else:
        state[SETUP_I] = 0
        state[H_PHASE] = PH_START
        q = (state[START] + n - 1) % n
    state[H_CURRENT] = q
    state[H_OWNER] = q


@jit
def take_start_card(state: np.ndarray, i: int) -> None:
    """Take start card i face up (every seat knows who holds it). After the last seat the cards not
    taken are shuffled into the deck and the start seat's first turn begins."""
    n = state[H_NPLAYERS]
    p = state[H_CURRENT]
    t = START_TYPES[i]
    state[START_LEFT + i] = 0
    state[HAND + NUM_TYPES * p + t] += 1
    state[KNOWN + NUM_TYPES * p + t] += 1
    state[SETUP_I] += 1
    if state[SETUP_I] < n:
        q = (p + n - 1) % n
        state[H_CURRENT] = q
        state[H_OWNER] = q
        return
    state[SETUP_I] = 0
    k = state[DECK_N]
    for j in range(NUM_START):
        if state[START_LEFT + j]:
            state[START_LEFT + j] = 0
            state[DECK + k] = START_TYPES[j]
            k += 1
    state[DECK_N] = k
    rng_shuffle(state, H_RNG, state, np.int64(DECK), DECK + k)
    state[H_PHASE] = PH_PLACE
    state[H_CURRENT] = state[START]
    state[H_OWNER] = state[START]


# =================================================================================================
# legal decisions
# =================================================================================================
@jit
def _mask_place(state: np.ndarray, mask: np.ndarray, v: np.ndarray) -> int:
    """A disc may go on a street only if the placing player can carry out one of its two actions,
    playing cards first if need be; if no street allows this, on any street."""
    p = state[H_CURRENT]
    f = feasible_bits(v)
    need = np.int64(0)
    for s in range(NUM_SPACES):
        bits = street_bits(state, s)
        if not f & bits:
            need |= bits
    if need:
        f |= search_achievable(v, need, np.int64(0))
    ok = np.zeros(NUM_SPACES, dtype=np.int8)
    anyok = False
    for s in range(NUM_SPACES):
        if f & street_bits(state, s):
            ok[s] = 1
            anyok = True
    count = 0
    for s in range(NUM_SPACES):
        if ok[s] or not anyok:
            if state[COLOURED + p] > 0:
                mask[A_PLACE + 2 * s] = 1
                count += 1
            if state[WHITE + p] > 0:
                mask[A_PLACE + 2 * s + 1] = 1
                count += 1
    return count


@jit
def _duty_checks(rows: np.ndarray, goals: np.ndarray, tags: np.ndarray, m: int, ok: np.ndarray) -> None:
    """ok[tag] = 1 for every candidate row (a mat vector after some decision) from which one of its
    goal actions is still achievable (the one place the mask kernels search)."""
    for i in range(m):
        if ok[tags[i]] == 0 and achievable(rows[i], goals[i]):
            ok[tags[i]] = 1


@jit
def _mask_activate(state: np.ndarray, mask: np.ndarray, v: np.ndarray) -> int:
    """Take a pending street action, play a card whose action can be carried out, or end. While
    the placing player's duty is open and can still be met, only decisions that keep it possible
    are offered, and the activation may not end."""
    s = state[SPACE]
    f = feasible_bits(v)
    goal = pending_goal(state)
    duty = placer_duty(state) and achievable(v, goal)
    count = 0
    rows = np.empty((2 + NUM_MOVES if duty else 0, VLEN), dtype=np.int64)
    goals = np.empty(rows.shape[0], dtype=np.int64)
    tags = np.empty(rows.shape[0], dtype=np.int64)
    ok = np.zeros(NUM_ACTIONS if duty else 0, dtype=np.int8)
    m = 0
    for k in range(2):
        if state[PENDING + k] == 0:
            continue
        t = space_type(state, s, k)
        if duty and not (f >> t) & 1:  # giving up an impossible action: the other must stay possible
            copy_row(rows, m, v)
            goals[m] = goal if state[PENDING + k] > 1 else goal & ~(1 << t)
            tags[m] = A_RESOLVE + t
            m += 1
        else:
            mask[A_RESOLVE + t] = 1
            count += 1
    for mv in range(NUM_MOVES):
        t = MOVE_TYPE[mv]
        if v[V_HAND + t] == 0 or not (f >> t) & 1:
            continue
        if not duty:
            if mask[A_CARD + t] == 0:
                mask[A_CARD + t] = 1
                count += 1
        elif move_ok(v, mv):  # a card is allowed if some way of carrying it out keeps the duty possible
            copy_row(rows, m, v)
            move_apply(rows[m], mv)
            goals[m] = goal
            tags[m] = A_CARD + t
            m += 1
    if duty:
        _duty_checks(rows, goals, tags, np.int64(m), ok)
        for i in range(m):
            a = tags[i]
            if ok[a] and mask[a] == 0:
                mask[a] = 1
                count += 1
    else:
        mask[A_END] = 1
        count += 1
    return count


@jit
def _option_bits(state: np.ndarray, v: np.ndarray, duty: bool, goal: int) -> tuple:
    """(base action, candidate bits, bits of the candidates that keep the placing player's duty
    possible) of the current ship / transport / build / artwork / contribute decision."""
    ph = state[H_PHASE]
    p = state[H_CURRENT]
    cand = 0
    n_rows = 10 if duty else 0
    rows = np.empty((n_rows, VLEN), dtype=np.int64)
    tags = np.empty(n_rows, dtype=np.int64)
    m = 0
    if ph == PH_SHIP or ph == PH_TRANSPORT:
        base = A_SHIP
        if ph == PH_SHIP:
            for c in range(NUM_PORTS):
                if city_free(state, c) > 0:
                    cand |= 1 << (A_SHIP + c - base)
                    if duty:
                        copy_row(rows, m, v)
                        v_remove_cloth(rows[m])
                        rows[m, V_PFREE] -= 1
                        tags[m] = A_SHIP + c - base
                        m += 1
        else:
            for t in range(NUM_TRADE):
                if not (state[EXEC_USED] >> t) & 1 and can_transport_to(v, t):
                    cand |= 1 << (A_TRANSPORT + t - base)
                    if duty:
                        copy_row(rows, m, v)
                        v_remove_cloth(rows[m])
                        rows[m, V_TFREE + t] -= 1
                        tags[m] = A_TRANSPORT + t - base
                        m += 1
        if state[EXEC_USED] > 0:
            cand |= 1 << (A_STOP - base)
            if duty:
                copy_row(rows, m, v)
                tags[m] = A_STOP - base
                m += 1
    elif ph == PH_BUILD:
        base = A_BUILD
        for kind in range(BUILD_HOUSE + NUM_TRADE):
            if can_build(v, kind):
                cand |= 1 << kind
                if duty:
                    copy_row(rows, m, v)
                    v_build(rows[m], kind)
                    tags[m] = kind
                    m += 1
    elif ph == PH_ARTWORK:
        base = A_ARTWORK
        for b in range(NUM_BUILDINGS):
            if art_free(state, b) > 0:
                cand |= 1 << b
                if duty:
                    copy_row(rows, m, v)
                    rows[m, V_WH + MARBLE] -= 1
                    rows[m, V_AFREE] -= 1
                    tags[m] = b
                    m += 1
    else:
        base = A_CONTRIB
        for r in range(NUM_RES):
            if state[WH + NUM_RES * p + r] == 0:
                continue
            for b in range(NUM_CHURCHES):
                if church_free(state, b, r) > 0:
                    cand |= 1 << (NUM_CHURCHES * r + b)
                    if duty:
                        copy_row(rows, m, v)
                        rows[m, V_WH + r] -= 1
                        rows[m, V_CFREE + r] -= 1
                        tags[m] = NUM_CHURCHES * r + b
                        m += 1
    keeps = 0
    if duty:
        goals = np.empty(m, dtype=np.int64)
        for i in range(m):
            goals[i] = goal
        ok = np.zeros(16, dtype=np.int8)
        _duty_checks(rows, goals, tags, np.int64(m), ok)
        for k in range(16):
            if ok[k]:
                keeps |= 1 << k
    return base, cand, keeps


@jit
def _mask_options(state: np.ndarray, mask: np.ndarray, v: np.ndarray) -> int:
    """The choices of a ship / transport / build / artwork / contribute action. While the placing
    player's duty is open (the action comes from a card), only choices after which it can still be
    met, if any can."""
    duty = state[EXEC_CARD] == 1 and placer_duty(state)
    base, cand, keeps = _option_bits(state, v, duty, pending_goal(state) if duty else 0)
    if keeps:
        cand = keeps
    count = 0
    k = 0
    while cand >> k:
        if (cand >> k) & 1:
            mask[base + k] = 1
            count += 1
        k += 1
    return count


@jit
def legal_mask(state: np.ndarray, mask: np.ndarray) -> int:
    for a in range(mask.shape[0]):
        mask[a] = 0
    if state[H_TERMINAL]:
        return 0
    ph = state[H_PHASE]
    p = state[H_CURRENT]
    count = 0
    if ph == PH_KEEP:
        for j in range(MAX_DEALT):
            c = state[DEALT + MAX_DEALT * p + j]
            if c > 0:
                mask[A_KEEP + c - 1] = 1
                count += 1
        return count
    if ph == PH_START:
        for i in range(NUM_START):
            if state[START_LEFT + i]:
                mask[A_START + i] = 1
                count += 1
        return count
    if ph == PH_PROMOTE:
        for s in range(NUM_SPACES):
            for d in range(3):
                if promote_option(state, p, s, d):
                    mask[A_PROMOTE + 3 * s + d] = 1
                    count += 1
        return count
    v = np.empty(VLEN, dtype=np.int64)
    fill_mat(state, p, v)
    if ph == PH_PLACE:
        return _mask_place(state, mask, v)
    if ph == PH_ACTIVATE:
        return _mask_activate(state, mask, v)
    return _mask_options(state, mask, v)


# =================================================================================================
# applying a decision
# =================================================================================================
@jit
def _after_ship(state: np.ndarray, p: int) -> None:
    state[EXEC_USED] += 1
    free = 0
    for c in range(NUM_PORTS):
        free += city_free(state, c)
    if state[EXEC_USED] >= state[SHIPS + p] or cloth_total(state, p) == 0 or free == 0:
        end_exec(state)


@jit
def _after_transport(state: np.ndarray, p: int, t: int) -> None:
    state[EXEC_USED] |= 1 << t
    if cloth_total(state, p) == 0:
        end_exec(state)
        return
    for k in range(NUM_TRADE):
        if not (state[EXEC_USED] >> k) & 1 and state[HOUSE + P * k + p] == 1 \
                and city_free(state, FIRST_TRADE + k) > 0:
            return
    end_exec(state)


@jit
def apply_one(state: np.ndarray, action: int) -> bool:
    """Apply one legal decision of the deciding seat; True when the turn's activations are over
    (or the promotion choice is made): the fourth disc comes next."""
    p = state[H_CURRENT]
    a = action
    if a < A_START:
        keep_card(state, a - A_KEEP)
    elif a < A_PLACE:
        take_start_card(state, a - A_START)
    elif a < A_RESOLVE:
        i = a - A_PLACE
        place_disc(state, i // 2, i % 2)
    elif a < A_CARD:
        resolve_action(state, a - A_RESOLVE)
    elif a < A_END:
        play_action_card(state, a - A_CARD)
    elif a == A_END:
        return end_activation(state)
    elif a < A_TRANSPORT:
        ship_cloth(state, p, a - A_SHIP)
        _after_ship(state, p)
    elif a < A_STOP:
        t = a - A_TRANSPORT
        transport_cloth(state, p, t)
        _after_transport(state, p, t)
    elif a == A_STOP:
        end_exec(state)
    elif a < A_ARTWORK:
        kind = a - A_BUILD
        if kind == BUILD_SHIP:
            build_ship(state, p)
        elif kind == BUILD_WORKSHOP:
            build_workshop(state, p)
        else:
            build_house(state, p, kind - BUILD_HOUSE)
        end_exec(state)
    elif a < A_CONTRIB:
        make_artwork(state, p, a - A_ARTWORK)
        end_exec(state)
    elif a < A_PROMOTE:
        i = a - A_CONTRIB
        contribute(state, p, i // NUM_CHURCHES, i % NUM_CHURCHES)
        end_exec(state)
    else:
        state[EXEC_USED] = 1 + a - A_PROMOTE
        return True
    return False


@jit
def _forced(state: np.ndarray, mask: np.ndarray) -> int:
    """The only legal decision, or -1 if there are several. Cheap for the common case: an
    activation without the placing player's duty has several choices while an action is pending
    (ending is one), and exactly one (ending) when nothing is pending and no card can be played."""
    ph = state[H_PHASE]
    if ph == PH_ACTIVATE and not placer_duty(state):
        if state[PENDING] > 0 or state[PENDING + 1] > 0:
            return -1
        p = state[H_CURRENT]
        v = np.empty(VLEN, dtype=np.int64)
        fill_mat(state, p, v)
        for t in range(NUM_TYPES):
            if v[V_HAND + t] > 0 and can_do(v, t):
                return -1
        return A_END
    if legal_mask(state, mask) != 1:
        return -1
    for a in range(NUM_ACTIONS):
        if mask[a]:
            return a
    return -1


@jit
def apply(state: np.ndarray, action: int) -> None:
    """Apply the decision, then every step that leaves no choice (a decision with exactly one
    legal option, e.g. ending an activation with nothing left to do, or the only build possible),
    up to the next real decision. Placements and scoring-card choices are always asked."""
    count_decision(state)
    mask = np.empty(NUM_ACTIONS, dtype=np.int8)
    a = action
    for _ in range(10_000):
        if apply_one(state, a):
            promote_fourth_disc(state)
        if state[H_TERMINAL] or state[H_PHASE] == PH_PLACE or state[H_PHASE] == PH_KEEP:
            return
        a = _forced(state, mask)
        if a < 0:
            return


# =================================================================================================
# results
# =================================================================================================
@jit
def scores(state: np.ndarray, out: np.ndarray) -> None:
    """Victory points."""
    for p in range(state[H_NPLAYERS]):
        out[p] = float(state[VP + p])


@jit
def rank_keys(state: np.ndarray, out: np.ndarray) -> None:
    """Most VP first; a tie goes to more (seats + council artworks); still tied: shared."""
    for p in range(state[H_NPLAYERS]):
        out[p] = float(state[VP + p] * 32 + state[SEATS + p] + state[ART + P * COUNCIL + p])


# =================================================================================================
# observation
# =================================================================================================
@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    """Seat ``player``'s view, laid out as ``layout.OBS``: seat blocks (the observer first), the
    observer's own hand and scoring cards, then the public board and the turn. Other seats' hands
    appear only as counts and publicly known cards; no kept card, deck order or generator."""
    n = state[H_NPLAYERS]
    off = OBS_OFF[n]
    for i in range(out.shape[0]):
        out[i] = 0
    for q in range(n):
        rel = (q - player + n) % n
        b = off[O_SEATS] + OBS_SEAT * rel
        for r in range(NUM_RES):
            out[b + OS_WH + r] = state[WH + NUM_RES * q + r]
        for w in range(MAX_WORKSHOPS):
            out[b + OS_CLOTH + w] = state[CLOTH + MAX_WORKSHOPS * q + w]
        out[b + OS_WORKSHOPS] = state[WORKSHOPS + q]
        out[b + OS_SHIPS] = state[SHIPS + q]
        for t in range(NUM_TRADE):
            out[b + OS_HOUSES + t] = state[HOUSE + P * t + q]
        out[b + OS_RESERVE] = state[RESERVE + q]
        out[b + OS_COLOURED] = state[COLOURED + q]
        out[b + OS_WHITE] = state[WHITE + q]
        out[b + OS_PLACED] = state[PLACED + q]
        out[b + OS_HAND_COUNT] = clip8(hand_count(state, q))
        for t in range(NUM_TYPES):
            out[b + OS_KNOWN + t] = state[KNOWN + NUM_TYPES * q + t]
        out[b + OS_VP] = clip8(state[VP + q])
        out[b + OS_SEATS] = state[SEATS + q]
        for c in range(NUM_CITIES):
            out[b + OS_CITIES + c] = state[CITY + P * c + q]
        for ch in range(NUM_CHURCHES):
            for r in range(NUM_RES):
                out[b + OS_CONTRIB + NUM_RES * ch + r] = state[CONTRIB + NUM_RES * P * ch + P * r + q]
        for bb in range(NUM_BUILDINGS):
            out[b + OS_ART + bb] = state[ART + P * bb + q]
    for t in range(NUM_TYPES):
        out[off[O_MY_HAND] + t] = state[HAND + NUM_TYPES * player + t]
    for j in range(MAX_DEALT):
        c = state[DEALT + MAX_DEALT * player + j]
        if c > 0:
            out[off[O_MY_DEALT] + c - 1] = 1
    if state[KEPT + player] > 0:
        out[off[O_MY_KEPT] + state[DEALT + MAX_DEALT * player + state[KEPT + player] - 1] - 1] = 1
    if state[FACE_UP] > 0:
        out[off[O_FACE_UP] + state[FACE_UP] - 1] = 1
    for c in range(NUM_CELLS):
        out[off[O_LAYOUT] + NUM_TYPES * c + state[LAYOUT + c]] = 1
    for s in range(NUM_SPACES):
        out[off[O_STACK_N] + s] = state[STACK_N + s]
        for i in range(state[STACK_N + s]):
            d = state[STACK + MAX_STACK * s + i]
            b = off[O_STACKS] + MAX_STACK * OBS_DISC * s + OBS_DISC * i
            out[b] = 1
            if d >= WHITE_BASE:
                out[b + 1] = 1
                owner = d - WHITE_BASE
            else:
                owner = d - 1
            out[b + 2 + (owner - player + n) % n] = 1
    for k in range(NUM_SEATS):
        out[off[O_TILES] + NUM_TILES * k + state[TILES + k]] = 1
        sv = state[SEAT + k]
        if sv == SEAT_EMPTY:
            out[off[O_SEAT_OWNER] + (1 + n) * k] = 1
        elif sv >= SEAT_BASE:
            out[off[O_SEAT_OWNER] + (1 + n) * k + 1 + (sv - SEAT_BASE - player + n) % n] = 1
    out[off[O_NEXT_SEAT] + state[NEXT_SEAT]] = 1
    for i in range(ART_SLOTS[COUNCIL]):
        o = state[COUNCIL_ART + i]
        if o > 0:
            out[off[O_COUNCIL_ART] + n * i + (o - 1 - player + n) % n] = 1
    for t in range(NUM_TYPES):
        out[off[O_DISCARD] + t] = state[DISCARD + t]
    out[off[O_DECK_N]] = state[DECK_N]
    for i in range(NUM_START):
        out[off[O_START_LEFT] + i] = state[START_LEFT + i]
    out[off[O_START] + (state[START] - player + n) % n] = 1
    out[off[O_END]] = state[END_TRIGGERED]
    if state[H_TERMINAL]:
        return
    out[off[O_PHASE] + state[H_PHASE]] = 1
    out[off[O_OWNER] + (state[H_OWNER] - player + n) % n] = 1
    out[off[O_CURRENT] + (state[H_CURRENT] - player + n) % n] = 1
    if state[ACT_N] > 0:
        s = state[SPACE]
        out[off[O_SPACE] + s] = 1
        for k in range(2):
            out[off[O_PENDING] + space_type(state, s, k)] = state[PENDING + k]
        for i in range(state[ACT_N]):
            if i == state[ACT_I]:
                out[off[O_ACT] + (1 + n) * i] = 1
            out[off[O_ACT] + (1 + n) * i + 1 + (state[ACT_OWNER + i] - player + n) % n] = 1
        out[off[O_OBLIG]] = state[OBLIG]
        ph = state[H_PHASE]
        if ph >= PH_SHIP and ph <= PH_CONTRIBUTE:
            out[off[O_EXEC] + state[EXEC_KIND]] = 1
            out[off[O_EXEC_CARD]] = state[EXEC_CARD]
            if ph == PH_SHIP:
                for i in range(state[EXEC_USED]):
                    out[off[O_EXEC_USED] + i] = 1
            elif ph == PH_TRANSPORT:
                for t in range(NUM_TRADE):
                    out[off[O_EXEC_USED] + t] = (state[EXEC_USED] >> t) & 1


# =================================================================================================
# resampling what a seat cannot see
# =================================================================================================
@jit
def _duty_holder(state: np.ndarray) -> int:
    """The seat whose open duty depends on its hand (the placing player mid-activation), or -1."""
    if state[H_TERMINAL] or not placer_duty(state):
        return -1
    ph = state[H_PHASE]
    if ph == PH_ACTIVATE or (ph >= PH_SHIP and ph <= PH_CONTRIBUTE and state[EXEC_CARD] == 1):
        return state[H_CURRENT]
    return -1


@jit
def _duty_met(state: np.ndarray, p: int) -> bool:
    v = np.empty(VLEN, dtype=np.int64)
    fill_mat(state, p, v)
    return achievable(v, pending_goal(state))


@jit
def resample(state: np.ndarray, player: int, seed: np.int64) -> None:
    """Redeal what ``player`` cannot see, uniformly among the deals that agree with its view: the
    other seats' scoring cards with the card put back unseen (not the kept ones once the game is
    over: they are public then); the deck with the other seats' hand cards that are not publicly
    known (each hand keeps its size and its known cards). If the
    placing player (another seat) still owes an action, its placement says its hand makes one
    possible, so only such deals are taken (rejection sampling; after 200 misses the first such
    hand in a fixed order). The redeal depends only on what ``player`` sees and on the seed. Then
    the generator is reseeded."""
    rng_seed(state, H_RNG, seed)
    n = state[H_NPLAYERS]
    # scoring cards
    # (the kept ones are public once the game is over: they stay)
    over = state[H_TERMINAL] != 0
    pool = np.empty(NUM_SCORING_CARDS, dtype=np.int64)
    m = 0
    for p in range(n):
        if p == player:
            continue
        for j in range(MAX_DEALT):
            if state[DEALT + MAX_DEALT * p + j] > 0 and not (over and j == state[KEPT + p] - 1):
                pool[m] = state[DEALT + MAX_DEALT * p + j]
                m += 1
    if state[OUT_CARD] > 0:
        pool[m] = state[OUT_CARD]
        m += 1
    pool[:m] = np.sort(pool[:m])  # canonical: the state's order is hidden from the seat
    rng_shuffle(state, H_RNG, pool, np.int64(0), m)
    m = 0
    for p in range(n):
        if p == player:
            continue
        for j in range(MAX_DEALT):
            if state[DEALT + MAX_DEALT * p + j] > 0 and not (over and j == state[KEPT + p] - 1):
                state[DEALT + MAX_DEALT * p + j] = pool[m]
                m += 1
    if state[OUT_CARD] > 0:
        state[OUT_CARD] = pool[m]
    # action cards
    cards = np.empty(NUM_CARDS, dtype=np.int64)
    orig = np.empty(P * NUM_TYPES, dtype=np.int64)
    m = 0
    for i in range(state[DECK_N]):
        cards[m] = state[DECK + i]
        m += 1
    for p in range(n):
        for t in range(NUM_TYPES):
            orig[NUM_TYPES * p + t] = state[HAND + NUM_TYPES * p + t]
        if p == player:
            continue
        for t in range(NUM_TYPES):
            for _ in range(state[HAND + NUM_TYPES * p + t] - state[KNOWN + NUM_TYPES * p + t]):
                cards[m] = t
                m += 1
    # the pool's order is the state's, which the seat may not know: sort it so that the redeal
    # depends only on what the seat sees and on the seed
    cards[:m] = np.sort(cards[:m])
    holder = _duty_holder(state)
    # the placing player (another seat) has an open duty: its placement tells the seat that its hand
    # let it carry out one of the street's actions, so only such hands are dealt to it
    constrained = holder >= 0 and holder != player
    for _attempt in range(200):
        rng_shuffle(state, H_RNG, cards, np.int64(0), m)
        _deal(state, player, cards, m, orig)
        if not constrained or _duty_met(state, holder):
            return
    # such hands are rare here: the first one in a fixed order of the holder's possible hands,
    # the rest shuffled (still a function of the seat's view and the seed only)
    if _deal_first_duty_hand(state, player, holder, cards, m, orig):
        return
    rng_shuffle(state, H_RNG, cards, np.int64(0), m)  # no hand can do it: any deal
    _deal(state, player, cards, m, orig)


@jit
def _unknown_count(state: np.ndarray, orig: np.ndarray, p: int) -> int:
    u = 0
    for t in range(NUM_TYPES):
        u += orig[NUM_TYPES * p + t] - state[KNOWN + NUM_TYPES * p + t]
    return u


@jit
def _deal(state: np.ndarray, player: int, cards: np.ndarray, m: int, orig: np.ndarray) -> None:
    """Give every other seat its known cards plus as many cards from the front of ``cards`` as it
    held unknown ones (``orig``: the hands before the redeal); the rest of ``cards`` is the deck."""
    k = 0
    for p in range(state[H_NPLAYERS]):
        if p == player:
            continue
        unknown = _unknown_count(state, orig, p)
        for t in range(NUM_TYPES):
            state[HAND + NUM_TYPES * p + t] = state[KNOWN + NUM_TYPES * p + t]
        for _ in range(unknown):
            state[HAND + NUM_TYPES * p + cards[k]] += 1
            k += 1
    for i in range(state[DECK_N]):
        state[DECK + i] = cards[k + i]


@jit
def _deal_first_duty_hand(state: np.ndarray, player: int, holder: int, cards: np.ndarray, m: int,
                          orig: np.ndarray) -> bool:
    """Deal the duty holder the first of its possible hands (its known cards plus a multiset of the
    pool, in a fixed order) that lets it carry out an action, the rest of the pool shuffled to the
    others and the deck; False (nothing changed that matters) if no hand can."""
    avail = np.zeros(NUM_TYPES, dtype=np.int64)
    for i in range(m):
        avail[cards[i]] += 1
    u = _unknown_count(state, orig, holder)
    take = np.zeros(NUM_TYPES, dtype=np.int64)
    # odometer over the multisets of size u drawn from avail, first type fullest first
    left = u
    for t in range(NUM_TYPES):
        take[t] = min(avail[t], left)
        left -= take[t]
    if left > 0:
        return False
    while True:
        for t in range(NUM_TYPES):
            state[HAND + NUM_TYPES * holder + t] = state[KNOWN + NUM_TYPES * holder + t] + take[t]
        if _duty_met(state, holder):
            rest = np.empty(m, dtype=np.int64)
            r = 0
            spare = avail - take
            for t in range(NUM_TYPES):
                for _ in range(spare[t]):
                    rest[r] = t
                    r += 1
            rng_shuffle(state, H_RNG, rest, np.int64(0), r)
            k = 0
            for p in range(state[H_NPLAYERS]):
                if p == player or p == holder:
                    continue
                for t in range(NUM_TYPES):
                    state[HAND + NUM_TYPES * p + t] = state[KNOWN + NUM_TYPES * p + t]
                for _ in range(_unknown_count(state, orig, p)):
                    state[HAND + NUM_TYPES * p + rest[k]] += 1
                    k += 1
            for i in range(state[DECK_N]):
                state[DECK + i] = rest[k + i]
            return True
        # next multiset: move one card from the last type that can give one to a later type
        moved = False
        carry = 0
        for t in range(NUM_TYPES - 1, -1, -1):
            if take[t] > 0 and t < NUM_TYPES - 1:
                # can these cards (plus what was carried) be placed in the types after t?
                room = 0
                for q in range(t + 1, NUM_TYPES):
                    room += avail[q]
                if room >= carry + 1:
                    take[t] -= 1
                    left = carry + 1
                    for q in range(t + 1, NUM_TYPES):
                        take[q] = min(avail[q], left)
                        left -= take[q]
                    moved = True
                    break
            carry += take[t]
            take[t] = 0
        if not moved:
            return False


# =================================================================================================
# validation
# =================================================================================================
@jit
def _bad(i: int) -> int:
    return i + 1


@jit
def check_state(state: np.ndarray, params: np.ndarray) -> int:
    """0 if the state is a position of these params that play can continue from, else the index of
    the first bad slot + 1: every slot in range (everything used as an index first), the pieces
    accounted for (cubes, discs, ships, houses, workshops, all 45 action cards and the 10 scoring
    cards) and the turn context consistent with the phase."""
    n = params[P_PLAYERS]
    bad = check_header(state, n, NUM_PHASES)
    if bad:
        return bad
    if state[H_TERMINAL] == 0 and state[H_DONE] != 0:
        return _bad(H_DONE)
    if state[START] != params[P_START]:
        return _bad(START)
    # layout: a permutation of the 9 actions (the given one, if given)
    seen = np.zeros(NUM_TYPES, dtype=np.int64)
    for c in range(NUM_CELLS):
        t = state[LAYOUT + c]
        if t < 0 or t >= NUM_TYPES or seen[t]:
            return _bad(LAYOUT + c)
        if params[P_LAYOUT] >= 0 and t != params[P_LAYOUT + c]:
            return _bad(LAYOUT + c)
        seen[t] = 1
    tiles = np.zeros(NUM_TILES, dtype=np.int64)
    for k in range(NUM_SEATS):
        t = state[TILES + k]
        if t < 0 or t >= NUM_TILES or tiles[t]:
            return _bad(TILES + k)
        tiles[t] = 1
    ns = state[NEXT_SEAT]
    if ns < 0 or ns > NUM_SEATS:
        return _bad(NEXT_SEAT)
    if state[END_TRIGGERED] != (1 if ns == NUM_SEATS else 0):
        return _bad(END_TRIGGERED)
    seats = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for k in range(NUM_SEATS):
        sv = state[SEAT + k]
        if k < ns:
            if sv != SEAT_EMPTY and (sv < SEAT_BASE or sv >= SEAT_BASE + n):
                return _bad(SEAT + k)
            if sv >= SEAT_BASE:
                seats[sv - SEAT_BASE] += 1
        elif sv != SEAT_NONE:
            return _bad(SEAT + k)
    for p in range(MAX_PLAYERS):
        if state[SEATS + p] != seats[p]:
            return _bad(SEATS + p)
    # council artworks in order
    ca = np.zeros(MAX_PLAYERS, dtype=np.int64)
    gap = False
    for i in range(ART_SLOTS[COUNCIL]):
        o = state[COUNCIL_ART + i]
        if o < 0 or o > n or (gap and o != 0):
            return _bad(COUNCIL_ART + i)
        if o == 0:
            gap = True
        else:
            ca[o - 1] += 1
    # per-player pieces
    for p in range(MAX_PLAYERS):
        live = p < n
        for b in range(NUM_BUILDINGS):
            x = state[ART + P * b + p]
            if x < 0 or x > ART_SLOTS[b] or (not live and x != 0):
                return _bad(ART + P * b + p)
        if state[ART + P * COUNCIL + p] != ca[p]:
            return _bad(ART + P * COUNCIL + p)
        for b in range(NUM_CHURCHES):
            for r in range(NUM_RES):
                x = state[CONTRIB + NUM_RES * P * b + P * r + p]
                if x < 0 or x > CHURCH_SLOTS[b, r] or (not live and x != 0):
                    return _bad(CONTRIB + NUM_RES * P * b + P * r + p)
        for c in range(NUM_CITIES):
            x = state[CITY + P * c + p]
            if x < 0 or x > CITY_SLOTS or (not live and x != 0):
                return _bad(CITY + P * c + p)
        houses = 0
        for t in range(NUM_TRADE):
            x = state[HOUSE + P * t + p]
            if x < 0 or x > 1 or (not live and x != 0):
                return _bad(HOUSE + P * t + p)
            houses += x
        for r in range(NUM_RES):
            x = state[WH + NUM_RES * p + r]
            if x < 0 or x > WAREHOUSE_CAP or (not live and x != 0):
                return _bad(WH + NUM_RES * p + r)
        ws = state[WORKSHOPS + p]
        if ws < (1 if live else 0) or ws > (MAX_WORKSHOPS if live else 0):
            return _bad(WORKSHOPS + p)
        for w in range(MAX_WORKSHOPS):
            x = state[CLOTH + MAX_WORKSHOPS * p + w]
            if x < 0 or x > (WORKSHOP_CAP if w < ws else 0):
                return _bad(CLOTH + MAX_WORKSHOPS * p + w)
        x = state[SHIPS + p]
        if x < 0 or x > (MAX_SHIPS if live else 0):
            return _bad(SHIPS + p)
        for slot in (RESERVE, COLOURED, WHITE, PLACED, COL_OUT, VP):
            x = state[slot + p]
            if x < 0 or x > (1000 if live else 0):
                return _bad(slot + p)
        if houses > MAX_HOUSES:
            return _bad(HOUSE + p)
    # city / church / artwork totals and capacity
    for c in range(NUM_CITIES):
        t = 0
        for q in range(n):
            t += state[CITY + P * c + q]
        if state[CITY_USED + c] != t or t > CITY_SLOTS:
            return _bad(CITY_USED + c)
    for b in range(NUM_CHURCHES):
        for r in range(NUM_RES):
            t = 0
            for q in range(n):
                t += state[CONTRIB + NUM_RES * P * b + P * r + q]
            if state[CONTRIB_USED + NUM_RES * b + r] != t or t > CHURCH_SLOTS[b, r]:
                return _bad(CONTRIB_USED + NUM_RES * b + r)
    for b in range(NUM_BUILDINGS):
        t = 0
        for q in range(n):
            t += state[ART + P * b + q]
        if state[ART_USED + b] != t or t > ART_SLOTS[b]:
            return _bad(ART_USED + b)
    # stacks
    col_on = np.zeros(MAX_PLAYERS, dtype=np.int64)
    white_on = 0
    for s in range(NUM_SPACES):
        h = state[STACK_N + s]
        if h < 0 or h > MAX_STACK:
            return _bad(STACK_N + s)
        for i in range(MAX_STACK):
            d = state[STACK + MAX_STACK * s + i]
            if i >= h:
                if d != 0:
                    return _bad(STACK + MAX_STACK * s + i)
                continue
            if d >= 1 and d <= n:
                col_on[d - 1] += 1
            elif d >= WHITE_BASE and d < WHITE_BASE + n:
                white_on += 1
            else:
                return _bad(STACK + MAX_STACK * s + i)
    for s in range(NUM_SPACES):
        if state[STACK_N + s] == MAX_STACK:
            ph = state[H_PHASE]
            if state[H_TERMINAL] or ph < PH_ACTIVATE or ph > PH_PROMOTE or s != state[SPACE]:
                return _bad(STACK_N + s)
    # cubes, discs
    white_total = state[WHITE_OUT] + white_on
    if state[WHITE_OUT] < 0:
        return _bad(WHITE_OUT)
    for p in range(n):
        used = state[RESERVE + p]
        for r in range(NUM_RES):
            used += state[WH + NUM_RES * p + r]
        used += cloth_total(state, p)
        for c in range(NUM_CITIES):
            used += state[CITY + P * c + p]
        for b in range(NUM_CHURCHES):
            for r in range(NUM_RES):
                used += state[CONTRIB + NUM_RES * P * b + P * r + p]
        for b in range(NUM_BUILDINGS):
            used += state[ART + P * b + p]
        if used != CUBES:
            return _bad(RESERVE + p)
        if state[COLOURED + p] + col_on[p] + seats[p] + state[COL_OUT + p] != DISC_COLOURED[n]:
            return _bad(COLOURED + p)
        white_total += state[WHITE + p]
    if white_total != n * DISC_WHITE[n]:
        return _bad(WHITE_OUT)
    # action cards: hands, deck, discard and the start cards on the table make the 45
    cnt = np.zeros(NUM_TYPES, dtype=np.int64)
    dn = state[DECK_N]
    if dn < 0 or dn > NUM_CARDS:
        return _bad(DECK_N)
    for i in range(NUM_CARDS):
        t = state[DECK + i]
        if i >= dn:
            if t != 0:
                return _bad(DECK + i)
            continue
        if t < 0 or t >= NUM_TYPES:
            return _bad(DECK + i)
        cnt[t] += 1
    for t in range(NUM_TYPES):
        x = state[DISCARD + t]
        if x < 0 or x > NUM_CARDS:
            return _bad(DISCARD + t)
        cnt[t] += x
    for p in range(MAX_PLAYERS):
        for t in range(NUM_TYPES):
            h = state[HAND + NUM_TYPES * p + t]
            k = state[KNOWN + NUM_TYPES * p + t]
            if h < 0 or h > NUM_CARDS or (p >= n and h != 0):
                return _bad(HAND + NUM_TYPES * p + t)
            if k < 0 or k > h:
                return _bad(KNOWN + NUM_TYPES * p + t)
            cnt[t] += h
    ph = state[H_PHASE]
    setup = state[H_TERMINAL] == 0 and (ph == PH_KEEP or ph == PH_START)
    for i in range(NUM_START):
        x = state[START_LEFT + i]
        if x < 0 or x > 1 or (x == 1 and not setup):
            return _bad(START_LEFT + i)
        cnt[START_TYPES[i]] += x
    for t in range(NUM_TYPES):
        if cnt[t] != CARD_COUNT[t]:
            return _bad(DISCARD + t)
    # scoring cards
    sc = np.zeros(NUM_SCORING_CARDS, dtype=np.int64)
    for p in range(MAX_PLAYERS):
        for j in range(MAX_DEALT):
            c = state[DEALT + MAX_DEALT * p + j]
            want = p < n and j < DEAL_EACH[n]
            if (want and (c < 1 or c > NUM_SCORING_CARDS)) or (not want and c != 0):
                return _bad(DEALT + MAX_DEALT * p + j)
            if want:
                sc[c - 1] += 1
        kp = state[KEPT + p]
        if kp < 0 or kp > (DEAL_EACH[n] if p < n else 0):
            return _bad(KEPT + p)
    for slot, want in ((FACE_UP, DEAL_UP[n]), (OUT_CARD, DEAL_OUT[n])):
        c = state[slot]
        if (want and (c < 1 or c > NUM_SCORING_CARDS)) or (not want and c != 0):
            return _bad(slot)
        if want:
            sc[c - 1] += 1
    for c in range(NUM_SCORING_CARDS):
        if sc[c] != 1:
            return _bad(DEALT)
    # setup progress and kept cards
    si = state[SETUP_I]
    if si < 0 or si >= n or (si != 0 and not setup):
        return _bad(SETUP_I)
    for p in range(n):
        chosen_by_now = not (state[H_TERMINAL] == 0 and ph == PH_KEEP) or (p - state[START] + n) % n < si
        if (state[KEPT + p] > 0) != chosen_by_now:
            return _bad(KEPT + p)
    # a turn is one placement (the turn in progress has made its own): the counters stay bounded
    # ahead, since a seat places each disc it holds, and a white one again only when it comes
    # back with a scored council seat
    placed = 0
    for p in range(n):
        placed += state[PLACED + p]
        if state[PLACED + p] + state[COLOURED + p] + state[WHITE + p] > \
                DISC_COLOURED[n] + DISC_WHITE[n] + state[NEXT_SEAT]:
            return _bad(PLACED + p)
    in_turn = state[H_TERMINAL] == 0 and ph >= PH_ACTIVATE and ph <= PH_PROMOTE
    if state[TURNS] != placed - (1 if in_turn else 0):
        return _bad(TURNS)
    return _check_turn(state, n)


@jit
def _check_turn(state: np.ndarray, n: int) -> int:
    """The turn context agrees with the phase."""
    ph = state[H_PHASE]
    running = state[H_TERMINAL] == 0
    in_turn = running and ph >= PH_ACTIVATE and ph <= PH_PROMOTE
    if running and ph == PH_KEEP:
        if state[H_CURRENT] != (state[START] + state[SETUP_I]) % n:
            return _bad(H_CURRENT)
    if running and ph == PH_START:
        if state[H_CURRENT] != (state[START] + 2 * n - 1 - state[SETUP_I]) % n:
            return _bad(H_CURRENT)
    if running and (ph == PH_KEEP or ph == PH_START or ph == PH_PLACE or ph == PH_PROMOTE):
        if state[H_OWNER] != state[H_CURRENT]:
            return _bad(H_OWNER)
    if running and ph == PH_PLACE and discs_left(state, state[H_OWNER]) == 0:
        return _bad(H_OWNER)
    if not in_turn:
        for slot in (SPACE, ACT_N, ACT_I, OBLIG, EXEC_KIND, EXEC_CARD, EXEC_USED, PENDING, PENDING + 1):
            if state[slot] != 0:
                return _bad(slot)
        for i in range(3):
            if state[ACT_OWNER + i] != 0 or state[ACT_TIMES + i] != 0:
                return _bad(ACT_OWNER + i)
        return 0
    s = state[SPACE]
    if s < 0 or s >= NUM_SPACES or state[STACK_N + s] < 1:
        return _bad(SPACE)
    an = state[ACT_N]
    if an < 1 or an > 3:
        return _bad(ACT_N)
    ai = state[ACT_I]
    if ai < 0 or ai >= an:
        return _bad(ACT_I)
    for i in range(3):
        o = state[ACT_OWNER + i]
        tm = state[ACT_TIMES + i]
        if i < an:
            if o < 0 or o >= n or tm < 1 or tm > (2 if i == 0 else 1):
                return _bad(ACT_OWNER + i)
        elif o != 0 or tm != 0:
            return _bad(ACT_OWNER + i)
    if state[ACT_OWNER] != state[H_OWNER]:
        return _bad(ACT_OWNER)
    if ph == PH_PROMOTE:
        if state[STACK_N + s] != MAX_STACK or state[STACK + MAX_STACK * s] < WHITE_BASE or state[END_TRIGGERED] \
                or state[COLOURED + state[H_OWNER]] != 0:
            return _bad(H_PHASE)
        for slot in (OBLIG, EXEC_KIND, EXEC_CARD, EXEC_USED, PENDING, PENDING + 1):
            if state[slot] != 0:
                return _bad(slot)
        any_opt = False
        for s2 in range(NUM_SPACES):
            for d in range(3):
                if promote_option(state, state[H_OWNER], s2, d):
                    any_opt = True
        if not any_opt:
            return _bad(H_PHASE)
        return 0
    if state[H_CURRENT] != state[ACT_OWNER + ai]:
        return _bad(H_CURRENT)
    for k in range(2):
        x = state[PENDING + k]
        if x < 0 or x > state[ACT_TIMES + ai]:
            return _bad(PENDING + k)
    ob = state[OBLIG]
    if ob < 0 or ob > 1 or (ai > 0 and ob != 0):
        return _bad(OBLIG)
    if ph == PH_ACTIVATE:
        for slot in (EXEC_KIND, EXEC_CARD, EXEC_USED):
            if state[slot] != 0:
                return _bad(slot)
        return 0
    kind = state[EXEC_KIND]
    want = SHIP if ph == PH_SHIP else (TRANSPORT if ph == PH_TRANSPORT else (
        BUILD if ph == PH_BUILD else (ARTWORK if ph == PH_ARTWORK else CONTRIBUTE)))
    if kind != want:
        return _bad(EXEC_KIND)
    if state[EXEC_CARD] < 0 or state[EXEC_CARD] > 1 or (state[EXEC_CARD] == 0 and ob != 0 and ai == 0):
        return _bad(EXEC_CARD)
    used = state[EXEC_USED]
    p = state[H_CURRENT]
    v = np.empty(VLEN, dtype=np.int64)
    fill_mat(state, p, v)
    if ph == PH_SHIP:
        if used < 0 or used >= state[SHIPS + p] or v_cloth(v) == 0 or v[V_PFREE] == 0:
            return _bad(EXEC_USED)
    elif ph == PH_TRANSPORT:
        if used < 0 or used >= (1 << NUM_TRADE):
            return _bad(EXEC_USED)
        left = False
        for t in range(NUM_TRADE):
            if not (used >> t) & 1 and can_transport_to(v, t):
                left = True
        if not left:
            return _bad(EXEC_USED)
    else:
        if used != 0:
            return _bad(EXEC_USED)
        if not can_do(v, kind):
            return _bad(EXEC_KIND)
    return 0
