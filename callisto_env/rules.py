"""Callisto rules as numba kernels on the state array (layout in :mod:`callisto_env.layout`).

Actions (S = board side)::

    a = o * S*S + cell        place orientation o (0..33) with its anchor square on cell
    a = 34 * S*S + cell       place a pillar on cell

Every rule of ``docs/rules/callisto.md`` has a function here named after it.
"""

from __future__ import annotations

import numpy as np

from callisto_env.layout import (
    BB_FREE,
    BB_INSIDE,
    BB_OFFSETS,
    BB_OWN,
    BB_PILLAR,
    BB_RING,
    BB_STRIDE,
    BB_TILE,
    BB_WORDS,
    BOARD,
    FIRST_START,
    GAME,
    GAME_PEN,
    MATCH,
    MATCH_PEN,
    MAX_CELLS,
    MAX_PLAYERS,
    NUM_ORIENTS,
    NUM_TILE_TYPES,
    O_GAMES,
    O_MATCH_PEN,
    O_OPENING,
    O_OUT,
    O_PILLARS,
    O_REMAIN,
    O_THIRD,
    O_TILES,
    OBS_OFF,
    ORIENT_DC,
    ORIENT_DR,
    ORIENT_NCELLS,
    ORIENT_OFF,
    ORIENT_TILE,
    OUT,
    P_MATCH,
    P_PLAYERS,
    P_START,
    PILLAR_TURNS,
    PILLARS,
    REMAIN,
    SEQ,
    SIZE,
    START,
    STATE_LEN,
    THIRD,
    TILE_COPIES,
    TILE_SIZE,
    TURNS,
)
from gamecore.header import H_CURRENT, H_DONE, H_NPLAYERS, H_OWNER, H_RNG, H_TERMINAL
from gamecore.jit import jit
from gamecore.kernels import check_header, count_decision
from gamecore.rng import rng_seed

STATE_LEN = STATE_LEN  # re-exported: part of the kernel interface
_PILLAR_KIND = 0


@jit
def board_size_for(n: int) -> int:
    return 10 if n == 2 else (12 if n == 3 else 14)


# ---- cell helpers ------------------------------------------------------------------------------
@jit
def cell_owner(v: int) -> int:
    """Seat owning a non-empty board value."""
    return (v - 1) % 4


@jit
def is_pillar(v: int) -> bool:
    return v != 0 and (v - 1) // 4 == _PILLAR_KIND


# ---- the rules, on bitboards ----------------------------------------------------------------------
# The board is a 256-bit set of cells in 4 uint64 words (cell (r, c) = bit r * 16 + c, see
# layout.BB_STRIDE); every rule is a few word operations over the whole board. The reference test
# (tests/test_callisto_reference.py) checks them against a cell-by-cell plain-Python reading of the
# rules page.
_U0 = np.uint64(0)
_U1 = np.uint64(1)
# rows of the scratch array of _scan
_X_FREE, _X_OWN, _X_PILLAR, _X_TILE, _X_TMP, _X_CELLS, _X_NEAR_PILLAR, _X_NEAR_OWN, _X_NEAR_TILE = range(9)
_X_FREE_AT = 9
_X_TOUCH_AT = _X_FREE_AT + BB_OFFSETS.shape[0]
_X_ROWS = _X_TOUCH_AT + BB_OFFSETS.shape[0]
#: de Bruijn sequence and table: index of the lowest set bit of a uint64
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.array(
    [0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30,
     24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46, 26, 40, 15, 34, 20, 31,
     10, 25, 14, 19, 9, 13, 8, 7, 6],
    dtype=np.int64,
)


@jit
def _lowest_bit(w: np.uint64) -> int:
    """Index of the lowest set bit of a non-zero word."""
    return _DEBRUIJN_INDEX[((w & (~w + _U1)) * _DEBRUIJN) >> np.uint64(58)]


@jit
def _word(state: np.ndarray, slot: int) -> np.uint64:
    return np.uint64(state[slot])


