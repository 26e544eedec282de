"""Python-side facts about Cultivo for the shared wrappers (:class:`gamecore.kernel.protocol.GameSpec`), and a builder
of positions from text for tests and examples (:func:`state_from_ascii`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cultivo_env import layout as L
from cultivo_env import notation, render, rules
from cultivo_env.rules.accessors import owns, place_of
from cultivo_env.rules.scoring import building_points, equipment_points, final_score, goods_triples, tiebreak_goods
from cultivo_env.rules.setup import assign_colours
from cultivo_env.rules.turn import clear_action, market_count
from gamecore.kernel.layout import Layout
from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import (
    H_CURRENT,
    H_DECISIONS,
    H_DONE,
    H_NPLAYERS,
    H_OWNER,
    H_PHASE,
    H_TERMINAL,
    VIEW_ALL,
    VIEW_PUBLIC,
    GameSpec,
    viewer_name,
)


class CultivoGame(GameSpec):
    kernels = rules
    min_players = 2
    max_players = 4
    option_defaults = {"start_player": 0, "random_villages": True, "max_rounds": L.DEFAULT_MAX_ROUNDS}
    phase_names = L.PHASE_NAMES
    obs_pending_blocks = ("PHASE", "ACT", "OWNER")
    obs_leaves_out = {
        "decisions": "how many decisions were taken so far, a counter of the record that no rule uses (the "
        "observation shows the rounds, the seat to move and the start seat, from which `turns` follows)",
    }
    hidden_information = True  # the order of the face-down stack, and which pieces left the game
    # a random Cultivo game is hundreds of decisions, each with its payment searches: MCTS rollouts
    # stop after 8 and value the position by tanh(margin / 20 VP) (gamecore.search.mcts, "Rollout horizon")
    mcts_horizon = 8
    mcts_value_scale = 20.0

    def hides_information(self, num_players: int) -> bool:
        return num_players > 2  # 2 players: no face-down stack, and every piece out of the game is alike

    def _pack_params(self, num_players: int, options: dict[str, Any]) -> np.ndarray:
        start = options["start_player"]
        if isinstance(start, bool) or not isinstance(start, (int, np.integer)):
            raise TypeError(f"cultivo: start_player must be an int, got {short_repr(start)}")
        if not 0 <= start < num_players:
            raise ValueError(f"cultivo: start_player must be a seat 0..{num_players - 1}, got {short_repr(start)}")
        rv = options["random_villages"]
        if not isinstance(rv, (bool, np.bool_)):
            raise TypeError(f"cultivo: random_villages must be True or False, got {short_repr(rv)}")
        mr = options["max_rounds"]
        if isinstance(mr, bool) or not isinstance(mr, (int, np.integer)):
            raise TypeError(f"cultivo: max_rounds must be an int, got {short_repr(mr)}")
        if not 1 <= mr <= 10_000:
            raise ValueError(f"cultivo: max_rounds must be 1..10000, got {short_repr(mr)}")
        params = np.zeros(L.PARAMS_LEN, dtype=np.int64)
        params[L.P_PLAYERS] = num_players
        params[L.P_START] = int(start)
        params[L.P_RANDOM_VILLAGES] = int(bool(rv))
        params[L.P_MAX_ROUNDS] = int(mr)
        return params

    def params_to_options(self, params: np.ndarray) -> dict[str, Any]:
        return {
            "num_players": int(params[L.P_PLAYERS]),
            "start_player": int(params[L.P_START]),
            "random_villages": bool(params[L.P_RANDOM_VILLAGES]),
            "max_rounds": int(params[L.P_MAX_ROUNDS]),
        }

    def state_options(self, state: np.ndarray) -> dict[str, Any]:
        return {"start_player": int(state[L.START]), "max_rounds": int(state[L.MAX_ROUNDS])}

    def max_game_length(self, params: np.ndarray) -> int:
        """At most ``max_rounds`` rounds of n turns of at most 3 actions (2, plus the 10th worker's
        extra action); an action takes at most 4 + F + 6 n decisions (the kind, a target, an origin
        or worker, at most F steps of a simple path over the F fields, at most n amounts per colour
        of the payment, the exchange; a purchase or building fewer: slot, split, 6 stalls, refill),
        plus n setup decisions."""
        n = int(params[L.P_PLAYERS])
        fields = int(L.NUM_FIELDS[n])
        rounds = int(self.params_to_options(params)["max_rounds"])
        return n + 3 * n * rounds * (4 + fields + 6 * n)

    def num_actions(self, params: np.ndarray) -> int:
        return L.NUM_ACTIONS

    def obs_shape(self, params: np.ndarray) -> tuple[int, ...]:
        return (L.obs_len(int(params[L.P_PLAYERS])),)

    def obs_layout(self, params: np.ndarray) -> Layout:
        return L.OBS[int(params[L.P_PLAYERS])]

    def obs_high(self, params: np.ndarray) -> int:
        return L.OBS_HIGH

    def action_to_string(self, state: np.ndarray, action: int) -> str:
        return notation.action_to_string(state, action)

    def to_dict(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> dict[str, Any]:
        """Everything is public (the same for every seat) except the face-down stack: its order and
        which pieces left the game at setup are shown only to ``VIEW_ALL``."""
        n = int(state[H_NPLAYERS])
        nf = int(L.NUM_FIELDS[n])
        market = []
        for r in range(L.MARKET_W):
            row = []
            for c in range(L.MARKET_W):
                v = int(state[L.MARKET + L.MARKET_W * r + c])
                row.append(notation.piece_name(v - 1) if v else None)
            market.append(row)
        players = []
        for p in range(n):
            players.append({
                "seat": p,
                "goods": {L.COLOURS[c]: int(state[L.GOODS_S + L.NUM_COLOURS * p + c]) for c in range(L.NUM_COLOURS)},
                "workers_on_map": int(state[L.WORKERS_ON_MAP + p]),
                "workers_in_supply": L.WORKERS - int(state[L.WORKERS_ON_MAP + p]),
                "worker_fields": [notation.field_name(state, f) for f in range(nf) if state[L.WORKER + f] == p + 1],
                "equipment": notation.owned_pieces(state, p),
                "buildings": [{"type": L.BUILDINGS[int(state[L.FIELD_COLOUR + f])],
                               "field": notation.field_name(state, f)}
                              for f in range(nf) if state[L.BUILDING + f] == p + 1],
                "vp_tiles": int(state[L.VP_TILES_S + p]),
                "score": {
                    "total": int(final_score(state, p)),
                    "goods_triples": int(goods_triples(state, p)),
                    "vp_tiles": int(state[L.VP_TILES_S + p]),
                    "equipment": int(equipment_points(state, p)),
                    "buildings": {L.BUILDINGS[b]: int(building_points(state, p, b)) for b in range(L.NUM_COLOURS)
                                  if (int(state[L.BUILT + p]) >> b) & 1},
                    "tiebreak_goods": int(tiebreak_goods(state, p)),
                },
            })
        k = int(state[L.BUILDINGS_TOTAL])
        out: dict[str, Any] = {
            "game": "cultivo",
            "num_players": n,
            "viewer": viewer_name(viewer),
            "map": {
                "height": int(L.MAP_H[n]),
                "width": int(L.MAP_W[n]),
                "places": [{"place": pl, "village": f"V{int(state[L.PLACE_TILE + pl]) + 1}",
                            "turned": bool(state[L.PLACE_FLIP + pl])} for pl in range(int(L.NUM_PLACES[n]))],
                "fields": [field_dict(state, f) for f in range(nf)],
                "ascii": notation.map_ascii(state).splitlines(),
            },
            "market": {
                "row_colours": [L.COLOURS[c] for c in L.MARKET_ORDER],
                "column_colours": [L.COLOURS[c] for c in L.MARKET_ORDER],
                "grid": market,
                "pieces_left": int(market_count(state)),
            },
            "stack_size": int(state[L.STACK_N]),
            "vp_tiles_left": list(L.VP_TILES[k:]),
            "buildings_built": k,
            "players": players,
            "phase": L.PHASE_NAMES[int(state[H_PHASE])],
            "current_player": None if state[H_TERMINAL] else int(state[H_CURRENT]),
            "turn_owner": None if state[H_TERMINAL] else int(state[H_OWNER]),
            "start_player": int(state[L.START]),
            "round": int(state[L.ROUND]),
            "turns": int(state[L.TURNS]),
            "actions_left": int(state[L.ACTIONS_LEFT]),
            "end_triggered": bool(state[L.END_TRIGGERED]),
            "final_round": bool(state[L.FINAL_ROUND]),
            "action": payment_dict(state),
            "decisions": int(state[H_DECISIONS]),
            "terminal": bool(state[H_TERMINAL]),
            "done_players": [p for p in range(n) if (int(state[H_DONE]) >> p) & 1],
        }
        if viewer == VIEW_ALL:
            out["stack_top_first"] = [notation.piece_name(int(state[L.STACK + i]))
                                      for i in range(int(state[L.STACK_N]) - 1, -1, -1)]
            out["out_of_game"] = [notation.piece_name(e) for e in range(L.NUM_EQUIP)
                                  if state[L.EQUIP_LOC + e] == L.LOC_OUT]
        return out

    def render_ansi(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> str:
        return render.ansi(state)

    def render_rgb(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> np.ndarray:
        return render.rgb(state, viewer)

    def invariant_errors(self, state: np.ndarray) -> list[str]:
        n = int(state[H_NPLAYERS])
        errors = []
        goods = state[L.GOODS_S: L.GOODS_S + L.NUM_COLOURS * n]
        if (goods < 0).any():
            errors.append(f"negative goods {goods.tolist()}")
        placed = sum(1 for e in range(L.NUM_EQUIP) if state[L.EQUIP_LOC + e] != L.LOC_OUT)
        if placed > L.MARKET_SLOTS + L.STACK_SIZE[n]:
            errors.append(f"{placed} pieces in play, only {L.MARKET_SLOTS + L.STACK_SIZE[n]} came out")
        return errors


GAME = CultivoGame()


# ---- the view as a dict -----------------------------------------------------------------------------
def field_dict(state: np.ndarray, f: int) -> dict[str, Any]:
    n = int(state[H_NPLAYERS])
    t, j = notation.tile_position(state, f)
    r, c = (int(x) for x in L.FIELD_RC[n, f])
    w = int(state[L.WORKER + f])
    b = int(state[L.BUILDING + f])
    colour = int(state[L.FIELD_COLOUR + f])
    neighbours = []
    for d in range(4):
        g = int(L.NEIGH[n, f, d])
        if g >= 0:
            neighbours.append({"field": g, "name": notation.field_name(state, g),
                               "canal": bool(place_of(f) != place_of(g))})
    return {
        "field": f,
        "name": notation.field_name(state, f),
        "place": int(place_of(f)),
        "village": f"V{t + 1}",
        "tile_position": j + 1,
        "row": r,
        "col": c,
        "colour": L.COLOURS[colour],
        "good": L.GOODS[colour],
        "worker": w - 1 if w else None,
        "building": ({"owner": b - 1, "type": L.BUILDINGS[colour]} if b else None),
        "neighbours": neighbours,
    }


def payment_dict(state: np.ndarray) -> dict[str, Any] | None:
    if state[L.ACT] < 0:
        return None
    n = int(state[H_NPLAYERS])
    p = int(state[H_CURRENT])
    obligations = []
    for j in range(int(state[L.OBL_N])):
        kind = "field" if state[L.OBL_KIND + j] == L.OBL_FIELD_KIND else "canal"
        entry: dict[str, Any] = {"kind": kind}
        if kind == "field":
            f = int(state[L.OBL_WHERE + j])
            occ = int(state[L.OBL_OCC + j])
            entry.update(field=f, name=notation.field_name(state, f), colour=L.COLOURS[int(state[L.OBL_COLOUR + j])],
                         other_worker=occ - 1 if occ else None)
        else:
            i = int(state[L.OBL_WHERE + j])
            a, b = int(state[L.PATH + i]), int(state[L.PATH + i + 1])
            entry.update(between=[notation.field_name(state, a), notation.field_name(state, b)])
        obligations.append(entry)
    agg = state[L.AGG: L.AGG + L.AGG_LEN]
    stalls = [c for c in range(L.NUM_COLOURS) if owns(state, p, L.STALL, c)]
    pending = None
    if state[H_PHASE] == L.PH_PAY:
        c, j = divmod(int(state[L.PAY_I]), n)
        pending = {"colour": L.COLOURS[c], "receiver": None if j == 0 else (p + j) % n}
    return {
        "kind": L.ACTION_KINDS[int(state[L.ACT])],
        "target": notation.field_name(state, int(state[L.TARGET])) if state[L.TARGET] >= 0 else None,
        "mover": notation.field_name(state, int(state[L.MOVER])) if state[L.MOVER] >= 0 else None,
        "path": [notation.field_name(state, int(state[L.PATH + i])) for i in range(int(state[L.PATH_N]))],
        "obligations": obligations,
        "pending_amount": pending,
        "to_supply": {L.COLOURS[c]: int(agg[L.NUM_COLOURS * L.SUPPLY + c]) for c in range(L.NUM_COLOURS)},
        # keyed by the seat as a string: JSON's object keys are strings, so the view round-trips
        "to_players": {str(q): {L.COLOURS[c]: int(agg[L.NUM_COLOURS * q + c]) for c in range(L.NUM_COLOURS)}
                       for q in range(n) if q != p},
        "stalls": [L.COLOURS[c] for c in stalls],
        "stall_choices": [{"stall": L.COLOURS[stalls[i]], "code": int(state[L.STALL_CHOICE + i])}
                          for i in range(int(state[L.STALL_K]))],
        "slot": int(state[L.SLOT]) if state[L.SLOT] >= 0 else None,
        "split": int(state[L.SPLIT]) or None,
        "build_field": notation.field_name(state, int(state[L.BUILD_FIELD])) if state[L.BUILD_FIELD] >= 0 else None,
    }


# ---- positions from text ---------------------------------------------------------------------------
def _names(text: str | list[str] | tuple[str, ...]) -> list[str]:
    if isinstance(text, str):
        return [t for t in text.replace(",", " ").split() if t]
    return list(text)


def state_from_ascii(
    text: str | None = None,
    *,
    num_players: int | None = None,
    villages: str | None = None,
    workers: dict[int, str] | None = None,
    buildings: dict[int, str] | None = None,
    goods: dict[int, str] | None = None,
    equipment: dict[int, str] | None = None,
    market: list[str] | None = None,
    stack: str | None = None,
    current: int = 0,
    start_player: int = 0,
    actions_left: int = 2,
    round: int = 0,  # noqa: A002 - the game's word
    end_triggered: bool = False,
    final_round: bool = False,
    max_rounds: int = L.DEFAULT_MAX_ROUNDS,
    seed: int = 0,
) -> np.ndarray:
    """A position at the start of an action of seat ``current`` (phase ``action``).

    ``text``: the map in :func:`cultivo_env.notation.map_ascii`'s notation (read by
    :func:`cultivo_env.notation.parse_map`): the village tiles and their directions, the workers and
    the buildings; the player count is the map's. Without ``text`` those come from ``num_players``
    (default 2), ``villages``, ``workers`` and ``buildings``, which a ``text`` leaves out.
    ``villages``: the tile on each place in order, e.g. ``"V3 V1* V2 ..."`` (``*`` = turned by 180
    degrees); default V1, V2, ... unturned. ``workers`` / ``buildings``: seat -> fields
    (``"V1.1 V3.2"``); a building's type is its field's colour. ``goods``: seat -> ``"r2 y5"``.
    ``equipment``: seat -> pieces (``"red cart, blue stall"``). ``market``: 5 rows of 5 pieces or
    ``-`` (comma-separated), default the seeded setup without the pieces owned; ``stack``: pieces
    bottom first. Pieces named nowhere leave the game. The VP tiles go to the buildings in seat
    order (the k-th building takes 8 - k).
    """
    drawn = None
    if text is not None:
        if not isinstance(text, str):
            raise TypeError(f"text must be the map as a str (notation.map_ascii), got {short_repr(text)}; "
                            "the player count goes in num_players=")
        if villages is not None or workers is not None or buildings is not None:
            raise ValueError("the map is given twice: as text and as villages / workers / buildings")
        drawn = notation.parse_map(text)
        if num_players is not None and num_players != drawn.num_players:
            raise ValueError(f"the map is a {drawn.num_players}-player map, not a {num_players}-player one")
        num_players = drawn.num_players
        villages = " ".join(drawn.villages)
        workers = {p: " ".join(names) for p, names in drawn.workers.items()}
        buildings = {p: " ".join(names) for p, names in drawn.buildings.items()}
    if num_players is None:
        num_players = 2
    params = GAME.make_params(num_players=num_players, start_player=start_player, random_villages=False,
                              max_rounds=max_rounds)
    n = int(num_players)
    st = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(st, params, seed)
    nplaces = int(L.NUM_PLACES[n])
    if villages is not None:
        toks = _names(villages)
        if len(toks) != nplaces:
            raise ValueError(f"villages: {nplaces} tiles needed, got {len(toks)}")
        for pl, tok in enumerate(toks):
            flip = tok.endswith("*")
            t = int(tok.rstrip("*").upper().lstrip("V")) - 1
            st[L.PLACE_TILE + pl] = t
            st[L.PLACE_FLIP + pl] = int(flip)
        assign_colours(st)
    st[L.WORKER: L.WORKER + L.MAX_FIELDS] = 0
    st[L.GOODS_S: L.GOODS_S + L.MAX_PLAYERS * L.NUM_COLOURS] = 0
    for p in range(L.MAX_PLAYERS):
        st[L.WORKERS_ON_MAP + p] = 0
    for p, text in (workers or {}).items():
        for name in _names(text):
            f = notation.parse_field(st, name)
            if st[L.WORKER + f]:
                raise ValueError(f"two workers on {name}")
            st[L.WORKER + f] = p + 1
            st[L.WORKERS_ON_MAP + p] += 1
    total = 0
    for p in range(n):
        for name in _names((buildings or {}).get(p, "")):
            f = notation.parse_field(st, name)
            c = int(st[L.FIELD_COLOUR + f])
            if st[L.BUILDING + f] or (int(st[L.BUILT + p]) >> c) & 1:
                raise ValueError(f"building on {name}: taken, or player_{p} has its {L.BUILDINGS[c]} already")
            st[L.BUILDING + f] = p + 1
            st[L.BUILT + p] |= 1 << c
            total += 1
            if total <= len(L.VP_TILES):
                st[L.VP_TILES_S + p] += L.VP_TILES[total - 1]
    st[L.BUILDINGS_TOTAL] = total
    for p, text in (goods or {}).items():
        for c, k in enumerate(notation.parse_goods(text)):
            st[L.GOODS_S + L.NUM_COLOURS * p + c] = k
    # equipment: owned, then the market, then the stack, the rest out of the game
    owned: dict[int, int] = {}
    for p, text in (equipment or {}).items():
        for name in [t for t in str(text).split(",") if t.strip()]:
            e = notation.parse_piece(name)
            if e in owned:
                raise ValueError(f"{name} owned twice")
            owned[e] = p
    if market is None:
        slots = [int(st[L.MARKET + s]) - 1 if st[L.MARKET + s] else -1 for s in range(L.MARKET_SLOTS)]
        slots = [-1 if e in owned else e for e in slots]
    else:
        if len(market) != L.MARKET_W:
            raise ValueError("market: 5 rows")
        slots = []
        for row in market:
            cells = [t.strip() for t in row.split(",")]
            if len(cells) != L.MARKET_W:
                raise ValueError(f"market row {row!r}: 5 comma-separated pieces or '-'")
            slots += [-1 if cell == "-" else notation.parse_piece(cell) for cell in cells]
    if stack is None:
        stack_list = [int(st[L.STACK + i]) for i in range(int(st[L.STACK_N]))]
        stack_list = [e for e in stack_list if e not in owned and e not in slots]
    else:
        stack_list = [notation.parse_piece(t) for t in stack.split(",") if t.strip()]
    st[L.EQUIP_LOC: L.EQUIP_LOC + L.NUM_EQUIP] = L.LOC_OUT
    for e, p in owned.items():
        st[L.EQUIP_LOC + e] = L.LOC_OWNED + p
    for s, e in enumerate(slots):
        if e >= 0:
            if st[L.EQUIP_LOC + e] != L.LOC_OUT:
                raise ValueError(f"{notation.piece_name(e)} is in two places")
            st[L.EQUIP_LOC + e] = L.LOC_MARKET
        st[L.MARKET + s] = e + 1
    st[L.STACK: L.STACK + L.MAX_STACK] = 0
    for i, e in enumerate(stack_list):
        if st[L.EQUIP_LOC + e] != L.LOC_OUT:
            raise ValueError(f"{notation.piece_name(e)} is in two places")
        st[L.EQUIP_LOC + e] = L.LOC_STACK
        st[L.STACK + i] = e
    st[L.STACK_N] = len(stack_list)
    st[L.SETUP_LEFT] = 0
    st[H_PHASE] = L.PH_ACTION
    st[H_CURRENT] = current
    st[H_OWNER] = current
    st[L.ACTIONS_LEFT] = actions_left
    st[L.ROUND] = round
    st[L.TURNS] = n * round + (current - start_player) % n  # the turns since the first round began
    st[L.END_TRIGGERED] = int(end_triggered or final_round)
    st[L.FINAL_ROUND] = int(final_round)
    clear_action(st)
    bad = rules.check_state(st, params)
    if bad:
        raise ValueError(f"state_from_ascii built a malformed state: slot {bad - 1} ({slot_name(bad - 1)})")
    if drawn is not None:
        for f, cell in enumerate(drawn.cells):
            if notation.field_cell(st, f) != cell:
                raise ValueError(f"map cell {cell!r}: the position has {notation.field_cell(st, f)!r} there "
                                 "(a field's colour letter follows from its tile and position)")
    return st


def slot_name(i: int) -> str:
    """The name of the state block holding slot i."""
    for b in L.ST.blocks:
        if b.offset <= i < b.end:
            return f"{b.name}+{i - b.offset}" if b.size > 1 else b.name
    return "?"


def legal_strings(state: np.ndarray) -> list[str]:
    """The legal actions of the seat to move in ``state``, as strings
    (:func:`cultivo_env.notation.action_to_string`), sorted; empty once the game is over."""
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rules.legal_mask(state, mask)
    return sorted(notation.action_to_string(state, int(a)) for a in np.flatnonzero(mask))
