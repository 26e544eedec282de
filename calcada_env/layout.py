"""Calçada: component data, board geometry, the action encoding and the state layout.

Everything marked RECONSTRUCTION is not printed in any source we have (see
``docs/rules/calcada.md``); each such value lives in exactly one table below so that the printed
value can replace it without touching the rules.

Player board
------------
Square ``sq = row * 5 + col`` (row 0 on top). People read a square as ``r<row+1>c<col+1>``, so
``r1c1`` is square 0 and ``r5c5`` is square 24. Every square belongs to a district (a letter) and
shows a printed number 1..5.

Tiles
-----
A tile is a colour (0..4, :data:`COLOURS`) and a kind (0..4 = motif, :data:`MOTIFS`; 5 = bonus
symbol). A board square holds ``0`` (empty) or ``1 + colour * 6 + kind``; a display slot holds ``0``
(empty) or ``1 + kind``; a stack slot holds a kind.

Carousel
--------
Six round spaces 0..5 (people read 1..6); clockwise is ``space + 1 mod 6``.

State layout (int64; the first 8 slots are the shared header of :mod:`gamecore.kernel.protocol`)
------------------------------------------------------------------------------------------------
The header's ``H_PHASE`` is the turn phase: 0 = before the declare (bonus moves, declare), 1 =
after it (display swaps, placement).

{STATE_TABLE}

Action encoding (``NUM_ACTIONS = 170``)
---------------------------------------
=============  ==========================================================================
Range          Action
=============  ==========================================================================
0..29          ``A_BONUS_MOVE + 5 * space + colour``: spend 1 bonus tile, move one
               cobblestone of that colour on that space one space clockwise
30..59         ``A_DECLARE + 5 * space + colour``: declare that cobblestone and move it
60..89         ``A_MOVE_ONLY + 5 * space + colour``: no cobblestone can be declared: move this
               one and place nothing (ends the turn)
90..94         ``A_SWAP + colour``: spend 1 bonus tile, put that display under its stack and
               reveal 3 new tiles
95..169        ``A_PLACE + 25 * slot + sq``: take the tile in display slot 0..2 of the declared
               colour and place it on square ``sq`` (ends the turn)
=============  ==========================================================================
"""

from __future__ import annotations

import numpy as np

from gamecore.kernel.header import H_PHASE, state_layout
from gamecore.kernel.layout import Layout, offsets_table, per_count

# ---------------------------------------------------------------------------------------------
# Component data
# RECONSTRUCTION (names only; the rules use ids): colours and motifs.
COLOURS = ("yellow", "red", "blue", "green", "purple")
COLOUR_CHARS = "yrbgp"
MOTIFS = ("tram", "plaza", "kiosk", "cafe", "bench")
KIND_NAMES = MOTIFS + ("bonus",)
KIND_CHARS = "tpkcb*"  # a tile in ASCII is colour char + kind char, e.g. "bk" = blue kiosk

NUM_COLOURS = 5
NUM_MOTIFS = 5
KIND_BONUS = 5  # kind id of the bonus-symbol tiles
NUM_KINDS = 6
COPIES_PER_MOTIF = 4  # per colour
BONUS_TILES_PER_COLOUR = 5
TILES_PER_COLOUR = NUM_MOTIFS * COPIES_PER_MOTIF + BONUS_TILES_PER_COLOUR  # 25
#: tiles of each kind in one colour's 25
KIND_COPIES = np.array([COPIES_PER_MOTIF] * NUM_MOTIFS + [BONUS_TILES_PER_COLOUR], dtype=np.int64)
DISPLAY_SIZE = 3
STARTING_BONUS = 2
BONUS_FOR_SYMBOL = 2  # bonus tiles gained by placing a bonus-symbol tile
LEAVE_BONUS_POINTS = 2  # points for moving a cobblestone off the scoreboard
END_AFTER_RETIRED = 2  # the game end triggers when this many colours have left the scoreboard

