"""Independent plain-Python reference (test oracle) for Calimala scoring and placement legality.

Written from the rules page (docs/rules/calimala.md, "The actions", "A turn" step 1 and
"Scoring") and the original rulebook it rules on, without looking at any engine code.
Standard library only; clarity over speed.

Names
=====
Everything is addressed by the names the rules page uses:

* ``CITIES``     = Barcelona, Lisbon, London (``PORT_CITIES``), Troyes, Bruges, Hamburg (``TRADE_CITIES``)
* ``CHURCHES``   = Santa Maria del Fiore, San Miniato, Santa Croce (the buildings under construction)
* ``COUNCIL``    = "Palazzo Vecchio" (the city council); ``BUILDINGS`` = ``CHURCHES + (COUNCIL,)``
  are the 4 buildings with artwork slots
* ``RESOURCES``  = "wood", "brick", "marble"
* ``ACTIONS``    = Wood, Brick, Marble, Weave, Ship, Build, Artwork, Transport, Contribute
  (action spaces, action cards and the hand all use these names)
* ``CATEGORIES`` = the 15 scoring-tile categories: the 6 cities, the 3 churches, "Artwork",
  "Port cities", "Trade cities", "Contributed wood", "Contributed brick", "Contributed marble"
* ``FINAL_CARDS`` = the 6 cities and the 4 buildings (Palazzo Vecchio, Santa Croce,
  Santa Maria del Fiore, San Miniato)

Position format (the contract an engine adapter maps onto)
==========================================================
A position is a ``dict``::

    {
      "players": [P0, P1, ...],          # 3 to 5 player dicts, index = player id 0..n-1
      "seat_order": [pid, ...],          # owner of each occupied council seat, in the order
                                         # the seats were taken (first seat first); a seat left
                                         # empty (white disc with no coloured disc anywhere) is
                                         # simply absent
      "council_artwork_order": [pid, ...],  # owner of each artwork on the Palazzo Vecchio, in the
                                            # order they were placed (first first)
    }

and each player dict ``P`` has exactly these keys (all required):

    "cloth":         {city: int}                 cloth cubes delivered to each of the 6 cities
    "contributions": {church: {resource: int}}   contributed cubes per church per resource row
    "artworks":      {building: int}             artworks on each of the 4 buildings
                                                 (3 churches + "Palazzo Vecchio")
    "seats":         int                         council seats held
    "vp":            int                         victory points
    "warehouse":     {resource: int}             cubes in each warehouse, 0..4
    "workshops":     [int, ...]                  cloth in each built workshop: length 1..3
                                                 (the printed one plus built tiles), each 0..4
    "ships":         int                         ships built, 0..3 (a player starts with none)
    "trade_houses":  set of trade-city names     where the player has built a trade house
    "hand":          action cards in hand, as a list of action names (a multiset; order
                     irrelevant) or a mapping action name -> count

and optionally ``"reserve": int`` (cubes in the player's reserve). The reserve is *derived*:
each player owns 40 cubes, and every cube not in a warehouse, a workshop, a city, a church
resource row or an artwork slot is in the reserve. If ``"reserve"`` is given it must equal the
derived value.

The free slots of the board are also *derived* from all players' cubes: a city has 12 delivery
slots, each church resource row and each artwork row has the capacity in ``CONTRIBUTION_SLOTS`` /
``ARTWORK_SLOTS`` (the per-resource split of the church rows is a RECONSTRUCTION on the rules
page: 5/5/5, 3/3/3, 4/4/4). ``free_slots(pos)`` returns them. An optional top-level
``"free"`` entry in the same shape as ``free_slots``' result is checked against that.

``validate_position(pos)`` raises ``ValueError`` on any inconsistency (bounds, seats equal to the
player's count in ``seat_order``, Palazzo Vecchio artworks equal to the count in
``council_artwork_order``, reserve / free slots as above, no slot row over-full). Every public
function below validates its position first.

A council scoring is evaluated on the position *as it is when the tile is scored*: the seat just
taken on that tile is already in ``seats`` and ``seat_order``.

Readings of the rules page (where it leaves a choice)
=====================================================
* "nobody scores with 0": a player with value 0 gets nothing and occupies no place.
* The tie-break chain is applied to all players tied on a value at once, step by step, as a
  lexicographic order: (1) higher seats + Palazzo Vecchio artworks; (2) more seats; (3) with
  the same seat count k > 0, whoever took their k-th seat earlier in ``seat_order``; (4) with
  no seats, whoever placed their first Palazzo Vecchio artwork earlier in
  ``council_artwork_order`` (players tied up to here hold the same number of council
  artworks, so either all or none of them have one); (5) players still tied occupy consecutive
  places and each gets the sum of those places' points // their number. Places after the last
  awarded one are worth 0 (two players tied for 3rd of 3/2/1 get (1 + 0) // 2 = 0 each).
* "Artwork" counts the Palazzo Vecchio's artworks too; "Contributed marble" counts only the
  marble rows of the churches, not artworks (artworks are not contributions).
* The winner tie-break is only seats + council artworks; still tied, all of them win.
* Build needs no cube from the reserve (its cubes go back there); Ship, Transport, Artwork
  and Contribute move cubes already placed, so only Wood, Brick, Marble and Weave need the
  reserve. A Weave with fewer reserve cubes than workshops with room fills as many as it can,
  the emptiest workshops first (the rules page's ruling, "The actions", Weave).
* Placement: only the cards now in the placing player's hand count (cards drawn for failed
  actions during the turn are unknown). A card is playable when its action can be carried out
  at least partly at that moment; it is then carried out with any of the player's choices,
  partly included (fewer ships, fewer trade cities). Cloth leaves workshops fullest first
  (the rules page's ruling). Using one of the space's own actions as a stepping stone is moot:
  an action that can be carried out already makes the space allowed.

Functions
=========
* ``category_values(pos) -> {category: [value per player]}`` for the 15 categories
* ``rank_award(values, pos, points) -> [points per player]``: the 3/2/1 (or 5/3/1) award with
  the rules page's tie-break chain and splitting
* ``council_scoring(pos, category)`` / ``final_card_values(pos, card)`` / ``final_scoring(pos, cards)``
* ``winners(pos) -> [player ids]``
* ``can_carry_out(pos, player, action) -> bool``
* ``placement_spaces(pos, player, space_actions) -> {space index}``
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import combinations

# ---------------------------------------------------------------------------
# Data (one table each; RECONSTRUCTION values from the rules page marked)
# ---------------------------------------------------------------------------

PORT_CITIES = ("Barcelona", "Lisbon", "London")
TRADE_CITIES = ("Troyes", "Bruges", "Hamburg")
CITIES = PORT_CITIES + TRADE_CITIES
CHURCHES = ("Santa Maria del Fiore", "San Miniato", "Santa Croce")
COUNCIL = "Palazzo Vecchio"
BUILDINGS = CHURCHES + (COUNCIL,)
RESOURCES = ("wood", "brick", "marble")
ACTIONS = ("Wood", "Brick", "Marble", "Weave", "Ship", "Build", "Artwork", "Transport", "Contribute")
RESOURCE_OF_ACTION = {"Wood": "wood", "Brick": "brick", "Marble": "marble"}

CATEGORIES = (
    CITIES
    + CHURCHES
    + ("Artwork", "Port cities", "Trade cities", "Contributed wood", "Contributed brick", "Contributed marble")
)
FINAL_CARDS = CITIES + (COUNCIL, "Santa Croce", "Santa Maria del Fiore", "San Miniato")

CITY_SLOTS = 12
# RECONSTRUCTION (rules page): per-resource split of the contribution slots (15 / 9 / 12 in all).
CONTRIBUTION_SLOTS = {
    "Santa Maria del Fiore": {"wood": 5, "brick": 5, "marble": 5},
    "San Miniato": {"wood": 3, "brick": 3, "marble": 3},
    "Santa Croce": {"wood": 4, "brick": 4, "marble": 4},
}
ARTWORK_SLOTS = {"Santa Maria del Fiore": 5, "San Miniato": 3, "Santa Croce": 4, COUNCIL: 4}
COUNCIL_SEATS = 15

CUBES_PER_PLAYER = 40
WAREHOUSE_CAPACITY = 4
WORKSHOP_CAPACITY = 4
MAX_WORKSHOPS = 3  # 1 printed + 2 tiles
MAX_SHIPS = 3
MAX_TRADE_HOUSES = 3

COUNCIL_POINTS = (3, 2, 1)
FINAL_POINTS = (5, 3, 1)


# ---------------------------------------------------------------------------
# Building positions (for tests and adapters)
# ---------------------------------------------------------------------------


def new_player() -> dict:
    """A player at the start of the game: one empty workshop, nothing else, an empty hand."""
    return {
        "cloth": {c: 0 for c in CITIES},
        "contributions": {ch: {r: 0 for r in RESOURCES} for ch in CHURCHES},
        "artworks": {b: 0 for b in BUILDINGS},
        "seats": 0,
        "vp": 0,
        "warehouse": {r: 0 for r in RESOURCES},
        "workshops": [0],
        "ships": 0,
        "trade_houses": set(),
        "hand": [],
    }


def new_position(n_players: int) -> dict:
    """An empty position with ``n_players`` start players and no council history."""
    if not 3 <= n_players <= 5:
        raise ValueError("Calimala is for 3 to 5 players")
    return {"players": [new_player() for _ in range(n_players)], "seat_order": [], "council_artwork_order": []}


def hand_counter(hand) -> Counter:
    """The hand as a Counter action name -> count (accepts a list of names or a mapping)."""
    if isinstance(hand, Mapping):
        out = Counter({a: int(k) for a, k in hand.items() if int(k) != 0})
    else:
        out = Counter(hand)
    return out


# ---------------------------------------------------------------------------
# Derived quantities and validation
# ---------------------------------------------------------------------------


def cubes_on_board_and_mat(player: dict) -> int:
    """Cubes of this player that are not in the reserve."""
    return (
        sum(player["warehouse"][r] for r in RESOURCES)
        + sum(player["workshops"])
        + sum(player["cloth"][c] for c in CITIES)
        + sum(player["contributions"][ch][r] for ch in CHURCHES for r in RESOURCES)
        + sum(player["artworks"][b] for b in BUILDINGS)
    )


def reserve(pos: dict, player: int) -> int:
    """Cubes in the player's reserve: 40 minus every cube placed somewhere."""
    return CUBES_PER_PLAYER - cubes_on_board_and_mat(pos["players"][player])


