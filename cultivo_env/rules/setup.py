"""Cultivo rules: setup, the map, the equipment and the kernel interface's ``init``. Part of
:mod:`cultivo_env.rules`; the rules as implemented: ``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    ACTIONS_LEFT,
    EQUIP_LOC,
    FIELD_COLOUR,
    FIELDS_PER_VILLAGE,
    LOC_MARKET,
    LOC_OUT,
    LOC_STACK,
    MARKET,
    MARKET_SLOTS,
    MAX_FIELDS,
    MAX_PLACES,
    MAX_ROUNDS,
    MAX_STACK,
    NUM_EQUIP,
    NUM_PLACES,
    NUM_TILES,
    P_MAX_ROUNDS,
    P_PLAYERS,
    P_RANDOM_VILLAGES,
    P_START,
    PATTERN,
    PH_START,
    PLACE_FLIP,
    PLACE_TILE,
    SETUP_LEFT,
    STACK,
    STACK_BY_COUNT,
    STACK_N,
    START,
    STATE_LEN,
)
from cultivo_env.rules.turn import clear_action
from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_OWNER, H_PHASE, H_RNG
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.rng import rng_below, rng_seed, rng_shuffle


# =============================================================================================
# Setup
# =============================================================================================
@ijit
def assign_colours(state: np.ndarray) -> None:
    """Field colours from the tiles on the places and their directions."""
    n = state[H_NPLAYERS]
    for f in range(MAX_FIELDS):
        state[FIELD_COLOUR + f] = -1
    for pl in range(NUM_PLACES[n]):
        t = state[PLACE_TILE + pl]
        for i in range(FIELDS_PER_VILLAGE):
            j = FIELDS_PER_VILLAGE - 1 - i if state[PLACE_FLIP + pl] else i
            state[FIELD_COLOUR + FIELDS_PER_VILLAGE * pl + i] = PATTERN[t, j]


@ijit
def setup_map(state: np.ndarray, random_villages: bool) -> None:
    """Villages to their places (and each a direction) at random from the seed; or V1.. in order."""
    n = state[H_NPLAYERS]
    tiles = np.arange(NUM_TILES, dtype=np.int64)
    if random_villages:
        rng_shuffle(state, H_RNG, tiles, 0, NUM_TILES)
    for pl in range(MAX_PLACES):
        if pl < NUM_PLACES[n]:
            state[PLACE_TILE + pl] = tiles[pl]
            state[PLACE_FLIP + pl] = rng_below(state, H_RNG, 2) if random_villages else 0
        else:
            state[PLACE_TILE + pl] = -1
            state[PLACE_FLIP + pl] = 0
    assign_colours(state)


@ijit
def setup_equipment(state: np.ndarray) -> None:
    """36 pieces shuffled: 25 face up on the market, the stack (10 / 5 / 0), the rest out of the game."""
    n = state[H_NPLAYERS]
    pieces = np.arange(NUM_EQUIP, dtype=np.int64)
    rng_shuffle(state, H_RNG, pieces, 0, NUM_EQUIP)
    for s in range(MARKET_SLOTS):
        state[MARKET + s] = 1 + pieces[s]
        state[EQUIP_LOC + pieces[s]] = LOC_MARKET
    k = STACK_BY_COUNT[n]
    for i in range(MAX_STACK):
        state[STACK + i] = 0
    for i in range(k):
        e = pieces[MARKET_SLOTS + i]
        state[STACK + i] = e
        state[EQUIP_LOC + e] = LOC_STACK
    state[STACK_N] = k
    for i in range(MARKET_SLOTS + k, NUM_EQUIP):
        state[EQUIP_LOC + pieces[i]] = LOC_OUT


@jit
def init(state: np.ndarray, params: np.ndarray, seed: np.int64) -> None:
    for i in range(STATE_LEN):
        state[i] = 0
    n = params[P_PLAYERS]
    rng_seed(state, H_RNG, seed)
    state[H_NPLAYERS] = n
    state[START] = params[P_START]
    state[MAX_ROUNDS] = params[P_MAX_ROUNDS]
    setup_map(state, params[P_RANDOM_VILLAGES] != 0)
    setup_equipment(state)
    clear_action(state)
    state[SETUP_LEFT] = n
    first = (params[P_START] - 1 + n) % n
    state[H_CURRENT] = first
    state[H_OWNER] = first
    state[H_PHASE] = PH_START
    state[ACTIONS_LEFT] = 0  # the setup offers at least 3 yellow fields to every seat: no forced step
