"""Callisto drawings: ANSI text and an RGB image of the board."""

from __future__ import annotations

import numpy as np

from callisto_env import layout as L
from callisto_env import notation, rules
from gamecore.envs import render as R
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_TERMINAL, VIEW_PUBLIC


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


# ---- terminal ------------------------------------------------------------------------------------
_FG = ("32", "34", "31", "33")  # ANSI colours of seats 0..3: green, blue, red, yellow
_BG = ("42", "44", "41", "43")


def terminal(state: np.ndarray, colour: bool = True) -> str:
    """:func:`ansi` with the pieces in their seat colours (ANSI escape codes)."""
    if not colour:
        return ansi(state)
    lines = ansi(state).split("\n")
    n = int(state[H_NPLAYERS])
    size = int(state[L.SIZE])
    out = [lines[0], lines[1]]
    for row in lines[2 : 2 + size]:
        label, cells = row[:4], row[4:].split(" ")
        painted = []
        for ch in cells:
            if ch in L.TILE_CHARS[:n]:
                painted.append(f"\x1b[30;{_BG[L.TILE_CHARS.index(ch)]}m{ch}\x1b[0m")
            elif ch in L.PILLAR_CHARS[:n]:
                painted.append(f"\x1b[1;{_FG[L.PILLAR_CHARS.index(ch)]}m{ch}\x1b[0m")
            else:
                painted.append(f"\x1b[2m{ch}\x1b[0m")
        out.append(label + " ".join(painted))
    for p, line in enumerate(lines[2 + size :]):
        out.append(f"\x1b[{_FG[p]}m{line[:3]}\x1b[0m{line[3:]}")
    return "\n".join(out)


# ---- picture ---------------------------------------------------------------------------------------
CELL_PX = 32  # pixels per board cell at scale 1
_ICON = 7  # pixels per square of the tile icons in the seat rows, at scale 1


def _px(v: float, scale: float) -> int:
    """``v`` pixels at scale 1, at ``scale`` (whole pixels; at scale 1 the same number)."""
    return int(round(v * scale))


def _geometry(n: int, scale: float) -> dict[str, int]:
    size = L.BOARD_SIZE[n]
    m = _px(14, scale)
    cell = _px(CELL_PX, scale)
    icon = max(1, _px(_ICON, scale))
    g = {"m": m, "cell": cell, "size": size, "title_h": _px(56, scale), "label": _px(22, scale), "icon": icon,
         "icon_slot": 3 * icon + _px(12, scale)}
    g["board_y"] = g["title_h"] + g["label"]
    g["board_px"] = size * cell
    g["panel_y"] = g["board_y"] + g["board_px"] + _px(16, scale)
    g["seats_y"] = g["panel_y"] + _px(20, scale)
    g["row_h"] = _px(50, scale)
    g["text_w"] = _px(262, scale)
    g["icons_x"] = m + g["text_w"]
    width = max(2 * (m + g["label"]) + g["board_px"], g["icons_x"] + L.NUM_TILE_TYPES * g["icon_slot"] + m)
    g["width"] = width
    g["board_x"] = (width - g["board_px"]) // 2
    g["height"] = g["seats_y"] + n * g["row_h"] + m
    return g


