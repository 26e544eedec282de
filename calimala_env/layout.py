"""Calimala: component data, the city grid, the action encoding and the state / observation layouts.

Everything marked **RECONSTRUCTION** is printed on a component that no source we have gives (see
``docs/rules/calimala.md``). Each such value lives in exactly one table below, so the printed value
can replace it without touching the rules.

City grid
---------
Nine cells, named by column letter and row number (row 1 on top); ``cell = 3 * row + col``::

        a     b     c
    1  [0]---[1]---[2]        each "---" / "|" is a street: an action space between
        |     |     |         two orthogonally adjacent cells (12 in all)
    2  [3]---[4]---[5]
        |     |     |         the centre cell (b2) shows the action printed on the board
    3  [6]---[7]---[8]

Streets (action spaces), index: name::

    0 a1-b1   1 b1-c1   2 a2-b2   3 b2-c2   4 a3-b3   5 b3-c3      (horizontal)
    6 a1-a2   7 a2-a3   8 b1-b2   9 b2-b3  10 c1-c2  11 c2-c3      (vertical)

A disc placed on a street activates the actions of its two cells.

Identifiers
-----------
Actions (and action cards): 0 Wood, 1 Brick, 2 Marble, 3 Weave, 4 Ship, 5 Build, 6 Artwork,
7 Transport, 8 Contribute. Resources 0..2 are the actions Wood, Brick, Marble. Cities: 0 Barcelona,
1 Lisbon, 2 London (ports), 3 Troyes, 4 Bruges, 5 Hamburg (trade cities; trade city ``t`` is city
``3 + t``). Buildings: 0 Santa Maria del Fiore, 1 San Miniato, 2 Santa Croce (the churches under
construction), 3 Palazzo Vecchio (the city council; artwork slots only). Scoring categories 0..15:
the 15 scoring tiles (:data:`TILE_NAMES`) and 15 = Palazzo Vecchio (final card only).

State layout (int64; the first 8 slots are the shared header of :mod:`gamecore.kernel.protocol`)
------------------------------------------------------------------------------------------------
``H_OWNER`` is the seat whose turn it is (during setup: the seat choosing), ``H_CURRENT`` the seat
deciding now (the owner of the disc being activated), ``H_PHASE`` the kind of decision
(:data:`PHASE_NAMES`).

{STATE_TABLE}
"""

from __future__ import annotations

import numpy as np

from gamecore.kernel.header import state_layout
from gamecore.kernel.layout import Layout, offsets_table, per_count

# =============================================================================================
# Component data
# =============================================================================================
ACTION_NAMES = ("Wood", "Brick", "Marble", "Weave", "Ship", "Build", "Artwork", "Transport", "Contribute")
NUM_TYPES = 9
WOOD, BRICK, MARBLE, WEAVE, SHIP, BUILD, ARTWORK, TRANSPORT, CONTRIBUTE = range(NUM_TYPES)
RESOURCE_NAMES = ("wood", "brick", "marble")
NUM_RES = 3

CITY_NAMES = ("Barcelona", "Lisbon", "London", "Troyes", "Bruges", "Hamburg")
NUM_CITIES = 6
NUM_PORTS = 3  # cities 0..2
NUM_TRADE = 3  # cities 3..5
FIRST_TRADE = 3
CITY_SLOTS = 12  # delivery slots per city

BUILDING_NAMES = ("Santa Maria del Fiore", "San Miniato", "Santa Croce", "Palazzo Vecchio")
NUM_BUILDINGS = 4  # artwork targets: 3 churches + the council
NUM_CHURCHES = 3
COUNCIL = 3  # building index of Palazzo Vecchio

# RECONSTRUCTION: the centre cell's printed action.
CENTRE_ACTION = CONTRIBUTE
# RECONSTRUCTION: the "first game" arrangement of the action tiles, row by row (a1 b1 c1 / ...).
FIRST_GAME_LAYOUT = ("Wood", "Weave", "Brick", "Ship", "Contribute", "Transport", "Marble", "Artwork", "Build")

# RECONSTRUCTION: the split of the 45 action cards (5 of each action).
CARD_COPIES = (5, 5, 5, 5, 5, 5, 5, 5, 5)
NUM_CARDS = 45
# the start cards laid out face up (one copy each of these actions; part of the 45)
START_CARDS = (WOOD, BRICK, MARBLE, WEAVE, BUILD)
NUM_START = 5