def free_slots(pos: dict) -> dict:
    """Free slots on the board: {"city": {city: n}, "contribution": {church: {resource: n}},
    "artwork": {building: n}}, each capacity minus all players' cubes there."""
    players = pos["players"]
    return {
        "city": {c: CITY_SLOTS - sum(p["cloth"][c] for p in players) for c in CITIES},
        "contribution": {
            ch: {r: CONTRIBUTION_SLOTS[ch][r] - sum(p["contributions"][ch][r] for p in players) for r in RESOURCES}
            for ch in CHURCHES
        },
        "artwork": {b: ARTWORK_SLOTS[b] - sum(p["artworks"][b] for p in players) for b in BUILDINGS},
    }


def council_artworks(pos: dict, player: int) -> int:
    return pos["players"][player]["artworks"][COUNCIL]


def seats(pos: dict, player: int) -> int:
    return pos["players"][player]["seats"]


def validate_position(pos: dict) -> None:
    """Raise ValueError if the position breaks the format or the game's physical limits."""

    def need(cond: bool, what: str, *args) -> None:
        if not cond:
            raise ValueError(what % args)

    players = pos["players"]
    n = len(players)
    need(3 <= n <= 5, "3 to 5 players")
    for key in ("seat_order", "council_artwork_order"):
        need(all(isinstance(q, int) and 0 <= q < n for q in pos[key]), "%s holds player ids", key)
    need(len(pos["seat_order"]) <= COUNCIL_SEATS, "at most 15 seats")
    for i, p in enumerate(players):
        need(set(p["cloth"]) == set(CITIES), "player %s: cloth keys are the 6 cities", i)
        need(set(p["contributions"]) == set(CHURCHES), "player %s: contribution keys are the 3 churches", i)
        for ch in CHURCHES:
            need(set(p["contributions"][ch]) == set(RESOURCES), "player %s: %s rows are the 3 resources", i, ch)
        need(set(p["artworks"]) == set(BUILDINGS), "player %s: artwork keys are the 4 buildings", i)
        need(set(p["warehouse"]) == set(RESOURCES), "player %s: warehouse keys are the 3 resources", i)
        values = (
            list(p["cloth"].values())
            + [p["contributions"][ch][r] for ch in CHURCHES for r in RESOURCES]
            + list(p["artworks"].values())
            + list(p["warehouse"].values())
            + list(p["workshops"])
            + [p["seats"], p["ships"]]
        )
        need(all(isinstance(v, int) and v >= 0 for v in values), "player %s: counts are non-negative ints", i)
        need(all(v <= WAREHOUSE_CAPACITY for v in p["warehouse"].values()), "player %s: warehouse over 4", i)
        need(1 <= len(p["workshops"]) <= MAX_WORKSHOPS, "player %s: 1 to 3 workshops", i)
        need(all(v <= WORKSHOP_CAPACITY for v in p["workshops"]), "player %s: workshop over 4 cloth", i)
        need(p["ships"] <= MAX_SHIPS, "player %s: at most 3 ships", i)
        need(set(p["trade_houses"]) <= set(TRADE_CITIES), "player %s: trade houses only in trade cities", i)
        need(len(set(p["trade_houses"])) == len(list(p["trade_houses"])), "player %s: one house per city", i)
        need(p["seats"] == pos["seat_order"].count(i), "player %s: seats must match seat_order", i)
        need(
            p["artworks"][COUNCIL] == pos["council_artwork_order"].count(i),
            "player %s: council artworks must match council_artwork_order",
            i,
        )
        hand = hand_counter(p["hand"])
        need(set(hand) <= set(ACTIONS) and all(k > 0 for k in hand.values()), "player %s: hand holds actions", i)
        need(cubes_on_board_and_mat(p) <= CUBES_PER_PLAYER, "player %s: more than 40 cubes placed", i)
        if "reserve" in p:
            need(p["reserve"] == reserve(pos, i), "player %s: reserve must be 40 minus the cubes placed", i)
    free = free_slots(pos)
    need(all(v >= 0 for v in free["city"].values()), "a city holds more than 12 cloth")
    need(all(v >= 0 for ch in CHURCHES for v in free["contribution"][ch].values()), "a church row is over-full")
    need(all(v >= 0 for v in free["artwork"].values()), "an artwork row is over-full")
    if "free" in pos:
        need(pos["free"] == free, "the given free slots must match the cubes on the board")


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------


