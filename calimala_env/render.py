"""Calimala drawings: ANSI text and an RGB image of the table, for a viewer (default: the public
view, hands shown by count only; a seat's view adds that seat's hand and scoring cards; ``all``
adds every hand)."""

from __future__ import annotations

import numpy as np

from calimala_env import layout as L
from calimala_env import notation
from calimala_env.rules.accessors import art_free, church_free, city_free, hand_count, space_type
from gamecore.envs import render as R
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_OWNER, H_PHASE, H_TERMINAL, VIEW_ALL, VIEW_PUBLIC

P = L.MAX_PLAYERS
WHITE_DISC = (250, 250, 250)


def status(state: np.ndarray) -> str:
    if state[H_TERMINAL]:
        vps = ", ".join(f"player_{p} {int(state[L.VP + p])}" for p in range(int(state[H_NPLAYERS])))
        return f"Calimala - game over: {vps} VP"
    ph = L.PHASE_NAMES[int(state[H_PHASE])]
    cur, owner = int(state[H_CURRENT]), int(state[H_OWNER])
    text = f"Calimala - player_{cur} to decide: {ph}"
    if int(state[L.ACT_N]) > 0:
        s = int(state[L.SPACE])
        a, b = notation.street_actions(state, s)
        text += f" (turn of player_{owner}, street {L.STREET_NAMES[s]}: {a} + {b}"
        pend = [f"{L.ACTION_NAMES[int(space_type(state, s, k))]} x{int(state[L.PENDING + k])}"
                for k in range(2) if state[L.PENDING + k] > 0]
        text += f"; pending {', '.join(pend) if pend else 'none'})"
        if L.PH_SHIP <= int(state[H_PHASE]) <= L.PH_CONTRIBUTE:
            text += f" carrying out {L.ACTION_NAMES[int(state[L.EXEC_KIND])]}" + (
                " (card)" if state[L.EXEC_CARD] else "")
    if state[L.END_TRIGGERED]:
        text += " - last round"
    return text


def grid_lines(state: np.ndarray) -> list[str]:
    lines = ["city grid (cell: action)"]
    for r in range(3):
        cells = [f"{L.CELL_NAMES[3 * r + c]} {L.ACTION_NAMES[int(state[L.LAYOUT + 3 * r + c])]:<10}" for c in range(3)]
        lines.append("  " + "  ".join(cells))
    lines.append("streets (discs bottom first; w = white)")
    for s in range(L.NUM_SPACES):
        a, b = notation.street_actions(state, s)
        discs = " ".join(notation.stack_tokens(state, s)) or "-"
        lines.append(f"  {L.STREET_NAMES[s]} {a + '+' + b:<22} {discs}")
    return lines


def council_lines(state: np.ndarray) -> list[str]:
    lines = ["council seats (tile [holder]; * = next)"]
    row = []
    for k in range(L.NUM_SEATS):
        sv = int(state[L.SEAT + k])
        holder = f"p{sv - L.SEAT_BASE}" if sv >= L.SEAT_BASE else ("-" if sv == L.SEAT_EMPTY else " ")
        mark = "*" if k == int(state[L.NEXT_SEAT]) else " "
        row.append(f"{mark}{k + 1:>2} {L.TILE_NAMES[int(state[L.TILES + k])]} [{holder}]")
        if len(row) == L.COUNCIL_ROW:
            lines.append("  " + " | ".join(row))
            row = []
    arts = " ".join(f"p{int(o) - 1}" for o in state[L.COUNCIL_ART: L.COUNCIL_ART + 4] if o > 0) or "-"
    lines.append(f"  council artworks in order: {arts}")
    return lines


def building_lines(state: np.ndarray) -> list[str]:
    n = int(state[H_NPLAYERS])
    lines = ["churches (per seat; free slots)"]
    for b in range(L.NUM_CHURCHES):
        parts = []
        for r in range(L.NUM_RES):
            per = "/".join(str(int(state[L.CONTRIB + L.NUM_RES * P * b + P * r + p])) for p in range(n))
            parts.append(f"{L.RESOURCE_NAMES[r]} {per} ({int(church_free(state, b, r))})")
        art = "/".join(str(int(state[L.ART + P * b + p])) for p in range(n))
        parts.append(f"art {art} ({int(art_free(state, b))})")
        lines.append(f"  {L.BUILDING_NAMES[b]}: " + "  ".join(parts))
    lines.append("cities (cloth per seat; free slots; trade houses)")
    for c in range(L.NUM_CITIES):
        per = "/".join(str(int(state[L.CITY + P * c + p])) for p in range(n))
        extra = ""
        if c >= L.FIRST_TRADE:
            houses = [f"p{p}" for p in range(n) if state[L.HOUSE + P * (c - L.FIRST_TRADE) + p]]
            extra = " houses " + (" ".join(houses) if houses else "-")
        kind = "port" if c < L.NUM_PORTS else "trade"
        lines.append(f"  {L.CITY_NAMES[c]:<9} ({kind}) {per} ({int(city_free(state, c))}){extra}")
    return lines


