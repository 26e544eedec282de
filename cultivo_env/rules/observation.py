"""Cultivo rules: the observation (``observe``) and hidden information (``resample``). Part of
:mod:`cultivo_env.rules`; the rules as implemented: ``docs/rules/cultivo.md``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    ACT,
    ACTIONS_LEFT,
    AGG,
    BUILD_FIELD,
    BUILDING,
    BUILDINGS_TOTAL,
    BUILT,
    END_TRIGGERED,
    EQUIP_LOC,
    FF_BUILD,
    FF_CANAL,
    FF_MOVER,
    FF_PASSED,
    FF_POSITION,
    FF_TARGET,
    FIELD_COLOUR,
    FIELDS_PER_VILLAGE,
    FINAL_ROUND,
    GOODS_OBS_CAP,
    LOC_OUT,
    LOC_OWNED,
    LOC_STACK,
    MARKET,
    MARKET_SLOTS,
    MOVER,
    NUM_COLOURS,
    NUM_EQUIP,
    NUM_FIELD_FLAGS,
    NUM_FIELDS,
    O_ACT,
    O_ACTIONS_LEFT,
    O_AMOUNT,
    O_BUILT,
    O_END,
    O_EQUIPMENT,
    O_FIELD_BUILDING,
    O_FIELD_COLOUR,
    O_FIELD_FLAGS,
    O_FIELD_WORKER,
    O_GOODS,
    O_MARKET,
    O_NEXT_VP,
    O_OWNER,
    O_PATH_STEP,
    O_PAY_SEATS,
    O_PAY_SUPPLY,
    O_PHASE,
    O_ROUND,
    O_SLOT,
    O_SPLIT,
    O_STACK_N,
    O_STALL,
    O_STALLS_DONE,
    O_START,
    O_VP_TILES,
    O_WORKERS,
    OBS_OFF,
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
    STALL,
    STALL_CHOICE,
    STALL_K,
    START,
    SUPPLY,
    TARGET,
    VP_TILE_ARR,
    VP_TILES_S,
    WORKER,
    WORKERS_ON_MAP,
)
from cultivo_env.rules.accessors import goods
from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_OWNER, H_PHASE, H_RNG, H_TERMINAL
from gamecore.kernel.jit import jit
from gamecore.kernel.kernels import clip8
from gamecore.kernel.rng import rng_seed, rng_shuffle


# =============================================================================================
# Observation
# =============================================================================================
@jit
def put_hundreds(out: np.ndarray, at: int, v: int) -> None:
    """``v`` (0 <= v <= 12799) as two entries: ``v // 100``, then ``v % 100`` (the house convention)."""
    out[at] = v // 100
    out[at + 1] = v % 100


