"""Cultivo rules: travel, the path search over (field, obligations) labels (:func:`travel_search`)
and the targets, steps and origins it makes feasible. Part of :mod:`cultivo_env.rules`; the rules
as implemented: ``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    ACT,
    ACT_PLACE,
    FIELD_COLOUR,
    MAX_FIELDS,
    NEIGH,
    NUM_COLOURS,
    NUM_FIELDS,
    PATH,
    PATH_N,
    TARGET,
    TRAVEL_FLOOR,
    VISITED,
    WORKER,
    WORKERS,
    WORKERS_ON_MAP,
    YELLOW,
)
from cultivo_env.rules.accessors import bit, grow, pay_context, place_of, place_wheat, write_context
from cultivo_env.rules.payment import (
    CACHE_MAX,
    CACHE_N,
    CACHE_SLOTS,
    DP_MEMO,
    MEMO_FE,
    MEMO_IN,
    MEMO_NFE,
    MEMO_NIN,
    WS_BOWN,
    WS_COWN,
    WS_E,
    WS_F,
    WS_FIELD_ROWS,
    WS_GP,
    WS_GSP,
    WS_H,
    WS_KEYS,
    WS_LAB,
    WS_LEN,
    WS_P,
    WS_P0,
    WS_SCAL,
    WS_STL,
    WS_VALS,
    affordable,
    pay_feasible,
    stall_score,
)
from gamecore.kernel.header import H_NPLAYERS
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.scratch import borrowed

#: summary of a travel's obligations packed in an int64: 4 bits per colour of passed fields without
#: another player's worker (bits 0..23), 4 bits per colour of passed fields with one (24..47), canals
#: in bits 48..53
S_FOREIGN = 24
S_CANAL = 48
S_FIELD_MAX = 15
S_CANAL_MAX = 63


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


@jit
def summary_floor(s: np.int64, field_cost: int, canal_cost: int) -> int:
    """The least goods a summary's fields and canals cost, at ``field_cost`` and ``canal_cost``."""
    t = 0
    for shift in range(0, S_CANAL, 4):
        t += int((s >> np.int64(shift)) & np.int64(15))
    return field_cost * t + canal_cost * int((s >> np.int64(S_CANAL)) & np.int64(63))


#: the even / odd 4-bit field counts of a summary spread into six 8-bit lanes, and the lanes' top bits
S_LANES = np.int64(0x0F0F0F0F0F0F)
S_GUARD = np.int64(0x808080808080)


#: the three low / high 8-bit lanes of a spread summary (fields without / with another player's worker)
S_LOW3 = np.int64(0xFFFFFF)
S_GUARD3 = np.int64(0x808080)


@jit
def no_dearer(a: np.int64, b: np.int64) -> bool:
    """Paying obligations ``a`` never costs more than paying ``b``: ``a`` has no more canals than
    ``b`` and, in each colour, no more fields with another player's worker and no more fields in all
    (each field of ``a`` matched to one of ``b`` of its colour: one with another player's worker to
    one with another player's worker, one without to either). A field without another player's
    worker costs what one with a worker costs (2 goods of its colour, or 1 good of a cart's), except
    that both its goods go to the supply, and more goods to the supply never cost more (the
    scales). Lane-parallel: a lane's top bit survives ``(b | guard) - a`` exactly when b's count is
    at least a's."""
    if ((a >> np.int64(S_CANAL)) & np.int64(63)) > ((b >> np.int64(S_CANAL)) & np.int64(63)):
        return False
    for shift in (0, 4):  # the even colours, then the odd ones: a lane per count
        la = (a >> np.int64(shift)) & S_LANES
        lb = (b >> np.int64(shift)) & S_LANES
        if (((lb | S_GUARD) - la) & S_GUARD) >> np.int64(24) != S_GUARD3:  # foreign counts
            return False
        ta = (la & S_LOW3) + (la >> np.int64(24))  # all fields of the colour
        tb = (lb & S_LOW3) + (lb >> np.int64(24))
        if ((tb | S_GUARD3) - ta) & S_GUARD3 != S_GUARD3:
            return False
    return True


