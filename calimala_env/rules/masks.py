"""Calimala rules: the legal decisions (``legal_mask``). Part of :mod:`calimala_env.rules`; the
rules as implemented: ``docs/rules/calimala.md``.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    A_ARTWORK,
    A_BUILD,
    A_CARD,
    A_CONTRIB,
    A_END,
    A_KEEP,
    A_PLACE,
    A_PROMOTE,
    A_RESOLVE,
    A_SHIP,
    A_START,
    A_STOP,
    A_TRANSPORT,
    BUILD_HOUSE,
    COLOURED,
    DEALT,
    EXEC_CARD,
    EXEC_USED,
    MARBLE,
    MAX_DEALT,
    NUM_ACTIONS,
    NUM_BUILDINGS,
    NUM_CHURCHES,
    NUM_PORTS,
    NUM_RES,
    NUM_SPACES,
    NUM_START,
    NUM_TRADE,
    PENDING,
    PH_ACTIVATE,
    PH_ARTWORK,
    PH_BUILD,
    PH_KEEP,
    PH_PLACE,
    PH_PROMOTE,
    PH_SHIP,
    PH_START,
    PH_TRANSPORT,
    SPACE,
    START_LEFT,
    WH,
    WHITE,
)
from calimala_env.rules.accessors import (
    art_free,
    church_free,
    city_free,
    pending_goal,
    placer_duty,
    space_type,
    street_bits,
)
from calimala_env.rules.mat import (
    MOVE_TYPE,
    NUM_MOVES,
    V_AFREE,
    V_CFREE,
    V_HAND,
    V_PFREE,
    V_TFREE,
    V_WH,
    VLEN,
    achievable,
    can_build,
    can_transport_to,
    copy_row,
    feasible_bits,
    fill_mat,
    move_apply,
    move_ok,
    search_achievable,
    v_build,
    v_remove_cloth,
)
from calimala_env.rules.turn import promote_option
from gamecore.kernel.header import H_CURRENT, H_PHASE, H_TERMINAL
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.scratch import stack_empty

#: rows of the duty checks of one activation decision: the two pending actions and every card play
DUTY_ROWS = 2 + NUM_MOVES
#: rows of the duty checks of one option decision (the most options: 3 ports + stop, 5 builds ...)
OPTION_ROWS = 10


# =================================================================================================
# legal decisions
# =================================================================================================
@ijit
def _mask_place(state: np.ndarray, mask: np.ndarray, v: np.ndarray) -> int:
    """A disc may go on a street only if the placing player can carry out one of its two actions,
    playing cards first if need be; if no street allows this, on any street."""
    p = state[H_CURRENT]
    f = feasible_bits(v)
    need = np.int64(0)
    for s in range(NUM_SPACES):
        bits = street_bits(state, s)
        if not f & bits:
            need |= bits
    if need:
        f |= search_achievable(v, need, np.int64(0))
    ok = stack_empty(NUM_SPACES, np.int8)
    ok[:] = 0
    anyok = False
    for s in range(NUM_SPACES):
        if f & street_bits(state, s):
            ok[s] = 1
            anyok = True
    count = 0
    for s in range(NUM_SPACES):
        if ok[s] or not anyok:
            if state[COLOURED + p] > 0:
                mask[A_PLACE + 2 * s] = 1
                count += 1
            if state[WHITE + p] > 0:
                mask[A_PLACE + 2 * s + 1] = 1
                count += 1
    return count


@ijit
def _duty_checks(rows: np.ndarray, goals: np.ndarray, tags: np.ndarray, m: int, ok: np.ndarray) -> None:
    """ok[tag] = 1 for every candidate row (a mat vector after some decision) from which one of its
    goal actions is still achievable (the one place the mask kernels search)."""
    for i in range(m):
        if ok[tags[i]] == 0 and achievable(rows[i], goals[i]):
            ok[tags[i]] = 1


@jit
def _mask_activate(state: np.ndarray, mask: np.ndarray, v: np.ndarray) -> int:
    """Take a pending street action, play a card whose action can be carried out, or end. While
    the placing player's duty is open and can still be met, only decisions that keep it possible
    are offered, and the activation may not end."""
    s = state[SPACE]
    f = feasible_bits(v)
    goal = pending_goal(state)
    duty = placer_duty(state) and achievable(v, goal)
    count = 0
    rows = stack_empty((DUTY_ROWS, VLEN), np.int64)
    goals = stack_empty(DUTY_ROWS, np.int64)
    tags = stack_empty(DUTY_ROWS, np.int64)
    ok = stack_empty(NUM_ACTIONS, np.int8)
    if duty:
        ok[:] = 0
    m = 0
    for k in range(2):
        if state[PENDING + k] == 0:
            continue
        t = space_type(state, s, k)
        if duty and not (f >> t) & 1:  # giving up an impossible action: the other must stay possible
            copy_row(rows, m, v)
            goals[m] = goal if state[PENDING + k] > 1 else goal & ~(1 << t)
            tags[m] = A_RESOLVE + t
            m += 1
        else:
            mask[A_RESOLVE + t] = 1
            count += 1
    for mv in range(NUM_MOVES):
        t = MOVE_TYPE[mv]
        if v[V_HAND + t] == 0 or not (f >> t) & 1:
            continue
        if not duty:
            if mask[A_CARD + t] == 0:
                mask[A_CARD + t] = 1
                count += 1
        elif move_ok(v, mv):  # a card is allowed if some way of carrying it out keeps the duty possible
            copy_row(rows, m, v)
            move_apply(rows[m], mv)
            goals[m] = goal
            tags[m] = A_CARD + t
            m += 1
    if duty:
        _duty_checks(rows, goals, tags, np.int64(m), ok)
        for i in range(m):
            a = tags[i]
            if ok[a] and mask[a] == 0:
                mask[a] = 1
                count += 1
    else:
        mask[A_END] = 1
        count += 1
    return count


@jit
def _option_bits(state: np.ndarray, v: np.ndarray, duty: bool, goal: int) -> tuple:
    """(base action, candidate bits, bits of the candidates that keep the placing player's duty
    possible) of the current ship / transport / build / artwork / contribute decision."""
    ph = state[H_PHASE]
    p = state[H_CURRENT]
    cand = 0
    rows = stack_empty((OPTION_ROWS, VLEN), np.int64)
    tags = stack_empty(OPTION_ROWS, np.int64)
    m = 0
    if ph == PH_SHIP or ph == PH_TRANSPORT:
        base = A_SHIP
        if ph == PH_SHIP:
            for c in range(NUM_PORTS):
                if city_free(state, c) > 0:
                    cand |= 1 << (A_SHIP + c - base)
                    if duty:
                        copy_row(rows, m, v)
                        v_remove_cloth(rows[m])
                        rows[m, V_PFREE] -= 1
                        tags[m] = A_SHIP + c - base
                        m += 1
        else:
            for t in range(NUM_TRADE):
                if not (state[EXEC_USED] >> t) & 1 and can_transport_to(v, t):
                    cand |= 1 << (A_TRANSPORT + t - base)
                    if duty:
                        copy_row(rows, m, v)
                        v_remove_cloth(rows[m])
                        rows[m, V_TFREE + t] -= 1
                        tags[m] = A_TRANSPORT + t - base
                        m += 1
        if state[EXEC_USED] > 0:
            cand |= 1 << (A_STOP - base)
            if duty:
                copy_row(rows, m, v)
                tags[m] = A_STOP - base
                m += 1
    elif ph == PH_BUILD:
        base = A_BUILD
        for kind in range(BUILD_HOUSE + NUM_TRADE):
            if can_build(v, kind):
                cand |= 1 << kind
                if duty:
                    copy_row(rows, m, v)
                    v_build(rows[m], kind)
                    tags[m] = kind
                    m += 1
    elif ph == PH_ARTWORK:
        base = A_ARTWORK
        for b in range(NUM_BUILDINGS):
            if art_free(state, b) > 0:
                cand |= 1 << b
                if duty:
                    copy_row(rows, m, v)
                    rows[m, V_WH + MARBLE] -= 1
                    rows[m, V_AFREE] -= 1
                    tags[m] = b
                    m += 1
    else:
        base = A_CONTRIB
        for r in range(NUM_RES):
            if state[WH + NUM_RES * p + r] == 0:
                continue
            for b in range(NUM_CHURCHES):
                if church_free(state, b, r) > 0:
                    cand |= 1 << (NUM_CHURCHES * r + b)
                    if duty:
                        copy_row(rows, m, v)
                        rows[m, V_WH + r] -= 1
                        rows[m, V_CFREE + r] -= 1
                        tags[m] = NUM_CHURCHES * r + b
                        m += 1
    keeps = 0
    if duty:
        goals = stack_empty(OPTION_ROWS, np.int64)
        for i in range(m):
            goals[i] = goal
        ok = stack_empty(16, np.int8)
        ok[:] = 0
        _duty_checks(rows, goals, tags, np.int64(m), ok)
        for k in range(16):
            if ok[k]:
                keeps |= 1 << k
    return base, cand, keeps


@ijit
def _mask_options(state: np.ndarray, mask: np.ndarray, v: np.ndarray) -> int:
    """The choices of a ship / transport / build / artwork / contribute action. While the placing
    player's duty is open (the action comes from a card), only choices after which it can still be
    met, if any can."""
    duty = state[EXEC_CARD] == 1 and placer_duty(state)
    base, cand, keeps = _option_bits(state, v, duty, pending_goal(state) if duty else 0)
    if keeps:
        cand = keeps
    count = 0
    k = 0
    while cand >> k:
        if (cand >> k) & 1:
            mask[base + k] = 1
            count += 1
        k += 1
    return count


@jit
def legal_mask(state: np.ndarray, mask: np.ndarray) -> int:
    for a in range(mask.shape[0]):
        mask[a] = 0
    if state[H_TERMINAL]:
        return 0
    ph = state[H_PHASE]
    p = state[H_CURRENT]
    count = 0
    if ph == PH_KEEP:
        for j in range(MAX_DEALT):
            c = state[DEALT + MAX_DEALT * p + j]
            if c > 0:
                mask[A_KEEP + c - 1] = 1
                count += 1
        return count
    if ph == PH_START:
        for i in range(NUM_START):
            if state[START_LEFT + i]:
                mask[A_START + i] = 1
                count += 1
        return count
    if ph == PH_PROMOTE:
        for s in range(NUM_SPACES):
            for d in range(3):
                if promote_option(state, p, s, d):
                    mask[A_PROMOTE + 3 * s + d] = 1
                    count += 1
        return count
    v = stack_empty(VLEN, np.int64)
    fill_mat(state, p, v)
    if ph == PH_PLACE:
        return _mask_place(state, mask, v)
    if ph == PH_ACTIVATE:
        return _mask_activate(state, mask, v)
    return _mask_options(state, mask, v)