NUM_SPACES = 6  # carousel spaces
CAROUSEL_STONES_PER_COLOUR = 3
ANY_SQUARE_NUMBER = 6  # a declared number this large allows any empty square

# RECONSTRUCTION: scoreboard multipliers per player count, top row first.
SCOREBOARD = {2: (3, 2, 1), 3: (3, 2, 2, 1), 4: (3, 3, 2, 2, 1)}
MAX_ROWS = 5

# Final scoring: points for an orthogonally connected group of one motif, by size (8+ -> 18).
MOTIF_GROUP_POINTS = {2: 1, 3: 3, 4: 5, 5: 8, 6: 11, 7: 14, 8: 18}

# RECONSTRUCTION: both sides of the player board. Letter = district, digit = printed number,
# row 0 on top.
BOARD_SIDES = {
    "A": (
        "A1 A2 A3 B4 B5",
        "A4 A5 C1 B1 B2",
        "D2 D3 C4 C5 E3",
        "D1 F4 F5 G3 E2",
        "H5 H3 F2 G4 E1",
    ),
    "B": (
        "A1 A2 B3 B4 B5",
        "A3 A4 C1 C2 D3",
        "E5 E1 C5 D4 D5",
        "E2 F3 F5 G2 G4",
        "H4 H3 F1 I1 I2",
    ),
}
SIDE_NAMES = ("A", "B")
# ---------------------------------------------------------------------------------------------

BOARD_W = 5
NUM_SQUARES = 25
MAX_PLAYERS = 4
MAX_DISTRICTS = 9


def _parse_sides() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    nums = np.zeros((2, NUM_SQUARES), dtype=np.int64)
    dist = np.zeros((2, NUM_SQUARES), dtype=np.int64)
    ndist = np.zeros(2, dtype=np.int64)
    dsize = np.zeros((2, MAX_DISTRICTS), dtype=np.int64)
    for s, name in enumerate(SIDE_NAMES):
        letters: list[str] = []
        for r, row in enumerate(BOARD_SIDES[name]):
            cells = row.split()
            assert len(cells) == BOARD_W, (name, row)
            for c, cell in enumerate(cells):
                letter, number = cell[0], int(cell[1:])
                assert 1 <= number <= 5
                if letter not in letters:
                    letters.append(letter)
                nums[s, r * BOARD_W + c] = number
        ordered = sorted(letters)
        for r, row in enumerate(BOARD_SIDES[name]):
            for c, cell in enumerate(row.split()):
                d = ordered.index(cell[0])
                dist[s, r * BOARD_W + c] = d
                dsize[s, d] += 1
        ndist[s] = len(ordered)
    return nums, dist, ndist, dsize


#: SQ_NUMBER[side, sq]: printed number; SQ_DISTRICT[side, sq]: district id (0 = letter A ...)
SQ_NUMBER, SQ_DISTRICT, NUM_DISTRICTS, DISTRICT_SIZE = _parse_sides()
DISTRICT_LETTERS = "ABCDEFGHI"
#: SQ_NUMBER_MASK[side, k]: bitmask of the squares printed with number k (1..5)
SQ_NUMBER_MASK = np.zeros((2, 6), dtype=np.int64)
for _s in range(2):
    for _q in range(NUM_SQUARES):
        SQ_NUMBER_MASK[_s, SQ_NUMBER[_s, _q]] |= 1 << _q
SQ_NUMBER_MASK.setflags(write=False)
#: SQ_DISTRICT_MASK[side, sq]: bitmask of the squares of sq's district
SQ_DISTRICT_MASK = np.zeros((2, NUM_SQUARES), dtype=np.int64)
for _s in range(2):
    for _q in range(NUM_SQUARES):
        for _r in range(NUM_SQUARES):
            if SQ_DISTRICT[_s, _r] == SQ_DISTRICT[_s, _q]:
                SQ_DISTRICT_MASK[_s, _q] |= 1 << _r
