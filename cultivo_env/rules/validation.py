"""Cultivo rules: validation of a state (``check_state``). Part of :mod:`cultivo_env.rules`; the
rules as implemented: ``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    ACT,
    ACT_ACQUIRE,
    ACT_BUILD,
    ACT_MOVE,
    ACT_NONE,
    ACT_PLACE,
    ACT_PRODUCE,
    ACTIONS_LEFT,
    AGG,
    AGG_LEN,
    BUILD_FIELD,
    BUILDING,
    BUILDINGS_TOTAL,
    BUILT,
    END_TRIGGERED,
    EQ_COST,
    EQUIP_LOC,
    FIELD_COLOUR,
    FIELDS_PER_VILLAGE,
    FINAL_ROUND,
    GOODS_S,
    LOC_MARKET,
    LOC_OWNED,
    LOC_STACK,
    MARKET,
    MARKET_SLOTS,
    MARKET_W,
    MAX_AMOUNT,
    MAX_FIELDS,
    MAX_OBL,
    MAX_PAY_OUTCOMES,
    MAX_PLACES,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_STACK,
    MOVER,
    NEIGH,
    NUM_COLOURS,
    NUM_EQUIP,
    NUM_FIELDS,
    NUM_PHASES,
    NUM_PLACES,
    NUM_TILES,
    OBL_COLOUR,
    OBL_KIND,
    OBL_N,
    OBL_OCC,
    OBL_WHERE,
    P_MAX_ROUNDS,
    P_PLAYERS,
    P_START,
    PATH,
    PATH_N,
    PATTERN,
    PAY_I,
    PAY_T,
    PAY_TN,
    PH_ACQUIRE,
    PH_ACTION,
    PH_BUILD,
    PH_EXCHANGE,
    PH_MOVE_TARGET,
    PH_MOVE_WORKER,
    PH_ORIGIN,
    PH_PAY,
    PH_PLACE_TARGET,
    PH_PRODUCE,
    PH_REFILL,
    PH_SPLIT,
    PH_STALL,
    PH_START,
    PH_STEP,
    PLACE_FLIP,
    PLACE_TILE,
    REFILL,
    REFILL_CHOICE,
    ROUND,
    SETUP_LEFT,
    SLOT,
    SPLIT,
    STACK,
    STACK_BY_COUNT,
    STACK_N,
    STALL_CHOICE,
    STALL_K,
    START,
    SUPPLY,
    TARGET,
    TURNS,
    VISITED,
    VP_TILE_ARR,
    VP_TILES_S,
    WORKER,
    WORKERS,
    WORKERS_ON_MAP,
)
from cultivo_env.rules.accessors import bit, copy_range, goods, pay_context
from cultivo_env.rules.market import apply_stall_choice, own_stalls, purchase_inits
from cultivo_env.rules.outcomes import amount_trivial, build_obligations, colour_outcomes, travel_counts
from cultivo_env.rules.turn import build_cost, can_build, line_empty
from gamecore.kernel.header import H_CURRENT, H_DONE, H_OWNER, H_PHASE, H_TERMINAL
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.kernels import check_header


# =============================================================================================
# Validation
# =============================================================================================
@jit
def _check_progress(state: np.ndarray, params: np.ndarray, n: int) -> int:
    """The done bits, the decider, the options, the round and turn counters, the setup placements
    left and the end flags."""
    if state[H_TERMINAL] == 0 and state[H_DONE] != 0:
        return H_DONE + 1
    if state[H_OWNER] != state[H_CURRENT]:
        return H_OWNER + 1
    if state[START] != params[P_START]:
        return START + 1
    if state[MAX_ROUNDS] != params[P_MAX_ROUNDS]:
        return MAX_ROUNDS + 1
    # a running game ends when a round completes at the cap; turns go round from the start seat
    # (setup placements are not turns), so the turn counter is the rounds and the seats since
    if state[ROUND] < 0 or state[ROUND] > state[MAX_ROUNDS] or (
            state[H_TERMINAL] == 0 and state[ROUND] == state[MAX_ROUNDS]):
        return ROUND + 1
    turns = n * state[ROUND]
    if state[H_TERMINAL] == 0 and state[H_PHASE] != PH_START:
        turns += (state[H_OWNER] - state[START] + n) % n
    if state[TURNS] != turns or (state[H_PHASE] == PH_START and state[ROUND] != 0):
        return TURNS + 1
    if state[SETUP_LEFT] < 0 or state[SETUP_LEFT] > n:
        return SETUP_LEFT + 1
    for s in (END_TRIGGERED, FINAL_ROUND):
        if state[s] < 0 or state[s] > 1:
            return s + 1
    if state[FINAL_ROUND] == 1 and state[END_TRIGGERED] == 0:
        return FINAL_ROUND + 1
    return 0


@jit
def _check_map(state: np.ndarray, n: int) -> int:
    """The map: each place of the player count holds a distinct village tile, flipped or not, and
    its fields have the tile's colours (the places beyond hold none)."""
    seen_tile = np.zeros(NUM_TILES, dtype=np.int64)
    for pl in range(MAX_PLACES):
        t = state[PLACE_TILE + pl]
        if pl >= NUM_PLACES[n]:
            if t != -1 or state[PLACE_FLIP + pl] != 0:
                return PLACE_TILE + pl + 1
            continue
        if t < 0 or t >= NUM_TILES or seen_tile[t]:
            return PLACE_TILE + pl + 1
        seen_tile[t] = 1
        if state[PLACE_FLIP + pl] < 0 or state[PLACE_FLIP + pl] > 1:
            return PLACE_FLIP + pl + 1
    for pl in range(NUM_PLACES[n]):
        t = state[PLACE_TILE + pl]
        for i in range(FIELDS_PER_VILLAGE):
            j = FIELDS_PER_VILLAGE - 1 - i if state[PLACE_FLIP + pl] else i
            if state[FIELD_COLOUR + FIELDS_PER_VILLAGE * pl + i] != PATTERN[t, j]:
                return FIELD_COLOUR + FIELDS_PER_VILLAGE * pl + i + 1
    return 0


