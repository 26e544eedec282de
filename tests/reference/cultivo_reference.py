"""Independent plain-Python reference (test oracle) for Cultivo payments and scoring.

Written only from the rules page (docs/rules/cultivo.md) and the original rulebook
text; it does not look at the numba engine. Pure Python, standard library only,
clarity over speed. Every search is exhaustive; the only shortcuts are caches and a
pruning bound that can never discard a payable way of paying (see ``_Payer``).

Colours and goods
-----------------
Colour ids as on the rules page::

    0 tomatoes / red     -> castle        3 wood / brown   -> workshop
    1 oranges  / orange  -> manor         4 olives / blue  -> monastery
    2 grapes   / green   -> tower         5 wheat / yellow -> mill

A goods vector is 6 non-negative ints indexed by colour id.

Position format (a plain dict; lists may be tuples)
---------------------------------------------------
``pos["fields"]``: list of fields; a field is referred to everywhere by its index in
    this list. Each field is a dict ``{"x": int, "y": int, "village": int, "colour": int}``:
    a unit square at column ``x``, row ``y`` of a square grid (no two fields on one
    square), the id of the village (map tile) it belongs to, and its colour id.
    Two fields are adjacent when they share an edge (no diagonals): *directly* when
    they have the same village id, *across one canal* when the village ids differ.
    The action and scoring functions accept any set of squares; ``check_map`` tells
    whether the set is a legal Cultivo map.
``pos["players"]``: list of players in seat order; player ``q`` is ``pos["players"][q]``,
    a dict with
    ``"goods"``: 6 ints, the goods the player holds;
    ``"workers"``: list of field indices holding the player's workers (each field at
        most one worker of all players together); the number of workers on the map is
        its length, so the next worker placed is worker number ``len(workers) + 1``
        (workers never return to the board);
    ``"equipment"``: list of ``(type, colour)`` pairs the player owns, ``type`` one of
        ``EQUIPMENT_TYPES`` (``"cart", "market_stall", "barge", "tool", "barrel",
        "scales"``) or its index in that tuple, ``colour`` a colour id (0..5);
    ``"buildings"``: list of field indices holding the player's buildings; a
        building's type is the colour of its field (castle on red, ..., mill on yellow),
        so a player holds at most one building per field colour;
    ``"vp_tiles"``: list of the VP tile values (ints) the player has taken.
``pos["market"]``: 5 rows of 5 cells; ``pos["market"][i][j]`` is ``None`` (empty) or a
    ``(type, colour)`` pair. Row ``i`` and column ``j`` are labelled with goods
    ``i`` and ``j`` (0 tomatoes, 1 oranges, 2 grapes, 3 wood, 4 olives): the piece
    in row ``i``, column ``j`` is paid in goods ``i`` and ``j`` (only ``i`` when i == j).
    Only ``acquire_outcomes`` reads it.
``pos["stack_size"]``: int, face-down equipment left in the stack (0, 5 or 10 at the
    start). Only ``acquire_outcomes`` reads it.
The number of buildings already built in the game is the sum of the players'
``buildings`` lengths (buildings never leave the map); the next building takes VP
tile ``next_vp_tile(pos)``.

Outcomes
--------
``goods_after`` is always a tuple holding, for every player in seat order, the tuple
of that player's 6 goods after the whole action (so goods paid to another player
show up in that player's entry). Outcomes are sets of hashable tuples:

* ``place_outcomes(pos, q)``  -> ``{(target_field, goods_after, extra_action)}``
* ``move_outcomes(pos, q)``   -> ``{(from_field, to_field, goods_after)}``
* ``produce_outcomes(pos, q)``-> ``{(colour, goods_after)}``
* ``acquire_outcomes(pos, q)``-> ``{(row, col, refill_choice, goods_after, extra_action)}``
* ``build_outcomes(pos, q)``  -> ``{(field, goods_after)}``

Two ways of paying that leave every player holding the same goods are one outcome.

Scoring: ``max_disjoint_triples``, ``score_breakdown``, ``final_scores``, ``winners``.
Map: ``check_map``.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# Data tables (values from the rules page; RECONSTRUCTION values live here only)
# ---------------------------------------------------------------------------

TOMATOES, ORANGES, GRAPES, WOOD, OLIVES, WHEAT = range(6)
RED, ORANGE, GREEN, BROWN, BLUE, YELLOW = range(6)
NUM_COLOURS = 6
GOOD_NAMES = ("tomatoes", "oranges", "grapes", "wood", "olives", "wheat")
COLOUR_NAMES = ("red", "orange", "green", "brown", "blue", "yellow")
BUILDING_OF_COLOUR = ("castle", "manor", "tower", "workshop", "monastery", "mill")

EQUIPMENT_TYPES = ("cart", "market_stall", "barge", "tool", "barrel", "scales")
EQUIPMENT_COST = {"cart": 3, "market_stall": 2, "barge": 4, "tool": 5, "barrel": 6, "scales": 6}
EQUIPMENT_VP = {"cart": 1, "market_stall": 2, "barge": 4, "tool": 3, "barrel": 5, "scales": 6}

# Market row i / column j is paid in good MARKET_LABELS[i] / MARKET_LABELS[j].
MARKET_LABELS = (TOMATOES, ORANGES, GRAPES, WOOD, OLIVES)
MARKET_SIZE = 5
REFILL_SIZE = 5

MAX_WORKERS = 10
# Wheat paid when placing worker number k (index k); workers 1-4 are free.
PLACEMENT_WHEAT = (None, 0, 0, 0, 0, 1, 1, 2, 2, 3, 4)
EXCHANGE_WORKERS = (8, 9)   # placing these allows one optional goods exchange
EXTRA_ACTION_WORKER = 10    # placing this one grants one extra action

BUILDING_GOODS = 2          # 2 goods of the field colour ...
BUILDING_WHEAT = 2          # ... plus 2 wheat
BUILDING_EQUIPMENT_VP = 4   # own equipment of the field colour worth at least this
VP_TILES = (7, 6, 5, 4, 3, 2, 1)   # top first: the k-th building takes VP_TILES[k-1]

FIELD_COST = 2      # goods of the field colour per field passed through
CANAL_WHEAT = 2     # wheat per canal crossed

# Village shape "XX. / .X. / .XX" as (x, y) cells, y growing downwards.
Z_SHAPE = ((0, 0), (1, 0), (1, 1), (1, 2), (2, 2))

#: the most path steps one :func:`_travel` walks before it gives up with :class:`TooManyPathsError`
#: (None: no limit). Walking every simple path is exponential in the open fields; the tests set a
#: limit so that the rare position with tens of thousands of paths is skipped (and counted) instead
#: of walked for half a minute.
PATH_STEP_LIMIT: int | None = None


class TooManyPathsError(Exception):
    """A travel search passed :data:`PATH_STEP_LIMIT` path steps."""


_BITS = 16                 # bits per slot of a packed payment vector (see _Payer.states)
_MASK = (1 << _BITS) - 1
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

def _etype(t):
    """Equipment type as its name (accepts the name or its index in EQUIPMENT_TYPES)."""
    if isinstance(t, str):
        if t not in EQUIPMENT_TYPES:
            raise ValueError(f"unknown equipment type {t!r}")
        return t
    return EQUIPMENT_TYPES[int(t)]


def _equipment(player_dict):
    """The player's equipment as a list of (type name, colour)."""
    return [(_etype(t), int(c)) for (t, c) in player_dict["equipment"]]


