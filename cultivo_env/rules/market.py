"""Cultivo rules: the market, the stall stage and purchase splits by exact canonical enumeration
(:func:`canon_dp`, :func:`purchase_feasible`). Part of :mod:`cultivo_env.rules`; the rules as
implemented: ``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    ACT,
    ACT_ACQUIRE,
    AGG,
    AGG_LEN,
    EQ_COST,
    EQUIP_LOC,
    GOODS_S,
    LOC_OWNED,
    MARKET,
    MARKET_COLOUR,
    MARKET_W,
    NUM_COLOURS,
    PH_SPLIT,
    SCALES,
    SLOT,
    SPLIT,
    STALL,
    STALL_CHOICE,
    STALL_K,
    SUPPLY,
)
from cultivo_env.rules.accessors import copy_range, grow, pay_context
from cultivo_env.rules.payment import apply_scales, stall_score
from gamecore.kernel.header import H_NPLAYERS, H_PHASE
from gamecore.kernel.jit import ijit, jit


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


@ijit
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