@jit
def _check_fields(state: np.ndarray, n: int, workers: np.ndarray, built: np.ndarray) -> int:
    """The workers and buildings on the fields (at most one building of a colour per seat); counts
    each seat's workers into ``workers`` and marks the colours it built on in ``built`` (bits)."""
    nf = NUM_FIELDS[n]
    for f in range(MAX_FIELDS):
        w = state[WORKER + f]
        b = state[BUILDING + f]
        if f >= nf:
            if state[FIELD_COLOUR + f] != -1 or w != 0 or b != 0:
                return FIELD_COLOUR + f + 1
            continue
        if w < 0 or w > n:
            return WORKER + f + 1
        if w:
            workers[w - 1] += 1
        if b < 0 or b > n:
            return BUILDING + f + 1
        if b:
            c = state[FIELD_COLOUR + f]
            if (built[b - 1] >> c) & 1:
                return BUILDING + f + 1
            built[b - 1] |= 1 << c
    return 0


@jit
def _buildings(state: np.ndarray, n: int) -> int:
    """The buildings on the map."""
    count = 0
    for f in range(NUM_FIELDS[n]):
        if state[BUILDING + f] != 0:
            count += 1
    return count


@jit
def _check_seats(state: np.ndarray, n: int, workers: np.ndarray, built: np.ndarray) -> int:
    """Every seat's workers on the map and buildings (``workers``, ``built``: as
    :func:`_check_fields` counts them), goods and VP tiles (none for a seat not playing); the
    buildings in all."""
    for p in range(MAX_PLAYERS):
        if p >= n:
            if state[WORKERS_ON_MAP + p] != 0 or state[BUILT + p] != 0 or state[VP_TILES_S + p] != 0:
                return WORKERS_ON_MAP + p + 1
            for c in range(NUM_COLOURS):
                if goods(state, p, c) != 0:
                    return GOODS_S + NUM_COLOURS * p + c + 1
            continue
        if state[WORKERS_ON_MAP + p] != workers[p] or workers[p] > WORKERS:
            return WORKERS_ON_MAP + p + 1
        if state[BUILT + p] != built[p]:
            return BUILT + p + 1
        for c in range(NUM_COLOURS):
            if goods(state, p, c) < 0 or goods(state, p, c) > 1_000_000:
                return GOODS_S + NUM_COLOURS * p + c + 1
        if state[VP_TILES_S + p] < 0 or state[VP_TILES_S + p] > 28:
            return VP_TILES_S + p + 1
    if state[BUILDINGS_TOTAL] != _buildings(state, n):
        return BUILDINGS_TOTAL + 1
    return 0


