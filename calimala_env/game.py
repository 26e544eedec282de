"""Python-side facts about Calimala for the shared wrappers (:class:`gamecore.kernel.protocol.GameSpec`), the JSON
view, the conservation invariant and a builder of positions from text (for tests)."""

from __future__ import annotations

from typing import Any

import numpy as np

from calimala_env import layout as L
from calimala_env import notation, render, rules
from calimala_env.rules.accessors import (
    art_free,
    church_free,
    city_free,
    hand_count,
    placer_duty,
    recount_board,
    space_type,
)
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

P = L.MAX_PLAYERS

def _at(name: str, *index: int) -> int:
    """The state slot of entry ``index`` of block ``name`` (``_at("CONTRIB", b, r, p)``): the
    block's offset and shape from the state layout (``calimala_env.layout.ST``), plain arithmetic
    as the kernels index (no bounds check, so a malformed state reads as it always did)."""
    block = L.ST[name]
    slot = 0
    for i, size in zip(index, block.axes, strict=True):
        slot = slot * size + i
    return block.offset + slot


def _block(state: np.ndarray, name: str) -> np.ndarray:
    """Block ``name`` of ``state`` as a view in its shape (``calimala_env.layout.ST``):
    ``_block(state, "HAND")[p]`` is p's hand."""
    return L.ST.views(np.asarray(state)[: L.ST.size])[name]


def _cubes_out(state: np.ndarray, p: int) -> int:
    """Seat p's cubes out of its reserve: in its warehouses and workshops, delivered to the cities,
    contributed to the churches and in artworks (Python ints)."""
    held = [_block(state, "WH")[p], _block(state, "CLOTH")[p]]
    held += [_block(state, name)[..., p] for name in ("CITY", "CONTRIB", "ART")]
    return sum(int(x) for a in held for x in a.flat)


