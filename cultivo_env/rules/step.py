"""Cultivo rules: applying a decision (``apply``) and the automatic steps after it. Part of
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
    ACT,
    ACT_ACQUIRE,
    ACT_MOVE,
    ACT_PLACE,
    ACT_PRODUCE,
    ACTIONS_LEFT,
    ACTIONS_PER_TURN,
    AGG,
    AGG_LEN,
    BARREL,
    BUILD_FIELD,
    BUILDING,
    BUILDINGS_TOTAL,
    BUILT,
    EQUIP_LOC,
    EXTRA_ACTION_WORKER,
    FIELD_COLOUR,
    FIELDS_PER_VILLAGE,
    GOODS_S,
    LOC_OWNED,
    MARKET,
    MARKET_W,
    MOVER,
    NUM_ACTIONS,
    NUM_COLOURS,
    PATH,
    PATH_N,
    PAY_I,
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
    REFILL,
    REFILL_CHOICE,
    SETUP_LEFT,
    SLOT,
    SPLIT,
    STACK_N,
    STALL_CHOICE,
    STALL_K,
    START,
    SUPPLY,
    TARGET,
    VISITED,
    VP_TILE_ARR,
    VP_TILES_S,
    WORKER,
    WORKERS_ON_MAP,
)
from cultivo_env.rules.accessors import bit, copy_range, pay_context, place_of
from cultivo_env.rules.market import apply_stall_choice, own_stalls, purchase_inits
from cultivo_env.rules.masks import legal_mask
from cultivo_env.rules.outcomes import (
    JOIN_TAGGED_TABLE,
    amount_trivial,
    build_obligations,
    colour_outcomes_cached,
    keep_outcomes,
    kept_outcomes,
    new_back_cache,
    set_amount,
    travel_counts,
)
from cultivo_env.rules.turn import (
    build_cost,
    check_end_trigger,
    clear_action,
    complete_action,
    line_empty,
    produce_amount,
    refill_line,
)
from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_OWNER, H_PHASE, H_TERMINAL
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.kernels import count_decision


# ---- applying a decision -------------------------------------------------------------------------
@jit
def gain(state: np.ndarray, p: int, c: int, k: int) -> None:
    state[GOODS_S + NUM_COLOURS * p + c] += k


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
                keep_outcomes(state, np.zeros(1, dtype=np.int64), np.int64(0))
                finish_payment(state, p)
                return
            tuples, nt, bl, bcnt = colour_outcomes_cached(state, p, bl, bcnt, np.int64(JOIN_TAGGED_TABLE))
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


@ijit
def start_payment(state: np.ndarray, p: int) -> None:
    """After a travel's last step: the obligations, then the amounts of the payment (the placement
    wheat is part of the yellow one)."""
    for i in range(AGG_LEN):
        state[AGG + i] = 0
    build_obligations(state, p)
    state[PAY_I] = 0
    state[H_PHASE] = PH_PAY
    next_amount(state, p, np.bool_(True))


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


@ijit
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


@ijit
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


@ijit
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
        next_amount(state, p, np.bool_(False))
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


@ijit
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


@ijit
def apply_legal(state: np.ndarray, action: int, mask: np.ndarray) -> int:
    """:func:`apply`, then the legal mask of the decision reached into ``mask`` (``NUM_ACTIONS``
    long); returns its count. The last legal computation of the forced-decision check is the mask
    itself, where ``apply`` then ``legal_mask`` would compute it twice."""
    count_decision(state)
    apply_decision(state, action)
    while True:
        count = legal_mask(state, mask)
        if count != 1:
            return count
        a = 0
        while mask[a] == 0:
            a += 1
        apply_decision(state, a)
