"""Calimala rules: applying a decision (``apply``) and the forced ones after it. Part of
:mod:`calimala_env.rules`; the rules as implemented: ``docs/rules/calimala.md``.
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
    BUILD_SHIP,
    BUILD_WORKSHOP,
    EXEC_USED,
    FIRST_TRADE,
    HOUSE,
    NUM_ACTIONS,
    NUM_CHURCHES,
    NUM_PORTS,
    NUM_TRADE,
    NUM_TYPES,
    PENDING,
    PH_ACTIVATE,
    PH_KEEP,
    PH_PLACE,
    SHIPS,
)
from calimala_env.rules.accessors import P, city_free, cloth_total, placer_duty
from calimala_env.rules.actions import (
    build_house,
    build_ship,
    build_workshop,
    contribute,
    make_artwork,
    ship_cloth,
    transport_cloth,
)
from calimala_env.rules.masks import legal_mask
from calimala_env.rules.mat import V_HAND, VLEN, can_do, fill_mat
from calimala_env.rules.setup import keep_card, take_start_card
from calimala_env.rules.turn import (
    end_activation,
    end_exec,
    place_disc,
    play_action_card,
    promote_fourth_disc,
    resolve_action,
)
from gamecore.kernel.header import H_CURRENT, H_PHASE, H_TERMINAL
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.kernels import count_decision
from gamecore.kernel.scratch import stack_empty


# =================================================================================================
# applying a decision
# =================================================================================================
@ijit
def _after_ship(state: np.ndarray, p: int) -> None:
    state[EXEC_USED] += 1
    free = 0
    for c in range(NUM_PORTS):
        free += city_free(state, c)
    if state[EXEC_USED] >= state[SHIPS + p] or cloth_total(state, p) == 0 or free == 0:
        end_exec(state)


@ijit
def _after_transport(state: np.ndarray, p: int, t: int) -> None:
    state[EXEC_USED] |= 1 << t
    if cloth_total(state, p) == 0:
        end_exec(state)
        return
    for k in range(NUM_TRADE):
        if not (state[EXEC_USED] >> k) & 1 and state[HOUSE + P * k + p] == 1 \
                and city_free(state, FIRST_TRADE + k) > 0:
            return
    end_exec(state)


@jit
def apply_one(state: np.ndarray, action: int) -> bool:
    """Apply one legal decision of the deciding seat; True when the turn's activations are over
    (or the promotion choice is made): the fourth disc comes next."""
    p = state[H_CURRENT]
    a = action
    if a < A_START:
        keep_card(state, a - A_KEEP)
    elif a < A_PLACE:
        take_start_card(state, a - A_START)
    elif a < A_RESOLVE:
        i = a - A_PLACE
        place_disc(state, i // 2, i % 2)
    elif a < A_CARD:
        resolve_action(state, a - A_RESOLVE)
    elif a < A_END:
        play_action_card(state, a - A_CARD)
    elif a == A_END:
        return end_activation(state)
    elif a < A_TRANSPORT:
        ship_cloth(state, p, a - A_SHIP)
        _after_ship(state, p)
    elif a < A_STOP:
        t = a - A_TRANSPORT
        transport_cloth(state, p, t)
        _after_transport(state, p, t)
    elif a == A_STOP:
        end_exec(state)
    elif a < A_ARTWORK:
        kind = a - A_BUILD
        if kind == BUILD_SHIP:
            build_ship(state, p)
        elif kind == BUILD_WORKSHOP:
            build_workshop(state, p)
        else:
            build_house(state, p, kind - BUILD_HOUSE)
        end_exec(state)
    elif a < A_CONTRIB:
        make_artwork(state, p, a - A_ARTWORK)
        end_exec(state)
    elif a < A_PROMOTE:
        i = a - A_CONTRIB
        contribute(state, p, i // NUM_CHURCHES, i % NUM_CHURCHES)
        end_exec(state)
    else:
        state[EXEC_USED] = 1 + a - A_PROMOTE
        return True
    return False


@ijit
def _forced(state: np.ndarray, mask: np.ndarray) -> tuple:
    """(the only legal decision or -1 if there are several, the legal count when ``mask`` now holds
    this position's legal mask or -1). Cheap for the common case: an activation without the
    placing player's duty has several choices while an action is pending (ending is one), and
    exactly one (ending) when nothing is pending and no card can be played; otherwise the mask is
    computed (into ``mask``) and counted."""
    ph = state[H_PHASE]
    if ph == PH_ACTIVATE and not placer_duty(state):
        if state[PENDING] > 0 or state[PENDING + 1] > 0:
            return -1, -1
        p = state[H_CURRENT]
        v = stack_empty(VLEN, np.int64)
        fill_mat(state, p, v)
        for t in range(NUM_TYPES):
            if v[V_HAND + t] > 0 and can_do(v, t):
                return -1, -1
        return A_END, -1
    count = legal_mask(state, mask)
    if count != 1:
        return -1, count
    for a in range(NUM_ACTIONS):
        if mask[a]:
            return a, count
    return -1, count


@ijit
def _advance(state: np.ndarray, action: int, mask: np.ndarray) -> int:
    """Apply the decision, then every step that leaves no choice (a decision with exactly one
    legal option, e.g. ending an activation with nothing left to do, or the only build possible),
    up to the next real decision. Placements and scoring-card choices are always asked. Returns the
    legal count when ``mask`` holds the legal mask of the position reached (the forced-decision
    check computed it), else -1."""
    count_decision(state)
    a = action
    for _ in range(10_000):
        if apply_one(state, a):
            promote_fourth_disc(state)
        if state[H_TERMINAL] or state[H_PHASE] == PH_PLACE or state[H_PHASE] == PH_KEEP:
            return -1
        a, count = _forced(state, mask)
        if a < 0:
            return count
    return -1


@jit
def apply(state: np.ndarray, action: int) -> None:
    """Apply the decision and the forced ones after it (:func:`_advance`)."""
    _advance(state, action, stack_empty(NUM_ACTIONS, np.int8))


@jit
def apply_legal(state: np.ndarray, action: int, mask: np.ndarray) -> int:
    """:func:`apply`, then the legal mask of the decision reached into ``mask`` (``NUM_ACTIONS``
    long); returns its count. Where the forced-decision check already computed that mask it is
    kept, where ``apply`` then ``legal_mask`` would compute it twice."""
    count = _advance(state, action, mask)
    if count < 0:
        count = legal_mask(state, mask)
    return count