def _all_goods(pos):
    return tuple(tuple(int(g) for g in p["goods"]) for p in pos["players"])


def _with_gain(goods_all, player, colour, amount):
    """goods_all with `amount` goods of `colour` added to `player`."""
    rows = [list(g) for g in goods_all]
    rows[player][colour] += amount
    return tuple(tuple(r) for r in rows)


class _Board:
    """Adjacency and occupancy derived from a position."""

    def __init__(self, pos):
        fields = pos["fields"]
        self.colour = [int(f["colour"]) for f in fields]
        self.village = [f["village"] for f in fields]
        at = {}
        for i, f in enumerate(fields):
            key = (int(f["x"]), int(f["y"]))
            if key in at:
                raise ValueError(f"fields {at[key]} and {i} lie on the same square {key}")
            at[key] = i
        self.neighbours = []   # list of (field, crosses_a_canal)
        for f in fields:
            row = []
            for dx, dy in STEPS:
                j = at.get((int(f["x"]) + dx, int(f["y"]) + dy))
                if j is not None:
                    row.append((j, fields[j]["village"] != f["village"]))
            self.neighbours.append(row)
        self.worker_of = {}    # field -> player whose worker stands there
        for q, p in enumerate(pos["players"]):
            for w in p["workers"]:
                if w in self.worker_of:
                    raise ValueError(f"two workers on field {w}")
                self.worker_of[w] = q
        self.building_of = {}  # field -> player whose building stands there
        for q, p in enumerate(pos["players"]):
            for b in p["buildings"]:
                if b in self.building_of:
                    raise ValueError(f"two buildings on field {b}")
                self.building_of[b] = q