SQ_DISTRICT_MASK.setflags(write=False)
#: DISTRICT_SQUARES[side, d, k]: the k-th square of district d (k < DISTRICT_SIZE[side, d])
DISTRICT_SQUARES = np.zeros((2, MAX_DISTRICTS, NUM_SQUARES), dtype=np.int64)
for _s in range(2):
    _fill = [0] * MAX_DISTRICTS
    for _q in range(NUM_SQUARES):
        _d = SQ_DISTRICT[_s, _q]
        DISTRICT_SQUARES[_s, _d, _fill[_d]] = _q
        _fill[_d] += 1

#: SCORE_ROWS[n, row]: multiplier of scoreboard row for n players; NUM_ROWS[n]: rows used
SCORE_ROWS = np.zeros((MAX_PLAYERS + 1, MAX_ROWS), dtype=np.int64)
NUM_ROWS = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
for _n, _rows in SCOREBOARD.items():
    NUM_ROWS[_n] = len(_rows)
    for _i, _m in enumerate(_rows):
        SCORE_ROWS[_n, _i] = _m

#: GROUP_POINTS[size]: motif group points, sizes 0..MAX_GROUP (sizes above use the last entry)
MAX_GROUP = max(MOTIF_GROUP_POINTS)
GROUP_POINTS = np.zeros(MAX_GROUP + 1, dtype=np.int64)
for _size, _pts in MOTIF_GROUP_POINTS.items():
    GROUP_POINTS[_size] = _pts

for _a in (SQ_NUMBER, SQ_DISTRICT, NUM_DISTRICTS, DISTRICT_SIZE, DISTRICT_SQUARES, SCORE_ROWS, NUM_ROWS,
           GROUP_POINTS, KIND_COPIES):
    _a.setflags(write=False)

# ---- state layout ------------------------------------------------------------------------------
ST = state_layout()
SIDE = ST.add("SIDE", 1, "board side: 0 = A, 1 = B")
START = ST.add("START", 1, "start seat (rounds begin with it)")
DECL_NUM = ST.add("DECL_NUM", 1, "declared number (0 before the declare)")
DECL_COL = ST.add("DECL_COL", 1, "declared colour (0 before the declare)")
END_TRIGGERED = ST.add("END_TRIGGERED", 1, "1 once the second scoreboard cobblestone has left the scoreboard")
ROUND_PLACED = ST.add("ROUND_PLACED", 1, "1 once somebody placed a tile in the current round")
TURNS = ST.add("TURNS", 1, "turns finished so far")
CAR = ST.add("CAR", NUM_SPACES * NUM_COLOURS, "``CAR + 5 * space + colour``: cobblestones of that colour on the space")
SB_ROW = ST.add("SB_ROW", NUM_COLOURS, "scoreboard row of each colour's cobblestone (0 = top); ``rows`` (the "
                "number of rows) once it has left the scoreboard (colour retired)")
STACK_N = ST.add("STACK_N", NUM_COLOURS, "tiles left in each colour's face-down stack (0..25)")
STACK_KNOWN = ST.add("STACK_KNOWN", NUM_COLOURS, "how many tiles at the bottom of each stack everybody knows "
                     "(they went under it in a display swap); the rest of the order is unknown to all")
STACK = ST.add("STACK", NUM_COLOURS * TILES_PER_COLOUR, "``STACK + 25 * colour + i``: kind of the i-th tile "
               "from the *bottom* of that stack (top = ``STACK_N - 1``); unused slots 0. Hidden, except the "
               "known bottom")
DISPLAY = ST.add("DISPLAY", NUM_COLOURS * DISPLAY_SIZE, "``DISPLAY + 3 * colour + slot``: 0 empty, else 1 + kind")
BOARD = ST.add("BOARD", MAX_PLAYERS * NUM_SQUARES, "``BOARD + 25 * seat + sq``: 0 empty, else 1 + colour * 6 + kind")
BONUS = ST.add("BONUS", MAX_PLAYERS, "bonus tiles held by each seat")
POINTS = ST.add("POINTS", MAX_PLAYERS, "points scored during play (districts, leaving the scoreboard)")
STATE_LEN = ST.size
#: the turn phase is the header's pending-decision kind
PHASE = H_PHASE

