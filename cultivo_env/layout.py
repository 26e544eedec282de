"""Cultivo: component data, the maps, the action encoding and the state layout.

Everything marked RECONSTRUCTION is printed in no source we have (see ``docs/rules/cultivo.md``);
each such value lives in exactly one table below, so that the printed value can replace it without
touching the rules.

Colours and goods
-----------------
Colour ids 0..5: red (tomatoes), orange (oranges), green (grapes), brown (wood), blue (olives),
yellow (wheat). In text a colour is one letter of ``rogwby`` (``w`` = brown wood, ``b`` = blue).

Equipment
---------
Piece ``e = 6 * type + colour`` for the six types cart, stall (market stall), barge, tool, barrel,
scales: 36 pieces, one of each type in each colour.

Maps
----
A map is a grid of letters, one letter per village *place* (``A`` = place 0, ...), ``.`` empty.
Each place is a Z of 5 squares. Its fields are numbered along the Z: field ``f = 5 * place + i``,
``i = 0..4``; ``i = 0`` is the end of the Z that comes first in reading order. At setup each place
gets a village tile (V1..V10) and a reading direction (the tile may lie turned by 180 degrees), at
random from the seed: tile position ``j`` lies on field ``i = j`` (``FLIP = 0``) or ``i = 4 - j``
(``FLIP = 1``). People name a field by its tile and tile position, ``V3.2``.

Two fields are *adjacent* when their squares share an edge: directly (same place) or across a
canal (different places).

State layout (int64; the first 8 slots are the shared header of :mod:`gamecore.kernel.protocol`)
------------------------------------------------------------------------------------------------
{STATE_TABLE}

Observation (int8, flat; seat blocks are seat-relative, the observer's first)
-------------------------------------------------------------------------------
{OBS_TABLE}
"""

from __future__ import annotations

import numpy as np

from gamecore.kernel.header import state_layout
from gamecore.kernel.layout import Layout, offsets_table, per_count, table_by_count

# =============================================================================================
# Component data
# =============================================================================================
COLOURS = ("red", "orange", "green", "brown", "blue", "yellow")
GOODS = ("tomatoes", "oranges", "grapes", "wood", "olives", "wheat")
COLOUR_CHARS = "rogwby"
RED, ORANGE, GREEN, BROWN, BLUE, YELLOW = range(6)
NUM_COLOURS = 6

#: building of each colour (built only on a field of that colour). RECONSTRUCTION: castle = red,
#: manor = orange, tower = green (the rulebook prints brown workshop, blue monastery, yellow mill)
BUILDINGS = ("castle", "manor", "tower", "workshop", "monastery", "mill")
CASTLE, MANOR, TOWER, WORKSHOP, MONASTERY, MILL = range(6)

#: RECONSTRUCTION (the rules page fixes the patterns, not the printed tiles): village tiles V1..V10,
#: field colours along the Z (tile positions 1..5)
VILLAGE_PATTERNS = (
    "yogwb",  # V1  Wh Or Gr Wd Ol
    "bwygo",  # V2  Ol Wd Wh Gr Or
    "rybgw",  # V3  Tom Wh Ol Gr Wd
    "wgryb",  # V4  Wd Gr Tom Wh Ol
    "orwby",  # V5  Or Tom Wd Ol Wh
    "yborw",  # V6  Wh Ol Or Tom Wd
    "gyrob",  # V7  Gr Wh Tom Or Ol
    "brygo",  # V8  Ol Tom Wh Gr Or
    "rogyw",  # V9  Tom Or Gr Wh Wd
    "wgory",  # V10 Wd Gr Or Tom Wh
)
NUM_TILES = 10
FIELDS_PER_VILLAGE = 5

EQUIP_TYPES = ("cart", "stall", "barge", "tool", "barrel", "scales")
CART, STALL, BARGE, TOOL, BARREL, SCALES = range(6)
NUM_TYPES = 6
NUM_EQUIP = NUM_TYPES * NUM_COLOURS
#: goods a piece costs, by type. RECONSTRUCTION: stall 2, tool 5, scales 6 (the rules state cart 3,
#: barrel 6 and, by the barge purchase example, barge 4)
EQUIP_COST = (3, 2, 4, 5, 6, 6)
#: victory points of a piece, by type. RECONSTRUCTION: stall 2, barge 4, scales 6 (the rules state
#: cart 1, tool 3, barrel 5)
EQUIP_VP = (1, 2, 4, 3, 5, 6)

