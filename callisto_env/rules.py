"""Callisto rules as numba kernels on the state array (layout in :mod:`callisto_env.layout`).

Actions (S = board side)::

    a = o * S*S + cell        place orientation o (0..33) with its anchor square on cell
    a = 34 * S*S + cell       place a pillar on cell

Every rule of ``docs/rules/callisto.md`` has a function here named after it.

Legality is computed once per decision: ``settle``, which must know whether a seat can act, computes
that seat's whole legal set (one bitboard per orientation and one for pillars) into the state's
LEGAL slots, and ``legal_mask`` only expands those bitboards into the mask. LEGAL is derived from the
rest of the state (``check_state`` compares it with its recomputation), so copies, saves and
restores stay exact.
"""

from __future__ import annotations

import sys

import numpy as np

from callisto_env.layout import (
    BB_FREE,
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
    LEGAL,
    LEGAL_KINDS,
    MATCH,
    MATCH_PEN,
    MAX_CELLS,
    MAX_PLAYERS,
    NUM_ORIENTS,
    NUM_TILE_TYPES,
    O_GAMES,
    O_GAMES_LEFT,
    O_MATCH,
    O_MATCH_PEN,
    O_OPENING,
    O_OUT,
    O_PILLARS,
    O_REMAIN,
    O_STARTED,
    O_THIRD,
    O_TILES,
    O_TO_MOVE,
    OBS_C,
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
from gamecore.kernel.bits import copy_bytes, lowest_bit, popcount, store_u64
from gamecore.kernel.header import H_CURRENT, H_DONE, H_NPLAYERS, H_OWNER, H_RNG, H_TERMINAL
from gamecore.kernel.jit import jit
from gamecore.kernel.kernels import check_header, count_decision, plain_apply_legal
from gamecore.kernel.rng import rng_seed
from gamecore.kernel.scratch import stack_empty

STATE_LEN = STATE_LEN  # re-exported: part of the kernel interface
#: ``apply_legal`` is ``apply`` then ``legal_mask`` here (see ``gamecore.kernel.protocol``)
APPLY_LEGAL_FUSED = False
apply_legal = plain_apply_legal(sys.modules[__name__])
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
# (bit counts and byte stores: gamecore.kernel.bits)

#: _BYTES[b]: the 8 bits of b as 8 bytes of 0 / 1 (lowest bit first: little-endian memory order)
_BYTES = np.array([sum(((v >> b) & 1) << (8 * b) for b in range(8)) for v in range(256)], dtype=np.uint64)
_BYTES.setflags(write=False)
_LITTLE_ENDIAN = np.little_endian


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


# A legal set is kept as one 256-bit set per kind of placement: kind k < NUM_ORIENTS is orientation
# k (the anchors where it fits), kind NUM_ORIENTS the pillar cells. Every offset of a square from
# its anchor is below 64 bits (rows 0-2 of 16), so word i of a board shifted down by an offset
# comes from words i and i + 1 alone (a funnel shift).
_KINDS = LEGAL_KINDS
_PILLAR_SET = NUM_ORIENTS
#: BB_SHIFT[j]: BB_OFFSETS[j] as a uint64 shift count
BB_SHIFT = BB_OFFSETS.astype(np.uint64)
BB_SHIFT.setflags(write=False)
_NOFF = BB_OFFSETS.shape[0]
_X_LEN = 8 * _NOFF  # _legal_sets' shifted free / next-to-own words
assert int(BB_OFFSETS.max()) < 64 and int(BB_OFFSETS.min()) == 0
assert BB_WORDS == 4  # _legal_sets works in four explicit lanes


@jit
def board_words(S: int) -> int:
    """Words of a bitboard that hold cells of the S x S grid."""
    return (S * BB_STRIDE + 63) >> 6


@jit
def _funnel(lo: np.uint64, hi: np.uint64, b: np.uint64) -> np.uint64:
    """Bits b..b + 63 of the 128-bit number hi:lo (0 <= b < 64)."""
    return (lo >> b) | ((hi << (np.uint64(63) - b)) << _U1)


@jit
def edge_neighbours(state: np.ndarray, slot: int, i: int, W: int) -> np.uint64:
    """Word i of the cells sharing an edge with a cell of the bitboard at ``slot`` (corners never
    count). Cells off the grid may be set (columns 14-15, rows from S on): callers AND the result
    with the free cells, which lie on the grid."""
    w = _word(state, slot + i)
    r = (w << _U1) | (w >> _U1) | (w << np.uint64(BB_STRIDE)) | (w >> np.uint64(BB_STRIDE))
    if i > 0:
        p = _word(state, slot + i - 1)
        r |= (p >> np.uint64(63)) | (p >> np.uint64(64 - BB_STRIDE))
    if i + 1 < W:
        q = _word(state, slot + i + 1)
        r |= (q << np.uint64(63)) | (q << np.uint64(64 - BB_STRIDE))
    return r


@jit
def opening_pillar_cells(state: np.ndarray, S: int, i: int, W: int) -> np.uint64:
    """Turns 1-2, word i: free ring cells ("adjacent to the frame") not adjacent to any pillar."""
    return _word(state, BB_FREE + i) & BB_RING[S, i] & ~edge_neighbours(state, BB_PILLAR, i, W)


@jit
def third_pillar_cells(state: np.ndarray, S: int, i: int, W: int) -> np.uint64:
    """Third pillar, word i: free cells adjacent to the frame or to a tile of any player, not
    adjacent to any pillar."""
    return _word(state, BB_FREE + i) & (BB_RING[S, i] | edge_neighbours(state, BB_TILE, i, W)) \
        & ~edge_neighbours(state, BB_PILLAR, i, W)


@jit
def tile_anchors(x: np.ndarray, o: int) -> tuple:
    """The four words of the anchor cells where orientation o lies inside the grid on free cells
    with at least one square edge-adjacent to the mover's own pillars or tiles: x[8 j + i] is word
    i of the free cells shifted down by offset j (BB_OFFSETS), x[8 j + 4 + i] the same of the free
    cells next to the mover's pieces (built by _legal_sets). In four explicit lanes."""
    a0 = ~_U0
    a1 = ~_U0
    a2 = ~_U0
    a3 = ~_U0
    t0 = _U0
    t1 = _U0
    t2 = _U0
    t3 = _U0
    for k in range(ORIENT_NCELLS[o]):
        j = 8 * ORIENT_OFF[o, k]
        a0 &= x[j]
        a1 &= x[j + 1]
        a2 &= x[j + 2]
        a3 &= x[j + 3]
        t0 |= x[j + 4]
        t1 |= x[j + 5]
        t2 |= x[j + 6]
        t3 |= x[j + 7]
    return a0 & t0, a1 & t1, a2 & t2, a3 & t3


@jit
def _legal_sets(state: np.ndarray, seat: int, out: np.ndarray, base: int) -> bool:
    """Write the legal set of ``seat``: ``out[base + BB_WORDS * k + i]`` = word i of kind k (an
    orientation: the anchor cells where it lies inside the grid on free cells with a square
    edge-adjacent to the seat's own pillars or tiles; NUM_ORIENTS: the pillar cells). True when
    some action is legal."""
    S = state[SIZE]
    W = board_words(S)
    found = False
    out[base:base + _KINDS * BB_WORDS] = 0
    pbase = base + BB_WORDS * _PILLAR_SET
    if state[PILLAR_TURNS + seat] < 2:
        for i in range(W):
            cells = opening_pillar_cells(state, S, i, W)
            if cells != _U0:
                out[pbase + i] = np.int64(cells)
                found = True
        return found
    avail = 0
    for t in range(NUM_TILE_TYPES):
        if state[REMAIN + NUM_TILE_TYPES * seat + t] > 0:
            avail |= 1 << t
    if avail:
        # the free cells and the free cells next to the seat's pieces, shifted by every offset
        own = BB_OWN + BB_WORDS * seat
        f0 = _word(state, BB_FREE)
        f1 = _word(state, BB_FREE + 1)
        f2 = _word(state, BB_FREE + 2)
        f3 = _word(state, BB_FREE + 3)
        g0 = edge_neighbours(state, own, 0, BB_WORDS) & f0
        g1 = edge_neighbours(state, own, 1, BB_WORDS) & f1
        g2 = edge_neighbours(state, own, 2, BB_WORDS) & f2
        g3 = edge_neighbours(state, own, 3, BB_WORDS) & f3
        x = stack_empty(_X_LEN, np.uint64)  # on the stack: no allocation per decision
        for j in range(_NOFF):
            b = BB_SHIFT[j]
            x[8 * j] = _funnel(f0, f1, b)
            x[8 * j + 1] = _funnel(f1, f2, b)
            x[8 * j + 2] = _funnel(f2, f3, b)
            x[8 * j + 3] = f3 >> b
            x[8 * j + 4] = _funnel(g0, g1, b)
            x[8 * j + 5] = _funnel(g1, g2, b)
            x[8 * j + 6] = _funnel(g2, g3, b)
            x[8 * j + 7] = g3 >> b
        for o in range(NUM_ORIENTS):
            if not (avail >> ORIENT_TILE[o]) & 1:
                continue
            c0, c1, c2, c3 = tile_anchors(x, o)
            at = base + BB_WORDS * o
            out[at] = np.int64(c0)
            out[at + 1] = np.int64(c1)
            out[at + 2] = np.int64(c2)
            out[at + 3] = np.int64(c3)
            if (c0 | c1 | c2 | c3) != _U0:
                found = True
    if state[THIRD + seat]:
        for i in range(W):
            cells = third_pillar_cells(state, S, i, W)
            if cells != _U0:
                out[pbase + i] = np.int64(cells)
                found = True
    return found


@jit
def _mark_sets(state: np.ndarray, mask: np.ndarray) -> int:
    """Set ``mask`` (zeroed) at every action of the cached legal set; returns how many. A kind with
    actions is written row by row, 16 cells (two unaligned 8-byte stores) per row: the cells past
    the row's end are zeros that the next row, written after it, overwrites."""
    S = state[SIZE]
    SS = S * S
    W = board_words(S)
    fast = _LITTLE_ENDIAN and mask.itemsize == 1 and mask.strides[0] == 1
    n = mask.shape[0]
    count = 0
    for k in range(_KINDS):
        at = LEGAL + BB_WORDS * k
        bits = 0
        for i in range(W):
            bits += popcount(_word(state, at + i))
        if bits == 0:
            continue
        count += bits
        base = k * SS
        for r in range(S):
            row = (_word(state, at + (r >> 2)) >> np.uint64((r & 3) * BB_STRIDE)) & np.uint64(0xFFFF)
            cell = base + r * S
            if fast and cell + 16 <= n:
                store_u64(mask, cell, _BYTES[row & np.uint64(0xFF)])
                store_u64(mask, cell + 8, _BYTES[row >> np.uint64(8)])
            else:
                for c in range(S):
                    if (row >> np.uint64(c)) & _U1:
                        mask[cell + c] = 1
    return count


@jit
def _settle_legal(state: np.ndarray, seat: int) -> bool:
    """Cache the legal set of ``seat`` in LEGAL; True when it has a legal action."""
    return _legal_sets(state, seat, state, LEGAL)


@jit
def refresh_legal(state: np.ndarray) -> None:
    """Recompute the LEGAL cache from the rest of the state (after a position was written slot by
    slot, e.g. from ASCII)."""
    if state[H_TERMINAL]:
        state[LEGAL:LEGAL + _KINDS * BB_WORDS] = 0
    else:
        _settle_legal(state, state[H_CURRENT])


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
    tile nor their third pillar are out. When every seat is out the game ends. The legal set of
    the seat given the turn is left in the LEGAL cache (computed once: ``legal_mask`` only writes it
    out)."""
    n = state[H_NPLAYERS]
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
            if _settle_legal(state, p):
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
    state[LEGAL:LEGAL + _KINDS * BB_WORDS] = 0
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
    return _mark_sets(state, mask)


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
def _board_planes(state: np.ndarray, player: int, out: np.ndarray, C: int) -> None:
    """Set the TILES / PILLARS entries of every occupied cell (the rest of those planes zero)."""
    n = state[H_NPLAYERS]
    S = state[SIZE]
    off = OBS_OFF[n]
    W = board_words(S)
    for q in range(n):
        rel = (q - player + n) % n
        for i in range(W):
            own = _word(state, BB_OWN + BB_WORDS * q + i)
            for kind in range(2):
                if kind == 0:
                    w = own & _word(state, BB_PILLAR + i)
                    plane = off[O_PILLARS] + rel
                else:
                    w = own & _word(state, BB_TILE + i)
                    plane = off[O_TILES] + rel
                while w != _U0:
                    bit = i * 64 + lowest_bit(w)
                    out[((bit >> 4) * S + (bit & 15)) * C + plane] = 1
                    w &= w - _U1


@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    """(S, S, C) planes, channel last, flattened (groups in ``layout.OBS_PLANES``); plane groups
    are seat-relative (rel = (seat - player) mod n, so the observer is always rel 0). Once the game
    is over TO_MOVE is all zero and GAMES_LEFT is 0; the rest shows the final position."""
    n = state[H_NPLAYERS]
    S = state[SIZE]
    off = OBS_OFF[n]
    C = OBS_C[n]
    # cell 0 gets the planes that are the same at every cell (its board planes 0), then it is
    # copied over the board, doubling the copied span each time, and the board planes are set
    out[:C] = 0
    for q in range(n):
        rel = (q - player + n) % n
        for k in range(NUM_TILE_TYPES):
            out[off[O_REMAIN] + NUM_TILE_TYPES * rel + k] = state[REMAIN + NUM_TILE_TYPES * q + k]
        out[off[O_THIRD] + rel] = state[THIRD + q]
        out[off[O_OPENING] + rel] = 2 - state[PILLAR_TURNS + q]
        out[off[O_OUT] + rel] = state[OUT + q]
        pen = state[MATCH_PEN + q]  # at most 47 n (< 200): hundreds, then the rest, never clipped
        out[off[O_MATCH_PEN] + 2 * rel] = pen // 100
        out[off[O_MATCH_PEN] + 2 * rel + 1] = pen % 100
    over = state[H_TERMINAL] != 0
    if not over:
        out[off[O_TO_MOVE] + (state[H_CURRENT] - player + n) % n] = 1
    g_now = state[GAME]
    for g in range(g_now + 1):  # game g was started by the seat g_now - g before the current starter
        starter = (state[START] - (g_now - g) + 2 * n) % n
        out[off[O_STARTED] + n * g + (starter - player + n) % n] = 1
    finished = g_now + (1 if over else 0)
    out[off[O_MATCH]] = state[MATCH]
    out[off[O_GAMES]] = finished
    out[off[O_GAMES_LEFT]] = (n if state[MATCH] else 1) - finished
    total = S * S * C
    if out.itemsize == 1 and out.strides[0] == 1 and out.shape[0] >= total:
        span = C
        while span < total:
            m = min(span, total - span)
            copy_bytes(out, span, 0, m)
            span += m
    else:
        for i in range(C, total):
            out[i] = out[i % C]
    _board_planes(state, player, out, C)


@jit
def resample(state: np.ndarray, player: int, seed: np.int64) -> None:
    """Callisto hides nothing and has no chance: only the generator is reseeded."""
    rng_seed(state, H_RNG, seed)


@jit
def _check_match(state: np.ndarray, params: np.ndarray, n: int) -> int:
    """The board size, the match options, the game of the match, its start seat and turn counter."""
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
    return 0


@jit
def _check_board(state: np.ndarray, n: int, pillars: np.ndarray) -> int:
    """Every cell and its placement turn in range, no two pillars side by side; counts each seat's
    pillars on the board into ``pillars``."""
    S = state[SIZE]
    for i in range(MAX_CELLS):
        v = state[BOARD + i]
        if v < 0 or v > 4 * (NUM_TILE_TYPES + 1) or (i >= S * S and v != 0):
            return BOARD + i + 1
        if v != 0 and cell_owner(v) >= n:
            return BOARD + i + 1
        seq = state[SEQ + i]
        if seq < 0 or seq > state[TURNS] or (seq == 0) != (v == 0):
            return SEQ + i + 1
        if is_pillar(v):
            pillars[cell_owner(v)] += 1
            r = i // S
            c = i % S
            if (c + 1 < S and is_pillar(state[BOARD + i + 1])) or (r + 1 < S and is_pillar(state[BOARD + i + S])):
                return BOARD + i + 1  # two pillars side by side
    return 0


@jit
def _check_seat(state: np.ndarray, n: int, p: int, pillars: np.ndarray) -> int:
    """Seat ``p``'s tiles left, opening pillar turns, pillars (``pillars[p]`` on the board), out
    flag, done bit and match penalty (all zero or out for a seat not playing)."""
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
    if live and state[H_TERMINAL] == 0 and ((state[H_DONE] >> p) & 1) != (0 if state[MATCH] == 1 else out):
        return H_DONE + 1
    if state[MATCH_PEN + p] < 0 or (not live and state[MATCH_PEN + p] != 0):
        return MATCH_PEN + p + 1
    return 0


@jit
def _check_seats(state: np.ndarray, n: int, pillars: np.ndarray) -> int:
    """Every seat's pieces and counters (:func:`_check_seat`), seat by seat."""
    for p in range(MAX_PLAYERS):
        bad = _check_seat(state, n, p, pillars)
        if bad:
            return bad
    return 0


@jit
def _check_turn_count(state: np.ndarray, n: int) -> int:
    """A turn covers at least one free cell or uses up an opening pillar turn (a skip): turns never
    outnumber the covered cells and the opening turns used, so the counter stays bounded ahead."""
    covered = 0
    S = state[SIZE]
    for i in range(S * S):
        if state[BOARD + i] != 0:
            covered += 1
    for p in range(n):
        covered += state[PILLAR_TURNS + p]
    return TURNS + 1 if state[TURNS] > covered else 0


@jit
def _check_bitboards(state: np.ndarray) -> int:
    """The free, own, pillar and tile bitboards equal their recomputation from the board."""
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
    return 0


@jit
def _check_penalties(state: np.ndarray, n: int) -> int:
    """Each finished game's penalty per seat in range (none for games not finished or seats not
    playing), summing to the seat's match penalty."""
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
    return 0


@jit
def _check_decider(state: np.ndarray) -> int:
    """A running game's decider is in and owns the turn; a finished game's is seat 0."""
    if state[H_TERMINAL] == 0:
        if state[OUT + state[H_CURRENT]] == 1:
            return H_CURRENT + 1
        if state[H_OWNER] != state[H_CURRENT]:
            return H_OWNER + 1
    elif state[H_CURRENT] != 0 or state[H_OWNER] != 0:
        return H_CURRENT + 1
    return 0


@jit
def _check_legal_cache(state: np.ndarray) -> int:
    """The LEGAL cache equals the decider's legal sets recomputed (all zero once the game is over)."""
    legal = np.zeros(_KINDS * BB_WORDS, dtype=np.int64)
    if state[H_TERMINAL] == 0:
        _legal_sets(state, state[H_CURRENT], legal, 0)
    for k in range(_KINDS * BB_WORDS):
        if state[LEGAL + k] != legal[k]:
            return LEGAL + k + 1
    return 0


@jit
def check_state(state: np.ndarray, params: np.ndarray) -> int:
    """0 if ``state`` is a Callisto position of these params that play can continue from, else
    (index of the first bad slot) + 1: every slot in range, the options as in ``params``, the
    pillars accounted for and never side by side, the counters and the done bits consistent, the
    bitboards and the LEGAL cache equal to their recomputation.
    (Positions built from ASCII may hold tile squares without matching unplaced counts; the fuzz
    tests check that conservation separately.)"""
    n = params[P_PLAYERS]
    pillars = np.zeros(MAX_PLAYERS, dtype=np.int64)  # each seat's pillars on the board
    return (check_header(state, n, 1) or _check_match(state, params, n) or _check_board(state, n, pillars)
            or _check_seats(state, n, pillars) or _check_turn_count(state, n) or _check_bitboards(state)
            or _check_penalties(state, n) or _check_decider(state) or _check_legal_cache(state))
