"""Callisto: component data, board geometry and the state layout.

Everything marked RECONSTRUCTION is not printed in any source we have (see
``docs/rules/callisto.md``); it lives only in :data:`TILES` so printed values can replace it.

Board coordinates
-----------------
Cell ``i = row * S + col`` on the ``S x S`` grid (S = 10, 12, 14 for 2, 3, 4 players). People read
a cell as column letter + row number, row 1 on top::

        a b c d e f g h i j
     1  . . . . . . . . . .      a1 = cell 0, j1 = cell 9
     2  . . . . . . . . . .      a2 = cell S
    ...
    10  . . . . . . . . . .      j10 = cell S*S - 1

Orientations
------------
Each tile is expanded to its distinct orientations (8 symmetries, duplicates dropped) in the order
r0, r90, r180, r270, f0, f90, f180, f270 (``f`` = mirrored left-right, then rotated clockwise). An
orientation's cells are offsets from its *anchor*, the first of its squares in reading order, so
the anchor is always a square of the tile (``dr >= 0``; ``dc`` may be negative).

State layout (int64; the first 8 slots are the shared header of :mod:`gamecore.kernel.protocol`)
------------------------------------------------------------------------------------------------
{STATE_TABLE}

Observation planes
------------------
The observation is ``(S, S, C)``: channel ``k`` of cell ``(r, c)``, C = n * n + 18 n + 3 (43 / 66 / 91
for 2 / 3 / 4 players). Plane groups are seat-relative (``rel = (seat - observer) mod n``, so the
observer's planes come first); "constant" planes hold the same value at every cell. The first
plane of each group for each player count, its shape (the trailing axes of
``GAME.observation_views``) and its range:

{OBS_TABLE}
"""

from __future__ import annotations

import numpy as np

from gamecore.kernel.header import state_layout
from gamecore.kernel.layout import Layout, offsets_table, per_count, table_by_count

# ---------------------------------------------------------------------------------------------
# RECONSTRUCTION: the 2015 tile set (13 tiles, 47 squares per colour). (x, y) = (column, row).
# name, copies, cells
TILES: tuple[tuple[str, int, tuple[tuple[int, int], ...]], ...] = (
    ("D2", 2, ((0, 0), (1, 0))),
    ("I3", 2, ((0, 0), (0, 1), (0, 2))),
    ("V3", 2, ((0, 0), (0, 1), (1, 0))),
    ("L4", 1, ((0, 0), (0, 1), (0, 2), (1, 2))),
    ("T4", 1, ((0, 0), (1, 0), (2, 0), (1, 1))),
    ("S4", 1, ((0, 0), (1, 0), (1, 1), (2, 1))),
    ("O4", 1, ((0, 0), (1, 0), (0, 1), (1, 1))),
    ("X5", 1, ((1, 0), (0, 1), (1, 1), (2, 1), (1, 2))),
    ("T5", 1, ((0, 0), (1, 0), (2, 0), (1, 1), (1, 2))),
    ("U5", 1, ((0, 0), (2, 0), (0, 1), (1, 1), (2, 1))),
)
PILLARS_PER_PLAYER = 3
#: board side by player count
BOARD_SIZE = {2: 10, 3: 12, 4: 14}
COLOURS = ("green", "blue", "red", "yellow")
TILE_CHARS = "gbry"  # a seat's tiles in ASCII
PILLAR_CHARS = "GBRY"  # a seat's pillars in ASCII
# ---------------------------------------------------------------------------------------------

NUM_TILE_TYPES = len(TILES)
TILE_NAMES = tuple(t[0] for t in TILES)
TILE_COPIES = np.array([t[1] for t in TILES], dtype=np.int64)
TILE_SIZE = np.array([len(t[2]) for t in TILES], dtype=np.int64)
MAX_SIZE = 14
MAX_CELLS = MAX_SIZE * MAX_SIZE
MAX_PLAYERS = 4
SYMMETRY_NAMES = ("r0", "r90", "r180", "r270", "f0", "f90", "f180", "f270")