#: RECONSTRUCTION of order: the goods labelling the market rows (top to bottom) and columns (left to
#: right); wheat labels none
MARKET_ORDER = (RED, ORANGE, GREEN, BROWN, BLUE)
MARKET_W = 5
MARKET_SLOTS = MARKET_W * MARKET_W
#: face-down equipment stack by player count (the rest of the 36 leave the game)
STACK_SIZE = {2: 0, 3: 5, 4: 10}
MAX_STACK = 10
REFILL = 5  # a row or column is refilled while the stack holds this many

VILLAGES_BY_COUNT = {2: 6, 3: 8, 4: 10}
WORKERS = 10
#: wheat paid before placing worker k = 1..10 (index k - 1)
PLACE_WHEAT = (0, 0, 0, 0, 1, 1, 2, 2, 3, 4)
EXCHANGE_WORKERS = (8, 9)  # placing these, the player may exchange one good
EXTRA_ACTION_WORKER = 10  # placing this one gives one extra action
ACTIONS_PER_TURN = 2
VP_TILES = (7, 6, 5, 4, 3, 2, 1)  # the k-th building of the game takes VP_TILES[k - 1]
BUILD_EQUIP_VP = 4  # own equipment of the field's colour worth at least this much
BUILD_WHEAT = 2
BUILD_GOODS = 2  # of the field's colour
END_MARKET_LEFT = 4  # the end triggers when this many pieces or fewer remain on the market
END_BUILDINGS = 5  # ... or when a player has built this many buildings
#: building scores: (points per counted item, maximum or 0 for none)
MONASTERY_PER_WORKER, MONASTERY_MAX = 1, 10
WORKSHOP_PER_TYPE, WORKSHOP_MAX = 2, 12
TOWER_PER_BUILDING, TOWER_MAX = 2, 12
CASTLE_PER_VILLAGE = 3
MANOR_PER_WORKER = 3
MILL_PER_WORKER = 4
DEFAULT_MAX_ROUNDS = 100  # safety cap, not in the rules (see docs/rules/cultivo.md)

# RECONSTRUCTION of geometry: the default map of each player count. One letter per village place.
#   2 players: 6 villages in a 6 x 7 box, 9 borders
#   3 players: 8 villages in a 6 x 8 box, 14 borders
#   4 players: 10 villages in an 8 x 8 box, 19 borders
MAPS = {
    2: (
        "..ABB..",
        "AAACB..",
        "ACCCBBD",
        "ECFFDDD",
        "EEEFD..",
        "..EFF..",
    ),
    3: (
        "..ABBC..",
        "AAADBCCC",
        "ADDDBBEC",
        "FDGGEEEH",
        "FFFGEHHH",
        "..FGGH..",
    ),
    4: (
        "...AABB.",
        ".CCADDB.",
        ".CAAEDBB",
        "CCEEEDDF",
        "GGEHHFFF",
        ".GIIHFJJ",
        ".GGIHHJ.",
        "...IIJJ.",
    ),
}
# =============================================================================================

