"""Callisto: component data, board geometry and the state layout.

Everything marked RECONSTRUCTION is not printed in any source we have (see
``shared/rules/callisto.md``); it lives only in :data:`TILES` so printed values can replace it.

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

State layout (int64; the first 8 slots are the shared header of :mod:`gamecore.protocol`)
-----------------------------------------------------------------------------------------
=========  ==================  ====================================================================
Index      Name                Meaning
=========  ==================  ====================================================================
0..7       header              rng, players, current seat, terminal, done bits, decisions
8          ``SIZE``            board side S
9          ``START``           start seat of the current game
10         ``MATCH``           1 = match (as many games as players), 0 = single game
11         ``GAME``            index of the current game of the match (0 in a single game)
12         ``FIRST_START``     start seat of game 0 (the ``start_player`` option)
13         ``TURNS``           turns taken in the current game (placements and skips)
16..211    ``BOARD``           cell ``i`` (S*S used): 0 empty, else ``1 + owner + 4 * kind``,
                               kind 0 = pillar, 1..10 = tile type + 1
212..407   ``SEQ``             cell ``i``: number of the placement that covered it (0 = empty),
                               so drawings can outline each tile
408..447   ``REMAIN``          ``REMAIN + 10 * seat + t``: unplaced copies of tile type t
448..451   ``PILLARS``         pillars placed by seat (0..3)
452..455   ``PILLAR_TURNS``    opening pillar turns used by seat (0..2; a skip counts)
456..459   ``THIRD``           1 while seat may still place its third pillar
460..463   ``OUT``             1 once seat is out of the current game
464..467   ``MATCH_PEN``       seat's summed penalty over the finished games of the match
468..483   ``GAME_PEN``        ``GAME_PEN + 4 * game + seat``: penalty of each finished game
=========  ==================  ====================================================================
"""

from __future__ import annotations

import numpy as np

from gamecore.protocol import HEADER_LEN

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

# ---- state offsets ----------------------------------------------------------------------------
SIZE = HEADER_LEN + 0
START = HEADER_LEN + 1
MATCH = HEADER_LEN + 2
GAME = HEADER_LEN + 3
FIRST_START = HEADER_LEN + 4
TURNS = HEADER_LEN + 5
BOARD = 16
SEQ = BOARD + MAX_CELLS
REMAIN = SEQ + MAX_CELLS
PILLARS = REMAIN + MAX_PLAYERS * NUM_TILE_TYPES
PILLAR_TURNS = PILLARS + MAX_PLAYERS
THIRD = PILLAR_TURNS + MAX_PLAYERS
OUT = THIRD + MAX_PLAYERS
MATCH_PEN = OUT + MAX_PLAYERS
GAME_PEN = MATCH_PEN + MAX_PLAYERS
STATE_LEN = GAME_PEN + MAX_PLAYERS * MAX_PLAYERS

# ---- params vector ----------------------------------------------------------------------------
P_PLAYERS = 0
P_START = 1
P_MATCH = 2
PARAMS_LEN = 3

# ---- observation planes (seat-relative: rel = (seat - observer) mod n) --------------------------
def num_planes(n: int) -> int:
    """tiles(n) + pillars(n) + remaining per type(10n) + third pillar(n) + opening pillar turns
    left(n) + out(n) + match penalty(n) + games finished(1)."""
    return 16 * n + 1


def num_actions(size: int) -> int:
    return (NUM_ORIENTS + 1) * size * size
