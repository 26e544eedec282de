"""Calçada drawings: ANSI text and an RGB image of the whole table (public information only:
stacks are shown by size)."""

from __future__ import annotations

import math

import numpy as np

from calcada_env import layout as L
from calcada_env import notation, rules
from gamecore.envs import render as R
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_TERMINAL, VIEW_PUBLIC

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
PX = 36  # a board square (the sizes here are pixels at scale 1)
TILE = 30  # a display tile
WHEEL_R = 82  # carousel: centre to the middle of a space
SPACE_R = 31  # a carousel space
SB_CELL = 24  # scoreboard cell


def _px(v: float, scale: float) -> int:
    """``v`` pixels at scale 1, at ``scale`` (whole pixels; at scale 1 the same number)."""
    return int(round(v * scale))


def _geometry(n: int, scale: float = 1.0) -> dict[str, int]:
    def px(v: float) -> int:
        return _px(v, scale)

    m = px(16)
    sq, tile, wheel_r, space_r, sb_cell = px(PX), px(TILE), px(WHEEL_R), px(SPACE_R), px(SB_CELL)
    g = {"m": m, "title_h": px(60), "px": sq, "tile": tile, "wheel_r": wheel_r, "space_r": space_r, "sb_cell": sb_cell}
    top = g["title_h"] + px(8)
    g["wheel_cx"] = m + wheel_r + space_r + px(4)
    g["wheel_cy"] = top + px(18) + wheel_r + space_r
    g["wheel"] = (m, top, m + 2 * (wheel_r + space_r) + px(8), top + px(18) + 2 * (wheel_r + space_r) + px(4))
    sb_x = g["wheel"][2] + px(24)
    g["sb"] = (sb_x, top, sb_x + px(40) + L.NUM_COLOURS * sb_cell, top + px(18) + (L.MAX_ROWS + 1) * sb_cell)
    d_x = g["sb"][2] + px(24)
    g["displays"] = (d_x, top, d_x + px(70) + 3 * (tile + px(4)) + px(70),
                     top + px(18) + L.NUM_COLOURS * (tile + px(6)))
    lg_x = g["displays"][2] + px(20)
    g["legend"] = (lg_x, top, lg_x + px(110), top + px(18) + 6 * px(24) + px(10))
    top_w = g["legend"][2] + m
    top_h = max(g["wheel"][3], g["sb"][3], g["displays"][3], g["legend"][3])
    board_w = 5 * sq
    gap = px(28)
    boards_w = n * board_w + (n - 1) * gap
    width = max(top_w, 2 * m + boards_w)
    g["width"] = width
    g["boards_y"] = top_h + px(20)
    x0 = (width - boards_w) // 2
    for p in range(n):
        bx = x0 + p * (board_w + gap)
        g[f"board{p}"] = (bx - px(6), g["boards_y"], bx + board_w + px(6), g["boards_y"] + px(46) + board_w + px(6))
    g["height"] = g["boards_y"] + px(46) + board_w + px(6) + m
    return g


