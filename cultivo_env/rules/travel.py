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
    VISITED,
    WORKER,
    WORKERS,
    WORKERS_ON_MAP,
    YELLOW,
)
from cultivo_env.rules.accessors import bit, pay_context, place_of, place_wheat
from cultivo_env.rules.payment import affordable, pay_feasible
from gamecore.header import H_NPLAYERS
from gamecore.jit import jit

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
    ``MEMO_NFE`` on keep the summaries the exact programme found payable / not payable."""
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
    nfe = memo[MEMO_NFE]
    nin = memo[MEMO_NIN]
    for i in range(nfe):
        if dominates(s, memo[MEMO_FE + i]):
            return True
    for i in range(nin):
        if dominates(memo[MEMO_IN + i], s):
            return False
    P0[YELLOW] = w
    ok = pay_feasible(H, scal, stl, cown, bown, payer, P0, P0, e, f2, np.int64(m), scratch[42:])
    if ok and nfe < DP_MEMO:
        memo[MEMO_FE + nfe] = s
        memo[MEMO_NFE] = nfe + 1
    elif not ok and nin < DP_MEMO:
        memo[MEMO_IN + nin] = s
        memo[MEMO_NIN] = nin + 1
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


#: the ``keys`` array of :func:`new_cache`: ``CACHE_SLOTS`` hash slots (at most ``CACHE_MAX`` of them
#: used, so a lookup always meets an empty slot soon), then the exact programme's answers (counts
#: of payable / not payable summaries, then ``DP_MEMO`` of each), then the count of used slots
CACHE_SLOTS = 1024
CACHE_MAX = 768
DP_MEMO = 256
MEMO_NFE = CACHE_SLOTS
MEMO_NIN = MEMO_NFE + 1
MEMO_FE = MEMO_NIN + 1
MEMO_IN = MEMO_FE + DP_MEMO
CACHE_N = MEMO_IN + DP_MEMO
CACHE_KEYS_LEN = CACHE_N + 1


@jit
def cached_feasible(s: np.int64, w: int, H, scal, stl, cown, bown, payer, keys, vals, scratch) -> bool:
    """:func:`summary_feasible` with an open-addressing cache (keys -1 = empty). Once ``CACHE_MAX``
    slots are used, new answers are not kept (a full table would make every miss walk all of it)."""
    mask = CACHE_SLOTS - 1
    h = np.int64((np.uint64(s) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    while True:
        if keys[h] == s:
            return vals[h] == 1
        if keys[h] == -1:
            break
        h = (h + 1) & mask
    ok = summary_feasible(s, w, H, scal, stl, cown, bown, payer, scratch, keys)
    if keys[CACHE_N] < CACHE_MAX:
        keys[h] = s
        vals[h] = 1 if ok else 0
        keys[CACHE_N] += 1
    return ok


#: :func:`search_labels` ran out of label room
SEARCH_FULL = -1


@jit
def travel_search(state: np.ndarray, payer: int, w: int, sources: np.ndarray, nsrc: int, s0: np.int64,
                  blocked: np.int64, target: int, found: np.ndarray, stop_after: int, keys, vals, scratch,
                  labels) -> int:
    """Which free fields can a travel reach and pay for?

    Starts at ``sources[:nsrc]`` having already incurred obligations ``s0``; never enters a field
    whose bit is in ``blocked``. With ``target >= 0`` answers only for that field (returns 1 or 0),
    else sets ``found[f] = 1`` for every reachable free field and returns how many (stopping at the
    first ``stop_after`` when that is not 0). :func:`search_labels` searches; a search that needs
    more labels than ``labels`` (working space from :func:`new_cache`) holds runs again with more
    room (rarely; here, so that the search's loop never reassigns an array: numba would count
    references at every turn of it).
    """
    r = search_labels(state, payer, w, sources, nsrc, s0, blocked, target, found, stop_after, keys, vals, scratch,
                      labels)
    size = labels.shape[0]
    while r == SEARCH_FULL:
        size = 4 * size
        r = search_labels(state, payer, w, sources, nsrc, s0, blocked, target, found, stop_after, keys, vals,
                          scratch, np.empty(size, dtype=np.int64))
    return r


@jit
def search_labels(state: np.ndarray, payer: int, w: int, sources: np.ndarray, nsrc: int, s0: np.int64,
                  blocked: np.int64, target: int, found: np.ndarray, stop_after: int, keys, vals, scratch,
                  labels) -> int:
    """:func:`travel_search` in the room of ``labels``, or :data:`SEARCH_FULL` (``found`` as it was).

    Labels (field, obligations) are expanded; a label whose obligations cannot be paid, or that
    another label at its field dominates, is dropped, and one not yet expanded is skipped once a new
    label at its field dominates it. Any order of expansion gives the same answer (a dominated
    label's walks are no cheaper than its dominator's): without a target breadth first; with one,
    nearest to the target first (the hops left, over the fields not blocked), and a field from
    which the target cannot be reached is never entered, so a payable walk is usually found without
    looking at others.
    """
    n = state[H_NPLAYERS]
    H, scal, stl, cown, bown = pay_context(state, payer)
    cap = (labels.shape[0] - 4 * MAX_FIELDS) // 4
    lab_f = labels[0:cap]
    lab_s = labels[cap: 2 * cap]
    lab_next = labels[2 * cap: 3 * cap]
    lab_q = labels[3 * cap: 4 * cap]  # with a target: the next label of the same distance bucket
    head = labels[4 * cap: 4 * cap + MAX_FIELDS]
    dist = labels[4 * cap + MAX_FIELDS: 4 * cap + 2 * MAX_FIELDS]
    bucket = labels[4 * cap + 2 * MAX_FIELDS: 4 * cap + 3 * MAX_FIELDS]
    marked = labels[4 * cap + 3 * MAX_FIELDS: 4 * cap + 4 * MAX_FIELDS]  # the fields set in found
    nfields = NUM_FIELDS[n]
    for f in range(MAX_FIELDS):
        head[f] = -1
    nl = 0
    nfound = 0
    nfree = 0
    for f in range(nfields):
        if state[WORKER + f] == 0:
            nfree += 1
    guided = target >= 0
    lo = 0  # with a target: no bucket below lo holds a label
    if guided:
        # hops to the target over the fields not blocked (breadth first from it; the queue in bucket)
        for f in range(MAX_FIELDS):
            dist[f] = MAX_FIELDS
            bucket[f] = -1
        dist[target] = 0
        bucket[0] = target
        qh = 0
        qt = 1
        while qh < qt:
            u = bucket[qh]
            qh += 1
            for d in range(4):
                v = NEIGH[n, u, d]
                if v >= 0 and dist[v] == MAX_FIELDS and not (blocked >> np.int64(v)) & np.int64(1):
                    dist[v] = dist[u] + 1
                    bucket[qt] = v
                    qt += 1
        for f in range(MAX_FIELDS):
            bucket[f] = -1
        lo = MAX_FIELDS
    for i in range(nsrc):
        u = sources[i]
        if guided:
            # a source may be blocked itself (it is not entered again): one hop more than its
            # nearest neighbour
            du = dist[u]
            for d in range(4):
                v = NEIGH[n, u, d]
                if v >= 0 and dist[v] + 1 < du:
                    du = dist[v] + 1
            if du >= MAX_FIELDS:
                continue
            lab_q[nl] = bucket[du]
            bucket[du] = nl
            lo = min(lo, du)
        lab_f[nl] = u
        lab_s[nl] = s0
        lab_next[nl] = head[u]
        head[u] = nl
        nl += 1
    q = 0
    while True:
        if guided:
            while lo < MAX_FIELDS and bucket[lo] < 0:
                lo += 1
            if lo == MAX_FIELDS:
                break
            cur = bucket[lo]
            bucket[lo] = lab_q[cur]
            lab_q[cur] = -2  # expanded
        else:
            if q >= nl:
                break
            cur = q
            q += 1
        u = lab_f[cur]
        s = lab_s[cur]
        if u < 0:
            continue  # a later label at its field dominates it
        for d in range(4):
            v = NEIGH[n, u, d]
            if v < 0 or (blocked >> np.int64(v)) & np.int64(1):
                continue
            if guided and dist[v] == MAX_FIELDS:
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
                if guided:
                    return 1
                found[v] = 1
                marked[nfound] = v
                nfound += 1
                if nfound == nfree or (stop_after > 0 and nfound >= stop_after):
                    return nfound
            if not passable:
                continue
            k = head[v]
            while k >= 0:  # labels at v that the new one dominates need no expanding
                pending = lab_q[k] != -2 if guided else k >= q
                if lab_f[k] >= 0 and pending and dominates(s2, lab_s[k]):
                    lab_f[k] = -1
                k = lab_next[k]
            if nl >= cap:  # full (rarely): found as it was, and the caller retries with more room
                for i in range(nfound):
                    found[marked[i]] = 0
                return SEARCH_FULL
            lab_f[nl] = v
            lab_s[nl] = s2
            lab_next[nl] = head[v]
            head[v] = nl
            if guided:
                lab_q[nl] = bucket[dist[v]]
                bucket[dist[v]] = nl
                lo = min(lo, dist[v])
            nl += 1
    return 0 if guided else nfound


@jit
def new_cache():
    """The feasibility cache of one mask computation (keys -1 = empty) and scratch space."""
    keys = np.full(CACHE_KEYS_LEN, -1, dtype=np.int64)
    keys[MEMO_NFE] = 0  # payable summaries kept, then the others
    keys[MEMO_NIN] = 0
    keys[CACHE_N] = 0
    vals = np.zeros(CACHE_SLOTS, dtype=np.int8)
    scratch = np.empty(64 + 2 * 256, dtype=np.int64)  # the pay_feasible rows after the first 64
    scratch[:64] = 0
    labels = np.empty(4 * 1024 + 4 * MAX_FIELDS, dtype=np.int64)
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