@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    """Flat int8 vector laid out as ``layout.OBS[n]`` (seat-relative: ``rel = (seat - player) mod
    n``; the env docstring decodes every entry). Counts that can pass 127 are shown as hundreds and
    the rest; goods, unlimited, also by a saturation flag above 12,799 (the only clipping). The
    stack shows by size only; which pieces are in it or out of the game is never shown. At the end
    the pending decision (PHASE, ACT, the payment blocks, OWNER) is all zero."""
    n = state[H_NPLAYERS]
    off = OBS_OFF[n]
    out[:] = 0
    nf = NUM_FIELDS[n]
    ph = state[H_PHASE]
    live = not state[H_TERMINAL]
    paying = live and ph == PH_PAY
    pn = state[PATH_N]
    for f in range(nf):
        out[off[O_FIELD_COLOUR] + NUM_COLOURS * f + state[FIELD_COLOUR + f]] = 1
        w = state[WORKER + f]
        if w:
            out[off[O_FIELD_WORKER] + n * f + (w - 1 - player + n) % n] = 1
        b = state[BUILDING + f]
        if b:
            out[off[O_FIELD_BUILDING] + n * f + (b - 1 - player + n) % n] = 1
    ff = off[O_FIELD_FLAGS]
    for i in range(pn):
        f = state[PATH + i]
        out[off[O_PATH_STEP] + f] = i + 1
        if i > 0 and f // FIELDS_PER_VILLAGE != state[PATH + i - 1] // FIELDS_PER_VILLAGE:
            out[ff + NUM_FIELD_FLAGS * f + FF_CANAL] = 1
        if paying and 0 < i < pn - 1:
            out[ff + NUM_FIELD_FLAGS * f + FF_PASSED] = 1
    if pn > 0:
        out[ff + NUM_FIELD_FLAGS * state[PATH + pn - 1] + FF_POSITION] = 1
    if state[TARGET] >= 0:
        out[ff + NUM_FIELD_FLAGS * state[TARGET] + FF_TARGET] = 1
    if state[MOVER] >= 0:
        out[ff + NUM_FIELD_FLAGS * state[MOVER] + FF_MOVER] = 1
    if state[BUILD_FIELD] >= 0:
        out[ff + NUM_FIELD_FLAGS * state[BUILD_FIELD] + FF_BUILD] = 1
    for q in range(n):
        rel = (q - player + n) % n
        for c in range(NUM_COLOURS):
            v = goods(state, q, c)
            at = off[O_GOODS] + 3 * NUM_COLOURS * rel + 3 * c
            if v > GOODS_OBS_CAP:
                put_hundreds(out, at, GOODS_OBS_CAP)
                out[at + 2] = 1
            else:
                put_hundreds(out, at, v)
        for e in range(NUM_EQUIP):
            if state[EQUIP_LOC + e] == LOC_OWNED + q:
                out[off[O_EQUIPMENT] + NUM_EQUIP * rel + e] = 1
        out[off[O_WORKERS] + rel] = state[WORKERS_ON_MAP + q]
        for c in range(NUM_COLOURS):
            out[off[O_BUILT] + NUM_COLOURS * rel + c] = (state[BUILT + q] >> c) & 1
        out[off[O_VP_TILES] + rel] = clip8(state[VP_TILES_S + q])
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
    put_hundreds(out, off[O_ROUND], state[ROUND])
    if live:
        p = state[H_CURRENT]
        out[off[O_PHASE] + ph] = 1
        if state[ACT] >= 0:
            out[off[O_ACT] + state[ACT]] = 1
        for c in range(NUM_COLOURS):
            put_hundreds(out, off[O_PAY_SUPPLY] + 2 * c, state[AGG + NUM_COLOURS * SUPPLY + c])
        for q in range(n):
            rel = (q - player + n) % n
            for c in range(NUM_COLOURS):
                put_hundreds(out, off[O_PAY_SEATS] + 2 * NUM_COLOURS * rel + 2 * c, state[AGG + NUM_COLOURS * q + c])
        if ph == PH_PAY:
            k = state[PAY_I]
            j = k % n
            ob = off[O_AMOUNT]
            out[ob + (1 if j > 0 else 0)] = 1
            out[ob + 2 + k // n] = 1
            if j > 0:
                out[ob + 2 + NUM_COLOURS + (p + j - player + n) % n] = 1
        if ph == PH_STALL:
            sd = 2 + NUM_COLOURS + n  # entries per stall colour in STALLS_DONE
            i = 0  # the payer's stalls in colour order: the i-th decides i-th
            for s in range(NUM_COLOURS):
                if state[EQUIP_LOC + NUM_COLOURS * STALL + s] != LOC_OWNED + p:
                    continue
                if i == state[STALL_K]:
                    out[off[O_STALL] + s] = 1
                elif i < state[STALL_K]:
                    at = off[O_STALLS_DONE] + sd * s
                    out[at] = 1
                    code = state[STALL_CHOICE + i]
                    if code > 0:
                        rr = (code - 1) // NUM_COLOURS
                        out[at + 1 + (code - 1) % NUM_COLOURS] = 1
                        if rr == 0:
                            out[at + 1 + NUM_COLOURS] = 1
                        else:
                            out[at + 2 + NUM_COLOURS + (p + rr - player + n) % n] = 1
                i += 1
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