PHASE_DECLARE = 0
PHASE_PLACE = 1

# ---- params vector ----------------------------------------------------------------------------
P_PLAYERS = 0
P_SIDE = 1
P_START = 2
PARAMS_LEN = 3

# ---- actions ----------------------------------------------------------------------------------
A_BONUS_MOVE = 0
A_DECLARE = A_BONUS_MOVE + NUM_SPACES * NUM_COLOURS
A_MOVE_ONLY = A_DECLARE + NUM_SPACES * NUM_COLOURS
A_SWAP = A_MOVE_ONLY + NUM_SPACES * NUM_COLOURS
A_PLACE = A_SWAP + NUM_COLOURS
NUM_ACTIONS = A_PLACE + DISPLAY_SIZE * NUM_SQUARES

# ---- observation (flat int8; seat blocks are seat-relative, the observer's first) -------------
#: per square of a board: 5 colour one-hot + 6 kind one-hot; per seat: 25 squares (the BOARDS block's stride)
OBS_SQUARE = NUM_COLOURS + NUM_KINDS
OBS_SEAT = NUM_SQUARES * OBS_SQUARE


#: largest bonus-tile count: 2 at the start + 2 for each bonus-symbol tile the seat placed, at most
#: one per square of its board (the supply is unlimited; only spending lowers the count)
MAX_BONUS_HELD = STARTING_BONUS + BONUS_FOR_SYMBOL * NUM_SQUARES
#: largest score during play: each square lies in one district, which scores once (when completed) at
#: most multiplier 3, and each of the 5 colours leaves the scoreboard once (2 points to one seat)
MAX_PLAY_POINTS = NUM_SQUARES * max(max(r) for r in SCOREBOARD.values()) + LEAVE_BONUS_POINTS * NUM_COLOURS
#: most cobblestones on one carousel space (all 15)
MAX_ON_SPACE = CAROUSEL_STONES_PER_COLOUR * NUM_COLOURS
#: largest face-down stack in play: while a colour's stack holds a tile, at least 3 of its 25 are in
#: its display or on boards (a display is refilled with 3 as soon as it is empty, a swap reveals 3
#: new ones, and only a placement empties a slot), so at most 25 - 3 = 22 are in the stack
MAX_STACK = TILES_PER_COLOUR - DISPLAY_SIZE
#: longest known bottom: it is part of the stack (so at most MAX_STACK), and 8 swaps of one colour
#: nobody takes from reach it (3 more known tiles per swap: 3, 6, ..., 21, then all 22)
MAX_KNOWN = MAX_STACK


def max_turns(n: int) -> int:
    """Largest turn count for ``n`` players: every round but the last one of the game has a
    placement (a round without one ends the game), and at most 25 tiles go on each of the ``n``
    boards, so at most ``25 n + 1`` rounds of ``n`` turns are finished."""
    return n * (NUM_SQUARES * n + 1)


