"""Cultivo rules: the payment rules, whether a set of obligations can be paid (the scales, the
market stalls, :func:`pay_feasible`'s exact programme over the colours). Part of
:mod:`cultivo_env.rules`; the rules as implemented: ``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import NUM_COLOURS, SUPPLY, YELLOW
from gamecore.jit import jit

NEG = -(1 << 30)


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
    # the best stall score of colour c by (carted fields minus cart uses, barge uses, for yellow the
    # barges used before it): which fields are carted and how often the cart is used enter only
    # through that difference, so the programme's step takes the best of each difference once
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