def cards_line(state: np.ndarray) -> str:
    disc = " ".join(notation.card_names(state[L.DISCARD: L.DISCARD + L.NUM_TYPES])) or "-"
    face = L.SCORING_CARD_NAMES[int(state[L.FACE_UP]) - 1] if state[L.FACE_UP] else "none"
    line = f"deck {int(state[L.DECK_N])} cards; discard: {disc}; face-up scoring card: {face}"
    left = [L.ACTION_NAMES[L.START_CARDS[i]] for i in range(L.NUM_START) if state[L.START_LEFT + i]]
    if left:
        line += f"; start cards on the table: {' '.join(left)}"
    return line


def player_lines(state: np.ndarray, p: int, viewer: int) -> list[str]:
    wh = " ".join(f"{L.RESOURCE_NAMES[r][0].upper()}{int(state[L.WH + L.NUM_RES * p + r])}" for r in range(L.NUM_RES))
    cloth = ",".join(str(int(state[L.CLOTH + L.MAX_WORKSHOPS * p + w])) for w in range(int(state[L.WORKSHOPS + p])))
    houses = " ".join(L.CITY_NAMES[L.FIRST_TRADE + t] for t in range(L.NUM_TRADE) if state[L.HOUSE + P * t + p])
    mark = ">" if not state[H_TERMINAL] and int(state[H_CURRENT]) == p else " "
    known = " ".join(notation.card_names(state[L.KNOWN + L.NUM_TYPES * p: L.KNOWN + L.NUM_TYPES * (p + 1)]))
    lines = [
        f"{mark}player_{p}: {int(state[L.VP + p])} VP, {int(state[L.SEATS + p])} seats | warehouses {wh} | "
        f"workshops [{cloth}] | ships {int(state[L.SHIPS + p])} | houses {houses or '-'} | "
        f"cubes {int(state[L.RESERVE + p])} | discs {int(state[L.COLOURED + p])}+{int(state[L.WHITE + p])}w | "
        f"hand {int(hand_count(state, p))} cards" + (f" (known: {known})" if known else ""),
    ]
    if viewer == VIEW_ALL or viewer == p:
        hand = " ".join(notation.card_names(state[L.HAND + L.NUM_TYPES * p: L.HAND + L.NUM_TYPES * (p + 1)]))
        j = int(state[L.KEPT + p])
        kept = L.SCORING_CARD_NAMES[int(state[L.DEALT + L.MAX_DEALT * p + j - 1]) - 1] if j else "not chosen"
        lines.append(f"    hand: {hand or '-'}; scoring card: {kept}")
    elif state[H_TERMINAL] and state[L.KEPT + p]:
        j = int(state[L.KEPT + p])
        lines.append(f"    scoring card: {L.SCORING_CARD_NAMES[int(state[L.DEALT + L.MAX_DEALT * p + j - 1]) - 1]}")
    return lines


def ansi(state: np.ndarray, viewer: int = VIEW_PUBLIC) -> str:
    n = int(state[H_NPLAYERS])
    lines = [status(state)]
    lines += grid_lines(state)
    lines += council_lines(state)
    lines += building_lines(state)
    lines.append(cards_line(state))
    for p in range(n):
        lines += player_lines(state, p, viewer)
    return "\n".join(lines)


# ---- RGB -------------------------------------------------------------------------------------------
def _text_w(draw, text: str, font) -> int:
    box = draw.textbbox((0, 0), text, font=font)
    return box[2] - box[0]


