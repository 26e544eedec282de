"""Cultivo rules: the legal decisions, ``legal_mask`` and the mask of each phase. Part of
:mod:`cultivo_env.rules`; the rules as implemented: ``docs/rules/cultivo.md``.
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
    ACT_ACQUIRE,
    ACT_BUILD,
    ACT_MOVE,
    ACT_PLACE,
    ACT_PRODUCE,
    FIELD_COLOUR,
    MARKET,
    MARKET_SLOTS,
    MAX_AMOUNT,
    MAX_FIELDS,
    MOVER,
    NEIGH,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_FIELDS,
    PATH,
    PATH_N,
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
    SLOT,
    STALL_OPTIONS,
    VISITED,
    WORKER,
    YELLOW,
)
from cultivo_env.rules.accessors import goods, pay_context
from cultivo_env.rules.market import purchase_feasible, purchase_inits, stage_options
from cultivo_env.rules.outcomes import amount_values
from cultivo_env.rules.travel import (
    free_neighbour_same_village,
    move_targets,
    new_ws,
    origin_ok,
    own_worker_fields,
    place_targets,
    step_ok,
)
from cultivo_env.rules.turn import can_build, produce_amount
from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_PHASE, H_TERMINAL
from gamecore.kernel.jit import ijit, jit


# =============================================================================================
# Kernel interface
# =============================================================================================
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


@ijit
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
        ws = new_ws()
        for i in range(k):
            found[:] = 0
            if move_targets(state, p, src[i], found, np.int64(1), ws) > 0:
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


@ijit
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
            move_targets(state, p, state[MOVER], found, limit, new_ws())
        for f in range(nf):
            if found[f]:
                mask[A_FIELD + f] = 1
                count += 1
        return count
    if ph == PH_STEP:
        cur = state[PATH + state[PATH_N] - 1]
        ws = new_ws()
        for d in range(4):
            v = NEIGH[n, cur, d]
            if v < 0 or (state[VISITED] >> np.int64(v)) & np.int64(1):
                continue
            if step_ok(state, p, v, ws):
                mask[A_FIELD + v] = 1
                count += 1
                if limit > 0 and count >= limit:
                    return count
        return count
    found = np.zeros(MAX_FIELDS, dtype=np.int8)
    src, k = own_worker_fields(state, p)
    ws = new_ws()
    for i in range(k):
        if ph == PH_ORIGIN:
            ok = origin_ok(state, p, src[i], ws)
        else:
            found[:] = 0
            ok = move_targets(state, p, src[i], found, np.int64(1), ws) > 0
        if ok:
            mask[A_FIELD + src[i]] = 1
            count += 1
            if limit > 0 and count >= limit:
                return count
    return count


@ijit
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