# ---------------------------------------------------------------------------
# Payments
# ---------------------------------------------------------------------------
#
# An action owes a list of *obligations* ("items"):
#   ("wheat", w)          placement wheat: w wheat to the supply (no choice);
#   ("canal",)            a canal crossed: 2 wheat to the supply, or 1 good of an own
#                         barge's colour to the supply, or 1 good of another player's
#                         barge colour to that player;
#   ("field", c, o)       a field of colour c passed through; o = -1 when no other
#                         player's worker stands there (empty or the mover's own
#                         worker): 2 c to the supply; o = q when player q's worker
#                         stands there: 1 c to q and 1 c to the supply. Or instead 1
#                         good of an own cart's colour to the supply, or 1 good of
#                         another player's cart colour to that player.
#   ("fixed", pairs)      purchase / building cost: pairs of (colour, count) to the
#                         supply (no choice).
# A *pre-payment* fixes one option per item; it is a tuple over recipients (index 0
# the supply, index 1 + q player q) of 6 counts. Then, in this order:
#   scales: for each colour c of the mover's own scales, if the supply's count of c
#           is more than 1, it is lowered by 1;
#   stalls: each of the mover's own market stalls (colour s), at most once in the
#           action, may replace one good of the payment (to any recipient) by a good of
#           colour s (the recipient gets s instead);
#   the mover must hold, before the action, every good then paid.


