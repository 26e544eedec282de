"""Calçada drawings: ANSI text and an RGB image of the whole table (public information only:
stacks are shown by size)."""

from __future__ import annotations

import numpy as np

from calcada_env import layout as L
from calcada_env import notation, rules
from gamecore import render as R
from gamecore.protocol import H_CURRENT, H_NPLAYERS, H_TERMINAL

#: RECONSTRUCTION (drawing only): tile colours
COLOUR_RGB = ((235, 200, 40), (200, 50, 45), (50, 90, 200), (40, 150, 70), (130, 60, 160))


def _status(state: np.ndarray) -> str:
    head = "Calçada"
    if state[H_TERMINAL]:
        return head + " - game over"
    p = int(state[H_CURRENT])
    if state[L.PHASE] == L.PHASE_PLACE:
        what = (
            f"declared {L.COLOURS[int(state[L.DECL_COL])]} {int(state[L.DECL_NUM])}: swap displays or place"
        )
    else:
        what = "bonus moves or declare"
    end = " (last round)" if state[L.END_TRIGGERED] else ""
    return f"{head} - player_{p} to move: {what}{end}"


def _carousel_line(state: np.ndarray) -> str:
    parts = []
    for s in range(L.NUM_SPACES):
        stones = "".join(
            L.COLOUR_CHARS[c] * int(state[L.CAR + L.NUM_COLOURS * s + c]) for c in range(L.NUM_COLOURS)
        )
        parts.append(f"{s + 1}:[{stones}]")
    return "carousel " + " ".join(parts)


def _colour_line(state: np.ndarray, c: int) -> str:
    n = int(state[H_NPLAYERS])
    row = int(state[L.SB_ROW + c])
    if row >= L.NUM_ROWS[n]:
        sb = "left the scoreboard"
    else:
        sb = f"row {row + 1} x{int(rules.multiplier(state, c))}"
    return (
        f"{L.COLOURS[c]:<7} {sb:<20} display {' '.join(notation.display_tokens(state, c))}"
        f"  stack {int(state[L.STACK_N + c])}"
    )


def _seat_line(state: np.ndarray, p: int) -> str:
    return f"player_{p}  points {int(state[L.POINTS + p])}  bonus tiles {int(state[L.BONUS + p])}"


def ansi(state: np.ndarray) -> str:
    n = int(state[H_NPLAYERS])
    lines = [_status(state), _carousel_line(state)]
    lines += [_colour_line(state, c) for c in range(L.NUM_COLOURS)]
    for p in range(n):
        lines.append(_seat_line(state, p))
        lines.append(notation.board_to_ascii(state, p))
    return "\n".join(lines)


def _tile(draw, x0: int, y0: int, px: int, colour: int, kind: int, font) -> None:
    draw.rectangle([x0, y0, x0 + px - 1, y0 + px - 1], fill=COLOUR_RGB[colour], outline=R.INK)
    label = "*" if kind == L.KIND_BONUS else L.KIND_CHARS[kind].upper()
    draw.text((x0 + px // 2 - 3, y0 + px // 2 - 6), label, fill=(255, 255, 255), font=font)


def rgb(state: np.ndarray, px: int = 26) -> np.ndarray:
    n = int(state[H_NPLAYERS])
    side = int(state[L.SIDE])
    margin = 10
    board_w = 5 * px
    top_h = 20 + 6 * 18 + 10
    width = max(margin * 2 + n * (board_w + margin), 520)
    height = top_h + 30 + board_w + margin
    img, draw = R.canvas(width, height)
    font = R.font()
    # the default bitmap font has no "ç"
    draw.text((margin, 4), _status(state).replace("ç", "c"), fill=R.INK, font=font)
    draw.text((margin, 20), _carousel_line(state), fill=R.INK, font=font)
    for c in range(L.NUM_COLOURS):
        y = 38 + 18 * c
        draw.rectangle([margin, y + 2, margin + 10, y + 12], fill=COLOUR_RGB[c])
        draw.text((margin + 16, y), _colour_line(state, c), fill=R.INK, font=font)
    y0 = top_h
    for p in range(n):
        x0 = margin + p * (board_w + margin)
        draw.text((x0, y0), f"p{p} {int(state[L.POINTS + p])}pt b{int(state[L.BONUS + p])}",
                  fill=R.SEAT_RGB[p], font=font)
        by = y0 + 18
        for sq in range(L.NUM_SQUARES):
            r, c = divmod(sq, L.BOARD_W)
            x, y = x0 + c * px, by + r * px
            v = int(state[L.BOARD + L.NUM_SQUARES * p + sq])
            if v == 0:
                draw.rectangle([x, y, x + px - 1, y + px - 1], fill=R.BACKGROUND, outline=R.GRID)
                draw.text((x + 3, y + 3), str(int(L.SQ_NUMBER[side, sq])), fill=R.GRID, font=font)
            else:
                _tile(draw, x, y, px, (v - 1) // L.NUM_KINDS, (v - 1) % L.NUM_KINDS, font)
        # district borders
        for sq in range(L.NUM_SQUARES):
            r, c = divmod(sq, L.BOARD_W)
            x, y = x0 + c * px, by + r * px
            d = L.SQ_DISTRICT[side, sq]
            if c + 1 < L.BOARD_W and L.SQ_DISTRICT[side, sq + 1] != d:
                draw.line([x + px - 1, y, x + px - 1, y + px - 1], fill=R.INK, width=2)
            if r + 1 < L.BOARD_W and L.SQ_DISTRICT[side, sq + L.BOARD_W] != d:
                draw.line([x, y + px - 1, x + px - 1, y + px - 1], fill=R.INK, width=2)
        draw.rectangle([x0, by, x0 + board_w - 1, by + board_w - 1], outline=R.INK, width=2)
    return R.to_array(img)
