"""Cultivo drawings: ANSI text and an RGB image of the whole table (everything drawn is public; the
face-down stack shows by size only)."""

from __future__ import annotations

import numpy as np

from cultivo_env import layout as L
from cultivo_env import notation
from cultivo_env.rules.accessors import place_of
from cultivo_env.rules.scoring import final_score
from gamecore.envs import render as R
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_PHASE, H_TERMINAL, VIEW_PUBLIC

#: drawing only: the colours of fields and goods
COLOUR_RGB = ((200, 55, 45), (240, 145, 35), (95, 165, 60), (135, 90, 50), (60, 100, 205), (235, 205, 60))
TYPE_LETTERS = ("C", "St", "Bg", "T", "Bl", "Sc")  # cart, stall, barge, tool, barrel, scales
PHASE_TEXT = {
    "start": "choose a yellow field for the starting worker",
    "action": "choose an action",
    "place_target": "Place: choose the target field",
    "move_worker": "Move: choose the worker",
    "move_target": "Move: choose the target field",
    "origin": "Place: choose the worker the travel starts from",
    "step": "travel: choose the next field",
    "pay": "travel: decide an amount of the payment",
    "produce": "Produce: choose the colour",
    "acquire": "Acquire: choose the piece",
    "split": "Acquire: choose how many goods of the row's colour",
    "stall": "a market stall: replace a paid good, or not",
    "build": "Build: choose the field",
    "exchange": "the 8th / 9th worker: exchange a good, or not",
    "refill": "refill the emptied row or the emptied column",
}


def status(state: np.ndarray) -> str:
    if state[H_TERMINAL]:
        n = int(state[H_NPLAYERS])
        scores = ", ".join(f"player_{p} {int(final_score(state, p))}" for p in range(n))
        return f"Cultivo - game over after {int(state[L.ROUND])} rounds: {scores}"
    p = int(state[H_CURRENT])
    what = PHASE_TEXT[L.PHASE_NAMES[int(state[H_PHASE])]]
    if int(state[H_PHASE]) == L.PH_START:
        return f"Cultivo - setup: player_{p} to {what}"
    if int(state[H_PHASE]) == L.PH_PAY:
        n = int(state[H_NPLAYERS])
        c, j = divmod(int(state[L.PAY_I]), n)
        what += f" ({L.COLOURS[c]}: " + ("the total paid" if j == 0 else f"what player_{(p + j) % n} receives") + ")"
    end = " (end triggered" + (", last round)" if state[L.FINAL_ROUND] else ")") if state[L.END_TRIGGERED] else ""
    return (f"Cultivo - round {int(state[L.ROUND]) + 1}, player_{p} ({int(state[L.ACTIONS_LEFT])} action(s) left): "
            f"{what}{end}")


def travel_line(state: np.ndarray) -> str | None:
    if state[L.ACT] < 0:
        return None
    parts = [f"action: {L.ACTION_KINDS[int(state[L.ACT])]}"]
    if state[L.TARGET] >= 0:
        parts.append(f"target {notation.field_name(state, int(state[L.TARGET]))}")
    if state[L.PATH_N] > 0:
        path = " > ".join(notation.field_name(state, int(state[L.PATH + i])) for i in range(int(state[L.PATH_N])))
        parts.append(f"path {path}")
    if state[L.SLOT] >= 0 and state[L.MARKET + int(state[L.SLOT])]:
        parts.append(f"piece {notation.piece_name(int(state[L.MARKET + int(state[L.SLOT])]) - 1)}")
    if state[L.BUILD_FIELD] >= 0:
        parts.append(f"build on {notation.field_name(state, int(state[L.BUILD_FIELD]))}")
    agg = state[L.AGG: L.AGG + L.AGG_LEN]
    if agg.any():
        n = int(state[H_NPLAYERS])
        paid = [f"supply {notation.goods_text(agg[L.NUM_COLOURS * L.SUPPLY: L.NUM_COLOURS * (L.SUPPLY + 1)])}"]
        for q in range(n):
            row = agg[L.NUM_COLOURS * q: L.NUM_COLOURS * (q + 1)]
            if row.any():
                paid.append(f"player_{q} {notation.goods_text(row)}")
        parts.append("paying " + ", ".join(paid))
    return "; ".join(parts)


