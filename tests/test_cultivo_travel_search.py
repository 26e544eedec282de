"""Cultivo's travel search against an exhaustive one.

:func:`cultivo_env.rules.travel.search_labels` keeps only labels no other label at their field
dominates, and does not expand a label whose goods cannot pay for the way to any target still open
(``layout.TRAVEL_FLOOR``: the cheapest fields and canals of any travel on the map). The exhaustive
search below follows every payable walk, with the same payability test (``summary_feasible``),
dropping only a walk that another to the same field is no dearer than (dominance, written here
from the rules: :func:`cost_vector`) and never pruning by distance: the move and place targets,
the origins and the steps the engine offers in random games must be exactly the ones it finds.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cultivo_env import layout as L
from cultivo_env.game import GAME
from cultivo_env.rules import travel as T
from cultivo_env.rules.accessors import place_of
from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_PHASE, H_TERMINAL

#: positions whose exhaustive search keeps more walks are skipped (counted)
MAX_PAIRS = 20_000
#: the cost vectors (:func:`cost_vector`) of a field where no walk is kept yet
NO_ROWS = np.empty((0, 2 * L.NUM_COLOURS + 1), dtype=np.int64)


def step_costs(state, p: int, u: int, v: int, s: int) -> tuple[int, int]:
    """Obligations ``s`` of a travel on field u after stepping to v (a canal if v is in another
    village), then after passing v; -1 where a count would overflow."""
    s1 = s
    if place_of(u) != place_of(v):
        s1 = int(T.summary_canal(np.int64(s)))
        if s1 < 0:
            return -1, -1
    return s1, int(T.summary_pass(state, np.int64(s1), v, p))


def payability(state, p: int, w: int):
    """``payable(s)``: can seat p pay obligations ``s`` and ``w`` placement wheat
    (``summary_feasible``, each answer kept: the searches of one position share them)."""
    ws = T.new_ws()
    T.load_context(state, p, ws)
    ok: dict[int, bool] = {}

    def payable(s: int) -> bool:
        if s not in ok:
            ok[s] = bool(T.summary_feasible(np.int64(s), w, ws, p))
        return ok[s]

    return payable


def exhaustive(state, p: int, payable, sources, s0: int, blocked: int, targets) -> set[int] | None:
    """The ``targets`` (free fields) some walk from ``sources`` with obligations ``s0`` so far
    reaches and ``payable`` (:func:`payability`) accepts, never entering a field of ``blocked``;
    None past ``MAX_PAIRS``."""
    n = int(state[H_NPLAYERS])
    # per field, the walks kept there: their obligations and (one row each) their cost vectors
    kept: dict[int, tuple[list[int], np.ndarray]] = {}
    alive: dict[int, set[int]] = {}  # per field, the obligations of kept[field]
    todo = []
    for u in sources:
        kept[int(u)] = ([int(s0)], cost_vector(int(s0))[None, :])
        alive[int(u)] = {int(s0)}
        todo.append((int(u), int(s0)))
    pairs = len(todo)
    found = set()
    while todo:
        u, s = todo.pop()
        if s not in alive[u]:
            continue  # a walk no dearer reached u since
        for d in range(4):
            v = int(L.NEIGH[n, u, d])
            if v < 0 or (blocked >> v) & 1:
                continue
            s1, s2 = step_costs(state, p, u, v, s)
            if s1 < 0:
                continue
            if v in targets and payable(s1):
                found.add(v)
            if s2 < 0 or not payable(s2):
                continue
            c2 = cost_vector(s2)
            walks, rows = kept.get(v, ([], NO_ROWS))
            if (rows <= c2).all(axis=1).any():
                continue  # a kept walk is no dearer
            stay = ~(c2 <= rows).all(axis=1)  # drop the kept walks the new one is no dearer than
            walks = [w for w, st in zip(walks, stay, strict=True) if st] + [s2]
            kept[v] = (walks, np.vstack([rows[stay], c2]))
            alive[v] = set(walks)
            todo.append((v, s2))
            pairs += 1
            if pairs > MAX_PAIRS:
                return None
    return found


@functools.lru_cache(maxsize=1 << 16)
def cost_vector(s: int) -> np.ndarray:
    """Per colour the fields with another player's worker, per colour the fields in all, and the
    canals of obligations ``s``. Obligations ``a`` never cost more than ``b`` when ``cost_vector(a)
    <= cost_vector(b)`` in every entry (the rules: dropping an obligation never makes a payment
    dearer, and a field with another player's worker costs what one without costs, less to the
    supply); the exhaustive search compares a walk with all those kept at a field at once. The
    counts are unpacked from the summary as ``travel.summary_pass`` / ``summary_canal`` pack them."""
    plain = [(s >> (4 * c)) & 15 for c in range(L.NUM_COLOURS)]
    foreign = [(s >> (T.S_FOREIGN + 4 * c)) & 15 for c in range(L.NUM_COLOURS)]
    canals = (s >> T.S_CANAL) & 63
    v = np.array([*foreign, *(p + f for p, f in zip(plain, foreign, strict=True)), canals], dtype=np.int64)
    v.flags.writeable = False  # shared by the cache
    return v


def expected_fields(state) -> set[int] | None:
    """The fields the exhaustive search offers at a target, origin or step decision."""
    p = int(state[H_CURRENT])
    n = int(state[H_NPLAYERS])
    ph = int(state[H_PHASE])
    free = {f for f in range(int(L.NUM_FIELDS[n])) if state[L.WORKER + f] == 0}
    own = [f for f in range(int(L.NUM_FIELDS[n])) if state[L.WORKER + f] == p + 1]
    if ph == L.PH_MOVE_TARGET:
        f = int(state[L.MOVER])
        return exhaustive(state, p, payability(state, p, 0), [f], 0, 1 << f, free)
    payable = payability(state, p, int(T.travel_wheat(state, p)))
    if ph == L.PH_PLACE_TARGET:
        return exhaustive(state, p, payable, own, 0, 0, free)
    target = int(state[L.TARGET])
    if ph == L.PH_ORIGIN:
        out = set()
        for o in own:
            r = exhaustive(state, p, payable, [o], 0, 1 << o, {target})
            if r is None:
                return None
            if r:
                out.add(o)
        return out
    # a step: to v, then on to the target avoiding the path so far
    cur = int(state[L.PATH + state[L.PATH_N] - 1])
    s = int(T.path_summary(state, p))
    out = set()
    for d in range(4):
        v = int(L.NEIGH[n, cur, d])
        if v < 0 or (int(state[L.VISITED]) >> v) & 1:
            continue
        s1, s2 = step_costs(state, p, cur, v, s)
        if s1 < 0:
            continue
        if v == target:
            if payable(s1):
                out.add(v)
            continue
        if s2 < 0 or not payable(s2):
            continue
        r = exhaustive(state, p, payable, [v], s2, int(state[L.VISITED]) | (1 << v), {target})
        if r is None:
            return None
        if r:
            out.add(v)
    return out


TRAVEL_PHASES = (L.PH_PLACE_TARGET, L.PH_MOVE_TARGET, L.PH_ORIGIN, L.PH_STEP)


def compare_random_games(n: int, games: int, seed: int, every: int = 1) -> tuple[dict[int, int], int]:
    """Play ``games`` random n-player games; at every ``every``-th travel decision assert the
    engine's fields are the exhaustive search's. Returns the decisions compared per phase and those
    skipped."""
    K = GAME.kernels
    params = GAME.make_params(n)
    state = np.zeros(K.STATE_LEN, dtype=np.int64)
    mask = np.zeros(GAME.num_actions(params), dtype=np.int8)
    rng = np.random.default_rng(seed)
    checked = {ph: 0 for ph in TRAVEL_PHASES}
    skipped = 0
    seen = 0
    for g in range(games):
        K.init(state, params, seed * 1000 + g)
        while not state[H_TERMINAL]:
            count = K.legal_mask(state, mask)
            ph = int(state[H_PHASE])
            if ph in TRAVEL_PHASES and seen % every == 0:
                want = expected_fields(state)
                if want is None:
                    skipped += 1
                else:
                    got = {f for f in range(L.MAX_FIELDS) if mask[L.A_FIELD + f]}
                    assert got == want, (n, g, L.PHASE_NAMES[ph])
                    checked[ph] += 1
            seen += ph in TRAVEL_PHASES
            K.apply(state, int(np.flatnonzero(mask)[int(rng.integers(count))]))
    return checked, skipped


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_travel_masks_offer_exactly_the_fields_an_exhaustive_search_reaches(n):
    checked, skipped = compare_random_games(n, games=1, seed=n, every=n - 1)
    assert min(checked.values()) >= 3, checked  # every kind of travel decision was compared
    assert skipped <= sum(checked.values()) // 10, (skipped, checked)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_travel_masks_match_the_exhaustive_search_over_more_games(n):
    checked, skipped = compare_random_games(n, games=4, seed=10 + n)
    assert min(checked.values()) >= 20, checked
    assert skipped <= sum(checked.values()) // 10, (skipped, checked)


def floor_by_relaxation(n: int, field_cost: int, canal_cost: int) -> np.ndarray:
    """TRAVEL_FLOOR[field_cost - 1, canal_cost - 1, n] by Bellman-Ford relaxation (not Dijkstra)."""
    nf = int(L.NUM_FIELDS[n])
    big = 10**6
    dist = np.full((nf, nf), big, dtype=np.int64)
    np.fill_diagonal(dist, 0)
    for _ in range(nf):
        for u in range(nf):
            for v in L.NEIGH[n, u]:
                if v >= 0:
                    step = field_cost + (canal_cost if place_of(u) != place_of(int(v)) else 0)
                    dist[:, v] = np.minimum(dist[:, v], dist[:, u] + step)
    out = np.maximum(dist - field_cost, 0)
    np.fill_diagonal(out, 0)
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_travel_floor_is_the_cheapest_travel_of_the_map(n):
    nf = int(L.NUM_FIELDS[n])
    for i in range(2):
        for j in range(2):
            table = L.TRAVEL_FLOOR[i, j, n, :nf, :nf]
            assert np.array_equal(table, floor_by_relaxation(n, i + 1, j + 1)), (n, i, j)
            assert np.array_equal(table, table.T)
    # two fields side by side: nothing passed, and a canal between villages
    for u in range(nf):
        for v in L.NEIGH[n, u]:
            if v >= 0:
                across = place_of(u) != place_of(int(v))
                assert L.TRAVEL_FLOOR[0, 1, n, u, v] == (2 if across else 0)
                assert L.TRAVEL_FLOOR[1, 0, n, u, v] == (1 if across else 0)


def test_a_summary_floor_counts_every_field_and_canal():
    # 2 red fields and 1 brown without another player's worker, 3 red with one, 2 canals
    s = np.int64((2 << 0) | (1 << (4 * 3)) | (3 << T.S_FOREIGN) | (2 << T.S_CANAL))
    assert T.summary_floor(s, 1, 1) == 2 + 1 + 3 + 2
    assert T.summary_floor(s, 2, 1) == 2 * 6 + 2
    assert T.summary_floor(s, 1, 2) == 6 + 2 * 2



def _search_alone(state, p: int, w: int, sources: np.ndarray, blocked: int, stop_after: int) -> tuple[int, np.ndarray]:
    """``travel_search`` without its tree: ``search_labels`` (retried in a bigger workspace when full)."""
    found = np.zeros(L.MAX_FIELDS, dtype=np.int8)
    ws = T.new_ws()
    r = T.search_labels(state, p, w, sources, len(sources), np.int64(0), np.int64(blocked), -1, found, stop_after, ws)
    size = ws.shape[0]
    while r == T.SEARCH_FULL:
        size *= 4
        ws = T.grow(ws, size)
        r = T.search_labels(state, p, w, sources, len(sources), np.int64(0), np.int64(blocked), -1, found,
                            stop_after, ws)
    return r, found


@pytest.mark.parametrize("n", [2, 4])
def test_the_tree_finds_only_targets_the_label_search_finds_and_the_search_the_rest(n):
    """``travel_search`` first marks the targets the cheapest walks of one tree reach and pay for
    (``tree_targets``), then searches labels only for the rest: at every move and place decision
    of random games, for every worker of the seat and every ``stop_after``, the tree's fields are
    some of the label search's, and the two together are exactly the label search's."""
    K = GAME.kernels
    params = GAME.make_params(n)
    state = np.zeros(K.STATE_LEN, dtype=np.int64)
    mask = np.zeros(GAME.num_actions(params), dtype=np.int8)
    rng = np.random.default_rng(100 + n)
    compared = by_tree = rest = 0
    for g in range(2):
        K.init(state, params, 200 + g)
        while not state[H_TERMINAL]:
            count = K.legal_mask(state, mask)
            ph = int(state[H_PHASE])
            if ph in (L.PH_ACTION, L.PH_MOVE_WORKER, L.PH_MOVE_TARGET, L.PH_PLACE_TARGET):
                p = int(state[H_CURRENT])
                own = [f for f in range(int(L.NUM_FIELDS[n])) if state[L.WORKER + f] == p + 1]
                w = int(L.PLACE_WHEAT[min(int(state[L.WORKERS_ON_MAP + p]), L.WORKERS - 1)])
                cases = [(np.array([f], dtype=np.int64), 1 << f, 0) for f in own]
                if state[L.WORKERS_ON_MAP + p] < L.WORKERS:
                    cases.append((np.array(own, dtype=np.int64), 0, w))
                for sources, blocked, wheat in cases:
                    n_all, want = _search_alone(state, p, wheat, sources, blocked, 0)
                    tree = np.zeros(L.MAX_FIELDS, dtype=np.int8)
                    ws = T.new_ws()
                    k = T.tree_targets(state, p, wheat, sources, len(sources), np.int64(0), np.int64(blocked), tree,
                                       0, ws)
                    assert k == tree.sum() and not (tree & ~want).any(), (n, g, sources)
                    by_tree += k
                    rest += n_all - k
                    for stop_after in (0, 1, 2):
                        got = np.zeros(L.MAX_FIELDS, dtype=np.int8)
                        r = T.travel_search(state, p, wheat, sources, len(sources), np.int64(0), np.int64(blocked),
                                            -1, got, stop_after, T.new_ws())
                        assert r == got.sum() and not (got & ~want).any(), (n, g, sources, stop_after)
                        if stop_after == 0:
                            assert np.array_equal(got, want), (n, g, sources)
                        else:
                            assert r >= min(stop_after, n_all), (n, g, sources, stop_after)
                    compared += 1
            K.apply(state, int(np.flatnonzero(mask)[int(rng.integers(count))]))
    assert compared >= 100 and by_tree > 0 and rest > 0, (compared, by_tree, rest)


def _hops_to(n: int, target: int, blocked: int) -> np.ndarray:
    """Hops from each field to ``target`` over the fields not in ``blocked`` (MAX_FIELDS: none)."""
    dist = np.full(L.MAX_FIELDS, L.MAX_FIELDS, dtype=np.int64)
    dist[target] = 0
    queue = [target]
    for u in queue:
        for v in L.NEIGH[n, u]:
            v = int(v)
            if v >= 0 and dist[v] == L.MAX_FIELDS and not (blocked >> v) & 1:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


@pytest.mark.parametrize("n", [2, 4])
def test_a_descent_straight_to_the_target_is_payable_only_where_the_exhaustive_search_finds_a_walk(n):
    """``search_labels`` with a target first tries one walk down the hops (``descent_ok``): at the
    step and origin decisions of random games, whenever it says yes the exhaustive search reaches
    the target too (the first hundred are checked; and it says yes often: the quick test is worth
    its time)."""
    from cultivo_env.rules.payment import WS_LAB

    K = GAME.kernels
    params = GAME.make_params(n)
    state = np.zeros(K.STATE_LEN, dtype=np.int64)
    mask = np.zeros(GAME.num_actions(params), dtype=np.int8)
    rng = np.random.default_rng(300 + n)
    yes = tried = 0
    for g in range(1):
        K.init(state, params, 400 + g)
        while not state[H_TERMINAL]:
            count = K.legal_mask(state, mask)
            ph = int(state[H_PHASE])
            if ph in (L.PH_STEP, L.PH_ORIGIN):
                p = int(state[H_CURRENT])
                target = int(state[L.TARGET])
                w = int(T.travel_wheat(state, p))
                payable = payability(state, p, w)
                if ph == L.PH_ORIGIN:
                    own = [f for f in range(int(L.NUM_FIELDS[n])) if state[L.WORKER + f] == p + 1]
                    cases = [(o, 0, 1 << o) for o in own]
                else:
                    cur = int(state[L.PATH + state[L.PATH_N] - 1])
                    s = int(T.path_summary(state, p))
                    cases = []
                    for v in L.NEIGH[n, cur]:
                        v = int(v)
                        if v < 0 or v == target or (int(state[L.VISITED]) >> v) & 1:
                            continue
                        s1, s2 = step_costs(state, p, cur, v, s)
                        if s2 >= 0:
                            cases.append((v, s2, int(state[L.VISITED]) | (1 << v)))
                for u, s0, blocked in cases:
                    ws = T.new_ws()
                    T.load_context(state, p, ws)
                    ws[WS_LAB:WS_LAB + L.MAX_FIELDS] = _hops_to(n, target, blocked)
                    ok = T.descent_ok(state, p, w, u, np.int64(s0), np.int64(blocked), target, ws, WS_LAB)
                    tried += 1
                    if ok:
                        yes += 1
                        assert payable(s0), (n, g, u)
                    if ok and yes <= 100:  # the exhaustive search is slow: the first hundred
                        r = exhaustive(state, p, payable, [u], s0, blocked, {target})
                        assert r is None or r == {target}, (n, g, u)
            K.apply(state, int(np.flatnonzero(mask)[int(rng.integers(count))]))
    assert tried >= 50 and yes >= tried // 4, (tried, yes)
