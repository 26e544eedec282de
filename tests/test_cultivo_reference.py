"""The Cultivo engine against an independent plain-Python reference (tests/reference/cultivo_reference.py,
written from docs/rules/cultivo.md without reading the engine).

Action outcomes. At a position where the turn owner is at the ``action`` decision, the engine's decision
tree of each action kind is walked: every legal decision (``rules.legal_mask``) applied to a copy
(``apply_decision``, forced decisions included, exactly what ``rules.apply``'s auto-advance would
take), until the action is complete: ``complete_action`` clears the action in progress (``ACT`` back
to ``ACT_NONE``; the exchange of the 8th / 9th worker and the refill choice keep it set), whatever
comes next (the owner's next action, another seat's turn, the end). Each leaf gives one outcome in the
reference's format (the goods of every player after, the target, the extra action, ...); the SET of
outcomes must equal the reference's. Every node inside an action has a legal decision (no dead end),
and a few leaves per tree are replayed with ``rules.apply`` (the env's path) to the same state.

Positions: random games (uniform random decisions, seeded) at 2, 3 and 4 players, sampled at ``action``
decisions; and positions from the text builder (``state_from_ascii``) generated around carts, barges,
scales, market stalls, borrowing, tools, barrels, the 8th-10th workers and refills, plus a few
hand-made ones for the interpretation points (scales on a shared payment, a stall for placement
wheat, a purchase's own piece, when the refill choice is offered). Trees over a node cap are skipped
and counted.

One choice per outcome. Leaves with the same non-payment decisions (kind, target, worker, origin,
path, colour, slot, field) and the same outcome are duplicates; there must be none (travel
payments are decided as their outcome, purchase splits and the stall stage are enumerated exactly).

Final scoring: finished random games and built positions, the engine's breakdown (``to_dict``),
``rules.scores`` and the ranking (``rules.rank_keys``, the env's rewards) against ``final_scores``,
``score_breakdown`` and ``winners``, tie-break included.
"""

from __future__ import annotations

import collections
import functools
import random

import numpy as np
import pytest

import cultivo_env
from cultivo_env import layout as L
from cultivo_env import notation, rules
from cultivo_env.game import GAME, state_from_ascii
from cultivo_env.rules.accessors import owner, owns
from cultivo_env.rules.step import apply_decision
from gamecore.kernel.protocol import H_CURRENT, H_DECISIONS, H_NPLAYERS, H_OWNER, H_PHASE, H_TERMINAL
from reference import cultivo_reference as ref

# ---- sizes (runtime: about 70 s on two shared cores once the kernels are compiled) ------------------
GAMES = {2: 3, 3: 3, 4: 3}  # random games per player count
SAMPLE_RATE = 0.15  # share of the `action` decisions of a random game that are compared
NODE_CAP = 8000  # random-game trees larger than this are skipped (counted)
REF_PATH_CAP = 12000  # positions whose reference travel search walks more path steps are skipped (counted)
BUILT_PER_SCENARIO = 14  # generated text-builder positions per scenario
BUILT_NODE_CAP = 20000
MIN_POSITIONS = 150  # compared (position, kind) pairs per player count, random games
MIN_PER_KIND = {L.ACT_PLACE: 15, L.ACT_MOVE: 30, L.ACT_PRODUCE: 40, L.ACT_ACQUIRE: 15, L.ACT_BUILD: 2}
MAX_SKIPPED_SHARE = 0.25
REPLAYS_PER_TREE = 3

KINDS = (L.ACT_PLACE, L.ACT_MOVE, L.ACT_PRODUCE, L.ACT_ACQUIRE, L.ACT_BUILD)
REFERENCE = {
    L.ACT_PLACE: ref.place_outcomes,
    L.ACT_MOVE: ref.move_outcomes,
    L.ACT_PRODUCE: ref.produce_outcomes,
    L.ACT_ACQUIRE: ref.acquire_outcomes,
    L.ACT_BUILD: ref.build_outcomes,
}
PAYMENT_PHASES = (L.PH_PAY, L.PH_SPLIT, L.PH_STALL)
TRAVEL_KINDS = (L.ACT_PLACE, L.ACT_MOVE)


# =====================================================================================================
# The adapter: engine position -> reference position (renaming and reshaping only)
# =====================================================================================================
REF_TYPE = {"cart": "cart", "stall": "market_stall", "barge": "barge", "tool": "tool", "barrel": "barrel",
            "scales": "scales"}


def ref_piece(name: str) -> tuple[str, int]:
    colour, kind = name.split()
    return REF_TYPE[kind], L.COLOURS.index(colour)