def layout_from_option(value: Any) -> list[int] | None:
    """The ``action_layout`` option as 9 action ids (row by row, a1 b1 c1 a2 ...), or None (random)."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.lower().replace("-", "_").replace(" ", "_") == "first_game":
            value = L.FIRST_GAME_LAYOUT
        else:
            value = value.replace("/", " ").split()
    try:
        names = list(value)
    except TypeError:
        raise TypeError(
            f"calimala: action_layout must be None, 'first_game' or 9 action names, got {short_repr(value)}"
        ) from None
    if len(names) != L.NUM_CELLS:
        raise ValueError(f"calimala: action_layout needs 9 actions (row by row), got {len(names)}")
    ids = []
    for name in names:
        key = str(name).strip().capitalize()
        if key not in L.ACTION_NAMES:
            raise ValueError(
                f"calimala: unknown action {short_repr(name)} in action_layout; actions: {', '.join(L.ACTION_NAMES)}"
            )
        ids.append(L.ACTION_NAMES.index(key))
    if sorted(ids) != list(range(L.NUM_TYPES)):
        raise ValueError("calimala: action_layout must use each of the 9 actions once")
    return ids


class CalimalaGame(GameSpec):
    kernels = rules
    min_players = L.MIN_PLAYERS
    max_players = L.MAX_PLAYERS
    option_defaults = {"start_player": 0, "action_layout": None}
    option_strings = {"action_layout": {"random": None}}
    phase_names = L.PHASE_NAMES
    hidden_information = True  # hands, kept scoring cards, deck order, unused scoring cards
    #: the observer's hand, the scoring cards dealt to it, the one it kept (global state: gamecore.envs.global_state)
    private_obs_blocks = ("MY_HAND", "MY_DEALT", "MY_KEPT")
    #: the kind of decision, the turn owner and the decider: all zero once the game is over
    obs_pending_blocks = ("PHASE", "OWNER", "CURRENT")
    obs_leaves_out = {
        "decisions": "a count of the decisions applied, kept for replays and tools: the rules give it no role "
                     "(the count of turns played, `turns`, follows from the observation: the seats' `placed` "
                     "summed, less 1 while a turn runs)",
        "players.kept_scoring_card": "the other seats' kept scoring cards, which `to_dict` reveals once the game "
                                     "is over: no decision is left that could use them and their points are in "
                                     "the final VP (the observer's own kept card is `MY_KEPT` throughout)",
    }

    def _pack_params(self, num_players: int, options: dict[str, Any]) -> np.ndarray:
        start = options["start_player"]
        if isinstance(start, bool) or not isinstance(start, (int, np.integer)):
            raise TypeError(f"calimala: start_player must be an int, got {short_repr(start)}")
        if not 0 <= start < num_players:
            raise ValueError(f"calimala: start_player must be a seat 0..{num_players - 1}, got {short_repr(start)}")
        params = np.zeros(L.PARAMS_LEN, dtype=np.int64)
        params[L.P_PLAYERS] = num_players
        params[L.P_START] = int(start)
        ids = layout_from_option(options["action_layout"])
        if ids is None:
            params[L.P_LAYOUT:] = -1
        else:
            params[L.P_LAYOUT:] = ids
        return params

    def params_to_options(self, params: np.ndarray) -> dict[str, Any]:
        lay = None
        if params[L.P_LAYOUT] >= 0:
            lay = [L.ACTION_NAMES[int(t)] for t in params[L.P_LAYOUT:]]
        return {"num_players": int(params[L.P_PLAYERS]), "start_player": int(params[L.P_START]),
                "action_layout": lay}

    def state_options(self, state: np.ndarray) -> dict[str, Any]:
        return {"start_player": int(state[L.START])}  # any layout: check_state checks it is a permutation

    def max_game_length(self, params: np.ndarray) -> int:
        """A turn places a disc from the reserve, which never grows (a promoted white disc is
        exchanged for a coloured one), so there are at most T = n x discs per seat turns. A turn has
        at most 8 pending street actions (4 for the top disc, 2 each for the two below), so at most 8
        resolves and 8 cards drawn; cards played are at most those drawn plus the n start cards; each
        action carried out takes at most 4 more decisions (3 ships or trade cities and a stop); plus
        at most 3 ``end activation`` and 1 ``promote`` per turn, and 2 n setup decisions."""
        n = int(params[L.P_PLAYERS])
        coloured, white = L.DISCS[n]
        turns = n * (coloured + white)
        actions = 8 * turns + (8 * turns + n)
        return 2 * n + 5 * turns + 5 * actions

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

    def public_action_string(self, state: np.ndarray, action: int, viewer: int = VIEW_PUBLIC) -> str:
        return notation.public_action_string(state, action, viewer)

    def player_name(self, seat: int) -> str:
        return f"player_{seat}"

    # ---- the JSON view ----------------------------------------------------------------------
    def to_dict(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> dict[str, Any]:
        """The game in plain terms as ``viewer`` may see it. Every seat's pieces, cloth, contributions,
        artworks, seats and hand count are public, and so are the cards every seat knows it holds
        (start cards taken face up and not played yet), the discard pile and the deck size. A
        seat's hand and scoring cards are shown to that seat (and to ``"all"``); the deck order and
        the scoring card put back unseen only to ``"all"``. Kept scoring cards are revealed to
        everybody once the game is over."""
        n = int(state[H_NPLAYERS])
        over = bool(state[H_TERMINAL])
        phase = int(state[H_PHASE])
        streets = []
        for s in range(L.NUM_SPACES):
            discs = []
            for i in range(int(state[L.STACK_N + s])):
                d = int(state[_at("STACK", s, i)])
                white = d >= L.WHITE_BASE
                discs.append({"owner": d - (L.WHITE_BASE if white else 1), "white": white})
            streets.append({"street": L.STREET_NAMES[s], "actions": list(notation.street_actions(state, s)),
                            "discs_bottom_first": discs})
        seats = []
        for k in range(L.NUM_SEATS):
            sv = int(state[L.SEAT + k])
            seats.append({
                "tile": L.TILE_NAMES[int(state[L.TILES + k])],
                "scored": k < int(state[L.NEXT_SEAT]),
                "holder": sv - L.SEAT_BASE if sv >= L.SEAT_BASE else None,
            })
        churches = {}
        for b in range(L.NUM_CHURCHES):
            entry: dict[str, Any] = {}
            for r in range(L.NUM_RES):
                entry[L.RESOURCE_NAMES[r]] = [int(state[_at("CONTRIB", b, r, p)]) for p in range(n)]
                entry[f"free_{L.RESOURCE_NAMES[r]}_slots"] = int(church_free(state, b, r))
            entry["artworks"] = [int(state[_at("ART", b, p)]) for p in range(n)]
            entry["free_artwork_slots"] = int(art_free(state, b))
            churches[L.BUILDING_NAMES[b]] = entry
        cities = {L.CITY_NAMES[c]: [int(state[_at("CITY", c, p)]) for p in range(n)] for c in range(L.NUM_CITIES)}
        players = []
        for p in range(n):
            sees_hand = viewer == VIEW_ALL or viewer == p
            entry = {
                "seat": p,
                "vp": int(state[L.VP + p]),
                "seats": int(state[L.SEATS + p]),
                "seat_order": [k for k in range(L.NUM_SEATS) if int(state[L.SEAT + k]) == L.SEAT_BASE + p],
                "council_artworks": int(state[_at("ART", L.COUNCIL, p)]),
                "warehouses": {L.RESOURCE_NAMES[r]: int(state[_at("WH", p, r)]) for r in range(L.NUM_RES)},
                "workshops": int(state[L.WORKSHOPS + p]),
                "cloth_in_workshops": [int(state[_at("CLOTH", p, w)])
                                       for w in range(int(state[L.WORKSHOPS + p]))],
                "ships": int(state[L.SHIPS + p]),
                "trade_houses": [L.CITY_NAMES[L.FIRST_TRADE + t] for t in range(L.NUM_TRADE)
                                 if state[_at("HOUSE", t, p)]],
                "reserve_cubes": int(state[L.RESERVE + p]),
                "coloured_discs": int(state[L.COLOURED + p]),
                "white_discs": int(state[L.WHITE + p]),
                "discs_placed": int(state[L.PLACED + p]),
                "coloured_discs_out": int(state[L.COL_OUT + p]),
                "cloth_in_cities": {L.CITY_NAMES[c]: int(state[_at("CITY", c, p)]) for c in range(L.NUM_CITIES)},
                "contributions": {
                    L.BUILDING_NAMES[b]: {L.RESOURCE_NAMES[r]: int(state[_at("CONTRIB", b, r, p)])
                                          for r in range(L.NUM_RES)}
                    for b in range(L.NUM_CHURCHES)
                },
                "artworks": {L.BUILDING_NAMES[b]: int(state[_at("ART", b, p)]) for b in range(L.NUM_BUILDINGS)},
                "hand_count": int(hand_count(state, p)),
                "known_cards": notation.card_names(_block(state, "KNOWN")[p]),
            }
            if sees_hand:
                entry["hand"] = notation.card_names(_block(state, "HAND")[p])
                dealt = _block(state, "DEALT")[p]
                entry["dealt_scoring_cards"] = [L.SCORING_CARD_NAMES[int(c) - 1] for c in dealt if c > 0]
            if sees_hand or over:
                j = int(state[L.KEPT + p])
                entry["kept_scoring_card"] = (L.SCORING_CARD_NAMES[int(state[_at("DEALT", p, j - 1)]) - 1]
                                              if j else None)
            players.append(entry)
        turn = None
        if not over and int(state[L.ACT_N]) > 0:
            s = int(state[L.SPACE])
            pend = {}
            for k in range(2):
                pend[L.ACTION_NAMES[int(space_type(state, s, k))]] = int(state[L.PENDING + k])
            turn = {
                "street": L.STREET_NAMES[s],
                "activations": [{"owner": int(state[L.ACT_OWNER + i]), "times": int(state[L.ACT_TIMES + i])}
                                for i in range(int(state[L.ACT_N]))],
                "activation": int(state[L.ACT_I]),
                "pending": pend,
                "placer_duty_open": bool(placer_duty(state)),
            }
            if L.PH_SHIP <= phase <= L.PH_CONTRIBUTE:
                turn["carrying_out"] = {
                    "action": L.ACTION_NAMES[int(state[L.EXEC_KIND])],
                    "from_card": bool(state[L.EXEC_CARD]),
                    "ships_used": int(state[L.EXEC_USED]) if phase == L.PH_SHIP else None,
                    "trade_cities_served": [L.CITY_NAMES[L.FIRST_TRADE + t] for t in range(L.NUM_TRADE)
                                            if phase == L.PH_TRANSPORT and (int(state[L.EXEC_USED]) >> t) & 1],
                }
        out: dict[str, Any] = {
            "game": "calimala",
            "num_players": n,
            "viewer": viewer_name(viewer),
            "start_player": int(state[L.START]),
            "phase": None if over else self.phase_names[phase],
            "current_player": None if over else int(state[H_CURRENT]),
            "turn_owner": None if over else int(state[H_OWNER]),
            "decisions": int(state[H_DECISIONS]),
            "turns": int(state[L.TURNS]),
            "terminal": over,
            "done_players": [p for p in range(n) if (int(state[H_DONE]) >> p) & 1],
            "end_triggered": bool(state[L.END_TRIGGERED]),
            "layout": {L.CELL_NAMES[c]: L.ACTION_NAMES[int(state[L.LAYOUT + c])] for c in range(L.NUM_CELLS)},
            "streets": streets,
            "council": {
                "seats": seats,
                "next_seat": int(state[L.NEXT_SEAT]),
                "artworks_in_order": [int(o) - 1 for o in state[L.COUNCIL_ART: L.COUNCIL_ART + 4] if o > 0],
                "free_artwork_slots": int(art_free(state, L.COUNCIL)),
            },
            "churches": churches,
            "cities": cities,
            "city_free_slots": {L.CITY_NAMES[c]: int(city_free(state, c)) for c in range(L.NUM_CITIES)},
            "trade_houses": {L.CITY_NAMES[L.FIRST_TRADE + t]: [p for p in range(n) if state[_at("HOUSE", t, p)]]
                             for t in range(L.NUM_TRADE)},
            "face_up_scoring_card": (L.SCORING_CARD_NAMES[int(state[L.FACE_UP]) - 1] if state[L.FACE_UP] else None),
            "deck_size": int(state[L.DECK_N]),
            "discard_pile": notation.card_names(state[L.DISCARD: L.DISCARD + L.NUM_TYPES]),
            "start_cards_on_table": [L.ACTION_NAMES[L.START_CARDS[i]] for i in range(L.NUM_START)
                                     if state[L.START_LEFT + i]],
            "white_discs_out": int(state[L.WHITE_OUT]),
            "turn": turn,
            "players": players,
        }
        if viewer == VIEW_ALL:
            dn = int(state[L.DECK_N])
            out["deck_top_first"] = [L.ACTION_NAMES[int(state[L.DECK + i])] for i in range(dn - 1, -1, -1)]
            out["scoring_card_out_of_game"] = (L.SCORING_CARD_NAMES[int(state[L.OUT_CARD]) - 1]
                                               if state[L.OUT_CARD] else None)
        return out

    def render_ansi(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> str:
        return render.ansi(state, viewer)

    def render_rgb(self, state: np.ndarray, viewer: int = VIEW_PUBLIC) -> np.ndarray:
        return render.rgb(state, viewer)

    # ---- conservation ---------------------------------------------------------------------
    def invariant_errors(self, state: np.ndarray) -> list[str]:
        """Every piece accounted for, recomputed here in plain Python: each player's 40 cubes
        (reserve, warehouses, workshops, cities, churches, artworks), coloured discs (reserve, grid,
        council, out of the game), the white discs of all players together, ships, trade houses and
        workshop tiles within their supply, and all 45 action cards and 10 scoring cards."""
        st = [int(x) for x in state]
        n = st[H_NPLAYERS]
        errors = []
        on_grid = [0] * n
        white_grid = 0
        for s in range(L.NUM_SPACES):
            for i in range(st[L.STACK_N + s]):
                d = st[_at("STACK", s, i)]
                if d >= L.WHITE_BASE:
                    white_grid += 1
                else:
                    on_grid[d - 1] += 1
        seat_holders = [st[L.SEAT + k] - L.SEAT_BASE for k in range(L.NUM_SEATS) if st[L.SEAT + k] >= L.SEAT_BASE]
        coloured, white = L.DISCS[n]
        for p in range(n):
            cubes = st[L.RESERVE + p] + _cubes_out(state, p)
            if cubes != L.CUBES:
                errors.append(f"player {p}: {cubes} cubes, not {L.CUBES}")
            discs = st[L.COLOURED + p] + on_grid[p] + seat_holders.count(p) + st[L.COL_OUT + p]
            if discs != coloured:
                errors.append(f"player {p}: {discs} coloured discs, not {coloured}")
            if not 0 <= st[L.SHIPS + p] <= L.MAX_SHIPS:
                errors.append(f"player {p}: {st[L.SHIPS + p]} ships")
            houses = sum(st[_at("HOUSE", t, p)] for t in range(L.NUM_TRADE))
            if not 0 <= houses <= L.MAX_HOUSES:
                errors.append(f"player {p}: {houses} trade houses")
            if not 1 <= st[L.WORKSHOPS + p] <= L.MAX_WORKSHOPS:
                errors.append(f"player {p}: {st[L.WORKSHOPS + p]} workshops (1 printed + at most 2 tiles)")
            for w in range(L.MAX_WORKSHOPS):
                cap = L.WORKSHOP_CAP if w < st[L.WORKSHOPS + p] else 0
                if not 0 <= st[_at("CLOTH", p, w)] <= cap:
                    errors.append(f"player {p}: workshop {w} holds {st[_at('CLOTH', p, w)]} cloth")
        whites = white_grid + st[L.WHITE_OUT] + sum(st[L.WHITE + p] for p in range(n))
        if whites != n * white:
            errors.append(f"{whites} white discs, not {n * white}")
        cards = [0] * L.NUM_TYPES
        for i in range(st[L.DECK_N]):
            cards[st[L.DECK + i]] += 1
        for t in range(L.NUM_TYPES):
            cards[t] += st[L.DISCARD + t] + sum(st[_at("HAND", p, t)] for p in range(n))
        for i, t in enumerate(L.START_CARDS):
            cards[t] += st[L.START_LEFT + i]
        if cards != list(L.CARD_COPIES):
            errors.append(f"action cards by type {cards}, not {list(L.CARD_COPIES)}")
        sc = [st[_at("DEALT", p, j)] for p in range(n) for j in range(L.MAX_DEALT) if st[_at("DEALT", p, j)]]
        sc += [st[x] for x in (L.FACE_UP, L.OUT_CARD) if st[x]]
        if sorted(sc) != list(range(1, L.NUM_SCORING_CARDS + 1)):
            errors.append(f"scoring cards {sorted(sc)}")
        return errors


GAME = CalimalaGame()


# =================================================================================================
# positions from text (for tests and examples)
# =================================================================================================
BUILDING_KEYS = {"fiore": 0, "miniato": 1, "croce": 2, "palazzo": 3}
PLAYER_KEYS = ("wood", "brick", "marble", "cloth", "ships", "houses", "hand", "known", "coloured", "white", "vp",
               "kept", "placed", "out")


def _card(name: str) -> int:
    key = name.strip().capitalize()
    if key not in L.ACTION_NAMES:
        raise ValueError(f"unknown action card {name!r}; cards: {', '.join(L.ACTION_NAMES)}")
    return L.ACTION_NAMES.index(key)


def _city(name: str) -> int:
    key = name.strip().capitalize()
    if key not in L.CITY_NAMES:
        raise ValueError(f"unknown city {name!r}; cities: {', '.join(L.CITY_NAMES)}")
    return L.CITY_NAMES.index(key)


def _parse_player(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    key = None
    for tok in text.split():
        if tok in PLAYER_KEYS:
            key = tok
            out.setdefault(key, [])
        elif key is None:
            raise ValueError(f"player line: {tok!r} before any key ({', '.join(PLAYER_KEYS)})")
        else:
            out[key].append(tok)
    return out


def state_from_ascii(text: str, seed: int = 0) -> np.ndarray:
    """A state before some seat's placement, built from ``text``, one statement per line::

        players 3                      number of seats (first line)
        start 0                        start seat (default 0)
        turn 1                         seat placing next (default: the start seat)
        layout Wood Brick Marble / Weave Contribute Ship / Build Artwork Transport
        tiles Lisbon / Artwork / ...   the 15 tiles in council order (default: the seed's shuffle)
        seats 1 0 -                    holders of the seats scored so far, in order (- = no seat)
        council 0 1                    owners of the council artworks, in order
        street b1-b2: 2 1w 0           discs bottom first: a seat, w = white disc
        city Lisbon: 1 1 2             cloth per seat
        contrib croce marble: 2 0 0    contributions per seat (fiore, miniato, croce)
        art miniato: 0 1 0             artworks per seat on a church
        deck Wood Ship                 top of the deck, top first (the rest below in seeded order)
        discard Wood Wood
        faceup Lisbon                  the face-up scoring card (3 and 4 players)
        p0: wood 0 brick 1 marble 2 cloth 1 1 ships 2 houses Troyes hand Artwork Wood vp 3 kept Lisbon

    Player keys: ``wood brick marble ships vp placed coloured white out`` (numbers; ``out``:
    coloured discs removed from the game), ``cloth`` (one
    number per workshop built), ``houses`` (trade cities), ``hand`` / ``known`` (cards; known ones
    are also in the hand), ``kept`` (scoring card). Cubes in reserve are what is left of 40; discs
    in reserve default to the supply minus those on the grid and in the council; white discs in
    neither a reserve nor on the grid have left the game.
    """
    lines = [ln.split("#")[0].strip() for ln in text.strip().splitlines()]
    lines = [ln for ln in lines if ln]
    head = lines[0].split()
    if head[0] != "players":
        raise ValueError("the first line must be 'players N'")
    n = int(head[1])
    opts: dict[str, Any] = {}
    rest = []
    for ln in lines[1:]:
        word = ln.split()[0]
        if word == "start":
            opts["start_player"] = int(ln.split()[1])
        elif word == "layout":
            opts["action_layout"] = ln[len("layout"):]
        else:
            rest.append(ln)
    params = GAME.make_params(num_players=n, **opts)
    st = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(st, params, seed)
    start = int(params[L.P_START])
    turn = start
    # setup done: every seat kept its first dealt card, the start cards went into the deck
    for p in range(n):
        st[L.KEPT + p] = 1
    st[L.START_LEFT: L.START_LEFT + L.NUM_START] = 0
    hands = np.zeros((n, L.NUM_TYPES), dtype=np.int64)
    known = np.zeros((n, L.NUM_TYPES), dtype=np.int64)
    deck_top: list[int] = []
    discard = np.zeros(L.NUM_TYPES, dtype=np.int64)
    players: dict[int, dict[str, list[str]]] = {}
    for ln in rest:
        word, _, body = ln.partition(" ")
        if word.endswith(":") and word[0] == "p":
            players[int(word[1:-1])] = _parse_player(body)
            continue
        if word == "turn":
            turn = int(body)
        elif word == "tiles":
            names = [t.strip() for t in body.split("/")]
            if sorted(names) != sorted(L.TILE_NAMES):
                raise ValueError(f"tiles: need each of the 15 tiles once, got {names}")
            for k, name in enumerate(names):
                st[L.TILES + k] = L.TILE_NAMES.index(name)
        elif word == "seats":
            for k, tok in enumerate(body.split()):
                if tok == "-":
                    st[L.SEAT + k] = L.SEAT_EMPTY
                else:
                    st[L.SEAT + k] = L.SEAT_BASE + int(tok)
                    st[L.SEATS + int(tok)] += 1
                st[L.NEXT_SEAT] = k + 1
            if st[L.NEXT_SEAT] == L.NUM_SEATS:
                st[L.END_TRIGGERED] = 1
        elif word == "council":
            for i, tok in enumerate(body.split()):
                st[L.COUNCIL_ART + i] = 1 + int(tok)
                st[_at("ART", L.COUNCIL, int(tok))] += 1
        elif word == "street":
            name, _, discs = body.partition(":")
            s = notation.parse_street(name)
            toks = discs.split()
            for i, tok in enumerate(toks):
                seat = int(tok.rstrip("w"))
                st[_at("STACK", s, i)] = (L.WHITE_BASE if tok.endswith("w") else 1) + seat
            st[L.STACK_N + s] = len(toks)
        elif word == "city":
            name, _, vals = body.partition(":")
            c = _city(name)
            for p, count in enumerate(vals.split()):
                st[_at("CITY", c, p)] = int(count)
        elif word == "contrib":
            name, _, vals = body.partition(":")
            bname, res = name.split()
            b = BUILDING_KEYS[bname]
            r = L.RESOURCE_NAMES.index(res)
            for p, count in enumerate(vals.split()):
                st[_at("CONTRIB", b, r, p)] = int(count)
        elif word == "art":
            name, _, vals = body.partition(":")
            b = BUILDING_KEYS[name.strip()]
            if b == L.COUNCIL:
                raise ValueError("council artworks are given in order with 'council'")
            for p, count in enumerate(vals.split()):
                st[_at("ART", b, p)] = int(count)
        elif word == "deck":
            deck_top = [_card(t) for t in body.split()]
        elif word == "discard":
            for card in body.split():
                discard[_card(card)] += 1
        elif word == "faceup":
            _swap_scoring_card(st, n, L.SCORING_CARD_NAMES.index(body.strip()), L.FACE_UP)
        else:
            raise ValueError(f"unknown statement {ln!r}")
    for p, keys in players.items():
        if not 0 <= p < n:
            raise ValueError(f"p{p}: no such seat")
        for r, res in enumerate(L.RESOURCE_NAMES):
            if res in keys:
                st[_at("WH", p, r)] = int(keys[res][0])
        if "cloth" in keys:
            cloth = [int(x) for x in keys["cloth"]]
            if not 1 <= len(cloth) <= L.MAX_WORKSHOPS:
                raise ValueError(f"p{p}: cloth needs one number per workshop (1..3)")
            st[L.WORKSHOPS + p] = len(cloth)
            for w, x in enumerate(cloth):
                st[_at("CLOTH", p, w)] = x
        if "ships" in keys:
            st[L.SHIPS + p] = int(keys["ships"][0])
        for city in keys.get("houses", []):
            st[_at("HOUSE", _city(city) - L.FIRST_TRADE, p)] = 1
        for card in keys.get("hand", []):
            hands[p, _card(card)] += 1
        for card in keys.get("known", []):
            known[p, _card(card)] += 1
        if "vp" in keys:
            st[L.VP + p] = int(keys["vp"][0])
        if "kept" in keys:
            c = L.SCORING_CARD_NAMES.index(" ".join(keys["kept"]))
            _swap_scoring_card(st, n, c, _at("DEALT", p, 0))
    # discs
    on_grid = np.zeros(n, dtype=np.int64)
    white_grid = np.zeros(n, dtype=np.int64)
    for s in range(L.NUM_SPACES):
        for i in range(int(st[L.STACK_N + s])):
            d = int(st[_at("STACK", s, i)])
            if d >= L.WHITE_BASE:
                white_grid[d - L.WHITE_BASE] += 1
            else:
                on_grid[d - 1] += 1
    coloured, white = L.DISCS[n]
    for p in range(n):
        keys = players.get(p, {})
        st[L.COL_OUT + p] = int(keys["out"][0]) if "out" in keys else 0
        st[L.COLOURED + p] = int(keys["coloured"][0]) if "coloured" in keys else \
            coloured - on_grid[p] - st[L.SEATS + p] - st[L.COL_OUT + p]
        st[L.WHITE + p] = int(keys["white"][0]) if "white" in keys else max(0, white - white_grid[p])
        st[L.PLACED + p] = int(keys["placed"][0]) if "placed" in keys else \
            on_grid[p] + white_grid[p] + st[L.SEATS + p]
    missing = n * white - int(white_grid.sum()) - int(st[L.WHITE: L.WHITE + n].sum())
    if missing < 0:
        raise ValueError(f"{-missing} white discs too many")
    st[L.WHITE_OUT] = missing  # white discs not on the grid nor in a reserve have left the game
    recount_board(st)
    # cubes left in reserve
    for p in range(n):
        st[L.RESERVE + p] = L.CUBES - _cubes_out(st, p)
    # action cards: hands, discard, the deck's top as given, the rest below in seeded order
    for p in range(n):
        for t in range(L.NUM_TYPES):
            st[_at("HAND", p, t)] = hands[p, t]
            st[_at("KNOWN", p, t)] = known[p, t]
    st[L.DISCARD: L.DISCARD + L.NUM_TYPES] = discard
    left = np.array(L.CARD_COPIES, dtype=np.int64) - hands.sum(axis=0) - discard
    for t in deck_top:
        left[t] -= 1
    if (left < 0).any():
        extra = dict(zip(L.ACTION_NAMES, (-left).clip(0).tolist(), strict=True))
        raise ValueError(f"more cards than exist: {extra} too many")
    below = [t for t in range(L.NUM_TYPES) for _ in range(int(left[t]))]
    np.random.default_rng(seed).shuffle(below)
    deck = below + deck_top[::-1]
    st[L.DECK: L.DECK + L.NUM_CARDS] = 0
    st[L.DECK: L.DECK + len(deck)] = deck
    st[L.DECK_N] = len(deck)
    st[L.TURNS] = int(st[L.PLACED: L.PLACED + n].sum())
    st[H_PHASE] = L.PH_PLACE
    st[H_OWNER] = turn
    st[H_CURRENT] = turn
    st[L.SETUP_I] = 0
    bad = rules.check_state(st, params)
    if bad:
        raise ValueError(f"state_from_ascii built a malformed state: slot {bad - 1} ({_slot_name(bad - 1)})")
    return st


def _swap_scoring_card(st: np.ndarray, n: int, card: int, slot: int) -> None:
    """Put scoring card ``card`` into ``slot`` (a dealt slot, FACE_UP), swapping it with whatever
    slot held it."""
    slots = [_at("DEALT", p, j) for p in range(n) for j in range(L.DEAL_EACH[n])]
    slots += [x for x in (L.FACE_UP, L.OUT_CARD) if st[x]]
    for other in slots:
        if st[other] == card + 1:
            st[other], st[slot] = st[slot], st[other]
            return
    raise ValueError(f"scoring card {L.SCORING_CARD_NAMES[card]} is not in this game")


def _slot_name(i: int) -> str:
    from gamecore.kernel.header import _HEADER

    for lay in (_HEADER, L.ST):
        for b in lay.blocks:
            if b.offset <= i < b.end:
                return f"{b.name}+{i - b.offset}"
    return "?"


def legal_strings(state: np.ndarray) -> list[str]:
    """The legal actions of the seat to move in ``state``, as strings
    (:func:`calimala_env.notation.action_to_string`), sorted; empty once the game is over."""
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rules.legal_mask(state, mask)
    return sorted(notation.action_to_string(state, int(a)) for a in np.flatnonzero(mask))


__all__ = ["GAME", "CalimalaGame", "state_from_ascii", "legal_strings", "layout_from_option"]