# RECONSTRUCTION: each church's contribution slots per resource (wood, brick, marble); only the
# totals (15, 9, 12) are printed in the rulebook.
CHURCH_SLOT_TABLE = ((5, 5, 5), (3, 3, 3), (4, 4, 4))
# artwork slots: Santa Maria del Fiore 5, San Miniato 3, Santa Croce 4, the council 4
ART_SLOT_TABLE = (5, 3, 4, 4)

# Scoring tiles (one per category), shuffled onto the 15 council seats.
TILE_NAMES = (
    "Barcelona", "Lisbon", "London", "Troyes", "Bruges", "Hamburg",
    "Santa Maria del Fiore", "San Miniato", "Santa Croce",
    "Artwork", "Port cities", "Trade cities",
    "Contributed wood", "Contributed brick", "Contributed marble",
)
NUM_TILES = 15
NUM_SEATS = 15
CAT_SMDF, CAT_SM, CAT_SC = 6, 7, 8
CAT_ARTWORK, CAT_PORTS, CAT_TRADE = 9, 10, 11
CAT_WOOD = 12  # 12 + resource
CAT_PALAZZO = 15
CATEGORY_NAMES = TILE_NAMES + ("Palazzo Vecchio",)
# RECONSTRUCTION (drawing only): the council's seats in rows of 5, top row first.
COUNCIL_ROW = 5

# Final scoring cards: the 6 cities and the 4 buildings; SCORING_CARD_CATEGORY maps each to its category.
SCORING_CARD_NAMES = CITY_NAMES + ("Palazzo Vecchio", "Santa Croce", "Santa Maria del Fiore", "San Miniato")
SCORING_CARD_CATEGORY_TABLE = (0, 1, 2, 3, 4, 5, CAT_PALAZZO, CAT_SC, CAT_SMDF, CAT_SM)
NUM_SCORING_CARDS = 10

COUNCIL_POINTS = (3, 2, 1)
FINAL_POINTS = (5, 3, 1)

# Per player: 40 cubes, 3 ships, 3 trade houses, 1 printed workshop + 2 workshop tiles.
CUBES = 40
MAX_SHIPS = 3
MAX_HOUSES = 3
MAX_WORKSHOPS = 3
WORKSHOP_CAP = 4
WAREHOUSE_CAP = 4

MIN_PLAYERS = 3
MAX_PLAYERS = 5
# discs per player count: (coloured, white) each
DISCS = {3: (12, 3), 4: (10, 2), 5: (8, 2)}
# scoring cards per player count: (dealt to each player, face up by the board, out of the game)
SCORING_DEAL = {3: (3, 1, 0), 4: (2, 1, 1), 5: (2, 0, 0)}
MAX_DEALT = 3