def category_values(pos: dict) -> dict[str, list[int]]:
    """Each of the 15 scoring-tile categories -> the value of every player.

    city = cloth delivered there; church = its contributed cubes (all 3 rows) + its artworks;
    Artwork = artworks on all 4 buildings; Port / Trade cities = cloth in those 3 cities;
    Contributed <resource> = that resource row's cubes in all 3 churches (artworks are not
    contributions, so they do not count for Contributed marble).
    """
    validate_position(pos)
    players = pos["players"]
    out: dict[str, list[int]] = {}
    for c in CITIES:
        out[c] = [p["cloth"][c] for p in players]
    for ch in CHURCHES:
        out[ch] = [sum(p["contributions"][ch][r] for r in RESOURCES) + p["artworks"][ch] for p in players]
    out["Artwork"] = [sum(p["artworks"][b] for b in BUILDINGS) for p in players]
    out["Port cities"] = [sum(p["cloth"][c] for c in PORT_CITIES) for p in players]
    out["Trade cities"] = [sum(p["cloth"][c] for c in TRADE_CITIES) for p in players]
    for r in RESOURCES:
        out[f"Contributed {r}"] = [sum(p["contributions"][ch][r] for ch in CHURCHES) for p in players]
    return out


def tie_break_key(pos: dict, player: int) -> tuple:
    """Sort key (smaller = better) among players with the same category value.

    1. higher (seats + council artworks);  2. more seats;
    3. (equal seats > 0) who reached that seat count first = earlier index of the player's
       k-th entry in seat_order, k = seats;
    4. (no seats) who placed the first council artwork first = earlier index of the player's
       first entry in council_artwork_order (none: no rank, still tied).
    Players whose keys are equal are still tied.
    """
    k = seats(pos, player)
    art = council_artworks(pos, player)
    if k > 0:
        reached = [i for i, q in enumerate(pos["seat_order"]) if q == player][k - 1]
        first_art = 0  # not used when the tied players hold seats
    else:
        reached = 0
        order = pos["council_artwork_order"]
        first_art = order.index(player) if player in order else len(order)  # none: all equal
    return (-(k + art), -k, reached, first_art)


