"""Cultivo rules as numba kernels on the state array (layout, tables and the action encoding in
:mod:`cultivo_env.layout`; the rules as implemented in ``docs/rules/cultivo.md``).

A turn is a sequence of decisions of the turn owner, kept as a state machine in ``H_PHASE``::

    action ──place──> place_target ─> origin ─> step* ─> pay* ─> [exchange]
           ──move───> move_worker ─> move_target ─> step* ─> pay*
           ──produce> produce
           ──acquire> acquire ─> split ─> stall* ─> [refill]
           ──build──> build ─> stall*

``step`` chooses the next field of a travel (a canal crossing is part of the step); ``pay`` decides
one amount of the travel's payment: colour by colour, the payer's total of the colour, then what each
other player receives of it (the supply receives the rest). Means (goods, carts, barges and whose),
the scales and the market stalls are not decided one by one: :func:`amount_values` offers each value
that some way of paying reaches, so each outcome of a travel payment is exactly one choice. ``stall``
lets each of the payer's market stalls replace one paid good of a purchase or a building. A decision
with a single option is applied automatically.

Exactness: the mask offers only choices that can still be completed. A travel is feasible when some
walk (a simple path is a walk; a walk contains a simple path that passes a subset of its fields and
canals, and costs can only fall) from the traveller to the target can be paid; :func:`travel_search`
looks for one over (field, obligations) labels with Pareto pruning, and :func:`pay_feasible` decides
whether a set of obligations can be paid (an exact dynamic programme over the six colours).

Canonical payments (one choice per outcome): a travel's payment is chosen as its outcome
(:func:`amount_values`); purchase splits and the stall stage of purchases and buildings are
enumerated exactly (:func:`canon_dp`) and each distinct outcome is offered once, by the
lexicographically first way to reach it.

Every rule is a named function below: ``place_wheat``, ``apply_scales``, ``pay_feasible``,
``amount_values``, ``travel_search``, ``produce_amount``, ``can_build``, ``purchase_feasible``,
``refill_line``, ``end_turn``, ``goods_triples``, ``building_points``, ``final_score``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    A_AMOUNT,
    A_COLOUR,
    A_EXCHANGE,
    A_FIELD,
    A_KIND,
    A_REFILL,
    A_SLOT,
    A_SPLIT,
    A_STALL,
    ACT,
    ACT_ACQUIRE,
    ACT_BUILD,
    ACT_MOVE,
    ACT_NONE,
    ACT_PLACE,
    ACT_PRODUCE,
    ACTIONS_LEFT,
    ACTIONS_PER_TURN,
    AGG,
    AGG_LEN,
    BARGE,
    BARREL,
    BUILD_EQUIP_VP,
    BUILD_FIELD,
    BUILD_GOODS,
    BUILD_WHEAT,
    BUILDING,
    BUILDINGS_TOTAL,
    BUILT,
    CART,
    CASTLE,
    CASTLE_PER_VILLAGE,
    END_BUILDINGS,
    END_MARKET_LEFT,
    END_TRIGGERED,
    EQ_COST,
    EQ_VP,
    EQUIP_LOC,
    EXTRA_ACTION_WORKER,
    FIELD_COLOUR,
    FIELDS_PER_VILLAGE,
    FINAL_ROUND,
    GOODS_S,
    LOC_MARKET,
    LOC_OUT,
    LOC_OWNED,
    LOC_STACK,
    MANOR,
    MANOR_PER_WORKER,
    MARKET,
    MARKET_COLOUR,
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
    MILL_PER_WORKER,
    MONASTERY,
    MONASTERY_MAX,
    MONASTERY_PER_WORKER,
    MOVER,
    NEIGH,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_EQUIP,
    NUM_FIELDS,
    NUM_PHASES,
    NUM_PLACES,
    NUM_TILES,
    NUM_TYPES,
    O_ACT,
    O_ACTIONS_LEFT,
    O_AMOUNT,
    O_END,
    O_FIELDS,
    O_MARKET,
    O_NEXT_VP,
    O_OWNER,
    O_PAY_SEATS,
    O_PAY_SUPPLY,
    O_PHASE,
    O_ROUND,
    O_SEATS,
    O_SLOT,
    O_SPLIT,
    O_STACK_N,
    O_STALL,
    O_START,
    OBL_CANAL_KIND,
    OBL_COLOUR,
    OBL_FIELD_KIND,
    OBL_KIND,
    OBL_N,
    OBL_OCC,
    OBL_WHERE,
    OBS_OFF,
    OBS_SEAT,
    P_MAX_ROUNDS,
    P_PLAYERS,
    P_RANDOM_VILLAGES,
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
    PLACE_WHEAT_ARR,
    REFILL,
    REFILL_CHOICE,
    ROUND,
    SCALES,
    SETUP_LEFT,
    SLOT,
    SPLIT,
    STACK,
    STACK_BY_COUNT,
    STACK_N,
    STALL,
    STALL_CHOICE,
    STALL_K,
    STALL_OPTIONS,
    START,
    STATE_LEN,
    SUPPLY,
    TARGET,
    TOOL,
    TOWER,
    TOWER_MAX,
    TOWER_PER_BUILDING,
    TURNS,
    VISITED,
    VP_TILE_ARR,
    VP_TILES_S,
    WORKER,
    WORKERS,
    WORKERS_ON_MAP,
    WORKSHOP,
    WORKSHOP_MAX,
    WORKSHOP_PER_TYPE,
    YELLOW,
)
from gamecore.header import H_CURRENT, H_DONE, H_NPLAYERS, H_OWNER, H_PHASE, H_RNG, H_TERMINAL
from gamecore.jit import jit
from gamecore.kernels import check_header, clip8, count_decision
from gamecore.rng import rng_below, rng_seed, rng_shuffle

STATE_LEN = STATE_LEN  # re-exported: part of the kernel interface

NEG = -(1 << 30)
#: summary of a travel's obligations packed in an int64: 4 bits per colour of passed fields without
#: another player's worker (bits 0..23), 4 bits per colour of passed fields with one (24..47), canals
#: in bits 48..53
S_FOREIGN = 24
S_CANAL = 48
S_FIELD_MAX = 15
S_CANAL_MAX = 63


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
def pay_context(state: np.ndarray, p: int):
    """The payer's goods, own scales and stalls, and the owner of each colour's cart and barge
    (views of one small array)."""
    ctx = np.empty(5 * NUM_COLOURS, dtype=np.int64)
    H = ctx[0:6]
    scal = ctx[6:12]
    stl = ctx[12:18]
    cown = ctx[18:24]
    bown = ctx[24:30]
    for c in range(NUM_COLOURS):
        H[c] = goods(state, p, c)
        scal[c] = 1 if state[EQUIP_LOC + NUM_COLOURS * SCALES + c] == LOC_OWNED + p else 0
        stl[c] = 1 if state[EQUIP_LOC + NUM_COLOURS * STALL + c] == LOC_OWNED + p else 0
        cown[c] = owner(state, NUM_COLOURS * CART + c)
        bown[c] = owner(state, NUM_COLOURS * BARGE + c)
    return H, scal, stl, cown, bown


# =============================================================================================
# Payment rules
# =============================================================================================
@jit
def apply_scales(agg: np.ndarray, base: int, scal: np.ndarray) -> None:
    """Scales of colour c: when the action's goods of c into the supply total more than 1, one fewer
    is paid (in place, on the supply row of the aggregate at ``agg[base:]``)."""
    for c in range(NUM_COLOURS):
        i = base + NUM_COLOURS * SUPPLY + c
        if scal[c] and agg[i] > 1:
            agg[i] -= 1


@jit
def stall_score(net: int, h: int, has_stall: int) -> int:
    """One colour's part of the stall rule: -(goods missing), or +1 if a stall of this colour could
    stand in for a missing good elsewhere (the player keeps a good of it)."""
    d = net - h
    if d > 0:
        return -d
    if has_stall and d < 0:
        return 1
    return 0


@jit
def affordable(P: np.ndarray, H: np.ndarray, stl: np.ndarray) -> bool:
    """Goods ``P`` (after scales) can be paid from ``H`` with the help of market stalls: each stall
    of colour s with a good of s to spare stands in for one missing good of another colour."""
    total = 0
    for c in range(NUM_COLOURS):
        total += stall_score(P[c], H[c], stl[c])
    return total >= 0


@jit
def pay_feasible(H, scal, stl, cown, bown, payer, P0, sp0, e, f, m, work) -> bool:
    """Can a travel's obligations be paid?

    ``P0`` / ``sp0``: goods the payer owes besides (all / to the supply) per colour, the placement
    wheat. Obligations: per colour, ``e`` passed fields paid as 2 goods to the supply when paid with
    goods, ``f`` fields with another player's worker (1 good to that player, 1 to the supply), and
    ``m`` canals (2 wheat). Any field may instead be paid with 1 good of a cart's colour (to the
    cart's owner), any canal with 1 good of a barge's colour. Scales act on the supply totals; then
    the stall rule (:func:`affordable`) decides.

    Exact: a dynamic programme over the colours; its state is (free cart units still to place, barge
    units placed) and its value the best stall score so far. ``work``: at least 18 int64 of
    scratch; the programme's two rows live there too when it is long enough (else allocated).
    """
    G = 0
    for c in range(NUM_COLOURS):
        G += e[c] + f[c]
    nst = 0  # stalls that can help: a good of their colour to spare
    elig = work[0:6]
    gen_after = work[6:12]
    cons_after = work[12:18]
    for c in range(NUM_COLOURS):
        elig[c] = 0
        gen_after[c] = 0
        cons_after[c] = 0
        if stl[c] and H[c] > 0:
            elig[c] = 1
            nst += 1
    W = 2 * G + 1
    M = m + 1
    size = W * M
    if work.shape[0] >= 18 + 2 * size:
        cur = work[18: 18 + size]
        nxt = work[18 + size: 18 + 2 * size]
    else:
        cur = np.empty(size, dtype=np.int64)
        nxt = np.empty(size, dtype=np.int64)
    cur[:] = NEG
    cur[G * M + 0] = 0
    rem_st = nst
    # after colour c the free balance must lie in [-(generation still possible), consumption still
    # possible], or it can never return to 0
    for c in range(NUM_COLOURS - 2, -1, -1):
        gen_after[c] = gen_after[c + 1] + e[c + 1] + f[c + 1]
        cons_after[c] = cons_after[c + 1] + (min(G, H[c + 1] + nst + 1) if cown[c + 1] >= 0 else 0)
    for c in range(NUM_COLOURS):
        rem_st -= elig[c]  # helping stalls of the colours after this one
        nxt[:] = NEG
        lo_fb = -gen_after[c]
        hi_fb = cons_after[c]
        hascart = cown[c] >= 0
        owncart = cown[c] == payer
        hasbarge = bown[c] >= 0
        ownbarge = bown[c] == payer
        # more than the goods of c (+1 for its scales, +1 per helping stall) can never be paid in c
        cap = H[c] + scal[c] + nst - P0[c]
        if cap < 0:
            cap = 0
        umax = min(G, cap) if hascart else 0
        ec = e[c]
        fc = f[c]
        for fbi in range(W):
            fb = fbi - G
            for bu in range(M):
                val = cur[fbi * M + bu]
                if val == NEG:
                    continue
                if val + rem_st + elig[c] < 0:
                    continue  # no stall can make up for it any more
                vmax = min(m - bu, cap) if hasbarge else 0
                # g of the fields carted: which ones changes only the goods to the supply, and
                # more there never costs more (the scales), so the foreign fields first
                for g in range(ec + fc + 1):
                    tf = min(g, fc)
                    te = g - tf
                    bP = P0[c] + 2 * (ec - te + fc - tf)
                    bsp = sp0[c] + 2 * (ec - te) + (fc - tf)
                    room = cap - 2 * (ec - te + fc - tf)
                    if room < 0:
                        continue
                    # the free balance after must stay in [lo_fb, hi_fb]
                    for u in range(max(0, fb + g - hi_fb), min(min(umax, room), fb + g - lo_fb) + 1):
                        nfb = fb + g - u
                        for v in range(min(vmax, room - u) + 1):
                            P = bP + u + v
                            sp = bsp
                            if ownbarge:
                                sp += v
                            if owncart:
                                sp += u
                            nbu = bu + v
                            if c == YELLOW:
                                wst = m - nbu
                                P += 2 * wst
                                sp += 2 * wst
                            net = P - 1 if (scal[c] and sp >= 2) else P
                            sc = val + stall_score(net, H[c], elig[c])
                            k = (nfb + G) * M + nbu
                            if sc > nxt[k]:
                                nxt[k] = sc
        cur, nxt = nxt, cur
    for bu in range(M):
        if cur[G * M + bu] >= 0:
            return True
    return False


# ---- the path search --------------------------------------------------------------------------
@jit
def field_bits(s: np.int64, shift: int) -> int:
    """The 4-bit count of a summary at bit ``shift``."""
    return int((s >> np.int64(shift)) & np.int64(15))


@jit
def summary_pass(state: np.ndarray, s: np.int64, f: int, payer: int) -> np.int64:
    """Obligations ``s`` plus passing field f; -1 if a count would overflow (only walks that are
    not simple paths get there)."""
    occ = state[WORKER + f]
    foreign = occ != 0 and occ != payer + 1
    c = state[FIELD_COLOUR + f]
    shift = (S_FOREIGN if foreign else 0) + 4 * c
    if field_bits(s, shift) >= S_FIELD_MAX:
        return np.int64(-1)
    return s + (np.int64(1) << np.int64(shift))


@jit
def summary_canal(s: np.int64) -> np.int64:
    if ((s >> np.int64(S_CANAL)) & np.int64(63)) >= S_CANAL_MAX:
        return np.int64(-1)
    return s + (np.int64(1) << np.int64(S_CANAL))


#: the even / odd 4-bit field counts of a summary spread into six 8-bit lanes, and the lanes' top bits
S_LANES = np.int64(0x0F0F0F0F0F0F)
S_GUARD = np.int64(0x808080808080)


@jit
def dominates(a: np.int64, b: np.int64) -> bool:
    """Every count of summary ``a`` is at most that of ``b`` (lane-parallel: a lane's top bit
    survives ``(b | guard) - a`` exactly when b's count is at least a's)."""
    if ((a >> np.int64(S_CANAL)) & np.int64(63)) > ((b >> np.int64(S_CANAL)) & np.int64(63)):
        return False
    ae = a & S_LANES
    be = b & S_LANES
    if (((be | S_GUARD) - ae) & S_GUARD) != S_GUARD:
        return False
    ao = (a >> np.int64(4)) & S_LANES
    bo = (b >> np.int64(4)) & S_LANES
    return (((bo | S_GUARD) - ao) & S_GUARD) == S_GUARD


@jit
def summary_feasible(s: np.int64, w: int, H, scal, stl, cown, bown, payer, scratch, memo) -> bool:
    """Can a travel with obligations ``s`` (and ``w`` placement wheat) be paid at all? ``scratch``:
    at least 60 int64 of working space (no allocation on the common paths; :func:`pay_feasible`
    works in the rest). ``memo``: the ``keys`` of :func:`new_cache`, whose entries from
    ``CACHE_SLOTS`` on keep the summaries the exact programme found payable / not payable."""
    e = scratch[0:6]
    f2 = scratch[6:12]
    P = scratch[18:24]
    P0 = scratch[24:30]
    nfields = 0
    for c in range(NUM_COLOURS):
        e[c] = field_bits(s, np.int64(4 * c))
        f2[c] = field_bits(s, np.int64(S_FOREIGN + 4 * c))
        nfields += e[c] + f2[c]
    m = int((s >> np.int64(S_CANAL)) & np.int64(63))
    # paid with goods only (no carts, no barges): exact when nobody has a cart or a barge
    anycart = False
    anybarge = False
    for c in range(NUM_COLOURS):
        P0[c] = 0
        sp = 2 * e[c] + f2[c]
        P[c] = 2 * (e[c] + f2[c])
        if c == YELLOW:
            P[c] += 2 * m + w
            sp += 2 * m + w
        if scal[c] and sp >= 2:
            P[c] -= 1
        if cown[c] >= 0:
            anycart = True
        if bown[c] >= 0:
            anybarge = True
    if affordable(P, H, stl):
        return True
    if not (anycart and nfields > 0) and not (anybarge and m > 0):
        return False
    if not bounds_feasible(e, f2, m, w, H, scal, stl, cown, bown):
        return False
    if greedy_feasible(e, f2, m, w, H, scal, stl, cown, bown, payer, scratch):
        return True
    # the exact programme, unless an answer of an earlier one decides: fewer obligations never cost
    # more (a way of paying s pays any s' that s dominates, without the means of the obligations
    # left out: the goods of each colour, after the scales, do not grow)
    nfe = memo[CACHE_SLOTS]
    nin = memo[CACHE_SLOTS + 1]
    for i in range(nfe):
        if dominates(s, memo[CACHE_SLOTS + 2 + i]):
            return True
    for i in range(nin):
        if dominates(memo[CACHE_SLOTS + 2 + DP_MEMO + i], s):
            return False
    P0[YELLOW] = w
    ok = pay_feasible(H, scal, stl, cown, bown, payer, P0, P0, e, f2, np.int64(m), scratch[42:])
    if ok and nfe < DP_MEMO:
        memo[CACHE_SLOTS + 2 + nfe] = s
        memo[CACHE_SLOTS] = nfe + 1
    elif not ok and nin < DP_MEMO:
        memo[CACHE_SLOTS + 2 + DP_MEMO + nin] = s
        memo[CACHE_SLOTS + 1] = nin + 1
    return ok


@jit
def bounds_feasible(e, f2, m, w, H, scal, stl, cown, bown) -> bool:
    """Necessary conditions (a quick reject). Stalls move goods between colours but never add any; a
    stall helps only with a good of its colour to spare. Every field and canal costs a good at least,
    two unless a cart / barge pays it; the scales save at most one good of their colour, and only when
    that colour can be paid at all. Fields of a colour not carted need 2 goods of it each (the scales
    and the stalls of other colours may each stand in for one), so the rest must be carted, and carts
    can take no more than the goods of their colours (and their scales, and stalls of other colours)
    can pay; the same for canals with wheat and barges."""
    nstall = 0  # stalls with a good of their colour
    for c in range(NUM_COLOURS):
        if stl[c] and H[c] > 0:
            nstall += 1
    have = 0
    cart_cap = 0
    barge_cap = 0
    anycart = False
    anybarge = False
    nfields = 0
    for c in range(NUM_COLOURS):
        have += H[c] + (scal[c] if (H[c] > 0 or nstall > 0) else 0)
        nfields += e[c] + f2[c]
        if cown[c] >= 0:
            anycart = True
            cart_cap += H[c] + scal[c]
        elif stl[c] and H[c] > 0:
            cart_cap += 1
        if bown[c] >= 0:
            anybarge = True
            barge_cap += H[c] + scal[c]
        elif stl[c] and H[c] > 0:
            barge_cap += 1
    carted_max = min(nfields, cart_cap) if anycart else 0
    barged_max = min(m, barge_cap) if anybarge else 0
    if 2 * nfields - carted_max + 2 * m - barged_max + w > have:
        return False
    carted = 0
    for c in range(NUM_COLOURS):
        help_ = nstall - (1 if (stl[c] and H[c] > 0) else 0)
        base_ok = (H[c] + scal[c] + help_ - (w if c == YELLOW else 0)) // 2
        if base_ok < 0:
            base_ok = 0
        carted += max(0, e[c] + f2[c] - base_ok)
    if carted > carted_max:
        return False
    yhelp = nstall - (1 if (stl[YELLOW] and H[YELLOW] > 0) else 0)
    wheat_ok = max(0, (H[YELLOW] + scal[YELLOW] + yhelp - w) // 2)
    if max(0, m - wheat_ok) > barged_max:
        return False
    return True


@jit
def greedy_feasible(e, f2, m, w, H, scal, stl, cown, bown, payer, scratch) -> bool:
    """A quick sufficient test: pay each field / canal with whatever leaves the most goods of that
    colour (a cart / barge for 1 good, or 2 goods of the field's colour / 2 wheat), canals first,
    then fields first."""
    return greedy_order(e, f2, m, w, H, scal, stl, cown, bown, payer, np.int64(1), scratch) or \
        greedy_order(e, f2, m, w, H, scal, stl, cown, bown, payer, np.int64(0), scratch)


@jit
def greedy_order(e, f2, m, w, H, scal, stl, cown, bown, payer, canals_first, scratch) -> bool:
    P = scratch[30:36]
    sp = scratch[36:42]
    for c in range(NUM_COLOURS):
        P[c] = 0
        sp[c] = 0
    P[YELLOW] = w
    sp[YELLOW] = w
    for xi in range(NUM_COLOURS + 1):  # colours of fields and (x = 6) the canals
        x = (xi + NUM_COLOURS) % (NUM_COLOURS + 1) if canals_first else xi
        count = m if x == NUM_COLOURS else e[x] + f2[x]
        for i in range(count):
            base = YELLOW if x == NUM_COLOURS else x
            best = -1
            best_slack = H[base] - P[base] - 2
            for c in range(NUM_COLOURS):
                o = bown[c] if x == NUM_COLOURS else cown[c]
                if o >= 0 and H[c] - P[c] - 1 > best_slack:
                    best = c
                    best_slack = H[c] - P[c] - 1
            if best < 0:
                P[base] += 2
                if x == NUM_COLOURS or i < e[x]:
                    sp[base] += 2
                else:
                    sp[base] += 1
            else:
                P[best] += 1
                o = bown[best] if x == NUM_COLOURS else cown[best]
                if o == payer:
                    sp[best] += 1
    for c in range(NUM_COLOURS):
        if scal[c] and sp[c] >= 2:
            P[c] -= 1
    return affordable(P, H, stl)


#: slots of the feasibility cache of :func:`new_cache`; the programme's answers after them
CACHE_SLOTS = 256
DP_MEMO = 256


@jit
def cached_feasible(s: np.int64, w: int, H, scal, stl, cown, bown, payer, keys, vals, scratch) -> bool:
    """:func:`summary_feasible` with a small open-addressing cache (keys -1 = empty)."""
    mask = CACHE_SLOTS - 1
    h = np.int64((np.uint64(s) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    for _ in range(CACHE_SLOTS):
        if keys[h] == s:
            return vals[h] == 1
        if keys[h] == -1:
            ok = summary_feasible(s, w, H, scal, stl, cown, bown, payer, scratch, keys)
            keys[h] = s
            vals[h] = 1 if ok else 0
            return ok
        h = (h + 1) & mask
    return summary_feasible(s, w, H, scal, stl, cown, bown, payer, scratch, keys)


@jit
def travel_search(state: np.ndarray, payer: int, w: int, sources: np.ndarray, nsrc: int, s0: np.int64,
                  blocked: np.int64, target: int, found: np.ndarray, stop_after: int, keys, vals, scratch,
                  labels) -> int:
    """Which free fields can a travel reach and pay for?

    Starts at ``sources[:nsrc]`` having already incurred obligations ``s0``; never enters a field
    whose bit is in ``blocked``. With ``target >= 0`` answers only for that field (returns 1 or 0),
    else sets ``found[f] = 1`` for every reachable free field and returns how many (stopping at the
    first ``stop_after`` when that is not 0). Labels (field, obligations) are expanded breadth first; a label
    whose obligations cannot be paid, or that another label at its field dominates, is dropped, and
    one not yet expanded is skipped once a new label at its field dominates it.
    ``labels``: working space from :func:`new_cache` (grown here if a search needs more).
    """
    n = state[H_NPLAYERS]
    H, scal, stl, cown, bown = pay_context(state, payer)
    cap = (labels.shape[0] - MAX_FIELDS) // 3
    lab_f = labels[0:cap]
    lab_s = labels[cap: 2 * cap]
    lab_next = labels[2 * cap: 3 * cap]
    head = labels[3 * cap: 3 * cap + MAX_FIELDS]
    for f in range(MAX_FIELDS):
        head[f] = -1
    nl = 0
    nfound = 0
    nfree = 0
    for f in range(NUM_FIELDS[n]):
        if state[WORKER + f] == 0:
            nfree += 1
    for i in range(nsrc):
        lab_f[nl] = sources[i]
        lab_s[nl] = s0
        lab_next[nl] = head[sources[i]]
        head[sources[i]] = nl
        nl += 1
    q = 0
    while q < nl:
        u = lab_f[q]
        s = lab_s[q]
        q += 1
        if u < 0:
            continue  # a later label at its field dominates it
        for d in range(4):
            v = NEIGH[n, u, d]
            if v < 0 or (blocked >> np.int64(v)) & np.int64(1):
                continue
            s1 = s
            if place_of(u) != place_of(v):
                s1 = summary_canal(s)
                if s1 < 0:
                    continue
            endpoint = state[WORKER + v] == 0 and ((target >= 0 and v == target) or (target < 0 and found[v] == 0))
            s2 = summary_pass(state, s1, v, payer)
            passable = s2 >= 0 and not (target >= 0 and v == target)
            if passable:
                k = head[v]
                while k >= 0:
                    if dominates(lab_s[k], s2):
                        passable = False
                        break
                    k = lab_next[k]
            if passable:
                passable = cached_feasible(s2, w, H, scal, stl, cown, bown, payer, keys, vals, scratch)
            # arriving costs less than passing on: feasible if passing on is
            if endpoint and (passable or cached_feasible(s1, w, H, scal, stl, cown, bown, payer, keys, vals, scratch)):
                if target >= 0:
                    return 1
                found[v] = 1
                nfound += 1
                if nfound == nfree or (stop_after > 0 and nfound >= stop_after):
                    return nfound
            if not passable:
                continue
            k = head[v]
            while k >= 0:  # labels at v that the new one dominates need no expanding
                if lab_f[k] >= 0 and k >= q and dominates(s2, lab_s[k]):
                    lab_f[k] = -1
                k = lab_next[k]
            if nl >= lab_f.shape[0]:  # full (rarely): grow here, not a call per label
                lab_f = grow(lab_f, nl + 1)
                lab_s = grow(lab_s, nl + 1)
                lab_next = grow(lab_next, nl + 1)
            lab_f[nl] = v
            lab_s[nl] = s2
            lab_next[nl] = head[v]
            head[v] = nl
            nl += 1
    return 0 if target >= 0 else nfound


@jit
def new_cache():
    """The feasibility cache of one mask computation (keys -1 = empty) and scratch space."""
    keys = np.full(CACHE_SLOTS + 2 + 2 * DP_MEMO, -1, dtype=np.int64)
    keys[CACHE_SLOTS] = 0  # payable summaries kept, then the others
    keys[CACHE_SLOTS + 1] = 0
    vals = np.zeros(256, dtype=np.int8)
    scratch = np.empty(64 + 2 * 256, dtype=np.int64)  # the pay_feasible rows after the first 64
    scratch[:64] = 0
    labels = np.empty(3 * 512 + MAX_FIELDS, dtype=np.int64)
    return keys, vals, scratch, labels


@jit
def travel_wheat(state: np.ndarray, p: int) -> int:
    """Placement wheat of the action in progress (0 for a Move)."""
    if state[ACT] == ACT_PLACE:
        return place_wheat(state[WORKERS_ON_MAP + p] + 1)
    return 0


@jit
def path_summary(state: np.ndarray, p: int) -> np.int64:
    """Obligations of the travel so far: canals crossed and fields passed (every path field after
    the origin, the current one included, since the travel goes on from it)."""
    s = np.int64(0)
    for i in range(1, state[PATH_N]):
        a = state[PATH + i - 1]
        b = state[PATH + i]
        if place_of(a) != place_of(b):
            s = summary_canal(s)
        s = summary_pass(state, s, b, p)
    return s


@jit
def own_worker_fields(state: np.ndarray, p: int):
    n = state[H_NPLAYERS]
    out = np.empty(MAX_FIELDS, dtype=np.int64)
    k = 0
    for f in range(NUM_FIELDS[n]):
        if state[WORKER + f] == p + 1:
            out[k] = f
            k += 1
    return out, k


@jit
def free_neighbour_same_village(state: np.ndarray, f: int) -> bool:
    n = state[H_NPLAYERS]
    for d in range(4):
        v = NEIGH[n, f, d]
        if v >= 0 and place_of(v) == place_of(f) and state[WORKER + v] == 0:
            return True
    return False


@jit
def place_targets(state: np.ndarray, p: int, found: np.ndarray, stop_after: int) -> int:
    """Free fields a new worker can reach from one of the seat's workers, paying the travel and the
    placement wheat."""
    if state[WORKERS_ON_MAP + p] >= WORKERS:
        return 0
    w = place_wheat(state[WORKERS_ON_MAP + p] + 1)
    src, k = own_worker_fields(state, p)
    if stop_after == 1:
        H, scal, stl, cown, bown = pay_context(state, p)
        P = np.zeros(NUM_COLOURS, dtype=np.int64)
        P[YELLOW] = w - (1 if (scal[YELLOW] and w > 1) else 0)
        if affordable(P, H, stl):
            for i in range(k):
                if free_neighbour_same_village(state, src[i]):
                    return 1
    keys, vals, scratch, labels = new_cache()
    return travel_search(state, p, np.int64(w), src, np.int64(k), np.int64(0), np.int64(0), np.int64(-1), found,
                         stop_after, keys, vals, scratch, labels)


@jit
def move_targets(state: np.ndarray, p: int, f: int, found: np.ndarray, stop_after: int, keys, vals, scratch,
                 labels) -> int:
    """Free fields the worker on f can travel to and pay for. ``keys`` .. ``labels``: from
    :func:`new_cache`, shared by the moves of one mask (the cache depends only on the payer and the
    wheat, 0 for a Move)."""
    if stop_after == 1 and free_neighbour_same_village(state, f):
        return 1
    src = np.empty(1, dtype=np.int64)
    src[0] = f
    return travel_search(state, p, np.int64(0), src, np.int64(1), np.int64(0), bit(f), np.int64(-1), found,
                         stop_after, keys, vals, scratch, labels)


@jit
def step_ok(state: np.ndarray, p: int, v: int, keys, vals, scratch, labels) -> bool:
    """Can the travel go on to field v (a neighbour of the current field) and still reach the
    target and pay?"""
    cur = state[PATH + state[PATH_N] - 1]
    t = state[TARGET]
    w = travel_wheat(state, p)
    H, scal, stl, cown, bown = pay_context(state, p)
    s = path_summary(state, p)
    if place_of(cur) != place_of(v):
        s = summary_canal(s)
        if s < 0:
            return False
    if v == t:
        return cached_feasible(s, w, H, scal, stl, cown, bown, p, keys, vals, scratch)
    s = summary_pass(state, s, v, p)
    if s < 0 or not cached_feasible(s, w, H, scal, stl, cown, bown, p, keys, vals, scratch):
        return False
    src = np.empty(1, dtype=np.int64)
    src[0] = v
    found = np.zeros(1, dtype=np.int8)
    blocked = state[VISITED] | bit(v)
    return travel_search(state, p, np.int64(w), src, np.int64(1), s, blocked, np.int64(t), found, np.int64(0), keys,
                         vals, scratch, labels) == 1


@jit
def origin_ok(state: np.ndarray, p: int, o: int, keys, vals, scratch, labels) -> bool:
    """Can a travel from the seat's worker on o reach the target and pay? ``keys`` .. ``labels``:
    from :func:`new_cache`, shared by the origins of one mask (same payer, same wheat)."""
    w = travel_wheat(state, p)
    src = np.empty(1, dtype=np.int64)
    src[0] = o
    found = np.zeros(1, dtype=np.int8)
    return travel_search(state, p, np.int64(w), src, np.int64(1), np.int64(0), bit(o), np.int64(state[TARGET]),
                         found, np.int64(0), keys, vals, scratch, labels) == 1


# ---- the obligations of a travel and how they are paid ---------------------------------------
@jit
def build_obligations(state: np.ndarray, p: int) -> None:
    """List the passed fields and crossed canals of the finished path, in path order."""
    npath = state[PATH_N]
    k = 0
    for i in range(npath - 1):
        a = state[PATH + i]
        b = state[PATH + i + 1]
        if place_of(a) != place_of(b):
            state[OBL_KIND + k] = OBL_CANAL_KIND
            state[OBL_WHERE + k] = i
            state[OBL_COLOUR + k] = YELLOW
            state[OBL_OCC + k] = 0
            k += 1
        if i + 1 < npath - 1:
            o = state[WORKER + b]
            state[OBL_KIND + k] = OBL_FIELD_KIND
            state[OBL_WHERE + k] = b
            state[OBL_COLOUR + k] = state[FIELD_COLOUR + b]
            state[OBL_OCC + k] = o if (o != 0 and o != p + 1) else 0
            k += 1
    for j in range(k, MAX_OBL):
        state[OBL_KIND + j] = 0
        state[OBL_WHERE + j] = 0
        state[OBL_COLOUR + j] = 0
        state[OBL_OCC + j] = 0
    state[OBL_N] = k


# ---- a travel's payment, decided as its outcome ------------------------------------------------
#: ``travel_counts`` layout: passed fields without another player's worker by colour, then
#: ``TC_Q + MAX_PLAYERS * colour + rr`` those with the worker of the seat rr places after the payer,
#: then the canals and the placement wheat
TC_Q = NUM_COLOURS
TC_M = TC_Q + MAX_PLAYERS * NUM_COLOURS
TC_W = TC_M + 1
TC_LEN = TC_W + 1


@jit
def travel_counts(state: np.ndarray, p: int, n: int) -> np.ndarray:
    """The obligations of the travel being paid, counted (layout ``TC_*``)."""
    tc = np.zeros(TC_LEN, dtype=np.int64)
    for j in range(state[OBL_N]):
        if state[OBL_KIND + j] == OBL_CANAL_KIND:
            tc[TC_M] += 1
        else:
            c = state[OBL_COLOUR + j]
            o = state[OBL_OCC + j]
            if o == 0:
                tc[c] += 1
            else:
                tc[TC_Q + MAX_PLAYERS * c + (o - 1 - p + n) % n] += 1
    tc[TC_W] = travel_wheat(state, p)
    return tc


@jit
def amount_trivial(tc: np.ndarray, stl: np.ndarray, cown: np.ndarray, bown: np.ndarray, p: int, n: int,
                   k: int) -> bool:
    """Amount ``k`` (``n * colour + j``) is 0 in every way of paying: nothing of the colour can be
    paid (j = 0), or the seat can receive none of it (j >= 1)."""
    c = k // n
    j = k % n
    if stl[c]:
        return False
    G = 0
    for cc in range(NUM_COLOURS):
        G += tc[cc]
        for rr in range(1, n):
            G += tc[TC_Q + MAX_PLAYERS * cc + rr]
    m = tc[TC_M]
    if j == 0:
        if tc[c] > 0 or (cown[c] >= 0 and G > 0) or (bown[c] >= 0 and m > 0):
            return False
        for rr in range(1, n):
            if tc[TC_Q + MAX_PLAYERS * c + rr] > 0:
                return False
        return not (c == YELLOW and (m > 0 or tc[TC_W] > 0))
    q = (p + j) % n
    if tc[TC_Q + MAX_PLAYERS * c + j] > 0 or (cown[c] == q and G > 0) or (bown[c] == q and m > 0):
        return False
    return True


@jit
def set_hash(key: np.int64, size: int) -> np.int64:
    """The home slot of ``key`` in a set table of ``size`` (a power of 2): every bit of the key
    mixed in (the splitmix64 finaliser). The keys of :func:`colour_outcomes` differ in their high
    bits only (a step's key is a multiple of ``K_TAG``), so the low bits of a product alone put
    them all in one cluster."""
    z = np.uint64(key)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z & np.uint64(size - 1))


@jit
def set_room(table: np.ndarray, items: np.ndarray, count: int):
    """The open-addressing set ``table`` (whose ``count`` keys are listed in ``items``) regrown so
    that one more key fits (:func:`set_add`): the table doubled and rehashed, ``items`` at least
    half its size. Called by the inserting loop only when ``set_full`` (rarely); returns both."""
    size = 2 * table.shape[0]
    while 2 * (count + 1) > size:
        size *= 2
    table = np.full(size, -1, dtype=np.int64)
    for i in range(count):
        h = set_hash(items[i], size)
        while table[h] >= 0:
            h = (h + 1) & (size - 1)
        table[h] = items[i]
    items = grow(items, size // 2)
    return table, items


@jit
def set_full(table: np.ndarray, count: int) -> bool:
    """One more key may not fit: :func:`set_room` first."""
    return 2 * (count + 1) > table.shape[0]


@jit
def set_add(table: np.ndarray, items: np.ndarray, count: int, key: np.int64) -> int:
    """Insert ``key`` into the set (in place; there must be room: not :func:`set_full`); returns
    the new count. A helper that returns a scalar and no arrays costs numba nothing per call."""
    size = table.shape[0]
    h = set_hash(key, size)
    while table[h] >= 0:
        if table[h] == key:
            return count
        h = (h + 1) & (size - 1)
    table[h] = key
    items[count] = key
    return count + 1


@jit
def new_set():
    """An empty open-addressing set of int64 keys: (table, the keys in insertion order, count)."""
    return np.full(16, -1, dtype=np.int64), np.empty(16, dtype=np.int64), 0


@jit
def set_contains(table: np.ndarray, key: np.int64) -> bool:
    size = table.shape[0]
    h = set_hash(key, size)
    while table[h] >= 0:
        if table[h] == key:
            return True
        h = (h + 1) & (size - 1)
    return False


#: keys of :func:`colour_outcomes`. A label: free cart balance + 64 (7 bits), barges used (6 bits),
#: each receiver's stall balance + 8 (4 bits each, the supply first). A colour's step is a delta
#: packed the same way (its barge uses; for yellow, the barges used before it), times ``K_TAG``,
#: plus, for the pending colour, the amounts it gives: the payer's total, then each receipt by rr,
#: 8 bits each (0 for the other colours)
K_TAG = np.int64(1) << np.int64(32)
K_B = 65536
K_BU = 64
K_B0 = 0x8888  # every stall balance 0


@jit
def colour_deltas(c: int, p: int, n: int, tc: np.ndarray, H, scal, stl, cown, bown, nst: int, G: int, bu_in: int,
                  cfix: int, sub: int, Dfix: np.ndarray, Rfix: np.ndarray, work: np.ndarray):
    """The distinct steps of colour c (see :func:`colour_outcomes`): how many fields of each class are
    carted, how often the cart and the barge of c are used, the scales, whether the stall of c
    replaces a good and at which receiver, how many goods of c the stalls replace at each receiver.
    Keeps those giving the amounts decided for c (all when c < cfix, those before the pending one
    when c == cfix). For yellow (the last colour: it pays the canals left with wheat) ``bu_in`` is
    the barges used before it. ``work``: 4 * MAX_PLAYERS int64 of scratch. Returns (keys, how
    many)."""
    m = tc[TC_M]
    w = tc[TC_W]
    ne = tc[c]
    cap = H[c] + 1 + nst  # no more than this of c is ever paid in a way (scales, stalls)
    umax = min(G, cap) if cown[c] >= 0 else 0
    left = m - bu_in if c == YELLOW else m
    vmax = min(left, cap) if bown[c] >= 0 else 0
    rel_c = (cown[c] - p + n) % n  # receiver of the cart's / barge's good (0: the payer's own: supply)
    rel_b = (bown[c] - p + n) % n
    for i in range(4 * MAX_PLAYERS):
        work[i] = 0
    R = work[0:MAX_PLAYERS]
    X = work[MAX_PLAYERS: 2 * MAX_PLAYERS]
    XM = work[2 * MAX_PLAYERS: 3 * MAX_PLAYERS]
    tq = work[3 * MAX_PLAYERS: 4 * MAX_PLAYERS]
    table, items, count = new_set()
    for te in range(ne + 1):
        while True:  # every split of the fields with other players' workers into carted / not
            carted = te
            for rr in range(1, n):
                carted += tq[rr]
            for u in range(umax + 1):
                for v in range(vmax + 1):
                    S = 2 * (ne - te)
                    R[0] = 0
                    for rr in range(1, n):
                        R[rr] = tc[TC_Q + MAX_PLAYERS * c + rr] - tq[rr]
                        S += R[rr]
                    if u > 0:
                        if rel_c == 0:
                            S += u
                        else:
                            R[rel_c] += u
                    if v > 0:
                        if rel_b == 0:
                            S += v
                        else:
                            R[rel_b] += v
                    if c == YELLOW:
                        S += 2 * (left - v) + w
                    if scal[c] and S > 1:
                        S -= 1
                    R[0] = S
                    tot = 0
                    for d in range(n):
                        tot += R[d]
                    if tot > cap:
                        continue
                    for d in range(n):
                        XM[d] = min(R[d], nst)
                        X[d] = 0
                    for a in range(-1, n if stl[c] else 0):
                        while True:  # how many goods of c the stalls replace at each receiver
                            xs = 0
                            for d in range(n):
                                xs += X[d]
                            D = tot - xs + (1 if a >= 0 else 0)
                            # the stall of c replacing a good of c at its own receiver changes nothing
                            ok = xs <= nst and D <= H[c] and not (a >= 0 and X[a] > 0)
                            if ok and (c < cfix or (c == cfix and sub > 0)) and D != Dfix[c]:
                                ok = False
                            if ok:
                                for rr in range(1, n):
                                    if (c < cfix or (c == cfix and rr < sub)) and \
                                            R[rr] - X[rr] + (1 if a == rr else 0) != Rfix[MAX_PLAYERS * c + rr]:
                                        ok = False
                            if ok:
                                dbv = np.int64(0)
                                for d in range(MAX_PLAYERS):
                                    db = 0
                                    if d < n:
                                        db = (1 if a == d else 0) - X[d]
                                    dbv |= np.int64(db + 8) << np.int64(4 * d)
                                tag = np.int64(0)
                                if c == cfix:
                                    tag = np.int64(D)
                                    for rr in range(1, n):
                                        tag |= np.int64(R[rr] - X[rr] + (1 if a == rr else 0)) << np.int64(8 * rr)
                                bu_field = bu_in if c == YELLOW else v
                                key = ((np.int64(carted - u + 64) * K_BU + bu_field) * K_B + dbv) * K_TAG + tag
                                if set_full(table, count):
                                    table, items = set_room(table, items, count)
                                count = set_add(table, items, count, key)
                            d = 0
                            while d < n:
                                if X[d] < XM[d]:
                                    X[d] += 1
                                    break
                                X[d] = 0
                                d += 1
                            if d == n:
                                break
            rr = 1
            while rr < n:
                if tq[rr] < tc[TC_Q + MAX_PLAYERS * c + rr]:
                    tq[rr] += 1
                    break
                tq[rr] = 0
                rr += 1
            if rr >= n:
                break
    return items, count


@jit
def label_plus(lab: np.int64, dk: np.int64, n: int, yellow: bool) -> np.int64:
    """The label after a colour's step ``dk`` (a delta key without its tag); -1 if a stall balance
    leaves -7..7. Yellow's step keeps the barge count (it is not needed after)."""
    lb = lab % K_B
    db = dk % K_B
    bv = np.int64(0)
    for d in range(MAX_PLAYERS):
        x = ((lb >> np.int64(4 * d)) & np.int64(15)) + ((db >> np.int64(4 * d)) & np.int64(15)) - 8
        if x < 1 or x > 15:
            return np.int64(-1)
        bv |= x << np.int64(4 * d)
    bu = (lab // K_B) % K_BU
    if not yellow:
        bu += (dk // K_B) % K_BU
        if bu >= K_BU:
            return np.int64(-1)
    fb = lab // (K_B * K_BU) + dk // (K_B * K_BU) - 64
    if fb < 0 or fb >= 128:
        return np.int64(-1)
    return (fb * K_BU + bu) * K_B + bv


@jit
def group_steps(dl: np.ndarray, nd: int):
    """The steps ``dl[:nd]`` of a colour (delta keys times ``K_TAG``) grouped by their stall balances:
    (how many groups, each group's balances, where each group starts in the member lists, each
    member's cart balance (without the +64) and barge uses)."""
    dbs = np.empty(nd, dtype=np.int64)
    for j in range(nd):
        dbs[j] = (dl[j] // K_TAG) % K_B
    order = np.argsort(dbs, kind="mergesort")
    gdb = np.empty(nd + 1, dtype=np.int64)
    gstart = np.zeros(nd + 2, dtype=np.int64)
    mfb = np.empty(nd + 1, dtype=np.int64)
    mbu = np.empty(nd + 1, dtype=np.int64)
    ng = 0
    for jj in range(nd):
        j = order[jj]
        dk = dl[j] // K_TAG
        if ng == 0 or dbs[j] != gdb[ng - 1]:
            gdb[ng] = dbs[j]
            gstart[ng] = jj
            ng += 1
        mfb[jj] = dk // (K_B * K_BU) - 64
        mbu[jj] = (dk // K_B) % K_BU
    gstart[ng] = nd
    return ng, gdb, gstart, mfb, mbu


@jit
def join_ok(f: np.int64, dk: np.int64, done: np.ndarray, n: int, m: int, bu_in: int, yellow: bool) -> bool:
    """The label ``f`` before the pending colour and its step ``dk`` (without the tag) reach a label
    of the set ``done`` (from which the colours after finish)."""
    if yellow and (f // K_B) % K_BU != bu_in:
        return False
    lab = label_plus(f, dk, n, yellow)
    if lab < 0:
        return False
    if yellow:
        lab = (lab // (K_B * K_BU) * K_BU) * K_B + lab % K_B  # the barge count dropped
    if (lab // K_B) % K_BU > m:
        return False
    return set_contains(done, lab)


@jit
def join_steps(fwd: np.ndarray, nf: int, back: np.ndarray, nb: int, done: np.ndarray, dl: np.ndarray, nd: int,
               n: int, m: int, bu_in: int, yellow: bool) -> np.ndarray:
    """``ok[j] = 1`` for each step ``dl[j]`` of the pending colour with which some label of
    ``fwd[:nf]`` reaches the set ``done`` (its keys ``back[:nb]``): :func:`join_ok` for every pair,
    in nf * nb step look-ups instead of nf * nd tests. :func:`label_plus` adds the stall balances and
    the cart balance field by field (and the barges, except for yellow, whose steps all carry
    ``bu_in``), so a label before and one after determine the step between them; a step found is
    still checked by :func:`join_ok`."""
    ok = np.zeros(nd, dtype=np.int8)
    dks = np.empty(nd, dtype=np.int64)
    for j in range(nd):
        dks[j] = dl[j] // K_TAG
    order = np.argsort(dks, kind="mergesort")
    sdk = np.empty(nd, dtype=np.int64)
    for jj in range(nd):
        sdk[jj] = dks[order[jj]]
    for i in range(nf):
        f = fwd[i]
        if yellow and (f // K_B) % K_BU != bu_in:
            continue
        fbv = f % K_B
        ffb = f // (K_B * K_BU)
        fbu = (f // K_B) % K_BU
        for ib in range(nb):
            b = back[ib]
            bbv = b % K_B
            bbu = (b // K_B) % K_BU
            if yellow:
                if bbu != 0:
                    continue  # yellow's labels after drop the barge count
                dbu = np.int64(bu_in)
            else:
                dbu = bbu - fbu
                if dbu < 0 or dbu >= K_BU:
                    continue
            dbv = np.int64(0)
            inrange = True
            for d in range(MAX_PLAYERS):
                x = ((bbv >> np.int64(4 * d)) & np.int64(15)) - ((fbv >> np.int64(4 * d)) & np.int64(15)) + 8
                if x < 0 or x > 15:
                    inrange = False
                    break
                dbv |= x << np.int64(4 * d)
            if not inrange:
                continue
            dk = ((b // (K_B * K_BU) - ffb + 64) * K_BU + dbu) * K_B + dbv
            jj = np.searchsorted(sdk, dk)
            while jj < nd and sdk[jj] == dk:
                j = order[jj]
                if ok[j] == 0 and join_ok(f, dk, done, n, m, bu_in, yellow):
                    ok[j] = 1
                jj += 1
    return ok


@jit
def keep_layer(bl: np.ndarray, bcnt: np.ndarray, nl: int, c: int, back: np.ndarray, nb: int):
    """Append the labels before colour c (``back[:nb]``) to the cache ``bl`` / ``bcnt`` at ``nl``;
    returns (bl, the new length)."""
    if nl + nb > bl.shape[0]:
        bl = grow(bl, nl + nb)
    bcnt[c] = nl
    bcnt[8 + c] = nb
    copy_range(bl, nl, back, 0, nb)
    return bl, nl + nb


@jit
def colour_outcomes(state: np.ndarray, p: int):
    """The outcomes the pending colour of a travel payment can still have: the distinct tuples (the
    payer's total of the colour, then what each other seat receives of it by rr, 8 bits each) that
    some way of paying the travel gives together with the amounts decided so far. Returns (tuples,
    how many).

    The amounts are decided colour by colour (``PAY_I = n * colour + j``): the payer's total of the
    colour (j = 0), then what each other seat receives of it (j = 1 .. n - 1, by seat order after the
    payer); the supply receives the rest. A way of paying is the means of each passed field and
    canal, the scales, the stalls.

    Exact: a search over the colours in order whose labels are (carted fields minus cart uses so
    far: a cart of any colour may pay any field; barges used so far; for each receiver, the stalls
    whose good went to it minus the goods stalls took away there). Each colour contributes one of
    its distinct steps (:func:`colour_deltas`). The labels reachable from the start under the
    amounts decided (the colours before the pending one) meet the labels from which the colours after
    it can finish (cart uses matched, stall balances 0: searched backwards), through the steps of the
    pending colour, whose tuples are the answer."""
    tuples, nt, bl, bcnt = colour_outcomes_cached(state, p, np.empty(16, dtype=np.int64), new_back_cache())
    return tuples, nt


@jit
def new_back_cache() -> np.ndarray:
    """An empty cache of :func:`colour_outcomes_cached`'s backward label sets: entry c (1..6) where
    the labels before colour c start in the flat list, entry 8 + c how many, entry 7 the lowest c
    kept (7: none)."""
    bcnt = np.zeros(16, dtype=np.int64)
    bcnt[7] = 7
    return bcnt


@jit
def colour_outcomes_cached(state: np.ndarray, p: int, bl: np.ndarray, bcnt: np.ndarray):
    """:func:`colour_outcomes`, keeping the backward label sets (``bl``, a flat list, and ``bcnt``:
    :func:`new_back_cache`) for the next call of the same payment state. The labels before colour
    c > the pending one depend only on the payer's goods and pieces and the travel's obligations,
    not on the amounts decided, so the colours of one :func:`next_amount` share them. Returns
    (tuples, how many, bl, bcnt): ``bl`` may have been regrown."""
    n = state[H_NPLAYERS]
    k = state[PAY_I]
    cfix = k // n
    sub = k % n
    H, scal, stl, cown, bown = pay_context(state, p)
    tc = travel_counts(state, p, n)
    m = tc[TC_M]
    nst = 0
    for c in range(NUM_COLOURS):
        nst += stl[c]
    G = 0
    for c in range(NUM_COLOURS):
        G += tc[c]
        for rr in range(1, n):
            G += tc[TC_Q + MAX_PLAYERS * c + rr]
    Dfix = np.zeros(NUM_COLOURS, dtype=np.int64)
    Rfix = np.zeros(NUM_COLOURS * MAX_PLAYERS, dtype=np.int64)
    dwork = np.empty(4 * MAX_PLAYERS, dtype=np.int64)  # colour_deltas' scratch
    for c in range(NUM_COLOURS):
        for r in range(SUPPLY + 1):
            Dfix[c] += state[AGG + NUM_COLOURS * r + c]
        for rr in range(1, n):
            Rfix[MAX_PLAYERS * c + rr] = state[AGG + NUM_COLOURS * ((p + rr) % n) + c]
    # what the colours before c can have done: stalls, goods at each receiver, fields, carts, barges
    st_lt = np.zeros(NUM_COLOURS + 1, dtype=np.int64)
    rec_lt = np.zeros((NUM_COLOURS + 1) * MAX_PLAYERS, dtype=np.int64)
    fld_lt = np.zeros(NUM_COLOURS + 1, dtype=np.int64)
    cart_lt = np.zeros(NUM_COLOURS + 1, dtype=np.int64)
    barge_lt = np.zeros(NUM_COLOURS + 1, dtype=np.int64)
    for c in range(NUM_COLOURS):
        st_lt[c + 1] = st_lt[c] + stl[c]
        f = tc[c]
        for rr in range(1, n):
            f += tc[TC_Q + MAX_PLAYERS * c + rr]
        fld_lt[c + 1] = fld_lt[c] + f
        # cart / barge uses of the colours before c (at most their goods, +1 for scales, + stalls)
        cart_lt[c + 1] = cart_lt[c] + (min(G, H[c] + 1 + nst) if cown[c] >= 0 else 0)
        barge_lt[c + 1] = barge_lt[c] + (min(m, H[c] + 1 + nst) if bown[c] >= 0 else 0)
        rec_lt[MAX_PLAYERS * (c + 1)] = nst
        for d in range(1, n):
            x = rec_lt[MAX_PLAYERS * c + d] + tc[TC_Q + MAX_PLAYERS * c + d]
            if cown[c] >= 0 and (cown[c] - p + n) % n == d:
                x += G
            if bown[c] >= 0 and (bown[c] - p + n) % n == d:
                x += m
            rec_lt[MAX_PLAYERS * (c + 1) + d] = min(x, nst)
    # and what the colours from c on can still do
    st_ge = np.zeros(NUM_COLOURS + 1, dtype=np.int64)
    rec_ge = np.zeros((NUM_COLOURS + 1) * MAX_PLAYERS, dtype=np.int64)
    fld_ge = np.zeros(NUM_COLOURS + 1, dtype=np.int64)
    cart_ge = np.zeros(NUM_COLOURS + 1, dtype=np.int64)
    for c in range(NUM_COLOURS - 1, -1, -1):
        st_ge[c] = st_ge[c + 1] + stl[c]
        fld_ge[c] = fld_ge[c + 1] + fld_lt[c + 1] - fld_lt[c]
        cart_ge[c] = cart_ge[c + 1] | (1 if cown[c] >= 0 else 0)
        rec_ge[MAX_PLAYERS * c] = nst
        for d in range(1, n):
            x = rec_ge[MAX_PLAYERS * (c + 1) + d] + tc[TC_Q + MAX_PLAYERS * c + d]
            if cown[c] >= 0 and (cown[c] - p + n) % n == d:
                x += G
            if bown[c] >= 0 and (bown[c] - p + n) % n == d:
                x += m
            rec_ge[MAX_PLAYERS * c + d] = min(x, nst)
    # forward: the labels before colour cfix
    fwd = np.empty(16, dtype=np.int64)
    fwd[0] = (np.int64(64) * K_BU + 0) * K_B + K_B0
    nf = 1
    for c in range(cfix):
        dl, nd = colour_deltas(c, p, n, tc, H, scal, stl, cown, bown, nst, G, np.int64(0), cfix, sub, Dfix, Rfix,
                               dwork)
        table, nxt, cnt = new_set()
        for i in range(nf):
            for j in range(nd):
                lab = label_plus(fwd[i], dl[j] // K_TAG, n, False)
                if lab < 0 or (lab // K_B) % K_BU > m:
                    continue
                fb = lab // (K_B * K_BU) - 64
                if fb < -fld_ge[c + 1] or (fb > 0 and not cart_ge[c + 1]):
                    continue
                neg = 0
                ok = True
                for d in range(n):
                    x = ((lab >> np.int64(4 * d)) & np.int64(15)) - 8
                    if x < 0:
                        neg -= x
                    elif x > rec_ge[MAX_PLAYERS * (c + 1) + d]:
                        ok = False
                if ok and neg <= st_ge[c + 1]:
                    if set_full(table, cnt):
                        table, nxt = set_room(table, nxt, cnt)
                    cnt = set_add(table, nxt, cnt, lab)
        fwd = nxt
        nf = cnt
    # backward: the labels before colour c + 1 from which the rest finishes (for c + 1 = 6: the end)
    done, back, nb = new_set()
    if bcnt[7] <= cfix + 1:  # kept from a call before: rebuild the set
        off = bcnt[cfix + 1]
        for i in range(bcnt[8 + cfix + 1]):
            if set_full(done, nb):
                done, back = set_room(done, back, nb)
            nb = set_add(done, back, nb, bl[off + i])
        lo_c = cfix + 1
    else:
        lo_c = NUM_COLOURS
    for bu in range(m + 1 if lo_c == NUM_COLOURS else 0):
        if set_full(done, nb):
            done, back = set_room(done, back, nb)
        nb = set_add(done, back, nb, (np.int64(64) * K_BU + bu) * K_B + K_B0)
    nl = 0
    if lo_c == NUM_COLOURS:
        bl, nl = keep_layer(bl, bcnt, nl, NUM_COLOURS, back, nb)
    for c in range(lo_c - 1, cfix, -1):
        table, prv, cnt = new_set()
        for bu_in in range(m + 1 if c == YELLOW else 1):
            dl, nd = colour_deltas(c, p, n, tc, H, scal, stl, cown, bown, nst, G, np.int64(bu_in), cfix, sub, Dfix,
                                   Rfix, dwork)
            # the steps grouped by their stall balances: the balance bounds are tested once a group
            ng, gdb, gstart, mfb, mbu = group_steps(dl, nd)
            for i in range(nb):
                lab = back[i]
                if c == YELLOW and (lab // K_B) % K_BU != 0:
                    continue  # after yellow the barge count is dropped: keep one copy
                lb = lab % K_B
                lfb = lab // (K_B * K_BU)
                lbu = (lab // K_B) % K_BU
                for g in range(ng):
                    # the label before: lab minus the step
                    db = gdb[g]
                    bv = np.int64(0)
                    ok = True
                    pos = 0
                    for d in range(MAX_PLAYERS):
                        x = ((lb >> np.int64(4 * d)) & np.int64(15)) - ((db >> np.int64(4 * d)) & np.int64(15)) + 8
                        if x < 8 - rec_lt[MAX_PLAYERS * c + d] or x > 8 + nst:
                            ok = False
                            break
                        if x > 8:
                            pos += x - 8
                        bv |= x << np.int64(4 * d)
                    if not ok or pos > st_lt[c]:
                        continue
                    for jj in range(gstart[g], gstart[g + 1]):
                        fb = lfb - mfb[jj]
                        if c == YELLOW:
                            bu = bu_in
                        else:
                            bu = lbu - mbu[jj]
                        if bu < 0 or bu > barge_lt[c] or fb > 64 + fld_lt[c] or fb < 64 - cart_lt[c]:
                            continue
                        if set_full(table, cnt):
                            table, prv = set_room(table, prv, cnt)
                        cnt = set_add(table, prv, cnt, (fb * K_BU + bu) * K_B + bv)
        done = table
        back = prv
        nb = cnt
        bl, nl = keep_layer(bl, bcnt, nl, c, back, nb)
    if lo_c == NUM_COLOURS:
        bcnt[7] = cfix + 1
    # the pending colour's steps joining the two
    found, tuples, nt = new_set()
    for bu_in in range(m + 1 if cfix == YELLOW else 1):
        dl, nd = colour_deltas(cfix, p, n, tc, H, scal, stl, cown, bown, nst, G, np.int64(bu_in), cfix, sub, Dfix,
                               Rfix, dwork)
        if nb < nd:
            # fewer labels after than steps: for each (label before, label after) the one step that
            # joins them (label_plus inverted), looked up among the steps, then checked as below
            ok = join_steps(fwd, nf, back, nb, done, dl, nd, n, m, bu_in, cfix == YELLOW)
            for j in range(nd):
                if ok[j]:
                    t = dl[j] % K_TAG
                    if set_full(found, nt):
                        found, tuples = set_room(found, tuples, nt)
                    nt = set_add(found, tuples, nt, t)
            continue
        for j in range(nd):
            t = dl[j] % K_TAG
            if set_contains(found, t):
                continue
            for i in range(nf):
                if join_ok(fwd[i], dl[j] // K_TAG, done, n, m, bu_in, cfix == YELLOW):
                    if set_full(found, nt):
                        found, tuples = set_room(found, tuples, nt)
                    nt = set_add(found, tuples, nt, t)
                    break
    return tuples, nt, bl, bcnt


@jit
def amount_values(state: np.ndarray, p: int, out: np.ndarray) -> int:
    """Which values the pending amount of a travel payment can take (``out[v] = 1``; returns how
    many): those of some outcome of its colour (:func:`colour_outcomes`). So every outcome of the
    payment is reachable by exactly one sequence of amounts."""
    sub = state[PAY_I] % state[H_NPLAYERS]
    tuples, nt = kept_outcomes(state, p)
    total = 0
    for i in range(nt):
        v = (tuples[i] >> np.int64(8 * sub)) & np.int64(255)
        if out[v] == 0:
            out[v] = 1
            total += 1
    return total


@jit
def kept_outcomes(state: np.ndarray, p: int):
    """The pending colour's outcomes: those kept in the state, or (when they did not fit) searched."""
    nt = state[PAY_TN]
    if nt < 0:
        return colour_outcomes(state, p)
    tuples = np.empty(max(nt, 1), dtype=np.int64)
    copy_range(tuples, 0, state, PAY_T, nt)
    return tuples, nt


@jit
def keep_outcomes(state: np.ndarray, tuples: np.ndarray, nt: int) -> None:
    for i in range(MAX_PAY_OUTCOMES):
        state[PAY_T + i] = tuples[i] if (nt <= MAX_PAY_OUTCOMES and i < nt) else 0
    state[PAY_TN] = nt if nt <= MAX_PAY_OUTCOMES else -1


@jit
def next_amount(state: np.ndarray, p: int, fresh: bool) -> None:
    """Take the amounts that have one value (0 in every way of paying: without a search; else the
    one value every outcome of the colour still has); pay once all are decided. ``fresh``: the
    pending colour's outcomes are to be searched (a new colour, or the payment's start); else the
    kept ones, filtered by the amount just decided."""
    n = state[H_NPLAYERS]
    tc = travel_counts(state, p, n)
    H, scal, stl, cown, bown = pay_context(state, p)
    bl = np.empty(16, dtype=np.int64)  # the backward label sets, shared by the colours of this call
    bcnt = new_back_cache()
    while True:
        k = state[PAY_I]
        if fresh or k % n == 0:
            while k < NUM_COLOURS * n and amount_trivial(tc, stl, cown, bown, p, n, k):
                k += 1
            state[PAY_I] = k
            if k == NUM_COLOURS * n:
                keep_outcomes(state, np.zeros(1, dtype=np.int64), 0)
                finish_payment(state, p)
                return
            tuples, nt, bl, bcnt = colour_outcomes_cached(state, p, bl, bcnt)
        else:
            tuples, nt = kept_outcomes(state, p)
            if state[PAY_TN] >= 0:  # keep those agreeing with the amount just decided
                j0 = k % n - 1
                v0 = state[AGG + NUM_COLOURS * ((p + j0) % n if j0 > 0 else SUPPLY) + k // n]
                if j0 == 0:
                    v0 = 0
                    for r in range(SUPPLY + 1):
                        v0 += state[AGG + NUM_COLOURS * r + k // n]
                kept = 0
                for i in range(nt):
                    if (tuples[i] >> np.int64(8 * j0)) & np.int64(255) == v0:
                        tuples[kept] = tuples[i]
                        kept += 1
                nt = kept
        fresh = False
        keep_outcomes(state, tuples, nt)
        if nt == 0:
            return  # not a payable position (check_state reports it)
        j = k % n
        while j < n:
            v = (tuples[0] >> np.int64(8 * j)) & np.int64(255)
            for i in range(1, nt):
                if (tuples[i] >> np.int64(8 * j)) & np.int64(255) != v:
                    return  # a choice: the agent decides
            set_amount(state, p, v)
            j += 1


@jit
def set_amount(state: np.ndarray, p: int, v: int) -> None:
    """The pending amount is v: the payer's total of the colour goes to the supply row of AGG until
    the receipts are decided, each receipt moves from there to its seat's row."""
    n = state[H_NPLAYERS]
    k = state[PAY_I]
    c = k // n
    j = k % n
    if j == 0:
        state[AGG + NUM_COLOURS * SUPPLY + c] = v
    else:
        state[AGG + NUM_COLOURS * ((p + j) % n) + c] = v
        state[AGG + NUM_COLOURS * SUPPLY + c] -= v
    state[PAY_I] = k + 1


# ---- the stall stage and purchase splits: exact canonical enumeration ---------------------------
@jit
def own_stalls(state: np.ndarray, p: int):
    out = np.empty(NUM_COLOURS, dtype=np.int64)
    k = 0
    for c in range(NUM_COLOURS):
        if state[EQUIP_LOC + NUM_COLOURS * STALL + c] == LOC_OWNED + p:
            out[k] = c
            k += 1
    return out, k


@jit
def stall_recipient(p: int, n: int, rr: int) -> int:
    return SUPPLY if rr == 0 else (p + rr) % n


@jit
def apply_stall_choice(agg: np.ndarray, s: int, code: int, p: int, n: int, sign: int) -> bool:
    """Stall of colour s replaces one good of colour x paid to recipient rr by a good of s (code
    ``1 + 6 rr + x``; 0 = no substitution). False if there is no such good."""
    if code == 0:
        return True
    rr = (code - 1) // NUM_COLOURS
    x = (code - 1) % NUM_COLOURS
    if x == s or rr >= n:
        return False
    r = stall_recipient(p, n, rr)
    if sign > 0 and agg[NUM_COLOURS * r + x] < 1:
        return False
    agg[NUM_COLOURS * r + x] -= sign
    agg[NUM_COLOURS * r + s] += sign
    return True


@jit
def agg_hash(agg: np.ndarray) -> np.uint64:
    h = np.uint64(1469598103934665603)
    for i in range(AGG_LEN):
        h = (h ^ np.uint64(agg[i] & 0xFFFF)) * np.uint64(1099511628211)
    return h


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


@jit
def same_agg(aggs: np.ndarray, j: int, tmp: np.ndarray) -> bool:
    base = AGG_LEN * j
    for i in range(AGG_LEN):
        if aggs[base + i] != tmp[i]:
            return False
    return True


@jit
def canon_dp(inits: np.ndarray, K: int, stalls: np.ndarray, nst: int, H: np.ndarray, p: int, n: int,
             prefix: np.ndarray, plen: int, out: np.ndarray) -> int:
    """Offered options of the next decision of a payment whose remaining choices are: which of the
    ``K`` candidate payments ``inits`` (rows, after scales; e.g. the splits of a purchase), then
    each stall of ``stalls`` in order. ``prefix[:plen]`` are the choices made (the first is the
    candidate index). Each distinct affordable outcome is reachable exactly once, by its
    lexicographically first sequence of choices; an option is offered iff some outcome's first
    sequence continues with it. Writes ``out[opt] = 1`` and returns how many.

    The nodes of level l are the distinct aggregates after l choices, each with the parent and the
    option that first reached it (level 0: the candidates); duplicates are found by hashing."""
    levels = 1 + nst
    par = np.empty(64, dtype=np.int64)
    opt_ = np.empty(64, dtype=np.int64)
    aggs = np.empty(64 * AGG_LEN, dtype=np.int64)
    level_start = np.zeros(levels + 1, dtype=np.int64)
    nn = 0
    tmp = np.empty(AGG_LEN, dtype=np.int64)
    ncodes = 1 + n * NUM_COLOURS
    for lvl in range(levels):
        lo = 0 if lvl == 0 else level_start[lvl - 1]
        hi = 1 if lvl == 0 else level_start[lvl]
        width = K if lvl == 0 else ncodes
        tsize = 16
        while tsize < 2 * (hi - lo) * width:
            tsize *= 2
        table = np.full(tsize, -1, dtype=np.int64)
        for node in range(lo, hi):
            for code in range(width):
                if lvl == 0:
                    copy_range(tmp, 0, inits, AGG_LEN * code, AGG_LEN)
                else:
                    copy_range(tmp, 0, aggs, AGG_LEN * node, AGG_LEN)
                    if not apply_stall_choice(tmp, stalls[lvl - 1], np.int64(code), p, n, np.int64(1)):
                        continue
                h = np.int64(agg_hash(tmp) & np.uint64(tsize - 1))
                dup = False
                while table[h] >= 0:
                    if same_agg(aggs, table[h], tmp):
                        dup = True
                        break
                    h = (h + 1) & (tsize - 1)
                if dup:
                    continue
                if nn >= par.shape[0]:  # full (rarely): grow here, not a call per node
                    par = grow(par, nn + 1)
                    opt_ = grow(opt_, nn + 1)
                    aggs = grow(aggs, AGG_LEN * (nn + 1))
                table[h] = nn
                par[nn] = node if lvl > 0 else -1
                opt_[nn] = code
                copy_range(aggs, AGG_LEN * nn, tmp, 0, AGG_LEN)
                nn += 1
        level_start[lvl + 1] = nn
    # useful: last-level nodes the payer can afford, and their ancestors
    useful = np.zeros(nn, dtype=np.int8)
    for node in range(level_start[levels - 1], nn):
        ok = True
        for c in range(NUM_COLOURS):
            t = 0
            for r in range(SUPPLY + 1):
                t += aggs[AGG_LEN * node + NUM_COLOURS * r + c]
            if t > H[c]:
                ok = False
        k = node if ok else -1
        while k >= 0 and useful[k] == 0:
            useful[k] = 1
            k = par[k]
    # follow the prefix, then list the useful children
    cur = -1
    for d in range(plen + 1):
        lo = level_start[d]
        hi = level_start[d + 1]
        nxt = -1
        count = 0
        for node in range(lo, hi):
            if par[node] != cur:
                continue
            if d == plen:
                if useful[node]:
                    out[opt_[node]] = 1
                    count += 1
            elif opt_[node] == prefix[d]:
                nxt = node
        if d == plen:
            return count
        if nxt < 0:
            return 0
        cur = nxt
    return 0


@jit
def purchase_inits(state: np.ndarray, p: int, slot: int, scal: np.ndarray):
    """The candidate payments of the piece in ``slot`` (after scales), one per split: k goods of the
    row's colour and the rest of the column's, at least 1 of each (a diagonal slot: all of its
    one colour). Returns (the aggregates one after another, how many, the first split k)."""
    e = state[MARKET + slot] - 1
    cost = EQ_COST[e // NUM_COLOURS]
    rc = MARKET_COLOUR[slot // MARKET_W]
    cc = MARKET_COLOUR[slot % MARKET_W]
    inits = np.zeros(cost * AGG_LEN, dtype=np.int64)
    sup = NUM_COLOURS * SUPPLY
    if rc == cc:
        inits[sup + rc] = cost
        apply_scales(inits, np.int64(0), scal)
        return inits, 1, cost
    K = 0
    for k in range(1, cost):
        inits[AGG_LEN * K + sup + rc] = k
        inits[AGG_LEN * K + sup + cc] = cost - k
        apply_scales(inits, np.int64(AGG_LEN * K), scal)
        K += 1
    return inits, K, 1


@jit
def stage_options(state: np.ndarray, p: int, out: np.ndarray) -> int:
    """Options of the pending split / stall decision (``out`` indexed by the option code)."""
    n = state[H_NPLAYERS]
    H, scal, stl, cown, bown = pay_context(state, p)
    stalls, nst = own_stalls(state, p)
    prefix = np.zeros(1 + NUM_COLOURS, dtype=np.int64)
    if state[ACT] == ACT_ACQUIRE:
        inits, K, k0 = purchase_inits(state, p, state[SLOT], scal)
        if state[H_PHASE] == PH_SPLIT:
            plen = 0
        else:
            prefix[0] = state[SPLIT] - k0
            plen = 1
    else:
        inits = np.empty(AGG_LEN, dtype=np.int64)
        copy_range(inits, 0, state, AGG, AGG_LEN)
        K = 1
        plen = 1
    if plen == 1:
        for i in range(state[STALL_K]):
            prefix[1 + i] = state[STALL_CHOICE + i]
        plen += state[STALL_K]
    return canon_dp(inits, K, stalls, nst, H, p, n, prefix, plen, out)


@jit
def purchase_feasible(state: np.ndarray, p: int, slot: int) -> bool:
    """The piece in ``slot`` can be paid (some split, after scales, with stalls)."""
    e = state[MARKET + slot] - 1
    cost = EQ_COST[e // NUM_COLOURS]
    rc = MARKET_COLOUR[slot // MARKET_W]
    cc = MARKET_COLOUR[slot % MARKET_W]
    base = GOODS_S + NUM_COLOURS * p
    spare = 0  # stalls of other colours with a good to spare
    for c in range(NUM_COLOURS):
        if c != rc and c != cc and state[EQUIP_LOC + NUM_COLOURS * STALL + c] == LOC_OWNED + p and state[base + c] > 0:
            spare += 1
    srs = state[EQUIP_LOC + NUM_COLOURS * SCALES + rc] == LOC_OWNED + p
    scs = state[EQUIP_LOC + NUM_COLOURS * SCALES + cc] == LOC_OWNED + p
    hst_r = state[EQUIP_LOC + NUM_COLOURS * STALL + rc] == LOC_OWNED + p
    hst_c = state[EQUIP_LOC + NUM_COLOURS * STALL + cc] == LOC_OWNED + p
    lo, hi = (cost, cost) if rc == cc else (1, cost - 1)
    for k in range(lo, hi + 1):
        if rc == cc:
            pr = cost - (1 if srs and cost > 1 else 0)
            score = spare + stall_score(pr, state[base + rc], hst_r)
        else:
            pr = k - (1 if srs and k > 1 else 0)
            pc = cost - k - (1 if scs and cost - k > 1 else 0)
            score = spare + stall_score(pr, state[base + rc], hst_r) + stall_score(pc, state[base + cc], hst_c)
        if score >= 0:
            return True
    return False


# =============================================================================================
# Other rules
# =============================================================================================
@jit
def build_cost(state: np.ndarray, p: int, f: int, agg: np.ndarray, base: int) -> None:
    """2 wheat and 2 goods of the field's colour to the supply, after scales (into ``agg[base:]``)."""
    H, scal, stl, cown, bown = pay_context(state, p)
    for i in range(AGG_LEN):
        agg[base + i] = 0
    agg[base + NUM_COLOURS * SUPPLY + YELLOW] += BUILD_WHEAT
    agg[base + NUM_COLOURS * SUPPLY + state[FIELD_COLOUR + f]] += BUILD_GOODS
    apply_scales(agg, base, scal)


@jit
def can_build(state: np.ndarray, p: int, f: int) -> bool:
    """A worker of the seat on f, no building there, the seat's building of that colour not yet
    built, own equipment of that colour worth at least 4 VP, and the cost affordable."""
    if state[WORKER + f] != p + 1 or state[BUILDING + f] != 0:
        return False
    c = state[FIELD_COLOUR + f]
    if (state[BUILT + p] >> c) & 1:
        return False
    if equipment_value(state, p, c) < BUILD_EQUIP_VP:
        return False
    base = GOODS_S + NUM_COLOURS * p
    score = 0
    for x in range(NUM_COLOURS):
        pay = (BUILD_WHEAT if x == YELLOW else 0) + (BUILD_GOODS if x == c else 0)
        if pay > 1 and state[EQUIP_LOC + NUM_COLOURS * SCALES + x] == LOC_OWNED + p:
            pay -= 1
        score += stall_score(pay, state[base + x], state[EQUIP_LOC + NUM_COLOURS * STALL + x] == LOC_OWNED + p)
    return score >= 0


@jit
def produce_amount(state: np.ndarray, p: int, c: int) -> int:
    """Goods of colour c a Produce gives: 1 per own worker on a field of c, +1 per such worker on
    the seat's own building, +1 with the seat's tool of c (0 if no worker stands on c)."""
    n = state[H_NPLAYERS]
    k = 0
    for f in range(NUM_FIELDS[n]):
        if state[WORKER + f] == p + 1 and state[FIELD_COLOUR + f] == c:
            k += 1
            if state[BUILDING + f] == p + 1:
                k += 1
    if k == 0:
        return 0
    if state[EQUIP_LOC + NUM_COLOURS * TOOL + c] == LOC_OWNED + p:
        k += 1
    return k


@jit
def market_count(state: np.ndarray) -> int:
    k = 0
    for s in range(MARKET_SLOTS):
        if state[MARKET + s] != 0:
            k += 1
    return k


@jit
def line_empty(state: np.ndarray, is_row: int, i: int) -> bool:
    for j in range(MARKET_W):
        s = MARKET_W * i + j if is_row else MARKET_W * j + i
        if state[MARKET + s] != 0:
            return False
    return True


@jit
def refill_line(state: np.ndarray, is_row: int, i: int) -> None:
    """Lay 5 pieces from the top of the stack on the emptied row / column (left to right, top to
    bottom), while the stack holds 5."""
    if state[STACK_N] < MARKET_W:
        return
    for j in range(MARKET_W):
        s = MARKET_W * i + j if is_row else MARKET_W * j + i
        top = state[STACK_N] - 1
        e = state[STACK + top]
        state[STACK + top] = 0
        state[STACK_N] = top
        state[MARKET + s] = 1 + e
        state[EQUIP_LOC + e] = LOC_MARKET


@jit
def check_end_trigger(state: np.ndarray, p: int) -> None:
    if market_count(state) <= END_MARKET_LEFT:
        state[END_TRIGGERED] = 1
    nb = 0
    for c in range(NUM_COLOURS):
        nb += (state[BUILT + p] >> c) & 1
    if nb >= END_BUILDINGS:
        state[END_TRIGGERED] = 1


@jit
def end_game(state: np.ndarray) -> None:
    n = state[H_NPLAYERS]
    state[H_TERMINAL] = 1
    state[H_DONE] = (1 << n) - 1
    state[H_CURRENT] = 0
    state[H_OWNER] = 0
    state[H_PHASE] = PH_ACTION
    clear_action(state)
    state[ACTIONS_LEFT] = 0


@jit
def clear_action(state: np.ndarray) -> None:
    state[ACT] = ACT_NONE
    state[TARGET] = -1
    state[MOVER] = -1
    state[VISITED] = 0
    for i in range(state[PATH_N]):
        state[PATH + i] = 0
    state[PATH_N] = 0
    for j in range(state[OBL_N]):
        state[OBL_KIND + j] = 0
        state[OBL_WHERE + j] = 0
        state[OBL_COLOUR + j] = 0
        state[OBL_OCC + j] = 0
    state[OBL_N] = 0
    state[PAY_I] = 0
    state[PAY_TN] = 0
    for i in range(MAX_PAY_OUTCOMES):
        state[PAY_T + i] = 0
    for i in range(AGG_LEN):
        state[AGG + i] = 0
    state[STALL_K] = 0
    for i in range(NUM_COLOURS):
        state[STALL_CHOICE + i] = 0
    state[SLOT] = -1
    state[SPLIT] = 0
    state[BUILD_FIELD] = -1
    state[REFILL_CHOICE] = 0
    state[REFILL_CHOICE + 1] = 0


@jit
def end_turn(state: np.ndarray) -> None:
    """Pass the turn to the next seat. At the end of a round (the next seat holds the crest): the
    game ends after the last round; a triggered end makes the next round the last; the safety cap
    on rounds ends the game too."""
    n = state[H_NPLAYERS]
    state[TURNS] += 1
    nxt = (state[H_OWNER] + 1) % n
    if nxt == state[START]:
        state[ROUND] += 1
        if state[FINAL_ROUND] == 1 or state[ROUND] >= state[MAX_ROUNDS]:
            end_game(state)
            return
        if state[END_TRIGGERED] == 1:
            state[FINAL_ROUND] = 1
    state[H_OWNER] = nxt
    state[H_CURRENT] = nxt
    state[ACTIONS_LEFT] = ACTIONS_PER_TURN
    state[H_PHASE] = PH_ACTION


@jit
def complete_action(state: np.ndarray) -> None:
    """The action in progress is over: one action fewer this turn (extras were added already)."""
    clear_action(state)
    state[ACTIONS_LEFT] -= 1
    if state[ACTIONS_LEFT] > 0:
        state[H_PHASE] = PH_ACTION
    else:
        end_turn(state)


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


@jit
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


@jit
def tiebreak_goods(state: np.ndarray, p: int) -> int:
    """Goods left after the goods of the scored triples go back to the supply."""
    total = 0
    for c in range(NUM_COLOURS):
        total += goods(state, p, c)
    return total - 3 * goods_triples(state, p)


# =============================================================================================
# Setup
# =============================================================================================
@jit
def assign_colours(state: np.ndarray) -> None:
    """Field colours from the tiles on the places and their directions."""
    n = state[H_NPLAYERS]
    for f in range(MAX_FIELDS):
        state[FIELD_COLOUR + f] = -1
    for pl in range(NUM_PLACES[n]):
        t = state[PLACE_TILE + pl]
        for i in range(FIELDS_PER_VILLAGE):
            j = FIELDS_PER_VILLAGE - 1 - i if state[PLACE_FLIP + pl] else i
            state[FIELD_COLOUR + FIELDS_PER_VILLAGE * pl + i] = PATTERN[t, j]


@jit
def setup_map(state: np.ndarray, random_villages: bool) -> None:
    """Villages to their places (and each a direction) at random from the seed; or V1.. in order."""
    n = state[H_NPLAYERS]
    tiles = np.arange(NUM_TILES, dtype=np.int64)
    if random_villages:
        rng_shuffle(state, H_RNG, tiles, 0, NUM_TILES)
    for pl in range(MAX_PLACES):
        if pl < NUM_PLACES[n]:
            state[PLACE_TILE + pl] = tiles[pl]
            state[PLACE_FLIP + pl] = rng_below(state, H_RNG, 2) if random_villages else 0
        else:
            state[PLACE_TILE + pl] = -1
            state[PLACE_FLIP + pl] = 0
    assign_colours(state)


@jit
def setup_equipment(state: np.ndarray) -> None:
    """36 pieces shuffled: 25 face up on the market, the stack (10 / 5 / 0), the rest out of the game."""
    n = state[H_NPLAYERS]
    pieces = np.arange(NUM_EQUIP, dtype=np.int64)
    rng_shuffle(state, H_RNG, pieces, 0, NUM_EQUIP)
    for s in range(MARKET_SLOTS):
        state[MARKET + s] = 1 + pieces[s]
        state[EQUIP_LOC + pieces[s]] = LOC_MARKET
    k = STACK_BY_COUNT[n]
    for i in range(MAX_STACK):
        state[STACK + i] = 0
    for i in range(k):
        e = pieces[MARKET_SLOTS + i]
        state[STACK + i] = e
        state[EQUIP_LOC + e] = LOC_STACK
    state[STACK_N] = k
    for i in range(MARKET_SLOTS + k, NUM_EQUIP):
        state[EQUIP_LOC + pieces[i]] = LOC_OUT


# =============================================================================================
# Kernel interface
# =============================================================================================
@jit
def init(state: np.ndarray, params: np.ndarray, seed: np.int64) -> None:
    for i in range(STATE_LEN):
        state[i] = 0
    n = params[P_PLAYERS]
    rng_seed(state, H_RNG, seed)
    state[H_NPLAYERS] = n
    state[START] = params[P_START]
    state[MAX_ROUNDS] = params[P_MAX_ROUNDS]
    setup_map(state, params[P_RANDOM_VILLAGES] != 0)
    setup_equipment(state)
    clear_action(state)
    state[SETUP_LEFT] = n
    first = (params[P_START] - 1 + n) % n
    state[H_CURRENT] = first
    state[H_OWNER] = first
    state[H_PHASE] = PH_START
    state[ACTIONS_LEFT] = 0  # the setup offers at least 3 yellow fields to every seat: no forced step


@jit
def legal_mask(state: np.ndarray, mask: np.ndarray) -> int:
    """The legal mask of the decider. A ``mask`` one longer than ``NUM_ACTIONS`` asks only whether
    more than one action is legal: the count may stop at 2 (the mask then incomplete). That is how
    :func:`auto_advance` tells a forced decision from a real one without a second copy of this
    kernel."""
    limit = 2 if mask.shape[0] > NUM_ACTIONS else 0
    mask[:] = 0
    if state[H_TERMINAL]:
        return 0
    ph = state[H_PHASE]
    if ph == PH_ACTION:
        return mask_action(state, mask)
    if ph == PH_PLACE_TARGET or ph == PH_MOVE_WORKER or ph == PH_MOVE_TARGET or ph == PH_ORIGIN or ph == PH_STEP:
        return mask_travel(state, mask, limit)
    if ph == PH_PAY or ph == PH_SPLIT or ph == PH_STALL:
        return mask_payment(state, mask)
    return mask_simple(state, mask)


@jit
def mask_action(state: np.ndarray, mask: np.ndarray) -> int:
    """Which actions can be taken (and completed): Produce always can."""
    p = state[H_CURRENT]
    nf = NUM_FIELDS[state[H_NPLAYERS]]
    count = 0
    found = np.zeros(MAX_FIELDS, dtype=np.int8)
    if place_targets(state, p, found, np.int64(1)) > 0:
        mask[A_KIND + ACT_PLACE] = 1
        count += 1
    src, k = own_worker_fields(state, p)
    move_ok = False
    for i in range(k):  # a free field beside a worker in its village: a free move
        if free_neighbour_same_village(state, src[i]):
            move_ok = True
            break
    if not move_ok:
        keys, vals, scratch, labels = new_cache()
        for i in range(k):
            found[:] = 0
            if move_targets(state, p, src[i], found, np.int64(1), keys, vals, scratch, labels) > 0:
                move_ok = True
                break
    if move_ok:
        mask[A_KIND + ACT_MOVE] = 1
        count += 1
    mask[A_KIND + ACT_PRODUCE] = 1
    count += 1
    for s in range(MARKET_SLOTS):
        if state[MARKET + s] != 0 and purchase_feasible(state, p, s):
            mask[A_KIND + ACT_ACQUIRE] = 1
            count += 1
            break
    for f in range(nf):
        if can_build(state, p, f):
            mask[A_KIND + ACT_BUILD] = 1
            count += 1
            break
    return count


@jit
def mask_travel(state: np.ndarray, mask: np.ndarray, limit: int) -> int:
    """Targets, the worker to move, the origin of a Place, the next step."""
    p = state[H_CURRENT]
    n = state[H_NPLAYERS]
    nf = NUM_FIELDS[n]
    ph = state[H_PHASE]
    count = 0
    if ph == PH_PLACE_TARGET or ph == PH_MOVE_TARGET:
        found = np.zeros(MAX_FIELDS, dtype=np.int8)
        if ph == PH_PLACE_TARGET:
            place_targets(state, p, found, limit)
        else:
            keys, vals, scratch, labels = new_cache()
            move_targets(state, p, state[MOVER], found, limit, keys, vals, scratch, labels)
        for f in range(nf):
            if found[f]:
                mask[A_FIELD + f] = 1
                count += 1
        return count
    if ph == PH_STEP:
        cur = state[PATH + state[PATH_N] - 1]
        keys, vals, scratch, labels = new_cache()
        for d in range(4):
            v = NEIGH[n, cur, d]
            if v < 0 or (state[VISITED] >> np.int64(v)) & np.int64(1):
                continue
            if step_ok(state, p, v, keys, vals, scratch, labels):
                mask[A_FIELD + v] = 1
                count += 1
                if limit > 0 and count >= limit:
                    return count
        return count
    found = np.zeros(MAX_FIELDS, dtype=np.int8)
    src, k = own_worker_fields(state, p)
    keys, vals, scratch, labels = new_cache()
    for i in range(k):
        if ph == PH_ORIGIN:
            ok = origin_ok(state, p, src[i], keys, vals, scratch, labels)
        else:
            found[:] = 0
            ok = move_targets(state, p, src[i], found, np.int64(1), keys, vals, scratch, labels) > 0
        if ok:
            mask[A_FIELD + src[i]] = 1
            count += 1
            if limit > 0 and count >= limit:
                return count
    return count


@jit
def mask_payment(state: np.ndarray, mask: np.ndarray) -> int:
    """How the next obligation is paid, the purchase split, the next stall's substitution."""
    p = state[H_CURRENT]
    ph = state[H_PHASE]
    count = 0
    opts = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if ph == PH_PAY:
        count = amount_values(state, p, opts)
        for v in range(MAX_AMOUNT):
            if opts[v]:
                mask[A_AMOUNT + v] = 1
        return count
    else:
        stage_options(state, p, opts)
        base = A_STALL
        if ph == PH_SPLIT:
            H, scal, stl, cown, bown = pay_context(state, p)
            inits, K, k0 = purchase_inits(state, p, state[SLOT], scal)
            base = A_SPLIT + k0 - 1
    for o in range(STALL_OPTIONS):
        if opts[o]:
            mask[base + o] = 1
            count += 1
    return count


@jit
def mask_simple(state: np.ndarray, mask: np.ndarray) -> int:
    """The starting field, Produce's colour, the market slot, where to build, the exchange, the
    refill."""
    p = state[H_CURRENT]
    nf = NUM_FIELDS[state[H_NPLAYERS]]
    ph = state[H_PHASE]
    count = 0
    if ph == PH_START:
        for f in range(nf):
            if state[FIELD_COLOUR + f] == YELLOW and state[WORKER + f] == 0:
                mask[A_FIELD + f] = 1
                count += 1
    elif ph == PH_PRODUCE:
        for c in range(NUM_COLOURS):
            if produce_amount(state, p, c) > 0:
                mask[A_COLOUR + c] = 1
                count += 1
    elif ph == PH_ACQUIRE:
        for s in range(MARKET_SLOTS):
            if state[MARKET + s] != 0 and purchase_feasible(state, p, s):
                mask[A_SLOT + s] = 1
                count += 1
    elif ph == PH_BUILD:
        for f in range(nf):
            if can_build(state, p, f):
                mask[A_FIELD + f] = 1
                count += 1
    elif ph == PH_EXCHANGE:
        mask[A_EXCHANGE] = 1
        count += 1
        for a in range(NUM_COLOURS):
            if goods(state, p, a) > 0:
                for b in range(NUM_COLOURS):
                    if b != a:
                        mask[A_EXCHANGE + 1 + NUM_COLOURS * a + b] = 1
                        count += 1
    elif ph == PH_REFILL:
        mask[A_REFILL] = 1
        mask[A_REFILL + 1] = 1
        count += 2
    return count


# ---- applying a decision -------------------------------------------------------------------------
@jit
def gain(state: np.ndarray, p: int, c: int, k: int) -> None:
    state[GOODS_S + NUM_COLOURS * p + c] += k


@jit
def start_payment(state: np.ndarray, p: int) -> None:
    """After a travel's last step: the obligations, then the amounts of the payment (the placement
    wheat is part of the yellow one)."""
    for i in range(AGG_LEN):
        state[AGG + i] = 0
    build_obligations(state, p)
    state[PAY_I] = 0
    state[H_PHASE] = PH_PAY
    next_amount(state, p, True)


@jit
def begin_stalls(state: np.ndarray, p: int) -> None:
    stalls, nst = own_stalls(state, p)
    state[STALL_K] = 0
    if nst == 0:
        finish_payment(state, p)
    else:
        state[H_PHASE] = PH_STALL


@jit
def finish_payment(state: np.ndarray, p: int) -> None:
    """Hand over the goods of AGG (stall choices applied), then the action's effect."""
    n = state[H_NPLAYERS]
    stalls, nst = own_stalls(state, p)
    agg = np.empty(AGG_LEN, dtype=np.int64)
    copy_range(agg, 0, state, AGG, AGG_LEN)
    for i in range(nst):
        apply_stall_choice(agg, stalls[i], state[STALL_CHOICE + i], p, n, np.int64(1))
    for c in range(NUM_COLOURS):
        for r in range(SUPPLY + 1):
            v = agg[NUM_COLOURS * r + c]
            state[GOODS_S + NUM_COLOURS * p + c] -= v
            if r != SUPPLY:
                state[GOODS_S + NUM_COLOURS * r + c] += v
    act = state[ACT]
    if act == ACT_PLACE:
        finish_place(state, p)
    elif act == ACT_MOVE:
        t = state[TARGET]
        state[WORKER + state[MOVER]] = 0
        state[WORKER + t] = p + 1
        gain(state, p, state[FIELD_COLOUR + t], np.int64(1))
        complete_action(state)
    elif act == ACT_ACQUIRE:
        finish_purchase(state, p)
    else:
        finish_build(state, p)


@jit
def finish_place(state: np.ndarray, p: int) -> None:
    """The new worker goes on the target and gains a good of its colour; the 8th / 9th may exchange
    a good; the 10th gives an extra action."""
    t = state[TARGET]
    state[WORKER + t] = p + 1
    state[WORKERS_ON_MAP + p] += 1
    gain(state, p, state[FIELD_COLOUR + t], np.int64(1))
    k = state[WORKERS_ON_MAP + p]
    if k == EXTRA_ACTION_WORKER:
        state[ACTIONS_LEFT] += 1
    if k == 8 or k == 9:
        clear_action(state)
        state[ACT] = ACT_PLACE
        state[H_PHASE] = PH_EXCHANGE
        return
    complete_action(state)


@jit
def finish_purchase(state: np.ndarray, p: int) -> None:
    """The piece goes to the buyer; an emptied row / column is refilled (the buyer chooses when both
    empty at once); a barrel gives an extra action; the end may trigger."""
    s = state[SLOT]
    e = state[MARKET + s] - 1
    state[MARKET + s] = 0
    state[EQUIP_LOC + e] = LOC_OWNED + p
    if e // NUM_COLOURS == BARREL:
        state[ACTIONS_LEFT] += 1
    row = s // MARKET_W
    col = s % MARKET_W
    re = line_empty(state, np.int64(1), row)
    ce = line_empty(state, np.int64(0), col)
    if state[STACK_N] >= REFILL and re and ce:
        clear_action(state)
        state[ACT] = ACT_ACQUIRE
        state[REFILL_CHOICE] = row
        state[REFILL_CHOICE + 1] = col
        state[H_PHASE] = PH_REFILL
        return
    if re:
        refill_line(state, np.int64(1), row)
    elif ce:
        refill_line(state, np.int64(0), col)
    check_end_trigger(state, p)
    complete_action(state)


@jit
def finish_build(state: np.ndarray, p: int) -> None:
    """The building goes up; the k-th of the game (k <= 7) takes the VP tile 8 - k."""
    f = state[BUILD_FIELD]
    c = state[FIELD_COLOUR + f]
    state[BUILDING + f] = p + 1
    state[BUILT + p] |= 1 << c
    state[BUILDINGS_TOTAL] += 1
    k = state[BUILDINGS_TOTAL]
    if k <= VP_TILE_ARR.shape[0]:
        state[VP_TILES_S + p] += VP_TILE_ARR[k - 1]
    check_end_trigger(state, p)
    complete_action(state)


@jit
def step_to(state: np.ndarray, p: int, v: int) -> None:
    state[PATH + state[PATH_N]] = v
    state[PATH_N] += 1
    state[VISITED] |= bit(v)
    if v == state[TARGET]:
        start_payment(state, p)


@jit
def apply_decision(state: np.ndarray, action: int) -> None:
    p = state[H_CURRENT]
    n = state[H_NPLAYERS]
    ph = state[H_PHASE]
    if ph == PH_START:
        f = action - A_FIELD
        state[WORKER + f] = p + 1
        state[WORKERS_ON_MAP + p] = 1
        pl = place_of(f)
        for i in range(FIELDS_PER_VILLAGE):
            gain(state, p, state[FIELD_COLOUR + FIELDS_PER_VILLAGE * pl + i], np.int64(1))
        state[SETUP_LEFT] -= 1
        if state[SETUP_LEFT] > 0:
            nxt = (p - 1 + n) % n
        else:
            nxt = state[START]
            state[H_PHASE] = PH_ACTION
            state[ACTIONS_LEFT] = ACTIONS_PER_TURN
        state[H_CURRENT] = nxt
        state[H_OWNER] = nxt
    elif ph == PH_ACTION:
        kind = action - A_KIND
        state[ACT] = kind
        if kind == ACT_PLACE:
            state[H_PHASE] = PH_PLACE_TARGET
        elif kind == ACT_MOVE:
            state[H_PHASE] = PH_MOVE_WORKER
        elif kind == ACT_PRODUCE:
            state[H_PHASE] = PH_PRODUCE
        elif kind == ACT_ACQUIRE:
            state[H_PHASE] = PH_ACQUIRE
        else:
            state[H_PHASE] = PH_BUILD
    elif ph == PH_PLACE_TARGET:
        state[TARGET] = action - A_FIELD
        state[H_PHASE] = PH_ORIGIN
    elif ph == PH_ORIGIN:
        o = action - A_FIELD
        state[PATH] = o
        state[PATH_N] = 1
        state[VISITED] = bit(o)
        state[H_PHASE] = PH_STEP
    elif ph == PH_MOVE_WORKER:
        state[MOVER] = action - A_FIELD
        state[H_PHASE] = PH_MOVE_TARGET
    elif ph == PH_MOVE_TARGET:
        state[TARGET] = action - A_FIELD
        o = state[MOVER]
        state[PATH] = o
        state[PATH_N] = 1
        state[VISITED] = bit(o)
        state[H_PHASE] = PH_STEP
    elif ph == PH_STEP:
        step_to(state, p, action - A_FIELD)
    elif ph == PH_PAY:
        set_amount(state, p, action - A_AMOUNT)
        next_amount(state, p, False)
    elif ph == PH_PRODUCE:
        c = action - A_COLOUR
        gain(state, p, c, produce_amount(state, p, c))
        complete_action(state)
    elif ph == PH_ACQUIRE:
        state[SLOT] = action - A_SLOT
        state[H_PHASE] = PH_SPLIT
    elif ph == PH_SPLIT:
        k = action - A_SPLIT + 1
        state[SPLIT] = k
        H, scal, stl, cown, bown = pay_context(state, p)
        inits, K, k0 = purchase_inits(state, p, state[SLOT], scal)
        copy_range(state, AGG, inits, AGG_LEN * (k - k0), AGG_LEN)
        begin_stalls(state, p)
    elif ph == PH_STALL:
        state[STALL_CHOICE + state[STALL_K]] = action - A_STALL
        state[STALL_K] += 1
        stalls, nst = own_stalls(state, p)
        if state[STALL_K] == nst:
            finish_payment(state, p)
    elif ph == PH_BUILD:
        f = action - A_FIELD
        state[BUILD_FIELD] = f
        build_cost(state, p, f, state, np.int64(AGG))
        begin_stalls(state, p)
    elif ph == PH_EXCHANGE:
        code = action - A_EXCHANGE
        if code > 0:
            a = (code - 1) // NUM_COLOURS
            b = (code - 1) % NUM_COLOURS
            gain(state, p, a, np.int64(-1))
            gain(state, p, b, np.int64(1))
        complete_action(state)
    elif ph == PH_REFILL:
        if action - A_REFILL == 0:
            refill_line(state, np.int64(1), state[REFILL_CHOICE])
        else:
            refill_line(state, np.int64(0), state[REFILL_CHOICE + 1])
        check_end_trigger(state, p)
        complete_action(state)


@jit
def auto_advance(state: np.ndarray) -> None:
    """Apply every decision that has a single option."""
    mask = np.zeros(NUM_ACTIONS + 1, dtype=np.int8)
    while not state[H_TERMINAL]:
        if legal_mask(state, mask) != 1:
            return
        a = 0
        while mask[a] == 0:
            a += 1
        apply_decision(state, a)


@jit
def apply(state: np.ndarray, action: int) -> None:
    count_decision(state)
    apply_decision(state, action)
    auto_advance(state)


@jit
def scores(state: np.ndarray, out: np.ndarray) -> None:
    for p in range(state[H_NPLAYERS]):
        out[p] = float(final_score(state, p))


@jit
def rank_keys(state: np.ndarray, out: np.ndarray) -> None:
    """Most VP first; a tie goes to more goods left after the triples; still tied: shared."""
    for p in range(state[H_NPLAYERS]):
        out[p] = float(final_score(state, p)) * 1e6 + float(min(tiebreak_goods(state, p), 999_999))


# =============================================================================================
# Observation
# =============================================================================================
@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    """Flat int8 vector laid out as ``layout.OBS[n]`` (seat-relative: ``rel = (seat - player) mod
    n``). Goods are unlimited: counts are clipped to 127. The stack shows by size only; which pieces
    are in it or out of the game is never shown."""
    n = state[H_NPLAYERS]
    off = OBS_OFF[n]
    out[:] = 0
    nf = NUM_FIELDS[n]
    fs = NUM_COLOURS + 2 * n + 4
    ph = state[H_PHASE]
    paying = not state[H_TERMINAL] and ph == PH_PAY
    cur = state[PATH + state[PATH_N] - 1] if state[PATH_N] > 0 else -1
    for f in range(nf):
        base = off[O_FIELDS] + fs * f
        out[base + state[FIELD_COLOUR + f]] = 1
        w = state[WORKER + f]
        if w:
            out[base + NUM_COLOURS + (w - 1 - player + n) % n] = 1
        b = state[BUILDING + f]
        if b:
            out[base + NUM_COLOURS + n + (b - 1 - player + n) % n] = 1
        t = base + NUM_COLOURS + 2 * n
        if (state[VISITED] >> np.int64(f)) & np.int64(1):
            out[t] = 1
        if f == cur:
            out[t + 1] = 1
        if f == state[TARGET]:
            out[t + 2] = 1
        if paying and f != cur and (state[VISITED] >> np.int64(f)) & np.int64(1) and f != state[PATH]:
            out[t + 3] = 1
    for q in range(n):
        rel = (q - player + n) % n
        base = off[O_SEATS] + OBS_SEAT * rel
        for c in range(NUM_COLOURS):
            out[base + c] = clip8(goods(state, q, c))
        for e in range(NUM_EQUIP):
            if state[EQUIP_LOC + e] == LOC_OWNED + q:
                out[base + NUM_COLOURS + e] = 1
        out[base + NUM_COLOURS + NUM_EQUIP] = state[WORKERS_ON_MAP + q]
        for c in range(NUM_COLOURS):
            out[base + NUM_COLOURS + NUM_EQUIP + 1 + c] = (state[BUILT + q] >> c) & 1
        out[base + NUM_COLOURS + NUM_EQUIP + 1 + NUM_COLOURS] = clip8(state[VP_TILES_S + q])
    for s in range(MARKET_SLOTS):
        v = state[MARKET + s]
        if v:
            e = v - 1
            out[off[O_MARKET] + 2 * NUM_COLOURS * s + e // NUM_COLOURS] = 1
            out[off[O_MARKET] + 2 * NUM_COLOURS * s + NUM_COLOURS + e % NUM_COLOURS] = 1
    out[off[O_STACK_N]] = state[STACK_N]
    k = state[BUILDINGS_TOTAL]
    out[off[O_NEXT_VP]] = VP_TILE_ARR[k] if k < VP_TILE_ARR.shape[0] else 0
    out[off[O_END]] = state[END_TRIGGERED]
    out[off[O_END] + 1] = state[FINAL_ROUND]
    out[off[O_ACTIONS_LEFT]] = clip8(state[ACTIONS_LEFT])
    out[off[O_ROUND]] = clip8(state[ROUND])
    if not state[H_TERMINAL]:
        out[off[O_PHASE] + ph] = 1
        if state[ACT] >= 0:
            out[off[O_ACT] + state[ACT]] = 1
        for c in range(NUM_COLOURS):
            out[off[O_PAY_SUPPLY] + c] = clip8(state[AGG + NUM_COLOURS * SUPPLY + c])
        for q in range(n):
            rel = (q - player + n) % n
            for c in range(NUM_COLOURS):
                out[off[O_PAY_SEATS] + NUM_COLOURS * rel + c] = clip8(state[AGG + NUM_COLOURS * q + c])
        if ph == PH_PAY:
            k = state[PAY_I]
            j = k % n
            ob = off[O_AMOUNT]
            out[ob + (1 if j > 0 else 0)] = 1
            out[ob + 2 + k // n] = 1
            if j > 0:
                out[ob + 2 + NUM_COLOURS + (state[H_CURRENT] + j - player + n) % n] = 1
        if ph == PH_STALL:
            stalls, nst = own_stalls(state, state[H_CURRENT])
            if state[STALL_K] < nst:
                out[off[O_STALL] + stalls[state[STALL_K]]] = 1
        if state[SLOT] >= 0:
            out[off[O_SLOT] + state[SLOT]] = 1
        out[off[O_SPLIT]] = state[SPLIT]
        out[off[O_OWNER] + (state[H_OWNER] - player + n) % n] = 1
    out[off[O_START] + (state[START] - player + n) % n] = 1


# =============================================================================================
# Hidden information
# =============================================================================================
@jit
def resample(state: np.ndarray, player: int, seed: np.int64) -> None:
    """Redeal the pieces nobody has seen (the face-down stack and those that left the game at setup:
    the same for every seat) uniformly, keeping the stack's size; reseed the generator."""
    rng_seed(state, H_RNG, seed)
    hidden = np.empty(NUM_EQUIP, dtype=np.int64)
    k = 0
    for e in range(NUM_EQUIP):
        if state[EQUIP_LOC + e] == LOC_STACK or state[EQUIP_LOC + e] == LOC_OUT:
            hidden[k] = e
            k += 1
    rng_shuffle(state, H_RNG, hidden, 0, k)
    ns = state[STACK_N]
    for i in range(k):
        e = hidden[i]
        if i < ns:
            state[STACK + i] = e
            state[EQUIP_LOC + e] = LOC_STACK
        else:
            state[EQUIP_LOC + e] = LOC_OUT


# =============================================================================================
# Validation
# =============================================================================================
@jit
def check_state(state: np.ndarray, params: np.ndarray) -> int:
    """0 if ``state`` is a sound position for ``params``, else (first bad slot) + 1."""
    n = params[P_PLAYERS]
    bad = check_header(state, n, NUM_PHASES)
    if bad:
        return bad
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
    # the map
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
    nf = NUM_FIELDS[n]
    for pl in range(NUM_PLACES[n]):
        t = state[PLACE_TILE + pl]
        for i in range(FIELDS_PER_VILLAGE):
            j = FIELDS_PER_VILLAGE - 1 - i if state[PLACE_FLIP + pl] else i
            if state[FIELD_COLOUR + FIELDS_PER_VILLAGE * pl + i] != PATTERN[t, j]:
                return FIELD_COLOUR + FIELDS_PER_VILLAGE * pl + i + 1
    workers = np.zeros(MAX_PLAYERS, dtype=np.int64)
    built = np.zeros(MAX_PLAYERS, dtype=np.int64)
    nbuild = 0
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
            nbuild += 1
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
    if state[BUILDINGS_TOTAL] != nbuild:
        return BUILDINGS_TOTAL + 1
    # setup: the first SETUP_LEFT seats in reverse order from the start have no worker yet
    placed = n - state[SETUP_LEFT]
    for p in range(n):
        # the i-th to place (0-based) is start - 1 - i
        i = (state[START] - 1 - p + 2 * n) % n
        has = state[WORKERS_ON_MAP + p] > 0
        if has != (i < placed):
            return WORKERS_ON_MAP + p + 1
    # equipment: each piece in exactly one place
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
    # the VP tiles taken are those of the first buildings
    tiles = 0
    for k in range(min(nbuild, VP_TILE_ARR.shape[0])):
        tiles += VP_TILE_ARR[k]
    total = 0
    for p in range(n):
        total += state[VP_TILES_S + p]
    if total != tiles:
        return VP_TILES_S + 1
    # the turn
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


#: groups of context slots a pending decision uses (the others hold their unused values)
U_TARGET = 1  # TARGET
U_MOVER = 2  # MOVER
U_PATH = 4  # VISITED, PATH_N, PATH
U_PAY = 8  # OBL_N, OBL_*, PAY_I, PAY_TN, PAY_T, AGG
U_PURCHASE = 16  # SLOT, SPLIT
U_BUILD = 32  # BUILD_FIELD
U_STALL = 64  # STALL_K, STALL_CHOICE, AGG
U_REFILL = 128  # REFILL_CHOICE


@jit
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
    if state[OBL_N] != 0 or state[PAY_I] != 0:
        return OBL_N + 1
    if state[PAY_TN] != 0 or unkept_outcomes(state):
        return PAY_TN + 1
    for i in range(AGG_LEN):
        if state[AGG + i] != 0:
            return AGG + i + 1
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
def check_turn_context(state: np.ndarray, n: int) -> int:
    """The context slots of the pending decision: only the slots its action uses are set (the rest
    hold their unused values, checked first: kernels index with some of them in every phase), and
    they describe a position the decision can be taken in."""
    ph = state[H_PHASE]
    act = state[ACT]
    p = state[H_CURRENT]
    nf = NUM_FIELDS[n]
    bad = check_unused(state, phase_uses(ph, act))
    if bad:
        return bad
    if ph == PH_ACTION:
        if act != ACT_NONE:
            return ACT + 1
        return check_idle_context(state)
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
    if ph == PH_EXCHANGE:
        k = state[WORKERS_ON_MAP + p]
        if k != 8 and k != 9:
            return WORKERS_ON_MAP + p + 1
        return check_idle_context(state)
    if ph == PH_REFILL:
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
    traveling = ph == PH_ORIGIN or ph == PH_STEP or ph == PH_PAY or ph == PH_MOVE_TARGET
    if traveling or ph == PH_PLACE_TARGET or ph == PH_MOVE_WORKER:
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
        visited = np.int64(0)
        for i in range(MAX_FIELDS):
            f = state[PATH + i]
            if i >= npath:
                if f != 0:
                    return PATH + i + 1
                continue
            if f < 0 or f >= nf or (visited >> np.int64(f)) & np.int64(1):
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
        if t >= 0 and state[WORKER + t] != 0:
            return TARGET + 1
        arrived = npath > 0 and state[PATH + npath - 1] == t
        if (ph == PH_PAY) != arrived:
            return PATH_N + 1
        if ph == PH_PAY:
            return check_payment(state, p, n)
        if state[OBL_N] != 0 or state[PAY_I] != 0:
            return OBL_N + 1
        if state[PAY_TN] != 0 or unkept_outcomes(state):
            return PAY_TN + 1
        for i in range(AGG_LEN):
            if state[AGG + i] != 0:
                return AGG + i + 1
        return 0
    if ph == PH_ACQUIRE or ph == PH_PRODUCE or ph == PH_BUILD:
        if state[SLOT] != -1 or state[SPLIT] != 0 or state[BUILD_FIELD] != -1 or state[TARGET] != -1:
            return SLOT + 1
        return 0
    if ph == PH_SPLIT or (ph == PH_STALL and act == ACT_ACQUIRE):
        s = state[SLOT]
        if s < 0 or s >= MARKET_SLOTS:
            return SLOT + 1
        if state[MARKET + s] == 0:
            return SLOT + 1
        if ph == PH_SPLIT:
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
    if ph == PH_STALL and act == ACT_BUILD:
        f = state[BUILD_FIELD]
        if f < 0 or f >= nf or not can_build(state, p, f):
            return BUILD_FIELD + 1
        agg = np.zeros(AGG_LEN, dtype=np.int64)
        build_cost(state, p, f, agg, np.int64(0))
        for i in range(AGG_LEN):
            if state[AGG + i] != agg[i]:
                return AGG + i + 1
        return check_stall_choices(state, p, n)
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
