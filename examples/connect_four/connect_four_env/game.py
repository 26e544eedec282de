"""Python-side facts about Connect Four for the shared wrappers (:class:`gamecore.kernel.protocol.GameSpec`),
its notation (a column letter, ``a``..``g``) and positions from ASCII."""

from __future__ import annotations

from typing import Any

import numpy as np
from gamecore.kernel.layout import Layout
from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import (
    H_CURRENT,
    H_DECISIONS,
    H_DONE,
    H_NPLAYERS,
    H_OWNER,
    H_TERMINAL,
    VIEW_PUBLIC,
    GameSpec,
    viewer_name,
)

from connect_four_env import layout as L
from connect_four_env import render, rules


def board_rows(state: np.ndarray) -> list[str]:
    """The board as 6 strings of 7 characters, the top row first: ``.`` empty, ``X`` seat 0, ``O`` seat 1."""
    chars = L.EMPTY_CHAR + L.PIECE_CHARS
    return ["".join(chars[int(state[L.BOARD + r * L.COLS + c])] for c in range(L.COLS))
            for r in reversed(range(L.ROWS))]


def action_to_string(state: np.ndarray, action: int) -> str:
    """``"d"``: the letter of the column the piece drops into (the position does not change it)."""
    if not 0 <= int(action) < L.COLS:
        raise ValueError(f"connect_four: action {short_repr(action)} is out of range 0..{L.COLS - 1}")
    return L.COLUMN_NAMES[int(action)]


def string_to_action(text: str, state: np.ndarray | None = None) -> int:
    """The action a column letter (``"d"``, ``"D"``, surrounding spaces ignored) names; ValueError for any
    other text. The position is not needed (every column is always the same action)."""
    if not isinstance(text, str):
        raise TypeError(f"connect_four: an action string must be a str, got {short_repr(text)}")
    key = text.strip().lower()
    if len(key) != 1 or key not in L.COLUMN_NAMES:
        raise ValueError(f"connect_four: {short_repr(text)} names no column; columns are {', '.join(L.COLUMN_NAMES)}")
    return L.COLUMN_NAMES.index(key)


def legal_strings(state: np.ndarray) -> list[str]:
    """The legal actions of the seat to move, as strings, in column order ([] once the game is over)."""
    mask = np.zeros(L.COLS, dtype=np.int8)
    rules.legal_mask(state, mask)
    return [action_to_string(state, int(a)) for a in np.flatnonzero(mask)]


