"""Calçada drawings: ANSI text and an RGB image of the whole table (public information only:
stacks are shown by size)."""

from __future__ import annotations

import math

import numpy as np

from calcada_env import layout as L
from calcada_env import notation, rules
from gamecore.envs import render as R
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_TERMINAL

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


# ---- terminal ------------------------------------------------------------------------------------
_FG = ("33", "31", "34", "32", "35")  # ANSI colours of the tile colours: yellow, red, blue, green, purple


def terminal(state: np.ndarray, colour: bool = True) -> str:
    """:func:`ansi` with every tile token (``bk``, ``y*``) in its colour (ANSI escape codes)."""
    text = ansi(state)
    if not colour:
        return text

    def paint(tok: str) -> str:
        if len(tok) == 2 and tok[0] in L.COLOUR_CHARS and tok[1] in L.KIND_CHARS:
            return f"\x1b[1;{_FG[L.COLOUR_CHARS.index(tok[0])]}m{tok}\x1b[0m"
        return tok

    lines = text.split("\n")
    lines[0] = f"\x1b[1m{lines[0]}\x1b[0m"
    return "\n".join(" ".join(paint(t) for t in line.split(" ")) for line in lines)


# ---- picture ---------------------------------------------------------------------------------------
PX = 36  # a board square
TILE = 30  # a display tile
WHEEL_R = 82  # carousel: centre to the middle of a space
SPACE_R = 31  # a carousel space
SB_CELL = 24  # scoreboard cell


def _geometry(n: int) -> dict[str, int]:
    m = 16
    g = {"m": m, "title_h": 60}
    top = g["title_h"] + 8
    g["wheel_cx"] = m + WHEEL_R + SPACE_R + 4
    g["wheel_cy"] = top + 18 + WHEEL_R + SPACE_R
    g["wheel"] = (m, top, m + 2 * (WHEEL_R + SPACE_R) + 8, top + 18 + 2 * (WHEEL_R + SPACE_R) + 4)
    sb_x = g["wheel"][2] + 24
    g["sb"] = (sb_x, top, sb_x + 40 + L.NUM_COLOURS * SB_CELL, top + 18 + (L.MAX_ROWS + 1) * SB_CELL)
    d_x = g["sb"][2] + 24
    g["displays"] = (d_x, top, d_x + 70 + 3 * (TILE + 4) + 70, top + 18 + L.NUM_COLOURS * (TILE + 6))
    lg_x = g["displays"][2] + 20
    g["legend"] = (lg_x, top, lg_x + 110, top + 18 + 6 * 24 + 10)
    top_w = g["legend"][2] + m
    top_h = max(g["wheel"][3], g["sb"][3], g["displays"][3], g["legend"][3])
    board_w = 5 * PX
    gap = 28
    boards_w = n * board_w + (n - 1) * gap
    width = max(top_w, 2 * m + boards_w)
    g["width"] = width
    g["boards_y"] = top_h + 20
    x0 = (width - boards_w) // 2
    for p in range(n):
        bx = x0 + p * (board_w + gap)
        g[f"board{p}"] = (bx - 6, g["boards_y"], bx + board_w + 6, g["boards_y"] + 46 + board_w + 6)
    g["height"] = g["boards_y"] + 46 + board_w + 6 + m
    return g