def seat_summary(state: np.ndarray, p: int) -> str:
    goods = notation.goods_text(state[L.GOODS_S + L.NUM_COLOURS * p: L.GOODS_S + L.NUM_COLOURS * (p + 1)])
    built = [L.BUILDINGS[c] for c in range(L.NUM_COLOURS) if (int(state[L.BUILT + p]) >> c) & 1]
    return (f"player_{p}: goods {goods}; workers {int(state[L.WORKERS_ON_MAP + p])}/10; "
            f"buildings {', '.join(built) or '-'}; VP tiles {int(state[L.VP_TILES_S + p])}; "
            f"score {int(final_score(state, p))}")


def seat_equipment(state: np.ndarray, p: int) -> str:
    return f"equipment {', '.join(notation.owned_pieces(state, p)) or '-'}"


def seat_line(state: np.ndarray, p: int) -> str:
    """The seat's line of the text view: the summary with the equipment before the score."""
    head, score = seat_summary(state, p).rsplit("; ", 1)
    return f"{head}; {seat_equipment(state, p)}; {score}"


def ansi(state: np.ndarray) -> str:
    n = int(state[H_NPLAYERS])
    k = int(state[L.BUILDINGS_TOTAL])
    lines = [status(state)]
    t = travel_line(state)
    if t:
        lines.append(t)
    lines.append(notation.map_ascii(state))
    lines += notation.market_rows(state)
    nxt = L.VP_TILES[k] if k < len(L.VP_TILES) else 0
    lines.append(f"stack {int(state[L.STACK_N])}; next VP tile {nxt}; start player player_{int(state[L.START])}")
    lines += [seat_line(state, p) for p in range(n)]
    return "\n".join(lines)