class _Payer:
    """All ways `player` can pay; results are goods of every player after paying."""

    def __init__(self, pos, player):
        players = pos["players"]
        self.n = len(players)
        self.player = player
        self.goods_all = _all_goods(pos)
        self.goods = self.goods_all[player]
        own = _equipment(players[player])
        self.own_carts = sorted({c for t, c in own if t == "cart"})
        self.own_barges = sorted({c for t, c in own if t == "barge"})
        self.scales = frozenset(c for t, c in own if t == "scales")
        self.stalls = tuple(sorted(c for t, c in own if t == "market_stall"))
        self.borrowed_carts = []
        self.borrowed_barges = []
        for q, p in enumerate(players):
            if q == player:
                continue
            for t, c in _equipment(p):
                if t == "cart":
                    self.borrowed_carts.append((q, c))
                elif t == "barge":
                    self.borrowed_barges.append((q, c))
        if sum(sum(g) for g in self.goods_all) >= _MASK // 2:
            raise ValueError("goods totals this large do not fit the packed payment vectors")
        self._zero = 0
        self._allowance = [self.goods[c] + (1 if c in self.scales else 0) for c in range(NUM_COLOURS)]
        self._total_allowance = sum(self.goods) + len(self.scales)
        self._states = {(): frozenset([self._zero])}
        self._settled = {}
        self._hopeless_memo = {}
        self._finals = {}

    # -- item options ------------------------------------------------------

    def _options(self, item):
        """List of options; an option is a tuple of (recipient block, colour, count)."""
        kind = item[0]
        if kind == "wheat":
            return [((0, WHEAT, item[1]),)]
        if kind == "fixed":
            return [tuple((0, c, k) for c, k in item[1])]
        if kind == "canal":
            opts = [((0, WHEAT, CANAL_WHEAT),)]
            opts += [((0, c, 1),) for c in self.own_barges]
            opts += [((q + 1, c, 1),) for q, c in self.borrowed_barges]
            return opts
        if kind == "field":
            _, colour, occupant = item
            if occupant < 0:
                opts = [((0, colour, FIELD_COST),)]
            else:
                opts = [((occupant + 1, colour, 1), (0, colour, 1))]
            opts += [((0, c, 1),) for c in self.own_carts]
            opts += [((q + 1, c, 1),) for q, c in self.borrowed_carts]
            return opts
        raise ValueError(item)

    def _hopeless(self, state):
        """True when no pre-payment containing `state` can be paid.

        Necessary conditions for payability: scales lower each colour by at most 1,
        stalls move at most len(stalls) goods between colours and keep the count.
        Both bounds only get worse when obligations are added, so a hopeless partial
        payment can be dropped for every extension too."""
        deficit = 0
        total = 0
        for c in range(NUM_COLOURS):
            t = (state >> (_BITS * c)) & _MASK
            total += t
            over = t - self._allowance[c]
            if over > 0:
                deficit += over
        return deficit > len(self.stalls) or total > self._total_allowance

    def _delta(self, option):
        """An option as a packed vector added to a state (see `states`)."""
        vec = 0
        for b, c, k in option:
            vec += k << (_BITS * c)
            vec += k << (_BITS * (6 * (b + 1) + c))
        return vec

    def states(self, key):
        """Frozenset of pre-payments (not hopeless) for the sorted tuple of items `key`.

        A state is a vector packed into one int, _BITS bits per slot: slots 0..5 the
        colour totals over all recipients, then 6 slots (one per colour) per recipient
        block: block 0 the supply, block 1 + q player q. Packing is only for speed."""
        if key not in self._states:
            self._states[key] = self._extend(self.states(key[:-1]), key[-1])
        return self._states[key]

    def extend(self, key, item):
        """Sorted key of `key` plus `item`, with its states computed from those of `key`."""
        new_key = tuple(sorted(key + (item,)))
        if new_key not in self._states:
            self._states[new_key] = self._extend(self.states(key), item)
        return new_key

    def _extend(self, parent, item):
        deltas = [self._delta(opt) for opt in self._options(item)]
        candidates = {st + d for st in parent for d in deltas}
        hopeless = self._hopeless_memo
        result = []
        for new in candidates:
            if new not in hopeless:
                hopeless[new] = self._hopeless(new)
            if not hopeless[new]:
                result.append(new)
        return frozenset(result)

    def settle(self, state):
        """Set of goods_after (all players) over scales and stall choices for a pre-payment."""
        if state in self._settled:
            return self._settled[state]
        blocks = [[(state >> (_BITS * (6 * (b + 1) + c))) & _MASK for c in range(6)]
                  for b in range(self.n + 1)]
        for c in self.scales:
            if blocks[0][c] > 1:
                blocks[0][c] -= 1
        original = {(b, c): blocks[b][c] for b in range(self.n + 1) for c in range(6) if blocks[b][c] > 0}
        results = set()

        def finish(orig, added):
            paid = [[0] * 6 for _ in range(self.n + 1)]
            for (b, c), k in orig.items():
                paid[b][c] += k
            for (b, c), k in added.items():
                paid[b][c] += k
            spent = [sum(paid[b][c] for b in range(self.n + 1)) for c in range(6)]
            if any(spent[c] > self.goods[c] for c in range(6)):
                return
            rows = [list(g) for g in self.goods_all]
            for c in range(6):
                rows[self.player][c] -= spent[c]
            for q in range(self.n):
                for c in range(6):
                    rows[q][c] += paid[q + 1][c]
            results.add(tuple(tuple(r) for r in rows))

        def use_stall(i, orig, added):
            if i == len(self.stalls):
                finish(orig, added)
                return
            use_stall(i + 1, orig, added)          # this stall unused
            s = self.stalls[i]
            for (b, c), k in orig.items():
                if k == 0 or c == s:
                    continue                       # replacing s by s changes nothing
                o2 = dict(orig)
                o2[(b, c)] = k - 1
                a2 = dict(added)
                a2[(b, s)] = a2.get((b, s), 0) + 1
                use_stall(i + 1, o2, a2)

        use_stall(0, original, {})
        self._settled[state] = frozenset(results)
        return self._settled[state]

    def finals(self, key):
        """Set of goods_after (all players) for every legal way of paying items `key`."""
        if key not in self._finals:
            out = set()
            for st in self.states(key):
                out |= self.settle(st)
            self._finals[key] = frozenset(out)
        return self._finals[key]


