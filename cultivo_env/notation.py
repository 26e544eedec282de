"""Cultivo notation: fields, pieces and goods by name; action <-> string; the position as text.

Fields are named by their village tile and the position on it, ``V3.2`` (tile V3, second field
along the Z). A colour is a word (``red``, ``orange``, ``green``, ``brown``, ``blue``, ``yellow``;
yellow goods are wheat) or its letter ``r o g w b y`` (``w`` = brown wood, ``b`` = blue). Goods
are written ``r2 y5`` (2 red, 5 yellow), pieces ``red cart``. Actions read like::

    "place a worker (7th: 2 wheat)"         "move a worker"        "produce"
    "place on V3.2 (red)"                   "travel from V1.1"     "step across a canal to V4.5"
    "pay 3 red"   (a travel payment: the payer's total of a colour)
    "player_1 receives 1 red"   (a travel payment: what another player receives of it)
    "green stall: 1 green for 1 yellow (supply)"
    "acquire the red barge (row red, column green: 4 goods)"   "pay 3 red + 1 green"
    "exchange 1 red for 1 blue"             "refill row red"

The map as text (:func:`map_ascii`) is the map grid with one cell per field: tile.position, colour
letter, the seat of its worker and the seat of its building (``.`` none), e.g. ``3.2r0.``; ``|``
and ``---`` mark canals between fields of different villages. :func:`parse_map` reads it back
(:func:`cultivo_env.game.state_from_ascii` builds a position on it).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from cultivo_env import layout as L
from cultivo_env import rules
from cultivo_env.rules.accessors import owns, place_of
from cultivo_env.rules.turn import produce_amount
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_PHASE


# ---- names -----------------------------------------------------------------------------------
def colour_id(name: str | int) -> int:
    if isinstance(name, (int, np.integer)):
        if 0 <= int(name) < L.NUM_COLOURS:
            return int(name)
        raise ValueError(f"bad colour {name!r}")
    t = name.strip().lower()
    if t in L.COLOURS:
        return L.COLOURS.index(t)
    if t in L.GOODS:
        return L.GOODS.index(t)
    if len(t) == 1 and t in L.COLOUR_CHARS:
        return L.COLOUR_CHARS.index(t)
    raise ValueError(f"unknown colour {name!r}; colours: {', '.join(L.COLOURS)} (letters {L.COLOUR_CHARS})")


def tile_position(state: np.ndarray, f: int) -> tuple[int, int]:
    """(tile 0..9, position 0..4 on it) of field f."""
    pl, i = divmod(int(f), L.FIELDS_PER_VILLAGE)
    t = int(state[L.PLACE_TILE + pl])
    j = L.FIELDS_PER_VILLAGE - 1 - i if state[L.PLACE_FLIP + pl] else i
    return t, j


def field_name(state: np.ndarray, f: int) -> str:
    t, j = tile_position(state, f)
    return f"V{t + 1}.{j + 1}"


def parse_field(state: np.ndarray, text: str) -> int:
    """The field named ``V3.2`` (tile, position) in ``state``."""
    t = text.strip().upper()
    if not t.startswith("V") or "." not in t:
        raise ValueError(f"bad field {text!r}: expected e.g. V3.2")
    try:
        tile, pos = (int(x) for x in t[1:].split("."))
    except ValueError:
        raise ValueError(f"bad field {text!r}: expected e.g. V3.2") from None
    n = int(state[H_NPLAYERS])
    for f in range(int(L.NUM_FIELDS[n])):
        if tile_position(state, f) == (tile - 1, pos - 1):
            return f
    raise ValueError(f"field {text!r} is not on this map")


def field_colour(state: np.ndarray, f: int) -> str:
    return L.COLOURS[int(state[L.FIELD_COLOUR + f])]


def piece_name(e: int) -> str:
    return f"{L.COLOURS[e % L.NUM_COLOURS]} {L.EQUIP_TYPES[e // L.NUM_COLOURS]}"


def parse_piece(text: str) -> int:
    parts = text.strip().lower().split()
    if len(parts) != 2 or parts[1] not in L.EQUIP_TYPES:
        raise ValueError(f"bad piece {text!r}: expected e.g. 'red cart' ({', '.join(L.EQUIP_TYPES)})")
    return L.NUM_COLOURS * L.EQUIP_TYPES.index(parts[1]) + colour_id(parts[0])


def goods_text(counts) -> str:
    """``r2 y5``; ``-`` for none."""
    out = [f"{L.COLOUR_CHARS[c]}{int(k)}" for c, k in enumerate(counts) if int(k)]
    return " ".join(out) if out else "-"


def parse_goods(text: str) -> list[int]:
    counts = [0] * L.NUM_COLOURS
    for tok in text.replace(",", " ").split():
        if tok == "-":
            continue
        c = colour_id(tok[0])
        try:
            counts[c] += int(tok[1:])
        except ValueError:
            raise ValueError(f"bad goods {tok!r}: a colour letter and a count, e.g. r2") from None
    return counts


def goods_words(k: int, c: int) -> str:
    return f"{k} {L.COLOURS[c]}"


def seat_name(q: int) -> str:
    return f"player_{q}"


def ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def slot_name(s: int) -> str:
    r, c = divmod(int(s), L.MARKET_W)
    return f"row {L.COLOURS[L.MARKET_ORDER[r]]}, column {L.COLOURS[L.MARKET_ORDER[c]]}"


# ---- actions -----------------------------------------------------------------------------------
def _amount_string(state: np.ndarray, v: int) -> str:
    n = int(state[H_NPLAYERS])
    p = int(state[H_CURRENT])
    c, j = divmod(int(state[L.PAY_I]), n)
    if not 0 <= c < L.NUM_COLOURS:
        return f"amount {v}"
    if j == 0:
        return f"pay {v} {L.COLOURS[c]}"
    return f"{seat_name((p + j) % n)} receives {v} {L.COLOURS[c]}"


def _stall_colour(state: np.ndarray) -> int | None:
    p = int(state[H_CURRENT])
    stalls = [c for c in range(L.NUM_COLOURS) if owns(state, p, L.STALL, c)]
    k = int(state[L.STALL_K])
    return stalls[k] if k < len(stalls) else None


def action_to_string(state: np.ndarray, action: int) -> str:
    a = int(action)
    if not 0 <= a < L.NUM_ACTIONS:
        raise ValueError(f"action {a} out of range 0..{L.NUM_ACTIONS - 1}")
    n = int(state[H_NPLAYERS])
    p = int(state[H_CURRENT])
    ph = int(state[H_PHASE])
    if a < L.A_FIELD:
        kind = a - L.A_KIND
        if kind == L.ACT_PLACE:
            k = int(state[L.WORKERS_ON_MAP + p]) + 1
            if k > L.WORKERS:
                return "place a worker"
            w = L.PLACE_WHEAT[k - 1]
            return f"place a worker ({ordinal(k)}: {w} wheat)"
        return {L.ACT_MOVE: "move a worker", L.ACT_PRODUCE: "produce", L.ACT_ACQUIRE: "acquire equipment",
                L.ACT_BUILD: "build"}[kind]
    if a < L.A_COLOUR:
        f = a - L.A_FIELD
        if f >= int(L.NUM_FIELDS[n]):
            return f"field {f} (off the map)"
        name = field_name(state, f)
        col = field_colour(state, f)
        if ph == L.PH_START:
            return f"start on {name}"
        if ph == L.PH_PLACE_TARGET:
            return f"place on {name} ({col})"
        if ph == L.PH_MOVE_WORKER:
            return f"move the worker on {name}"
        if ph == L.PH_MOVE_TARGET:
            return f"move to {name} ({col})"
        if ph == L.PH_ORIGIN:
            return f"travel from {name}"
        if ph == L.PH_STEP and int(state[L.PATH_N]) > 0:
            cur = int(state[L.PATH + int(state[L.PATH_N]) - 1])
            canal = place_of(cur) != place_of(f)
            end = " (the target)" if f == int(state[L.TARGET]) else ""
            return f"step {'across a canal ' if canal else ''}to {name}{end}"
        if ph == L.PH_BUILD:
            return f"build the {L.BUILDINGS[int(state[L.FIELD_COLOUR + f])]} on {name}"
        return f"field {name}"
    if a < L.A_SLOT:
        c = a - L.A_COLOUR
        return f"produce {L.COLOURS[c]} (+{int(produce_amount(state, p, c))})"
    if a < L.A_SPLIT:
        s = a - L.A_SLOT
        v = int(state[L.MARKET + s])
        if not v:
            return f"acquire from {slot_name(s)} (empty)"
        e = v - 1
        return f"acquire the {piece_name(e)} ({slot_name(s)}: {L.EQUIP_COST[e // L.NUM_COLOURS]} goods)"
    if a < L.A_AMOUNT:
        k = a - L.A_SPLIT + 1
        s = int(state[L.SLOT])
        if s < 0 or not state[L.MARKET + s]:
            return f"pay {k} of the row's colour"
        e = int(state[L.MARKET + s]) - 1
        cost = L.EQUIP_COST[e // L.NUM_COLOURS]
        rc = L.MARKET_ORDER[s // L.MARKET_W]
        cc = L.MARKET_ORDER[s % L.MARKET_W]
        if rc == cc:
            return f"pay {cost} {L.COLOURS[rc]}"
        return f"pay {k} {L.COLOURS[rc]} + {cost - k} {L.COLOURS[cc]}"
    if a < L.A_STALL:
        return _amount_string(state, a - L.A_AMOUNT)
    if a < L.A_EXCHANGE:
        code = a - L.A_STALL
        s = _stall_colour(state)
        head = f"{L.COLOURS[s]} stall" if s is not None else "stall"
        if code == 0:
            return f"{head}: no substitution"
        rr, x = divmod(code - 1, L.NUM_COLOURS)
        to = "supply" if rr == 0 else seat_name((p + rr) % n)
        sc = L.COLOURS[s] if s is not None else "its colour"
        return f"{head}: 1 {sc} for 1 {L.COLOURS[x]} ({to})"
    if a < L.A_REFILL:
        code = a - L.A_EXCHANGE
        if code == 0:
            return "no exchange"
        x, y = divmod(code - 1, L.NUM_COLOURS)
        return f"exchange 1 {L.COLOURS[x]} for 1 {L.COLOURS[y]}"
    which = a - L.A_REFILL
    r, c = int(state[L.REFILL_CHOICE]), int(state[L.REFILL_CHOICE + 1])
    if which == 0:
        return f"refill row {L.COLOURS[L.MARKET_ORDER[r]]}"
    return f"refill column {L.COLOURS[L.MARKET_ORDER[c]]}"


def string_to_action(text: str, state: np.ndarray) -> int:
    """Inverse of :func:`action_to_string` in ``state`` (legal actions are found first)."""
    want = " ".join(str(text).split())
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rules.legal_mask(state, mask)
    for a in list(np.flatnonzero(mask)) + list(range(L.NUM_ACTIONS)):
        if action_to_string(state, int(a)) == want:
            return int(a)
    raise ValueError(f"not a Cultivo action here: {text!r}")


# ---- the position as text ---------------------------------------------------------------------------
def field_cell(state: np.ndarray, f: int) -> str:
    t, j = tile_position(state, f)
    w = int(state[L.WORKER + f])
    b = int(state[L.BUILDING + f])
    return (f"{t + 1}.{j + 1}{L.COLOUR_CHARS[int(state[L.FIELD_COLOUR + f])]}"
            f"{w - 1 if w else '.'}{b - 1 if b else '.'}")


def map_ascii(state: np.ndarray) -> str:
    """The map: one cell per field (see the module docstring), canals as ``|`` and ``---``."""
    n = int(state[H_NPLAYERS])
    h, w = int(L.MAP_H[n]), int(L.MAP_W[n])
    at = {}
    for f in range(int(L.NUM_FIELDS[n])):
        r, c = (int(x) for x in L.FIELD_RC[n, f])
        at[(r, c)] = f
    cw = 7
    lines = []
    for r in range(h):
        row = ""
        for c in range(w):
            f = at.get((r, c))
            cell = field_cell(state, f) if f is not None else ""
            row += cell.ljust(cw)
            right = at.get((r, c + 1))
            if c + 1 < w:
                canal = f is not None and right is not None and place_of(f) != place_of(right)
                row += "|" if canal else " "
        lines.append(row.rstrip())
        if r + 1 < h:
            sep = ""
            for c in range(w):
                f, g = at.get((r, c)), at.get((r + 1, c))
                canal = f is not None and g is not None and place_of(f) != place_of(g)
                sep += ("-" * cw if canal else " " * cw) + " "
            lines.append(sep.rstrip())
    return "\n".join(lines)



_CELL = re.compile(r"(\d+)\.(\d)([a-z])([0-9.])([0-9.])")


class MapText(NamedTuple):
    """What :func:`parse_map` reads from a map in :func:`map_ascii`'s notation."""

    num_players: int
    #: the tile on each place in order, ``"V3"`` or ``"V3*"`` (turned by 180 degrees)
    villages: list[str]
    #: seat -> the fields of its workers / buildings (``"V3.2"``), in field order
    workers: dict[int, list[str]]
    buildings: dict[int, list[str]]
    #: each field's cell as written (field order), to check against the position built
    cells: list[str]