def rank_award(values: list[int], pos: dict, points: Iterable[int]) -> list[int]:
    """Award ``points`` (3/2/1 or 5/3/1) to the top places of ``values``.

    Players with value 0 score nothing and occupy no place. The others are ordered by value
    (higher first), ties resolved by ``tie_break_key``; players still tied occupy consecutive
    places and each gets the sum of those places' points divided by their number, rounded down
    (places beyond the last awarded one are worth 0).
    """
    validate_position(pos)
    n = len(pos["players"])
    if len(values) != n:
        raise ValueError("one value per player")
    place_points = list(points) + [0] * n
    ranked = sorted((p for p in range(n) if values[p] > 0), key=lambda p: (-values[p], tie_break_key(pos, p)))
    award = [0] * n
    place = 0
    i = 0
    while i < len(ranked):
        key = (-values[ranked[i]], tie_break_key(pos, ranked[i]))
        group = [p for p in ranked[i:] if (-values[p], tie_break_key(pos, p)) == key]
        share = sum(place_points[place : place + len(group)]) // len(group)
        for p in group:
            award[p] = share
        place += len(group)
        i += len(group)
    return award


def council_scoring(pos: dict, category: str) -> list[int]:
    """VP each player gets when the council tile ``category`` is scored (3/2/1)."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r}")
    return rank_award(category_values(pos)[category], pos, COUNCIL_POINTS)


def final_card_values(pos: dict, card: str) -> list[int]:
    """Each player's value for a final scoring card: a city = cloth there; a church =
    contributions + artworks there; Palazzo Vecchio = seats + council artworks."""
    validate_position(pos)
    players = pos["players"]
    if card in CITIES:
        return [p["cloth"][card] for p in players]
    if card in CHURCHES:
        return [sum(p["contributions"][card][r] for r in RESOURCES) + p["artworks"][card] for p in players]
    if card == COUNCIL:
        return [p["seats"] + p["artworks"][COUNCIL] for p in players]
    raise ValueError(f"unknown final card {card!r}")


def final_scoring(pos: dict, cards: Iterable[str]) -> list[int]:
    """VP each player gets from the scored final cards (each 5/3/1); not added to ``vp``."""
    cards = list(cards)
    if len(set(cards)) != len(cards):
        raise ValueError("each final card exists once")
    total = [0] * len(pos["players"])
    for card in cards:
        for p, v in enumerate(rank_award(final_card_values(pos, card), pos, FINAL_POINTS)):
            total[p] += v
    return total


def winners(pos: dict) -> list[int]:
    """Players with the most VP; a tie goes to more (seats + council artworks); still tied:
    all of them (shared win). Uses ``vp`` as given (call after the final scoring is added)."""
    validate_position(pos)
    n = len(pos["players"])

    def key(p: int) -> tuple[int, int]:
        return (pos["players"][p]["vp"], seats(pos, p) + council_artworks(pos, p))

    best = max(key(p) for p in range(n))
    return [p for p in range(n) if key(p) == best]


# ---------------------------------------------------------------------------
# Actions: what one player can carry out now (read straight off the position)
# ---------------------------------------------------------------------------


def can_carry_out(pos: dict, player: int, action: str) -> bool:
    """Whether ``player`` can carry out ``action`` at least partly now (rules page, "The actions").

    Wood/Brick/Marble: that warehouse not full and a cube in reserve. Weave: a workshop with
    room and a cube in reserve. Ship: a ship, a cloth and a port city with a free slot. Build:
    a ship (2 wood, fewer than 3 ships), a trade house (2 brick, a trade city without one of
    the player's houses) or a workshop (1 wood + 1 brick, fewer than 3 workshops). Artwork: a
    marble and a free artwork slot on one of the 4 buildings. Transport: a cloth and a trade
    house in a city with a free slot. Contribute: a warehouse cube and a free slot of that
    resource in one of the 3 churches.
    """
    validate_position(pos)
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    return _can_carry_out_unchecked(pos, player, action)


def _can_carry_out_unchecked(pos: dict, player: int, action: str) -> bool:
    """``can_carry_out`` on a position already validated."""
    me = pos["players"][player]
    free = free_slots(pos)
    wh = me["warehouse"]
    cloth = sum(me["workshops"])
    in_reserve = reserve(pos, player)
    if action in RESOURCE_OF_ACTION:
        return wh[RESOURCE_OF_ACTION[action]] < WAREHOUSE_CAPACITY and in_reserve > 0
    if action == "Weave":
        return any(c < WORKSHOP_CAPACITY for c in me["workshops"]) and in_reserve > 0
    if action == "Ship":
        return me["ships"] > 0 and cloth > 0 and any(free["city"][c] > 0 for c in PORT_CITIES)
    if action == "Build":
        ship = me["ships"] < MAX_SHIPS and wh["wood"] >= 2
        house = wh["brick"] >= 2 and any(c not in me["trade_houses"] for c in TRADE_CITIES)
        workshop = len(me["workshops"]) < MAX_WORKSHOPS and wh["wood"] >= 1 and wh["brick"] >= 1
        return ship or house or workshop
    if action == "Artwork":
        return wh["marble"] > 0 and any(free["artwork"][b] > 0 for b in BUILDINGS)
    if action == "Transport":
        return cloth > 0 and any(free["city"][c] > 0 for c in me["trade_houses"])
    if action == "Contribute":
        return any(wh[r] > 0 and free["contribution"][ch][r] > 0 for ch in CHURCHES for r in RESOURCES)
    raise ValueError(f"unknown action {action!r}")


# ---------------------------------------------------------------------------
# Card sequences: a search over the few things the actions of one player touch
# ---------------------------------------------------------------------------
# A "mat state" is a hashable tuple
#   (warehouse, workshops, ships, trade_houses, reserve, port_free, trade_free, row_free, art_free, hand)
#   warehouse  (wood, brick, marble) cubes
#   workshops  sorted tuple of the cloth in each built workshop (workshops are interchangeable:
#              Weave fills every one with room, cloth leaves fullest first)
#   ships      ships built
#   trade_houses  frozenset of trade-city names
#   reserve    cubes in reserve
#   port_free  free delivery slots in the 3 port cities together (a ship may go to any port,
#              so which port has the slot never matters to this player's actions)
#   trade_free free delivery slots per trade city, in TRADE_CITIES order (Transport goes only
#              to cities with the player's trade house)
#   row_free   free contribution slots per resource (wood, brick, marble), the 3 churches
#              together (Contribute may use any church's row of that resource)
#   art_free   free artwork slots, the 4 buildings together
#   hand       card counts in ACTIONS order
#
# Capping (``_canonical``): a count that only matters through "is it > 0" and that the
# remaining hand can lower by at most B is replaced by min(count, B + 1): from then on the two
# states can carry out exactly the same actions with exactly the same outcomes. The bounds:
# reserve B = Wood + Brick + Marble cards + 3 x Weave cards (a Weave fills at most 3
# workshops); port_free B = 3 x Ship cards (at most 3 ships); each trade city and each
# contribution row B = Transport / Contribute cards; art_free B = Artwork cards. This only
# merges equivalent states: every sequence of card plays is still searched.


def _mat_state(pos: dict, player: int) -> tuple:
    me = pos["players"][player]
    free = free_slots(pos)
    hand = hand_counter(me["hand"])
    return _canonical(
        (
            tuple(me["warehouse"][r] for r in RESOURCES),
            tuple(sorted(me["workshops"])),
            me["ships"],
            frozenset(me["trade_houses"]),
            reserve(pos, player),
            sum(free["city"][c] for c in PORT_CITIES),
            tuple(free["city"][c] for c in TRADE_CITIES),
            tuple(sum(free["contribution"][ch][r] for ch in CHURCHES) for r in RESOURCES),
            sum(free["artwork"][b] for b in BUILDINGS),
            tuple(hand[a] for a in ACTIONS),
        )
    )


def _canonical(state: tuple) -> tuple:
    wh, ws, ships, th, res, port_free, trade_free, row_free, art_free, hand = state
    h = dict(zip(ACTIONS, hand, strict=True))
    res = min(res, h["Wood"] + h["Brick"] + h["Marble"] + 3 * h["Weave"] + 1)
    port_free = min(port_free, 3 * h["Ship"] + 1)
    trade_free = tuple(min(f, h["Transport"] + 1) for f in trade_free)
    row_free = tuple(min(f, h["Contribute"] + 1) for f in row_free)
    art_free = min(art_free, h["Artwork"] + 1)
    return (wh, ws, ships, th, res, port_free, trade_free, row_free, art_free, hand)


def _feasible(state: tuple, action: str) -> bool:
    """Whether ``action`` can be carried out at least partly in this mat state (the same
    conditions as ``can_carry_out``, on the mat state)."""
    wh, ws, ships, th, res, port_free, trade_free, row_free, art_free, _hand = state
    cloth = sum(ws)
    if action in RESOURCE_OF_ACTION:
        return wh[RESOURCES.index(RESOURCE_OF_ACTION[action])] < WAREHOUSE_CAPACITY and res > 0
    if action == "Weave":
        return any(c < WORKSHOP_CAPACITY for c in ws) and res > 0
    if action == "Ship":
        return ships > 0 and cloth > 0 and port_free > 0
    if action == "Build":
        wood, brick = wh[0], wh[1]
        ship = ships < MAX_SHIPS and wood >= 2
        house = brick >= 2 and any(c not in th for c in TRADE_CITIES)
        workshop = len(ws) < MAX_WORKSHOPS and wood >= 1 and brick >= 1
        return ship or house or workshop
    if action == "Artwork":
        return wh[2] > 0 and art_free > 0
    if action == "Transport":
        return cloth > 0 and any(trade_free[i] > 0 for i, c in enumerate(TRADE_CITIES) if c in th)
    if action == "Contribute":
        return any(wh[i] > 0 and row_free[i] > 0 for i in range(len(RESOURCES)))
    raise ValueError(f"unknown action {action!r}")


def _take_cloth(ws: tuple, k: int) -> tuple:
    """Remove k cloth, one at a time from the fullest workshop (ruling); sorted result."""
    w = list(ws)
    for _ in range(k):
        w.sort(reverse=True)
        w[0] -= 1
    return tuple(sorted(w))


def _outcomes(state: tuple, action: str) -> list[tuple]:
    """Every mat state (not yet canonical, hand unchanged) reachable by carrying out ``action``
    once, at least partly, with every choice the rules page leaves to the player."""
    if not _feasible(state, action):
        return []
    wh, ws, ships, th, res, port_free, trade_free, row_free, art_free, hand = state
    out = []

    def make(wh=wh, ws=ws, ships=ships, th=th, res=res, port_free=port_free, trade_free=trade_free,
             row_free=row_free, art_free=art_free):  # fmt: skip
        return (tuple(wh), tuple(sorted(ws)), ships, frozenset(th), res, port_free, tuple(trade_free),
                tuple(row_free), art_free, hand)  # fmt: skip

    if action in RESOURCE_OF_ACTION:  # 1 cube from the reserve into that warehouse
        w = list(wh)
        w[RESOURCES.index(RESOURCE_OF_ACTION[action])] += 1
        out.append(make(wh=w, res=res - 1))
    elif action == "Weave":  # 1 cloth into every workshop with room, as far as the reserve goes:
        # rules page, "The actions", Weave: "with too few cubes in the reserve for every workshop,
        # the emptiest workshops get theirs first" (not the player's choice). ws is sorted
        # emptiest first, and workshops are interchangeable here, so ties do not matter.
        room = [i for i, c in enumerate(ws) if c < WORKSHOP_CAPACITY]
        k = min(len(room), res)
        w = list(ws)
        for i in room[:k]:
            w[i] += 1
        out.append(make(ws=w, res=res - k))
    elif action == "Ship":  # k ships each take 1 cloth to a port slot, k = 1 .. what is possible
        for k in range(1, min(ships, sum(ws), port_free) + 1):
            out.append(make(ws=_take_cloth(ws, k), port_free=port_free - k))
    elif action == "Build":  # one item; its cubes go back to the reserve
        wood, brick = wh[0], wh[1]
        if ships < MAX_SHIPS and wood >= 2:
            out.append(make(wh=(wood - 2, brick, wh[2]), ships=ships + 1, res=res + 2))
        if brick >= 2:
            for c in TRADE_CITIES:
                if c not in th:
                    out.append(make(wh=(wood, brick - 2, wh[2]), th=set(th) | {c}, res=res + 2))
        if len(ws) < MAX_WORKSHOPS and wood >= 1 and brick >= 1:
            out.append(make(wh=(wood - 1, brick - 1, wh[2]), ws=ws + (0,), res=res + 2))
    elif action == "Artwork":  # 1 marble to a free artwork slot
        out.append(make(wh=(wh[0], wh[1], wh[2] - 1), art_free=art_free - 1))
    elif action == "Transport":  # 1 cloth to each chosen own trade city with a free slot
        open_cities = [i for i, c in enumerate(TRADE_CITIES) if c in th and trade_free[i] > 0]
        for k in range(1, min(len(open_cities), sum(ws)) + 1):
            for chosen in combinations(open_cities, k):
                tf = list(trade_free)
                for i in chosen:
                    tf[i] -= 1
                out.append(make(ws=_take_cloth(ws, k), trade_free=tf))
    elif action == "Contribute":  # 1 warehouse cube to a free slot of its resource
        for i in range(len(RESOURCES)):
            if wh[i] > 0 and row_free[i] > 0:
                w = list(wh)
                w[i] -= 1
                rf = list(row_free)
                rf[i] -= 1
                out.append(make(wh=w, row_free=rf))
    return out


def reachable_by_cards(pos: dict, player: int, stop=None) -> set[tuple]:
    """Every (canonical) mat state reachable by playing action cards from the hand one after
    another, each card playable when played (its action can be carried out at least partly),
    with every choice of how the card's action is carried out. Includes the state before any
    card. ``stop(state) -> bool``, if given, ends the search early once it returns True for a
    state (the set returned then holds the states seen so far)."""
    start = _mat_state(pos, player)
    seen = {start}
    todo = [start]
    if stop is not None and stop(start):
        return seen
    while todo:
        state = todo.pop()
        hand = state[-1]
        for a_index, action in enumerate(ACTIONS):
            if hand[a_index] == 0:
                continue
            new_hand = tuple(k - (1 if i == a_index else 0) for i, k in enumerate(hand))
            for nxt in _outcomes(state, action):
                nxt = _canonical(nxt[:-1] + (new_hand,))
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
                    if stop is not None and stop(nxt):
                        return seen
    return seen


def placement_spaces(pos: dict, player: int, space_actions: list[tuple[str, str]]) -> set[int]:
    """Indices of the action spaces where ``player`` may place a disc.

    A space (action_a, action_b) is allowed if, now or after playing some sequence of action
    cards from hand (each playable when played), at least one of its two actions can be carried
    out at least partly. Cards drawn during the turn are unknown and not counted. If no space is
    allowed this way, every space is.

    The search stops as soon as every space has a possible action; otherwise it visits every
    reachable mat state, which grows exponentially with the hand (a hand of one card of each
    action: about 2,000 states; two of each: about 100,000).
    """
    validate_position(pos)
    for a, b in space_actions:
        if a not in ACTIONS or b not in ACTIONS:
            raise ValueError(f"unknown action in space {(a, b)!r}")
    possible: set[str] = set()

    def note(state: tuple) -> bool:
        possible.update(a for a in ACTIONS if _feasible(state, a))
        return all(a in possible or b in possible for a, b in space_actions)  # every space decided

    reachable_by_cards(pos, player, stop=note)
    allowed = {i for i, (a, b) in enumerate(space_actions) if a in possible or b in possible}
    return allowed if allowed else set(range(len(space_actions)))