# ---- the image -----------------------------------------------------------------------------------
def _ink_on(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return R.INK if sum(rgb) > 420 else (255, 255, 255)


def rgb(state: np.ndarray, viewer: int = VIEW_PUBLIC, scale: float = 1.0) -> np.ndarray:
    """The whole table: the status and the travel under way, the map (fields in their colours,
    workers, buildings, canals, the travel's path and target), the market and every seat's goods and
    equipment. Everything drawn is public (the face-down stack shows by size only), so every
    ``viewer`` sees the same picture; ``viewer`` is accepted, as in every game, and not used. The
    size depends only on the player count and ``scale``."""
    n = int(state[H_NPLAYERS])
    px = int(54 * scale)
    margin = int(14 * scale)
    big, small, tiny = R.font(int(17 * scale)), R.font(int(13 * scale)), R.font(int(11 * scale))
    h, w = int(L.MAP_H[n]), int(L.MAP_W[n])
    # one size per player count: two header lines always, long lines shortened to fit
    lines = [status(state), travel_line(state) or ""]
    cur = -1 if state[H_TERMINAL] else int(state[H_CURRENT])
    seat_lines = [seat_summary(state, p) + ("   <- to decide" if p == cur else "") for p in range(n)]
    cell = int(86 * scale)
    market_w = L.MARKET_W * cell + int(60 * scale)
    map_w = w * px
    width = int(max(map_w + margin + market_w, 1000 * scale) + 2 * margin)
    head_h = int(len(lines) * 24 * scale) + margin
    map_h = h * px
    market_h = (L.MARKET_W + 1) * int(cell * 0.62) + int(30 * scale)
    body_h = max(map_h, market_h)
    seats_h = n * int(40 * scale)
    height = margin + head_h + body_h + margin + seats_h + margin
    img, draw = R.canvas(width, height)
    y = margin
    for s in lines:
        draw.text((margin, y), R.fit(s, big, width - 2 * margin), fill=R.INK, font=big)
        y += int(24 * scale)
    top = margin + head_h
    # ---- the map
    at = {}
    for f in range(int(L.NUM_FIELDS[n])):
        r, c = (int(x) for x in L.FIELD_RC[n, f])
        at[(r, c)] = f
    path = {int(state[L.PATH + i]) for i in range(int(state[L.PATH_N]))}
    target = int(state[L.TARGET])
    for (r, c), f in at.items():
        x0, y0 = margin + c * px, top + r * px
        col = COLOUR_RGB[int(state[L.FIELD_COLOUR + f])]
        draw.rectangle([x0, y0, x0 + px - 1, y0 + px - 1], fill=col, outline=R.shade(col, 0.6))
        tname = notation.field_name(state, f)[1:]
        draw.text((x0 + 3, y0 + 2), tname, fill=_ink_on(col), font=tiny)
        wk = int(state[L.WORKER + f])
        if wk:  # a disc in the seat's colour, ringed in white, with the seat number
            rad = px // 4
            cx, cy = x0 + px // 2 - 2, y0 + px // 2 + 6
            draw.ellipse([cx - rad - 2, cy - rad - 2, cx + rad + 2, cy + rad + 2], fill=(255, 255, 255))
            draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], fill=R.SEAT_RGB[wk - 1], outline=R.INK, width=1)
            draw.text((cx, cy), str(wk - 1), fill=_ink_on(R.SEAT_RGB[wk - 1]), font=tiny, anchor="mm")
        b = int(state[L.BUILDING + f])
        if b:  # a house in the seat's colour, outlined in white
            s = px // 3
            bx, by = x0 + px - s - 2, y0 + 2  # top right, clear of the worker
            house = [(bx, by + s // 2), (bx + s // 2, by), (bx + s, by + s // 2), (bx + s, by + s), (bx, by + s)]
            draw.polygon(house, fill=R.SEAT_RGB[b - 1], outline=(255, 255, 255), width=2)
        if f in path or f == target:
            draw.rectangle([x0 + 2, y0 + 2, x0 + px - 3, y0 + px - 3], outline=R.INK, width=3 if f == target else 2)
    # canals: thick lines between fields of different villages
    for (r, c), f in at.items():
        x0, y0 = margin + c * px, top + r * px
        for dr, dc in ((0, 1), (1, 0)):
            g = at.get((r + dr, c + dc))
            if g is None or place_of(f) == place_of(g):
                continue
            if dc:
                draw.line([x0 + px, y0, x0 + px, y0 + px], fill=(20, 30, 70), width=max(3, px // 10))
            else:
                draw.line([x0, y0 + px, x0 + px, y0 + px], fill=(20, 30, 70), width=max(3, px // 10))
    # ---- the market
    mx = margin + map_w + margin + int(40 * scale)
    ch = int(cell * 0.62)
    my = top + int(22 * scale)
    draw.text((mx, top), f"market (stack {int(state[L.STACK_N])})", fill=R.INK, font=small)
    for k, c in enumerate(L.MARKET_ORDER):
        draw.rectangle([mx + k * cell + 2, my, mx + (k + 1) * cell - 2, my + 8], fill=COLOUR_RGB[c])
        draw.rectangle([mx - int(34 * scale), my + 12 + k * ch + 2, mx - int(26 * scale), my + 12 + (k + 1) * ch - 2],
                       fill=COLOUR_RGB[c])
    for s in range(L.MARKET_SLOTS):
        r, c = divmod(s, L.MARKET_W)
        x0, y0 = mx + c * cell, my + 12 + r * ch
        v = int(state[L.MARKET + s])
        if not v:
            draw.rectangle([x0 + 2, y0 + 2, x0 + cell - 3, y0 + ch - 3], outline=R.GRID)
            continue
        e = v - 1
        col = COLOUR_RGB[e % L.NUM_COLOURS]
        draw.rectangle([x0 + 2, y0 + 2, x0 + cell - 3, y0 + ch - 3], fill=col, outline=R.INK,
                       width=3 if s == int(state[L.SLOT]) else 1)
        tp = e // L.NUM_COLOURS
        draw.text((x0 + 6, y0 + 4), f"{L.EQUIP_TYPES[tp]}", fill=_ink_on(col), font=tiny)
        draw.text((x0 + 6, y0 + 4 + int(14 * scale)), f"{L.EQUIP_COST[tp]}g {L.EQUIP_VP[tp]}VP", fill=_ink_on(col),
                  font=tiny)
    # ---- the players
    y = top + body_h + margin
    for p in range(n):
        sw = int(14 * scale)
        draw.rectangle([margin, y + 3, margin + sw, y + 3 + sw], fill=R.SEAT_RGB[p], outline=R.INK,
                       width=3 if p == cur else 1)
        draw.text((margin + sw + 8, y), R.fit(seat_lines[p], small, width - 2 * margin - sw - 8), fill=R.INK,
                  font=small)
        gx = margin + sw + 8
        gy = y + int(18 * scale)
        for c in range(L.NUM_COLOURS):
            k = int(state[L.GOODS_S + L.NUM_COLOURS * p + c])
            draw.rectangle([gx, gy, gx + int(12 * scale), gy + int(12 * scale)], fill=COLOUR_RGB[c], outline=R.INK)
            draw.text((gx + int(15 * scale), gy - 1), str(k), fill=R.INK, font=tiny)
            gx += int(42 * scale)
        draw.text((gx + int(8 * scale), gy - 1), R.fit(seat_equipment(state, p), tiny, width - margin - gx - 8 * scale),
                  fill=R.INK, font=tiny)
        y += int(40 * scale)
    return R.to_array(img)
