"""Python-side facts about Callisto for the shared wrappers (:class:`gamecore.kernel.protocol.GameSpec`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from callisto_env import layout as L
from callisto_env import notation, render, rules
from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import (
    H_CURRENT,
    H_DONE,
    H_NPLAYERS,
    H_OWNER,
    H_TERMINAL,
    VIEW_PUBLIC,
    GameSpec,
    viewer_name,
)


class CallistoGame(GameSpec):
    kernels = rules
    min_players = 2
    max_players = 4
    option_defaults = {"start_player": 0, "match": False}

    def _pack_params(self, num_players: int, options: dict[str, Any]) -> np.ndarray:
        start = options["start_player"]
        if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or not 0 <= start < num_players:
            raise ValueError(f"callisto: start_player must be a seat 0..{num_players - 1}, got {short_repr(start)}")
        match = options["match"]
        if not isinstance(match, (bool, np.bool_)):
            raise TypeError(f"callisto: match must be True or False, got {short_repr(match)}")
        params = np.zeros(L.PARAMS_LEN, dtype=np.int64)
        params[L.P_PLAYERS] = num_players
        params[L.P_START] = int(start)
        params[L.P_MATCH] = int(bool(match))
        return params

    def params_to_options(self, params: np.ndarray) -> dict[str, Any]:
        return {
            "num_players": int(params[L.P_PLAYERS]),
            "start_player": int(params[L.P_START]),
            "match": bool(params[L.P_MATCH]),
        }

    def state_options(self, state: np.ndarray) -> dict[str, Any]:
        return {"start_player": int(state[L.FIRST_START]), "match": bool(state[L.MATCH])}

    def max_game_length(self, params: np.ndarray) -> int:
        """Every decision places one of the mover's 3 pillars or 13 tiles (skips are not
        decisions): at most 16 n decisions a game, and a match (``match=True``) is n games."""
        n = int(params[L.P_PLAYERS])
        games = n if params[L.P_MATCH] else 1
        return 16 * n * games

    def num_actions(self, params: np.ndarray) -> int:
        return L.num_actions(L.BOARD_SIZE[int(params[L.P_PLAYERS])])

    def obs_shape(self, params: np.ndarray) -> tuple[int, ...]:
        n = int(params[L.P_PLAYERS])
        size = L.BOARD_SIZE[n]
        return (size, size, L.num_planes(n))

    def obs_high_vector(self, params: np.ndarray) -> np.ndarray:
        """Every plane's maximum (``layout.OBS_PLANES``) at every cell: (S * S * C,) in C order."""
        n = int(params[L.P_PLAYERS])
        size = L.BOARD_SIZE[n]
        return np.tile(L.OBS_PLANES[n].high_vector(), size * size)

    def observation_views(self, obs: np.ndarray, params: np.ndarray) -> dict[str, np.ndarray]:
        """Named views onto an ``(S, S, C)`` observation (or a batch ``(..., S, S, C)``): for each
        plane group of ``layout.OBS_PLANES[n]``, in order, ``obs[..., off:end]`` with the group's
        shape as trailing axes (``REMAIN``: ``(..., S, S, n, 10)``). Views share ``obs``'s memory."""
        n = int(params[L.P_PLAYERS])
        arr = np.asarray(obs)
        shape = self.obs_shape(params)
        if arr.ndim < 3 or arr.shape[-3:] != tuple(shape):
            raise ValueError(f"{self.name}: an observation of shape {tuple(shape)} (or a batch of them) is needed, "
                             f"got shape {arr.shape}")
        return L.OBS_PLANES[n].views(arr)

    #: the seat to move; the kind of decision follows from its OPENING plane (see the env docstring)
    obs_pending_blocks = ("TO_MOVE",)
    obs_leaves_out = {
        "finished_game_penalties": "each finished game's penalties one by one: the observation shows their "
        "per-seat sums (MATCH_PEN), the only thing the rules use (rewards and ranks of a match count the sums)",
    }

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        return notation.action_to_string(state, action)

    phase_names = ("turn",)

    def to_dict(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> dict[str, Any]:
        # Callisto has no hidden information: every viewer sees the whole game.
        n = int(state[H_NPLAYERS])
        size = int(state[L.SIZE])
        players = []
        for p in range(n):
            players.append(
                {
                    "seat": p,
                    "colour": L.COLOURS[p],
                    "unplaced_tiles": {
                        L.TILE_NAMES[t]: int(state[L.REMAIN + L.NUM_TILE_TYPES * p + t])
                        for t in range(L.NUM_TILE_TYPES)
                    },
                    "pillars_placed": int(state[L.PILLARS + p]),
                    "opening_pillar_turns_used": int(state[L.PILLAR_TURNS + p]),
                    "third_pillar_available": bool(state[L.THIRD + p]),
                    "out": bool(state[L.OUT + p]),
                    "penalty": int(rules.penalty(state, p)),
                    "match_penalty": int(state[L.MATCH_PEN + p]),
                }
            )
        game = int(state[L.GAME])
        return {
            "game": "callisto",
            "num_players": n,
            "board_size": size,
            "board": notation.board_rows(state),
            "current_player": None if state[H_TERMINAL] else int(state[H_CURRENT]),
            "start_player": int(state[L.START]),
            "terminal": bool(state[H_TERMINAL]),
            "done_players": [p for p in range(n) if (int(state[H_DONE]) >> p) & 1],
            "match": bool(state[L.MATCH]),
            "match_game": game,
            "finished_game_penalties": [
                [int(state[L.GAME_PEN + L.MAX_PLAYERS * g + p]) for p in range(n)]
                for g in range(game + (1 if state[H_TERMINAL] else 0))
            ],
            "players": players,
            "viewer": viewer_name(viewer),
        }

    def invariant_errors(self, state: np.ndarray) -> list[str]:
        errors = []
        n = int(state[H_NPLAYERS])
        size = int(state[L.SIZE])
        board = state[L.BOARD : L.BOARD + size * size]
        for p in range(n):
            on_board = int(np.count_nonzero((board != 0) & ((board - 1) % 4 == p) & ((board - 1) // 4 > 0)))
            unplaced = int(rules.penalty(state, p))
            if on_board + unplaced != int((L.TILE_COPIES * L.TILE_SIZE).sum()):
                errors.append(f"seat {p}: {on_board} squares placed + {unplaced} unplaced != 47")
            pillars = int(np.count_nonzero((board != 0) & ((board - 1) % 4 == p) & ((board - 1) // 4 == 0)))
            if pillars != int(state[L.PILLARS + p]):
                errors.append(f"seat {p}: {pillars} pillars on the board, counter says {int(state[L.PILLARS + p])}")
        return errors

    def render_ansi(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> str:
        return render.ansi(state)

    def render_rgb(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> np.ndarray:
        return render.rgb(state, viewer)

    def render_terminal(self, state: np.ndarray, viewer: int = VIEW_PUBLIC, colour: bool = True) -> str:
        return render.terminal(state, colour)


GAME = CallistoGame()


def state_from_ascii(
    text: str,
    num_players: int | None = None,
    *,
    current: int = 0,
    pillar_turns: dict[int, int] | None = None,
    third: dict[int, bool] | None = None,
    remaining: dict[int, dict[str, int]] | None = None,
    start_player: int = 0,
) -> np.ndarray:
    """Build a mid-game state from ``text``, an ASCII board (see :mod:`callisto_env.notation`;
    :func:`callisto_env.notation.board_to_ascii` writes one); ``num_players`` defaults to the count
    whose board has that many rows.

    Seats default to: both opening pillar turns used, third pillar available, and full tile sets;
    ``remaining[seat]`` replaces a seat's unplaced tiles (types not named are 0). Tile squares read
    from ASCII are recorded as tile type D2 (the shape of a placed tile does not affect the rules).
    The returned state has ``current`` to move (its legal set cached) and has *not* been settled:
    call it on a seat that can act.
    """
    rows = notation.parse_ascii_rows(text)
    size = len(rows)
    if num_players is None:
        num_players = {v: k for k, v in L.BOARD_SIZE.items()}.get(size)
        if num_players is None:
            raise ValueError(f"board of {size} rows matches no player count")
    if L.BOARD_SIZE[num_players] != size or any(len(r) != size for r in rows):
        raise ValueError(f"{num_players} players need a {L.BOARD_SIZE[num_players]}x{L.BOARD_SIZE[num_players]} board")
    params = GAME.make_params(num_players=num_players, start_player=start_player)
    state = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(state, params, 0)
    serial = 0
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            serial += 1
            if ch in L.PILLAR_CHARS[:num_players]:
                owner = L.PILLAR_CHARS.index(ch)
                state[L.BOARD + r * size + c] = 1 + owner
                state[L.PILLARS + owner] += 1
            elif ch in L.TILE_CHARS[:num_players]:
                owner = L.TILE_CHARS.index(ch)
                state[L.BOARD + r * size + c] = 1 + owner + 4
            else:
                raise ValueError(f"bad board character {ch!r} at {notation.cell_name(r * size + c, size)}")
            state[L.SEQ + r * size + c] = serial
    for p in range(num_players):
        state[L.PILLAR_TURNS + p] = (pillar_turns or {}).get(p, 2)
        state[L.THIRD + p] = int((third or {}).get(p, True))
        if remaining is not None and p in remaining:
            for t, name in enumerate(L.TILE_NAMES):
                state[L.REMAIN + L.NUM_TILE_TYPES * p + t] = remaining[p].get(name, 0)
            unknown = set(remaining[p]) - set(L.TILE_NAMES)
            if unknown:
                raise ValueError(f"unknown tile names {sorted(unknown)}")
    state[H_CURRENT] = current
    state[H_OWNER] = current
    state[L.TURNS] = serial
    rules.rebuild_bitboards(state)
    rules.refresh_legal(state)
    return state


def legal_strings(state: np.ndarray) -> list[str]:
    """The legal actions of the seat to move in ``state``, as strings
    (:func:`callisto_env.notation.action_to_string`), sorted; empty once the game is over."""
    mask = np.zeros(L.num_actions(int(state[L.SIZE])), dtype=np.int8)
    rules.legal_mask(state, mask)
    return sorted(notation.action_to_string(state, int(a)) for a in np.flatnonzero(mask))