def regions(n: int, scale: float = 1.0) -> dict[str, tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of the picture's parts for ``n`` players at ``scale`` (as
    :func:`rgb`): ``title``, ``carousel``, ``scoreboard``, ``displays``, ``legend`` and
    ``board<p>`` (each seat's board and its label)."""
    g = _geometry(n, scale)
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


def rgb(state: np.ndarray, viewer: int = VIEW_PUBLIC, scale: float = 1.0) -> np.ndarray:
    """The whole table: the carousel as a wheel of six spaces with its cobblestones, the scoreboard,
    each colour's display (tiles with their motifs) and stack, a legend, and every seat's board with
    districts and printed numbers; whose decision it is and of what kind, and the deciding seat's
    board framed. Public information only (stacks by size): every viewer sees the same table, and a
    seat's own board is labelled "(you)". The size depends only on the player count and ``scale``
    (every length is ``scale`` times its size at scale 1)."""

    def px(v: float) -> int:
        return _px(v, scale)

    n = int(state[H_NPLAYERS])
    side = int(state[L.SIDE])
    g = _geometry(n, scale)
    sq, tile, wheel_r, space_r, sb_cell = g["px"], g["tile"], g["wheel_r"], g["space_r"], g["sb_cell"]
    img, draw = R.canvas(g["width"], g["height"])
    big, mid, small, tiny = R.font(px(20)), R.font(px(15)), R.font(px(13)), R.font(px(11))
    lw2, lw3 = max(1, px(2)), max(1, px(3))  # line widths
    m = g["m"]
    head = f"Calçada  -  board side {L.SIDE_NAMES[side]}, {n} players, turn {int(state[L.TURNS]) + 1}"
    if state[L.END_TRIGGERED] and not state[H_TERMINAL]:
        head += "  -  last round"
    R.text(draw, (m, px(6)), head, big)
    deciding = None if state[H_TERMINAL] else int(state[H_CURRENT])
    final = None  # the final scores, once the game is over (the panels then show them)
    if state[H_TERMINAL]:
        final = np.zeros(n)
        rules.scores(state, final)
    R.marker(draw, m, px(35), px(15), fill=R.INK)
    R.text(draw, (m + px(20), px(33)), _decision(state), mid)
    # carousel: six spaces clockwise from the top
    x0, y0, _, _ = g["wheel"]
    R.text(draw, (x0, y0), "carousel (clockwise)", small, fill=R.MUTED)
    cx, cy = g["wheel_cx"], g["wheel_cy"]
    draw.ellipse([cx - wheel_r, cy - wheel_r, cx + wheel_r, cy + wheel_r], outline=R.GRID, width=lw2)
    a7, a5 = px(7), px(5)
    for k in range(3):  # arrow heads on the ring, pointing clockwise
        ang = math.radians(-60 + 120 * k)
        ax, ay = cx + wheel_r * math.cos(ang), cy + wheel_r * math.sin(ang)
        tx, ty = -math.sin(ang), math.cos(ang)
        draw.polygon([(ax + a7 * tx, ay + a7 * ty),
                      (ax - a5 * tx + a5 * math.cos(ang), ay - a5 * ty + a5 * math.sin(ang)),
                      (ax - a5 * tx - a5 * math.cos(ang), ay - a5 * ty - a5 * math.sin(ang))], fill=R.GRID)
    for sp in range(L.NUM_SPACES):
        ang = math.radians(-90 + 60 * sp)
        sx, sy = cx + wheel_r * math.cos(ang), cy + wheel_r * math.sin(ang)
        draw.ellipse([sx - space_r, sy - space_r, sx + space_r, sy + space_r], fill=(225, 218, 200),
                     outline=R.shade(R.GRID, 0.7), width=lw2)
        stones = [c for c in range(L.NUM_COLOURS) for _ in range(int(state[L.CAR + L.NUM_COLOURS * sp + c]))]
        r_ = 6.5 * scale
        per_row = 4
        rows = (len(stones) + per_row - 1) // per_row
        for j, c in enumerate(stones[:12]):
            row, col = divmod(j, per_row)
            in_row = min(per_row, len(stones) - row * per_row)
            px_ = sx + (col - (in_row - 1) / 2) * (2 * r_ + px(2))
            py_ = sy + (row - (min(rows, 3) - 1) / 2) * (2 * r_ + px(2))
            _stone(draw, px_, py_, r_, c)
        label = f"{sp + 1}"
        lx = cx + (wheel_r - space_r - px(11)) * math.cos(ang)
        ly = cy + (wheel_r - space_r - px(11)) * math.sin(ang)
        R.text(draw, (lx - R.text_width(label, small) / 2, ly - px(8)), label, small, fill=R.MUTED)
    # scoreboard: one column per colour, its cobblestone on its row
    x0, y0, x1, _ = g["sb"]
    rows_n = int(L.NUM_ROWS[n])
    R.text(draw, (x0, y0), "scoreboard", small, fill=R.MUTED)
    gx = x0 + px(34)
    for r in range(rows_n):
        yy = y0 + px(20) + r * sb_cell
        R.text(draw, (x0, yy + px(4)), f"x{int(L.SCORE_ROWS[n, r])}", small)
        for c in range(L.NUM_COLOURS):
            xx = gx + c * sb_cell
            draw.rectangle([xx, yy, xx + sb_cell - 1, yy + sb_cell - 1], fill=R.BACKGROUND, outline=R.GRID)
            if int(state[L.SB_ROW + c]) == r:
                _stone(draw, xx + sb_cell / 2, yy + sb_cell / 2, px(8), c)
    yy = y0 + px(20) + rows_n * sb_cell + px(4)
    R.text(draw, (x0, yy + px(2)), "left", tiny, fill=R.MUTED)
    for c in range(L.NUM_COLOURS):
        if rules.retired(state, c):
            _stone(draw, gx + c * sb_cell + sb_cell / 2, yy + px(9), px(7), c)
            draw.line([(gx + c * sb_cell + px(4), yy + px(16)), (gx + c * sb_cell + sb_cell - px(4), yy + px(2))],
                      fill=R.INK, width=lw2)
    # displays and stacks
    x0, y0, _, _ = g["displays"]
    R.text(draw, (x0, y0), "displays", small, fill=R.MUTED)
    declared = int(state[L.DECL_COL]) if state[L.PHASE] == L.PHASE_PLACE and not state[H_TERMINAL] else -1
    for c in range(L.NUM_COLOURS):
        yy = y0 + px(20) + c * (tile + px(6))
        if c == declared:
            draw.rounded_rectangle([x0 - px(6), yy - px(3), g["displays"][2] + px(2), yy + tile + px(2)],
                                   radius=px(5), fill=R.mix(R.BACKGROUND, COLOUR_RGB[c], 0.25), outline=R.INK,
                                   width=lw2)
        R.text(draw, (x0, yy + px(7)), L.COLOURS[c], small)
        for slot in range(L.DISPLAY_SIZE):
            xx = x0 + px(64) + slot * (tile + px(4))
            v = int(state[L.DISPLAY + L.DISPLAY_SIZE * c + slot])
            if v:
                _tile(draw, xx, yy, tile, c, v - 1)
            else:
                draw.rounded_rectangle([xx, yy, xx + tile - 1, yy + tile - 1], radius=px(4), outline=R.GRID)
        sx = x0 + px(64) + 3 * (tile + px(4)) + px(6)
        k = int(state[L.STACK_N + c])
        for j in range(min(k, 5)):  # a little pile, face down
            draw.rectangle([sx + px(2) * j, yy + px(8) - px(2) * j, sx + px(2) * j + px(18), yy + px(26) - px(2) * j],
                           fill=R.shade(COLOUR_RGB[c], 0.7), outline=R.shade(COLOUR_RGB[c], 0.4))
        R.text(draw, (sx + px(30), yy + px(8)), str(k), small)
    # legend
    x0, y0, _, _ = g["legend"]
    R.text(draw, (x0, y0), "legend", small, fill=R.MUTED)
    for k, name in enumerate(L.KIND_NAMES):
        yy = y0 + px(20) + k * px(24)
        draw.rounded_rectangle([x0, yy, x0 + px(20), yy + px(20)], radius=px(3), fill=(120, 112, 100))
        motif(draw, x0 + px(1), yy + px(1), px(18), k, (255, 255, 255))
        R.text(draw, (x0 + px(28), yy + px(2)), name if k < L.NUM_MOTIFS else "bonus (+2)", small)
    R.text(draw, (x0, y0 + px(20) + 6 * px(24)), "1-5: printed numbers", tiny, fill=R.MUTED)
    # boards
    for p in range(n):
        bx0, by0, bx1, by1 = g[f"board{p}"]
        bx, by = bx0 + px(6), by0 + px(46)
        if p == deciding:
            draw.rounded_rectangle([bx0 - px(2), by0 - px(2), bx1 + px(2), by1 + px(2)], radius=px(8),
                                   fill=(255, 250, 225), outline=R.INK, width=lw3)
            R.marker(draw, bx0 + px(4), by0 + px(6), px(13), fill=R.INK)
        you = " (you)" if viewer == p else ""
        R.text(draw, (bx + (px(12) if p == deciding else 0), by0 + px(4)), f"player_{p}{you}", mid)
        if final is None:
            extra = f"{int(state[L.POINTS + p])} points, {int(state[L.BONUS + p])} bonus tiles"
        else:
            extra = f"final score {final[p]:g} (was {int(state[L.POINTS + p])})"
        R.text(draw, (bx, by0 + px(24)), extra, small, fill=R.MUTED)
        for sqi in range(L.NUM_SQUARES):
            r, c = divmod(sqi, L.BOARD_W)
            x, y = bx + c * sq, by + r * sq
            v = int(state[L.BOARD + L.NUM_SQUARES * p + sqi])
            if v == 0:
                draw.rectangle([x, y, x + sq - 1, y + sq - 1], fill=(236, 230, 214), outline=R.GRID)
                num = str(int(L.SQ_NUMBER[side, sqi]))
                R.text(draw, (x + (sq - R.text_width(num, mid)) / 2, y + px(9)), num, mid, fill=R.shade(R.GRID, 0.85))
            else:
                _tile(draw, x + 1, y + 1, sq - 2, (v - 1) // L.NUM_KINDS, (v - 1) % L.NUM_KINDS)
        for sqi in range(L.NUM_SQUARES):
            r, c = divmod(sqi, L.BOARD_W)
            x, y = bx + c * sq, by + r * sq
            d = L.SQ_DISTRICT[side, sqi]
            if c + 1 < L.BOARD_W and L.SQ_DISTRICT[side, sqi + 1] != d:
                draw.line([x + sq - 1, y, x + sq - 1, y + sq - 1], fill=R.INK, width=lw3)
            if r + 1 < L.BOARD_W and L.SQ_DISTRICT[side, sqi + L.BOARD_W] != d:
                draw.line([x, y + sq - 1, x + sq - 1, y + sq - 1], fill=R.INK, width=lw3)
        draw.rectangle([bx - 1, by - 1, bx + 5 * sq, by + 5 * sq], outline=R.INK, width=lw3)
    return R.to_array(img)