def reference_position(state: np.ndarray) -> dict:
    """The position as the reference reads it, from the engine's public dict."""
    d = GAME.to_dict(state)
    index = {f["name"]: f["field"] for f in d["map"]["fields"]}
    fields = [{"x": f["col"], "y": f["row"], "village": f["place"], "colour": L.COLOURS.index(f["colour"])}
              for f in d["map"]["fields"]]
    players = [{
        "goods": [p["goods"][c] for c in L.COLOURS],
        "workers": [index[name] for name in p["worker_fields"]],
        "equipment": [ref_piece(name) for name in p["equipment"]],
        "buildings": [index[b["field"]] for b in p["buildings"]],
        "vp_tiles": [p["vp_tiles"]] if p["vp_tiles"] else [],  # the engine keeps their sum
    } for p in d["players"]]
    market = [[None if name is None else ref_piece(name) for name in row] for row in d["market"]["grid"]]
    return {"fields": fields, "players": players, "market": market, "stack_size": d["stack_size"]}


def all_goods(state: np.ndarray) -> tuple[tuple[int, ...], ...]:
    n = int(state[H_NPLAYERS])
    return tuple(tuple(int(state[L.GOODS_S + L.NUM_COLOURS * q + c]) for c in range(L.NUM_COLOURS))
                 for q in range(n))


def describe(state: np.ndarray) -> str:
    d = GAME.to_dict(state)
    lines = [notation.map_ascii(state), *notation.market_rows(state), f"stack {d['stack_size']}"]
    for p in d["players"]:
        lines.append(f"player_{p['seat']}: goods {notation.goods_text([p['goods'][c] for c in L.COLOURS])}, "
                     f"equipment {p['equipment']}, buildings {p['buildings']}")
    lines.append(f"current player_{int(state[H_CURRENT])}, actions left {int(state[L.ACTIONS_LEFT])}")
    return "\n".join(lines)


# =====================================================================================================
# Walking one action's decision tree
# =====================================================================================================
class TreeTooBigError(Exception):
    pass


def pay_tag(state: np.ndarray, action: int) -> tuple[str, int]:
    """What a travel payment's decision fixes: the payer's total of a colour or a receipt, and the value."""
    j = int(state[L.PAY_I]) % int(state[H_NPLAYERS])
    return ("total" if j == 0 else "receipt"), action - L.A_AMOUNT


def walk_action(root: np.ndarray, kind: int, cap: int):
    """Leaves (path, state) of one action; a path is a tuple of (phase, action, forced, tag)."""
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    forced = rules.legal_mask(root, mask) == 1
    first = root.copy()
    apply_decision(first, L.A_KIND + kind)
    todo = [(first, ((L.PH_ACTION, L.A_KIND + kind, forced, None),))]
    leaves = []
    nodes = 0
    dead = 0
    while todo:
        state, path = todo.pop()
        nodes += 1
        if nodes > cap:
            raise TreeTooBigError
        if state[L.ACT] == L.ACT_NONE:  # complete_action ran: the action is over
            leaves.append((path, state))
            continue
        count = rules.legal_mask(state, mask)
        if count == 0:
            dead += 1
            continue
        ph = int(state[H_PHASE])
        for a in np.flatnonzero(mask):
            a = int(a)
            tag = pay_tag(state, a) if ph == L.PH_PAY else None
            child = state.copy()
            apply_decision(child, a)
            todo.append((child, (*path, (ph, a, count == 1, tag))))
    leaves.reverse()
    return leaves, nodes, dead


def replay_matches(root: np.ndarray, path, leaf: np.ndarray) -> bool:
    """``rules.apply`` on the path's real decisions (it takes the forced ones itself) reaches the leaf."""
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    if not leaf[H_TERMINAL] and rules.legal_mask(leaf, mask) == 1:
        return True  # apply would go on into the next action by itself: nothing to compare
    state = root.copy()
    i = 0
    while i < len(path):
        rules.apply(state, path[i][1])
        i += 1
        while i < len(path) and path[i][2]:
            i += 1
    a, b = state.copy(), leaf.copy()
    a[H_DECISIONS] = b[H_DECISIONS] = 0
    return bool((a == b).all())