@jit
def _check_setup(state: np.ndarray, n: int) -> int:
    """The first SETUP_LEFT seats in reverse order from the start have no worker yet, the others do."""
    placed = n - state[SETUP_LEFT]
    for p in range(n):
        # the i-th to place (0-based) is start - 1 - i
        i = (state[START] - 1 - p + 2 * n) % n
        has = state[WORKERS_ON_MAP + p] > 0
        if has != (i < placed):
            return WORKERS_ON_MAP + p + 1
    return 0


@jit
def _check_equipment(state: np.ndarray, n: int) -> int:
    """Each piece of equipment in exactly one place: the market, the stack or a seat."""
    nstack = state[STACK_N]
    if nstack < 0 or nstack > STACK_BY_COUNT[n]:
        return STACK_N + 1
    where = np.zeros(NUM_EQUIP, dtype=np.int64)
    for e in range(NUM_EQUIP):
        loc = state[EQUIP_LOC + e]
        if loc < 0 or loc >= LOC_OWNED + n:
            return EQUIP_LOC + e + 1
    for s in range(MARKET_SLOTS):
        v = state[MARKET + s]
        if v < 0 or v > NUM_EQUIP:
            return MARKET + s + 1
        if v:
            if state[EQUIP_LOC + v - 1] != LOC_MARKET or where[v - 1]:
                return MARKET + s + 1
            where[v - 1] = 1
    for i in range(MAX_STACK):
        e = state[STACK + i]
        if i >= nstack:
            if e != 0:
                return STACK + i + 1
            continue
        if e < 0 or e >= NUM_EQUIP or state[EQUIP_LOC + e] != LOC_STACK or where[e]:
            return STACK + i + 1
        where[e] = 1
    for e in range(NUM_EQUIP):
        loc = state[EQUIP_LOC + e]
        if (loc == LOC_MARKET or loc == LOC_STACK) and not where[e]:
            return EQUIP_LOC + e + 1
    return 0


@jit
def _check_vp_tiles(state: np.ndarray, n: int) -> int:
    """The VP tiles taken are those of the first buildings."""
    tiles = 0
    for k in range(min(_buildings(state, n), VP_TILE_ARR.shape[0])):
        tiles += VP_TILE_ARR[k]
    total = 0
    for p in range(n):
        total += state[VP_TILES_S + p]
    if total != tiles:
        return VP_TILES_S + 1
    return 0


@jit
def _check_turn(state: np.ndarray, n: int) -> int:
    """The phase, the actions left and the context slots: idle in a finished game and in the setup,
    else those of the pending decision (:func:`check_turn_context`)."""
    ph = state[H_PHASE]
    if state[H_TERMINAL] == 1:
        if ph != PH_ACTION:
            return H_PHASE + 1
        if state[ACTIONS_LEFT] != 0:
            return ACTIONS_LEFT + 1
        if state[ACT] != ACT_NONE:
            return ACT + 1
        return check_idle_context(state)
    if (ph == PH_START) != (state[SETUP_LEFT] > 0):
        return H_PHASE + 1
    if ph == PH_START:
        if state[ACTIONS_LEFT] != 0 or state[ACT] != ACT_NONE:
            return ACTIONS_LEFT + 1
        return check_idle_context(state)
    if state[ACTIONS_LEFT] < 1 or state[ACTIONS_LEFT] > 4:
        return ACTIONS_LEFT + 1
    return check_turn_context(state, n)


@jit
def check_state(state: np.ndarray, params: np.ndarray) -> int:
    """0 if ``state`` is a sound position for ``params``, else (first bad slot) + 1."""
    n = params[P_PLAYERS]
    workers = np.zeros(MAX_PLAYERS, dtype=np.int64)  # each seat's workers on the map
    built = np.zeros(MAX_PLAYERS, dtype=np.int64)  # each seat's colours built on (bits)
    return (check_header(state, n, NUM_PHASES) or _check_progress(state, params, n) or _check_map(state, n)
            or _check_fields(state, n, workers, built) or _check_seats(state, n, workers, built)
            or _check_setup(state, n) or _check_equipment(state, n) or _check_vp_tiles(state, n)
            or _check_turn(state, n))