MAX_PLAYERS = 4
MAX_PLACES = 10
MAX_FIELDS = MAX_PLACES * FIELDS_PER_VILLAGE
UP, DOWN, LEFT, RIGHT = range(4)
_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def z_order(cells: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """The 5 squares of a village in order along the Z (first end in reading order first), or None
    if they are not a Z (5 squares in a path of edge-adjacent squares, shaped ``XX. / .X. / .XX`` in
    one of its 8 orientations)."""
    if len(cells) != FIELDS_PER_VILLAGE:
        return None
    cellset = set(cells)
    nbrs = {c: [d for d in cellset if abs(d[0] - c[0]) + abs(d[1] - c[1]) == 1] for c in cells}
    ends = sorted(c for c in cells if len(nbrs[c]) == 1)
    if len(ends) != 2 or any(len(v) > 2 for v in nbrs.values()):
        return None
    order = [ends[0]]
    while len(order) < FIELDS_PER_VILLAGE:
        nxt = [d for d in nbrs[order[-1]] if d not in order]
        if len(nxt) != 1:
            return None
        order.append(nxt[0])
    # a Z: the turns at the second and fourth squares go the same way, the middle is straight
    d = [(order[k + 1][0] - order[k][0], order[k + 1][1] - order[k][1]) for k in range(4)]
    straight_middle = d[1] == d[2]
    same_way = d[0] == d[3] and d[0] != d[1]
    return order if straight_middle and same_way else None


def parse_map(rows: tuple[str, ...]) -> dict:
    """Places, field squares and adjacency of one map."""
    height, width = len(rows), max(len(r) for r in rows)
    letters = sorted({ch for r in rows for ch in r if ch != "."})
    places = []
    for ch in letters:
        cells = [(r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == ch]
        order = z_order(cells)
        if order is None:
            raise ValueError(f"map place {ch} is not a Z of 5 squares: {cells}")
        places.append(order)
    square = {}
    for k, order in enumerate(places):
        for i, cell in enumerate(order):
            square[cell] = FIELDS_PER_VILLAGE * k + i
    nf = FIELDS_PER_VILLAGE * len(places)
    neigh = np.full((nf, 4), -1, dtype=np.int64)
    rc = np.zeros((nf, 2), dtype=np.int64)
    for (r, c), f in square.items():
        rc[f] = (r, c)
        for k, (dr, dc) in enumerate(_STEPS):
            g = square.get((r + dr, c + dc))
            if g is not None:
                neigh[f, k] = g
    return {"places": places, "height": height, "width": width, "neigh": neigh, "rc": rc, "nf": nf}


_PARSED = {n: parse_map(rows) for n, rows in MAPS.items()}
for _n, _p in _PARSED.items():
    assert len(_p["places"]) == VILLAGES_BY_COUNT[_n], _n

#: NUM_PLACES[n], NUM_FIELDS[n] for n players
NUM_PLACES = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
NUM_FIELDS = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
#: NEIGH[n, f, d]: the field beside f in direction d (up, down, left, right), -1 none
NEIGH = np.full((MAX_PLAYERS + 1, MAX_FIELDS, 4), -1, dtype=np.int64)
#: FIELD_RC[n, f] = (row, column) of the field's square on the map grid
FIELD_RC = np.zeros((MAX_PLAYERS + 1, MAX_FIELDS, 2), dtype=np.int64)
MAP_H = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
MAP_W = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
for _n, _p in _PARSED.items():
    NUM_PLACES[_n] = len(_p["places"])
    NUM_FIELDS[_n] = _p["nf"]
    NEIGH[_n, : _p["nf"]] = _p["neigh"]
    FIELD_RC[_n, : _p["nf"]] = _p["rc"]
    MAP_H[_n] = _p["height"]
    MAP_W[_n] = _p["width"]

#: PATTERN[tile, j]: colour of tile position j
PATTERN = np.array([[COLOUR_CHARS.index(ch) for ch in p] for p in VILLAGE_PATTERNS], dtype=np.int64)
EQ_COST = np.array(EQUIP_COST, dtype=np.int64)
EQ_VP = np.array(EQUIP_VP, dtype=np.int64)
MARKET_COLOUR = np.array(MARKET_ORDER, dtype=np.int64)
PLACE_WHEAT_ARR = np.array(PLACE_WHEAT, dtype=np.int64)
VP_TILE_ARR = np.array(VP_TILES, dtype=np.int64)
STACK_BY_COUNT = np.array([0, 0] + [STACK_SIZE[n] for n in (2, 3, 4)], dtype=np.int64)


def _travel_floor(n: int, field_cost: int, canal_cost: int) -> np.ndarray:
    """Per pair of fields of the n-player map, the least cost of any travel between them when every
    field passed costs ``field_cost`` goods and every canal crossed ``canal_cost`` (Dijkstra from
    each field; the target is not passed), workers ignored."""
    import heapq

    nf = int(NUM_FIELDS[n])
    big = 8 * MAX_FIELDS
    out = np.full((MAX_FIELDS, MAX_FIELDS), big, dtype=np.int16)
    for a in range(nf):
        dist = [big] * nf
        dist[a] = 0
        heap = [(0, a)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            for v in NEIGH[n, u]:
                v = int(v)
                if v < 0:
                    continue
                dv = d + field_cost + (canal_cost if u // FIELDS_PER_VILLAGE != v // FIELDS_PER_VILLAGE else 0)
                if dv < dist[v]:
                    dist[v] = dv
                    heapq.heappush(heap, (dv, v))
        out[a, :nf] = [max(0, x - field_cost) for x in dist]
        out[a, a] = 0
    return out


#: TRAVEL_FLOOR[i, j, n, a, b]: the least goods any travel from field a to field b on the n-player
#: map pays for its fields and canals, workers ignored, when a field costs i + 1 goods at least (2
#: while no player owns a cart, else 1) and a canal j + 1 (2 while no player owns a barge); the
#: travel search prunes with it
TRAVEL_FLOOR = np.full((2, 2, MAX_PLAYERS + 1, MAX_FIELDS, MAX_FIELDS), 8 * MAX_FIELDS, dtype=np.int16)
for _n in _PARSED:
    for _i in range(2):
        for _j in range(2):
            TRAVEL_FLOOR[_i, _j, _n] = _travel_floor(_n, _i + 1, _j + 1)

for _a in (NUM_PLACES, NUM_FIELDS, NEIGH, FIELD_RC, MAP_H, MAP_W, PATTERN, EQ_COST, EQ_VP, MARKET_COLOUR,
           PLACE_WHEAT_ARR, VP_TILE_ARR, STACK_BY_COUNT, TRAVEL_FLOOR):
    _a.setflags(write=False)

# =============================================================================================
# Turn phases (the header's H_PHASE: the kind of the pending decision)
# =============================================================================================
PHASE_NAMES = (
    "start",  # setup: choose the yellow field of the starting worker
    "action",  # choose the next action: place, move, produce, acquire, build
    "place_target",  # Place: the target field
    "move_worker",  # Move: which worker
    "move_target",  # Move: the target field
    "origin",  # Place: the worker the travel starts from
    "step",  # travel: the next field
    "pay",  # travel: one amount of the payment (the payer's total of a colour, or what a player receives)
    "produce",  # Produce: the colour
    "acquire",  # Acquire: the market slot
    "split",  # Acquire: how many goods of the row's colour
    "stall",  # a market stall: which paid good it replaces, if any
    "build",  # Build: the field
    "exchange",  # after placing the 8th / 9th worker: exchange one good, or not
    "refill",  # a purchase emptied a row and a column: which is refilled
)
(PH_START, PH_ACTION, PH_PLACE_TARGET, PH_MOVE_WORKER, PH_MOVE_TARGET, PH_ORIGIN, PH_STEP, PH_PAY, PH_PRODUCE,
 PH_ACQUIRE, PH_SPLIT, PH_STALL, PH_BUILD, PH_EXCHANGE, PH_REFILL) = range(len(PHASE_NAMES))
NUM_PHASES = len(PHASE_NAMES)

#: action kinds (the ACT slot)
ACTION_KINDS = ("place", "move", "produce", "acquire", "build")
ACT_NONE = -1
ACT_PLACE, ACT_MOVE, ACT_PRODUCE, ACT_ACQUIRE, ACT_BUILD = range(5)

# =============================================================================================
# Equipment locations, payments
# =============================================================================================
LOC_OUT = 0  # left the game at setup (face down, unknown to all)
LOC_STACK = 1  # in the face-down stack
LOC_MARKET = 2
LOC_OWNED = 3  # 3 + seat: owned by that seat

SUPPLY = MAX_PLAYERS  # recipient index of the general supply in AGG
AGG_ROWS = MAX_PLAYERS + 1
AGG_LEN = AGG_ROWS * NUM_COLOURS
OBL_FIELD_KIND = 0  # a passed field
OBL_CANAL_KIND = 1  # a crossed canal
MAX_PATH = MAX_FIELDS
MAX_OBL = 2 * MAX_FIELDS

# =============================================================================================
# State layout
# =============================================================================================
ST = state_layout()
START = ST.add("START", 1, "start seat (holds the start player crest; rounds begin with it)")
ROUND = ST.add("ROUND", 1, "rounds completed")
TURNS = ST.add("TURNS", 1, "turns completed (setup placements not counted)")
SETUP_LEFT = ST.add("SETUP_LEFT", 1, "starting workers still to place (n .. 0)")
END_TRIGGERED = ST.add("END_TRIGGERED", 1, "1 once the end is triggered (4 or fewer pieces on the market, or a 5th "
                       "building)")
FINAL_ROUND = ST.add("FINAL_ROUND", 1, "1 during the last round (the one after the round of the trigger)")
MAX_ROUNDS = ST.add("MAX_ROUNDS", 1, "safety cap on rounds (an option; not in the rules)")
PLACE_TILE = ST.add("PLACE_TILE", MAX_PLACES, "village tile (0..9 = V1..V10) lying on each place; -1 unused")
PLACE_FLIP = ST.add("PLACE_FLIP", MAX_PLACES, "1 if that tile lies turned by 180 degrees (tile position j on field "
                    "4 - j)")
FIELD_COLOUR = ST.add("FIELD_COLOUR", MAX_FIELDS, "colour of each field (from the tiles; -1 unused)")
WORKER = ST.add("WORKER", MAX_FIELDS, "worker on each field: 0 none, else 1 + seat")
BUILDING = ST.add("BUILDING", MAX_FIELDS, "building on each field: 0 none, else 1 + seat (its type is the field's "
                  "colour)")
GOODS_S = ST.add("GOODS", MAX_PLAYERS * NUM_COLOURS, "``GOODS + 6 * seat + colour``: goods held (unlimited)")
EQUIP_LOC = ST.add("EQUIP_LOC", NUM_EQUIP, "where each piece is: 0 out of the game, 1 stack, 2 market, 3 + seat "
                   "owned")
MARKET = ST.add("MARKET", MARKET_SLOTS, "``MARKET + 5 * row + col``: 0 empty, else 1 + piece")
STACK_N = ST.add("STACK_N", 1, "pieces in the face-down stack")
STACK = ST.add("STACK", MAX_STACK, "the stack, bottom first (top = ``STACK_N - 1``); hidden. Unused slots 0")
WORKERS_ON_MAP = ST.add("WORKERS_ON_MAP", MAX_PLAYERS, "workers each seat has on the map (its next worker is "
                        "this + 1)")
BUILT = ST.add("BUILT", MAX_PLAYERS, "bit c set once the seat built its building of colour c")
VP_TILES_S = ST.add("VP_TILES", MAX_PLAYERS, "sum of the VP tiles each seat took")
BUILDINGS_TOTAL = ST.add("BUILDINGS_TOTAL", 1, "buildings built in the game")
ACTIONS_LEFT = ST.add("ACTIONS_LEFT", 1, "actions the turn owner still takes this turn, the current one included")
ACT = ST.add("ACT", 1, "kind of the action in progress (0 place .. 4 build), -1 none")
TARGET = ST.add("TARGET", 1, "Place / Move: the target field (-1 none)")
MOVER = ST.add("MOVER", 1, "Move: the field of the moving worker (-1 none)")
VISITED = ST.add("VISITED", 1, "travel: bit f set for each field on the path so far")
PATH_N = ST.add("PATH_N", 1, "travel: fields on the path so far (the origin first)")
PATH = ST.add("PATH", MAX_PATH, "travel: the path, origin first (PATH_N of them)")
OBL_N = ST.add("OBL_N", 1, "payment: obligations of the travel (passed fields and crossed canals)")
PAY_I = ST.add("PAY_I", 1, "travel payment: the amount decided next, ``n * colour + j`` (j = 0 the payer's "
               "total of the colour, j >= 1 what the seat j places after the payer receives of it)")
#: how many outcomes of the pending colour a travel payment keeps (more: recomputed at each decision)
MAX_PAY_OUTCOMES = 64
PAY_TN = ST.add("PAY_TN", 1, "travel payment: how many outcomes of the pending colour are kept in PAY_T (-1: "
                "more than fit, recomputed when needed)")
PAY_T = ST.add("PAY_T", MAX_PAY_OUTCOMES, "travel payment: the outcomes the pending colour can still have given "
               "the amounts decided (the payer's total, then each receipt by rr, 8 bits each); unused slots 0")
OBL_KIND = ST.add("OBL_KIND", MAX_OBL, "obligation kind: 0 passed field, 1 crossed canal (in path order)")
OBL_WHERE = ST.add("OBL_WHERE", MAX_OBL, "passed field: its field; canal: the path index of the field before it")
OBL_COLOUR = ST.add("OBL_COLOUR", MAX_OBL, "passed field: its colour; canal: 5 (yellow)")
OBL_OCC = ST.add("OBL_OCC", MAX_OBL, "passed field: 0, or 1 + seat of another player's worker on it")
AGG = ST.add("AGG", AGG_LEN, "payment so far: ``AGG + 6 * r + colour`` goods going to seat r (0..3) or to the "
             "supply (r = 4); a travel's amounts not yet decided are 0")
STALL_K = ST.add("STALL_K", 1, "stall stage: the next of the payer's stalls (0 = lowest colour)")
STALL_CHOICE = ST.add("STALL_CHOICE", NUM_COLOURS, "stall stage: the choice for each of the payer's stalls so far "
                      "(the A_STALL offset)")
SLOT = ST.add("SLOT", 1, "Acquire: the market slot (-1 none)")
SPLIT = ST.add("SPLIT", 1, "Acquire: goods of the row's colour (0 until chosen)")
BUILD_FIELD = ST.add("BUILD_FIELD", 1, "Build: the field (-1 none)")
REFILL_CHOICE = ST.add("REFILL_CHOICE", 2, "refill: the row and the column that were emptied together")
STATE_LEN = ST.size

# ---- params vector ---------------------------------------------------------------------------
P_PLAYERS = 0
P_START = 1
P_RANDOM_VILLAGES = 2
P_MAX_ROUNDS = 3
PARAMS_LEN = 4

# =============================================================================================
# Actions
# =============================================================================================
A_KIND = 0  # + kind: choose the next action
A_FIELD = A_KIND + len(ACTION_KINDS)  # + field: start / target / worker / origin / step / build
A_COLOUR = A_FIELD + MAX_FIELDS  # + colour: produce
A_SLOT = A_COLOUR + NUM_COLOURS  # + slot: acquire
A_SPLIT = A_SLOT + MARKET_SLOTS  # + (k - 1): pay k goods of the row's colour
MAX_SPLIT = 6
#: a travel payment's amounts: a colour never totals more than 2 per passed field, 2 per canal, the
#: placement wheat and 1 from its stall, under 4 * MAX_FIELDS
MAX_AMOUNT = 4 * MAX_FIELDS
A_AMOUNT = A_SPLIT + MAX_SPLIT  # + v: the amount being decided is v
A_STALL = A_AMOUNT + MAX_AMOUNT  # + 0 no substitution, + 1 + 6 * rr + x: replace a good of colour x paid to
#                                      rr (0 = supply, k = the seat k places after the payer)
STALL_OPTIONS = 1 + MAX_PLAYERS * NUM_COLOURS
A_EXCHANGE = A_STALL + STALL_OPTIONS  # + 0 no exchange, + 1 + 6 * a + b: give a, take b (a != b)
A_REFILL = A_EXCHANGE + 1 + NUM_COLOURS * NUM_COLOURS  # + 0 the row, + 1 the column
NUM_ACTIONS = A_REFILL + 2

ACTION_TABLE = (
    ("A_KIND", A_KIND, len(ACTION_KINDS), "choose the next action: place, move, produce, acquire, build"),
    ("A_FIELD", A_FIELD, MAX_FIELDS, "a field: the starting field, a target, the worker to move, the travel's "
     "origin, the next step, or where to build (by phase)"),
    ("A_COLOUR", A_COLOUR, NUM_COLOURS, "Produce: the colour"),
    ("A_SLOT", A_SLOT, MARKET_SLOTS, "Acquire: market slot 5 * row + column"),
    ("A_SPLIT", A_SPLIT, MAX_SPLIT, "Acquire: pay k goods of the row's colour (k - 1), the rest of the column's"),
    ("A_AMOUNT", A_AMOUNT, MAX_AMOUNT, "travel payment: the amount being decided (the payer's total of a colour, "
     "or what one player receives of it) is v"),
    ("A_STALL", A_STALL, STALL_OPTIONS, "the current stall replaces nothing (0) or one good of colour x paid to the "
     "supply (1 + x) or to the seat rr places after the payer (1 + 6 rr + x)"),
    ("A_EXCHANGE", A_EXCHANGE, 1 + NUM_COLOURS * NUM_COLOURS, "no exchange (0), or give one good a, take one good "
     "b (1 + 6 a + b)"),
    ("A_REFILL", A_REFILL, 2, "refill the emptied row (0) or column (1)"),
)


# =============================================================================================
# Observation
# =============================================================================================
#: goods of one colour an observation shows: hundreds (at most 127), then the rest (``v // 100``,
#: ``v % 100``); above this the seat's saturation flag for the colour is 1 and the entries show the cap
GOODS_OBS_CAP = 127 * 100 + 99
#: the field flags of ``FIELD_FLAGS``, in order
FIELD_FLAG_NAMES = ("position", "target", "passed", "canal", "mover", "build")
(FF_POSITION, FF_TARGET, FF_PASSED, FF_CANAL, FF_MOVER, FF_BUILD) = range(len(FIELD_FLAG_NAMES))
NUM_FIELD_FLAGS = len(FIELD_FLAG_NAMES)


def stall_done_size(n: int) -> int:
    """Entries per stall colour in ``STALLS_DONE``: decided, the colour replaced (6), the supply, the seats (n)."""
    return 1 + NUM_COLOURS + 1 + n


def amount_size(n: int) -> int:
    """Entries of ``AMOUNT``: the kind (2), the colour (6), the receiving seat (n)."""
    return 2 + NUM_COLOURS + n


def _obs_layout(n: int) -> Layout:
    nf = int(NUM_FIELDS[n])
    sd = stall_done_size(n)
    amax = MAX_AMOUNT - 1  # a travel payment's amount is an action value 0..MAX_AMOUNT - 1
    lay = Layout(f"observation, {n} players")
    lay.add("FIELD_COLOUR", NUM_COLOURS * nf, "``[f, c]`` (entry ``6 f + c``): 1 when field f has colour c "
            "(fields ``f = 5 place + i`` along each village's Z, see `cultivo_env.layout`; colours c in the order "
            "red, orange, green, brown, blue, yellow)", high=1, shape=(nf, NUM_COLOURS))
    lay.add("FIELD_WORKER", n * nf, "``[f, rel]`` (entry ``n f + rel``): 1 when a worker of seat ``rel`` stands "
            "on field f (during a Move the moving worker stays on its field until the move is paid)", high=1,
            shape=(nf, n))
    lay.add("FIELD_BUILDING", n * nf, "``[f, rel]`` (entry ``n f + rel``): 1 when seat ``rel``'s building "
            "stands on field f (its type is the field's colour: red castle, orange manor, green tower, brown "
            "workshop, blue monastery, yellow mill)", high=1, shape=(nf, n))
    lay.add("PATH_STEP", nf, "``[f]``: the travel's path in order: 0 when field f is not on the path so far, else "
            "1 + its index on the path (1 = the origin, the field the travel starts from: the moving worker's field "
            "for a Move, the chosen origin worker's for a Place; the largest value is the traveller's position)",
            high=nf, range_doc="0..the number of fields, 30 / 40 / 50 at 2 / 3 / 4 players (a path visits each field "
            "at most once)")
    lay.add("FIELD_FLAGS", NUM_FIELD_FLAGS * nf, f"``[f, k]`` (entry ``{NUM_FIELD_FLAGS} f + k``), flags of field "
            "f: k = 0 position (the travel's last field so far: where the traveller stands); 1 target (the "
            "target field of a Place or Move, from its choice to the end of the action); 2 passed (during the "
            "`pay` decisions: on the path, neither its first nor its last field: a field whose passing is paid "
            "for); 3 canal (the path reached f across a canal: the field before f on the path lies in another "
            "village; each is one canal crossed, paid 2 wheat or by a barge); 4 mover (during a Move: the worker "
            "chosen in `move_worker` stands on f); 5 build (during a Build's `stall` decisions: the field chosen "
            "in `build`)", high=1, shape=(nf, NUM_FIELD_FLAGS))
    lay.add("GOODS", 3 * NUM_COLOURS * n, "``[rel, c, k]`` (entry ``18 rel + 3 c + k``): goods of colour c held "
            "by seat ``rel``: k = 0 hundreds, k = 1 the rest (``v // 100``, ``v % 100``), k = 2 saturated (1 when "
            f"v is above {GOODS_OBS_CAP}, the largest the two entries show; they then show 127, 99)",
            high=np.tile([127, 99, 1], NUM_COLOURS * n),
            range_doc=f"hundreds 0..127, rest 0..99, saturated 0..1 (goods are unlimited by the rules; shown "
            f"exactly up to {GOODS_OBS_CAP}, beyond it the flag)", shape=(n, NUM_COLOURS, 3))
    lay.add("EQUIPMENT", NUM_EQUIP * n, "``[rel, t, c]`` (entry ``36 rel + 6 t + c``): 1 when seat ``rel`` owns "
            "the piece of type t and colour c (types t in the order cart, stall, barge, tool, barrel, scales)",
            high=1, shape=(n, NUM_TYPES, NUM_COLOURS))
    lay.add("WORKERS", n, "``[rel]``: workers seat ``rel`` has on the map (its next worker placed is this + 1)",
            high=WORKERS, shape=(n,))
    lay.add("BUILT", NUM_COLOURS * n, "``[rel, c]`` (entry ``6 rel + c``): 1 when seat ``rel`` has built its "
            "building of colour c", high=1, shape=(n, NUM_COLOURS))
    lay.add("VP_TILES", n, "``[rel]``: the sum of the values of the VP tiles seat ``rel`` took (a tile each for "
            f"the first {len(VP_TILES)} buildings of the game, worth " + ", ".join(str(v) for v in VP_TILES) + ")",
            high=sum(VP_TILES), shape=(n,),
            range_doc=f"0..{sum(VP_TILES)} (all {len(VP_TILES)} tiles)")
    lay.add("MARKET", MARKET_SLOTS * 2 * NUM_COLOURS, "``[row, col, 0, t]``: 1 when the piece in the slot has type "
            "t; ``[row, col, 1, c]``: 1 when it has colour c (entry ``60 row + 12 col + 6 j + k``); all zero for an "
            "empty slot. Rows (top to bottom) and columns (left to right) are labelled red, orange, green, brown, "
            "blue", high=1, shape=(MARKET_W, MARKET_W, 2, NUM_COLOURS))
    lay.add("STACK_N", 1, "pieces in the face-down stack", high=MAX_STACK,
            range_doc=f"0..{MAX_STACK} (the stack holds " + " / ".join(str(STACK_SIZE[k]) for k in sorted(STACK_SIZE))
            + " pieces at 2 / 3 / 4 players)")
    lay.add("NEXT_VP", 1, "value of the next VP tile (0 once all 7 are taken)", high=max(VP_TILES))
    lay.add("END", 2, "[0] the end is triggered; [1] the last round is being played", high=1)
    lay.add("ACTIONS_LEFT", 1, "actions the turn owner still takes this turn, the current one included (0 at the "
            "end)", high=4,
            range_doc="0..4 (2 a turn, one more for the 10th worker and for each barrel bought; check_state's bound)")
    lay.add("ROUND", 2, "rounds completed: [0] hundreds, [1] the rest (``v // 100``, ``v % 100``)",
            high=[10_000 // 100, 99], shape=(2,),
            range_doc=f"hundreds 0..100, rest 0..99 (at most ``max_rounds``, 1..10000, {DEFAULT_MAX_ROUNDS} by "
            "default; never clipped)")
    lay.add("PHASE", NUM_PHASES, "one-hot: the kind of the pending decision, in the order " + ", ".join(PHASE_NAMES)
            + " (all zero at the end)", high=1)
    lay.add("ACT", len(ACTION_KINDS), "one-hot: the action in progress, in the order " + ", ".join(ACTION_KINDS)
            + " (all zero between actions and at the end; `exchange` and `refill` show the action they follow)",
            high=1)
    lay.add("PAY_SUPPLY", 2 * NUM_COLOURS, "``[c, k]`` (entry ``2 c + k``): goods of colour c the payment so far "
            "sends to the supply, k = 0 hundreds, k = 1 the rest; during a travel payment a colour's total stands "
            "here until what the players receive of it is decided; the stall choices are not applied here (see "
            "STALLS_DONE)", high=np.tile([amax // 100, 99], NUM_COLOURS), shape=(NUM_COLOURS, 2),
            range_doc=f"hundreds 0..{amax // 100}, rest 0..99 (a colour's payment is at most {amax}, the largest "
            "amount a travel payment decision offers; never clipped)")
    lay.add("PAY_SEATS", 2 * NUM_COLOURS * n, "``[rel, c, k]`` (entry ``12 rel + 2 c + k``): goods of colour c the "
            "payment so far sends to seat ``rel``: k = 0 hundreds, k = 1 the rest (the payer's own row is 0)",
            high=np.tile([amax // 100, 99], NUM_COLOURS * n), shape=(n, NUM_COLOURS, 2),
            range_doc=f"hundreds 0..{amax // 100}, rest 0..99 (as PAY_SUPPLY)")
    lay.add("AMOUNT", amount_size(n), "the travel payment's amount being decided (`pay`; zero otherwise): [0] 1 "
            "when it is the payer's total of a colour, [1] 1 when it is what one other player receives of it; "
            "[2 + c] the colour c one-hot; [8 + rel] the receiving seat ``rel`` one-hot (only with [1])", high=1)
    lay.add("STALL", NUM_COLOURS, "one-hot: the colour of the payer's market stall deciding now (`stall`)", high=1)
    lay.add("STALLS_DONE", NUM_COLOURS * sd, "``[s, k]`` (entry ``(8 + n) s + k``): the decision of the payer's "
            "stall of colour s so far in this stall stage (all zero until it is decided): k = 0 decided; k = 1 + x "
            "1 when it replaces a paid good of colour x (none: it replaces nothing); k = 7 that good was paid to "
            "the supply, k = 8 + rel to seat ``rel`` (rows of colours the payer has no stall of, or whose stall has "
            "not decided yet, are 0)", high=1, shape=(NUM_COLOURS, sd))
    lay.add("SLOT", MARKET_SLOTS, "one-hot: the market slot being bought, ``5 row + col``", high=1)
    lay.add("SPLIT", 1, "goods of the row's colour chosen for the purchase (0 before)", high=MAX_SPLIT,
            range_doc=f"0..{MAX_SPLIT} (a piece costs at most {max(EQUIP_COST)} goods)")
    lay.add("OWNER", n, "one-hot: the seat to move, relative (the turn owner: it takes every decision of its "
            "turn; during setup the seat placing its starting worker); all zero at the end", high=1)
    lay.add("START", n, "one-hot: the start seat, relative", high=1)
    return lay


OBS = per_count(_obs_layout, range(2, MAX_PLAYERS + 1))
OBS_BLOCKS = tuple(OBS[2].names())
OBS_OFF = offsets_table(OBS, OBS_BLOCKS)
(O_FIELD_COLOUR, O_FIELD_WORKER, O_FIELD_BUILDING, O_PATH_STEP, O_FIELD_FLAGS, O_GOODS, O_EQUIPMENT, O_WORKERS,
 O_BUILT, O_VP_TILES, O_MARKET, O_STACK_N, O_NEXT_VP, O_END, O_ACTIONS_LEFT, O_ROUND, O_PHASE, O_ACT, O_PAY_SUPPLY,
 O_PAY_SEATS, O_AMOUNT, O_STALL, O_STALLS_DONE, O_SLOT, O_SPLIT, O_OWNER, O_START) = range(len(OBS_BLOCKS))
OBS_HIGH = 127


def obs_len(n: int) -> int:
    return OBS[n].size


__doc__ = (__doc__ or "").replace("{STATE_TABLE}", ST.table()).replace("{OBS_TABLE}", table_by_count(OBS))