def _orientations() -> list[tuple[int, int, tuple[tuple[int, int], ...]]]:
    """(tile type, symmetry index, anchor-relative (dr, dc) cells) for every distinct orientation."""
    out = []
    for t, (_, _, cells) in enumerate(TILES):
        seen = set()
        for sym in range(8):
            pts = [(y, x) for (x, y) in cells]  # (row, col)
            if sym >= 4:
                pts = [(r, -c) for (r, c) in pts]
            for _ in range(sym % 4):
                pts = [(c, -r) for (r, c) in pts]  # rotate 90 degrees clockwise
            pts.sort()
            r0, c0 = pts[0]
            rel = tuple((r - r0, c - c0) for (r, c) in pts)
            if rel in seen:
                continue
            seen.add(rel)
            out.append((t, sym, rel))
    return out


_ORIENTS = _orientations()
NUM_ORIENTS = len(_ORIENTS)
ORIENT_TILE = np.array([o[0] for o in _ORIENTS], dtype=np.int64)
ORIENT_SYM = tuple(SYMMETRY_NAMES[o[1]] for o in _ORIENTS)
ORIENT_NCELLS = np.array([len(o[2]) for o in _ORIENTS], dtype=np.int64)
ORIENT_DR = np.zeros((NUM_ORIENTS, 5), dtype=np.int64)
ORIENT_DC = np.zeros((NUM_ORIENTS, 5), dtype=np.int64)
for _i, (_t, _s, _rel) in enumerate(_ORIENTS):
    for _k, (_dr, _dc) in enumerate(_rel):
        ORIENT_DR[_i, _k] = _dr
        ORIENT_DC[_i, _k] = _dc
for _a in (ORIENT_TILE, ORIENT_NCELLS, ORIENT_DR, ORIENT_DC, TILE_COPIES, TILE_SIZE):
    _a.setflags(write=False)

# ---- bitboards -------------------------------------------------------------------------------
# The rules kernels see the board as 256-bit sets in 4 uint64 words: cell (r, c) is bit
# ``r * BB_STRIDE + c``. The stride of 16 leaves at least two empty columns right of every row
# (S <= 14), so a shift by ``dr * 16 + dc`` (|dc| <= 2) never wraps a square into the next row's
# grid: shifted squares that leave the grid land on columns 14-15 or beyond row S, which are never
# free.
BB_STRIDE = 16
BB_WORDS = 4
#: every distinct offset (in bits) of a square from its orientation's anchor
BB_OFFSETS = np.array(sorted({int(dr * BB_STRIDE + dc) for _t, _s, rel in _ORIENTS for dr, dc in rel}),
                      dtype=np.int64)
#: ORIENT_OFF[o, k]: index into BB_OFFSETS of square k of orientation o
ORIENT_OFF = np.zeros((NUM_ORIENTS, 5), dtype=np.int64)
for _i, (_t, _s, _rel) in enumerate(_ORIENTS):
    for _k, (_dr, _dc) in enumerate(_rel):
        ORIENT_OFF[_i, _k] = int(np.flatnonzero(BB_OFFSETS == _dr * BB_STRIDE + _dc)[0])