#: groups of context slots a pending decision uses (the others hold their unused values)
U_TARGET = 1  # TARGET
U_MOVER = 2  # MOVER
U_PATH = 4  # VISITED, PATH_N, PATH
U_PAY = 8  # OBL_N, OBL_*, PAY_I, PAY_TN, PAY_T, AGG
U_PURCHASE = 16  # SLOT, SPLIT
U_BUILD = 32  # BUILD_FIELD
U_STALL = 64  # STALL_K, STALL_CHOICE, AGG
U_REFILL = 128  # REFILL_CHOICE


@ijit
def phase_uses(ph: int, act: int) -> int:
    """The context groups (``U_*`` bits) the pending decision of phase ``ph`` in action ``act``
    reads: what apply_decision wrote on the way there, since clear_action."""
    if ph == PH_MOVE_TARGET:
        return U_MOVER
    if ph == PH_ORIGIN:
        return U_TARGET
    if ph == PH_STEP:
        return U_TARGET | U_MOVER | U_PATH
    if ph == PH_PAY:
        return U_TARGET | U_MOVER | U_PATH | U_PAY
    if ph == PH_SPLIT:
        return U_PURCHASE
    if ph == PH_STALL:
        return U_STALL | (U_PURCHASE if act == ACT_ACQUIRE else U_BUILD)
    if ph == PH_REFILL:
        return U_REFILL
    return 0


@jit
def check_unused(state: np.ndarray, used: int) -> int:
    """Every context slot outside the groups ``used`` holds its unused value (as clear_action
    leaves it): 0, else the first one that does not + 1."""
    idle = state.copy()
    if used & U_TARGET:
        idle[TARGET] = -1
    if used & U_MOVER:
        idle[MOVER] = -1
    if used & U_PATH:
        idle[VISITED] = 0
        idle[PATH_N] = 0
        idle[PATH:PATH + MAX_FIELDS] = 0
    if used & U_PAY:
        idle[OBL_N] = 0
        idle[PAY_I] = 0
        idle[PAY_TN] = 0
        idle[PAY_T:PAY_T + MAX_PAY_OUTCOMES] = 0
        for base in (OBL_KIND, OBL_WHERE, OBL_COLOUR, OBL_OCC):
            idle[base:base + MAX_OBL] = 0
    if used & (U_PAY | U_STALL):
        idle[AGG:AGG + AGG_LEN] = 0
    if used & U_PURCHASE:
        idle[SLOT] = -1
        idle[SPLIT] = 0
    if used & U_BUILD:
        idle[BUILD_FIELD] = -1
    if used & U_STALL:
        idle[STALL_K] = 0
        idle[STALL_CHOICE:STALL_CHOICE + NUM_COLOURS] = 0
    if used & U_REFILL:
        idle[REFILL_CHOICE] = 0
        idle[REFILL_CHOICE + 1] = 0
    return check_idle_context(idle)


@jit
def check_idle_context(state: np.ndarray) -> int:
    if state[TARGET] != -1 or state[MOVER] != -1 or state[VISITED] != 0 or state[PATH_N] != 0:
        return TARGET + 1
    code = _check_unpaid(state)
    if code:
        return code
    if state[STALL_K] != 0 or state[SLOT] != -1 or state[SPLIT] != 0 or state[BUILD_FIELD] != -1:
        return STALL_K + 1
    for i in range(NUM_COLOURS):
        if state[STALL_CHOICE + i] != 0:
            return STALL_CHOICE + i + 1
    if state[REFILL_CHOICE] != 0 or state[REFILL_CHOICE + 1] != 0:
        return REFILL_CHOICE + 1
    for i in range(MAX_FIELDS):
        if state[PATH + i] != 0:
            return PATH + i + 1
    for j in range(MAX_OBL):
        if state[OBL_KIND + j] != 0 or state[OBL_WHERE + j] != 0 or state[OBL_COLOUR + j] != 0 \
                or state[OBL_OCC + j] != 0:
            return OBL_KIND + j + 1
    return 0