@jit
def _set_cell(state: np.ndarray, cell: int, value: int) -> None:
    """Put ``value`` (non-zero) on an empty cell, keeping the bitboards in step."""
    S = state[SIZE]
    state[BOARD + cell] = value
    bit = (cell // S) * BB_STRIDE + cell % S
    w = bit >> 6
    m = _U1 << np.uint64(bit & 63)
    state[BB_FREE + w] = np.int64(_word(state, BB_FREE + w) & ~m)
    o = BB_OWN + BB_WORDS * cell_owner(value) + w
    state[o] = np.int64(_word(state, o) | m)
    kind = BB_PILLAR if is_pillar(value) else BB_TILE
    state[kind + w] = np.int64(_word(state, kind + w) | m)


@jit
def board_bitboards(state: np.ndarray, out: np.ndarray) -> None:
    """out[0] free, out[1 + seat] own, out[5] pillars, out[6] tiles, computed from BOARD (used to
    build and to check the incremental bitboards)."""
    S = state[SIZE]
    out[:, :] = _U0
    for r in range(S):
        for c in range(S):
            v = state[BOARD + r * S + c]
            bit = r * BB_STRIDE + c
            w = bit >> 6
            m = _U1 << np.uint64(bit & 63)
            if v == 0:
                out[0, w] |= m
            else:
                out[1 + cell_owner(v), w] |= m
                out[5 if is_pillar(v) else 6, w] |= m


@jit
def rebuild_bitboards(state: np.ndarray) -> None:
    """Recompute the bitboard slots from BOARD (after a position was written cell by cell)."""
    bb = np.empty((7, BB_WORDS), dtype=np.uint64)
    board_bitboards(state, bb)
    for i in range(BB_WORDS):
        state[BB_FREE + i] = np.int64(bb[0, i])
        for p in range(MAX_PLAYERS):
            state[BB_OWN + BB_WORDS * p + i] = np.int64(bb[1 + p, i])
        state[BB_PILLAR + i] = np.int64(bb[5, i])
        state[BB_TILE + i] = np.int64(bb[6, i])


# The helpers below work on rows of one scratch array ``x`` (rows _X_*), passed with row indices
# rather than as views: a view is a new array object, and creating ~100 of them per call cost more
# than the rules themselves.
@jit
def _shift_down(x: np.ndarray, src: int, k: int, dst: int) -> None:
    """x[dst] = x[src] >> k as a 256-bit number: bit p of dst is bit p + k of src (k >= 0)."""
    q = k >> 6
    b = np.uint64(k & 63)
    for i in range(BB_WORDS):
        lo = x[src, i + q] if i + q < BB_WORDS else _U0
        hi = x[src, i + q + 1] if i + q + 1 < BB_WORDS else _U0
        x[dst, i] = lo if b == _U0 else (lo >> b) | (hi << (np.uint64(64) - b))


@jit
def _shift_up(x: np.ndarray, src: int, k: int, dst: int) -> None:
    """x[dst] = x[src] << k as a 256-bit number: bit p + k of dst is bit p of src (k >= 0)."""
    q = k >> 6
    b = np.uint64(k & 63)
    for i in range(BB_WORDS - 1, -1, -1):
        main = x[src, i - q] if i - q >= 0 else _U0
        below = x[src, i - q - 1] if i - q - 1 >= 0 else _U0
        x[dst, i] = main if b == _U0 else (main << b) | (below >> (np.uint64(64) - b))


@jit
def edge_neighbours(x: np.ndarray, src: int, S: int, dst: int) -> None:
    """x[dst] = the cells of the grid that share an edge with a cell of x[src] (corners never
    count)."""
    for i in range(BB_WORDS):
        x[dst, i] = _U0
    for k in range(4):
        if k < 2:
            _shift_up(x, src, 1 if k == 0 else BB_STRIDE, _X_TMP)
        else:
            _shift_down(x, src, 1 if k == 2 else BB_STRIDE, _X_TMP)
        for i in range(BB_WORDS):
            x[dst, i] |= x[_X_TMP, i]
    for i in range(BB_WORDS):
        x[dst, i] &= BB_INSIDE[S, i]


@jit
def opening_pillar_cells(x: np.ndarray, S: int) -> None:
    """Turns 1-2: free ring cells ("adjacent to the frame") not adjacent to any pillar."""
    for i in range(BB_WORDS):
        x[_X_CELLS, i] = x[_X_FREE, i] & BB_RING[S, i] & ~x[_X_NEAR_PILLAR, i]


@jit
def third_pillar_cells(x: np.ndarray, S: int) -> None:
    """Third pillar: free cells adjacent to the frame or to a tile of any player, not adjacent to
    any pillar."""
    for i in range(BB_WORDS):
        x[_X_CELLS, i] = x[_X_FREE, i] & (BB_RING[S, i] | x[_X_NEAR_TILE, i]) & ~x[_X_NEAR_PILLAR, i]


@jit
def tile_anchors(x: np.ndarray, o: int) -> None:
    """Anchor cells where orientation o lies inside the grid on free cells with at least one square
    edge-adjacent to the mover's own pillars or tiles. Row _X_FREE_AT + j / _X_TOUCH_AT + j holds
    the cells whose square at offset BB_OFFSETS[j] is free / touches the mover's pieces."""
    for i in range(BB_WORDS):
        fits = ~_U0
        touch = _U0
        for k in range(ORIENT_NCELLS[o]):
            j = ORIENT_OFF[o, k]
            fits &= x[_X_FREE_AT + j, i]
            touch |= x[_X_TOUCH_AT + j, i]
        x[_X_CELLS, i] = fits & touch


@jit
def _mark(x: np.ndarray, base: int, S: int, mask: np.ndarray, write: bool) -> int:
    """Count the cells of x[_X_CELLS]; with ``write`` set mask[base + r * S + c] for each."""
    count = 0
    for i in range(BB_WORDS):
        w = x[_X_CELLS, i]
        while w != _U0:
            count += 1
            if write:
                bit = i * 64 + _lowest_bit(w)
                mask[base + (bit >> 4) * S + (bit & 15)] = 1
            w &= w - _U1
    return count


@jit
def _scan(state: np.ndarray, seat: int, mask: np.ndarray, write: bool) -> int:
    """Count (and, if ``write``, mark in ``mask``) the legal actions of ``seat``; without ``write``
    stop at the first kind of placement that has one."""
    S = state[SIZE]
    SS = S * S
    x = np.empty((_X_ROWS, BB_WORDS), dtype=np.uint64)
    for i in range(BB_WORDS):
        x[_X_FREE, i] = _word(state, BB_FREE + i)
        x[_X_OWN, i] = _word(state, BB_OWN + BB_WORDS * seat + i)
        x[_X_PILLAR, i] = _word(state, BB_PILLAR + i)
        x[_X_TILE, i] = _word(state, BB_TILE + i)
    edge_neighbours(x, _X_PILLAR, S, _X_NEAR_PILLAR)
    pillar_base = NUM_ORIENTS * SS
    if state[PILLAR_TURNS + seat] < 2:
        opening_pillar_cells(x, S)
        return _mark(x, pillar_base, S, mask, write)
    edge_neighbours(x, _X_OWN, S, _X_NEAR_OWN)
    for j in range(BB_OFFSETS.shape[0]):
        _shift_down(x, _X_FREE, BB_OFFSETS[j], _X_FREE_AT + j)
        _shift_down(x, _X_NEAR_OWN, BB_OFFSETS[j], _X_TOUCH_AT + j)
    count = 0
    for o in range(NUM_ORIENTS):
        if state[REMAIN + NUM_TILE_TYPES * seat + ORIENT_TILE[o]] == 0:
            continue
        tile_anchors(x, o)
        count += _mark(x, o * SS, S, mask, write)
        if count and not write:
            return count
    if state[THIRD + seat]:
        edge_neighbours(x, _X_TILE, S, _X_NEAR_TILE)
        third_pillar_cells(x, S)
        count += _mark(x, pillar_base, S, mask, write)
    return count


@jit
def penalty(state: np.ndarray, seat: int) -> int:
    """Sum of squares of the seat's unplaced tiles; unplaced pillars cost nothing."""
    total = 0
    for t in range(NUM_TILE_TYPES):
        total += state[REMAIN + NUM_TILE_TYPES * seat + t] * TILE_SIZE[t]
    return total


# ---- game flow -----------------------------------------------------------------------------------
@jit
def _new_game(state: np.ndarray, start: int) -> None:
    """Empty board, full sets, no pillars placed; ``start`` moves first (call settle next)."""
    n = state[H_NPLAYERS]
    for i in range(BOARD, BOARD + 2 * MAX_CELLS):
        state[i] = 0
    for p in range(MAX_PLAYERS):
        for t in range(NUM_TILE_TYPES):
            state[REMAIN + NUM_TILE_TYPES * p + t] = TILE_COPIES[t] if p < n else 0
        state[PILLARS + p] = 0
        state[PILLAR_TURNS + p] = 0
        state[THIRD + p] = 1 if p < n else 0
        state[OUT + p] = 0 if p < n else 1
    state[START] = start
    state[TURNS] = 0
    rebuild_bitboards(state)


@jit
def settle(state: np.ndarray, seat: int) -> None:
    """Give the turn to ``seat`` or, going round from it, to the first seat that can act: seats
    with no free cell for an opening pillar skip that placement; seats that can neither place a
    tile nor their third pillar are out. When every seat is out the game ends."""
    n = state[H_NPLAYERS]
    dummy = np.empty(0, dtype=np.int8)
    p = seat
    while True:
        all_out = True
        for q in range(n):
            if state[OUT + q] == 0:
                all_out = False
        if all_out:
            if _end_game(state):
                p = state[START]
                continue
            return
        if state[OUT + p] == 0:
            if _scan(state, p, dummy, False) > 0:
                state[H_CURRENT] = p
                state[H_OWNER] = p
                return
            if state[PILLAR_TURNS + p] < 2:
                state[PILLAR_TURNS + p] += 1  # no free ring cell: this pillar placement is skipped
                state[TURNS] += 1
            else:
                state[OUT + p] = 1
                if state[MATCH] == 0:
                    state[H_DONE] |= 1 << p
        p = (p + 1) % n


@jit
def _end_game(state: np.ndarray) -> bool:
    """Record penalties; start the next game of a match (True) or end it all (False)."""
    n = state[H_NPLAYERS]
    g = state[GAME]
    for p in range(n):
        pen = penalty(state, p)
        state[GAME_PEN + MAX_PLAYERS * g + p] = pen
        state[MATCH_PEN + p] += pen
    if state[MATCH] == 1 and g + 1 < n:
        state[GAME] = g + 1
        _new_game(state, (state[FIRST_START] + g + 1) % n)
        return True
    state[H_TERMINAL] = 1
    state[H_DONE] = (1 << n) - 1
    state[H_CURRENT] = 0
    state[H_OWNER] = 0
    return False


# ---- kernel interface ------------------------------------------------------------------------------
@jit
def init(state: np.ndarray, params: np.ndarray, seed: np.int64) -> None:
    for i in range(STATE_LEN):
        state[i] = 0
    n = params[P_PLAYERS]
    rng_seed(state, H_RNG, seed)  # Callisto has no chance; kept for the shared interface
    state[H_NPLAYERS] = n
    state[SIZE] = board_size_for(n)
    state[MATCH] = params[P_MATCH]
    state[FIRST_START] = params[P_START]
    state[GAME] = 0
    _new_game(state, params[P_START])
    settle(state, params[P_START])


@jit
def legal_mask(state: np.ndarray, mask: np.ndarray) -> int:
    mask[:] = 0
    if state[H_TERMINAL]:
        return 0
    return _scan(state, state[H_CURRENT], mask, True)


@jit
def apply(state: np.ndarray, action: int) -> None:
    seat = state[H_CURRENT]
    S = state[SIZE]
    SS = S * S
    o = action // SS
    cell = action % SS
    state[TURNS] += 1
    count_decision(state)
    serial = state[TURNS]
    if o == NUM_ORIENTS:
        _set_cell(state, cell, 1 + seat + 4 * _PILLAR_KIND)
        state[SEQ + cell] = serial
        state[PILLARS + seat] += 1
        if state[PILLAR_TURNS + seat] < 2:
            state[PILLAR_TURNS + seat] += 1
        else:
            state[THIRD + seat] = 0
    else:
        t = ORIENT_TILE[o]
        r = cell // S
        c = cell % S
        for k in range(ORIENT_NCELLS[o]):
            i = (r + ORIENT_DR[o, k]) * S + c + ORIENT_DC[o, k]
            _set_cell(state, i, 1 + seat + 4 * (t + 1))
            state[SEQ + i] = serial
        state[REMAIN + NUM_TILE_TYPES * seat + t] -= 1
    settle(state, (seat + 1) % state[H_NPLAYERS])


@jit
def scores(state: np.ndarray, out: np.ndarray) -> None:
    """Minus the penalty (minus the summed penalty in a match). While a game runs: minus the
    penalty of the finished games and of the tiles not placed yet, as if it ended now."""
    running = state[H_TERMINAL] == 0
    for p in range(state[H_NPLAYERS]):
        out[p] = -float(state[MATCH_PEN + p] + (penalty(state, p) if running else 0))


@jit
def rank_keys(state: np.ndarray, out: np.ndarray) -> None:
    """Lowest penalty first; in a single game a tie goes to the seat that started later."""
    n = state[H_NPLAYERS]
    for p in range(n):
        out[p] = -float(state[MATCH_PEN + p])
        if state[MATCH] == 0:
            out[p] = out[p] * 8.0 + float((p - state[START] + n) % n)


@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    """(S, S, C) planes, channel last, flattened (groups in ``layout.OBS_PLANES``); plane groups
    are seat-relative (rel = (seat - player) mod n, so the observer is always rel 0)."""
    n = state[H_NPLAYERS]
    S = state[SIZE]
    off = OBS_OFF[n]
    C = off[O_GAMES] + 1
    # the constant planes are the same at every cell: build one cell's vector, then copy it
    cell = np.zeros(C, dtype=np.int8)
    for q in range(n):
        rel = (q - player + n) % n
        for k in range(NUM_TILE_TYPES):
            cell[off[O_REMAIN] + NUM_TILE_TYPES * rel + k] = state[REMAIN + NUM_TILE_TYPES * q + k]
        cell[off[O_THIRD] + rel] = state[THIRD + q]
        cell[off[O_OPENING] + rel] = 2 - state[PILLAR_TURNS + q]
        cell[off[O_OUT] + rel] = state[OUT + q]
        cell[off[O_MATCH_PEN] + rel] = min(state[MATCH_PEN + q], 127)
    cell[off[O_GAMES]] = state[GAME]
    for i in range(S * S):
        base = i * C
        for k in range(C):
            out[base + k] = cell[k]
        v = state[BOARD + i]
        if v != 0:
            rel = (cell_owner(v) - player + n) % n
            if is_pillar(v):
                out[base + off[O_PILLARS] + rel] = 1
            else:
                out[base + off[O_TILES] + rel] = 1


@jit
def resample(state: np.ndarray, player: int, seed: np.int64) -> None:
    """Callisto hides nothing and has no chance: only the generator is reseeded."""
    rng_seed(state, H_RNG, seed)


@jit
def check_state(state: np.ndarray, params: np.ndarray) -> int:
    """0 if ``state`` is a Callisto position of these params that play can continue from, else
    (index of the first bad slot) + 1: every slot in range, the options as in ``params``, the
    pillars accounted for and never side by side, the counters and the done bits consistent.
    (Positions built from ASCII may hold tile squares without matching unplaced counts; the fuzz
    tests check that conservation separately.)"""
    n = params[P_PLAYERS]
    bad = check_header(state, n, 1)
    if bad:
        return bad
    if state[SIZE] != board_size_for(n):
        return SIZE + 1
    if state[MATCH] != params[P_MATCH]:
        return MATCH + 1
    if state[FIRST_START] != params[P_START]:
        return FIRST_START + 1
    if state[GAME] < 0 or state[GAME] >= n or (state[MATCH] == 0 and state[GAME] != 0):
        return GAME + 1
    if state[START] != (state[FIRST_START] + state[GAME]) % n:
        return START + 1
    if state[TURNS] < 0:
        return TURNS + 1
    S = state[SIZE]
    pillars = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for i in range(MAX_CELLS):
        v = state[BOARD + i]
        if v < 0 or v > 4 * (NUM_TILE_TYPES + 1) or (i >= S * S and v != 0):
            return BOARD + i + 1
        if v != 0 and cell_owner(v) >= n:
            return BOARD + i + 1
        seq = state[SEQ + i]
        if seq < 0 or seq > state[TURNS] or (seq == 0) != (v == 0):
            return SEQ + i + 1
        if v != 0:
            if is_pillar(v):
                pillars[cell_owner(v)] += 1
                r = i // S
                c = i % S
                if (c + 1 < S and is_pillar(state[BOARD + i + 1])) or \
                        (r + 1 < S and is_pillar(state[BOARD + i + S])):
                    return BOARD + i + 1  # two pillars side by side
    for p in range(MAX_PLAYERS):
        live = p < n
        for t in range(NUM_TILE_TYPES):
            k = state[REMAIN + NUM_TILE_TYPES * p + t]
            if k < 0 or k > TILE_COPIES[t] or (not live and k != 0):
                return REMAIN + NUM_TILE_TYPES * p + t + 1
        turns = state[PILLAR_TURNS + p]
        third = state[THIRD + p]
        if turns < 0 or turns > 2 or (not live and turns != 0):
            return PILLAR_TURNS + p + 1
        if third < 0 or third > 1 or (not live and third != 0) or (live and turns < 2 and third != 1):
            return THIRD + p + 1
        opening = state[PILLARS + p] - (1 - third)  # pillars placed in the opening turns
        if state[PILLARS + p] != pillars[p] or (live and (opening < 0 or opening > turns)):
            return PILLARS + p + 1
        out = state[OUT + p]
        if out < 0 or out > 1 or (not live and out != 1):
            return OUT + p + 1
        if live and state[H_TERMINAL] == 0:
            done = (state[H_DONE] >> p) & 1
            if done != (0 if state[MATCH] == 1 else out):
                return H_DONE + 1
        if state[MATCH_PEN + p] < 0 or (not live and state[MATCH_PEN + p] != 0):
            return MATCH_PEN + p + 1
    # a turn covers at least one free cell or uses up an opening pillar turn (a skip): turns never
    # outnumber the covered cells and the opening turns used, so the counter stays bounded ahead
    covered = 0
    for i in range(S * S):
        if state[BOARD + i] != 0:
            covered += 1
    for p in range(n):
        covered += state[PILLAR_TURNS + p]
    if state[TURNS] > covered:
        return TURNS + 1
    bb = np.empty((7, BB_WORDS), dtype=np.uint64)
    board_bitboards(state, bb)
    for i in range(BB_WORDS):
        if _word(state, BB_FREE + i) != bb[0, i]:
            return BB_FREE + i + 1
        for p in range(MAX_PLAYERS):
            if _word(state, BB_OWN + BB_WORDS * p + i) != bb[1 + p, i]:
                return BB_OWN + BB_WORDS * p + i + 1
        if _word(state, BB_PILLAR + i) != bb[5, i]:
            return BB_PILLAR + i + 1
        if _word(state, BB_TILE + i) != bb[6, i]:
            return BB_TILE + i + 1
    finished = state[GAME] + (1 if state[H_TERMINAL] == 1 else 0)
    for p in range(MAX_PLAYERS):
        total = 0
        for g in range(MAX_PLAYERS):
            pen = state[GAME_PEN + MAX_PLAYERS * g + p]
            if pen < 0 or pen > 47 or ((g >= finished or p >= n) and pen != 0):
                return GAME_PEN + MAX_PLAYERS * g + p + 1
            total += pen
        if total != state[MATCH_PEN + p]:
            return MATCH_PEN + p + 1
    if state[H_TERMINAL] == 0:
        if state[OUT + state[H_CURRENT]] == 1:
            return H_CURRENT + 1
        if state[H_OWNER] != state[H_CURRENT]:
            return H_OWNER + 1
    elif state[H_CURRENT] != 0 or state[H_OWNER] != 0:
        return H_CURRENT + 1
    return 0