def _travel(board, payer, player, origins, base_items):
    """Every simple path from an origin to a field with no worker.

    Returns dict target -> set of goods_after (all players) after paying the base items
    plus the path (before the arrival good)."""
    reach = {}
    base = tuple(sorted(base_items))
    steps = [0]

    def dfs(u, key, visited):
        for v, canal in board.neighbours[u]:
            if v in visited:
                continue
            steps[0] += 1
            if PATH_STEP_LIMIT is not None and steps[0] > PATH_STEP_LIMIT:
                raise TooManyPathsError(f"more than {PATH_STEP_LIMIT} path steps")
            k = payer.extend(key, ("canal",)) if canal else key
            if not payer.states(k):
                continue
            if v not in board.worker_of:
                results = payer.finals(k)
                if results:
                    reach.setdefault(v, set()).update(results)
            occ = board.worker_of.get(v, -1)
            if occ == player:
                occ = -1       # own worker: full price to the supply
            k2 = payer.extend(k, ("field", board.colour[v], occ))
            if payer.states(k2):
                visited.add(v)
                dfs(v, k2, visited)
                visited.remove(v)

    for o in origins:
        dfs(o, base, {o})
    return reach


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------

def place_outcomes(pos, player):
    """All distinct results of one "Place a worker" action by `player`.

    Outcome: (target_field, goods_after, extra_action). extra_action is True exactly
    when the worker placed is the 10th. Empty when all 10 workers are on the map or
    when the player has no worker on the map (the start placement is not an action)."""
    board = _Board(pos)
    me = pos["players"][player]
    placed = len(me["workers"])
    if placed == 0 or placed >= MAX_WORKERS:
        return set()
    number = placed + 1
    wheat = PLACEMENT_WHEAT[number]
    base = (("wheat", wheat),) if wheat else ()
    payer = _Payer(pos, player)
    reach = _travel(board, payer, player, list(me["workers"]), base)
    extra = number == EXTRA_ACTION_WORKER
    outcomes = set()
    for target, results in reach.items():
        for paid in results:
            after = _with_gain(paid, player, board.colour[target], 1)
            if number in EXCHANGE_WORKERS:
                for final in _exchanges(after, player):
                    outcomes.add((target, final, extra))
            else:
                outcomes.add((target, after, extra))
    return outcomes