# ---- the travel workspace (layout: :data:`cultivo_env.rules.payment.WS`) -------------------
# a new one is WS_LEN long: the fixed blocks, WS_LABELS labels, then WS_FIELD_ROWS rows per field
@jit
def new_ws() -> np.ndarray:
    """An empty travel workspace: the cache empty, the rest written before it is read."""
    ws = np.empty(WS_LEN, dtype=np.int64)
    for i in range(WS_KEYS, WS_KEYS + CACHE_SLOTS):
        ws[i] = -1
    ws[MEMO_NFE] = 0
    ws[MEMO_NIN] = 0
    ws[CACHE_N] = 0
    return ws


@jit
def ws_affordable(ws: np.ndarray, po: int) -> bool:
    """:func:`affordable` of the goods owed at ``ws[po:po + 6]`` from the payer's goods and stalls."""
    total = 0
    for c in range(NUM_COLOURS):
        total += stall_score(ws[po + c], ws[WS_H + c], ws[WS_STL + c])
    return total >= 0


@jit
def summary_feasible(s: np.int64, w: int, ws: np.ndarray, payer: int) -> bool:
    """Can a travel with obligations ``s`` (and ``w`` placement wheat) be paid at all? Works in the
    workspace ``ws`` (the payer's context loaded), whose memo keeps the summaries the exact
    programme found payable / not payable."""
    nfields = 0
    for c in range(NUM_COLOURS):
        ws[WS_E + c] = field_bits(s, np.int64(4 * c))
        ws[WS_F + c] = field_bits(s, np.int64(S_FOREIGN + 4 * c))
        nfields += ws[WS_E + c] + ws[WS_F + c]
    m = int((s >> np.int64(S_CANAL)) & np.int64(63))
    # paid with goods only (no carts, no barges): exact when nobody has a cart or a barge
    anycart = False
    anybarge = False
    for c in range(NUM_COLOURS):
        ws[WS_P0 + c] = 0
        sp = 2 * ws[WS_E + c] + ws[WS_F + c]
        P = 2 * (ws[WS_E + c] + ws[WS_F + c])
        if c == YELLOW:
            P += 2 * m + w
            sp += 2 * m + w
        if ws[WS_SCAL + c] and sp >= 2:
            P -= 1
        ws[WS_P + c] = P
        if ws[WS_COWN + c] >= 0:
            anycart = True
        if ws[WS_BOWN + c] >= 0:
            anybarge = True
    if ws_affordable(ws, WS_P):
        return True
    if not (anycart and nfields > 0) and not (anybarge and m > 0):
        return False
    if not bounds_feasible(ws, m, w):
        return False
    if greedy_feasible(ws, m, w, payer):
        return True
    # the exact programme, unless an answer of an earlier one decides: obligations no dearer than
    # payable ones are payable, and those no cheaper than unpayable ones are not (no_dearer)
    nfe = ws[MEMO_NFE]
    nin = ws[MEMO_NIN]
    for i in range(nfe):
        if no_dearer(s, ws[MEMO_FE + i]):
            return True
    for i in range(nin):
        if no_dearer(ws[MEMO_IN + i], s):
            return False
    ws[WS_P0 + YELLOW] = w
    ok = pay_feasible(ws, payer, np.int64(m))
    if ok and nfe < DP_MEMO:
        ws[MEMO_FE + nfe] = s
        ws[MEMO_NFE] = nfe + 1
    elif not ok and nin < DP_MEMO:
        ws[MEMO_IN + nin] = s
        ws[MEMO_NIN] = nin + 1
    return ok


