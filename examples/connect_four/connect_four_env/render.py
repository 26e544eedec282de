"""Connect Four as text (``ansi``) and as a picture (``rgb``)."""

from __future__ import annotations

import numpy as np
from gamecore.envs import render as R
from gamecore.kernel.protocol import H_CURRENT, H_DECISIONS, H_TERMINAL, VIEW_PUBLIC

from connect_four_env import layout as L

#: the colours of seat 0 (X, red) and seat 1 (O, yellow)
PIECE_RGB = (R.SEAT_RGB[2], R.SEAT_RGB[3])
FRAME_RGB = (40, 70, 160)


def status(state: np.ndarray) -> str:
    """Whose move it is, or how the game ended."""
    if not state[H_TERMINAL]:
        seat = int(state[H_CURRENT])
        return f"move {int(state[H_DECISIONS]) + 1}: player_{seat} ({L.PIECE_CHARS[seat]}) to drop"
    winner = int(state[L.WINNER]) - 1
    if winner < 0:
        return "draw: the board is full"
    return f"player_{winner} ({L.PIECE_CHARS[winner]}) wins with four in a row"


def ansi(state: np.ndarray) -> str:
    """The board, the top row first, the column letters under it, then the status line."""
    from connect_four_env.game import board_rows

    rows = [" ".join(row) for row in board_rows(state)]
    return "\n".join([*rows, " ".join(L.COLUMN_NAMES), status(state)])


def rgb(state: np.ndarray, viewer: int = VIEW_PUBLIC, scale: float = 1.0) -> np.ndarray:
    """The board as an ``(H, W, 3)`` uint8 picture, with the status above it and the column letters
    under it; every viewer sees the same (nothing is hidden). The size depends only on ``scale``."""
    cell = max(8, int(round(48 * scale)))
    margin = max(4, int(round(16 * scale)))
    head = max(12, int(round(40 * scale)))
    width = 2 * margin + L.COLS * cell
    height = head + L.ROWS * cell + max(10, int(round(24 * scale))) + margin
    img, draw = R.canvas(width, height)
    fnt = R.font(max(8, int(round(16 * scale))))
    R.text(draw, (margin, max(2, int(round(10 * scale)))), R.fit(status(state), fnt, width - 2 * margin), fnt)
    top = head
    draw.rectangle([margin, top, margin + L.COLS * cell - 1, top + L.ROWS * cell - 1], fill=FRAME_RGB)
    pad = max(2, cell // 8)
    for r in range(L.ROWS):
        y = top + (L.ROWS - 1 - r) * cell
        for c in range(L.COLS):
            x = margin + c * cell
            v = int(state[L.BOARD + r * L.COLS + c])
            fill = R.BACKGROUND if v == 0 else PIECE_RGB[v - 1]
            draw.ellipse([x + pad, y + pad, x + cell - pad, y + cell - pad], fill=fill, outline=R.shade(FRAME_RGB, 0.6))
    for c, name in enumerate(L.COLUMN_NAMES):
        x = margin + c * cell + (cell - R.text_width(name, fnt)) / 2
        R.text(draw, (x, top + L.ROWS * cell + 2), name, fnt, fill=R.MUTED)
    return R.to_array(img)