def _exchanges(goods_all, player):
    """goods_all itself (no exchange) and every exchange of one own good for another colour."""
    yield goods_all
    mine = goods_all[player]
    for give in range(6):
        if mine[give] == 0:
            continue
        for take in range(6):
            if take == give:
                continue
            rows = [list(g) for g in goods_all]
            rows[player][give] -= 1
            rows[player][take] += 1
            yield tuple(tuple(r) for r in rows)


def move_outcomes(pos, player):
    """All distinct results of one "Move a worker" action: (from_field, to_field, goods_after)."""
    board = _Board(pos)
    me = pos["players"][player]
    payer = _Payer(pos, player)
    outcomes = set()
    for origin in me["workers"]:
        reach = _travel(board, payer, player, [origin], ())
        for target, results in reach.items():
            for paid in results:
                outcomes.add((origin, target, _with_gain(paid, player, board.colour[target], 1)))
    return outcomes


def produce_outcomes(pos, player):
    """All results of one "Produce" action: (colour, goods_after)."""
    board = _Board(pos)
    me = pos["players"][player]
    own_buildings = set(me["buildings"])
    tools = {c for t, c in _equipment(me) if t == "tool"}
    goods_all = _all_goods(pos)
    outcomes = set()
    for colour in sorted({board.colour[w] for w in me["workers"]}):
        on_colour = [w for w in me["workers"] if board.colour[w] == colour]
        amount = len(on_colour)
        amount += sum(1 for w in on_colour if w in own_buildings)
        amount += 1 if colour in tools else 0
        outcomes.add((colour, _with_gain(goods_all, player, colour, amount)))
    return outcomes


def acquire_outcomes(pos, player):
    """All results of one "Acquire equipment" action.

    Outcome: (row, col, refill_choice, goods_after, extra_action). refill_choice is
    None unless the purchase empties its row and its column at once while the stack
    holds at least 5 pieces; then both 'row' and 'col' are listed. extra_action is
    True when the piece bought is a barrel. Only equipment owned before the action
    (scales, stalls) acts on its payment."""
    market = pos["market"]
    stack = int(pos["stack_size"])
    payer = _Payer(pos, player)
    outcomes = set()
    for i in range(MARKET_SIZE):
        for j in range(MARKET_SIZE):
            cell = market[i][j]
            if cell is None:
                continue
            etype = _etype(cell[0])
            cost = EQUIPMENT_COST[etype]
            a, b = MARKET_LABELS[i], MARKET_LABELS[j]
            if i == j:
                splits = [((a, cost),)]
            else:
                splits = [((a, k), (b, cost - k)) for k in range(1, cost)]
            results = set()
            for split in splits:
                results |= payer.finals((("fixed", split),))
            row_empty = all(market[i][jj] is None for jj in range(MARKET_SIZE) if jj != j)
            col_empty = all(market[ii][j] is None for ii in range(MARKET_SIZE) if ii != i)
            choices = ("row", "col") if (row_empty and col_empty and stack >= REFILL_SIZE) else (None,)
            for goods in results:
                for choice in choices:
                    outcomes.add((i, j, choice, goods, etype == "barrel"))
    return outcomes


def build_outcomes(pos, player):
    """All results of one "Build" action: (field, goods_after).

    The building built gets VP tile next_vp_tile(pos) (the same for every outcome)."""
    board = _Board(pos)
    me = pos["players"][player]
    built_colours = [board.colour[f] for f in me["buildings"]]
    own = _equipment(me)
    payer = _Payer(pos, player)
    outcomes = set()
    for field in sorted(set(me["workers"])):
        colour = board.colour[field]
        if field in board.building_of or colour in built_colours:
            continue
        worth = sum(EQUIPMENT_VP[t] for t, c in own if c == colour)
        if worth < BUILDING_EQUIPMENT_VP:
            continue
        if colour == WHEAT:
            cost = ((WHEAT, BUILDING_WHEAT + BUILDING_GOODS),)
        else:
            cost = ((WHEAT, BUILDING_WHEAT), (colour, BUILDING_GOODS))
        for goods in payer.finals((("fixed", cost),)):
            outcomes.add((field, goods))
    return outcomes


