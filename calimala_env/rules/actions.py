"""Calimala rules: the actions, on the state (``weave``, ``ship_cloth``, ``build_house``, ...), and
the action cards (``draw_card``, ``play_card``, ``reshuffle_discard``). Part of
:mod:`calimala_env.rules`; the rules as implemented: ``docs/rules/calimala.md``.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    ART,
    ART_SLOTS,
    ART_USED,
    BRICK,
    CITY,
    CITY_USED,
    CLOTH,
    CONTRIB,
    CONTRIB_USED,
    COUNCIL,
    COUNCIL_ART,
    DECK,
    DECK_N,
    DISCARD,
    FIRST_TRADE,
    HAND,
    HOUSE,
    KNOWN,
    MARBLE,
    MAX_WORKSHOPS,
    NUM_RES,
    NUM_TYPES,
    RESERVE,
    SHIPS,
    WH,
    WOOD,
    WORKSHOP_CAP,
    WORKSHOPS,
)
from calimala_env.rules.accessors import P
from gamecore.kernel.header import H_RNG
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.rng import rng_shuffle


# =================================================================================================
# the actions, on the state
# =================================================================================================
@ijit
def gain_resource(state: np.ndarray, p: int, r: int) -> None:
    """Wood / Brick / Marble: one cube from the reserve into that warehouse."""
    state[WH + NUM_RES * p + r] += 1
    state[RESERVE + p] -= 1


@jit
def weave(state: np.ndarray, p: int) -> None:
    """One cloth into every workshop with room (emptiest first while the reserve lasts)."""
    base = CLOTH + MAX_WORKSHOPS * p
    nws = state[WORKSHOPS + p]
    todo = 0
    for w in range(nws):
        if state[base + w] < WORKSHOP_CAP:
            todo |= 1 << w
    while todo and state[RESERVE + p] > 0:
        best = -1
        for w in range(nws):
            if (todo >> w) & 1 and (best < 0 or state[base + w] < state[base + best]):
                best = w
        state[base + best] += 1
        state[RESERVE + p] -= 1
        todo &= ~(1 << best)


@ijit
def remove_cloth(state: np.ndarray, p: int) -> None:
    """One cloth leaves p's fullest workshop (ruling)."""
    base = CLOTH + MAX_WORKSHOPS * p
    best = 0
    for w in range(1, state[WORKSHOPS + p]):
        if state[base + w] > state[base + best]:
            best = w
    state[base + best] -= 1


@ijit
def ship_cloth(state: np.ndarray, p: int, c: int) -> None:
    """One ship takes one cloth to port city c."""
    remove_cloth(state, p)
    state[CITY + P * c + p] += 1
    state[CITY_USED + c] += 1


@ijit
def transport_cloth(state: np.ndarray, p: int, t: int) -> None:
    """One cloth to trade city t, where p has a trade house."""
    remove_cloth(state, p)
    state[CITY + P * (FIRST_TRADE + t) + p] += 1
    state[CITY_USED + FIRST_TRADE + t] += 1


@ijit
def build_ship(state: np.ndarray, p: int) -> None:
    state[WH + NUM_RES * p + WOOD] -= 2
    state[RESERVE + p] += 2
    state[SHIPS + p] += 1


@ijit
def build_workshop(state: np.ndarray, p: int) -> None:
    state[WH + NUM_RES * p + WOOD] -= 1
    state[WH + NUM_RES * p + BRICK] -= 1
    state[RESERVE + p] += 2
    state[CLOTH + MAX_WORKSHOPS * p + state[WORKSHOPS + p]] = 0
    state[WORKSHOPS + p] += 1


@ijit
def build_house(state: np.ndarray, p: int, t: int) -> None:
    state[WH + NUM_RES * p + BRICK] -= 2
    state[RESERVE + p] += 2
    state[HOUSE + P * t + p] = 1


@ijit
def make_artwork(state: np.ndarray, p: int, b: int) -> None:
    """One marble to a free artwork slot of building b (the council's slots are filled in order)."""
    state[WH + NUM_RES * p + MARBLE] -= 1
    if b == COUNCIL:
        for i in range(ART_SLOTS[COUNCIL]):
            if state[COUNCIL_ART + i] == 0:
                state[COUNCIL_ART + i] = 1 + p
                break
    state[ART + P * b + p] += 1
    state[ART_USED + b] += 1


@ijit
def contribute(state: np.ndarray, p: int, r: int, b: int) -> None:
    state[WH + NUM_RES * p + r] -= 1
    state[CONTRIB + NUM_RES * P * b + P * r + p] += 1
    state[CONTRIB_USED + NUM_RES * b + r] += 1


# =================================================================================================
# action cards
# =================================================================================================
@ijit
def reshuffle_discard(state: np.ndarray) -> None:
    """The face-up discard pile becomes the new face-down deck, shuffled."""
    n = state[DECK_N]
    for t in range(NUM_TYPES):
        for _ in range(state[DISCARD + t]):
            state[DECK + n] = t
            n += 1
        state[DISCARD + t] = 0
    state[DECK_N] = n
    rng_shuffle(state, H_RNG, state, np.int64(DECK), DECK + n)


@ijit
def draw_card(state: np.ndarray, p: int) -> int:
    """Draw the top card into p's hand; the last card drawn makes the discard pile the new deck at
    once. With deck and discard pile both empty nothing is drawn (ruling). Returns the type or -1."""
    if state[DECK_N] == 0:
        reshuffle_discard(state)
        if state[DECK_N] == 0:
            return -1
    n = state[DECK_N] - 1
    t = state[DECK + n]
    state[DECK + n] = 0
    state[DECK_N] = n
    state[HAND + NUM_TYPES * p + t] += 1
    if n == 0:
        reshuffle_discard(state)
    return t


@ijit
def play_card(state: np.ndarray, p: int, t: int) -> None:
    """The card leaves p's hand face up onto the discard pile (a known card first: every seat
    still knows as much of the rest of the hand)."""
    state[HAND + NUM_TYPES * p + t] -= 1
    if state[KNOWN + NUM_TYPES * p + t] > 0:
        state[KNOWN + NUM_TYPES * p + t] -= 1
    state[DISCARD + t] += 1
