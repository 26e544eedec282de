"""Callisto rules as numba kernels on the state array (layout in :mod:`callisto_env.layout`).

Actions (S = board side)::

    a = o * S*S + cell        place orientation o (0..33) with its anchor square on cell
    a = 34 * S*S + cell       place a pillar on cell

Every rule of ``docs/rules/callisto.md`` has a function here named after it.
"""

from __future__ import annotations

import numpy as np

from callisto_env.layout import (
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
    ORIENT_DC,
    ORIENT_DR,
    ORIENT_NCELLS,
    O_GAMES,
    O_MATCH_PEN,
    O_OPENING,
    O_OUT,
    O_PILLARS,
    O_REMAIN,
    O_THIRD,
    O_TILES,
    OBS_OFF,
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
from gamecore.jit import jit
from gamecore.kernels import check_header
from gamecore.header import H_CURRENT, H_DECISIONS, H_DONE, H_NPLAYERS, H_OWNER, H_RNG, H_TERMINAL, MAX_COUNTER
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


# ---- the rules, on row bitmasks ------------------------------------------------------------------
# Each rule is computed for a whole board row at once: bit c of a row mask stands for column c.
# The reference test (tests/test_callisto_reference.py) checks these against a cell-by-cell
# plain-Python reading of the rules page.
_R_FREE = 0  # empty cells
_R_OWN = 1  # the mover's pillars and tiles
_R_PILLAR = 2  # pillars of any colour
_R_TILE = 3  # tile squares of any colour
_R_KINDS = 4


@jit
def _board_rows(state: np.ndarray, seat: int, S: int, rows: np.ndarray) -> None:
    """rows[kind, r]: row bitmasks of the board, kinds _R_FREE.._R_TILE."""
    for r in range(S):
        free = 0
        own = 0
        pil = 0
        til = 0
        for c in range(S):
            v = state[BOARD + r * S + c]
            bit = 1 << c
            if v == 0:
                free |= bit
            else:
                if cell_owner(v) == seat:
                    own |= bit
                if is_pillar(v):
                    pil |= bit
                else:
                    til |= bit
        rows[_R_FREE, r] = free
        rows[_R_OWN, r] = own
        rows[_R_PILLAR, r] = pil
        rows[_R_TILE, r] = til


@jit
def edge_neighbours(rows: np.ndarray, kind: int, r: int, S: int) -> int:
    """Bitmask of row r's cells that share an edge with a cell of ``kind`` (corners never count)."""
    m = rows[kind, r]
    out = (m << 1) | (m >> 1)
    if r > 0:
        out |= rows[kind, r - 1]
    if r < S - 1:
        out |= rows[kind, r + 1]
    return out & ((1 << S) - 1)


@jit
def frame_ring(r: int, S: int) -> int:
    """Row r's cells in the outermost ring ("adjacent to the frame")."""
    if r == 0 or r == S - 1:
        return (1 << S) - 1
    return 1 | (1 << (S - 1))


@jit
def opening_pillar_cells(rows: np.ndarray, r: int, S: int) -> int:
    """Turns 1-2: free ring cells not adjacent to any pillar."""
    return rows[_R_FREE, r] & frame_ring(r, S) & ~edge_neighbours(rows, _R_PILLAR, r, S)


@jit
def third_pillar_cells(rows: np.ndarray, r: int, S: int) -> int:
    """Third pillar: free cells adjacent to the frame or to a tile of any player, not adjacent to
    any pillar."""
    near = frame_ring(r, S) | edge_neighbours(rows, _R_TILE, r, S)
    return rows[_R_FREE, r] & near & ~edge_neighbours(rows, _R_PILLAR, r, S)


@jit
def _shift_to_anchor(row: int, dc: int, S: int) -> int:
    """Bit c of the result = bit (c + dc) of ``row``: the anchor columns whose cell at column
    offset dc has the property (columns outside the grid read as 0)."""
    if dc >= 0:
        return row >> dc
    return (row << (-dc)) & ((1 << S) - 1)


@jit
def tile_anchors(free_at: np.ndarray, adj_at: np.ndarray, o: int, r: int, S: int) -> int:
    """Anchor columns in row r where orientation o lies inside the grid on free cells with at
    least one square edge-adjacent to the mover's own pillars or tiles. ``free_at[dc + 2, rr]`` /
    ``adj_at[dc + 2, rr]``: the anchor columns whose cell at (rr, column + dc) is free / touches
    the mover's pieces (see _shifted_rows)."""
    fits = (1 << S) - 1
    touch = 0
    for k in range(ORIENT_NCELLS[o]):
        rr = r + ORIENT_DR[o, k]
        if rr >= S:
            return 0
        j = ORIENT_DC[o, k] + 2
        fits &= free_at[j, rr]
        touch |= adj_at[j, rr]
    return fits & touch


@jit
def _shifted_rows(row_of: np.ndarray, S: int, out: np.ndarray) -> None:
    """out[dc + 2, r] = _shift_to_anchor(row_of[r], dc) for dc in -2..2 (the offsets tiles use)."""
    for j in range(5):
        for r in range(S):
            out[j, r] = _shift_to_anchor(row_of[r], j - 2, S)


@jit
def _mark_row(bits: int, base: int, mask: np.ndarray, write: bool) -> int:
    """Count the set bits of ``bits``; with ``write`` set mask[base + c] for each."""
    count = 0
    c = 0
    while bits:
        if bits & 1:
            count += 1
            if write:
                mask[base + c] = 1
        bits >>= 1
        c += 1
    return count


@jit
def _scan(state: np.ndarray, seat: int, mask: np.ndarray, write: bool) -> int:
    """Count (and, if ``write``, mark in ``mask``) the legal actions of ``seat``; without ``write``
    stop at the first row that has one."""
    S = state[SIZE]
    SS = S * S
    rows = np.empty((_R_KINDS, S), dtype=np.int64)
    _board_rows(state, seat, S, rows)
    count = 0
    pillar_base = NUM_ORIENTS * SS
    if state[PILLAR_TURNS + seat] < 2:
        for r in range(S):
            count += _mark_row(opening_pillar_cells(rows, r, S), pillar_base + r * S, mask, write)
            if count and not write:
                return count
        return count
    own_adj = np.empty(S, dtype=np.int64)
    for r in range(S):
        own_adj[r] = edge_neighbours(rows, _R_OWN, r, S)
    free_at = np.empty((5, S), dtype=np.int64)
    adj_at = np.empty((5, S), dtype=np.int64)
    _shifted_rows(rows[_R_FREE], S, free_at)
    _shifted_rows(own_adj, S, adj_at)
    for o in range(NUM_ORIENTS):
        if state[REMAIN + NUM_TILE_TYPES * seat + ORIENT_TILE[o]] == 0:
            continue
        for r in range(S):
            count += _mark_row(tile_anchors(free_at, adj_at, o, r, S), o * SS + r * S, mask, write)
            if count and not write:
                return count
    if state[THIRD + seat]:
        for r in range(S):
            count += _mark_row(third_pillar_cells(rows, r, S), pillar_base + r * S, mask, write)
            if count and not write:
                return count
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
    state[H_DECISIONS] += 1
    serial = state[TURNS]
    if o == NUM_ORIENTS:
        state[BOARD + cell] = 1 + seat + 4 * _PILLAR_KIND
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
            state[BOARD + i] = 1 + seat + 4 * (t + 1)
            state[SEQ + i] = serial
        state[REMAIN + NUM_TILE_TYPES * seat + t] -= 1
    settle(state, (seat + 1) % state[H_NPLAYERS])


@jit
def scores(state: np.ndarray, out: np.ndarray) -> None:
    """Minus the penalty (minus the summed penalty in a match)."""
    for p in range(state[H_NPLAYERS]):
        out[p] = -float(state[MATCH_PEN + p])


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
    if state[TURNS] < 0 or state[TURNS] > MAX_COUNTER:
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