def next_vp_tile(pos):
    """VP tile the next building of the game takes (8 - k for the k-th, k <= 7), or None."""
    built = sum(len(p["buildings"]) for p in pos["players"])
    return VP_TILES[built] if built < len(VP_TILES) else None


# ---------------------------------------------------------------------------
# Final scoring
# ---------------------------------------------------------------------------

def max_disjoint_triples(goods6):
    """Maximum number of disjoint sets of 3 goods of 3 different colours.

    t sets are possible iff sum_c min(g_c, t) >= 3 t (each colour gives at most one
    good to each set; the greedy 'take from the three largest piles' attains it)."""
    goods = [int(g) for g in goods6]
    best = 0
    t = 1
    while 3 * t <= sum(goods):
        if sum(min(g, t) for g in goods) >= 3 * t:
            best = t
        t += 1
    return best


def score_breakdown(pos, player):
    """VP by source for `player`: keys goods, vp_tiles, equipment, one per building type
    (castle, manor, tower, workshop, monastery, mill; 0 when not built), total, and
    goods_left (goods still held after the scored triples go back; the tie-break)."""
    board = _Board(pos)
    me = pos["players"][player]
    goods = [int(g) for g in me["goods"]]
    equipment = _equipment(me)
    workers = list(me["workers"])
    triples = max_disjoint_triples(goods)
    result = {
        "goods": triples,
        "vp_tiles": sum(int(v) for v in me["vp_tiles"]),
        "equipment": sum(EQUIPMENT_VP[t] for t, _ in equipment),
    }
    for name in BUILDING_OF_COLOUR:
        result[name] = 0
    seen = set()
    for field in me["buildings"]:
        colour = board.colour[field]
        name = BUILDING_OF_COLOUR[colour]
        if name in seen:
            raise ValueError(f"player {player} holds two {name}s")
        seen.add(name)
        if name == "monastery":
            vp = min(10, len(workers))
        elif name == "workshop":
            vp = min(12, 2 * len({t for t, _ in equipment}))
        elif name == "tower":
            vp = min(12, 2 * len(me["buildings"]))
        elif name == "castle":
            vp = 3 * len({board.village[w] for w in workers})
        elif name == "manor":
            near = {field} | {v for v, _ in board.neighbours[field]}
            vp = 3 * sum(1 for w in workers if w in near)
        else:  # mill
            vp = 4 * sum(1 for w in workers if board.colour[w] == YELLOW)
        result[name] = vp
    result["total"] = (result["goods"] + result["vp_tiles"] + result["equipment"]
                       + sum(result[name] for name in BUILDING_OF_COLOUR))
    result["goods_left"] = sum(goods) - 3 * triples
    return result


def final_scores(pos):
    """Total VP of every player in seat order."""
    return [score_breakdown(pos, q)["total"] for q in range(len(pos["players"]))]


def winners(pos):
    """Seats of the winners, ascending: most VP; among those tied, most goods left after
    the scored triples' goods go back to the supply; still tied: all of them share."""
    rows = [score_breakdown(pos, q) for q in range(len(pos["players"]))]
    best = max((r["total"], r["goods_left"]) for r in rows)
    return [q for q, r in enumerate(rows) if (r["total"], r["goods_left"]) == best]


# ---------------------------------------------------------------------------
# Map check
# ---------------------------------------------------------------------------

def _normalise(cells):
    mx = min(x for x, _ in cells)
    my = min(y for _, y in cells)
    return frozenset((x - mx, y - my) for x, y in cells)