def _disc(draw, x: int, y: int, rad: int, d: int) -> None:
    if d >= L.WHITE_BASE:
        draw.ellipse([x - rad, y - rad, x + rad, y + rad], fill=WHITE_DISC, outline=R.SEAT_RGB[d - L.WHITE_BASE],
                     width=max(2, rad // 3))
    else:
        draw.ellipse([x - rad, y - rad, x + rad, y + rad], fill=R.SEAT_RGB[d - 1], outline=R.INK)


def _slots(draw, x: int, y: int, sq: int, cap: int, counts: list[int]) -> int:
    """``cap`` slots in a row, the first ones filled with the seats' colours (seat 0 first);
    returns the x after the row."""
    k = 0
    for p, c in enumerate(counts):
        for _ in range(c):
            draw.rectangle([x + k * (sq + 2), y, x + k * (sq + 2) + sq, y + sq], fill=R.SEAT_RGB[p], outline=R.INK)
            k += 1
    for j in range(k, cap):
        draw.rectangle([x + j * (sq + 2), y, x + j * (sq + 2) + sq, y + sq], outline=R.GRID)
    return x + cap * (sq + 2)


def rgb(state: np.ndarray, viewer: int = VIEW_PUBLIC, scale: float = 1.0) -> np.ndarray:
    """The city grid with its action tiles and the disc stacks on the streets, the council seats
    with their tiles and holders, the churches' and the cities' slots filled in the seats' colours
    (trade houses beside their city), every player's mat (warehouses, workshops, ships, public hand
    count) and whose decision it is. The size depends only on the player count; text longer than
    its column is cut with an ellipsis rather than clipped."""
    n = int(state[H_NPLAYERS])
    fs = max(8, int(round(14 * scale)))
    font = R.font(fs)
    small = R.font(max(7, int(round(12 * scale))))
    _probe_img, probe = R.canvas(4, 4)
    lh = int(fs * 1.35)
    sq = max(5, int(round(9 * scale)))
    pad = int(10 * scale)
    cell_w = max(_text_w(probe, name, font) for name in L.ACTION_NAMES) + 2 * pad
    cell_h = lh * 2
    street = int(46 * scale)
    grid_w = 3 * cell_w + 2 * street
    grid_h = 3 * cell_h + 2 * street
    player_text = []
    for p in range(n):  # two lines per seat always, so the picture's size never depends on the state
        lines = player_lines(state, p, viewer)[:2]
        player_text += lines + [""] * (2 - len(lines))
    extra_text = [cards_line(state)]
    label_w = max(_text_w(probe, f"{name} ", small) for name in (*L.BUILDING_NAMES, *L.CITY_NAMES, "marble ", "art "))
    slots_w = label_w + _text_w(probe, "marble ", small) + L.CITY_SLOTS * (sq + 2) + 4 * (sq + 4) + pad
    seat_w = max(_text_w(probe, f"{k + 1} {t}", small) for k, t in enumerate(L.TILE_NAMES)) + pad
    council_w = L.COUNCIL_ROW * seat_w
    left_w = max(grid_w, council_w)
    # widths from the widest lines the game can produce, longer text is cut to fit
    widest = (f">player_0: 199 VP, 15 seats | warehouses W4 B4 M4 | workshops [4,4,4] | ships 3 | houses "
              f"{' '.join(L.CITY_NAMES[L.FIRST_TRADE:])} | cubes 40 | discs 12+3w | hand 45 cards")
    right_w = max(slots_w, _text_w(probe, widest, small))
    title = status(state)
    width = 3 * pad + left_w + right_w
    rows = (L.NUM_SEATS + L.COUNCIL_ROW - 1) // L.COUNCIL_ROW
    left_h = lh + grid_h + pad + lh + rows * 2 * lh + lh
    building_rows = L.NUM_CHURCHES * (1 + L.NUM_RES + 1) + 1 + L.NUM_CITIES + 2
    right_h = building_rows * lh + (len(player_text) + len(extra_text)) * lh
    height = 2 * pad + lh + max(left_h, right_h) + pad
    img, draw = R.canvas(width, height)
    y0 = pad
    cur = None if state[H_TERMINAL] else int(state[H_CURRENT])
    draw.text((pad, y0), R.fit(title, font, width - 2 * pad), fill=R.SEAT_RGB[cur] if cur is not None else R.INK,
              font=font)
    y0 += lh + lh // 2
    # city grid: cells and the disc stacks on the streets between them
    gx, gy = pad, y0
    for c in range(L.NUM_CELLS):
        r, col = divmod(c, 3)
        x = gx + col * (cell_w + street)
        y = gy + r * (cell_h + street)
        fill = (236, 226, 200) if c != L.CENTRE else (222, 210, 180)
        draw.rectangle([x, y, x + cell_w, y + cell_h], fill=fill, outline=R.INK, width=2)
        draw.text((x + pad, y + lh // 3), L.ACTION_NAMES[int(state[L.LAYOUT + c])], fill=R.INK, font=font)
        draw.text((x + pad, y + lh + lh // 4), L.CELL_NAMES[c], fill=R.GRID, font=small)
    rad = max(4, int(7 * scale))
    for s in range(L.NUM_SPACES):
        ra, ca = divmod(int(L.STREET_CELLS[s, 0]), 3)
        if s < 6:  # horizontal street: the stack grows upwards in the gap
            cx = gx + ca * (cell_w + street) + cell_w + street // 2
            cy = gy + ra * (cell_h + street) + cell_h // 2
        else:  # vertical street: the stack grows to the right
            cx = gx + ca * (cell_w + street) + cell_w // 2
            cy = gy + ra * (cell_h + street) + cell_h + street // 2
        highlight = int(state[L.ACT_N]) > 0 and int(state[L.SPACE]) == s and not state[H_TERMINAL]
        draw.ellipse([cx - rad - 3, cy - rad - 3, cx + rad + 3, cy + rad + 3],
                     outline=(200, 40, 40) if highlight else R.GRID, width=2)
        h = int(state[L.STACK_N + s])
        for i in range(h):
            d = int(state[L.STACK + L.MAX_STACK * s + i])
            if s < 6:
                _disc(draw, cx, cy + (h - 1) * rad // 2 - i * rad, rad, d)
            else:
                _disc(draw, cx - (h - 1) * rad // 2 + i * rad, cy, rad, d)
    y0 = gy + grid_h + pad
    # council seats
    draw.text((pad, y0), "Palazzo Vecchio: council seats in scoring order", fill=R.INK, font=font)
    y0 += lh
    for k in range(L.NUM_SEATS):
        r, col = divmod(k, L.COUNCIL_ROW)
        x = pad + col * seat_w
        y = y0 + r * 2 * lh
        nxt = k == int(state[L.NEXT_SEAT])
        draw.rectangle([x, y, x + seat_w - 4, y + 2 * lh - 4], outline=(200, 40, 40) if nxt else R.GRID,
                       width=2 if nxt else 1)
        draw.text((x + 3, y + 2), f"{k + 1} {L.TILE_NAMES[int(state[L.TILES + k])]}", fill=R.INK, font=small)
        sv = int(state[L.SEAT + k])
        if sv >= L.SEAT_BASE:
            _disc(draw, x + 3 + rad, y + lh + rad // 2, rad, 1 + sv - L.SEAT_BASE)
        elif sv == L.SEAT_EMPTY:
            draw.text((x + 3, y + lh), "scored, no seat", fill=R.GRID, font=small)
    y0 += rows * 2 * lh
    draw.text((pad, y0), "council artworks:", fill=R.INK, font=small)
    ax = pad + _text_w(draw, "council artworks: ", small)
    for i in range(L.ART_SLOT_TABLE[L.COUNCIL]):
        o = int(state[L.COUNCIL_ART + i])
        cx = ax + rad + i * (2 * rad + 4)
        if o > 0:
            _disc(draw, cx, y0 + lh // 2, rad, o)
        else:
            draw.ellipse([cx - rad, y0 + lh // 2 - rad, cx + rad, y0 + lh // 2 + rad], outline=R.GRID)
    # right column: churches and cities as slots in the seats' colours, then cards and players
    x0 = 2 * pad + left_w
    y = pad + lh + lh // 2
    for b in range(L.NUM_CHURCHES):
        draw.text((x0, y), L.BUILDING_NAMES[b], fill=R.INK, font=small)
        y += lh
        for r in range(L.NUM_RES):
            draw.text((x0 + pad, y), L.RESOURCE_NAMES[r], fill=R.INK, font=small)
            counts = [int(state[L.CONTRIB + L.NUM_RES * P * b + P * r + p]) for p in range(n)]
            _slots(draw, x0 + label_w, y + 2, sq, int(L.CHURCH_SLOTS[b, r]), counts)
            y += lh
        draw.text((x0 + pad, y), "art", fill=R.INK, font=small)
        _slots(draw, x0 + label_w, y + 2, sq, int(L.ART_SLOTS[b]), [int(state[L.ART + P * b + p]) for p in range(n)])
        y += lh
    draw.text((x0, y), "cities (trade houses beside them)", fill=R.INK, font=small)
    y += lh
    for c in range(L.NUM_CITIES):
        kind = "port" if c < L.NUM_PORTS else "trade"
        draw.text((x0 + pad, y), f"{L.CITY_NAMES[c]} ({kind})", fill=R.INK, font=small)
        end = _slots(draw, x0 + label_w + _text_w(draw, "marble ", small), y + 2, sq, L.CITY_SLOTS,
                     [int(state[L.CITY + P * c + p]) for p in range(n)])
        if c >= L.FIRST_TRADE:
            hx = end + sq
            for p in range(n):
                if state[L.HOUSE + P * (c - L.FIRST_TRADE) + p]:
                    draw.polygon([(hx, y + sq + 2), (hx + sq, y + sq + 2), (hx + sq // 2, y)], fill=R.SEAT_RGB[p],
                                 outline=R.INK)
                    hx += sq + 4
        y += lh
    y += lh // 2
    for line in extra_text + player_text:
        colour = R.INK
        stripped = line.lstrip(">").lstrip()
        if stripped.startswith("player_"):
            p = int(stripped.split(":")[0].split("_")[1])
            colour = R.shade(R.SEAT_RGB[p], 0.8)
            if cur == p:
                draw.rectangle([x0 - 4, y - 1, x0 + right_w + 2, y + lh - 2], outline=R.SEAT_RGB[p], width=2)
        draw.text((x0, y), R.fit(line, small, right_w), fill=colour, font=small)
        y += lh
    return R.to_array(img)