def _obs_layout(n: int) -> Layout:
    lay = Layout(f"observation, {n} players")
    rows = len(SCOREBOARD[n])
    colours = ", ".join(f"{i} {c} (``{ch}``)" for i, (c, ch) in enumerate(zip(COLOURS, COLOUR_CHARS, strict=True)))
    kinds = ", ".join(f"{i} {k} (``{KIND_CHARS[i]}``)" for i, k in enumerate(MOTIFS))
    kinds += f", {KIND_BONUS} bonus symbol (``{KIND_CHARS[KIND_BONUS]}``, no motif)"
    square = ("square ``sq = 5 row + col`` (row 0 on top, col 0 on the left: ``r<row+1>c<col+1>`` in action "
              "strings, token ``col`` of row ``row`` of ``to_dict``'s ``board``)")
    lay.add("BOARDS", OBS_SEAT * n, f"``[rel, sq, c]`` (c < 5): 1 if {square} of seat ``(me + rel) mod n`` holds a "
            f"tile of colour c; ``[rel, sq, 5 + k]``: 1 if it holds a tile of kind k; all 11 zero for an empty "
            f"square. ``rel`` 0 is the observer. Colours (letter in tile tokens, which are colour letter + kind "
            f"letter): {colours}; kinds: {kinds}",
            high=1, shape=(n, NUM_SQUARES, OBS_SQUARE))
    lay.add("BONUS_TILES", n, "``[rel]``: bonus tiles held by seat ``(me + rel) mod n``", high=MAX_BONUS_HELD,
            range_doc=f"0..{MAX_BONUS_HELD} (2 at the start + 2 per bonus-symbol tile placed, at most one per "
            "square of the 25)", shape=(n,))
    lay.add("POINTS", n, "``[rel]``: points seat ``(me + rel) mod n`` scored during play (completed districts, "
            "cobblestones leaving the scoreboard; final scoring not included)", high=MAX_PLAY_POINTS,
            range_doc=f"0..{MAX_PLAY_POINTS} (each of the 25 squares scores once, x multiplier 3 at most, + 2 "
            "for each of the 5 colours leaving)", shape=(n,))
    lay.add("NUMBERS", NUM_SQUARES, f"``[sq]``: printed number of {square}", high=5, range_doc="1..5")
    lay.add("DISTRICTS", NUM_SQUARES, "``[sq]``: district of square sq, 0 = letter A, 1 = B, ... (the letters "
            "of the board layout in the rules)", high=MAX_DISTRICTS - 1,
            range_doc=f"0..{MAX_DISTRICTS - 1} (side B's 9 districts; side A uses 0..7)")
    lay.add("CAROUSEL", NUM_SPACES * NUM_COLOURS, "``[s, c]``: cobblestones of colour c on carousel space s (0..5; "
            "``space s + 1`` in strings; clockwise is s + 1 mod 6)", high=CAROUSEL_STONES_PER_COLOUR,
            range_doc="0..3 (3 carousel cobblestones per colour)", shape=(NUM_SPACES, NUM_COLOURS))
    lay.add("DISPLAYS", NUM_COLOURS * DISPLAY_SIZE * NUM_KINDS, "``[c, j, k]``: 1 if display slot j (``slot j + 1`` "
            "in strings) of colour c shows a tile of kind k; all zero for an empty slot", high=1,
            shape=(NUM_COLOURS, DISPLAY_SIZE, NUM_KINDS))
    lay.add("STACK_SIZES", NUM_COLOURS, "``[c]``: tiles left in colour c's face-down stack", high=MAX_STACK,
            range_doc=f"0..{MAX_STACK} (25 tiles, of which at least 3 are in the display or on boards while the "
            "stack holds any)")
    lay.add("SB_ROWS", NUM_COLOURS, "``[c]``: scoreboard row of colour c's cobblestone, 0 = top; the scoreboard "
            "has n + 1 rows (multipliers 3, 2, 1 for 2 players; 3, 2, 2, 1 for 3; 3, 3, 2, 2, 1 for 4), so row n is "
            "the bottom and the value n + 1 means the cobblestone has left the scoreboard (the colour is out of "
            "play)", high=rows, range_doc=f"0..{rows} (n + 1 = left)")
    lay.add("MULTIPLIERS", NUM_COLOURS, "``[c]``: current multiplier of colour c (that of its row; 0 once it has "
            "left the scoreboard)", high=max(SCOREBOARD[n]))
    lay.add("PHASE", 2, "one-hot kind of the pending decision: ``[0]`` before the declare (bonus moves, "
            "declare or move-only), ``[1]`` after it (display swaps, placement); both 0 once the game is over",
            high=1)
    lay.add("DECL_NUM", 1, "declared number (6 or more: any empty square); 0 before the declare and once the "
            "game is over", high=MAX_ON_SPACE,
            range_doc=f"0..{MAX_ON_SPACE} (the cobblestones on one space: all 15 at most)")
    lay.add("DECL_COL", NUM_COLOURS, "one-hot declared colour (after the declare; all 0 before it and once the game "
            "is over)", high=1)
    lay.add("END", 1, "1 once the game end has been triggered (a second colour left the scoreboard: this "
            "round is the last)", high=1)
    lay.add("ROUND_PLACED", 1, "1 if somebody placed a tile in the current round (a round with no placement ends "
            "the game); at the end: the last round's", high=1)
    top = max_turns(n)
    lay.add("TURNS", 2, "turns finished so far (``to_dict``'s ``turns``): ``[0]`` hundreds, ``[1]`` the rest "
            "(turns = 100 [0] + [1]); the start seat's first turn is turn 0, the round is turns // n and the "
            "seat to move is (start + turns) mod n. At most n (25 n + 1) turns: every round but the last has a "
            "placement, at most 25 per board", high=[top // 100, 99],
            range_doc=f"hundreds 0..{top // 100}, rest 0..99 (at most {top} turns)")
    lay.add("CURRENT", n, "one-hot ``[rel]``: seat ``(me + rel) mod n`` is to move (the turn owner); all 0 once "
            "the game is over", high=1, shape=(n,))
    lay.add("START", n, "one-hot ``[rel]``: seat ``(me + rel) mod n`` is the start seat (a round ends before it)",
            high=1, shape=(n,))
    lay.add("KNOWN_KINDS", NUM_COLOURS * NUM_KINDS, "``[c, k]``: tiles of kind k in the known bottom of colour c's "
            "stack (the tiles everybody saw go under it in display swaps); their sum is the known count",
            high=np.tile(KIND_COPIES, NUM_COLOURS), shape=(NUM_COLOURS, NUM_KINDS),
            range_doc=f"0..{COPIES_PER_MOTIF} per motif, 0..{BONUS_TILES_PER_COLOUR} bonus-symbol tiles (a "
            "colour's copies of the kind)")
    lay.add("KNOWN_ORDER", NUM_COLOURS * MAX_KNOWN * NUM_KINDS, f"``[c, j, k]``: 1 if the j-th known tile to come "
            "out of colour c's stack is of kind k: the whole known bottom in the order it is drawn, j = 0 its top "
            "(drawn once the unknown tiles above it, stack size minus the known count, are gone), j = known - 1 "
            "the very bottom; ``to_dict``'s ``stack_known_bottom`` lists the same tiles bottom first, so "
            "``[c, j]`` is its item ``known - 1 - j``. Rows j >= known are 0. Sized by the longest known bottom "
            f"play reaches, {MAX_KNOWN} (it lies in the stack)", high=1, shape=(NUM_COLOURS, MAX_KNOWN, NUM_KINDS))
    return lay


OBS = per_count(_obs_layout, range(2, MAX_PLAYERS + 1))
OBS_BLOCKS = ("BOARDS", "BONUS_TILES", "POINTS", "NUMBERS", "DISTRICTS", "CAROUSEL", "DISPLAYS", "STACK_SIZES",
              "SB_ROWS", "MULTIPLIERS", "PHASE", "DECL_NUM", "DECL_COL", "END", "ROUND_PLACED", "TURNS", "CURRENT",
              "START", "KNOWN_KINDS", "KNOWN_ORDER")
#: OBS_OFF[n, k]: offset of block OBS_BLOCKS[k] for n players
OBS_OFF = offsets_table(OBS, OBS_BLOCKS)
(O_BOARDS, O_BONUS_TILES, O_POINTS, O_NUMBERS, O_DISTRICTS, O_CAROUSEL, O_DISPLAYS, O_STACK_SIZES, O_SB_ROWS,
 O_MULTIPLIERS, O_PHASE, O_DECL_NUM, O_DECL_COL, O_END, O_ROUND_PLACED, O_TURNS, O_CURRENT, O_START, O_KNOWN_KINDS,
 O_KNOWN_ORDER) = range(len(OBS_BLOCKS))


def obs_len(n: int) -> int:
    return OBS[n].size


__doc__ = (__doc__ or "").replace("{STATE_TABLE}", ST.table())
