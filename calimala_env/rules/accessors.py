"""Calimala rules: small accessors of the state (spaces, discs, cloth, hands, free slots, the
placing player's duty). Part of :mod:`calimala_env.rules`; the rules as implemented:
``docs/rules/calimala.md``.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    ACT_I,
    ART,
    ART_SLOTS,
    ART_USED,
    CHURCH_SLOTS,
    CITY,
    CITY_SLOTS,
    CITY_USED,
    CLOTH,
    COLOURED,
    CONTRIB,
    CONTRIB_USED,
    HAND,
    LAYOUT,
    MAX_PLAYERS,
    MAX_WORKSHOPS,
    NUM_BUILDINGS,
    NUM_CHURCHES,
    NUM_CITIES,
    NUM_RES,
    NUM_TYPES,
    OBLIG,
    PENDING,
    SPACE,
    STREET_CELLS,
    WHITE,
)
from gamecore.kernel.header import H_NPLAYERS
from gamecore.kernel.jit import ijit, jit

P = MAX_PLAYERS


# =================================================================================================
# small helpers
# =================================================================================================
@jit
def space_type(state: np.ndarray, s: int, k: int) -> int:
    """Action of the k-th cell (0 or 1) of street s."""
    return state[LAYOUT + STREET_CELLS[s, k]]


@jit
def discs_left(state: np.ndarray, p: int) -> int:
    return state[COLOURED + p] + state[WHITE + p]


@jit
def cloth_total(state: np.ndarray, p: int) -> int:
    t = 0
    for w in range(MAX_WORKSHOPS):
        t += state[CLOTH + MAX_WORKSHOPS * p + w]
    return t


@ijit
def hand_count(state: np.ndarray, p: int) -> int:
    t = 0
    for k in range(NUM_TYPES):
        t += state[HAND + NUM_TYPES * p + k]
    return t


@jit
def city_free(state: np.ndarray, c: int) -> int:
    return CITY_SLOTS - state[CITY_USED + c]


@jit
def church_free(state: np.ndarray, b: int, r: int) -> int:
    return CHURCH_SLOTS[b, r] - state[CONTRIB_USED + NUM_RES * b + r]


@jit
def art_free(state: np.ndarray, b: int) -> int:
    return ART_SLOTS[b] - state[ART_USED + b]


@jit
def recount_board(state: np.ndarray) -> None:
    """Set the all-players totals of the cities, churches and buildings from the per-player slots."""
    n = state[H_NPLAYERS]
    for c in range(NUM_CITIES):
        t = 0
        for q in range(n):
            t += state[CITY + P * c + q]
        state[CITY_USED + c] = t
    for b in range(NUM_CHURCHES):
        for r in range(NUM_RES):
            t = 0
            for q in range(n):
                t += state[CONTRIB + NUM_RES * P * b + P * r + q]
            state[CONTRIB_USED + NUM_RES * b + r] = t
    for b in range(NUM_BUILDINGS):
        t = 0
        for q in range(n):
            t += state[ART + P * b + q]
        state[ART_USED + b] = t


@ijit
def street_bits(state: np.ndarray, s: int) -> int:
    """Bits of the two actions of street s."""
    bits = 0
    for k in range(2):
        bits |= 1 << state[LAYOUT + STREET_CELLS[s, k]]
    return bits


@jit
def pending_goal(state: np.ndarray) -> int:
    """Bit t set for each street action t still pending in the current activation."""
    s = state[SPACE]
    g = 0
    for k in range(2):
        if state[PENDING + k] > 0:
            g |= 1 << space_type(state, s, k)
    return g


@jit
def placer_duty(state: np.ndarray) -> bool:
    """The placing player's activation runs and none of the street's actions is carried out yet."""
    return state[OBLIG] == 1 and state[ACT_I] == 0
