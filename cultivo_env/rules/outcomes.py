"""Cultivo rules: the obligations of a travel and its payment, decided as its outcome
(:func:`colour_outcomes`, :func:`amount_values`). Part of :mod:`cultivo_env.rules`; the rules as
implemented: ``docs/rules/cultivo.md``.

The travel's counts (:data:`TC`, ``TC_*``; :func:`travel_counts`):

{TC_TABLE}

:func:`colour_outcomes_cached`'s small array (:data:`SM`, ``SM_*``):

{SM_TABLE}

in which ``DWORK``, :func:`deltas_fill`'s scratch (:data:`DW`, ``DW_*``; ``SM_R``, ``SM_X``,
``SM_XM`` and ``SM_TQ`` are ``SM_DWORK`` plus ``DW_R``, ``DW_X``, ``DW_XM``, ``DW_TQ``), is:

{DW_TABLE}
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    AGG,
    FIELD_COLOUR,
    MAX_OBL,
    MAX_PAY_OUTCOMES,
    MAX_PLAYERS,
    NUM_COLOURS,
    OBL_CANAL_KIND,
    OBL_COLOUR,
    OBL_FIELD_KIND,
    OBL_KIND,
    OBL_N,
    OBL_OCC,
    OBL_WHERE,
    PATH,
    PATH_N,
    PAY_I,
    PAY_T,
    PAY_TN,
    SUPPLY,
    WORKER,
    YELLOW,
)
from cultivo_env.rules.accessors import add_pay_context, copy_range, grow, place_of, write_context
from cultivo_env.rules.travel import travel_wheat
from gamecore.kernel.header import H_NPLAYERS
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.layout import Layout


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
TC = Layout("travel counts")
TC_E = TC.add("E", NUM_COLOURS, "``TC_E + c`` (= ``c``): passed fields of colour c without another player's worker")
TC_Q = TC.add("Q", NUM_COLOURS * MAX_PLAYERS, "``TC_Q + MAX_PLAYERS * c + rr``: passed fields of colour c with the "
              "worker of the seat rr places after the payer (rr = 0 unused)", shape=(NUM_COLOURS, MAX_PLAYERS))
TC_M = TC.add("M", 1, "canals crossed")
TC_W = TC.add("W", 1, "the placement wheat")
TC_LEN = TC.size
assert TC_E == 0  # the kernels index the fields without a foreign worker as tc[c]


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
def set_full(table: np.ndarray, count: int) -> bool:
    """One more key may not fit (:func:`set_put`)."""
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
def set_contains(table: np.ndarray, key: np.int64) -> bool:
    size = table.shape[0]
    h = set_hash(key, size)
    while table[h] >= 0:
        if table[h] == key:
            return True
        h = (h + 1) & (size - 1)
    return False


@jit
def new_table(size: int):
    """An empty set of room for ``size // 2`` keys: (table, the keys in insertion order)."""
    return np.full(size, -1, dtype=np.int64), np.empty(size // 2, dtype=np.int64)


@jit
def set_put(table: np.ndarray, items: np.ndarray, count: int, key: np.int64) -> int:
    """:func:`set_add`, or -1 when the set may have no room for one more key. The loops that fill a
    set call this and give up on -1; their caller retries with a bigger table
    (:func:`new_table`). A loop that regrew its arrays itself (``table, items = <bigger copies>``
    inside it) would have numba count the references of both at every turn of every enclosing
    loop: several times the cost of the insertion."""
    if set_full(table, count):
        return -1
    return set_add(table, items, count, key)


@jit
def set_moved(table: np.ndarray, items: np.ndarray, count: int, size: int):
    """The set's ``count`` keys in a new table of ``size``: (table, items)."""
    big, bitems = new_table(size)
    kept = np.int64(0)
    for i in range(count):
        kept = set_add(big, bitems, kept, items[i])
    return big, bitems


#: keys of :func:`colour_outcomes`. A label: free cart balance + 64 (7 bits), barges used (6 bits),
#: each receiver's stall balance + 8 (4 bits each, the supply first). A colour's step is a delta
#: packed the same way (its barge uses; for yellow, the barges used before it), times ``K_TAG``,
#: plus, for the pending colour, the amounts it gives: the payer's total, then each receipt by rr,
#: 8 bits each (0 for the other colours)
K_TAG = np.int64(1) << np.int64(32)
K_B = 65536
K_BU = 64
K_B0 = 0x8888  # every stall balance 0


#: :func:`deltas_fill`'s scratch: R, X, XM, tq (MAX_PLAYERS each), then where to resume
DW = Layout("deltas_fill's scratch")
DW_R = DW.add("R", MAX_PLAYERS, "goods of the colour the step gives receiver rr (0: the supply, after the scales)")
DW_X = DW.add("X", MAX_PLAYERS, "goods of the colour the stalls replace at receiver rr (an odometer)")
DW_XM = DW.add("XM", MAX_PLAYERS, "the most ``X`` can be at receiver rr")
DW_TQ = DW.add("TQ", MAX_PLAYERS, "carted fields of the colour with the worker of the seat rr places after the payer "
               "(the split being enumerated)")
DW_RESUME = DW.add("RESUME", 1, "0: a fresh enumeration; te + 1: resume at te with the tq kept")
DW_COUNT = DW.add("COUNT", 1, "the keys in the set when it ran out of room")
DWORK_LEN = DW.size
assert DW_RESUME == 4 * MAX_PLAYERS  # a fresh enumeration clears R, X, XM, TQ: the first 4 * MAX_PLAYERS

#: the small arrays of :func:`colour_outcomes_cached` at these offsets of one (``sm``), so that
#: :func:`deltas_fill` and its callers, called for every colour, take one array instead of a dozen
#: (numba counts the references of every array a function binds or slices, at every call): the
#: travel's counts (``TC_*``), the payer's context (:func:`write_context`: goods, own scales and
#: stalls, the owner of each cart and barge), the amounts decided, deltas_fill's scratch, and the
#: bounds of what the colours before / from c can have done. ``SM_R``, ``SM_X``, ``SM_XM`` and
#: ``SM_TQ`` are not blocks of their own: they alias the parts of the scratch block ``DWORK`` (its
#: layout :data:`DW`), ``SM_R`` its start.
SM = Layout("colour_outcomes_cached's small array")
SM_TC = SM.add("TC", TC_LEN, "the travel's counts (:func:`travel_counts`, layout :data:`TC`)")
SM_H, SM_SCAL, SM_STL, SM_COWN, SM_BOWN = add_pay_context(SM)
SM_DFIX = SM.add("DFIX", NUM_COLOURS, "the amounts decided: the payer's total of colour c")
SM_RFIX = SM.add("RFIX", NUM_COLOURS * MAX_PLAYERS, "``SM_RFIX + MAX_PLAYERS * c + rr``: the amounts decided: "
                 "goods of colour c to the seat rr places after the payer", shape=(NUM_COLOURS, MAX_PLAYERS))
SM_DWORK = SM.add("DWORK", DWORK_LEN, ":func:`deltas_fill`'s scratch (layout :data:`DW`)")
SM_R = SM_DWORK + DW_R  # alias: inside DWORK
SM_X = SM_DWORK + DW_X  # alias: inside DWORK
SM_XM = SM_DWORK + DW_XM  # alias: inside DWORK
SM_TQ = SM_DWORK + DW_TQ  # alias: inside DWORK
SM_ST_LT = SM.add("ST_LT", NUM_COLOURS + 1, "stalls of the colours before c")
SM_REC_LT = SM.add("REC_LT", (NUM_COLOURS + 1) * MAX_PLAYERS, "``SM_REC_LT + MAX_PLAYERS * c + rr``: the most "
                   "goods the colours before c can have sent receiver rr, capped at the stalls (rr = 0: the stalls)",
                   shape=(NUM_COLOURS + 1, MAX_PLAYERS))
SM_FLD_LT = SM.add("FLD_LT", NUM_COLOURS + 1, "passed fields of the colours before c")
SM_CART_LT = SM.add("CART_LT", NUM_COLOURS + 1, "the most cart uses of the colours before c")
SM_BARGE_LT = SM.add("BARGE_LT", NUM_COLOURS + 1, "the most barge uses of the colours before c")
SM_ST_GE = SM.add("ST_GE", NUM_COLOURS + 1, "stalls of the colours from c on")
SM_REC_GE = SM.add("REC_GE", (NUM_COLOURS + 1) * MAX_PLAYERS, "``SM_REC_GE + MAX_PLAYERS * c + rr``: the most "
                   "goods the colours from c on can send receiver rr, capped at the stalls (rr = 0: the stalls)",
                   shape=(NUM_COLOURS + 1, MAX_PLAYERS))
SM_FLD_GE = SM.add("FLD_GE", NUM_COLOURS + 1, "passed fields of the colours from c on")
SM_CART_GE = SM.add("CART_GE", NUM_COLOURS + 1, "1 if a colour from c on has a cart")
SMALL_LEN = SM.size

__doc__ = ((__doc__ or "").replace("{TC_TABLE}", TC.table()).replace("{SM_TABLE}", SM.table())
           .replace("{DW_TABLE}", DW.table()))


#: what :func:`deltas_fill` puts in its set for a step: its delta key (times ``K_TAG``); that plus
#: its tag; or, for a step whose delta key is in the filter, its tag alone
TAGS_NONE = 0
TAGS_ALL = 1
TAGS_FILTERED = 2
#: the pending colour's tagged steps are listed in a set of at most this size (keys / 2); past it the
#: join takes its outcomes from the steps that join and a filtered enumeration
JOIN_TAGGED_TABLE = 8192


@jit
def colour_deltas(c: int, p: int, n: int, nst: int, G: int, bu_in: int, cfix: int, sub: int, sm: np.ndarray):
    """The distinct steps of colour c without tags (:func:`deltas_fill`): (keys, how many)."""
    table, items = new_table(128)
    count, table, items = deltas_into(c, p, n, nst, G, bu_in, cfix, sub, sm, np.int64(TAGS_NONE),
                                      np.empty(0, dtype=np.int64), table, items, np.int64(0),
                                      np.int64(1) << np.int64(40))
    return items, count


@ijit
def deltas_into(c: int, p: int, n: int, nst: int, G: int, bu_in: int, cfix: int, sub: int, sm: np.ndarray, mode: int,
                filt: np.ndarray, table: np.ndarray, items: np.ndarray, count: int, max_size: int):
    """:func:`deltas_fill` into the set ``table`` / ``items`` (``count`` keys so far): (the new
    count, table, items); a count of -1 when the set would need a table bigger than ``max_size``.
    When the set runs out of room it is copied into one 4 times bigger and the enumeration resumes
    where it stopped (at the split of the fields it was in: the keys it finds again are already
    there), so the keys come in the order of one uninterrupted enumeration."""
    if table.shape[0] > max_size:
        return np.int64(-1), table, items
    sm[SM_DWORK + DW_RESUME] = 0
    sm[SM_DWORK + DW_COUNT] = count
    while True:
        got = deltas_fill(c, p, n, nst, G, bu_in, cfix, sub, sm, mode, filt, table, items)
        if got >= 0:
            return got, table, items
        if 4 * table.shape[0] > max_size:
            return np.int64(-1), table, items
        table, items = set_moved(table, items, sm[SM_DWORK + DW_COUNT], 4 * table.shape[0])


@jit
def deltas_fill(c: int, p: int, n: int, nst: int, G: int, bu_in: int, cfix: int, sub: int, sm: np.ndarray, mode: int,
                filt: np.ndarray, table: np.ndarray, items: np.ndarray) -> int:
    """The distinct steps of colour c (see :func:`colour_outcomes`): how many fields of each class are
    carted, how often the cart and the barge of c are used, the scales, whether the stall of c
    replaces a good and at which receiver, how many goods of c the stalls replace at each receiver.
    Keeps those giving the amounts decided for c (all when c < cfix, those before the pending one
    when c == cfix). For yellow (the last colour: it pays the canals left with wheat) ``bu_in`` is
    the barges used before it.

    A step's key (``mode``): its delta key times ``K_TAG`` (``TAGS_NONE``); plus its tag, the amounts
    it gives for c: the payer's total, then each receipt by rr, 8 bits each (``TAGS_ALL``); or, with
    ``TAGS_FILTERED``, only the steps whose delta key is in the set ``filt`` count, each adding its
    tag alone: so the pending colour's outcomes can be found from the steps that join
    (:func:`colour_outcomes_cached`) without a set of every (step, tag) pair, tens of thousands in
    the slowest payments.

    ``sm``: the travel's counts, the payer's context, the amounts decided and the scratch (``SM_*``);
    ``DW_RESUME`` of the scratch 0 for a fresh enumeration, ``DW_COUNT`` the keys in the set
    ``table`` / ``items`` (on a resume: those of the enumeration so far). Returns how many keys the
    set holds, or -1 when it had no room, with where to resume and how many keys it holds in the
    scratch."""
    m = sm[SM_TC + TC_M]
    w = sm[SM_TC + TC_W]
    ne = sm[SM_TC + c]
    cap = sm[SM_H + c] + 1 + nst  # no more than this of c is ever paid in a way (scales, stalls)
    umax = min(G, cap) if sm[SM_COWN + c] >= 0 else 0
    left = m - bu_in if c == YELLOW else m
    vmax = min(left, cap) if sm[SM_BOWN + c] >= 0 else 0
    rel_c = (sm[SM_COWN + c] - p + n) % n  # receiver of the cart's / barge's good (0: the payer's own: supply)
    rel_b = (sm[SM_BOWN + c] - p + n) % n
    resume = sm[SM_DWORK + DW_RESUME]
    count = sm[SM_DWORK + DW_COUNT]
    if resume == 0:
        for i in range(4 * MAX_PLAYERS):
            sm[SM_DWORK + i] = 0
    for te in range(max(resume - 1, 0), ne + 1):
        while True:  # every split of the fields with other players' workers into carted / not
            carted = te
            for rr in range(1, n):
                carted += sm[SM_TQ + rr]
            for u in range(umax + 1):
                for v in range(vmax + 1):
                    S = 2 * (ne - te)
                    sm[SM_R + 0] = 0
                    for rr in range(1, n):
                        sm[SM_R + rr] = sm[SM_TC + TC_Q + MAX_PLAYERS * c + rr] - sm[SM_TQ + rr]
                        S += sm[SM_R + rr]
                    if u > 0:
                        if rel_c == 0:
                            S += u
                        else:
                            sm[SM_R + rel_c] += u
                    if v > 0:
                        if rel_b == 0:
                            S += v
                        else:
                            sm[SM_R + rel_b] += v
                    if c == YELLOW:
                        S += 2 * (left - v) + w
                    if sm[SM_SCAL + c] and S > 1:
                        S -= 1
                    sm[SM_R + 0] = S
                    tot = 0
                    for d in range(n):
                        tot += sm[SM_R + d]
                    if tot > cap:
                        continue
                    for d in range(n):
                        sm[SM_XM + d] = min(sm[SM_R + d], nst)
                        sm[SM_X + d] = 0
                    for a in range(-1, n if sm[SM_STL + c] else 0):
                        xs = 0  # the sum of X
                        while True:  # how many goods of c the stalls replace at each receiver
                            D = tot - xs + (1 if a >= 0 else 0)
                            # the stall of c replacing a good of c at its own receiver changes nothing
                            ok = xs <= nst and D <= sm[SM_H + c] and not (a >= 0 and sm[SM_X + a] > 0)
                            if ok and (c < cfix or (c == cfix and sub > 0)) and D != sm[SM_DFIX + c]:
                                ok = False
                            if ok:
                                for rr in range(1, n):
                                    got = sm[SM_R + rr] - sm[SM_X + rr] + (1 if a == rr else 0)
                                    if (c < cfix or (c == cfix and rr < sub)) and \
                                            got != sm[SM_RFIX + MAX_PLAYERS * c + rr]:
                                        ok = False
                            if ok:
                                dbv = np.int64(0)
                                for d in range(MAX_PLAYERS):
                                    db = 0
                                    if d < n:
                                        db = (1 if a == d else 0) - sm[SM_X + d]
                                    dbv |= np.int64(db + 8) << np.int64(4 * d)
                                bu_field = bu_in if c == YELLOW else v
                                key = (np.int64(carted - u + 64) * K_BU + bu_field) * K_B + dbv
                                tag = np.int64(0)
                                if mode != TAGS_NONE:
                                    tag = np.int64(D)
                                    for rr in range(1, n):
                                        got = sm[SM_R + rr] - sm[SM_X + rr] + (1 if a == rr else 0)
                                        tag |= np.int64(got) << np.int64(8 * rr)
                                if mode == TAGS_FILTERED:
                                    key = tag if set_contains(filt, key) else np.int64(-1)
                                else:
                                    key = key * K_TAG + tag
                                nc = count if key < 0 else set_put(table, items, count, key)
                                if nc < 0:
                                    sm[SM_DWORK + DW_RESUME] = te + 1
                                    sm[SM_DWORK + DW_COUNT] = count
                                    return -1
                                count = nc
                            # the next X (at SM_X) in odometer order (X[0] fastest) whose sum is at most nst: the
                            # others are never kept, and once a digit would take the sum past nst,
                            # so would every later value of it
                            d = 0
                            while d < n:
                                if sm[SM_X + d] < sm[SM_XM + d] and xs < nst:
                                    sm[SM_X + d] += 1
                                    xs += 1
                                    break
                                xs -= sm[SM_X + d]
                                sm[SM_X + d] = 0
                                d += 1
                            if d == n:
                                break
            rr = 1
            while rr < n:
                if sm[SM_TQ + rr] < sm[SM_TC + TC_Q + MAX_PLAYERS * c + rr]:
                    sm[SM_TQ + rr] += 1
                    break
                sm[SM_TQ + rr] = 0
                rr += 1
            if rr >= n:
                break
    return count


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
    buf = np.zeros(5 * nd + 5, dtype=np.int64)  # one allocation, five views
    dbs = buf[0:nd]
    gdb = buf[nd: 2 * nd + 1]
    gstart = buf[2 * nd + 1: 3 * nd + 3]
    mfb = buf[3 * nd + 3: 4 * nd + 4]
    mbu = buf[4 * nd + 4: 5 * nd + 5]
    for j in range(nd):
        dbs[j] = (dl[j] // K_TAG) % K_B
    order = np.argsort(dbs, kind="mergesort")
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
def table_size(n: int) -> int:
    """The size of an open-addressing table for ``n`` keys: a power of 2, at least 16 and 2 n."""
    size = 16
    while size < 2 * n:
        size *= 2
    return size


@jit
def join_steps(fwd: np.ndarray, nf: int, back: np.ndarray, nb: int, done: np.ndarray, dl: np.ndarray, nd: int,
               n: int, m: int, bu_in: int, yellow: bool) -> np.ndarray:
    """``ok[j] = 1`` for each step ``dl[j]`` of the pending colour with which some label of
    ``fwd[:nf]`` reaches the set ``done`` (its keys ``back[:nb]``): :func:`join_ok` for every pair,
    in nf * nb step look-ups (a hash table of the steps by key) instead of nf * nd tests.
    :func:`label_plus` adds the stall balances and the cart balance field by field (and the barges,
    except for yellow, whose steps all carry ``bu_in``), so a label before and one after determine
    the step between them; a step found is still checked by :func:`join_ok`."""
    ok = np.zeros(nd, dtype=np.int8)
    # the steps by their delta key (without the tag): an open-addressing table of each key's first
    # step, the others with the same key chained behind it (built in one pass; a sort of the keys
    # took a fifth of the slowest payments, with tens of thousands of steps)
    size = table_size(nd)
    first = np.full(size, -1, dtype=np.int64)
    chain = np.empty(nd, dtype=np.int64)
    dks = np.empty(nd, dtype=np.int64)
    for j in range(nd):
        dk = dl[j] // K_TAG
        dks[j] = dk
        h = set_hash(dk, size)
        while first[h] >= 0 and dks[first[h]] != dk:
            h = (h + 1) & (size - 1)
        chain[j] = first[h]
        first[h] = j
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
            h = set_hash(dk, size)
            while first[h] >= 0 and dks[first[h]] != dk:
                h = (h + 1) & (size - 1)
            j = first[h]
            if j < 0:
                continue  # no step has this key
            pending = False
            k = j
            while k >= 0:
                if ok[k] == 0:
                    pending = True
                    break
                k = chain[k]
            if pending and join_ok(f, dk, done, n, m, bu_in, yellow):
                while j >= 0:  # join_ok depends on the key only: every step with it joins
                    ok[j] = 1
                    j = chain[j]
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
def forward_fill(fwd: np.ndarray, nf: int, dl: np.ndarray, nd: int, n: int, m: int, c: int, fld_ge, cart_ge, rec_ge,
                 st_ge, table: np.ndarray, nxt: np.ndarray) -> int:
    """The labels before colour c + 1: each of ``fwd[:nf]`` (before c) plus each step of c, kept
    when the colours from c + 1 on can still bring its balances back. Fills the set ``table`` /
    ``nxt``; returns how many, or -1 when it had no room (:func:`set_put`)."""
    cnt = 0
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
                cnt = set_put(table, nxt, cnt, lab)
                if cnt < 0:
                    return -1
    return cnt


#: below this many (label after, step) pairs :func:`backward_fill` inserts pair by pair; above it,
#: it shifts bitmaps (:func:`backward_shifted`), whose set-up costs more than a few hundred pairs
SHIFT_MIN_PAIRS = 4096


@ijit
def backward_fill(back: np.ndarray, nb: int, c: int, bu_in: int, dl: np.ndarray, nd: int, n: int, nst: int, rec_lt,
                  st_lt, barge_lt, fld_lt, cart_lt, table: np.ndarray, prv: np.ndarray, cnt: int) -> int:
    """Add to the set ``table`` / ``prv`` (``cnt`` keys so far) the labels before colour c from
    which one of its steps ``dl[:nd]`` (for yellow: those with ``bu_in`` barges used before it)
    reaches a label of ``back[:nb]``, kept when the colours before c can have made them. Returns the
    new count, or -1 when it had no room (:func:`set_put`), and the set: (count, table, prv). The
    same set either way: pair by pair below, or by :func:`backward_shifted` when there are many
    pairs, which moves the set into a bigger table itself when it needs one (the order of the keys
    in ``prv`` differs; nothing reads it as more than a set)."""
    # the steps grouped by their stall balances: the balance bounds are tested once a group
    ng, gdb, gstart, mfb, mbu = group_steps(dl, nd)
    lo_fb = 64 - cart_lt[c]
    hi_fb = 64 + fld_lt[c]
    shifted = nb * nd >= SHIFT_MIN_PAIRS and lo_fb >= 0 and hi_fb <= 127
    if shifted:
        for i in range(nb):  # every cart balance after within the bitmaps' 128 bits
            if back[i] // (K_B * K_BU) > 127:
                shifted = False
                break
    if shifted:
        return backward_shifted(back, nb, c, bu_in, ng, gdb, gstart, mfb, mbu, nst, rec_lt, st_lt, barge_lt,
                                lo_fb, hi_fb, table, prv, cnt)
    for i in range(nb):
        lab = back[i]
        if c == YELLOW and (lab // K_B) % K_BU != 0:
            continue  # after yellow the barge count is dropped: keep one copy
        lb = lab % K_B
        lfb = lab // (K_B * K_BU)
        lbu = (lab // K_B) % K_BU
        for g in range(ng):
            bv = before_balances(lb, gdb[g], c, nst, rec_lt, st_lt)
            if bv < 0:
                continue
            for jj in range(gstart[g], gstart[g + 1]):
                fb = lfb - mfb[jj]
                if c == YELLOW:
                    bu = bu_in
                else:
                    bu = lbu - mbu[jj]
                if bu < 0 or bu > barge_lt[c] or fb > hi_fb or fb < lo_fb:
                    continue
                cnt = set_put(table, prv, cnt, (fb * K_BU + bu) * K_B + bv)
                if cnt < 0:
                    return cnt, table, prv
    return cnt, table, prv


@jit
def before_balances(lb: np.int64, db: np.int64, c: int, nst: int, rec_lt, st_lt) -> np.int64:
    """The stall balances of the label before colour c (``lb``, those of the label after, minus
    ``db``, a step's), or -1 when the colours before c cannot have made them."""
    bv = np.int64(0)
    pos = 0
    for d in range(MAX_PLAYERS):
        x = ((lb >> np.int64(4 * d)) & np.int64(15)) - ((db >> np.int64(4 * d)) & np.int64(15)) + 8
        if x < 8 - rec_lt[MAX_PLAYERS * c + d] or x > 8 + nst:
            return np.int64(-1)
        if x > 8:
            pos += x - 8
        bv |= x << np.int64(4 * d)
    if pos > st_lt[c]:
        return np.int64(-1)
    return bv


@jit
def shift128(lo: np.uint64, hi: np.uint64, t: int):
    """The 128-bit word (lo, hi) shifted towards the high bits by t (towards the low bits if t < 0)."""
    if t == 0:
        return lo, hi
    if t > 0:
        if t >= 128:
            return np.uint64(0), np.uint64(0)
        if t >= 64:
            return np.uint64(0), lo << np.uint64(t - 64)
        return lo << np.uint64(t), (hi << np.uint64(t)) | (lo >> np.uint64(64 - t))
    s = -t
    if s >= 128:
        return np.uint64(0), np.uint64(0)
    if s >= 64:
        return hi >> np.uint64(s - 64), np.uint64(0)
    return (lo >> np.uint64(s)) | (hi << np.uint64(64 - s)), hi >> np.uint64(s)


@jit
def low_bit_index(x: np.uint64) -> int:
    """The index of the lowest set bit of x (x != 0): the bits below it counted."""
    return bit_count((x & (~x + np.uint64(1))) - np.uint64(1))


@jit
def bit_count(v: np.uint64) -> int:
    """The set bits of v (SWAR: the rules also run without numba)."""
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((v * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit
def dense_index(keys: np.ndarray, idx: np.ndarray, dense: np.ndarray, count: int, key: np.int64):
    """The index of ``key`` (>= 0) in the open-addressing map ``keys`` / ``idx`` (a power-of-2 size,
    -1 in an empty slot); a new key gets index ``count`` and goes to ``dense[count]``. Returns
    (index, the new count)."""
    size = keys.shape[0]
    h = set_hash(key, size)
    while keys[h] >= 0 and keys[h] != key:
        h = (h + 1) & (size - 1)
    if keys[h] < 0:
        keys[h] = key
        idx[h] = count
        dense[count] = key
        count += 1
    return idx[h], count


@jit
def backward_shifted(back: np.ndarray, nb: int, c: int, bu_in: int, ng: int, gdb: np.ndarray, gstart: np.ndarray,
                     mfb: np.ndarray, mbu: np.ndarray, nst: int, rec_lt, st_lt, barge_lt, lo_fb: int, hi_fb: int,
                     table: np.ndarray, prv: np.ndarray, cnt: int) -> int:
    """:func:`backward_fill` for many pairs, without inserting one key per pair. A label before is
    (cart balance, barges used, stall balances) = the label after minus a step, and the steps of
    one group share their stall balances: so for each distinct stall-balance word of the labels
    after, a bitmap over (barges used, cart balance) of those labels (128 bits per barge count) is
    shifted by each member of each group and OR-ed into the bitmap of the balances before. Each
    key is then inserted once, into a table big enough for all of them (the set moved into a bigger
    one when needed, so the shifts are never redone). Needs the cart balance bounds ``lo_fb ..
    hi_fb`` within 0 .. 127. Returns (count, table, prv)."""
    yellow = c == YELLOW
    orows = barge_lt[c] + 1  # barges used before c: 0 .. barge_lt[c]
    if yellow and (bu_in < 0 or bu_in >= orows):
        return cnt, table, prv
    # the distinct stall-balance words of the labels after, and each one's bitmap
    lrows = 1
    if not yellow:
        for i in range(nb):
            lbu = (back[i] // K_B) % K_BU
            if lbu + 1 > lrows:
                lrows = lbu + 1
    size = table_size(nb)
    lkey = np.full(size, -1, dtype=np.int64)
    lidx = np.empty(size, dtype=np.int64)
    lbs = np.empty(nb, dtype=np.int64)
    bits = np.zeros(2 * lrows * nb, dtype=np.uint64)
    nlb = 0
    for i in range(nb):
        lab = back[i]
        lbu = (lab // K_B) % K_BU
        if yellow and lbu != 0:
            continue  # after yellow the barge count is dropped: keep one copy
        li, nlb = dense_index(lkey, lidx, lbs, nlb, lab % K_B)
        fb = lab // (K_B * K_BU)
        w = 2 * (lrows * li + (0 if yellow else lbu)) + (fb >> 6)
        bits[w] |= np.uint64(1) << np.uint64(fb & 63)
    # the stall balances before of each (balance word, group) pair, and their distinct values
    pairs = np.full(nlb * ng, -1, dtype=np.int64)
    okey = np.full(table_size(nlb * ng), -1, dtype=np.int64)
    oidx = np.empty(okey.shape[0], dtype=np.int64)
    obv = np.empty(nlb * ng, dtype=np.int64)
    nout = 0
    for li in range(nlb):
        for g in range(ng):
            bv = before_balances(lbs[li], gdb[g], c, nst, rec_lt, st_lt)
            if bv < 0:
                continue
            o, nout = dense_index(okey, oidx, obv, nout, bv)
            pairs[li * ng + g] = o
    out = np.zeros(2 * orows * nout, dtype=np.uint64)
    for li in range(nlb):
        for g in range(ng):
            o = pairs[li * ng + g]
            if o < 0:
                continue
            for jj in range(gstart[g], gstart[g + 1]):
                t = -mfb[jj]
                for sr in range(lrows):
                    lo = bits[2 * (lrows * li + sr)]
                    hi = bits[2 * (lrows * li + sr) + 1]
                    if lo == 0 and hi == 0:
                        continue
                    orow = bu_in if yellow else sr - mbu[jj]
                    if orow < 0 or orow >= orows:
                        continue
                    slo, shi = shift128(lo, hi, t)
                    out[2 * (orows * o + orow)] |= slo
                    out[2 * (orows * o + orow) + 1] |= shi
    # the cart balances allowed, as a 128-bit mask
    mlo = np.uint64(0)
    mhi = np.uint64(0)
    for fb in range(lo_fb, hi_fb + 1):
        if fb < 64:
            mlo |= np.uint64(1) << np.uint64(fb)
        else:
            mhi |= np.uint64(1) << np.uint64(fb - 64)
    new = 0
    for o in range(nout):
        for r in range(orows):
            new += bit_count(out[2 * (orows * o + r)] & mlo) + bit_count(out[2 * (orows * o + r) + 1] & mhi)
    if 2 * (cnt + new) > table.shape[0]:
        size = table.shape[0]
        while 2 * (cnt + new) > size:
            size *= 4
        table, prv = set_moved(table, prv, cnt, size)
    for o in range(nout):
        bv = obv[o]
        for r in range(orows):
            for half in range(2):
                x = out[2 * (orows * o + r) + half] & (mhi if half else mlo)
                while x != np.uint64(0):
                    fb = 64 * half + low_bit_index(x)
                    x &= x - np.uint64(1)
                    cnt = set_add(table, prv, cnt, (np.int64(fb) * K_BU + r) * K_B + bv)
    return cnt, table, prv


@jit
def join_fill(fwd: np.ndarray, nf: int, back: np.ndarray, nb: int, done: np.ndarray, dl: np.ndarray, nd: int, n: int,
              m: int, bu_in: int, yellow: bool, found: np.ndarray, tuples: np.ndarray, nt: int, as_filter: int) -> int:
    """Add to the set ``found`` / ``tuples`` (``nt`` so far) the tags of the pending colour's tagged
    steps ``dl[:nd]`` with which a label of ``fwd[:nf]`` reaches the set ``done`` (its keys
    ``back[:nb]``), in the order of the steps; with ``as_filter`` their delta keys instead (the
    filter of :func:`deltas_fill`). Returns the new count, or -1 - (the count it holds) when it had
    no room: called again with a bigger set, it adds the rest in the same order (a step whose key
    is in the set already is skipped)."""
    if nb < nd:
        # fewer labels after than steps: for each (label before, label after) the one step that
        # joins them (label_plus inverted), looked up among the steps, then checked as below
        ok = join_steps(fwd, nf, back, nb, done, dl, nd, n, m, bu_in, yellow)
        for j in range(nd):
            if ok[j]:
                nxt = set_put(found, tuples, nt, dl[j] // K_TAG if as_filter else dl[j] % K_TAG)
                if nxt < 0:
                    return -1 - nt
                nt = nxt
        return nt
    for j in range(nd):
        t = dl[j] // K_TAG if as_filter else dl[j] % K_TAG
        if set_contains(found, t):
            continue
        for i in range(nf):
            if join_ok(fwd[i], dl[j] // K_TAG, done, n, m, bu_in, yellow):
                nxt = set_put(found, tuples, nt, t)
                if nxt < 0:
                    return -1 - nt
                nt = nxt
                break
    return nt


@ijit
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
    tuples, nt, bl, bcnt = colour_outcomes_cached(state, p, np.empty(16, dtype=np.int64), new_back_cache(),
                                                  np.int64(JOIN_TAGGED_TABLE))
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
def colour_outcomes_cached(state: np.ndarray, p: int, bl: np.ndarray, bcnt: np.ndarray, tagged_max: int):
    """:func:`colour_outcomes`, keeping the backward label sets (``bl``, a flat list, and ``bcnt``:
    :func:`new_back_cache`) for the next call of the same payment state. The labels before colour
    c > the pending one depend only on the payer's goods and pieces and the travel's obligations,
    not on the amounts decided, so the colours of one :func:`next_amount` share them. Returns
    (tuples, how many, bl, bcnt): ``bl`` may have been regrown. ``tagged_max``: the biggest table
    of the pending colour's tagged steps (``JOIN_TAGGED_TABLE``; the two ways of joining give the
    same tuples in the same order, which a test checks by passing 0: always the second way)."""
    n = state[H_NPLAYERS]
    pay_i = state[PAY_I]
    cfix = pay_i // n
    sub = pay_i % n
    # the small arrays of the search, views of one (an allocation costs more than a view; and the
    # functions called per colour take the one array)
    small = np.zeros(SMALL_LEN, dtype=np.int64)
    copy_range(small, SM_TC, travel_counts(state, p, n), 0, TC_LEN)
    write_context(state, p, small, SM_H)
    tc = small[SM_TC: SM_TC + TC_LEN]
    held = small[SM_H: SM_H + NUM_COLOURS]
    stl = small[SM_STL: SM_STL + NUM_COLOURS]
    cown = small[SM_COWN: SM_COWN + NUM_COLOURS]
    bown = small[SM_BOWN: SM_BOWN + NUM_COLOURS]
    canals = tc[TC_M]
    nst = np.int64(0)
    for c in range(NUM_COLOURS):
        nst += stl[c]
    fields_passed = np.int64(0)
    for c in range(NUM_COLOURS):
        fields_passed += tc[c]
        for rr in range(1, n):
            fields_passed += tc[TC_Q + MAX_PLAYERS * c + rr]
    Dfix = small[SM_DFIX: SM_DFIX + NUM_COLOURS]
    Rfix = small[SM_RFIX: SM_RFIX + NUM_COLOURS * MAX_PLAYERS]
    for c in range(NUM_COLOURS):
        for r in range(SUPPLY + 1):
            Dfix[c] += state[AGG + NUM_COLOURS * r + c]
        for rr in range(1, n):
            Rfix[MAX_PLAYERS * c + rr] = state[AGG + NUM_COLOURS * ((p + rr) % n) + c]
    # what the colours before c can have done: stalls, goods at each receiver, fields, carts, barges
    st_lt = small[SM_ST_LT: SM_ST_LT + NUM_COLOURS + 1]
    rec_lt = small[SM_REC_LT: SM_REC_LT + (NUM_COLOURS + 1) * MAX_PLAYERS]
    fld_lt = small[SM_FLD_LT: SM_FLD_LT + NUM_COLOURS + 1]
    cart_lt = small[SM_CART_LT: SM_CART_LT + NUM_COLOURS + 1]
    barge_lt = small[SM_BARGE_LT: SM_BARGE_LT + NUM_COLOURS + 1]
    for c in range(NUM_COLOURS):
        st_lt[c + 1] = st_lt[c] + stl[c]
        colour_passed = tc[c]
        for rr in range(1, n):
            colour_passed += tc[TC_Q + MAX_PLAYERS * c + rr]
        fld_lt[c + 1] = fld_lt[c] + colour_passed
        # cart / barge uses of the colours before c (at most their goods, +1 for scales, + stalls)
        cart_lt[c + 1] = cart_lt[c] + (min(fields_passed, held[c] + 1 + nst) if cown[c] >= 0 else 0)
        barge_lt[c + 1] = barge_lt[c] + (min(canals, held[c] + 1 + nst) if bown[c] >= 0 else 0)
        rec_lt[MAX_PLAYERS * (c + 1)] = nst
        for d in range(1, n):
            received = rec_lt[MAX_PLAYERS * c + d] + tc[TC_Q + MAX_PLAYERS * c + d]
            if cown[c] >= 0 and (cown[c] - p + n) % n == d:
                received += fields_passed
            if bown[c] >= 0 and (bown[c] - p + n) % n == d:
                received += canals
            rec_lt[MAX_PLAYERS * (c + 1) + d] = min(received, nst)
    # and what the colours from c on can still do
    st_ge = small[SM_ST_GE: SM_ST_GE + NUM_COLOURS + 1]
    rec_ge = small[SM_REC_GE: SM_REC_GE + (NUM_COLOURS + 1) * MAX_PLAYERS]
    fld_ge = small[SM_FLD_GE: SM_FLD_GE + NUM_COLOURS + 1]
    cart_ge = small[SM_CART_GE: SM_CART_GE + NUM_COLOURS + 1]
    for c in range(NUM_COLOURS - 1, -1, -1):
        st_ge[c] = st_ge[c + 1] + stl[c]
        fld_ge[c] = fld_ge[c + 1] + fld_lt[c + 1] - fld_lt[c]
        cart_ge[c] = cart_ge[c + 1] | (1 if cown[c] >= 0 else 0)
        rec_ge[MAX_PLAYERS * c] = nst
        for d in range(1, n):
            received = rec_ge[MAX_PLAYERS * (c + 1) + d] + tc[TC_Q + MAX_PLAYERS * c + d]
            if cown[c] >= 0 and (cown[c] - p + n) % n == d:
                received += fields_passed
            if bown[c] >= 0 and (bown[c] - p + n) % n == d:
                received += canals
            rec_ge[MAX_PLAYERS * c + d] = min(received, nst)
    # forward: the labels before colour cfix
    fwd = np.empty(16, dtype=np.int64)
    fwd[0] = (np.int64(64) * K_BU + 0) * K_B + K_B0
    nf = np.int64(1)
    for c in range(cfix):
        dl, nd = colour_deltas(c, p, n, nst, fields_passed, np.int64(0), cfix, sub, small)
        size = np.int64(64)
        while True:
            table, nxt = new_table(size)
            cnt = forward_fill(fwd, nf, dl, nd, n, canals, c, fld_ge, cart_ge, rec_ge, st_ge, table, nxt)
            if cnt >= 0:
                break
            size *= 4
        fwd = nxt
        nf = cnt
    # backward: the labels before colour c + 1 from which the rest finishes (for c + 1 = 6: the end)
    if bcnt[7] <= cfix + 1:  # kept from a call before: rebuild the set
        off = bcnt[cfix + 1]
        nb = bcnt[8 + cfix + 1]
        done, back = new_table(table_size(nb))  # room for them all: the kept labels are distinct
        cnt = np.int64(0)
        for i in range(nb):
            cnt = set_add(done, back, cnt, bl[off + i])
        nb = cnt
        lo_c = cfix + 1
    else:
        lo_c = NUM_COLOURS
        size = np.int64(64)
        while 2 * (canals + 1) > size:
            size *= 2
        done, back = new_table(size)
        nb = np.int64(0)
        for bu in range(canals + 1):
            nb = set_add(done, back, nb, (np.int64(64) * K_BU + bu) * K_B + K_B0)
    nl = np.int64(0)
    if lo_c == NUM_COLOURS:
        bl, nl = keep_layer(bl, bcnt, nl, np.int64(NUM_COLOURS), back, nb)
    for c in range(lo_c - 1, cfix, -1):
        size = np.int64(64)
        while size < 4 * nb:  # room for twice the labels after: the layers tend to grow downwards
            size *= 2
        # the steps, enumerated once before the retries below: for yellow one list per count of
        # barges used before it, one after the other (bu_in's: dls[starts[bu_in]:starts[bu_in + 1]])
        nbu = canals + 1 if c == YELLOW else 1
        starts = np.zeros(nbu + 1, dtype=np.int64)
        dls = np.empty(16, dtype=np.int64)
        for bu_in in range(nbu):
            dl, nd = colour_deltas(c, p, n, nst, fields_passed, np.int64(bu_in), cfix, sub, small)
            dls = grow(dls, starts[bu_in] + nd)
            copy_range(dls, starts[bu_in], dl, 0, nd)
            starts[bu_in + 1] = starts[bu_in] + nd
        while True:
            table, prv = new_table(size)
            cnt = np.int64(0)
            for bu_in in range(nbu):
                cnt, table, prv = backward_fill(back, nb, c, bu_in, dls[starts[bu_in]:],
                                                starts[bu_in + 1] - starts[bu_in], n, nst, rec_lt, st_lt, barge_lt,
                                                fld_lt, cart_lt, table, prv, cnt)
                if cnt < 0:
                    break
            if cnt >= 0:
                break
            size *= 4
        done = table
        back = prv
        nb = cnt
        bl, nl = keep_layer(bl, bcnt, nl, c, back, nb)
    if lo_c == NUM_COLOURS:
        bcnt[7] = cfix + 1
    # the pending colour's steps joining the two, bu_in by bu_in: its tagged steps, those that join
    # give their tags; or, where the tagged steps are too many, its distinct steps, those that join,
    # then the tags of the steps with those delta keys (the enumeration again, filtered). Either
    # way the tags come in the order of the enumeration.
    found, tuples = new_table(16)
    nt = np.int64(0)
    nofilt = np.empty(0, dtype=np.int64)
    for bu_in in range(canals + 1 if cfix == YELLOW else 1):
        table, dl = new_table(128)
        # once yellow's tagged steps did not fit, the other counts of barges before take the second
        # way directly (their sets are alike in size; either way gives the same tuples)
        nd, table, dl = deltas_into(cfix, p, n, nst, fields_passed, np.int64(bu_in), cfix, sub, small,
                                    np.int64(TAGS_ALL), nofilt, table, dl, np.int64(0), tagged_max)
        if nd < 0:
            tagged_max = np.int64(0)
        if nd >= 0:
            while True:
                got = join_fill(fwd, nf, back, nb, done, dl, nd, n, canals, bu_in, cfix == YELLOW, found, tuples, nt,
                                np.int64(0))
                if got >= 0:
                    break
                nt = -1 - got
                found, tuples = set_moved(found, tuples, nt, 4 * found.shape[0])
            nt = got
            continue
        dl, nd = colour_deltas(cfix, p, n, nst, fields_passed, np.int64(bu_in), cfix, sub, small)
        filt, fkeys = new_table(table_size(nd))  # room for every step's delta key
        if join_fill(fwd, nf, back, nb, done, dl, nd, n, canals, bu_in, cfix == YELLOW, filt, fkeys, np.int64(0),
                     np.int64(1)) == 0:
            continue
        nt, found, tuples = deltas_into(cfix, p, n, nst, fields_passed, np.int64(bu_in), cfix, sub, small,
                                        np.int64(TAGS_FILTERED), filt, found, tuples, nt,
                                        np.int64(1) << np.int64(40))
    return tuples, nt, bl, bcnt


@ijit
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


@ijit
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