def regions(n: int) -> dict[str, tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of the picture's parts for ``n`` players: ``title``, ``carousel``,
    ``scoreboard``, ``displays``, ``legend`` and ``board<p>`` (each seat's board and its label)."""
    g = _geometry(n)
    out = {"title": (0, 0, g["width"], g["title_h"]), "carousel": g["wheel"], "scoreboard": g["sb"],
           "displays": g["displays"], "legend": g["legend"]}
    out.update({f"board{p}": g[f"board{p}"] for p in range(n)})
    return out


def _ink_on(rgb_: tuple[int, int, int]) -> tuple[int, int, int]:
    """White or dark ink, whichever reads on ``rgb_``."""
    lum = 0.299 * rgb_[0] + 0.587 * rgb_[1] + 0.114 * rgb_[2]
    return (40, 35, 20) if lum > 150 else (255, 255, 255)


def motif(draw, x: float, y: float, s: float, kind: int, ink) -> None:
    """A drawing of a motif (tram, plaza, kiosk, cafe, bench) or the bonus star in an s x s box."""
    w = max(1, round(s / 14))
    if kind == 0:  # tram: body, windows, wheels, pantograph
        draw.rounded_rectangle([x + s * .12, y + s * .3, x + s * .88, y + s * .72], radius=s * .08, outline=ink,
                               width=w + 1)
        draw.rectangle([x + s * .22, y + s * .38, x + s * .42, y + s * .52], fill=ink)
        draw.rectangle([x + s * .58, y + s * .38, x + s * .78, y + s * .52], fill=ink)
        for cx in (.3, .7):
            draw.ellipse([x + s * (cx - .08), y + s * .7, x + s * (cx + .08), y + s * .86], fill=ink)
        draw.line([(x + s * .5, y + s * .3), (x + s * .4, y + s * .14), (x + s * .62, y + s * .14)], fill=ink,
                  width=w)
    elif kind == 1:  # plaza: a paved diamond with a fountain
        c = (x + s / 2, y + s / 2)
        draw.polygon([(c[0], y + s * .12), (x + s * .88, c[1]), (c[0], y + s * .88), (x + s * .12, c[1])],
                     outline=ink, width=w + 1)
        draw.ellipse([c[0] - s * .12, c[1] - s * .12, c[0] + s * .12, c[1] + s * .12], fill=ink)
    elif kind == 2:  # kiosk: a little house
        draw.polygon([(x + s * .5, y + s * .12), (x + s * .88, y + s * .45), (x + s * .12, y + s * .45)], fill=ink)
        draw.rectangle([x + s * .22, y + s * .45, x + s * .78, y + s * .86], outline=ink, width=w + 1)
        draw.rectangle([x + s * .42, y + s * .6, x + s * .58, y + s * .86], fill=ink)
    elif kind == 3:  # cafe: a cup on a saucer
        draw.polygon([(x + s * .2, y + s * .32), (x + s * .68, y + s * .32), (x + s * .6, y + s * .72),
                      (x + s * .28, y + s * .72)], fill=ink)
        draw.arc([x + s * .58, y + s * .38, x + s * .86, y + s * .6], start=-90, end=90, fill=ink, width=w + 1)
        draw.line([(x + s * .12, y + s * .8), (x + s * .8, y + s * .8)], fill=ink, width=w + 1)
        draw.arc([x + s * .3, y + s * .08, x + s * .46, y + s * .28], start=90, end=270, fill=ink, width=w)
    elif kind == 4:  # bench: seat, back, legs
        draw.rectangle([x + s * .12, y + s * .5, x + s * .88, y + s * .6], fill=ink)
        draw.rectangle([x + s * .12, y + s * .28, x + s * .88, y + s * .36], fill=ink)
        for lx in (.2, .74):
            draw.rectangle([x + s * lx, y + s * .6, x + s * (lx + .07), y + s * .84], fill=ink)
        draw.line([(x + s * .24, y + s * .36), (x + s * .24, y + s * .5)], fill=ink, width=w)
        draw.line([(x + s * .76, y + s * .36), (x + s * .76, y + s * .5)], fill=ink, width=w)
    else:  # bonus symbol: a star
        cx, cy, ro, ri = x + s / 2, y + s * .53, s * .4, s * .17
        pts = []
        for k in range(10):
            ang = -math.pi / 2 + k * math.pi / 5
            r_ = ro if k % 2 == 0 else ri
            pts.append((cx + r_ * math.cos(ang), cy + r_ * math.sin(ang)))
        draw.polygon(pts, fill=ink)


def _tile(draw, x: float, y: float, s: float, colour: int, kind: int) -> None:
    fill = COLOUR_RGB[colour]
    draw.rounded_rectangle([x, y, x + s - 1, y + s - 1], radius=max(2, s // 8), fill=fill,
                           outline=R.shade(fill, 0.55), width=1)
    motif(draw, x + 2, y + 2, s - 4, kind, _ink_on(fill))


def _stone(draw, cx: float, cy: float, r: float, colour: int) -> None:
    fill = COLOUR_RGB[colour]
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill, outline=R.shade(fill, 0.5), width=1)


def _decision(state: np.ndarray) -> str:
    if state[H_TERMINAL]:
        n = int(state[H_NPLAYERS])
        sc = np.zeros(n)
        rules.scores(state, sc)
        best = sc.max()
        winners = [f"player_{p}" for p in range(n) if sc[p] == best]
        return f"Game over - {' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'} with {best:g} points"
    p = int(state[H_CURRENT])
    if state[L.PHASE] == L.PHASE_PLACE:
        colour = L.COLOURS[int(state[L.DECL_COL])]
        num = int(state[L.DECL_NUM])
        where = "any empty square" if num >= L.ANY_SQUARE_NUMBER else f"a square printed {num}"
        return f"player_{p} to place: declared {colour} {num} - swap a display, or place a {colour} tile on {where}"
    return f"player_{p} to declare: bonus moves, then declare a cobblestone (its space's count is the number)"


def rgb(state: np.ndarray, viewer: int = -1) -> np.ndarray:
    """The whole table: the carousel as a wheel of six spaces with its cobblestones, the scoreboard,
    each colour's display (tiles with their motifs) and stack, a legend, and every seat's board with
    districts and printed numbers; whose decision it is and of what kind, and the deciding seat's
    board framed. Public information only (stacks by size). The size depends only on the player
    count."""
    n = int(state[H_NPLAYERS])
    side = int(state[L.SIDE])
    g = _geometry(n)
    img, draw = R.canvas(g["width"], g["height"])
    big, mid, small, tiny = R.font(20), R.font(15), R.font(13), R.font(11)
    m = g["m"]
    head = f"Calçada  -  board side {L.SIDE_NAMES[side]}, {n} players, turn {int(state[L.TURNS]) + 1}"
    if state[L.END_TRIGGERED] and not state[H_TERMINAL]:
        head += "  -  last round"
    R.text(draw, (m, 6), head, big)
    deciding = None if state[H_TERMINAL] else int(state[H_CURRENT])
    final = None  # the final scores, once the game is over (the panels then show them)
    if state[H_TERMINAL]:
        final = np.zeros(n)
        rules.scores(state, final)
    R.marker(draw, m, 35, 15, fill=R.INK)
    R.text(draw, (m + 20, 33), _decision(state), mid)
    # carousel: six spaces clockwise from the top
    x0, y0, _, _ = g["wheel"]
    R.text(draw, (x0, y0), "carousel (clockwise)", small, fill=R.MUTED)
    cx, cy = g["wheel_cx"], g["wheel_cy"]
    draw.ellipse([cx - WHEEL_R, cy - WHEEL_R, cx + WHEEL_R, cy + WHEEL_R], outline=R.GRID, width=2)
    for k in range(3):  # arrow heads on the ring, pointing clockwise
        ang = math.radians(-60 + 120 * k)
        ax, ay = cx + WHEEL_R * math.cos(ang), cy + WHEEL_R * math.sin(ang)
        tx, ty = -math.sin(ang), math.cos(ang)
        draw.polygon([(ax + 7 * tx, ay + 7 * ty), (ax - 5 * tx + 5 * math.cos(ang), ay - 5 * ty + 5 * math.sin(ang)),
                      (ax - 5 * tx - 5 * math.cos(ang), ay - 5 * ty - 5 * math.sin(ang))], fill=R.GRID)
    for sp in range(L.NUM_SPACES):
        ang = math.radians(-90 + 60 * sp)
        sx, sy = cx + WHEEL_R * math.cos(ang), cy + WHEEL_R * math.sin(ang)
        draw.ellipse([sx - SPACE_R, sy - SPACE_R, sx + SPACE_R, sy + SPACE_R], fill=(225, 218, 200),
                     outline=R.shade(R.GRID, 0.7), width=2)
        stones = [c for c in range(L.NUM_COLOURS) for _ in range(int(state[L.CAR + L.NUM_COLOURS * sp + c]))]
        r_ = 6.5
        per_row = 4
        rows = (len(stones) + per_row - 1) // per_row
        for j, c in enumerate(stones[:12]):
            row, col = divmod(j, per_row)
            in_row = min(per_row, len(stones) - row * per_row)
            px_ = sx + (col - (in_row - 1) / 2) * (2 * r_ + 2)
            py_ = sy + (row - (min(rows, 3) - 1) / 2) * (2 * r_ + 2)
            _stone(draw, px_, py_, r_, c)
        label = f"{sp + 1}"
        lx, ly = cx + (WHEEL_R - SPACE_R - 11) * math.cos(ang), cy + (WHEEL_R - SPACE_R - 11) * math.sin(ang)
        R.text(draw, (lx - R.text_width(label, small) / 2, ly - 8), label, small, fill=R.MUTED)
    # scoreboard: one column per colour, its cobblestone on its row
    x0, y0, x1, _ = g["sb"]
    rows_n = int(L.NUM_ROWS[n])
    R.text(draw, (x0, y0), "scoreboard", small, fill=R.MUTED)
    gx = x0 + 34
    for r in range(rows_n):
        yy = y0 + 20 + r * SB_CELL
        R.text(draw, (x0, yy + 4), f"x{int(L.SCORE_ROWS[n, r])}", small)
        for c in range(L.NUM_COLOURS):
            xx = gx + c * SB_CELL
            draw.rectangle([xx, yy, xx + SB_CELL - 1, yy + SB_CELL - 1], fill=R.BACKGROUND, outline=R.GRID)
            if int(state[L.SB_ROW + c]) == r:
                _stone(draw, xx + SB_CELL / 2, yy + SB_CELL / 2, 8, c)
    yy = y0 + 20 + rows_n * SB_CELL + 4
    R.text(draw, (x0, yy + 2), "left", tiny, fill=R.MUTED)
    for c in range(L.NUM_COLOURS):
        if rules.retired(state, c):
            _stone(draw, gx + c * SB_CELL + SB_CELL / 2, yy + 9, 7, c)
            draw.line([(gx + c * SB_CELL + 4, yy + 16), (gx + c * SB_CELL + SB_CELL - 4, yy + 2)], fill=R.INK, width=2)
    # displays and stacks
    x0, y0, _, _ = g["displays"]
    R.text(draw, (x0, y0), "displays", small, fill=R.MUTED)
    declared = int(state[L.DECL_COL]) if state[L.PHASE] == L.PHASE_PLACE and not state[H_TERMINAL] else -1
    for c in range(L.NUM_COLOURS):
        yy = y0 + 20 + c * (TILE + 6)
        if c == declared:
            draw.rounded_rectangle([x0 - 6, yy - 3, g["displays"][2] + 2, yy + TILE + 2], radius=5,
                                   fill=R.mix(R.BACKGROUND, COLOUR_RGB[c], 0.25), outline=R.INK, width=2)
        R.text(draw, (x0, yy + 7), L.COLOURS[c], small)
        for slot in range(L.DISPLAY_SIZE):
            xx = x0 + 64 + slot * (TILE + 4)
            v = int(state[L.DISPLAY + L.DISPLAY_SIZE * c + slot])
            if v:
                _tile(draw, xx, yy, TILE, c, v - 1)
            else:
                draw.rounded_rectangle([xx, yy, xx + TILE - 1, yy + TILE - 1], radius=4, outline=R.GRID)
        sx = x0 + 64 + 3 * (TILE + 4) + 6
        k = int(state[L.STACK_N + c])
        for j in range(min(k, 5)):  # a little pile, face down
            draw.rectangle([sx + 2 * j, yy + 8 - 2 * j, sx + 2 * j + 18, yy + 26 - 2 * j],
                           fill=R.shade(COLOUR_RGB[c], 0.7), outline=R.shade(COLOUR_RGB[c], 0.4))
        R.text(draw, (sx + 30, yy + 8), str(k), small)
    # legend
    x0, y0, _, _ = g["legend"]
    R.text(draw, (x0, y0), "legend", small, fill=R.MUTED)
    for k, name in enumerate(L.KIND_NAMES):
        yy = y0 + 20 + k * 24
        draw.rounded_rectangle([x0, yy, x0 + 20, yy + 20], radius=3, fill=(120, 112, 100))
        motif(draw, x0 + 1, yy + 1, 18, k, (255, 255, 255))
        R.text(draw, (x0 + 28, yy + 2), name if k < L.NUM_MOTIFS else "bonus (+2)", small)
    R.text(draw, (x0, y0 + 20 + 6 * 24), "1-5: printed numbers", tiny, fill=R.MUTED)
    # boards
    for p in range(n):
        bx0, by0, bx1, by1 = g[f"board{p}"]
        bx, by = bx0 + 6, by0 + 46
        if p == deciding:
            draw.rounded_rectangle([bx0 - 2, by0 - 2, bx1 + 2, by1 + 2], radius=8, fill=(255, 250, 225),
                                   outline=R.INK, width=3)
            R.marker(draw, bx0 + 4, by0 + 6, 13, fill=R.INK)
        you = " (you)" if viewer == p else ""
        R.text(draw, (bx + (12 if p == deciding else 0), by0 + 4), f"player_{p}{you}", mid)
        if final is None:
            extra = f"{int(state[L.POINTS + p])} points, {int(state[L.BONUS + p])} bonus tiles"
        else:
            extra = f"final score {final[p]:g} (was {int(state[L.POINTS + p])})"
        R.text(draw, (bx, by0 + 24), extra, small, fill=R.MUTED)
        for sq in range(L.NUM_SQUARES):
            r, c = divmod(sq, L.BOARD_W)
            x, y = bx + c * PX, by + r * PX
            v = int(state[L.BOARD + L.NUM_SQUARES * p + sq])
            if v == 0:
                draw.rectangle([x, y, x + PX - 1, y + PX - 1], fill=(236, 230, 214), outline=R.GRID)
                num = str(int(L.SQ_NUMBER[side, sq]))
                R.text(draw, (x + (PX - R.text_width(num, mid)) / 2, y + 9), num, mid, fill=R.shade(R.GRID, 0.85))
            else:
                _tile(draw, x + 1, y + 1, PX - 2, (v - 1) // L.NUM_KINDS, (v - 1) % L.NUM_KINDS)
        for sq in range(L.NUM_SQUARES):
            r, c = divmod(sq, L.BOARD_W)
            x, y = bx + c * PX, by + r * PX
            d = L.SQ_DISTRICT[side, sq]
            if c + 1 < L.BOARD_W and L.SQ_DISTRICT[side, sq + 1] != d:
                draw.line([x + PX - 1, y, x + PX - 1, y + PX - 1], fill=R.INK, width=3)
            if r + 1 < L.BOARD_W and L.SQ_DISTRICT[side, sq + L.BOARD_W] != d:
                draw.line([x, y + PX - 1, x + PX - 1, y + PX - 1], fill=R.INK, width=3)
        draw.rectangle([bx - 1, by - 1, bx + 5 * PX, by + 5 * PX], outline=R.INK, width=3)
    return R.to_array(img)
