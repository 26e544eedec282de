"""Connect Four rules as numba kernels on the state array (layout in :mod:`connect_four_env.layout`).

Action ``c`` (0..6) drops a piece of the seat to move into column ``c``, onto its lowest empty cell;
a full column is not legal. Seat 0 moves first and the seats alternate. A piece that makes four (or
more) of its seat's pieces in a row -- horizontally, vertically or diagonally -- wins at once; a
full board without one is a draw. Nothing is hidden and nothing is left to chance: the generator in
``H_RNG`` is seeded for the shared interface only.

The kernels are those of :class:`gamecore.kernel.protocol.Kernels`, in the order of its docstring.
"""

from __future__ import annotations

import sys

import numpy as np
from gamecore.kernel.header import H_CURRENT, H_DECISIONS, H_DONE, H_NPLAYERS, H_OWNER, H_RNG, H_TERMINAL
from gamecore.kernel.jit import jit
from gamecore.kernel.kernels import check_header, count_decision, plain_apply_legal, rel_seat
from gamecore.kernel.rng import rng_seed

from connect_four_env.layout import BOARD, CELLS, COLS, HEIGHT, O_BOARD, O_TO_MOVE, P_PLAYERS, ROWS, STATE_LEN, WINNER

STATE_LEN = STATE_LEN  # re-exported: part of the kernel interface
APPLY_LEGAL_FUSED = False  # apply computes nothing legal_mask could reuse

#: the four directions of a line (dr, dc): along a row, up a column, the two diagonals
_DR = np.array([0, 1, 1, 1], dtype=np.int64)
_DC = np.array([1, 0, 1, -1], dtype=np.int64)


# ---- lines -----------------------------------------------------------------------------------------
@jit
def _run(board: np.ndarray, base: int, r: int, c: int, dr: int, dc: int, v: int) -> int:
    """How many cells holding ``v`` follow cell (r, c) in direction (dr, dc) (``board[base + cell]``)."""
    k = 0
    r += dr
    c += dc
    while 0 <= r < ROWS and 0 <= c < COLS and board[base + r * COLS + c] == v:
        k += 1
        r += dr
        c += dc
    return k


@jit
def makes_four(board: np.ndarray, base: int, cell: int, v: int) -> bool:
    """Whether the piece ``v`` on ``cell`` is part of four or more ``v`` in a row."""
    r = cell // COLS
    c = cell % COLS
    for d in range(4):
        if 1 + _run(board, base, r, c, _DR[d], _DC[d], v) + _run(board, base, r, c, -_DR[d], -_DC[d], v) >= 4:
            return True
    return False


@jit
def has_four(board: np.ndarray, base: int, v: int) -> bool:
    """Whether the board ``board[base:base + 42]`` holds four ``v`` in a row anywhere."""
    for cell in range(CELLS):
        if board[base + cell] == v and makes_four(board, base, cell, v):
            return True
    return False


@jit
def _end_game(state: np.ndarray) -> None:
    state[H_TERMINAL] = 1
    state[H_DONE] = (1 << state[H_NPLAYERS]) - 1
    state[H_CURRENT] = 0
    state[H_OWNER] = 0


# ---- kernel interface ------------------------------------------------------------------------------
@jit
def init(state: np.ndarray, params: np.ndarray, seed: np.int64) -> None:
    for i in range(STATE_LEN):
        state[i] = 0
    rng_seed(state, H_RNG, seed)  # no chance in Connect Four; kept for the shared interface
    state[H_NPLAYERS] = params[P_PLAYERS]


@jit
def legal_mask(state: np.ndarray, mask: np.ndarray) -> int:
    mask[:] = 0
    if state[H_TERMINAL]:
        return 0
    k = 0
    for c in range(COLS):
        if state[HEIGHT + c] < ROWS:
            mask[c] = 1
            k += 1
    return k