def parse_map(text: str) -> MapText:
    """Read a map written as :func:`map_ascii` writes it: the rows of fields in order, each row's
    cells left to right (``3.2r0.``: tile 3, position 2, colour letter, worker seat, building seat,
    ``.`` none). Canal marks (``|``, ``---``), blank lines and the spacing are not read, so the
    text may be indented; the player count is the map's whose rows hold that many fields each."""
    rows = []
    for line in text.splitlines():
        toks = line.replace("|", " ").split()
        if not toks or all(set(t) <= {"-"} for t in toks):
            continue  # a blank line or a line of canals
        for tok in toks:
            if not _CELL.fullmatch(tok):
                raise ValueError(f"bad map cell {tok!r}: expected e.g. 3.2r0. (tile.position, colour letter, "
                                 "worker seat, building seat; . for none)")
        rows.append(toks)
    counts = [len(r) for r in rows]
    for n in range(1, L.MAX_PLAYERS + 1):
        nf = int(L.NUM_FIELDS[n])
        if not nf or len(rows) != int(L.MAP_H[n]):
            continue
        per_row = [sorted(int(L.FIELD_RC[n, f, 1]) for f in range(nf) if L.FIELD_RC[n, f, 0] == r)
                   for r in range(len(rows))]
        if [len(cols) for cols in per_row] == counts:
            break
    else:
        raise ValueError(f"no Cultivo map has {len(rows)} rows of {counts} fields")
    at = {(r, c): tok for r, toks in enumerate(rows) for c, tok in zip(per_row[r], toks, strict=True)}
    cells = [at[(int(L.FIELD_RC[n, f, 0]), int(L.FIELD_RC[n, f, 1]))] for f in range(nf)]
    # (tile, position, colour, worker, building) of each field as written ("." for none)
    parts = [m.groups() for m in map(_CELL.fullmatch, cells) if m is not None]
    villages: list[str] = []
    for pl in range(int(L.NUM_PLACES[n])):
        fields = parts[L.FIELDS_PER_VILLAGE * pl : L.FIELDS_PER_VILLAGE * (pl + 1)]
        tiles = {tile for tile, *_ in fields}
        pos = [int(j) for _, j, *_ in fields]
        if len(tiles) != 1:
            raise ValueError(f"the fields of village place {pl} name several tiles: {sorted(tiles, key=int)}")
        if pos == list(range(1, L.FIELDS_PER_VILLAGE + 1)):
            turned = ""
        elif pos == list(range(L.FIELDS_PER_VILLAGE, 0, -1)):
            turned = "*"
        else:
            raise ValueError(f"the positions on village place {pl} run {pos}: neither 1..5 nor 5..1 along its Z")
        villages.append(f"V{tiles.pop()}{turned}")
    workers: dict[int, list[str]] = {}
    buildings: dict[int, list[str]] = {}
    for (tile, j, _, worker, building), cell in zip(parts, cells, strict=True):
        for seat, into in ((worker, workers), (building, buildings)):
            if seat == ".":
                continue
            if int(seat) >= n:
                raise ValueError(f"{cell}: seat {seat} in a {n}-player game")
            into.setdefault(int(seat), []).append(f"V{tile}.{j}")
    return MapText(n, villages, workers, buildings, cells)

def market_rows(state: np.ndarray) -> list[str]:
    """The market, one string per row: the row's colour, then each slot's piece (``-`` empty)."""
    head = "        " + " ".join(f"{L.COLOURS[c]:<13}" for c in L.MARKET_ORDER)
    rows = [head.rstrip()]
    for r in range(L.MARKET_W):
        cells = []
        for c in range(L.MARKET_W):
            v = int(state[L.MARKET + L.MARKET_W * r + c])
            cells.append(f"{piece_name(v - 1) if v else '-':<13}")
        rows.append(f"{L.COLOURS[L.MARKET_ORDER[r]]:<7} " + " ".join(cells).rstrip())
    return rows


def owned_pieces(state: np.ndarray, p: int) -> list[str]:
    return [piece_name(e) for e in range(L.NUM_EQUIP) if state[L.EQUIP_LOC + e] == L.LOC_OWNED + p]