def engine_outcome(kind: int, root: np.ndarray, path, leaf: np.ndarray) -> tuple:
    """The leaf in the reference's outcome format; asserts that the state agrees with the decisions."""
    p = int(root[H_CURRENT])
    goods = all_goods(leaf)
    extra = bool(not leaf[H_TERMINAL] and leaf[H_OWNER] == p and leaf[L.ACTIONS_LEFT] == root[L.ACTIONS_LEFT])
    chosen = {ph: a for ph, a, _, _ in path}
    if kind == L.ACT_PLACE:
        target = chosen[L.PH_PLACE_TARGET] - L.A_FIELD
        assert leaf[L.WORKER + target] == p + 1 and leaf[L.WORKERS_ON_MAP + p] == root[L.WORKERS_ON_MAP + p] + 1
        return target, goods, extra
    if kind == L.ACT_MOVE:
        origin = chosen[L.PH_MOVE_WORKER] - L.A_FIELD
        target = chosen[L.PH_MOVE_TARGET] - L.A_FIELD
        assert leaf[L.WORKER + origin] == 0 and leaf[L.WORKER + target] == p + 1
        return origin, target, goods
    if kind == L.ACT_PRODUCE:
        return chosen[L.PH_PRODUCE] - L.A_COLOUR, goods
    if kind == L.ACT_ACQUIRE:
        slot = chosen[L.PH_ACQUIRE] - L.A_SLOT
        piece = int(root[L.MARKET + slot]) - 1
        assert leaf[L.EQUIP_LOC + piece] == L.LOC_OWNED + p
        refill = ("row", "col")[chosen[L.PH_REFILL] - L.A_REFILL] if L.PH_REFILL in chosen else None
        return slot // L.MARKET_W, slot % L.MARKET_W, refill, goods, extra
    field = chosen[L.PH_BUILD] - L.A_FIELD
    assert leaf[L.BUILDING + field] == p + 1
    return field, goods


# =====================================================================================================
# Comparing one position
# =====================================================================================================
class Results:
    def __init__(self) -> None:
        self.compared = collections.Counter()  # kind -> (position, kind) pairs compared
        self.skipped = collections.Counter()
        self.leaves = 0
        self.nodes = 0
        self.mismatches: list[str] = []
        self.dead_ends: list[str] = []
        self.replay_failures: list[str] = []
        self.duplicates: list[tuple] = []  # (kind, root, [paths], outcome)
        self.features = collections.Counter()  # leaves using each feature

    def total(self) -> int:
        return sum(self.compared.values())


def note_features(kind: int, root: np.ndarray, path, outcome, features: collections.Counter) -> None:
    p = int(root[H_CURRENT])
    n = int(root[H_NPLAYERS])
    travel = kind in TRAVEL_KINDS
    for ph, a, forced, tag in path:
        if tag is not None and not forced:
            features["chosen_" + tag[0]] += 1  # a travel payment with a choice of that amount
        if tag is not None and tag[0] == "receipt" and tag[1] > 0:
            features["receipt"] += 1
        if ph == L.PH_STALL and a != L.A_STALL:
            features["stall"] += 1
        if ph == L.PH_EXCHANGE and a != L.A_EXCHANGE:
            features["exchange"] += 1
        if ph == L.PH_REFILL:
            features["refill_choice"] += 1
    if travel:  # what the payer could pay with (the leaf's means are not decisions any more)
        for kind_eq, name in ((L.CART, "cart"), (L.BARGE, "barge")):
            owners = {int(owner(root, L.NUM_COLOURS * kind_eq + c)) for c in range(L.NUM_COLOURS)}
            if p in owners:
                features["own_" + name] += 1
            if owners - {p, -1}:
                features["borrowed_" + name] += 1
        if any(owns(root, p, L.STALL, c) for c in range(L.NUM_COLOURS)):
            features["stall"] += 1
            if kind == L.ACT_PLACE and root[L.WORKERS_ON_MAP + p] >= 4:
                features["stall_for_wheat_with_placement_wheat"] += 1
        if any(root[L.WORKER + f] not in (0, p + 1) for f in range(int(L.NUM_FIELDS[n]))):
            features["share"] += 1
    if any(owns(root, p, L.SCALES, c) for c in range(L.NUM_COLOURS)) and kind != L.ACT_PRODUCE:
        features["payer_with_scales"] += 1
    if kind == L.ACT_PRODUCE and owns(root, p, L.TOOL, outcome[0]):
        features["tool"] += 1
    if kind == L.ACT_ACQUIRE and outcome[4]:
        features["barrel"] += 1
    if kind == L.ACT_PLACE and outcome[2]:
        features["tenth_worker"] += 1
    if kind == L.ACT_BUILD:
        features["build"] += 1


def reference_outcomes(kind: int, pos, p: int) -> set:
    """The reference's outcomes of action ``kind``; raises ``ref.TooManyPathsError`` past :data:`REF_PATH_CAP`."""
    limit, ref.PATH_STEP_LIMIT = ref.PATH_STEP_LIMIT, REF_PATH_CAP
    try:
        return REFERENCE[kind](pos, p)
    finally:
        ref.PATH_STEP_LIMIT = limit