@jit
def _check_action_kind(state: np.ndarray) -> int:
    """The action under way is the one the phase belongs to (a travel or a stall: one of those that
    have one; a step or a payment: a placement's or a move's travel)."""
    ph = state[H_PHASE]
    act = state[ACT]
    want = ACT_NONE
    if ph == PH_PLACE_TARGET or ph == PH_ORIGIN or ph == PH_EXCHANGE:
        want = ACT_PLACE
    elif ph == PH_MOVE_WORKER or ph == PH_MOVE_TARGET:
        want = ACT_MOVE
    elif ph == PH_PRODUCE:
        want = ACT_PRODUCE
    elif ph == PH_ACQUIRE or ph == PH_SPLIT or ph == PH_REFILL:
        want = ACT_ACQUIRE
    elif ph == PH_BUILD:
        want = ACT_BUILD
    if want != ACT_NONE and act != want:
        return ACT + 1
    if want == ACT_NONE and not (act == ACT_PLACE or act == ACT_MOVE or act == ACT_ACQUIRE or act == ACT_BUILD):
        return ACT + 1
    if (ph == PH_STEP or ph == PH_PAY) and not (act == ACT_PLACE or act == ACT_MOVE):
        return ACT + 1
    return 0


@jit
def _check_exchange(state: np.ndarray, p: int) -> int:
    """An exchange: the seat has 8 or 9 workers on the map; no other context."""
    k = state[WORKERS_ON_MAP + p]
    if k != 8 and k != 9:
        return WORKERS_ON_MAP + p + 1
    return check_idle_context(state)


@jit
def _check_refill(state: np.ndarray) -> int:
    """A refill: the row and column chosen are empty lines of the market and the stack can fill
    them; no other context."""
    r = state[REFILL_CHOICE]
    c = state[REFILL_CHOICE + 1]
    if r < 0 or r >= MARKET_W or c < 0 or c >= MARKET_W or state[STACK_N] < REFILL:
        return REFILL_CHOICE + 1
    if not line_empty(state, np.int64(1), r) or not line_empty(state, np.int64(0), c):
        return REFILL_CHOICE + 1
    state2 = state.copy()
    state2[REFILL_CHOICE] = 0
    state2[REFILL_CHOICE + 1] = 0
    return check_idle_context(state2)


@jit
def _check_path(state: np.ndarray, n: int, p: int) -> int:
    """A travel's path so far: distinct fields of the map, the first the traveller's worker (the
    mover's, for a move), each next to the one before, the target only at the end; and the
    VISITED bits agree."""
    act = state[ACT]
    t = state[TARGET]
    npath = state[PATH_N]
    visited = np.int64(0)
    for i in range(MAX_FIELDS):
        f = state[PATH + i]
        if i >= npath:
            if f != 0:
                return PATH + i + 1
            continue
        if f < 0 or f >= NUM_FIELDS[n] or (visited >> np.int64(f)) & np.int64(1):
            return PATH + i + 1
        if i == 0:
            if state[WORKER + f] != p + 1 or (act == ACT_MOVE and f != state[MOVER]):
                return PATH + i + 1
        else:
            prev = state[PATH + i - 1]
            adj = False
            for d in range(4):
                if NEIGH[n, prev, d] == f:
                    adj = True
            if not adj or (f == t and i != npath - 1):
                return PATH + i + 1
        visited |= bit(f)
    if state[VISITED] != visited:
        return VISITED + 1
    return 0


@jit
def _check_unpaid(state: np.ndarray) -> int:
    """A travel not paying yet: no obligations, outcomes or amounts."""
    if state[OBL_N] != 0 or state[PAY_I] != 0:
        return OBL_N + 1
    if state[PAY_TN] != 0 or unkept_outcomes(state):
        return PAY_TN + 1
    for i in range(AGG_LEN):
        if state[AGG + i] != 0:
            return AGG + i + 1
    return 0


