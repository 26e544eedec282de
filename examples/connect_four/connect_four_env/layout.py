"""Connect Four: board geometry, the state layout and the observation layout.

Cell ``i = r * 7 + c``: row ``r`` 0..5 counted from the **bottom**, column ``c`` 0..6 from the left
(columns ``a``..``g`` in the notation). Action ``c`` drops a piece into column ``c``.

State layout (int64; the first 8 slots are the shared header of :mod:`gamecore.kernel.protocol`)
-----------------------------------------------------------------------------------------------
{STATE_TABLE}

Observation layout (int8, flat, seat-relative: ``rel = (seat - observer) mod 2``)
-------------------------------------------------------------------------------
{OBS_TABLE}
"""

from __future__ import annotations

from gamecore.kernel.header import state_layout
from gamecore.kernel.layout import Layout

ROWS = 6
COLS = 7
CELLS = ROWS * COLS
NUM_PLAYERS = 2
#: the letters of the columns, left to right (the action strings)
COLUMN_NAMES = "abcdefg"
#: how a seat's pieces are drawn in ASCII (seat 0, seat 1) and the empty cell
PIECE_CHARS = "XO"
EMPTY_CHAR = "."

ST = state_layout()
BOARD = ST.add("BOARD", CELLS, "cell r * 7 + c (row 0 = bottom): 0 empty, else 1 + seat")
HEIGHT = ST.add("HEIGHT", COLS, "pieces in column c (0..6)")
WINNER = ST.add("WINNER", 1, "0 while running and after a draw, else 1 + the seat that made four in a row")
STATE_LEN = ST.size

#: the params vector (GameSpec.make_params): the number of players, nothing else
P_PLAYERS = 0
PARAMS_LEN = 1

OBS = Layout("observation")
O_BOARD = OBS.add("BOARD", NUM_PLAYERS * CELLS, "entry [rel, r, c]: 1 where seat (observer + rel) mod 2 has a "
                  "piece on row r (0 = bottom), column c", high=1, shape=(NUM_PLAYERS, ROWS, COLS))
O_TO_MOVE = OBS.add("TO_MOVE", NUM_PLAYERS, "one-hot: the seat to move, relative (0 = the observer); all 0 "
                    "once the game is over", high=1)
OBS_LEN = OBS.size

__doc__ = (__doc__ or "").replace("{STATE_TABLE}", ST.table()).replace("{OBS_TABLE}", OBS.table())