def z_orientations():
    """The distinct normalised cell sets of the village shape in its 8 orientations."""
    shapes = set()
    for swap in (False, True):
        for sx in (1, -1):
            for sy in (1, -1):
                cells = [((y, x) if swap else (x, y)) for x, y in Z_SHAPE]
                shapes.add(_normalise([(sx * x, sy * y) for x, y in cells]))
    return shapes


def check_map(fields):
    """Problems of a map given as the `fields` list of a position; [] when it is legal.

    Checks: no two fields on one square; each village is the Z shape `XX. / .X. / .XX`
    in one of its 8 orientations, with 5 different colours, exactly one yellow;
    gap-free (the squares form one edge-connected region, and no empty square is
    enclosed, i.e. cut off from the outside of the bounding box through edge-adjacent
    empty squares); compact (bounding box sides at most 2:1, at least half of the box
    filled); every village borders (shares an edge with) at least 2 other villages."""
    problems = []
    if not fields:
        return ["the map has no fields"]
    at = {}
    for i, f in enumerate(fields):
        key = (int(f["x"]), int(f["y"]))
        if key in at:
            problems.append(f"fields {at[key]} and {i} lie on the same square {key}")
        at[key] = i
    villages = {}
    for f in fields:
        villages.setdefault(f["village"], []).append(f)
    shapes = z_orientations()
    for vid in sorted(villages, key=repr):
        vf = villages[vid]
        cells = [(int(f["x"]), int(f["y"])) for f in vf]
        if len(vf) != 5 or _normalise(cells) not in shapes:
            problems.append(f"village {vid} is not the Z shape XX./.X./.XX")
        colours = [int(f["colour"]) for f in vf]
        if len(set(colours)) != len(colours):
            problems.append(f"village {vid} repeats a colour")
        if colours.count(YELLOW) != 1:
            problems.append(f"village {vid} has {colours.count(YELLOW)} yellow fields, not exactly one")
    squares = set(at)
    # edge-connected
    start = next(iter(squares))
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in STEPS:
            nb = (x + dx, y + dy)
            if nb in squares and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    if len(seen) != len(squares):
        problems.append("the map is not one edge-connected region")
    xs = [x for x, _ in squares]
    ys = [y for _, y in squares]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    # enclosed empty squares: flood the empty squares from a frame around the box
    outside = set()
    todo = [(x0 - 1, y0 - 1)]
    outside.add(todo[0])
    while todo:
        x, y = todo.pop()
        for dx, dy in STEPS:
            nb = (x + dx, y + dy)
            if (x0 - 1 <= nb[0] <= x1 + 1 and y0 - 1 <= nb[1] <= y1 + 1
                    and nb not in squares and nb not in outside):
                outside.add(nb)
                todo.append(nb)
    holes = [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)
             if (x, y) not in squares and (x, y) not in outside]
    if holes:
        problems.append(f"the map encloses empty squares {sorted(holes)}")
    w, h = x1 - x0 + 1, y1 - y0 + 1
    if max(w, h) > 2 * min(w, h):
        problems.append(f"the bounding box {w}x{h} is longer than 2:1")
    if 2 * len(squares) < w * h:
        problems.append(f"{len(squares)} squares fill less than half of the {w}x{h} bounding box")
    borders = {vid: set() for vid in villages}
    for (x, y), i in at.items():
        for dx, dy in STEPS:
            j = at.get((x + dx, y + dy))
            if j is not None and fields[j]["village"] != fields[i]["village"]:
                borders[fields[i]["village"]].add(fields[j]["village"])
    for vid in sorted(villages, key=repr):
        if len(borders[vid]) < 2:
            problems.append(f"village {vid} borders {len(borders[vid])} other villages, fewer than 2")
    return problems


__all__ = [
    "place_outcomes", "move_outcomes", "produce_outcomes", "acquire_outcomes", "build_outcomes",
    "next_vp_tile", "max_disjoint_triples", "score_breakdown", "final_scores", "winners",
    "check_map", "z_orientations",
]