@jit
def _check_travel(state: np.ndarray, n: int, p: int) -> int:
    """A placement's or a move's travel: the target (once chosen: a free field), the mover, the
    path (:func:`_check_path`), and the payment once it has arrived (:func:`check_payment`)."""
    ph = state[H_PHASE]
    act = state[ACT]
    nf = NUM_FIELDS[n]
    t = state[TARGET]
    if ph == PH_PLACE_TARGET or ph == PH_MOVE_WORKER or ph == PH_MOVE_TARGET:
        if t != -1:
            return TARGET + 1
    elif t < 0 or t >= nf:
        return TARGET + 1
    if act == ACT_MOVE and ph != PH_MOVE_WORKER:
        mv = state[MOVER]
        if mv < 0 or mv >= nf or state[WORKER + mv] != p + 1:
            return MOVER + 1
    elif state[MOVER] != -1:
        return MOVER + 1
    npath = state[PATH_N]
    if npath < 0 or npath > MAX_FIELDS:
        return PATH_N + 1
    if (ph == PH_STEP or ph == PH_PAY) != (npath > 0):
        return PATH_N + 1
    if act == ACT_PLACE and state[WORKERS_ON_MAP + p] >= WORKERS:
        return WORKERS_ON_MAP + p + 1
    bad = _check_path(state, n, p)
    if bad:
        return bad
    if t >= 0 and state[WORKER + t] != 0:
        return TARGET + 1
    arrived = npath > 0 and state[PATH + npath - 1] == t
    if (ph == PH_PAY) != arrived:
        return PATH_N + 1
    if ph == PH_PAY:
        return check_payment(state, p, n)
    return _check_unpaid(state)