@jit
def bounds_feasible(ws: np.ndarray, m: int, w: int) -> bool:
    """Necessary conditions (a quick reject) for the obligations in ``ws``. Stalls move goods between
    colours but never add any; a stall helps only with a good of its colour to spare. Every field and
    canal costs a good at least, two unless a cart / barge pays it; the scales save at most one good of
    their colour, and only when that colour can be paid at all. Fields of a colour not carted need 2
    goods of it each (the scales and the stalls of other colours may each stand in for one), so the
    rest must be carted, and carts can take no more than the goods of their colours (and their
    scales, and stalls of other colours) can pay; the same for canals with wheat and barges."""
    nstall = 0  # stalls with a good of their colour
    for c in range(NUM_COLOURS):
        if ws[WS_STL + c] and ws[WS_H + c] > 0:
            nstall += 1
    have = 0
    cart_cap = 0
    barge_cap = 0
    anycart = False
    anybarge = False
    nfields = 0
    for c in range(NUM_COLOURS):
        h = ws[WS_H + c]
        sc = ws[WS_SCAL + c]
        spare_stall = ws[WS_STL + c] and h > 0
        have += h + (sc if (h > 0 or nstall > 0) else 0)
        nfields += ws[WS_E + c] + ws[WS_F + c]
        if ws[WS_COWN + c] >= 0:
            anycart = True
            cart_cap += h + sc
        elif spare_stall:
            cart_cap += 1
        if ws[WS_BOWN + c] >= 0:
            anybarge = True
            barge_cap += h + sc
        elif spare_stall:
            barge_cap += 1
    carted_max = min(nfields, cart_cap) if anycart else 0
    barged_max = min(m, barge_cap) if anybarge else 0
    if 2 * nfields - carted_max + 2 * m - barged_max + w > have:
        return False
    carted = 0
    for c in range(NUM_COLOURS):
        h = ws[WS_H + c]
        help_ = nstall - (1 if (ws[WS_STL + c] and h > 0) else 0)
        base_ok = (h + ws[WS_SCAL + c] + help_ - (w if c == YELLOW else 0)) // 2
        if base_ok < 0:
            base_ok = 0
        carted += max(0, ws[WS_E + c] + ws[WS_F + c] - base_ok)
    if carted > carted_max:
        return False
    hy = ws[WS_H + YELLOW]
    yhelp = nstall - (1 if (ws[WS_STL + YELLOW] and hy > 0) else 0)
    wheat_ok = max(0, (hy + ws[WS_SCAL + YELLOW] + yhelp - w) // 2)
    if max(0, m - wheat_ok) > barged_max:
        return False
    return True


@jit
def greedy_feasible(ws: np.ndarray, m: int, w: int, payer: int) -> bool:
    """A quick sufficient test: pay each field / canal with whatever leaves the most goods of that
    colour (a cart / barge for 1 good, or 2 goods of the field's colour / 2 wheat), canals first,
    then fields first."""
    return greedy_order(ws, m, w, payer, np.int64(1)) or greedy_order(ws, m, w, payer, np.int64(0))


@jit
def greedy_order(ws: np.ndarray, m: int, w: int, payer: int, canals_first: int) -> bool:
    for c in range(NUM_COLOURS):
        ws[WS_GP + c] = 0
        ws[WS_GSP + c] = 0
    ws[WS_GP + YELLOW] = w
    ws[WS_GSP + YELLOW] = w
    for xi in range(NUM_COLOURS + 1):  # colours of fields and (x = 6) the canals
        x = (xi + NUM_COLOURS) % (NUM_COLOURS + 1) if canals_first else xi
        canal = x == NUM_COLOURS
        count = m if canal else ws[WS_E + x] + ws[WS_F + x]
        own = WS_BOWN if canal else WS_COWN
        for i in range(count):
            base = YELLOW if canal else x
            best = -1
            best_slack = ws[WS_H + base] - ws[WS_GP + base] - 2
            for c in range(NUM_COLOURS):
                if ws[own + c] >= 0 and ws[WS_H + c] - ws[WS_GP + c] - 1 > best_slack:
                    best = c
                    best_slack = ws[WS_H + c] - ws[WS_GP + c] - 1
            if best < 0:
                ws[WS_GP + base] += 2
                if canal or i < ws[WS_E + x]:
                    ws[WS_GSP + base] += 2
                else:
                    ws[WS_GSP + base] += 1
            else:
                ws[WS_GP + best] += 1
                if ws[own + best] == payer:
                    ws[WS_GSP + best] += 1
    for c in range(NUM_COLOURS):
        if ws[WS_SCAL + c] and ws[WS_GSP + c] >= 2:
            ws[WS_GP + c] -= 1
    return ws_affordable(ws, WS_GP)


@jit
def cached_feasible(s: np.int64, w: int, ws: np.ndarray, payer: int) -> bool:
    """:func:`summary_feasible` with the workspace's open-addressing cache (keys -1 = empty). Once
    ``CACHE_MAX`` slots are used, new answers are not kept (a full table would make every miss walk
    all of it)."""
    mask = CACHE_SLOTS - 1
    h = np.int64((np.uint64(s) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    while True:
        k = ws[WS_KEYS + h]
        if k == s:
            return ws[WS_VALS + h] == 1
        if k == -1:
            break
        h = (h + 1) & mask
    ok = summary_feasible(s, w, ws, payer)
    if ws[CACHE_N] < CACHE_MAX:
        ws[WS_KEYS + h] = s
        ws[WS_VALS + h] = 1 if ok else 0
        ws[CACHE_N] += 1
    return ok


#: :func:`search_labels` ran out of label room
SEARCH_FULL = -1


@ijit
def travel_search(state: np.ndarray, payer: int, w: int, sources: np.ndarray, nsrc: int, s0: np.int64,
                  blocked: np.int64, target: int, found: np.ndarray, stop_after: int, ws: np.ndarray) -> int:
    """Which free fields can a travel reach and pay for?

    Starts at ``sources[:nsrc]`` having already incurred obligations ``s0``; never enters a field
    whose bit is in ``blocked``. With ``target >= 0`` answers only for that field (returns 1 or 0),
    else sets ``found[f] = 1`` for every reachable free field and returns how many (stopping at the
    first ``stop_after`` when that is not 0). Without a target, :func:`tree_targets` first marks the
    fields the cheapest walks of one tree reach and pay for, and the labels are searched only for the
    free fields still open (``found[f] == 0``), if any. :func:`search_labels` searches in the
    workspace ``ws`` (:func:`new_ws`, shared by the searches of one payer and one wheat); a search
    that needs more labels than it holds runs again in a bigger copy (rarely; here, so that the
    search's loop never reassigns an array: numba would count references at every turn of it).
    """
    pre = 0
    if target < 0:
        # the easy ways first: fields the cheapest walks of a tree reach and pay for need no label search,
        # and the search then looks only for the fields still open
        pre = tree_targets(state, payer, w, sources, nsrc, s0, blocked, found, stop_after, ws)
        if stop_after > 0 and pre >= stop_after:
            return pre
        nopen = 0
        for f in range(NUM_FIELDS[state[H_NPLAYERS]]):
            if state[WORKER + f] == 0 and found[f] == 0:
                nopen += 1
        if nopen == 0:
            return pre
        if stop_after > 0:
            stop_after -= pre
    r = search_labels(state, payer, w, sources, nsrc, s0, blocked, target, found, stop_after, ws)
    size = ws.shape[0]
    while r == SEARCH_FULL:
        size = 4 * size
        r = search_labels(state, payer, w, sources, nsrc, s0, blocked, target, found, stop_after, grow(ws, size))
    return r + pre


@jit
def tree_targets(state: np.ndarray, payer: int, w: int, sources: np.ndarray, nsrc: int, s0: np.int64,
                 blocked: np.int64, found: np.ndarray, stop_after: int, ws: np.ndarray) -> int:
    """Free fields (not yet in ``found``) that a walk of one tree reaches and pays for: marks them
    in ``found`` and returns how many (stops at ``stop_after`` when that is not 0). The tree grows
    from the sources cheapest first (the least goods the fields and canals passed cost, as
    :func:`search_labels` bounds them), never entering a blocked field; each of its walks is a
    simple path from a source, so a field whose arrival from a settled field of the tree is payable
    is one :func:`search_labels` would find (a quick sufficient test; it finds no field the search
    would not). Uses the workspace's rows per field, which the search writes before it reads them."""
    state, sources, found, ws = borrowed(state), borrowed(sources), borrowed(found), borrowed(ws)  # no counts
    n = state[H_NPLAYERS]
    nfields = NUM_FIELDS[n]
    load_context(state, payer, ws)
    room, fcost, ccost = search_room(ws, w)
    cap = (ws.shape[0] - WS_LAB - WS_FIELD_ROWS * MAX_FIELDS) // 4
    key = WS_LAB + 4 * cap  # per field: the least cost of passing it over the tree so far (-1 settled)
    summ = key + MAX_FIELDS  # per field: the obligations of passing it that way
    big = 8 * MAX_FIELDS
    for f in range(MAX_FIELDS):
        ws[key + f] = big
    for i in range(nsrc):
        ws[key + sources[i]] = summary_floor(s0, fcost, ccost)
        ws[summ + sources[i]] = s0
    count = 0
    while True:
        u = -1
        best = big
        for f in range(nfields):
            if ws[key + f] >= 0 and ws[key + f] < best:
                best = ws[key + f]
                u = f
        if u < 0 or best > room:
            return count  # whatever is left costs more than the goods (summary_floor is a lower bound)
        ws[key + u] = -1
        s = ws[summ + u]
        for d in range(4):
            v = NEIGH[n, u, d]
            if v < 0 or (blocked >> np.int64(v)) & np.int64(1):
                continue
            s1 = s
            if place_of(u) != place_of(v):
                s1 = summary_canal(s)
                if s1 < 0:
                    continue
            if state[WORKER + v] == 0 and found[v] == 0 and summary_floor(s1, fcost, ccost) <= room:
                if cached_feasible(s1, w, ws, payer):
                    found[v] = 1
                    count += 1
                    if stop_after > 0 and count >= stop_after:
                        return count
            if ws[key + v] < 0:
                continue
            s2 = summary_pass(state, s1, v, payer)
            if s2 < 0:
                continue
            k2 = summary_floor(s2, fcost, ccost)
            if k2 < ws[key + v]:
                ws[key + v] = k2
                ws[summ + v] = s2


@jit
def descent_ok(state: np.ndarray, payer: int, w: int, u: int, s0: np.int64, blocked: np.int64, target: int,
               ws: np.ndarray, dist: int) -> bool:
    """A quick sufficient test of a search with a target: the walk from u that always steps to a
    neighbour nearest the target (``ws[dist:]``: hops to it over the fields not blocked; a neighbour
    in the same village first, then the first in the order up, down, left, right) reaches a free
    target and can be paid, with obligations ``s0`` so far. The hops fall at every step, so the walk
    is a simple path that never enters a blocked field or u again: one :func:`search_labels` would
    find payable too."""
    state, ws = borrowed(state), borrowed(ws)  # their uses below count no references
    n = state[H_NPLAYERS]
    if state[WORKER + target] != 0:
        return False
    s = s0
    while True:
        best = -1
        bd = MAX_FIELDS
        for d in range(4):
            v = NEIGH[n, u, d]
            if v < 0 or (blocked >> np.int64(v)) & np.int64(1):
                continue
            dv = ws[dist + v]
            if dv < bd or (dv == bd and place_of(v) == place_of(u) and place_of(best) != place_of(u)):
                bd = dv
                best = v
        if best < 0 or bd >= MAX_FIELDS:
            return False
        if place_of(u) != place_of(best):
            s = summary_canal(s)
            if s < 0:
                return False
        if best == target:
            return cached_feasible(s, w, ws, payer)
        s = summary_pass(state, s, best, payer)
        if s < 0:
            return False
        u = best


@jit
def search_room(ws: np.ndarray, w: int):
    """Goods the payer can spend on fields and canals (what it holds, one more per own scales, less
    the placement wheat ``w``), and the least cost of a field and of a canal (2, or 1 once anyone
    owns a cart / a barge). ``ws``: the payer's context loaded."""
    room = -w
    fcost = 2
    ccost = 2
    for c in range(NUM_COLOURS):
        room += ws[WS_H + c] + ws[WS_SCAL + c]
        if ws[WS_COWN + c] >= 0:
            fcost = 1
        if ws[WS_BOWN + c] >= 0:
            ccost = 1
    return room, fcost, ccost


@jit
def load_context(state: np.ndarray, p: int, ws: np.ndarray) -> None:
    """The payer's context into the workspace (:func:`write_context`)."""
    write_context(state, p, ws, WS_H)


@jit
def nearest_open(state: np.ndarray, found: np.ndarray, floor_u: np.ndarray, nfields: int) -> int:
    """The least of ``floor_u`` over the free fields not yet in ``found`` (the cheapest way on from
    a field to a target still open)."""
    best = 8 * MAX_FIELDS
    for f in range(nfields):
        if state[WORKER + f] == 0 and found[f] == 0 and floor_u[f] < best:
            best = floor_u[f]
    return best


@jit
def search_labels(state: np.ndarray, payer: int, w: int, sources: np.ndarray, nsrc: int, s0: np.int64,
                  blocked: np.int64, target: int, found: np.ndarray, stop_after: int, ws: np.ndarray) -> int:
    """:func:`travel_search` in the label room of ``ws``, or :data:`SEARCH_FULL` (``found`` as it was).

    Labels (field, obligations) are expanded; a label whose obligations cannot be paid, or that
    another label at its field dominates, is dropped, and one not yet expanded is skipped once a new
    label at its field dominates it. Any order of expansion gives the same answer (a dominated
    label's walks are no cheaper than its dominator's): without a target breadth first; with one,
    nearest to the target first (the hops left, over the fields not blocked), and a field from
    which the target cannot be reached is never entered, so a payable walk is usually found without
    looking at others.

    A label is not expanded when the goods cannot pay for its way to any target still open: every
    field passed costs at least one good (two while no player owns a cart), every canal crossed one
    (two while no player owns a barge), the market stalls only swap goods, the scales save one good
    each at most, and the way on costs at least ``layout.TRAVEL_FLOOR`` more (with a target, also
    its h - 1 fields where it is h hops away over the fields not blocked). No payable walk to an open
    target starts with such a label, so the answer is the same; such a label is not even kept (nor
    tested for payability) when it is made.

    With a target, the walk straight down the hops (:func:`descent_ok`) is tried before any label.
    Without one, only the free fields not yet set in ``found`` are looked for (and counted).
    """
    state, sources, found, ws = borrowed(state), borrowed(sources), borrowed(found), borrowed(ws)  # no counts
    n = state[H_NPLAYERS]
    load_context(state, payer, ws)
    cap = (ws.shape[0] - WS_LAB - WS_FIELD_ROWS * MAX_FIELDS) // 4
    # the labels: field, obligations, the next label at the same field, with a target the next
    # label of the same distance bucket (lab_q: -2 once expanded)
    lab_f = WS_LAB
    lab_s = lab_f + cap
    lab_next = lab_s + cap
    lab_q = lab_next + cap
    head = lab_q + cap  # per field: its newest label
    dist = head + MAX_FIELDS  # with a target: hops from each field to it
    bucket = dist + MAX_FIELDS  # per distance: the label expanded next
    marked = bucket + MAX_FIELDS  # the fields set in found
    # without a target: per field, the cost of the way on to the nearest open target (TRAVEL_FLOOR),
    # as of near_at targets found (-1: not yet)
    near = marked + MAX_FIELDS
    near_at = near + MAX_FIELDS
    nfields = NUM_FIELDS[n]
    for f in range(MAX_FIELDS):
        ws[head + f] = -1
    nl = 0
    nfound = 0
    nfree = 0
    for f in range(nfields):
        if state[WORKER + f] == 0 and (target >= 0 or found[f] == 0):
            nfree += 1  # without a target: the fields still open
    guided = target >= 0
    # goods the payer can spend on fields and canals: what it holds, one more per own scales, less
    # the placement wheat (a label with obligations s has room - summary_floor(s) to spare); a field
    # costs 2 goods, 1 with a cart (anyone's), a canal 2 wheat, 1 with a barge (anyone's)
    room, fcost, ccost = search_room(ws, w)
    floor = TRAVEL_FLOOR[fcost - 1, ccost - 1, n]
    if not guided:
        for f in range(MAX_FIELDS):
            ws[near_at + f] = -1
    lo = 0  # with a target: no bucket below lo holds a label
    if guided:
        # hops to the target over the fields not blocked (breadth first from it; the queue in bucket)
        for f in range(MAX_FIELDS):
            ws[dist + f] = MAX_FIELDS
            ws[bucket + f] = -1
        ws[dist + target] = 0
        ws[bucket + 0] = target
        qh = 0
        qt = 1
        while qh < qt:
            u = ws[bucket + qh]
            qh += 1
            for d in range(4):
                v = NEIGH[n, u, d]
                if v >= 0 and ws[dist + v] == MAX_FIELDS and not (blocked >> np.int64(v)) & np.int64(1):
                    ws[dist + v] = ws[dist + u] + 1
                    ws[bucket + qt] = v
                    qt += 1
        for f in range(MAX_FIELDS):
            ws[bucket + f] = -1
        lo = MAX_FIELDS
        # the quick way first: one walk straight down the hops to the target, paid
        for i in range(nsrc):
            if descent_ok(state, payer, w, sources[i], s0, blocked, target, ws, dist):
                return 1
    for i in range(nsrc):
        u = sources[i]
        if guided:
            # a source may be blocked itself (it is not entered again): one hop more than its
            # nearest neighbour
            du = ws[dist + u]
            for d in range(4):
                v = NEIGH[n, u, d]
                if v >= 0 and ws[dist + v] + 1 < du:
                    du = ws[dist + v] + 1
            if du >= MAX_FIELDS:
                continue
            ws[lab_q + nl] = ws[bucket + du]
            ws[bucket + du] = nl
            lo = min(lo, du)
        ws[lab_f + nl] = u
        ws[lab_s + nl] = s0
        ws[lab_next + nl] = ws[head + u]
        ws[head + u] = nl
        nl += 1
    q = 0
    while True:
        if guided:
            while lo < MAX_FIELDS and ws[bucket + lo] < 0:
                lo += 1
            if lo == MAX_FIELDS:
                break
            cur = ws[bucket + lo]
            ws[bucket + lo] = ws[lab_q + cur]
            ws[lab_q + cur] = -2  # expanded
        else:
            if q >= nl:
                break
            cur = q
            q += 1
        u = ws[lab_f + cur]
        s = ws[lab_s + cur]
        if u < 0:
            continue  # a later label at its field dominates it
        spare = room - summary_floor(s, fcost, ccost)
        if guided:
            du = ws[dist + u]
            if du >= MAX_FIELDS:  # a source, blocked itself: one hop more than its nearest neighbour
                for d in range(4):
                    v = NEIGH[n, u, d]
                    if v >= 0 and ws[dist + v] + 1 < du:
                        du = ws[dist + v] + 1
            if fcost * (du - 1) > spare or floor[u, target] > spare:
                continue  # the target is too far for the goods
        else:
            if ws[near_at + u] < 0 or (ws[near + u] <= spare and ws[near_at + u] != nfound):
                ws[near + u] = nearest_open(state, found, floor[u], nfields)  # (an older value: a lower bound)
                ws[near_at + u] = nfound
            if ws[near + u] > spare:
                continue  # every open target is too far for the goods
        for d in range(4):
            v = NEIGH[n, u, d]
            if v < 0 or (blocked >> np.int64(v)) & np.int64(1):
                continue
            if guided and ws[dist + v] == MAX_FIELDS:
                continue  # the target cannot be reached from v
            s1 = s
            if place_of(u) != place_of(v):
                s1 = summary_canal(s)
                if s1 < 0:
                    continue
            endpoint = state[WORKER + v] == 0 and ((guided and v == target) or (not guided and found[v] == 0))
            s2 = summary_pass(state, s1, v, payer)
            passable = s2 >= 0 and not (guided and v == target)
            if passable:
                # a label at v that would not be expanded (above) needs no payability test and no place
                spare2 = room - summary_floor(s2, fcost, ccost)
                if guided:
                    passable = fcost * (ws[dist + v] - 1) <= spare2 and floor[v, target] <= spare2
                else:
                    if ws[near_at + v] < 0 or (ws[near + v] <= spare2 and ws[near_at + v] != nfound):
                        ws[near + v] = nearest_open(state, found, floor[v], nfields)
                        ws[near_at + v] = nfound
                    passable = ws[near + v] <= spare2
            if passable:
                k = ws[head + v]
                while k >= 0:
                    if no_dearer(ws[lab_s + k], s2):
                        passable = False
                        break
                    k = ws[lab_next + k]
            if passable:
                passable = cached_feasible(s2, w, ws, payer)
            # arriving costs less than passing on: feasible if passing on is
            if endpoint and (passable or cached_feasible(s1, w, ws, payer)):
                if guided:
                    return 1
                found[v] = 1
                ws[marked + nfound] = v
                nfound += 1
                if nfound == nfree or (stop_after > 0 and nfound >= stop_after):
                    return nfound
            if not passable:
                continue
            k = ws[head + v]
            while k >= 0:  # labels at v that the new one dominates need no expanding
                pending = ws[lab_q + k] != -2 if guided else k >= q
                if ws[lab_f + k] >= 0 and pending and no_dearer(s2, ws[lab_s + k]):
                    ws[lab_f + k] = -1
                k = ws[lab_next + k]
            if nl >= cap:  # full (rarely): found as it was, and the caller retries with more room
                for i in range(nfound):
                    found[ws[marked + i]] = 0
                return SEARCH_FULL
            ws[lab_f + nl] = v
            ws[lab_s + nl] = s2
            ws[lab_next + nl] = ws[head + v]
            ws[head + v] = nl
            if guided:
                ws[lab_q + nl] = ws[bucket + ws[dist + v]]
                ws[bucket + ws[dist + v]] = nl
                lo = min(lo, ws[dist + v])
            nl += 1
    return 0 if guided else nfound


@jit
def travel_wheat(state: np.ndarray, p: int) -> int:
    """Placement wheat of the action in progress (0 for a Move)."""
    if state[ACT] == ACT_PLACE:
        return place_wheat(state[WORKERS_ON_MAP + p] + 1)
    return 0


@ijit
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


@ijit
def place_targets(state: np.ndarray, p: int, found: np.ndarray, stop_after: int) -> int:
    """Free fields a new worker can reach from one of the seat's workers, paying the travel and the
    placement wheat."""
    if state[WORKERS_ON_MAP + p] >= WORKERS:
        return 0
    w = place_wheat(state[WORKERS_ON_MAP + p] + 1)
    src, k = own_worker_fields(state, p)
    # the placement wheat alone, paid as summary_feasible pays a travel without obligations: when
    # that cannot be paid, no travel can (obligations never lower a cost), and no search is needed
    H, scal, stl, cown, bown = pay_context(state, p)
    P = np.zeros(NUM_COLOURS, dtype=np.int64)
    P[YELLOW] = w - (1 if (scal[YELLOW] and w > 1) else 0)
    if not affordable(P, H, stl):
        return 0
    if stop_after == 1:
        for i in range(k):
            if free_neighbour_same_village(state, src[i]):
                return 1
    return travel_search(state, p, np.int64(w), src, np.int64(k), np.int64(0), np.int64(0), np.int64(-1), found,
                         stop_after, new_ws())


@ijit
def move_targets(state: np.ndarray, p: int, f: int, found: np.ndarray, stop_after: int, ws: np.ndarray) -> int:
    """Free fields the worker on f can travel to and pay for. ``ws``: from :func:`new_ws`, shared by
    the moves of one mask (its cache depends only on the payer and the wheat, 0 for a Move)."""
    if stop_after == 1 and free_neighbour_same_village(state, f):
        return 1
    src = np.empty(1, dtype=np.int64)
    src[0] = f
    return travel_search(state, p, np.int64(0), src, np.int64(1), np.int64(0), bit(f), np.int64(-1), found,
                         stop_after, ws)


@ijit
def step_ok(state: np.ndarray, p: int, v: int, ws: np.ndarray) -> bool:
    """Can the travel go on to field v (a neighbour of the current field) and still reach the
    target and pay? ``ws``: from :func:`new_ws`, shared by the steps of one mask."""
    cur = state[PATH + state[PATH_N] - 1]
    t = state[TARGET]
    w = travel_wheat(state, p)
    load_context(state, p, ws)
    s = path_summary(state, p)
    if place_of(cur) != place_of(v):
        s = summary_canal(s)
        if s < 0:
            return False
    if v == t:
        return cached_feasible(s, w, ws, p)
    s = summary_pass(state, s, v, p)
    if s < 0 or not cached_feasible(s, w, ws, p):
        return False
    src = np.empty(1, dtype=np.int64)
    src[0] = v
    found = np.zeros(1, dtype=np.int8)
    blocked = state[VISITED] | bit(v)
    return travel_search(state, p, np.int64(w), src, np.int64(1), s, blocked, np.int64(t), found, np.int64(0),
                         ws) == 1


@ijit
def origin_ok(state: np.ndarray, p: int, o: int, ws: np.ndarray) -> bool:
    """Can a travel from the seat's worker on o reach the target and pay? ``ws``: from
    :func:`new_ws`, shared by the origins of one mask (same payer, same wheat)."""
    w = travel_wheat(state, p)
    src = np.empty(1, dtype=np.int64)
    src[0] = o
    found = np.zeros(1, dtype=np.int8)
    return travel_search(state, p, np.int64(w), src, np.int64(1), np.int64(0), bit(o), np.int64(state[TARGET]),
                         found, np.int64(0), ws) == 1