# =============================================================================================
# Derived tables (read-only: numba freezes module arrays as constants)
# =============================================================================================
NUM_CELLS = 9
CENTRE = 4
CELL_NAMES = tuple("abc"[c % 3] + str(c // 3 + 1) for c in range(NUM_CELLS))
STREET_CELLS_LIST = (
    (0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (7, 8),
    (0, 3), (3, 6), (1, 4), (4, 7), (2, 5), (5, 8),
)
NUM_SPACES = 12
STREET_NAMES = tuple(f"{CELL_NAMES[a]}-{CELL_NAMES[b]}" for a, b in STREET_CELLS_LIST)
OUTER_CELLS = tuple(c for c in range(NUM_CELLS) if c != CENTRE)
MAX_STACK = 4

STREET_CELLS = np.array(STREET_CELLS_LIST, dtype=np.int64)
CHURCH_SLOTS = np.array(CHURCH_SLOT_TABLE, dtype=np.int64)
CHURCH_RES_SLOTS = CHURCH_SLOTS.sum(axis=0)  # per resource over the 3 churches
ART_SLOTS = np.array(ART_SLOT_TABLE, dtype=np.int64)
ART_TOTAL = int(ART_SLOTS.sum())
SCORING_CARD_CATEGORY = np.array(SCORING_CARD_CATEGORY_TABLE, dtype=np.int64)
CARD_COUNT = np.array(CARD_COPIES, dtype=np.int64)
START_TYPES = np.array(START_CARDS, dtype=np.int64)
COUNCIL_PTS = np.array(COUNCIL_POINTS, dtype=np.int64)
FINAL_PTS = np.array(FINAL_POINTS, dtype=np.int64)
DISC_COLOURED = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
DISC_WHITE = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
DEAL_EACH = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
DEAL_UP = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
DEAL_OUT = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
for _n, (_c, _w) in DISCS.items():
    DISC_COLOURED[_n], DISC_WHITE[_n] = _c, _w
for _n, (_e, _u, _o) in SCORING_DEAL.items():
    DEAL_EACH[_n], DEAL_UP[_n], DEAL_OUT[_n] = _e, _u, _o
    assert _n * _e + _u + _o == NUM_SCORING_CARDS
assert int(CARD_COUNT.sum()) == NUM_CARDS
#: SPACE_TYPES_OF[layout cells...] is computed per game from the layout in the state
for _a in (STREET_CELLS, CHURCH_SLOTS, CHURCH_RES_SLOTS, ART_SLOTS, SCORING_CARD_CATEGORY, CARD_COUNT, START_TYPES,
           COUNCIL_PTS, FINAL_PTS, DISC_COLOURED, DISC_WHITE, DEAL_EACH, DEAL_UP, DEAL_OUT):
    _a.setflags(write=False)

# =============================================================================================
# Decision kinds (H_PHASE)
# =============================================================================================
PHASE_NAMES = (
    "place",        # 0 choose disc (coloured / white) and street
    "activate",     # 1 take a pending action, play a card, or end the activation
    "ship",         # 2 choose the port city of the next ship, or stop
    "transport",    # 3 choose the trade city of the next trade house, or stop
    "build",        # 4 choose what to build
    "artwork",      # 5 choose the building of the artwork
    "contribute",   # 6 choose resource and church
    "promote",      # 7 white 4th disc, no coloured disc in reserve: choose which own disc moves to the council
    "keep",         # 8 setup: keep one dealt scoring card
    "start_card",   # 9 setup: take a start card
)
(PH_PLACE, PH_ACTIVATE, PH_SHIP, PH_TRANSPORT, PH_BUILD, PH_ARTWORK, PH_CONTRIBUTE, PH_PROMOTE, PH_KEEP,
 PH_START) = range(len(PHASE_NAMES))
NUM_PHASES = len(PHASE_NAMES)

# stack entries: 0 empty, 1 + p coloured disc of p, WHITE_BASE + p white disc placed by p
WHITE_BASE = 1 + MAX_PLAYERS
# council seat entries: 0 not scored yet, 1 scored without a seat, 2 + p seat of p
SEAT_NONE = 0
SEAT_EMPTY = 1
SEAT_BASE = 2

# =============================================================================================
# State layout
# =============================================================================================
P = MAX_PLAYERS
ST = state_layout()
START = ST.add("START", 1, "start seat (rounds begin with it)")
LAYOUT = ST.add("LAYOUT", NUM_CELLS, "``LAYOUT + cell``: action shown on the cell")
TILES = ST.add("TILES", NUM_SEATS, "``TILES + k``: scoring tile (category) on council seat k, in scoring order")
SEAT = ST.add("SEAT", NUM_SEATS, "``SEAT + k``: 0 not scored yet, 1 scored without a seat, 2 + p seat of p")
NEXT_SEAT = ST.add("NEXT_SEAT", 1, "council seats scored so far (the next seat to fill)")
END_TRIGGERED = ST.add("END_TRIGGERED", 1, "1 once all 15 tiles are scored (the round is finished)")
COUNCIL_ART = ST.add("COUNCIL_ART", ART_SLOT_TABLE[COUNCIL], "``COUNCIL_ART + i``: 0 empty, 1 + p owner of the "
                     "i-th council artwork (in the order they were made)")
ART = ST.add("ART", NUM_BUILDINGS * P, "``ART + 5 b + p``: artworks of p on building b", shape=(NUM_BUILDINGS, P))
CONTRIB = ST.add("CONTRIB", NUM_CHURCHES * NUM_RES * P, "``CONTRIB + 15 b + 5 r + p``: cubes of resource r p "
                 "contributed to church b", shape=(NUM_CHURCHES, NUM_RES, P))
CITY = ST.add("CITY", NUM_CITIES * P, "``CITY + 5 c + p``: cloth p delivered to city c", shape=(NUM_CITIES, P))
HOUSE = ST.add("HOUSE", NUM_TRADE * P, "``HOUSE + 5 t + p``: 1 if p has a trade house in trade city t",
               shape=(NUM_TRADE, P))
CITY_USED = ST.add("CITY_USED", NUM_CITIES, "cloth delivered to city c by all players (kept with CITY)")
CONTRIB_USED = ST.add("CONTRIB_USED", NUM_CHURCHES * NUM_RES, "``+ 3 b + r``: cubes of resource r in church b, "
                      "all players (kept with CONTRIB)")
ART_USED = ST.add("ART_USED", NUM_BUILDINGS, "artworks on building b, all players (kept with ART)")
WH = ST.add("WH", P * NUM_RES, "``WH + 3 p + r``: cubes in p's warehouse of resource r (0..4)", shape=(P, NUM_RES))
CLOTH = ST.add("CLOTH", P * MAX_WORKSHOPS, "``CLOTH + 3 p + w``: cloth in p's workshop w (0..4)",
               shape=(P, MAX_WORKSHOPS))
WORKSHOPS = ST.add("WORKSHOPS", P, "workshops p has (1 printed + tiles built)")
SHIPS = ST.add("SHIPS", P, "ships p has built")
RESERVE = ST.add("RESERVE", P, "cubes in p's reserve")
COLOURED = ST.add("COLOURED", P, "coloured discs in p's reserve")
WHITE = ST.add("WHITE", P, "white discs in p's reserve")
PLACED = ST.add("PLACED", P, "discs p has placed on the grid")
COL_OUT = ST.add("COL_OUT", P, "p's coloured discs removed from the game (4th discs after the end was triggered)")
WHITE_OUT = ST.add("WHITE_OUT", 1, "white discs out of the game")
SEATS = ST.add("SEATS", P, "council seats p holds")
VP = ST.add("VP", P, "victory points of p")
STACK = ST.add("STACK", NUM_SPACES * MAX_STACK, "``STACK + 4 s + i``: i-th disc from the bottom on street s: "
               "0 empty, 1 + p coloured of p, 6 + p white placed by p", shape=(NUM_SPACES, MAX_STACK))
STACK_N = ST.add("STACK_N", NUM_SPACES, "discs on street s")
HAND = ST.add("HAND", P * NUM_TYPES, "``HAND + 9 p + t``: action cards of type t in p's hand (hidden)",
              shape=(P, NUM_TYPES))
KNOWN = ST.add("KNOWN", P * NUM_TYPES, "``KNOWN + 9 p + t``: of those, how many every seat knows p holds "
               "(start cards taken face up, minus the ones played since); public", shape=(P, NUM_TYPES))
DECK = ST.add("DECK", NUM_CARDS, "``DECK + i``: type of the i-th card from the bottom of the face-down deck "
              "(top = DECK_N - 1); unused slots 0. Hidden")
DECK_N = ST.add("DECK_N", 1, "cards in the deck")
DISCARD = ST.add("DISCARD", NUM_TYPES, "face-up discard pile: cards of each type")
START_LEFT = ST.add("START_LEFT", NUM_START, "1 while start card i (Wood, Brick, Marble, Weave, Build) is on "
                    "the table")
DEALT = ST.add("DEALT", P * MAX_DEALT, "``DEALT + 3 p + j``: 1 + the j-th scoring card dealt to p (0 none); hidden "
               "from the other seats", shape=(P, MAX_DEALT))
KEPT = ST.add("KEPT", P, "1 + the index j of the dealt card p kept (0 before the choice); hidden")
FACE_UP = ST.add("FACE_UP", 1, "1 + the face-up scoring card (0 none, 5 players)")
OUT_CARD = ST.add("OUT_CARD", 1, "1 + the scoring card put back unseen (4 players), else 0; hidden")
SETUP_I = ST.add("SETUP_I", 1, "setup choices taken in the current setup phase")
SPACE = ST.add("SPACE", 1, "street of the current turn")
ACT_N = ST.add("ACT_N", 1, "activations of the current turn (1..3)")
ACT_I = ST.add("ACT_I", 1, "current activation (0 = the placing player's)")
ACT_OWNER = ST.add("ACT_OWNER", 3, "owner of each activated disc, top first")
ACT_TIMES = ST.add("ACT_TIMES", 3, "how often each action of each activation may be taken (2 for a white top disc)")
PENDING = ST.add("PENDING", 2, "``PENDING + k``: times the action of the street's k-th cell is still pending in "
                 "the current activation")
OBLIG = ST.add("OBLIG", 1, "1 while the placing player has not yet carried out one of the street's actions")
EXEC_KIND = ST.add("EXEC_KIND", 1, "action being carried out in a ship / transport / build / artwork / "
                   "contribute decision")
EXEC_CARD = ST.add("EXEC_CARD", 1, "1 if that action comes from a played card, 0 from the street")
EXEC_USED = ST.add("EXEC_USED", 1, "ship: ships used so far; transport: bit t set once trade city t was served; "
                   "promote: 1 + 3 street + depth of the chosen disc, set and used within one decision")
TURNS = ST.add("TURNS", 1, "turns finished so far")
STATE_LEN = ST.size

# =============================================================================================
# Params vector
# =============================================================================================
P_PLAYERS = 0
P_START = 1
P_LAYOUT = 2  # 9 slots: the action of each cell, or -1 in P_LAYOUT for a random layout
PARAMS_LEN = P_LAYOUT + NUM_CELLS

# =============================================================================================
# Actions
# =============================================================================================
AC = Layout("actions")
A_KEEP = AC.add("KEEP", NUM_SCORING_CARDS, "``A_KEEP + c``: keep dealt scoring card c")
A_START = AC.add("START", NUM_START, "``A_START + i``: take start card i (Wood, Brick, Marble, Weave, Build)")
A_PLACE = AC.add("PLACE", 2 * NUM_SPACES, "``A_PLACE + 2 s + w``: place a coloured (w = 0) / white (w = 1) disc on "
                 "street s")
A_RESOLVE = AC.add("RESOLVE", NUM_TYPES, "``A_RESOLVE + t``: take the pending street action t (if it cannot be "
                   "carried out at all: draw a card instead)")
A_CARD = AC.add("CARD", NUM_TYPES, "``A_CARD + t``: play an action card of type t")
A_END = AC.add("END", 1, "end the activation (feasible pending actions are skipped, impossible ones give a card)")
A_SHIP = AC.add("SHIP", NUM_PORTS, "``A_SHIP + c``: the next ship takes 1 cloth to port city c")
A_TRANSPORT = AC.add("TRANSPORT", NUM_TRADE, "``A_TRANSPORT + t``: 1 cloth to trade city t (own trade house there)")
A_STOP = AC.add("STOP", 1, "stop shipping / transporting")
A_BUILD = AC.add("BUILD", 2 + NUM_TRADE, "``A_BUILD + 0``: a ship, ``+ 1``: a workshop, ``+ 2 + t``: a trade "
                 "house in trade city t")
A_ARTWORK = AC.add("ARTWORK", NUM_BUILDINGS, "``A_ARTWORK + b``: 1 marble to an artwork slot of building b")
A_CONTRIB = AC.add("CONTRIB", NUM_RES * NUM_CHURCHES, "``A_CONTRIB + 3 r + b``: 1 cube of resource r to church b")
A_PROMOTE = AC.add("PROMOTE", NUM_SPACES * 3, "``A_PROMOTE + 3 s + d``: move the own coloured disc d-th from the "
                   "top of street s to the council (white 4th disc, no coloured disc in reserve)")
NUM_ACTIONS = AC.size
BUILD_SHIP = 0
BUILD_WORKSHOP = 1
BUILD_HOUSE = 2

# =============================================================================================
# Observation (flat int8; seat blocks are seat-relative, the observer's first)
# =============================================================================================
_ACTION_ORDER = ", ".join(f"{t} {name}" for t, name in enumerate(ACTION_NAMES))
_SCORING_CARD_ORDER = ", ".join(f"{c} {name}" for c, name in enumerate(SCORING_CARD_NAMES))
_TILE_ORDER = ", ".join(f"{c} {name}" for c, name in enumerate(TILE_NAMES))
_CELL_ORDER = " ".join(CELL_NAMES)
_STREET_ORDER = ", ".join(f"{s} {name}" for s, name in enumerate(STREET_NAMES))
_PHASE_ORDER = ", ".join(f"{k} {name}" for k, name in enumerate(PHASE_NAMES))
_START_ORDER = ", ".join(ACTION_NAMES[t] for t in START_CARDS)

SEAT_FIELDS = (
    ("wh", NUM_RES, "warehouse cubes: wood, brick, marble"),
    ("cloth", MAX_WORKSHOPS, "cloth in workshop 1 (printed), 2, 3 (tiles, in the order built; 0 while not built)"),
    ("workshops", 1, "workshops built (1..3)"),
    ("ships", 1, "ships built"),
    ("houses", NUM_TRADE, "1 per trade city (Troyes, Bruges, Hamburg) where the seat has a trade house"),
    ("reserve", 1, "cubes in reserve"),
    ("coloured", 1, "coloured discs in reserve"),
    ("white", 1, "white discs in reserve"),
    ("placed", 1, "discs placed so far (one per turn the seat has played)"),
    ("hand_count", 1, "action cards in hand (public)"),
    ("known", NUM_TYPES, "by action (the action order): of the cards in this seat's hand, how many every seat knows "
     "it holds: the start card it took face up during setup (one of " + _START_ORDER + "), until it plays a card "
     "of that action (a known card is played first). At most one 1 per seat; cards drawn are never known. For "
     "the observer its own full hand is MY_HAND"),
    ("vp", 1, "victory points"),
    ("seats", 1, "council seats held"),
    ("cities", NUM_CITIES, "cloth delivered to each city (Barcelona, Lisbon, London, Troyes, Bruges, Hamburg)"),
    ("contrib", NUM_CHURCHES * NUM_RES, "``3 b + r``: cubes of resource r (wood, brick, marble) contributed to "
     "church b (Santa Maria del Fiore, San Miniato, Santa Croce)"),
    ("art", NUM_BUILDINGS, "artworks on each building (Santa Maria del Fiore, San Miniato, Santa Croce, "
     "Palazzo Vecchio = the council)"),
)
SEAT_OFF = {}
_o = 0
for _name, _size, _m in SEAT_FIELDS:
    SEAT_OFF[_name] = _o
    _o += _size
OBS_SEAT = _o
(OS_WH, OS_CLOTH, OS_WORKSHOPS, OS_SHIPS, OS_HOUSES, OS_RESERVE, OS_COLOURED, OS_WHITE, OS_PLACED, OS_HAND_COUNT,
 OS_KNOWN, OS_VP, OS_SEATS, OS_CITIES, OS_CONTRIB, OS_ART) = (SEAT_OFF[f[0]] for f in SEAT_FIELDS)
OBS_DISC = 2 + MAX_PLAYERS  # per stack position: occupied, white, owner one-hot (relative, 5)


def max_vp(n: int) -> int:
    """The most VP a seat can have at ``n`` players, from the rules: VP come only from scorings
    (:func:`calimala_env.rules.scoring.award`), in which a seat's share is never more than the first place's points
    (tied seats split the points of the places they occupy, rounded down); the 15 council tiles
    are scored once each (3 for the first place) and the final cards once at the end (5 for the
    first place): each seat's kept card plus, with 3 or 4 players, the face-up card. So
    ``15 x 3 + 5 x (n + face-up cards)``: 65 / 70 / 70 at 3 / 4 / 5 players, reached by a seat that
    comes first alone in every scoring. Under 127: the int8 entry never saturates."""
    return NUM_TILES * COUNCIL_POINTS[0] + FINAL_POINTS[0] * (n + SCORING_DEAL[n][1])


def _seat_block_doc() -> str:
    return "; ".join(f"``+{SEAT_OFF[name]}`` {name}: {meaning}" for name, _s, meaning in SEAT_FIELDS)


def seat_field_high(n: int) -> dict[str, np.ndarray]:
    """The largest value of each entry of a seat block's fields at ``n`` players, from the rules:
    the warehouse and workshop caps, 3 workshops / ships, 40 cubes, the discs (a seat takes into its
    reserve the white discs its placements push off, each for one of its coloured discs: at most
    every white disc of the game in reserve, and ``2 * coloured + white`` placements), the 45 cards,
    one known card per start card, the VP bound :func:`max_vp`, the 15 council seats, 12 delivery
    slots per city, and each church's and building's slots."""
    coloured, white = DISCS[n]
    one = np.ones(1, dtype=np.int64)
    return {
        "wh": np.full(NUM_RES, WAREHOUSE_CAP),
        "cloth": np.full(MAX_WORKSHOPS, WORKSHOP_CAP),
        "workshops": one * MAX_WORKSHOPS,
        "ships": one * MAX_SHIPS,
        "houses": np.ones(NUM_TRADE, dtype=np.int64),
        "reserve": one * CUBES,
        "coloured": one * coloured,
        "white": one * (white * n),
        "placed": one * (2 * coloured + white),
        "hand_count": one * NUM_CARDS,
        "known": np.ones(NUM_TYPES, dtype=np.int64),
        "vp": one * max_vp(n),
        "seats": one * NUM_SEATS,
        "cities": np.full(NUM_CITIES, CITY_SLOTS),
        "contrib": np.array(CHURCH_SLOT_TABLE, dtype=np.int64).reshape(-1),  # 3 b + r
        "art": np.array(ART_SLOT_TABLE, dtype=np.int64),
    }


def _seat_high(n: int) -> np.ndarray:
    fields = seat_field_high(n)
    high = np.concatenate([fields[name] for name, _s, _m in SEAT_FIELDS])
    assert high.shape == (OBS_SEAT,)
    return high


def _seat_range_doc() -> str:
    by_count = {n: seat_field_high(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
    parts = []
    for name, _s, _m in SEAT_FIELDS:
        values = [by_count[n][name] for n in sorted(by_count)]
        if name == "contrib":
            text = "0.." + " / ".join(str(x[0]) for x in CHURCH_SLOT_TABLE) + " by church (its slots per resource)"
        elif name == "art":
            text = "0.." + " / ".join(map(str, ART_SLOT_TABLE)) + " by building (its artwork slots)"
        elif name == "vp":
            text = ("0.." + " / ".join(str(max_vp(n)) for n in sorted(by_count)) + " (3 / 4 / 5 players: at most "
                    f"{COUNCIL_POINTS[0]} from each of the {NUM_TILES} council tiles and {FINAL_POINTS[0]} from each "
                    "final card, the kept ones and the face-up one; never 127, so never clipped)")
        elif all(np.array_equal(v, values[0]) for v in values):
            text = f"0..{int(values[0].max())}"
        else:
            text = "0.." + " / ".join(str(int(v[0])) for v in values) + " (3 / 4 / 5 players)"
        parts.append(f"{name} {text}")
    return "; ".join(parts)


def _obs_layout(n: int) -> Layout:
    lay = Layout(f"observation, {n} players")
    lay.add("SEATS", OBS_SEAT * n, f"row ``rel`` ({OBS_SEAT} entries, at ``{OBS_SEAT} rel``) shows seat ``(me + rel) "
            "mod n`` (the observer's own row first): " + _seat_block_doc(), high=np.tile(_seat_high(n), n),
            range_doc=_seat_range_doc(), shape=(n, OBS_SEAT))
    lay.add("MY_HAND", NUM_TYPES, f"my action cards of each action ({_ACTION_ORDER})", high=CARD_COUNT,
            range_doc=f"0..{max(CARD_COPIES)} (the cards of the action)")
    lay.add("MY_DEALT", NUM_SCORING_CARDS, "1 for each scoring card dealt to me (scoring cards: "
            f"{_SCORING_CARD_ORDER})", high=1)
    lay.add("MY_KEPT", NUM_SCORING_CARDS, "one-hot: the scoring card I kept (same order; all 0 before my keep "
            "decision)", high=1)
    lay.add("FACE_UP", NUM_SCORING_CARDS, "one-hot: the face-up scoring card (same order; 3 and 4 players, all 0 "
            "with 5)", high=1)
    lay.add("LAYOUT", NUM_CELLS * NUM_TYPES, f"``9 cell + t``: 1 if the cell (row by row: {_CELL_ORDER}) shows "
            "action t (the action order)", high=1, shape=(NUM_CELLS, NUM_TYPES))
    lay.add("STACKS", NUM_SPACES * MAX_STACK * OBS_DISC, f"``{MAX_STACK * OBS_DISC} s + {OBS_DISC} i + k``: i-th "
            f"disc from the bottom of street s ({_STREET_ORDER}): k = 0: 1 if there is one; k = 1: 1 if it is white; "
            f"k = 2 + rel: 1 for its owner (relative; a white disc: the seat that placed it); k = 2 + n .. "
            f"{OBS_DISC - 1} stay 0 below 5 players", high=1, shape=(NUM_SPACES, MAX_STACK, OBS_DISC))
    lay.add("STACK_N", NUM_SPACES, "discs on each street (street order)", high=MAX_STACK)
    lay.add("TILES", NUM_SEATS * NUM_TILES, f"``15 k + c``: 1 if council seat k (in scoring order) shows scoring "
            f"tile c ({_TILE_ORDER})", high=1, shape=(NUM_SEATS, NUM_TILES))
    lay.add("SEAT_OWNER", NUM_SEATS * (1 + n), "``(n + 1) k + j``: council seat k was scored without a seat (j = 0) "
            "or is held by seat rel = j - 1; the row is all 0 while seat k is not scored yet", high=1,
            shape=(NUM_SEATS, 1 + n))
    lay.add("NEXT_SEAT", NUM_SEATS + 1, "one-hot: council seats scored so far (entry 15 = all, the end is "
            "triggered)", high=1)
    lay.add("COUNCIL_ART", ART_SLOT_TABLE[COUNCIL] * n, "``n i + rel``: 1 for the owner (relative) of the i-th "
            "council artwork in the order made; row i all 0 while that slot is free", high=1,
            shape=(ART_SLOT_TABLE[COUNCIL], n))
    lay.add("DISCARD", NUM_TYPES, "face-up discard pile: cards of each action (the action order)", high=CARD_COUNT,
            range_doc=f"0..{max(CARD_COPIES)} (the cards of the action)")
    lay.add("DECK_N", 1, "cards in the face-down deck", high=NUM_CARDS, range_doc=f"0..{NUM_CARDS} (all the cards)")
    lay.add("START_LEFT", NUM_START, f"1 for each start card still on the table ({_START_ORDER})", high=1)
    lay.add("PHASE", NUM_PHASES, f"one-hot: the kind of decision pending ({_PHASE_ORDER}); all 0 once the game "
            "is over", high=1)
    lay.add("OWNER", n, "one-hot: seat whose turn it is (relative; during setup the seat choosing); all 0 once "
            "the game is over", high=1)
    lay.add("CURRENT", n, "one-hot: seat deciding now (relative); all 0 once the game is over", high=1)
    lay.add("START", n, "one-hot: start seat (relative; still shown once the game is over)", high=1)
    lay.add("SPACE", NUM_SPACES, "one-hot: street of the current turn (street order); all 0 outside a turn's "
            "activations (place, keep, start_card decisions, game over)", high=1)
    lay.add("PENDING", NUM_TYPES, "by action (the action order): times each of the street's two actions is still "
            "pending in the current activation (other actions 0)", high=2,
            range_doc="0..2 (twice each action for a white top disc)")
    lay.add("ACT", 3 * (1 + n), "``(n + 1) i + j``: activation i of this turn (i = 0 the placed disc, then the 2nd "
            "and 3rd discs from the top if coloured): j = 0: 1 for the activation running now (the last one in a "
            "promote decision); j = 1 + rel: 1 for its owner (relative); rows past the turn's activations all 0. "
            "How often it may take each action: twice for i = 0 if the top disc of SPACE's street is white, "
            "else once", high=1, shape=(3, 1 + n))
    lay.add("OBLIG", 1, "1 while the placing player still has to carry out one of the street's actions (its "
            "duty; only in activation 0)", high=1)
    lay.add("EXEC", NUM_TYPES, "one-hot by action (the action order): the action being carried out in a ship / "
            "transport / build / artwork / contribute decision (Ship, Transport, Build, Artwork, Contribute "
            "respectively); all 0 in other decisions", high=1)
    lay.add("EXEC_CARD", 1, "1 if that action comes from a played card, 0 from the street (or no such "
            "decision)", high=1)
    lay.add("EXEC_USED", NUM_TRADE, "in a ship decision, ships used so far in unary: entry i is 1 once i + 1 ships "
            "of this Ship action have sailed; in a transport decision, entry t is 1 once trade city t "
            "(Troyes, Bruges, Hamburg) was served by this Transport action; all 0 in other decisions",
            high=1, range_doc="0..1 (bits)")
    lay.add("END", 1, "1 once all 15 tiles are scored (the last round: the game ends before the start seat "
            "would place again)", high=1)
    return lay


OBS = per_count(_obs_layout, range(MIN_PLAYERS, MAX_PLAYERS + 1))
OBS_BLOCKS = tuple(OBS[MIN_PLAYERS].names())
OBS_OFF = offsets_table(OBS, OBS_BLOCKS)
(O_SEATS, O_MY_HAND, O_MY_DEALT, O_MY_KEPT, O_FACE_UP, O_LAYOUT, O_STACKS, O_STACK_N, O_TILES, O_SEAT_OWNER,
 O_NEXT_SEAT, O_COUNCIL_ART, O_DISCARD, O_DECK_N, O_START_LEFT, O_PHASE, O_OWNER, O_CURRENT, O_START, O_SPACE,
 O_PENDING, O_ACT, O_OBLIG, O_EXEC, O_EXEC_CARD, O_EXEC_USED, O_END) = range(len(OBS_BLOCKS))
assert len(OBS_BLOCKS) == 27


def obs_len(n: int) -> int:
    return OBS[n].size


__doc__ = (__doc__ or "").replace("{STATE_TABLE}", ST.table())
