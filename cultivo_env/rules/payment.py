"""Cultivo rules: the payment rules, whether a set of obligations can be paid (the scales, the
market stalls, :func:`pay_feasible`'s exact programme over the colours). Part of
:mod:`cultivo_env.rules`; the rules as implemented: ``docs/rules/cultivo.md``.

The travel workspace (:data:`WS`; ``WS_*`` and the cache's and memo's offsets), a new one
(``travel.new_ws``):

{WS_TABLE}
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import MAX_FIELDS, NUM_COLOURS, SUPPLY, YELLOW
from cultivo_env.rules.accessors import add_pay_context
from gamecore.kernel.jit import jit
from gamecore.kernel.layout import Layout
from gamecore.kernel.scratch import borrowed

NEG = -(1 << 30)


# =============================================================================================
# The travel workspace
# =============================================================================================
#: One int64 array (``travel.new_ws``) holds what the searches of one mask share, at fixed offsets,
#: so that the hot functions take one array instead of a dozen (numba counts the references of
#: every array a function binds or slices, and those counts cost more than the arithmetic here):
#: the payer's context (goods, own scales and stalls, the owner of each cart and barge), a travel's
#: obligations per colour (fields without / with another player's worker), the goods owed, the
#: greedy test's rows, :func:`pay_feasible`'s scratch, rows and table, the feasibility cache
#: (``CACHE_SLOTS`` hash slots, at most ``CACHE_MAX`` of them used, so a lookup always meets an
#: empty slot soon; the exact programme's answers: counts of payable / not payable summaries, then
#: ``DP_MEMO`` of each; the count of used slots; the answers of the slots) and, last, the search's
#: labels and its rows per field. The offsets come from :data:`WS` (the table in the module's
#: docstring); the sizes below are the only numbers typed.
DPW_LEN = 18 + 2 * 256  # pay_feasible's scratch and its two rows, when they fit
TBL_LEN = 4096  # pay_feasible's table, when it fits
CACHE_SLOTS = 1024
CACHE_MAX = 768
DP_MEMO = 256
#: labels a new workspace has room for (``travel.travel_search`` retries with more when a search needs them)
WS_LABELS = 1024
#: rows of one value per field after the labels (``travel.search_labels``)
WS_FIELD_ROWS = 6

WS = Layout("travel workspace")
WS_H, WS_SCAL, WS_STL, WS_COWN, WS_BOWN = add_pay_context(WS)
WS_E = WS.add("E", NUM_COLOURS, "the travel's passed fields of colour c without another player's worker")
WS_F = WS.add("F", NUM_COLOURS, "the travel's passed fields of colour c with another player's worker")
WS_P = WS.add("P", NUM_COLOURS, "goods of colour c owed when paying with goods only (after the scales)")
WS_P0 = WS.add("P0", NUM_COLOURS, "goods of colour c owed besides the obligations, all to the supply (the "
               "placement wheat)")
WS_GP = WS.add("GP", NUM_COLOURS, "the greedy test's goods of colour c owed")
WS_GSP = WS.add("GSP", NUM_COLOURS, "the greedy test's goods of colour c to the supply")
WS_DPW = WS.add("DPW", DPW_LEN, ":func:`pay_feasible`'s scratch (stalls that can help, generation / consumption "
                "after each colour: 6 each) and its two rows, when they fit")
WS_TBL = WS.add("TBL", TBL_LEN, ":func:`pay_feasible`'s table of each colour's best stall scores, when it fits")
WS_KEYS = WS.add("KEYS", CACHE_SLOTS, "the feasibility cache's keys, one per hash slot (-1: empty)")
MEMO_NFE = WS.add("MEMO_NFE", 1, "summaries the exact programme found payable (kept in ``MEMO_FE``)")
MEMO_NIN = WS.add("MEMO_NIN", 1, "summaries the exact programme found not payable (kept in ``MEMO_IN``)")
MEMO_FE = WS.add("MEMO_FE", DP_MEMO, "the first ``DP_MEMO`` summaries found payable")
MEMO_IN = WS.add("MEMO_IN", DP_MEMO, "the first ``DP_MEMO`` summaries found not payable")
CACHE_N = WS.add("CACHE_N", 1, "the cache's used slots (at most ``CACHE_MAX``)")
WS_VALS = WS.add("VALS", CACHE_SLOTS, "the cache's answers, one per hash slot (1 payable, 0 not)")
WS_LAB = WS.add("LAB", 4 * WS_LABELS, "the search's labels: field, obligations, the next label at the same "
                "field, the next label of the same distance bucket (-2 once expanded), ``WS_LABELS`` of each in "
                "a new workspace (a grown one has more, and the rows per field follow them)",
                shape=(4, WS_LABELS))
WS.add("FIELD_ROWS", WS_FIELD_ROWS * MAX_FIELDS, "the search's rows per field: its newest label, hops to the "
       "target, the label expanded next per distance, the fields set in ``found``, the cost of the way on to the "
       "nearest open target and as of how many targets found", shape=(WS_FIELD_ROWS, MAX_FIELDS))
#: a new workspace's length (``travel.new_ws``)
WS_LEN = WS.size

__doc__ = (__doc__ or "").replace("{WS_TABLE}", WS.table())


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
def pay_feasible(ws: np.ndarray, payer: int, m: int) -> bool:
    """Can a travel's obligations be paid?

    Reads the travel workspace ``ws`` (the layout above; ``travel.new_ws``): the payer's context,
    ``P0``: goods the payer owes besides per colour (the placement wheat; all of them to the supply),
    and the obligations: per colour, ``e`` passed fields paid as 2 goods to the supply when paid with
    goods, ``f`` fields with another player's worker (1 good to that player, 1 to the supply); and
    ``m`` canals (2 wheat). Any field may instead be paid with 1 good of a cart's colour (to the
    cart's owner), any canal with 1 good of a barge's colour. Scales act on the supply totals; then
    the stall rule (:func:`affordable`) decides.

    Exact: a dynamic programme over the colours; its state is (free cart units still to place, barge
    units placed) and its value the best stall score so far. Its rows and its table of each colour's
    best scores live in the workspace when they fit (else they are allocated).
    """
    ws = borrowed(ws)  # its views below count no references (the caller holds ws)
    H = ws[WS_H: WS_H + NUM_COLOURS]
    scal = ws[WS_SCAL: WS_SCAL + NUM_COLOURS]
    stl = ws[WS_STL: WS_STL + NUM_COLOURS]
    cown = ws[WS_COWN: WS_COWN + NUM_COLOURS]
    bown = ws[WS_BOWN: WS_BOWN + NUM_COLOURS]
    P0 = ws[WS_P0: WS_P0 + NUM_COLOURS]
    sp0 = P0
    e = ws[WS_E: WS_E + NUM_COLOURS]
    f = ws[WS_F: WS_F + NUM_COLOURS]
    work = ws[WS_DPW: WS_DPW + DPW_LEN]
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
    # the best stall score of colour c by (carted fields minus cart uses, barge uses, for yellow the
    # barges used before it): which fields are carted and how often the cart is used enter only
    # through that difference, so the programme's step takes the best of each difference once
    if W * M * M <= TBL_LEN:
        tbl = ws[WS_TBL: WS_TBL + W * M * M]
    else:
        tbl = np.empty(W * M * M, dtype=np.int64)
    for c in range(NUM_COLOURS):
        rem_st -= elig[c]  # helping stalls of the colours after this one
        nxt[:] = NEG
        lo_fb = -gen_after[c]
        hi_fb = cons_after[c]
        hascart = cown[c] >= 0
        owncart = cown[c] == payer
        hasbarge = bown[c] >= 0
        ownbarge = bown[c] == payer
        yellow = c == YELLOW
        # more than the goods of c (+1 for its scales, +1 per helping stall) can never be paid in c
        cap = H[c] + scal[c] + nst - P0[c]
        if cap < 0:
            cap = 0
        umax = min(G, cap) if hascart else 0
        vtop = min(m, cap) if hasbarge else 0
        ec = e[c]
        fc = f[c]
        nbu_in = M if yellow else 1  # yellow's score depends on the barges used before it
        tbl[:] = NEG
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
            for u in range(min(umax, room) + 1):
                di = g - u + G
                for bu in range(nbu_in):
                    for v in range(min(vtop, room - u) + 1):  # at most m - bu: read so
                        P = bP + u + v
                        sp = bsp
                        if ownbarge:
                            sp += v
                        if owncart:
                            sp += u
                        if yellow:
                            wst = m - bu - v
                            P += 2 * wst
                            sp += 2 * wst
                        net = P - 1 if (scal[c] and sp >= 2) else P
                        sc = stall_score(net, H[c], elig[c])
                        k = (di * M + bu) * M + v
                        if sc > tbl[k]:
                            tbl[k] = sc
        dlo = -umax
        dhi = ec + fc
        for fbi in range(W):
            fb = fbi - G
            for bu in range(M):
                val = cur[fbi * M + bu]
                if val == NEG:
                    continue
                if val + rem_st + elig[c] < 0:
                    continue  # no stall can make up for it any more
                vmax = min(m - bu, vtop)
                tb = bu if yellow else 0
                # the free balance after must stay in [lo_fb, hi_fb]
                for dl in range(max(dlo, lo_fb - fb), min(dhi, hi_fb - fb) + 1):
                    row = ((dl + G) * M + tb) * M
                    nrow = (fb + dl + G) * M + bu
                    for v in range(vmax + 1):
                        t = tbl[row + v]
                        if t == NEG:
                            continue
                        sc = val + t
                        if sc > nxt[nrow + v]:
                            nxt[nrow + v] = sc
        cur, nxt = nxt, cur
    for bu in range(M):
        if cur[G * M + bu] >= 0:
            return True
    return False