def regions(n: int, scale: float = 1.0) -> dict[str, tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of the picture's parts for ``n`` players at ``scale`` (as
    :func:`rgb`): ``title``, ``board`` and ``seat<p>`` (each seat's row: name, penalty, unplaced
    tiles)."""
    g = _geometry(n, scale)
    out = {"title": (0, 0, g["width"], g["title_h"]),
           "board": (g["board_x"], g["board_y"], g["board_x"] + g["board_px"], g["board_y"] + g["board_px"])}
    for p in range(n):
        y = g["seats_y"] + p * g["row_h"]
        out[f"seat{p}"] = (0, y, g["width"], y + g["row_h"])
    return out


def _status(state: np.ndarray) -> tuple[str, int | None]:
    n = int(state[H_NPLAYERS])
    if state[H_TERMINAL]:
        keys = np.zeros(n)
        rules.rank_keys(state, keys)
        w = int(np.argmax(keys))
        pen = int(state[L.MATCH_PEN + w])
        return f"Game over - winner player_{w} ({L.COLOURS[w]}), penalty {pen}", w
    p = int(state[H_CURRENT])
    if state[L.PILLAR_TURNS + p] < 2:
        what = f"opening pillar {int(state[L.PILLAR_TURNS + p]) + 1} of 2 on the outer ring"
    else:
        what = "a tile" + (" or the third pillar" if state[L.THIRD + p] else "")
    return f"player_{p} ({L.COLOURS[p]}) to place {what}", p


def _tile_icon(draw, x: int, y: int, t: int, fill, outline, icon: int = _ICON) -> None:
    for cx, cy in L.TILES[t][2]:
        x0, y0 = x + cx * icon, y + cy * icon
        draw.rectangle([x0, y0, x0 + icon - 1, y0 + icon - 1], fill=fill, outline=outline)


def rgb(state: np.ndarray, viewer: int = VIEW_PUBLIC, scale: float = 1.0) -> np.ndarray:
    """The board with coordinates, whose turn it is and what to place, and every seat's unplaced
    tiles drawn as shapes; the last placement is outlined. The size depends only on the player
    count and ``scale`` (a board cell is ``CELL_PX * scale`` pixels, and everything else scales
    with it). Callisto hides nothing: ``viewer`` is accepted, as in every game, and ignored."""
    def px(v: float) -> int:
        return _px(v, scale)

    n = int(state[H_NPLAYERS])
    g = _geometry(n, scale)
    size = g["size"]
    icon = g["icon"]
    img, draw = R.canvas(g["width"], g["height"])
    big, mid, small = R.font(px(20)), R.font(px(15)), R.font(px(12))
    lw = max(1, px(2))  # line width
    m = g["m"]
    # title and turn indicator
    head = "Callisto"
    if state[L.MATCH]:
        head += f"  -  match game {int(state[L.GAME]) + 1} of {n}"
    head += f"  -  {n} players, turn {int(state[L.TURNS]) + (0 if state[H_TERMINAL] else 1)}"
    R.text(draw, (m, px(6)), head, big)
    status, who = _status(state)
    colour = R.SEAT_RGB[who] if who is not None else R.INK
    draw.rounded_rectangle([m, px(32), m + px(16), px(48)], radius=px(4), fill=colour)
    R.text(draw, (m + px(24), px(32)), status, mid)
    # coordinates
    bx, by, c = g["board_x"], g["board_y"], g["cell"]
    for i in range(size):
        col = notation._COLS[i]
        w = R.text_width(col, small)
        for y in (by - px(17), by + size * c + px(3)):
            R.text(draw, (bx + i * c + (c - w) / 2, y), col, small, fill=R.GRID)
        num = str(i + 1)
        w = R.text_width(num, small)
        R.text(draw, (bx - px(6) - w, by + i * c + (c - px(14)) / 2), num, small, fill=R.GRID)
        R.text(draw, (bx + size * c + px(6), by + i * c + (c - px(14)) / 2), num, small, fill=R.GRID)
    draw.rectangle([bx - px(4), by - px(4), bx + size * c + px(3), by + size * c + px(3)], fill=R.INK)
    last = int(state[L.SEQ : L.SEQ + size * size].max())
    for r in range(size):
        for cc in range(size):
            x0, y0 = bx + cc * c, by + r * c
            v = int(state[L.BOARD + r * size + cc])
            box = [x0, y0, x0 + c - 1, y0 + c - 1]
            ring = r in (0, size - 1) or cc in (0, size - 1)
            empty_fill = R.shade(R.BACKGROUND, 0.96) if ring else R.BACKGROUND
            if v == 0:
                draw.rectangle(box, fill=empty_fill, outline=R.GRID)
                continue
            owner, kind = (v - 1) % 4, (v - 1) // 4
            seat_rgb = R.SEAT_RGB[owner]
            if kind == 0:
                draw.rectangle(box, fill=empty_fill, outline=R.GRID)
                draw.ellipse([x0 + px(4), y0 + px(4), x0 + c - px(5), y0 + c - px(5)], fill=R.shade(seat_rgb, 0.75),
                             outline=R.shade(seat_rgb, 0.4), width=lw)
                continue
            draw.rectangle(box, fill=seat_rgb)
            seq = int(state[L.SEQ + r * size + cc])
            for dr, dc, line in (
                (-1, 0, [x0, y0, x0 + c - 1, y0]),
                (1, 0, [x0, y0 + c - 1, x0 + c - 1, y0 + c - 1]),
                (0, -1, [x0, y0, x0, y0 + c - 1]),
                (0, 1, [x0 + c - 1, y0, x0 + c - 1, y0 + c - 1]),
            ):
                rr, c2 = r + dr, cc + dc
                same = 0 <= rr < size and 0 <= c2 < size and int(state[L.SEQ + rr * size + c2]) == seq
                if not same:
                    draw.line(line, fill=R.shade(seat_rgb, 0.45), width=lw)
    if last > 0:  # outline the most recent placement
        for i in np.flatnonzero(state[L.SEQ : L.SEQ + size * size] == last):
            r, cc = divmod(int(i), size)
            x0, y0 = bx + cc * c, by + r * c
            draw.rectangle([x0 + px(2), y0 + px(2), x0 + c - px(3), y0 + c - px(3)], outline=(255, 255, 255),
                           width=lw)
    # seat rows: name, penalty, flags, unplaced tiles as shapes
    py = g["panel_y"]
    for t in range(L.NUM_TILE_TYPES):
        name = L.TILE_NAMES[t]
        x = g["icons_x"] + t * g["icon_slot"]
        R.text(draw, (x + (3 * icon - R.text_width(name, small)) / 2, py), name, small, fill=R.GRID)
    for p in range(n):
        y = g["seats_y"] + p * g["row_h"]
        seat_rgb = R.SEAT_RGB[p]
        if who == p and not state[H_TERMINAL]:
            draw.rectangle([px(2), y, g["width"] - px(3), y + g["row_h"] - px(4)],
                           fill=R.mix(R.BACKGROUND, seat_rgb, 0.18), outline=seat_rgb, width=lw)
            R.marker(draw, px(4), y + px(8), px(14), fill=seat_rgb)
        draw.ellipse([m + px(2), y + px(6), m + px(18), y + px(22)], fill=R.shade(seat_rgb, 0.75))
        name = f"player_{p}  {L.COLOURS[p]}"
        if state[L.MATCH]:
            name += f"   match {int(state[L.MATCH_PEN + p])}"
        R.text(draw, (m + px(26), y + px(5)), name, mid)
        pen = int(rules.penalty(state, p)) if not state[H_TERMINAL] else int(state[L.GAME_PEN + L.MAX_PLAYERS *
                                                                                    int(state[L.GAME]) + p])
        flags = []
        if state[L.OUT + p] and not state[H_TERMINAL]:
            flags.append("out")
        elif state[L.PILLAR_TURNS + p] < 2:
            k = 2 - int(state[L.PILLAR_TURNS + p])
            flags.append(f"{k} opening pillar{'s' if k > 1 else ''} to come")
        elif state[L.THIRD + p]:
            flags.append("3rd pillar left")
        line = f"penalty {pen}"
        R.text(draw, (m + px(26), y + px(25)), "  ".join([line, *flags]), small, fill=R.MUTED)
        for t in range(L.NUM_TILE_TYPES):
            k = int(state[L.REMAIN + L.NUM_TILE_TYPES * p + t])
            x = g["icons_x"] + t * g["icon_slot"]
            if k:
                _tile_icon(draw, x, y + px(4), t, seat_rgb, R.shade(seat_rgb, 0.45), icon)
            else:
                _tile_icon(draw, x, y + px(4), t, None, R.mix(R.BACKGROUND, R.GRID, 0.6), icon)
            if k > 1:
                R.text(draw, (x + (3 * icon - R.text_width(f"x{k}", small)) / 2, y + px(29)), f"x{k}", small)
    return R.to_array(img)