def compare_position(root: np.ndarray, label: str, cap: int, res: Results) -> None:
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rules.legal_mask(root, mask)
    pos = reference_position(root)
    p = int(root[H_CURRENT])
    for kind in KINDS:
        if not mask[L.A_KIND + kind]:
            try:
                expected = reference_outcomes(kind, pos, p)
            except ref.TooManyPathsError:
                res.skipped[kind] += 1
                continue
            if expected:
                res.mismatches.append(f"{label}: {L.ACTION_KINDS[kind]} not offered, the reference has "
                                      f"{len(expected)} outcomes, e.g. {sorted(expected, key=repr)[:3]}\n"
                                      f"{describe(root)}")
            continue
        try:
            leaves, nodes, dead = walk_action(root, kind, cap)
            expected = reference_outcomes(kind, pos, p)
        except (TreeTooBigError, ref.TooManyPathsError):
            res.skipped[kind] += 1
            continue
        res.compared[kind] += 1
        res.nodes += nodes
        res.leaves += len(leaves)
        if dead:
            res.dead_ends.append(f"{label}: {L.ACTION_KINDS[kind]}: {dead} dead ends")
        groups = collections.defaultdict(list)
        for path, leaf in leaves:
            outcome = engine_outcome(kind, root, path, leaf)
            route = tuple((ph, a) for ph, a, _, _ in path if ph not in PAYMENT_PHASES)
            groups[(route, outcome)].append(path)
            note_features(kind, root, path, outcome, res.features)
        got = {outcome for _, outcome in groups}
        if got != expected:
            res.mismatches.append(
                f"{label}: {L.ACTION_KINDS[kind]}: engine only {sorted(got - expected, key=repr)[:4]}, "
                f"reference only {sorted(expected - got, key=repr)[:4]}\n{describe(root)}")
        for (_, outcome), paths in groups.items():
            if len(paths) > 1:
                res.duplicates.append((kind, root, paths, outcome))
        picks = sorted({0, len(leaves) // 2, len(leaves) - 1})[:REPLAYS_PER_TREE] if leaves else []
        for i in picks:
            path, leaf = leaves[i]
            if not replay_matches(root, path, leaf):
                res.replay_failures.append(f"{label}: {[a for _, a, _, _ in path]}")


# =====================================================================================================
# Positions: random games
# =====================================================================================================
@functools.cache
def random_games(n: int):
    """(results of the sampled positions, finished games as (state, env rewards))."""
    res = Results()
    finished = []
    rng = np.random.default_rng(1000 + n)
    env = cultivo_env.raw_env(num_players=n)
    for game in range(GAMES[n]):
        env.reset(seed=100 * n + game)
        while not env.state_array[H_TERMINAL]:
            st = env.state_array
            if st[H_PHASE] == L.PH_ACTION and rng.random() < SAMPLE_RATE:
                compare_position(st.copy(), f"{n}p game {game} decision {int(st[H_DECISIONS])}", NODE_CAP, res)
            env.step(int(rng.choice(env.legal_actions())))
        finished.append((env.state_array.copy(), dict(env.rewards)))
    return res, finished


# =====================================================================================================
# Positions: the text builder
# =====================================================================================================
PIECES = [notation.piece_name(e) for e in range(L.NUM_EQUIP)]
SCENARIOS = {
    # scenario: (types the turn owner is given, types the others are given)
    "carts": ((L.CART, L.CART, L.CART), (L.CART,)),
    "barges": ((L.BARGE, L.BARGE), (L.BARGE,)),
    "borrowing": ((), (L.CART, L.CART, L.BARGE, L.BARGE)),
    "scales": ((L.SCALES, L.SCALES, L.CART), (L.CART,)),
    "yellow_scales": ((L.SCALES, L.BARGE), ()),
    "stalls": ((L.STALL, L.STALL, L.CART), (L.CART,)),
    "stalls_and_scales": ((L.STALL, L.SCALES, L.CART, L.BARGE), (L.CART,)),
    "tools_barrels": ((L.TOOL, L.TOOL, L.BARREL), ()),
    "workers_8_to_10": ((L.STALL, L.SCALES), ()),
    "refill": ((L.STALL, L.SCALES), (L.CART,)),
}


def built_position(rng: random.Random, scenario: str) -> np.ndarray:
    """A position from the text builder, random around one scenario."""
    n = rng.choice([3, 4]) if scenario == "refill" else rng.choice([2, 3, 4])
    nplaces = int(L.NUM_PLACES[n])
    tiles = rng.sample(range(L.NUM_TILES), nplaces)
    turned = [rng.random() < 0.5 for _ in tiles]
    names, colour = [], []
    for f in range(int(L.NUM_FIELDS[n])):
        place, i = divmod(f, L.FIELDS_PER_VILLAGE)
        j = L.FIELDS_PER_VILLAGE - 1 - i if turned[place] else i
        names.append(f"V{tiles[place] + 1}.{j + 1}")
        colour.append(int(L.PATTERN[tiles[place], j]))
    free = list(range(len(names)))
    rng.shuffle(free)
    me = rng.randrange(n)
    workers = {}
    for q in range(n):
        k = rng.randint(1, 4)
        if q == me and (scenario == "workers_8_to_10" or rng.random() < 0.2):
            k = rng.choice([7, 8, 9]) if scenario == "workers_8_to_10" else rng.choice([4, 5, 6])
        workers[q] = [free.pop() for _ in range(k)]
    goods = {}
    for q in range(n):
        g = [0] * L.NUM_COLOURS
        for _ in range(rng.randint(2, 8) if q == me else rng.randint(0, 4)):
            g[rng.randrange(L.NUM_COLOURS)] += 1
        if q == me and scenario in ("workers_8_to_10", "yellow_scales"):
            g[L.YELLOW] += rng.randint(1, 4)
        if q == me and scenario in ("tools_barrels", "refill"):
            for c in rng.sample(range(5), 2):
                g[c] += rng.randint(1, 4)
        goods[q] = notation.goods_text(g)
    pieces = list(range(L.NUM_EQUIP))
    rng.shuffle(pieces)
    equipment = {q: [] for q in range(n)}
    mine, theirs = SCENARIOS[scenario]

    def give(q: int, kind: int) -> None:
        options = [e for e in pieces if e // L.NUM_COLOURS == kind]
        if scenario == "yellow_scales" and kind == L.SCALES and L.NUM_COLOURS * L.SCALES + L.YELLOW in options:
            options = [L.NUM_COLOURS * L.SCALES + L.YELLOW]
        e = rng.choice(options)
        pieces.remove(e)
        equipment[q].append(e)

    for kind in mine:
        give(me, kind)
    for kind in theirs:
        if n > 1:
            give(rng.choice([q for q in range(n) if q != me]), kind)
    for _ in range(rng.randint(0, 2)):
        give(rng.randrange(n), pieces[0] // L.NUM_COLOURS)
    buildings = {q: [] for q in range(n)}
    for q in range(n):
        for f in workers[q]:
            if rng.random() < (0.4 if scenario == "tools_barrels" else 0.1) and \
                    all(colour[b] != colour[f] for b in buildings[q]):
                buildings[q].append(f)
    if scenario == "refill":  # lone pieces: a purchase can empty a row and a column at once
        rows, cols = rng.sample(range(L.MARKET_W), 3), rng.sample(range(L.MARKET_W), 3)
        cells = {(r, c) for r, c in zip(rows, cols, strict=True)}
        if rng.random() < 0.5:
            cells.add((rows[0], rng.choice([c for c in range(L.MARKET_W) if c not in cols])))
    else:
        density = rng.choice([0.15, 0.4, 0.8])
        cells = {(r, c) for r in range(L.MARKET_W) for c in range(L.MARKET_W) if rng.random() < density}
    market = [", ".join(PIECES[pieces.pop()] if (r, c) in cells else "-" for c in range(L.MARKET_W))
              for r in range(L.MARKET_W)]
    stack = ""
    if n > 2 and (scenario == "refill" or rng.random() < 0.5):
        k = rng.choice([5, 5, 6, L.STACK_SIZE[n]])
        stack = ", ".join(PIECES[pieces.pop()] for _ in range(min(k, L.STACK_SIZE[n], len(pieces))))
    return state_from_ascii(
        num_players=n, villages=" ".join(f"V{t + 1}{'*' if tu else ''}" for t, tu in zip(tiles, turned, strict=True)),
        workers={q: " ".join(names[f] for f in fs) for q, fs in workers.items()},
        buildings={q: " ".join(names[f] for f in fs) for q, fs in buildings.items()},
        goods=goods, equipment={q: ", ".join(PIECES[e] for e in es) for q, es in equipment.items()},
        market=market, stack=stack, current=me, actions_left=rng.choice([1, 2]))


# The 2-player map with the tiles in order (see tests/test_cultivo_rules.py for the picture).
GRAY = {0: "V3.2", 1: "V6.1"}
HAND_POSITIONS = {
    # scales on a supply total that includes the supply half of a share: V5.1 -> V5.2 (red, player_1's
    # worker) -> V5.3 (brown) -> V5.4: with the own red cart on V5.3 the supply gets 2 red (the half and
    # the cart's), the red scales take 1; with the brown cart it gets 1
    "scales_and_a_share": dict(workers={0: "V5.1", 1: "V5.2 V6.1"}, goods={0: "r2 w2 y1"},
                               equipment={0: "red scales, red cart, brown cart"}),
    # two shares of one colour: V1.2 -> V3.3 (blue) -> V6.1 -> V5.4 (blue) -> V5.5, player_1's workers
    # on the way: the supply halves make 2 blue, the blue scales take 1
    "scales_and_two_shares": dict(workers={0: "V1.2", 1: "V3.3 V6.1 V5.4"}, goods={0: "b3 y8"},
                                  equipment={0: "blue scales"}),
    # a market stall replacing the placement wheat (5th worker: 1 wheat)
    "stall_for_placement_wheat": dict(workers={0: "V3.2 V3.1 V3.3 V3.4", 1: "V6.1"}, goods={0: "g1 b1"},
                                      equipment={0: "green stall, blue stall"}),
    "stall_and_scales_for_placement_wheat": dict(workers={0: "V3.2 V3.1 V3.3 V3.4 V5.1 V5.2", 1: "V6.1"},
                                                 goods={0: "g2 y2"},
                                                 equipment={0: "green stall, yellow scales, red cart"}),
    # the piece bought does not act on its own purchase: red scales / a red stall in the market
    "purchase_own_piece": dict(workers=GRAY, goods={0: "r5 g5 o2"},
                               market=["red scales, -, red stall, -, -", "-, orange stall, -, -, -",
                                       "green scales, -, -, -, -", "-, -, -, -, -", "-, -, -, -, blue cart"]),
    # a borrowed cart and a borrowed barge: the owner receives the good
    "borrowing": dict(workers={0: "V3.4", 1: "V6.1 V5.3"}, goods={0: "o2 g2 w2 y2"},
                      equipment={1: "orange cart, green barge, blue barge"}),
    # the 8th and 9th worker's exchange, the 10th's extra action
    "eighth_worker": dict(workers={0: "V3.2 V3.1 V3.3 V3.4 V3.5 V1.2 V1.3", 1: "V6.1"}, goods={0: "y3 r1"}),
    "ninth_worker": dict(workers={0: "V3.2 V3.1 V3.3 V3.4 V3.5 V1.2 V1.3 V1.4", 1: "V6.1"},
                         goods={0: "y4 b1"}, equipment={0: "yellow scales"}),
    "tenth_worker": dict(workers={0: "V3.2 V3.1 V3.3 V3.4 V3.5 V1.2 V1.3 V1.4 V1.5", 1: "V6.1"},
                         goods={0: "y5 r2 o2"}, equipment={0: "red cart, orange stall"}),
    # a tool, and workers on own buildings
    "tool": dict(workers={0: "V3.1 V5.2 V5.5", 1: "V6.1"}, buildings={0: "V3.1"}, equipment={0: "red tool"}),
    # a barrel in the market: an extra action
    "barrel": dict(workers=GRAY, goods={0: "o6 w3 r3"},
                   market=["-, -, -, -, -", "-, yellow barrel, -, red barrel, -", "-, -, -, -, -",
                           "-, -, -, -, -", "-, -, -, -, -"]),
}
HAND_REFILLS = {
    # the last piece of its row and of its column, the stack holds 5: the choice; with a second
    # piece in the row only the column empties; a stack of fewer than 5 refills nothing
    "refill_choice": dict(goods={0: "r3 o3 g3"}, stack="blue barrel, blue barge, blue tool, blue stall, blue scales",
                          market=["red cart, -, -, -, -", "-, green cart, -, -, -", "-, -, blue cart, -, -",
                                  "-, -, -, red tool, -", "-, -, -, -, red stall"]),
    "refill_column_only": dict(goods={0: "r3 o3"}, stack="blue barrel, blue barge, blue tool, blue stall, blue scales",
                               market=["red cart, orange cart, -, -, -", "-, -, -, -, -", "-, -, blue cart, -, -",
                                       "-, -, -, red tool, -", "-, -, -, -, red stall"]),
    "refill_short_stack": dict(goods={0: "r3"}, stack="blue barrel, blue barge, blue tool, blue stall",
                               market=["red cart, -, -, -, -", "-, green cart, -, -, -", "-, -, blue cart, -, -",
                                       "-, -, -, red tool, -", "-, -, -, -, red stall"]),
}


@functools.cache
def built_positions():
    res = Results()
    for name, kw in HAND_POSITIONS.items():
        compare_position(state_from_ascii(num_players=2, **kw), name, BUILT_NODE_CAP, res)
    for name, kw in HAND_REFILLS.items():
        st = state_from_ascii(num_players=3, workers={0: "V3.2", 1: "V6.1", 2: "V5.5"}, **kw)
        compare_position(st, name, BUILT_NODE_CAP, res)
    rng = random.Random(2025)
    for scenario in SCENARIOS:
        for i in range(BUILT_PER_SCENARIO):
            compare_position(built_position(rng, scenario), f"{scenario} {i}", BUILT_NODE_CAP, res)
    return res


# =====================================================================================================
# Tests: action outcomes
# =====================================================================================================
def assert_sound(res: Results) -> None:
    assert not res.mismatches, f"{len(res.mismatches)} disagreements; the first:\n" + res.mismatches[0]
    assert not res.dead_ends, res.dead_ends[:5]
    assert not res.replay_failures, res.replay_failures[:5]


@pytest.mark.slow
@pytest.mark.parametrize("n", (2, 3, 4))
def test_random_games_match_the_reference(n):
    """The random games of one player count (the costly part: playing them and walking every
    sampled action's tree) feed three checks, in one test so that they are played once (pytest-xdist
    does not keep tests that share a cache in one worker reliably): the action outcomes match the
    reference, every action offers each outcome once, and the finished games score as the
    reference scores them."""
    check_action_outcomes_in_random_games(n)
    check_one_choice_per_outcome_in_random_games(n)
    check_final_scores_and_winners_in_finished_games(n)


def check_action_outcomes_in_random_games(n):
    res, _ = random_games(n)
    assert_sound(res)
    assert res.total() >= MIN_POSITIONS, res.compared
    for kind, least in MIN_PER_KIND.items():
        assert res.compared[kind] >= least, (L.ACTION_KINDS[kind], res.compared)
    assert sum(res.skipped.values()) <= MAX_SKIPPED_SHARE * (res.total() + sum(res.skipped.values())), res.skipped


def test_built_positions_match_the_reference():
    """The text-builder positions (built once) feed two checks, in one test: the action outcomes
    match the reference, and every action offers each outcome once."""
    check_action_outcomes_in_built_positions()
    assert_one_choice_per_outcome(built_positions())


def check_action_outcomes_in_built_positions():
    res = built_positions()
    assert_sound(res)
    assert res.total() >= 3 * len(SCENARIOS) * BUILT_PER_SCENARIO, res.compared
    assert sum(res.skipped.values()) <= MAX_SKIPPED_SHARE * res.total(), res.skipped
    # the positions reach what they are built for (leaves using each feature)
    for feature in ("own_cart", "borrowed_cart", "own_barge", "borrowed_barge", "share", "stall",
                    "stall_for_wheat_with_placement_wheat", "payer_with_scales", "exchange", "refill_choice",
                    "tool", "barrel", "tenth_worker", "build", "chosen_total", "chosen_receipt", "receipt"):
        assert res.features[feature] >= 3, (feature, res.features)


def assert_one_choice_per_outcome(res: Results) -> None:
    assert not res.duplicates, [(L.ACTION_KINDS[k], o, paths) for k, _, paths, o in res.duplicates[:3]]


def check_one_choice_per_outcome_in_random_games(n):
    """Every action offers each outcome once: travel payments (decided as their outcome), purchases
    (split, stalls, refill), builds, production (docs/rules/cultivo.md, "Decisions, and one choice per
    outcome")."""
    assert_one_choice_per_outcome(random_games(n)[0])


def outcome_sets(state: np.ndarray, kind: int) -> tuple[set, set]:
    """(the engine's outcomes, the reference's) of one action kind."""
    leaves, _, _ = walk_action(state, kind, BUILT_NODE_CAP)
    engine = {engine_outcome(kind, state, path, leaf) for path, leaf in leaves}
    return engine, REFERENCE[kind](reference_position(state), int(state[H_CURRENT]))


def test_the_interpretation_points_reach_both_outcome_sets():
    """The readings the rules page fixes, each as an outcome both sides offer (or neither)."""
    # scales count the supply half of a share: 1 red to player_1, 2 red to the supply (the half and
    # the own red cart), the red scales take 1: 2 red paid of 2
    st = state_from_ascii(num_players=2, **HAND_POSITIONS["scales_and_a_share"])
    v51, v54 = notation.parse_field(st, "V5.1"), notation.parse_field(st, "V5.4")
    want = (v51, v54, ((0, 0, 0, 2, 1, 1), (1, 0, 0, 0, 0, 0)))
    for side in outcome_sets(st, L.ACT_MOVE):
        assert want in side
    # two shares of blue: 2 blue to the supply, the blue scales take 1: 3 blue pay for both
    st = state_from_ascii(num_players=2, **HAND_POSITIONS["scales_and_two_shares"])
    want = (notation.parse_field(st, "V1.2"), notation.parse_field(st, "V5.5"),
            ((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 2, 1)))
    for side in outcome_sets(st, L.ACT_MOVE):
        assert want in side
    # a market stall replaces the placement wheat (the 5th worker's, no wheat held)
    st = state_from_ascii(num_players=2, **HAND_POSITIONS["stall_for_placement_wheat"])
    v35 = notation.parse_field(st, "V3.5")
    for side in outcome_sets(st, L.ACT_PLACE):
        assert side == {(v35, ((0, 0, 0, 1, 1, 0), (0, 0, 0, 0, 0, 0)), False),
                        (v35, ((0, 0, 1, 1, 0, 0), (0, 0, 0, 0, 0, 0)), False)}
    # the piece bought does not act on its own purchase: 5 red do not buy the red scales (6 red)
    st = state_from_ascii(num_players=2, **HAND_POSITIONS["purchase_own_piece"])
    for side in outcome_sets(st, L.ACT_ACQUIRE):
        assert {o[:2] for o in side} == {(0, 2), (1, 1), (2, 0)}
    # the refill choice: only when a purchase empties a row and a column at once and the stack holds 5
    for name, slots in (("refill_choice", {(0, 0, "row"), (0, 0, "col"), (1, 1, "row"), (1, 1, "col"),
                                           (2, 2, "row"), (2, 2, "col")}),
                        ("refill_column_only", {(0, 0, None), (0, 1, None)}),
                        ("refill_short_stack", {(0, 0, None)})):
        st = state_from_ascii(num_players=3, workers={0: "V3.2", 1: "V6.1", 2: "V5.5"}, **HAND_REFILLS[name])
        for side in outcome_sets(st, L.ACT_ACQUIRE):
            assert {o[:3] for o in side} == slots, name


# =====================================================================================================
# Tests: final scoring
# =====================================================================================================
def engine_breakdown(state: np.ndarray, p: int) -> dict:
    score = GAME.to_dict(state)["players"][p]["score"]
    out = {"goods": score["goods_triples"], "vp_tiles": score["vp_tiles"], "equipment": score["equipment"],
           "total": score["total"], "goods_left": score["tiebreak_goods"]}
    for name in L.BUILDINGS:
        out[name] = score["buildings"].get(name, 0)
    return out


def check_scoring(state: np.ndarray, rewards: dict | None = None) -> None:
    n = int(state[H_NPLAYERS])
    pos = reference_position(state)
    expected = [ref.score_breakdown(pos, q) for q in range(n)]
    assert [engine_breakdown(state, q) for q in range(n)] == expected, describe(state)
    totals = np.zeros(n)
    rules.scores(state, totals)
    assert totals.tolist() == ref.final_scores(pos)
    keys = np.zeros(n)
    rules.rank_keys(state, keys)
    assert [q for q in range(n) if keys[q] == keys.max()] == ref.winners(pos), describe(state)
    for a in range(n):  # the whole ranking: most VP, then most goods left
        for b in range(n):
            ka = (expected[a]["total"], expected[a]["goods_left"])
            kb = (expected[b]["total"], expected[b]["goods_left"])
            assert (keys[a] > keys[b]) == (ka > kb) and (keys[a] == keys[b]) == (ka == kb)
    if rewards is not None:
        best = max(rewards.values())
        assert [q for q in range(n) if rewards[f"player_{q}"] == best] == ref.winners(pos)


def check_final_scores_and_winners_in_finished_games(n):
    _, finished = random_games(n)
    assert len(finished) == GAMES[n]
    for state, rewards in finished:
        assert state[H_TERMINAL]
        check_scoring(state, rewards)


SCORING_POSITIONS = [
    # every building type, workers on and beside the manor, on yellow fields, in many villages
    dict(workers={0: "V1.2 V1.3 V3.1 V5.5 V1.1 V3.2", 1: "V1.4 V6.1"}, goods={0: "r3 g3 b3 y1", 1: "o4 w1"},
         buildings={0: "V1.2 V3.1 V3.3 V3.5 V1.1", 1: "V1.4"},
         equipment={0: "red cart, red barge, blue stall, yellow tool, green barrel, brown scales, blue cart",
                    1: "orange barrel, orange tool"}),
    # a tie on VP broken by the goods left after the triples
    dict(workers=GRAY, goods={0: "r3 g3 b3 y1", 1: "r3 g3 b3"}),
    dict(workers=GRAY, goods={0: "r1 o1 g1", 1: "r2 o1 g1"}),
    # a tie on VP and goods left: shared
    dict(workers=GRAY, goods={0: "r3 g3 b3", 1: "o3 w3 y3"}),
    dict(workers=GRAY, goods={0: "r2", 1: "g2"}),
    # caps: monastery 10, workshop 12, tower 12
    dict(workers={0: "V3.2 V3.1 V3.3 V3.4 V3.5 V1.2 V1.3 V1.4 V1.5 V1.1", 1: "V6.1"},
         buildings={0: "V3.1 V3.2 V3.3 V3.4 V3.5 V1.2"},
         equipment={0: "red cart, red stall, red barge, red tool, red barrel, red scales"}),
]


def test_final_scores_and_winners_match_the_reference_in_built_positions():
    for kw in SCORING_POSITIONS:
        check_scoring(state_from_ascii(num_players=2, **kw))
    for kw in list(HAND_POSITIONS.values()):
        check_scoring(state_from_ascii(num_players=2, **kw))
    rng = random.Random(7)
    for scenario in SCENARIOS:
        for _ in range(4):
            check_scoring(built_position(rng, scenario))
