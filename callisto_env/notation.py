"""Callisto notation: action <-> string, board <-> ASCII.

Cells are named column letter + row number, row 1 on top (``a1`` is the top-left cell). Actions::

    "pillar c5"        a pillar on c5
    "T5 r90 c5"        tile T5 in orientation r90 with its anchor square (its first square in
                       reading order) on c5

ASCII boards use ``.`` for an empty cell, ``g b r y`` for a tile square and ``G B R Y`` for a
pillar of seat 0, 1, 2, 3 (green, blue, red, yellow)::

        a b c d e f g h i j
     1  G g g . . . . . . B
     2  . . . . . . . . . b
"""

from __future__ import annotations

import numpy as np

from callisto_env import layout as L

_COLS = "abcdefghijklmn"


def cell_name(cell: int, size: int) -> str:
    r, c = divmod(int(cell), size)
    return f"{_COLS[c]}{r + 1}"


def parse_cell(text: str, size: int) -> int:
    text = text.strip().lower()
    if len(text) < 2 or text[0] not in _COLS[:size] or not text[1:].isdigit():
        raise ValueError(f"bad cell {text!r}: expected column a..{_COLS[size - 1]} then row 1..{size}")
    r = int(text[1:]) - 1
    if not 0 <= r < size:
        raise ValueError(f"bad cell {text!r}: row must be 1..{size}")
    return r * size + _COLS.index(text[0])


def action_to_string(state: np.ndarray, action: int) -> str:
    """The action's name in ``state`` (the board size is the state's), e.g. ``"T5 r90 c5"``."""
    size = int(state[L.SIZE])
    ss = size * size
    o, cell = divmod(int(action), ss)
    if o == L.NUM_ORIENTS:
        return f"pillar {cell_name(cell, size)}"
    return f"{L.TILE_NAMES[L.ORIENT_TILE[o]]} {L.ORIENT_SYM[o]} {cell_name(cell, size)}"


def string_to_action(text: str, state: np.ndarray) -> int:
    """Inverse of :func:`action_to_string` in ``state``."""
    size = int(state[L.SIZE])
    parts = text.split()
    if len(parts) == 2 and parts[0] == "pillar":
        return L.NUM_ORIENTS * size * size + parse_cell(parts[1], size)
    if len(parts) == 3:
        for o in range(L.NUM_ORIENTS):
            if L.TILE_NAMES[L.ORIENT_TILE[o]] == parts[0] and L.ORIENT_SYM[o] == parts[1]:
                return o * size * size + parse_cell(parts[2], size)
    raise ValueError(f"not a Callisto action: {text!r} (try 'pillar c5' or 'T5 r90 c5')")


def board_rows(state: np.ndarray) -> list[str]:
    """The board as S strings of S characters."""
    size = int(state[L.SIZE])
    rows = []
    for r in range(size):
        chars = []
        for c in range(size):
            v = int(state[L.BOARD + r * size + c])
            if v == 0:
                chars.append(".")
            else:
                owner, kind = (v - 1) % 4, (v - 1) // 4
                chars.append(L.PILLAR_CHARS[owner] if kind == 0 else L.TILE_CHARS[owner])
        rows.append("".join(chars))
    return rows


def board_to_ascii(state: np.ndarray) -> str:
    size = int(state[L.SIZE])
    lines = ["    " + " ".join(_COLS[:size])]
    for r, row in enumerate(board_rows(state)):
        lines.append(f"{r + 1:>3} " + " ".join(row))
    return "\n".join(lines)


def parse_ascii_rows(text: str) -> list[str]:
    """Board rows from ASCII art: the optional column header and row numbers are ignored, as are
    spaces between cells."""
    rows = []
    for line in text.strip("\n").splitlines():
        body = line.split()
        if not body:
            continue
        if body[0].isdigit():
            body = body[1:]
        row = "".join(body)
        if row and row == _COLS[: len(row)]:
            continue  # the column header
        rows.append(row)
    return rows
