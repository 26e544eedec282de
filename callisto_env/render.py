"""Callisto drawings: ANSI text and an RGB image of the board."""

from __future__ import annotations

import numpy as np

from callisto_env import layout as L
from callisto_env import notation
from gamecore import render as R
from gamecore.protocol import H_CURRENT, H_NPLAYERS, H_TERMINAL


def _pieces_line(state: np.ndarray, p: int) -> str:
    tiles = " ".join(
        f"{L.TILE_NAMES[t]}x{int(state[L.REMAIN + L.NUM_TILE_TYPES * p + t])}"
        for t in range(L.NUM_TILE_TYPES)
        if state[L.REMAIN + L.NUM_TILE_TYPES * p + t]
    )
    pen = sum(
        int(state[L.REMAIN + L.NUM_TILE_TYPES * p + t]) * int(L.TILE_SIZE[t]) for t in range(L.NUM_TILE_TYPES)
    )
    flags = []
    if state[L.PILLAR_TURNS + p] < 2:
        flags.append(f"opening pillars left {2 - int(state[L.PILLAR_TURNS + p])}")
    elif state[L.THIRD + p]:
        flags.append("third pillar available")
    if state[L.OUT + p]:
        flags.append("OUT")
    return (
        f"{L.PILLAR_CHARS[p]}/{L.TILE_CHARS[p]} {L.COLOURS[p]:<6} penalty {pen:>2}"
        f"{'  match ' + str(int(state[L.MATCH_PEN + p])) if state[L.MATCH] else ''}"
        f"  [{tiles or 'all tiles placed'}]{'  ' + ', '.join(flags) if flags else ''}"
    )


def ansi(state: np.ndarray) -> str:
    n = int(state[H_NPLAYERS])
    head = "Callisto"
    if state[L.MATCH]:
        head += f" - match game {int(state[L.GAME]) + 1}/{n}"
    if state[H_TERMINAL]:
        head += " - game over"
    else:
        p = int(state[H_CURRENT])
        head += f" - {L.COLOURS[p]} (player_{p}) to move"
    lines = [head, notation.board_to_ascii(state)]
    lines += [_pieces_line(state, p) for p in range(n)]
    return "\n".join(lines)


def rgb(state: np.ndarray, cell_px: int = 28) -> np.ndarray:
    n = int(state[H_NPLAYERS])
    size = int(state[L.SIZE])
    margin = cell_px
    side = margin * 2 + cell_px * size
    panel = 18 * n + 10
    img, draw = R.canvas(side, side + panel)
    font = R.font()
    draw.rectangle([margin - 4, margin - 4, margin + size * cell_px + 3, margin + size * cell_px + 3], fill=R.INK)
    for r in range(size):
        for c in range(size):
            x0, y0 = margin + c * cell_px, margin + r * cell_px
            v = int(state[L.BOARD + r * size + c])
            box = [x0, y0, x0 + cell_px - 1, y0 + cell_px - 1]
            if v == 0:
                draw.rectangle(box, fill=R.BACKGROUND, outline=R.GRID)
                continue
            owner, kind = (v - 1) % 4, (v - 1) // 4
            colour = R.SEAT_RGB[owner]
            if kind == 0:
                draw.rectangle(box, fill=R.BACKGROUND, outline=R.GRID)
                draw.ellipse([x0 + 4, y0 + 4, x0 + cell_px - 5, y0 + cell_px - 5], fill=R.shade(colour, 0.7))
                continue
            draw.rectangle(box, fill=colour)
            seq = int(state[L.SEQ + r * size + c])
            # outline the edges where the neighbouring square belongs to another placement
            for dr, dc, line in (
                (-1, 0, [x0, y0, x0 + cell_px - 1, y0]),
                (1, 0, [x0, y0 + cell_px - 1, x0 + cell_px - 1, y0 + cell_px - 1]),
                (0, -1, [x0, y0, x0, y0 + cell_px - 1]),
                (0, 1, [x0 + cell_px - 1, y0, x0 + cell_px - 1, y0 + cell_px - 1]),
            ):
                rr, cc = r + dr, c + dc
                same = 0 <= rr < size and 0 <= cc < size and int(state[L.SEQ + rr * size + cc]) == seq
                if not same:
                    draw.line(line, fill=R.shade(colour, 0.45), width=2)
    for p in range(n):
        y = side + 4 + 18 * p
        draw.rectangle([margin, y + 2, margin + 10, y + 12], fill=R.SEAT_RGB[p])
        text = _pieces_line(state, p)[4:]
        draw.text((margin + 16, y), text, fill=R.INK, font=font)
    return R.to_array(img)
