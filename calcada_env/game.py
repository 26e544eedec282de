"""Python-side facts about Calçada for the shared wrappers (:class:`gamecore.kernel.protocol.GameSpec`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from calcada_env import layout as L
from calcada_env import notation, render, rules
from gamecore.kernel.layout import Layout
from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import (
    H_CURRENT,
    H_DECISIONS,
    H_DONE,
    H_NPLAYERS,
    H_OWNER,
    H_TERMINAL,
    VIEW_ALL,
    VIEW_PUBLIC,
    GameSpec,
    viewer_name,
)


class CalcadaGame(GameSpec):
    kernels = rules
    min_players = 2
    max_players = 4
    option_defaults = {"start_player": 0, "board_side": "A"}
    phase_names = ("declare", "place")
    hidden_information = True  # the order of the face-down stacks
    obs_leaves_out = {
        "decisions": "a count of the decisions applied, kept for replays and tools: the rules give it no role "
                     "(the turn count they do give is the observation's TURNS)",
    }
    obs_pending_blocks = ("PHASE", "DECL_NUM", "DECL_COL", "CURRENT")

    def _pack_params(self, num_players: int, options: dict[str, Any]) -> np.ndarray:
        start = options["start_player"]
        if isinstance(start, bool) or not isinstance(start, (int, np.integer)):
            raise TypeError(f"calcada: start_player must be an int, got {short_repr(start)}")
        if not 0 <= start < num_players:
            raise ValueError(f"calcada: start_player must be a seat 0..{num_players - 1}, got {short_repr(start)}")
        side = options["board_side"]
        if not isinstance(side, str):
            raise TypeError(f"calcada: board_side must be 'A' or 'B', got {short_repr(side)}")
        if side.upper() not in L.SIDE_NAMES:
            raise ValueError(f"calcada: board_side must be 'A' or 'B', got {short_repr(side)}")
        params = np.zeros(L.PARAMS_LEN, dtype=np.int64)
        params[L.P_PLAYERS] = num_players
        params[L.P_SIDE] = L.SIDE_NAMES.index(side.upper())
        params[L.P_START] = int(start)
        return params

    def params_to_options(self, params: np.ndarray) -> dict[str, Any]:
        return {
            "num_players": int(params[L.P_PLAYERS]),
            "start_player": int(params[L.P_START]),
            "board_side": L.SIDE_NAMES[int(params[L.P_SIDE])],
        }

    def state_options(self, state: np.ndarray) -> dict[str, Any]:
        side = int(state[L.SIDE])
        return {"start_player": int(state[L.START]),
                "board_side": L.SIDE_NAMES[side] if 0 <= side < len(L.SIDE_NAMES) else f"side {side}"}

    def max_game_length(self, params: np.ndarray) -> int:
        """A turn is a declare and a placement, or one move without placing, plus bonus-tile spends
        (moves, swaps), one tile each. Tiles placed are at most 25 per board (and 125), every round
        but the last places a tile, so there are at most ``(min(25 n, 125) + 1) n`` turns; bonus
        tiles ever held are at most 2 n (start) + 2 x 25 (the bonus-symbol tiles)."""
        n = int(params[L.P_PLAYERS])
        turns = (min(25 * n, 125) + 1) * n
        return 2 * turns + 2 * n + 50

    def num_actions(self, params: np.ndarray) -> int:
        return L.NUM_ACTIONS

    def obs_shape(self, params: np.ndarray) -> tuple[int, ...]:
        return (L.obs_len(int(params[L.P_PLAYERS])),)

    def obs_layout(self, params: np.ndarray) -> Layout:
        return L.OBS[int(params[L.P_PLAYERS])]

    def obs_high(self, params: np.ndarray) -> int:
        return 127

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        return notation.action_to_string(state, action)

    def to_dict(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> dict[str, Any]:
        """Everything public (the same for every seat); the stacks' order (top first) only for
        VIEW_ALL. The bottom tiles of a stack that went under it in a swap are public."""
        n = int(state[H_NPLAYERS])
        side = int(state[L.SIDE])
        colours = {}
        for c in range(L.NUM_COLOURS):
            entry: dict[str, Any] = {
                "scoreboard_row": int(state[L.SB_ROW + c]),
                "on_scoreboard": not bool(rules.retired(state, c)),
                "multiplier": int(rules.multiplier(state, c)),
                "display": notation.display_tokens(state, c),
                "stack_size": int(state[L.STACK_N + c]),
                "stack_known_bottom": [
                    notation.tile_token(c, int(state[L.STACK + L.TILES_PER_COLOUR * c + i]))
                    for i in range(int(state[L.STACK_KNOWN + c]))
                ],
            }
            if viewer == VIEW_ALL:
                k = int(state[L.STACK_N + c])
                base = L.STACK + L.TILES_PER_COLOUR * c
                entry["stack_top_first"] = [
                    notation.tile_token(c, int(state[base + i])) for i in range(k - 1, -1, -1)
                ]
            colours[L.COLOURS[c]] = entry
        players = []
        for p in range(n):
            players.append(
                {
                    "seat": p,
                    "board": notation.board_rows(state, p),
                    "bonus_tiles": int(state[L.BONUS + p]),
                    "points": int(state[L.POINTS + p]),
                    "final_scoring": int(rules.final_scoring(state, p)),
                }
            )
        phase = int(state[L.PHASE])
        return {
            "game": "calcada",
            "num_players": n,
            "board_side": L.SIDE_NAMES[side],
            "board_layout": notation.layout_rows(side),
            "carousel": [
                {L.COLOURS[c]: int(state[L.CAR + L.NUM_COLOURS * s + c]) for c in range(L.NUM_COLOURS)}
                for s in range(L.NUM_SPACES)
            ],
            "colours": colours,
            "current_player": None if state[H_TERMINAL] else int(state[H_CURRENT]),
            "start_player": int(state[L.START]),
            "phase": "place" if phase == L.PHASE_PLACE else "declare",
            "declared_colour": L.COLOURS[int(state[L.DECL_COL])] if phase == L.PHASE_PLACE else None,
            "declared_number": int(state[L.DECL_NUM]) if phase == L.PHASE_PLACE else None,
            "end_triggered": bool(state[L.END_TRIGGERED]),
            "placed_this_round": bool(state[L.ROUND_PLACED]),
            "turns": int(state[L.TURNS]),
            "decisions": int(state[H_DECISIONS]),
            "terminal": bool(state[H_TERMINAL]),
            "done_players": [p for p in range(n) if (int(state[H_DONE]) >> p) & 1],
            "players": players,
            "viewer": viewer_name(viewer),
        }

    def render_ansi(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> str:
        return render.ansi(state)

    def render_rgb(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> np.ndarray:
        return render.rgb(state, viewer)

    def render_terminal(self, state: np.ndarray, viewer: int = VIEW_PUBLIC, colour: bool = True) -> str:
        return render.terminal(state, colour)


GAME = CalcadaGame()


def _colour_id(name: str | int) -> int:
    if isinstance(name, (int, np.integer)):
        return int(name)
    if name in L.COLOURS:
        return L.COLOURS.index(name)
    if len(name) == 1 and name in L.COLOUR_CHARS:
        return L.COLOUR_CHARS.index(name)
    raise ValueError(f"unknown colour {name!r}; colours: {', '.join(L.COLOURS)}")


def state_from_ascii(
    text: str | list[str] | tuple[str, ...],
    *,
    board_side: str = "A",
    current: int = 0,
    start_player: int = 0,
    carousel: list[str] | None = None,
    scoreboard: dict[str, int] | None = None,
    displays: dict[str, str] | None = None,
    bonus: dict[int, int] | None = None,
    points: dict[int, int] | None = None,
    declared: tuple[str, int] | None = None,
    end_triggered: bool = False,
    placed_this_round: bool = False,
    seed: int = 0,
) -> np.ndarray:
    """Build a mid-game state from ``text``, the seats' boards in ASCII (see :mod:`calcada_env.notation`):
    one string per seat, or one string with the boards one after another (5 rows each, seat 0 first;
    blank lines are ignored). The number of boards is the number of players.

    ``carousel``: 6 strings of colour chars, e.g. ``["y", "rr", "bbb", "", "gg", "pp..."]`` (3 of
    each colour in all). ``scoreboard``: colour -> row (0 = top; the row count = left the
    scoreboard); colours not named stay on the top row. ``displays``: colour -> up to 3 tokens
    (``"bk b* ."``); colours not named reveal the top 3 of their remaining stack. Tiles on boards
    and displays are taken out of the colour's 25; the rest form the stack in a seeded random order.
    ``bonus``/``points``: seat -> count (defaults 2 / 0). ``declared = (colour, number)`` starts
    ``current`` in the placement phase.
    """
    if isinstance(text, str):
        rows = [line for line in text.splitlines() if line.split()]
        if not rows or len(rows) % L.BOARD_W:
            raise ValueError(f"the boards need 5 rows each, got {len(rows)} rows")
        boards = ["\n".join(rows[i : i + L.BOARD_W]) for i in range(0, len(rows), L.BOARD_W)]
    else:
        boards = list(text)
    n = len(boards)
    params = GAME.make_params(num_players=n, start_player=start_player, board_side=board_side)
    state = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(state, params, seed)
    left = {c: [int(state[L.STACK + L.TILES_PER_COLOUR * c + i]) for i in range(int(state[L.STACK_N + c]))]
            for c in range(L.NUM_COLOURS)}
    for c in range(L.NUM_COLOURS):  # put the initial display back on top of the stack
        for slot in range(L.DISPLAY_SIZE - 1, -1, -1):
            v = int(state[L.DISPLAY + L.DISPLAY_SIZE * c + slot])
            if v:
                left[c].append(v - 1)
            state[L.DISPLAY + L.DISPLAY_SIZE * c + slot] = 0

    def take(c: int, kind: int, where: str) -> None:
        if kind not in left[c]:
            raise ValueError(f"{where}: no {notation.tile_name(c, kind)} tile left (only "
                             f"{int(L.KIND_COPIES[kind])} exist)")
        idx = len(left[c]) - 1 - left[c][::-1].index(kind)
        del left[c][idx]

    for p, board in enumerate(boards):
        for sq, tile in enumerate(notation.parse_board(board)):
            if tile is None:
                continue
            colour, kind = tile
            take(colour, kind, f"seat {p} {notation.square_name(sq)}")
            state[L.BOARD + L.NUM_SQUARES * p + sq] = 1 + colour * L.NUM_KINDS + kind
    shown: dict[int, list[int]] = {}
    for name, tokens in (displays or {}).items():
        c = _colour_id(name)
        toks = tokens.split()
        if len(toks) > L.DISPLAY_SIZE:
            raise ValueError(f"display {name}: at most 3 tiles")
        shown[c] = []
        for tok in toks:
            tile = notation.parse_tile(tok)
            if tile is None:
                shown[c].append(0)
                continue
            if tile[0] != c:
                raise ValueError(f"display {name}: tile {tok!r} has another colour")
            take(c, tile[1], f"display {name}")
            shown[c].append(1 + tile[1])
    for c in range(L.NUM_COLOURS):
        base = L.STACK + L.TILES_PER_COLOUR * c
        for i in range(L.TILES_PER_COLOUR):
            state[base + i] = left[c][i] if i < len(left[c]) else 0
        state[L.STACK_N + c] = len(left[c])
        if c in shown:
            for slot, v in enumerate(shown[c]):
                state[L.DISPLAY + L.DISPLAY_SIZE * c + slot] = v
        else:
            rules.refill_display(state, c)
    if carousel is not None:
        if len(carousel) != L.NUM_SPACES:
            raise ValueError("carousel needs 6 spaces")
        state[L.CAR : L.CAR + L.NUM_SPACES * L.NUM_COLOURS] = 0
        for s, stones in enumerate(carousel):
            for ch in stones.replace(" ", ""):
                state[L.CAR + L.NUM_COLOURS * s + _colour_id(ch)] += 1
    for name, row in (scoreboard or {}).items():
        state[L.SB_ROW + _colour_id(name)] = row
    for p in range(n):
        state[L.BONUS + p] = (bonus or {}).get(p, L.STARTING_BONUS)
        state[L.POINTS + p] = (points or {}).get(p, 0)
    state[H_CURRENT] = current
    state[H_OWNER] = current
    state[L.TURNS] = (current - start_player) % n  # as in the first round: the turns since the start seat
    state[L.END_TRIGGERED] = int(end_triggered)
    state[L.ROUND_PLACED] = int(placed_this_round)
    if declared is not None:
        state[L.PHASE] = L.PHASE_PLACE
        state[L.DECL_COL] = _colour_id(declared[0])
        state[L.DECL_NUM] = declared[1]
    bad = rules.check_state(state, params)
    if bad:
        raise ValueError(f"state_from_ascii built a malformed state: slot {bad - 1}")
    return state


def legal_strings(state: np.ndarray) -> list[str]:
    """The legal actions of the seat to move in ``state``, as strings
    (:func:`calcada_env.notation.action_to_string`), sorted; empty once the game is over."""
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rules.legal_mask(state, mask)
    return sorted(notation.action_to_string(state, int(a)) for a in np.flatnonzero(mask))
