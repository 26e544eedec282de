"""Cultivo rules: the observation (``observe``) and hidden information (``resample``). Part of
:mod:`cultivo_env.rules`; the rules as implemented: ``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    ACT,
    ACTIONS_LEFT,
    AGG,
    BUILDING,
    BUILDINGS_TOTAL,
    BUILT,
    END_TRIGGERED,
    EQUIP_LOC,
    FIELD_COLOUR,
    FINAL_ROUND,
    LOC_OUT,
    LOC_OWNED,
    LOC_STACK,
    MARKET,
    MARKET_SLOTS,
    NUM_COLOURS,
    NUM_EQUIP,
    NUM_FIELDS,
    O_ACT,
    O_ACTIONS_LEFT,
    O_AMOUNT,
    O_END,
    O_FIELDS,
    O_MARKET,
    O_NEXT_VP,
    O_OWNER,
    O_PAY_SEATS,
    O_PAY_SUPPLY,
    O_PHASE,
    O_ROUND,
    O_SEATS,
    O_SLOT,
    O_SPLIT,
    O_STACK_N,
    O_STALL,
    O_START,
    OBS_OFF,
    OBS_SEAT,
    PATH,
    PATH_N,
    PAY_I,
    PH_PAY,
    PH_STALL,
    ROUND,
    SLOT,
    SPLIT,
    STACK,
    STACK_N,
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
from cultivo_env.rules.accessors import goods
from cultivo_env.rules.market import own_stalls
from gamecore.header import H_CURRENT, H_NPLAYERS, H_OWNER, H_PHASE, H_RNG, H_TERMINAL
from gamecore.jit import jit
from gamecore.kernels import clip8
from gamecore.rng import rng_seed, rng_shuffle


# =============================================================================================
# Observation
# =============================================================================================
@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    """Flat int8 vector laid out as ``layout.OBS[n]`` (seat-relative: ``rel = (seat - player) mod
    n``). Goods are unlimited: counts are clipped to 127. The stack shows by size only; which pieces
    are in it or out of the game is never shown."""
    n = state[H_NPLAYERS]
    off = OBS_OFF[n]
    out[:] = 0
    nf = NUM_FIELDS[n]
    fs = NUM_COLOURS + 2 * n + 4
    ph = state[H_PHASE]
    paying = not state[H_TERMINAL] and ph == PH_PAY
    cur = state[PATH + state[PATH_N] - 1] if state[PATH_N] > 0 else -1
    for f in range(nf):
        base = off[O_FIELDS] + fs * f
        out[base + state[FIELD_COLOUR + f]] = 1
        w = state[WORKER + f]
        if w:
            out[base + NUM_COLOURS + (w - 1 - player + n) % n] = 1
        b = state[BUILDING + f]
        if b:
            out[base + NUM_COLOURS + n + (b - 1 - player + n) % n] = 1
        t = base + NUM_COLOURS + 2 * n
        if (state[VISITED] >> np.int64(f)) & np.int64(1):
            out[t] = 1
        if f == cur:
            out[t + 1] = 1
        if f == state[TARGET]:
            out[t + 2] = 1
        if paying and f != cur and (state[VISITED] >> np.int64(f)) & np.int64(1) and f != state[PATH]:
            out[t + 3] = 1
    for q in range(n):
        rel = (q - player + n) % n
        base = off[O_SEATS] + OBS_SEAT * rel
        for c in range(NUM_COLOURS):
            out[base + c] = clip8(goods(state, q, c))
        for e in range(NUM_EQUIP):
            if state[EQUIP_LOC + e] == LOC_OWNED + q:
                out[base + NUM_COLOURS + e] = 1
        out[base + NUM_COLOURS + NUM_EQUIP] = state[WORKERS_ON_MAP + q]
        for c in range(NUM_COLOURS):
            out[base + NUM_COLOURS + NUM_EQUIP + 1 + c] = (state[BUILT + q] >> c) & 1
        out[base + NUM_COLOURS + NUM_EQUIP + 1 + NUM_COLOURS] = clip8(state[VP_TILES_S + q])
    for s in range(MARKET_SLOTS):
        v = state[MARKET + s]
        if v:
            e = v - 1
            out[off[O_MARKET] + 2 * NUM_COLOURS * s + e // NUM_COLOURS] = 1
            out[off[O_MARKET] + 2 * NUM_COLOURS * s + NUM_COLOURS + e % NUM_COLOURS] = 1
    out[off[O_STACK_N]] = state[STACK_N]
    k = state[BUILDINGS_TOTAL]
    out[off[O_NEXT_VP]] = VP_TILE_ARR[k] if k < VP_TILE_ARR.shape[0] else 0
    out[off[O_END]] = state[END_TRIGGERED]
    out[off[O_END] + 1] = state[FINAL_ROUND]
    out[off[O_ACTIONS_LEFT]] = clip8(state[ACTIONS_LEFT])
    out[off[O_ROUND]] = clip8(state[ROUND])
    if not state[H_TERMINAL]:
        out[off[O_PHASE] + ph] = 1
        if state[ACT] >= 0:
            out[off[O_ACT] + state[ACT]] = 1
        for c in range(NUM_COLOURS):
            out[off[O_PAY_SUPPLY] + c] = clip8(state[AGG + NUM_COLOURS * SUPPLY + c])
        for q in range(n):
            rel = (q - player + n) % n
            for c in range(NUM_COLOURS):
                out[off[O_PAY_SEATS] + NUM_COLOURS * rel + c] = clip8(state[AGG + NUM_COLOURS * q + c])
        if ph == PH_PAY:
            k = state[PAY_I]
            j = k % n
            ob = off[O_AMOUNT]
            out[ob + (1 if j > 0 else 0)] = 1
            out[ob + 2 + k // n] = 1
            if j > 0:
                out[ob + 2 + NUM_COLOURS + (state[H_CURRENT] + j - player + n) % n] = 1
        if ph == PH_STALL:
            stalls, nst = own_stalls(state, state[H_CURRENT])
            if state[STALL_K] < nst:
                out[off[O_STALL] + stalls[state[STALL_K]]] = 1
        if state[SLOT] >= 0:
            out[off[O_SLOT] + state[SLOT]] = 1
        out[off[O_SPLIT]] = state[SPLIT]
        out[off[O_OWNER] + (state[H_OWNER] - player + n) % n] = 1
    out[off[O_START] + (state[START] - player + n) % n] = 1


# =============================================================================================
# Hidden information
# =============================================================================================
@jit
def resample(state: np.ndarray, player: int, seed: np.int64) -> None:
    """Redeal the pieces nobody has seen (the face-down stack and those that left the game at setup:
    the same for every seat) uniformly, keeping the stack's size; reseed the generator."""
    rng_seed(state, H_RNG, seed)
    hidden = np.empty(NUM_EQUIP, dtype=np.int64)
    k = 0
    for e in range(NUM_EQUIP):
        if state[EQUIP_LOC + e] == LOC_STACK or state[EQUIP_LOC + e] == LOC_OUT:
            hidden[k] = e
            k += 1
    rng_shuffle(state, H_RNG, hidden, 0, k)
    ns = state[STACK_N]
    for i in range(k):
        e = hidden[i]
        if i < ns:
            state[STACK + i] = e
            state[EQUIP_LOC + e] = LOC_STACK
        else:
            state[EQUIP_LOC + e] = LOC_OUT
