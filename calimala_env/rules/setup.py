"""Calimala rules: setup, the kernel interface's ``init`` and the opening decisions (``keep_card``,
``take_start_card``). Part of :mod:`calimala_env.rules`; the rules as implemented:
``docs/rules/calimala.md``.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    CARD_COUNT,
    CENTRE,
    CENTRE_ACTION,
    COLOURED,
    CUBES,
    DEAL_EACH,
    DEAL_OUT,
    DEAL_UP,
    DEALT,
    DECK,
    DECK_N,
    DISC_COLOURED,
    DISC_WHITE,
    FACE_UP,
    HAND,
    KEPT,
    KNOWN,
    LAYOUT,
    MAX_DEALT,
    NUM_CELLS,
    NUM_SCORING_CARDS,
    NUM_SEATS,
    NUM_START,
    NUM_TYPES,
    OUT_CARD,
    P_LAYOUT,
    P_PLAYERS,
    P_START,
    PH_KEEP,
    PH_PLACE,
    PH_START,
    RESERVE,
    SETUP_I,
    START,
    START_LEFT,
    START_TYPES,
    STATE_LEN,
    TILES,
    WHITE,
    WORKSHOPS,
)
from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_OWNER, H_PHASE, H_RNG
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.rng import rng_seed, rng_shuffle


# =================================================================================================
# setup
# =================================================================================================
@jit
def init(state: np.ndarray, params: np.ndarray, seed: np.int64) -> None:
    for i in range(STATE_LEN):
        state[i] = 0
    n = params[P_PLAYERS]
    rng_seed(state, H_RNG, seed)
    state[H_NPLAYERS] = n
    start = params[P_START]
    state[START] = start
    # action tiles: the 8 outer cells get the 8 tiles at random (or the layout given)
    if params[P_LAYOUT] < 0:
        tiles = np.empty(NUM_CELLS - 1, dtype=np.int64)
        k = 0
        for t in range(NUM_TYPES):
            if t != CENTRE_ACTION:
                tiles[k] = t
                k += 1
        rng_shuffle(state, H_RNG, tiles, np.int64(0), np.int64(NUM_CELLS - 1))
        k = 0
        for c in range(NUM_CELLS):
            if c == CENTRE:
                state[LAYOUT + c] = CENTRE_ACTION
            else:
                state[LAYOUT + c] = tiles[k]
                k += 1
    else:
        for c in range(NUM_CELLS):
            state[LAYOUT + c] = params[P_LAYOUT + c]
    # scoring tiles shuffled onto the council seats
    for k in range(NUM_SEATS):
        state[TILES + k] = k
    rng_shuffle(state, H_RNG, state, np.int64(TILES), np.int64(TILES + NUM_SEATS))
    # players
    for p in range(n):
        state[RESERVE + p] = CUBES
        state[WORKSHOPS + p] = 1
        state[COLOURED + p] = DISC_COLOURED[n]
        state[WHITE + p] = DISC_WHITE[n]
    # scoring cards: dealt, one face up (3 and 4 players), one out unseen (4 players)
    cards = np.empty(NUM_SCORING_CARDS, dtype=np.int64)
    for c in range(NUM_SCORING_CARDS):
        cards[c] = c
    rng_shuffle(state, H_RNG, cards, np.int64(0), np.int64(NUM_SCORING_CARDS))
    k = 0
    for p in range(n):
        for j in range(DEAL_EACH[n]):
            state[DEALT + MAX_DEALT * p + j] = 1 + cards[k]
            k += 1
    if DEAL_UP[n]:
        state[FACE_UP] = 1 + cards[k]
        k += 1
    if DEAL_OUT[n]:
        state[OUT_CARD] = 1 + cards[k]
        k += 1
    # action cards: the 5 start cards lie face up; the other 40 form the deck
    for i in range(NUM_START):
        state[START_LEFT + i] = 1
    k = 0
    for t in range(NUM_TYPES):
        copies = CARD_COUNT[t]
        for i in range(NUM_START):
            if START_TYPES[i] == t:
                copies -= 1
        for _ in range(copies):
            state[DECK + k] = t
            k += 1
    state[DECK_N] = k
    rng_shuffle(state, H_RNG, state, np.int64(DECK), DECK + k)
    state[H_PHASE] = PH_KEEP
    state[H_CURRENT] = start
    state[H_OWNER] = start


@ijit
def keep_card(state: np.ndarray, c: int) -> None:
    """The deciding seat keeps dealt scoring card c (secretly); the next seat clockwise chooses.
    After the last, the start cards are taken from the seat before the start seat backwards."""
    n = state[H_NPLAYERS]
    p = state[H_CURRENT]
    for j in range(MAX_DEALT):
        if state[DEALT + MAX_DEALT * p + j] == 1 + c:
            state[KEPT + p] = j + 1
    state[SETUP_I] += 1
    if state[SETUP_I] < n:
        q = (p + 1) % n
    else:
        state[SETUP_I] = 0
        state[H_PHASE] = PH_START
        q = (state[START] + n - 1) % n
    state[H_CURRENT] = q
    state[H_OWNER] = q


@jit
def take_start_card(state: np.ndarray, i: int) -> None:
    """Take start card i face up (every seat knows who holds it). After the last seat the cards not
    taken are shuffled into the deck and the start seat's first turn begins."""
    n = state[H_NPLAYERS]
    p = state[H_CURRENT]
    t = START_TYPES[i]
    state[START_LEFT + i] = 0
    state[HAND + NUM_TYPES * p + t] += 1
    state[KNOWN + NUM_TYPES * p + t] += 1
    state[SETUP_I] += 1
    if state[SETUP_I] < n:
        q = (p + n - 1) % n
        state[H_CURRENT] = q
        state[H_OWNER] = q
        return
    state[SETUP_I] = 0
    k = state[DECK_N]
    for j in range(NUM_START):
        if state[START_LEFT + j]:
            state[START_LEFT + j] = 0
            state[DECK + k] = START_TYPES[j]
            k += 1
    state[DECK_N] = k
    rng_shuffle(state, H_RNG, state, np.int64(DECK), DECK + k)
    state[H_PHASE] = PH_PLACE
    state[H_CURRENT] = state[START]
    state[H_OWNER] = state[START]