class ConnectFourGame(GameSpec):
    kernels = rules
    min_players = 2
    max_players = 2
    option_defaults: dict[str, Any] = {}
    phase_names = ("drop",)
    hidden_information = False
    obs_pending_blocks = ("TO_MOVE",)
    #: every part of to_dict follows from the board and the seat to move, which the observation shows
    obs_leaves_out: dict[str, str] = {}

    def _pack_params(self, num_players: int, options: dict[str, Any]) -> np.ndarray:
        params = np.zeros(L.PARAMS_LEN, dtype=np.int64)
        params[L.P_PLAYERS] = num_players
        return params

    def params_to_options(self, params: np.ndarray) -> dict[str, Any]:
        return {"num_players": int(params[L.P_PLAYERS])}

    def max_game_length(self, params: np.ndarray) -> int:
        """One piece per decision, and the board holds 42."""
        return L.CELLS

    def num_actions(self, params: np.ndarray) -> int:
        return L.COLS

    def obs_shape(self, params: np.ndarray) -> tuple[int, ...]:
        return (L.OBS_LEN,)

    def obs_layout(self, params: np.ndarray) -> Layout:
        return L.OBS

    # ---- people ----------------------------------------------------------------------------
    def action_to_string(self, state: np.ndarray, action: int) -> str:
        return action_to_string(state, action)

    def string_to_action(self, text: str, state: np.ndarray | None = None) -> int:
        return string_to_action(text, state)

    def legal_strings(self, state: np.ndarray) -> list[str]:
        return legal_strings(state)

    def state_from_ascii(self, text: str) -> np.ndarray:
        return state_from_ascii(text)

    def to_dict(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> dict[str, Any]:
        # nothing is hidden: every viewer sees the whole game
        n = int(state[H_NPLAYERS])
        winner = int(state[L.WINNER]) - 1
        over = bool(state[H_TERMINAL])
        return {
            "game": "connect_four",
            "num_players": n,
            "board": board_rows(state),
            "heights": [int(state[L.HEIGHT + c]) for c in range(L.COLS)],
            "moves": int(state[H_DECISIONS]),
            "current_player": None if over else int(state[H_CURRENT]),
            "terminal": over,
            "winner": None if winner < 0 else winner,
            "draw": over and winner < 0,
            "done_players": [p for p in range(n) if (int(state[H_DONE]) >> p) & 1],
            "viewer": viewer_name(viewer),
        }

    def invariant_errors(self, state: np.ndarray) -> list[str]:
        board = state[L.BOARD : L.BOARD + L.CELLS]
        first, second = int(np.count_nonzero(board == 1)), int(np.count_nonzero(board == 2))
        errors = []
        if first - second not in (0, 1):
            errors.append(f"seat 0 has {first} pieces, seat 1 {second}: seat 0 must be level or one ahead")
        if first + second != int(state[L.HEIGHT : L.HEIGHT + L.COLS].sum()):
            errors.append("the pieces on the board differ from the column heights")
        return errors

    def render_ansi(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> str:
        return render.ansi(state)

    def render_rgb(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> np.ndarray:
        return render.rgb(state, viewer=viewer)


GAME = ConnectFourGame()


def state_from_ascii(text: str) -> np.ndarray:
    """A position from a picture of the board: 6 rows of 7 characters, the top row first, ``.`` empty,
    ``X`` seat 0 (who moves first), ``O`` seat 1; spaces and blank lines are ignored. The seat to
    move, the winner and the end of the game follow from the board. ValueError for a board play
    cannot reach (floating pieces, wrong counts, two winners, a win no last move made)."""
    rows = ["".join(line.split()) for line in str(text).splitlines()]
    rows = [r for r in rows if r]
    if len(rows) != L.ROWS or any(len(r) != L.COLS for r in rows):
        raise ValueError(f"connect_four: a board is {L.ROWS} rows of {L.COLS} cells, got {[len(r) for r in rows]}")
    params = GAME.make_params()
    state = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(state, params, 0)
    chars = L.EMPTY_CHAR + L.PIECE_CHARS
    for k, row in enumerate(rows):
        r = L.ROWS - 1 - k
        for c, ch in enumerate(row):
            if ch not in chars:
                raise ValueError(f"connect_four: bad board character {ch!r} in row {k + 1} (use . X O)")
            state[L.BOARD + r * L.COLS + c] = chars.index(ch)
    for c in range(L.COLS):
        column = state[L.BOARD + c : L.BOARD + L.CELLS : L.COLS]
        state[L.HEIGHT + c] = int(np.count_nonzero(column))
    pieces = int(np.count_nonzero(state[L.BOARD : L.BOARD + L.CELLS]))
    state[H_DECISIONS] = pieces
    state[H_CURRENT] = state[H_OWNER] = pieces % 2
    for seat in range(2):
        if rules.has_four(state, L.BOARD, 1 + seat):
            state[L.WINNER] = 1 + seat
    if state[L.WINNER] or pieces == L.CELLS:
        state[H_TERMINAL] = 1
        state[H_DONE] = 3
        state[H_CURRENT] = state[H_OWNER] = 0
    bad = rules.check_state(state, params)
    if bad:
        raise ValueError(f"connect_four: play cannot reach this board (slot {bad - 1} is inconsistent)")
    return state
