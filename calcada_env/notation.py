"""Calçada notation: action <-> string, boards <-> ASCII.

Squares are named ``r<row>c<col>``, 1-based, row 1 on top (``r1c1`` is square 0). Carousel spaces
and display slots are 1-based for people. Actions::

    "bonus move red on space 3"            spend a bonus tile, move a red cobblestone from space 3
    "declare blue on space 2 (number 4)"   declare (4 cobblestones on space 2 before moving)
    "move blue on space 2 without placing" nothing can be declared: move only, the turn ends
    "swap display yellow"                  spend a bonus tile, replace the yellow display
    "take slot 2 (blue kiosk) to r3c4"     place the tile of display slot 2 on r3c4

A tile in ASCII is two characters, colour then kind: colours ``y r b g p`` (yellow, red, blue,
green, purple), kinds ``t p k c b`` (tram, plaza, kiosk, cafe, bench) and ``*`` (bonus symbol);
``.`` is an empty square. A board is 5 rows of 5 tokens (``..`` is accepted for empty too)::

    bk b* .. .. ..
    .. .. .. .. ..
    ...
"""

from __future__ import annotations

import numpy as np

from calcada_env import layout as L
from gamecore.kernel.protocol import H_NPLAYERS


def square_name(sq: int) -> str:
    r, c = divmod(int(sq), L.BOARD_W)
    return f"r{r + 1}c{c + 1}"


def parse_square(text: str) -> int:
    t = text.strip().lower()
    if len(t) == 4 and t[0] == "r" and t[2] == "c" and t[1] in "12345" and t[3] in "12345":
        return (int(t[1]) - 1) * L.BOARD_W + int(t[3]) - 1
    raise ValueError(f"bad square {text!r}: expected r1c1 .. r5c5")


def tile_token(colour: int, kind: int) -> str:
    return L.COLOUR_CHARS[colour] + L.KIND_CHARS[kind]


def tile_name(colour: int, kind: int) -> str:
    return f"{L.COLOURS[colour]} {L.KIND_NAMES[kind]}"


def parse_tile(token: str) -> tuple[int, int] | None:
    """(colour, kind) of a two-character token, or None for an empty square (``.`` / ``..``)."""
    if token in (".", ".."):
        return None
    if len(token) != 2 or token[0] not in L.COLOUR_CHARS or token[1] not in L.KIND_CHARS:
        raise ValueError(
            f"bad tile {token!r}: colour one of {L.COLOUR_CHARS!r} then kind one of {L.KIND_CHARS!r}, "
            "or '.' for empty"
        )
    return L.COLOUR_CHARS.index(token[0]), L.KIND_CHARS.index(token[1])


def action_to_string(state: np.ndarray, action: int) -> str:
    a = int(action)
    if not 0 <= a < L.NUM_ACTIONS:
        raise ValueError(f"action {a} out of range 0..{L.NUM_ACTIONS - 1}")
    if a < L.A_PLACE and a >= L.A_SWAP:
        return f"swap display {L.COLOURS[a - L.A_SWAP]}"
    if a < L.A_SWAP:
        block, i = divmod(a, L.NUM_SPACES * L.NUM_COLOURS)
        space, colour = divmod(i, L.NUM_COLOURS)
        where = f"{L.COLOURS[colour]} on space {space + 1}"
        if block == 0:
            return f"bonus move {where}"
        if block == 1:
            number = sum(int(state[L.CAR + L.NUM_COLOURS * space + c]) for c in range(L.NUM_COLOURS))
            return f"declare {where} (number {number})"
        return f"move {where} without placing"
    slot, sq = divmod(a - L.A_PLACE, L.NUM_SQUARES)
    if state[L.PHASE] == L.PHASE_PLACE:
        colour = int(state[L.DECL_COL])
        v = int(state[L.DISPLAY + L.DISPLAY_SIZE * colour + slot])
        what = tile_name(colour, v - 1) if v else f"{L.COLOURS[colour]} empty"
    else:
        what = "declared colour"
    return f"take slot {slot + 1} ({what}) to {square_name(sq)}"


def string_to_action(text: str, state: np.ndarray) -> int:
    """Inverse of :func:`action_to_string` in ``state``."""
    want = " ".join(str(text).split())
    for a in range(L.NUM_ACTIONS):
        if action_to_string(state, a) == want:
            return a
    raise ValueError(f"not a Calçada action here: {text!r}")


def board_rows(state: np.ndarray, seat: int) -> list[str]:
    """A seat's board as 5 strings of 5 space-separated tokens (``..`` empty)."""
    rows = []
    for r in range(L.BOARD_W):
        toks = []
        for c in range(L.BOARD_W):
            v = int(state[L.BOARD + L.NUM_SQUARES * seat + r * L.BOARD_W + c])
            toks.append(".." if v == 0 else tile_token((v - 1) // L.NUM_KINDS, (v - 1) % L.NUM_KINDS))
        rows.append(" ".join(toks))
    return rows


def layout_rows(side: int) -> list[str]:
    """The printed board: district letter + number per square."""
    return list(L.BOARD_SIDES[L.SIDE_NAMES[side]])


def board_to_ascii(state: np.ndarray, seat: int) -> str:
    """The board beside its printed layout."""
    side = int(state[L.SIDE])
    return "\n".join(
        f"{lay}   {row}" for lay, row in zip(layout_rows(side), board_rows(state, seat), strict=True)
    )


def parse_board(text: str) -> list[tuple[int, int] | None]:
    """25 squares from ASCII (5 rows of 5 tokens; blank lines ignored)."""
    rows = [line.split() for line in text.strip("\n").splitlines() if line.split()]
    if len(rows) != L.BOARD_W or any(len(r) != L.BOARD_W for r in rows):
        raise ValueError(f"a board needs 5 rows of 5 tokens, got {[len(r) for r in rows]}")
    return [parse_tile(tok) for row in rows for tok in row]


def display_tokens(state: np.ndarray, colour: int) -> list[str]:
    out = []
    for slot in range(L.DISPLAY_SIZE):
        v = int(state[L.DISPLAY + L.DISPLAY_SIZE * colour + slot])
        out.append("." if v == 0 else tile_token(colour, v - 1))
    return out


def num_players(state: np.ndarray) -> int:
    return int(state[H_NPLAYERS])