@jit
def _check_purchase(state: np.ndarray, n: int, p: int) -> int:
    """A purchase: the market slot bought from holds a piece; when paying at the stalls, the split
    chosen and the amounts it starts from (:func:`purchase_inits`), and the stall choices."""
    s = state[SLOT]
    if s < 0 or s >= MARKET_SLOTS:
        return SLOT + 1
    if state[MARKET + s] == 0:
        return SLOT + 1
    if state[H_PHASE] == PH_SPLIT:
        if state[SPLIT] != 0:
            return SPLIT + 1
        return 0
    e = state[MARKET + s] - 1
    cost = EQ_COST[e // NUM_COLOURS]
    H, scal, stl, cown, bown = pay_context(state, p)
    inits, K, k0 = purchase_inits(state, p, s, scal)
    k = state[SPLIT]
    if k < k0 or k >= k0 + K or k > cost:
        return SPLIT + 1
    for i in range(AGG_LEN):
        if state[AGG + i] != inits[AGG_LEN * (k - k0) + i]:
            return AGG + i + 1
    return check_stall_choices(state, p, n)


@jit
def _check_stall_build(state: np.ndarray, n: int, p: int) -> int:
    """Paying for a building at the stalls: a field the seat can build on, the amounts its cost
    starts from, and the stall choices."""
    f = state[BUILD_FIELD]
    if f < 0 or f >= NUM_FIELDS[n] or not can_build(state, p, f):
        return BUILD_FIELD + 1
    agg = np.zeros(AGG_LEN, dtype=np.int64)
    build_cost(state, p, f, agg, np.int64(0))
    for i in range(AGG_LEN):
        if state[AGG + i] != agg[i]:
            return AGG + i + 1
    return check_stall_choices(state, p, n)


@jit
def check_turn_context(state: np.ndarray, n: int) -> int:
    """The context slots of the pending decision: only the slots its action uses are set (the rest
    hold their unused values, checked first: kernels index with some of them in every phase), and
    they describe a position the decision can be taken in."""
    ph = state[H_PHASE]
    act = state[ACT]
    p = state[H_CURRENT]
    bad = check_unused(state, phase_uses(ph, act))
    if bad:
        return bad
    if ph == PH_ACTION:
        return ACT + 1 if act != ACT_NONE else check_idle_context(state)
    bad = _check_action_kind(state)
    if bad:
        return bad
    if ph == PH_EXCHANGE:
        return _check_exchange(state, p)
    if ph == PH_REFILL:
        return _check_refill(state)
    if ph == PH_ORIGIN or ph == PH_STEP or ph == PH_PAY or ph == PH_MOVE_TARGET or ph == PH_PLACE_TARGET \
            or ph == PH_MOVE_WORKER:
        return _check_travel(state, n, p)
    if ph == PH_ACQUIRE or ph == PH_PRODUCE or ph == PH_BUILD:
        if state[SLOT] != -1 or state[SPLIT] != 0 or state[BUILD_FIELD] != -1 or state[TARGET] != -1:
            return SLOT + 1
        return 0
    if ph == PH_SPLIT or (ph == PH_STALL and act == ACT_ACQUIRE):
        return _check_purchase(state, n, p)
    if ph == PH_STALL and act == ACT_BUILD:
        return _check_stall_build(state, n, p)
    return H_PHASE + 1


@jit
def unkept_outcomes(state: np.ndarray) -> bool:
    """Some slot of PAY_T is set."""
    for i in range(MAX_PAY_OUTCOMES):
        if state[PAY_T + i] != 0:
            return True
    return False


@jit
def check_payment(state: np.ndarray, p: int, n: int) -> int:
    """A travel's payment: the obligations are those of the path, the pending amount is one that
    can be other than 0, the amounts not yet decided are 0 and those decided can be completed."""
    want = state.copy()
    build_obligations(want, p)
    if state[OBL_N] != want[OBL_N]:
        return OBL_N + 1
    for j in range(MAX_OBL):
        if state[OBL_KIND + j] != want[OBL_KIND + j] or state[OBL_WHERE + j] != want[OBL_WHERE + j] \
                or state[OBL_COLOUR + j] != want[OBL_COLOUR + j] or state[OBL_OCC + j] != want[OBL_OCC + j]:
            return OBL_KIND + j + 1
    if state[STALL_K] != 0:
        return STALL_K + 1
    for i in range(NUM_COLOURS):
        if state[STALL_CHOICE + i] != 0:
            return STALL_CHOICE + i + 1
    pi = state[PAY_I]
    if pi < 0 or pi >= NUM_COLOURS * n:
        return PAY_I + 1
    H, scal, stl, cown, bown = pay_context(state, p)
    if amount_trivial(travel_counts(state, p, n), stl, cown, bown, p, n, pi):
        return PAY_I + 1
    for c in range(NUM_COLOURS):
        d_decided = n * c < pi
        tot = 0
        for r in range(MAX_PLAYERS):
            v = state[AGG + NUM_COLOURS * r + c]
            if r >= n or r == p:
                if v != 0:
                    return AGG + NUM_COLOURS * r + c + 1
                continue
            rr = (r - p + n) % n
            if n * c + rr >= pi and v != 0 or v < 0 or v >= MAX_AMOUNT:
                return AGG + NUM_COLOURS * r + c + 1
            tot += v
        sv = state[AGG + NUM_COLOURS * SUPPLY + c]
        if (not d_decided and sv != 0) or sv < 0 or sv + tot >= MAX_AMOUNT:
            return AGG + NUM_COLOURS * SUPPLY + c + 1
    tuples, nt = colour_outcomes(state, p)
    if nt == 0:
        return AGG + 1
    kn = state[PAY_TN]
    if kn < -1 or kn > MAX_PAY_OUTCOMES or (kn == -1) != (nt > MAX_PAY_OUTCOMES):
        return PAY_TN + 1
    if kn == -1:
        return PAY_T + 1 if unkept_outcomes(state) else 0
    if kn != nt:
        return PAY_TN + 1
    for i in range(MAX_PAY_OUTCOMES):
        x = state[PAY_T + i]
        if i >= kn:
            if x != 0:
                return PAY_T + i + 1
            continue
        hit = False
        for j in range(nt):
            if tuples[j] == x:
                hit = True
        for j in range(i):  # no outcome twice
            if state[PAY_T + j] == x:
                hit = False
        if not hit:
            return PAY_T + i + 1
    return 0


@jit
def check_stall_choices(state: np.ndarray, p: int, n: int) -> int:
    stalls, nst = own_stalls(state, p)
    sk = state[STALL_K]
    if sk < 0 or sk >= nst:
        return STALL_K + 1
    agg = np.empty(AGG_LEN, dtype=np.int64)
    copy_range(agg, 0, state, AGG, AGG_LEN)
    for i in range(NUM_COLOURS):
        code = state[STALL_CHOICE + i]
        if i >= sk:
            if code != 0:
                return STALL_CHOICE + i + 1
            continue
        if code < 0 or code > MAX_PLAYERS * NUM_COLOURS or not apply_stall_choice(
                agg, stalls[i], code, p, n, np.int64(1)):
            return STALL_CHOICE + i + 1
    return 0