@jit
def apply(state: np.ndarray, action: int) -> None:
    seat = state[H_CURRENT]
    r = state[HEIGHT + action]
    cell = r * COLS + action
    state[BOARD + cell] = 1 + seat
    state[HEIGHT + action] = r + 1
    count_decision(state)
    full = True
    for c in range(COLS):
        if state[HEIGHT + c] < ROWS:
            full = False
    if makes_four(state, BOARD, cell, 1 + seat):
        state[WINNER] = 1 + seat
        _end_game(state)
    elif full:
        _end_game(state)
    else:
        state[H_CURRENT] = 1 - seat
        state[H_OWNER] = 1 - seat


apply_legal = plain_apply_legal(sys.modules[__name__])


@jit
def scores(state: np.ndarray, out: np.ndarray) -> None:
    """1 for the winner, -1 for the loser, 0 each in a draw and while the game runs (as if it ended
    now: no four yet is a draw)."""
    w = state[WINNER]
    for p in range(state[H_NPLAYERS]):
        out[p] = 0.0 if w == 0 else (1.0 if w == 1 + p else -1.0)


@jit
def rank_keys(state: np.ndarray, out: np.ndarray) -> None:
    """The scores: the winner first, a draw shared."""
    scores(state, out)


@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    n = state[H_NPLAYERS]
    out[:] = 0
    for cell in range(CELLS):
        v = state[BOARD + cell]
        if v != 0:
            out[O_BOARD + CELLS * rel_seat(v - 1, player, n) + cell] = 1
    if state[H_TERMINAL] == 0:
        out[O_TO_MOVE + rel_seat(state[H_CURRENT], player, n)] = 1


@jit
def resample(state: np.ndarray, player: int, seed: np.int64) -> None:
    """Nothing is hidden: only the generator is reseeded."""
    rng_seed(state, H_RNG, seed)


@jit
def _last_piece_wins(state: np.ndarray, v: int) -> bool:
    """Whether some column's top piece is ``v`` and taking it away leaves no four of ``v``: a win that
    the last move can have made (every four of ``v`` runs through it)."""
    b = state[BOARD : BOARD + CELLS].copy()
    for c in range(COLS):
        h = state[HEIGHT + c]
        top = (h - 1) * COLS + c
        if h > 0 and b[top] == v:
            b[top] = 0
            if not has_four(b, 0, v):
                return True
            b[top] = v
    return False


@jit
def check_state(state: np.ndarray, params: np.ndarray) -> int:
    """0 if ``state`` is a Connect Four position play can continue from (or a finished game), else the
    first bad slot + 1: the header, pieces stacked from the bottom up to each column's height, seat 0
    one piece ahead or level, the decision count equal to the pieces, the winner the seat whose last
    piece made the only four(s) on the board, the game over exactly when won or full."""
    n = params[P_PLAYERS]
    bad = check_header(state, n, 1)
    if bad:
        return bad
    if n != 2:
        return H_NPLAYERS + 1
    first = 0
    second = 0
    for c in range(COLS):
        h = state[HEIGHT + c]
        if h < 0 or h > ROWS:
            return HEIGHT + c + 1
        for r in range(ROWS):
            v = state[BOARD + r * COLS + c]
            if v < 0 or v > 2 or (v == 0) != (r >= h):
                return BOARD + r * COLS + c + 1
            if v == 1:
                first += 1
            elif v == 2:
                second += 1
    if first != second and first != second + 1:
        return BOARD + 1
    pieces = first + second
    if state[H_DECISIONS] != pieces:
        return H_DECISIONS + 1
    w = state[WINNER]
    if w < 0 or w > 2:
        return WINNER + 1
    if w == 0:
        if has_four(state, BOARD, 1) or has_four(state, BOARD, 2):
            return WINNER + 1
    elif has_four(state, BOARD, 3 - w) or (w == 1) != (first > second) or not _last_piece_wins(state, w):
        return WINNER + 1
    over = w != 0 or pieces == CELLS
    if state[H_TERMINAL] != (1 if over else 0):
        return H_TERMINAL + 1
    if over:
        if state[H_CURRENT] != 0:
            return H_CURRENT + 1
        if state[H_OWNER] != 0:
            return H_OWNER + 1
    else:
        if state[H_CURRENT] != pieces % 2:
            return H_CURRENT + 1
        if state[H_OWNER] != state[H_CURRENT]:
            return H_OWNER + 1
        if state[H_DONE] != 0:
            return H_DONE + 1
    return 0
