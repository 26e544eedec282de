"""Cultivo rules: the other rules, building, production, refilling the market and the end of an
action, a turn and the game. Part of :mod:`cultivo_env.rules`; the rules as implemented:
``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    ACT,
    ACT_NONE,
    ACTIONS_LEFT,
    ACTIONS_PER_TURN,
    AGG,
    AGG_LEN,
    BUILD_EQUIP_VP,
    BUILD_FIELD,
    BUILD_GOODS,
    BUILD_WHEAT,
    BUILDING,
    BUILT,
    END_BUILDINGS,
    END_MARKET_LEFT,
    END_TRIGGERED,
    EQUIP_LOC,
    FIELD_COLOUR,
    FINAL_ROUND,
    GOODS_S,
    LOC_MARKET,
    LOC_OWNED,
    MARKET,
    MARKET_SLOTS,
    MARKET_W,
    MAX_PAY_OUTCOMES,
    MAX_ROUNDS,
    MOVER,
    NUM_COLOURS,
    NUM_FIELDS,
    OBL_COLOUR,
    OBL_KIND,
    OBL_N,
    OBL_OCC,
    OBL_WHERE,
    PATH,
    PATH_N,
    PAY_I,
    PAY_T,
    PAY_TN,
    PH_ACTION,
    REFILL_CHOICE,
    ROUND,
    SCALES,
    SLOT,
    SPLIT,
    STACK,
    STACK_N,
    STALL,
    STALL_CHOICE,
    STALL_K,
    START,
    SUPPLY,
    TARGET,
    TOOL,
    TURNS,
    VISITED,
    WORKER,
    YELLOW,
)
from cultivo_env.rules.accessors import equipment_value, pay_context
from cultivo_env.rules.payment import apply_scales, stall_score
from gamecore.kernel.header import H_CURRENT, H_DONE, H_NPLAYERS, H_OWNER, H_PHASE, H_TERMINAL
from gamecore.kernel.jit import ijit, jit


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


@ijit
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


@ijit
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
