"""Calimala rules: scoring (``category_value``, ``tie_key``, ``award``, ``score_tile``,
``final_scoring``) and the kernel interface's ``scores`` and ``rank_keys``. Part of
:mod:`calimala_env.rules`; the rules as implemented: ``docs/rules/calimala.md``.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    ART,
    ART_SLOTS,
    CAT_PALAZZO,
    CITY,
    CONTRIB,
    COUNCIL,
    COUNCIL_ART,
    COUNCIL_PTS,
    DEALT,
    END_TRIGGERED,
    FACE_UP,
    FINAL_PTS,
    FIRST_TRADE,
    KEPT,
    MAX_DEALT,
    MAX_PLAYERS,
    NEXT_SEAT,
    NUM_BUILDINGS,
    NUM_CHURCHES,
    NUM_CITIES,
    NUM_RES,
    NUM_SEATS,
    SCORING_CARD_CATEGORY,
    SEAT,
    SEAT_BASE,
    SEAT_EMPTY,
    SEATS,
    TILES,
    VP,
)
from calimala_env.rules.accessors import P
from gamecore.kernel.header import H_NPLAYERS
from gamecore.kernel.jit import ijit, jit


# =================================================================================================
# scoring
# =================================================================================================
@jit
def category_value(state: np.ndarray, cat: int, p: int) -> int:
    """A city: cloth there; a church: its contributions + artworks; Artwork: artworks on all 4
    buildings; Port / Trade cities: cloth in those 3 cities; Contributed wood / brick / marble:
    those cubes in the 3 churches; Palazzo Vecchio (final card): seats + council artworks."""
    if cat < NUM_CITIES:
        return state[CITY + P * cat + p]
    if cat < NUM_CITIES + NUM_CHURCHES:
        b = cat - NUM_CITIES
        v = state[ART + P * b + p]
        for r in range(NUM_RES):
            v += state[CONTRIB + NUM_RES * P * b + P * r + p]
        return v
    if cat == NUM_CITIES + NUM_CHURCHES:
        v = 0
        for b in range(NUM_BUILDINGS):
            v += state[ART + P * b + p]
        return v
    if cat == NUM_CITIES + NUM_CHURCHES + 1 or cat == NUM_CITIES + NUM_CHURCHES + 2:
        first = 0 if cat == NUM_CITIES + NUM_CHURCHES + 1 else FIRST_TRADE
        v = 0
        for c in range(first, first + 3):
            v += state[CITY + P * c + p]
        return v
    if cat == CAT_PALAZZO:
        return state[SEATS + p] + state[ART + P * COUNCIL + p]
    r = cat - (NUM_CITIES + NUM_CHURCHES + 3)
    v = 0
    for b in range(NUM_CHURCHES):
        v += state[CONTRIB + NUM_RES * P * b + P * r + p]
    return v


@jit
def tie_key(state: np.ndarray, value: int, p: int) -> int:
    """A player's place in a scoring: higher value first; a tie goes to more (seats + council
    artworks), then more seats, then who reached that seat count first (the earlier seat), then,
    without seats, who made the first council artwork first. Equal keys share."""
    seats = state[SEATS + p]
    art = state[ART + P * COUNCIL + p]
    k4 = 0
    if seats > 0:
        count = 0
        for k in range(NUM_SEATS):
            if state[SEAT + k] == SEAT_BASE + p:
                count += 1
                if count == seats:
                    k4 = NUM_SEATS - k
                    break
    elif art > 0:
        for i in range(ART_SLOTS[COUNCIL]):
            if state[COUNCIL_ART + i] == 1 + p:
                k4 = ART_SLOTS[COUNCIL] - i
                break
    return ((value * 32 + seats + art) * 16 + seats) * 16 + k4


@jit
def award(state: np.ndarray, cat: int, points: np.ndarray) -> None:
    """Score one category: points[0..2] to the three best players with a non-zero value; tied
    players share the points of the places they occupy, each rounded down."""
    n = state[H_NPLAYERS]
    keys = np.zeros(MAX_PLAYERS, dtype=np.int64)
    order = np.zeros(MAX_PLAYERS, dtype=np.int64)
    m = 0
    for p in range(n):
        v = category_value(state, cat, p)
        if v > 0:
            keys[p] = tie_key(state, v, p)
            order[m] = p
            m += 1
    for i in range(1, m):  # insertion sort, best first
        j = i
        while j > 0 and keys[order[j]] > keys[order[j - 1]]:
            t = order[j]
            order[j] = order[j - 1]
            order[j - 1] = t
            j -= 1
    pos = 0
    while pos < m and pos < 3:
        g = 1
        while pos + g < m and keys[order[pos + g]] == keys[order[pos]]:
            g += 1
        total = 0
        for k in range(pos, pos + g):
            if k < 3:
                total += points[k]
        share = total // g
        for k in range(pos, pos + g):
            state[VP + order[k]] += share
        pos += g


@ijit
def score_tile(state: np.ndarray, who: int) -> None:
    """Fill the next council seat (``who`` = -1: it stays empty) and score its tile (3/2/1). Once
    all 15 tiles are scored the end is triggered."""
    k = state[NEXT_SEAT]
    if who >= 0:
        state[SEAT + k] = SEAT_BASE + who
        state[SEATS + who] += 1
    else:
        state[SEAT + k] = SEAT_EMPTY
    award(state, state[TILES + k], COUNCIL_PTS)
    state[NEXT_SEAT] = k + 1
    if k + 1 == NUM_SEATS:
        state[END_TRIGGERED] = 1


@ijit
def final_scoring(state: np.ndarray) -> None:
    """Each player's kept scoring card and the face-up card score 5/3/1 (same tie rules)."""
    n = state[H_NPLAYERS]
    cards = np.empty(MAX_PLAYERS + 1, dtype=np.int64)
    for i in range(MAX_PLAYERS + 1):
        cards[i] = -1
    for p in range(n):
        j = state[KEPT + p] - 1
        if j >= 0:
            cards[p] = state[DEALT + MAX_DEALT * p + j] - 1
    cards[MAX_PLAYERS] = state[FACE_UP] - 1
    for i in range(MAX_PLAYERS + 1):
        if cards[i] >= 0:
            award(state, SCORING_CARD_CATEGORY[cards[i]], FINAL_PTS)


# =================================================================================================
# results
# =================================================================================================
@jit
def scores(state: np.ndarray, out: np.ndarray) -> None:
    """Victory points."""
    for p in range(state[H_NPLAYERS]):
        out[p] = float(state[VP + p])


@jit
def rank_keys(state: np.ndarray, out: np.ndarray) -> None:
    """Most VP first; a tie goes to more (seats + council artworks); still tied: shared."""
    for p in range(state[H_NPLAYERS]):
        out[p] = float(state[VP + p] * 32 + state[SEATS + p] + state[ART + P * COUNCIL + p])