def _bb(cells) -> np.ndarray:
    words = np.zeros(BB_WORDS, dtype=np.uint64)
    for r, c in cells:
        bit = r * BB_STRIDE + c
        words[bit // 64] |= np.uint64(1) << np.uint64(bit % 64)
    return words


#: BB_RING[S] / BB_INSIDE[S]: the outermost ring / all cells of the S x S grid
BB_RING = np.zeros((MAX_SIZE + 1, BB_WORDS), dtype=np.uint64)
BB_INSIDE = np.zeros((MAX_SIZE + 1, BB_WORDS), dtype=np.uint64)
for _S in BOARD_SIZE.values():
    BB_INSIDE[_S] = _bb([(r, c) for r in range(_S) for c in range(_S)])
    BB_RING[_S] = _bb([(r, c) for r in range(_S) for c in range(_S) if r in (0, _S - 1) or c in (0, _S - 1)])
for _a in (BB_OFFSETS, ORIENT_OFF, BB_RING, BB_INSIDE):
    _a.setflags(write=False)

# ---- state layout ------------------------------------------------------------------------------
ST = state_layout()
SIZE = ST.add("SIZE", 1, "board side S")
START = ST.add("START", 1, "start seat of the current game")
MATCH = ST.add("MATCH", 1, "1 = match (as many games as players), 0 = single game")
GAME = ST.add("GAME", 1, "index of the current game of the match (0 in a single game)")
FIRST_START = ST.add("FIRST_START", 1, "start seat of game 0 (the ``start_player`` option)")
TURNS = ST.add("TURNS", 1, "turns taken in the current game (placements and skips)")
BOARD = ST.add("BOARD", MAX_CELLS, "cell ``i`` (S*S used): 0 empty, else ``1 + owner + 4 * kind``, kind 0 = "
               "pillar, 1..10 = tile type + 1")
SEQ = ST.add("SEQ", MAX_CELLS, "cell ``i``: number of the turn whose placement covered it (0 = empty), so "
             "drawings can outline each tile")
REMAIN = ST.add("REMAIN", MAX_PLAYERS * NUM_TILE_TYPES, "``REMAIN + 10 * seat + t``: unplaced copies of tile type t")
PILLARS = ST.add("PILLARS", MAX_PLAYERS, "pillars placed by seat (0..3)")
PILLAR_TURNS = ST.add("PILLAR_TURNS", MAX_PLAYERS, "opening pillar turns used by seat (0..2; a skip counts)")
THIRD = ST.add("THIRD", MAX_PLAYERS, "1 while seat may still place its third pillar")
OUT = ST.add("OUT", MAX_PLAYERS, "1 once seat is out of the current game")
MATCH_PEN = ST.add("MATCH_PEN", MAX_PLAYERS, "seat's summed penalty over the finished games of the match")
GAME_PEN = ST.add("GAME_PEN", MAX_PLAYERS * MAX_PLAYERS, "``GAME_PEN + 4 * game + seat``: penalty of each "
                  "finished game")
BB_FREE = ST.add("BB_FREE", BB_WORDS, "the free cells as a bitboard (cell (r, c) = bit 16 r + c; uint64 words "
                 "stored as int64), kept in step with BOARD")
BB_OWN = ST.add("BB_OWN", MAX_PLAYERS * BB_WORDS, "``BB_OWN + 4 * seat``: that seat's pillars and tile squares")
BB_PILLAR = ST.add("BB_PILLAR", BB_WORDS, "pillars of any colour")
BB_TILE = ST.add("BB_TILE", BB_WORDS, "tile squares of any colour")
#: kinds of placement in a legal set: orientation k < NUM_ORIENTS, or NUM_ORIENTS for a pillar
LEGAL_KINDS = NUM_ORIENTS + 1
LEGAL = ST.add("LEGAL", LEGAL_KINDS * BB_WORDS,
               "the decider's legal actions, a cache kept by every kernel that changes the position (all "
               "zero once the game is over): ``LEGAL + 4 * k + i`` is word i of the bitboard of the anchor "
               f"cells where orientation k may be placed (k = {NUM_ORIENTS}: the cells a pillar may go on)")
STATE_LEN = ST.size

# ---- params vector ----------------------------------------------------------------------------
P_PLAYERS = 0
P_START = 1
P_MATCH = 2
PARAMS_LEN = 3


# ---- observation planes (seat-relative: rel = (seat - observer) mod n) --------------------------
#: a colour's tile squares (47): the largest penalty of one game
SQUARES_PER_COLOUR = int((TILE_COPIES * TILE_SIZE).sum())


def _obs_planes(n: int) -> Layout:
    lay = Layout(f"observation planes, {n} players")
    most = SQUARES_PER_COLOUR * n  # the largest summed penalty of a match (n games of at most 47)
    lay.add("TILES", n, "plane ``rel``: 1 on every cell covered by a tile square of seat ``rel``", high=1)
    lay.add("PILLARS", n, "plane ``rel``: 1 on the cell of each pillar of seat ``rel``", high=1)
    lay.add("REMAIN", NUM_TILE_TYPES * n, "plane ``10 rel + t`` (``[rel, t]``): unplaced copies of tile type t "
            "of seat ``rel``, types in the order D2, I3, V3, L4, T4, S4, O4, X5, T5, U5 (constant)",
            high=np.tile(TILE_COPIES, n), range_doc="0..copies of the type (2 for D2, I3, V3; 1 for the others)",
            shape=(n, NUM_TILE_TYPES))
    lay.add("THIRD", n, "plane ``rel``: 1 while seat ``rel`` may still place its third pillar (constant)", high=1)
    lay.add("OPENING", n, "plane ``rel``: how many of seat ``rel``'s two opening pillar turns of the current game "
            "are still to come (a turn placed or skipped is used; while it is above 0 that seat's next turn "
            "places an opening pillar on the ring, so the mover's entry says the kind of decision pending: "
            "above 0 an opening pillar, 0 a tile or the third pillar) (constant)", high=2)
    lay.add("OUT", n, "plane ``rel``: 1 once seat ``rel`` is out of the current game (can place nothing "
            "more); all 1 at the end (constant)", high=1)
    lay.add("TO_MOVE", n, "plane ``rel``: 1 when seat ``rel`` is to move (the observer's own plane comes first); "
            "all 0 once the game is over (constant)", high=1)
    lay.add("MATCH_PEN", 2 * n, "planes ``2 rel`` and ``2 rel + 1`` (``[rel, 0]``, ``[rel, 1]``): seat ``rel``'s "
            "summed penalty over the finished games (all of them at the end: a single game's penalty once it is "
            "over, 0 before), as hundreds, then the rest (``v // 100``, ``v % 100``) (constant)",
            high=np.tile([most // 100, min(most, 99)], n),
            range_doc="``[rel, 0]`` 0..(47 n) // 100, ``[rel, 1]`` 0..min(47 n, 99): the sum is at most 47 n = "
            + " / ".join(str(SQUARES_PER_COLOUR * k) for k in BOARD_SIZE) + f" (n games of at most "
            f"{SQUARES_PER_COLOUR} unplaced squares), never clipped",
            shape=(n, 2))
    lay.add("STARTED", n * n, "plane ``n g + rel`` (``[g, rel]``): 1 when seat ``rel`` started game ``g`` of the "
            "match; rows of games not begun are 0 (a single game uses row 0 only). Game g of a match is started "
            "by seat ``(s + g) mod n``, s the ``start_player`` option (``to_dict``'s ``start_player`` is the "
            "current game's starter, ``(s + match_game) mod n``); in a single game a penalty tie goes to the "
            "seat that started later (constant)", high=1, shape=(n, n))
    lay.add("MATCH", 1, "1 when the episode is a match (n games), 0 for a single game (constant)", high=1)
    lay.add("GAMES", 1, "number of finished games: during play the index of the game being played (0 in a "
            "single game); at the end every game is finished, so n in a match and 1 in a single game (constant)",
            high=n, range_doc="0..n (the maximum at every option, so scaled it is GAMES / n; a single game "
            "reaches 1)")
    lay.add("GAMES_LEFT", 1, "games not finished, the current one included: n - GAMES in a match, 1 - GAMES in a "
            "single game; 0 exactly when the episode is over (constant)", high=n,
            range_doc="0..n (as GAMES; a single game reaches 1)")
    return lay


OBS_PLANES = per_count(_obs_planes, BOARD_SIZE)
OBS_BLOCKS = tuple(OBS_PLANES[2].names())
#: OBS_OFF[n, k]: first plane of group OBS_BLOCKS[k] for n players
OBS_OFF = offsets_table(OBS_PLANES, OBS_BLOCKS)
(O_TILES, O_PILLARS, O_REMAIN, O_THIRD, O_OPENING, O_OUT, O_TO_MOVE, O_MATCH_PEN, O_STARTED, O_MATCH, O_GAMES,
 O_GAMES_LEFT) = range(len(OBS_BLOCKS))
#: OBS_C[n]: planes (channels) for n players
OBS_C = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
for _n, _lay in OBS_PLANES.items():
    OBS_C[_n] = _lay.size
OBS_C.setflags(write=False)


def num_planes(n: int) -> int:
    return OBS_PLANES[n].size


def num_actions(size: int) -> int:
    return (NUM_ORIENTS + 1) * size * size


__doc__ = (__doc__ or "").replace("{STATE_TABLE}", ST.table()).replace("{OBS_TABLE}", table_by_count(OBS_PLANES))
