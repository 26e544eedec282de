"""Search kernels of the baseline agents: a greedy turn lookahead and Monte Carlo tree search.

:func:`build_greedy` and :func:`build_mcts` return ``batch_greedy`` and ``batch_mcts`` for the rules
module ``K``; like :mod:`gamecore.kernel.batch_kernels`, the kernels close over the *module* only,
so numba caches them across processes (their helpers that call the game's kernels, such as
:func:`rollout_value`, take the module as an argument and are inlined into them). Both take a batch
of states (one search per row; :func:`greedy_actions` and :func:`mcts_actions` run blocks of rows on
threads, the kernels releasing the GIL, so no parallel kernel is compiled) and never touch the
states they are given: every search works on copies, and each copy is first passed through
``K.resample(copy, seat, seed)``, so what the searching seat cannot see (hands, the order of
face-down stacks, the generator) is redealt before any lookahead. By the kernel contract the redeal
depends only on what the seat can see and on the seed, so two states the seat cannot tell apart give
the same search, decision for decision.

Position value (both searches, from seat ``me``'s side)
-------------------------------------------------------
``scores`` on the position (on a running game, the scores as if it ended now) gives the *margin*
``score[me] - max(score[other seats])``; a finished game adds ``WIN_WEIGHT`` times ``me``'s rank
reward (+1 first .. -1 last), so winning outweighs any margin.

Greedy: one turn of lookahead
-----------------------------
Each legal decision is scored by the best value ``me`` can reach before another seat decides:
the search follows ``me``'s own further decisions while ``H_CURRENT`` is still ``me``, up to
``depth`` decisions in all; a position where another seat decides (the turn has passed, or a rule
asks another seat inside the turn), the game has ended, or the depth is used up is valued as it
stands. So a single-decision turn is plain one-ply lookahead (plus the turns that follow at once
when every other seat is out), and in a turn of several decisions (say, bonus moves, a declare,
swaps and a placement) a declare is worth the best placement it allows. After ``node_cap``
applied decisions every further position is valued as it stands (earlier root decisions are then
searched deeper than later ones). Ties among the best root decisions are broken uniformly at
random from ``seed``. With ``samples`` > 1 the values are averaged over that many resamples (what
a swap reveals, say, is then an expectation rather than one guess).

MCTS
----
UCT over decisions with one random rollout per simulation and rank rewards (+1 .. -1, a vector
with one entry per seat, each node's decider maximising its own entry). Every simulation starts
from a fresh ``resample`` of the root for ``me`` (seed ``episode_seed(seed, simulation)``): a
determinised, open-loop search whose tree is keyed by decisions only, so chance and hidden cards
are averaged over the simulations (single-observer information-set MCTS). A node of N visits
may have up to ``ceil(widen * sqrt(N + 1))`` children (progressive widening; ``widen=0``: all
legal decisions); while it has room, a legal decision without a child is expanded (one per
simulation): at the root in the order of the decisions' one-step value (the greedy position
value right after the decision, ties in random order), elsewhere uniformly at random. Otherwise
the child maximising ``mean + c * sqrt(ln(N_parent) / N_child)`` among the decisions legal in
this simulation is followed. The widening and the ordered root let a budget far smaller than the
branching factor (hundreds of placements, in a game that offers them) still compare the promising decisions
with many rollouts each. The decision played is the root child visited most (ties: the higher
mean for the root's decider, then the lower index); the visit counts come back per action.

Rollout horizon. A game whose random rollouts are long and costly (say, a whole game of
payment searches per simulation) may stop each rollout after ``horizon`` random decisions (the
tree's own decisions are not counted): the position reached is valued per seat by
``tanh(margin / scale)``, the margin being that seat's score minus the best other score as the
scores stand, so the values stay inside the rank rewards' [-1, 1]; ``scale`` 0 values it by the
rank rewards of the scores as they stand instead. A rollout that ends the game within the horizon
gets the rank rewards as always. ``horizon`` 0 (the default of a game whose rollouts are cheap:
see ``GameSpec.mcts_horizon`` / ``mcts_value_scale``) plays every rollout to the end.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any

import numba
import numpy as np

from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_TERMINAL
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import GameSpec
from gamecore.kernel.rewards import rank_rewards
from gamecore.kernel.rng import episode_seed, rng_below, rng_pick_legal, rng_seed

#: weight of the rank reward of a finished game in a greedy position value
WIN_WEIGHT = 1000.0
#: default UCT exploration constant (rewards lie in [-1, 1])
DEFAULT_C = 1.0
#: default progressive widening factor of MCTS (0: every legal decision is tried before any repeats)
DEFAULT_WIDEN = 2.0
#: default cap on the decisions a greedy search applies
DEFAULT_NODE_CAP = 20_000
#: default depth (decisions) of the greedy turn lookahead
DEFAULT_DEPTH = 3
#: largest UCT constant / widening factor accepted (larger ones overflow the node scores)
MAX_REAL = 1e6
#: most simulations one decision may take (MCTS's ``budget``, the PUCT searches' ``sims``): a
#: million is far past any table (``mcts:200`` .. ``mcts:10000``) and still minutes, not days, a
#: decision; beyond it a typo (``mcts:100000000``) would run for hours before anything is shown
MAX_SIMS = 1_000_000
#: most resamples a greedy search averages (``samples``; the default is 4 where the game hides
#: something): every one repeats the whole lookahead
MAX_SAMPLES = 1_000
#: most decisions a greedy search applies in all, ``samples`` times ``node_cap`` (the default 4 x
#: 20,000): about a minute of lookahead per decision at most, not days
MAX_GREEDY_NODES = 100_000_000

_GREEDY: dict[str, Any] = {}
_MCTS: dict[str, Any] = {}


@jit
def margin(scores: np.ndarray, n: int, me: int) -> float:
    """``scores[me]`` minus the best score among the other seats."""
    best = -math.inf
    for q in range(n):
        if q != me and scores[q] > best:
            best = scores[q]
    return scores[me] - best


@jit
def margin_values(scores: np.ndarray, n: int, scale: float, out: np.ndarray) -> None:
    """``out[q] = tanh(margin(scores, n, q) / scale)``: the value of a rollout cut before the end."""
    for q in range(n):
        out[q] = math.tanh(margin(scores, n, q) / scale)


@jit
def pick_best(values: np.ndarray, mask: np.ndarray, rng: np.ndarray) -> int:
    """A uniformly random legal index among those with the highest value (-1 if none legal). A NaN
    value never compares, so it counts as the lowest; where no legal value compares at all (every
    one NaN or -inf: a learned leaf value gone bad) the index is uniformly random among the legal
    ones, so a legal decision comes back whatever the values are."""
    best = -math.inf
    count = 0
    for a in range(values.shape[0]):
        if mask[a] == 0:
            continue
        if values[a] > best + 1e-9:
            best = values[a]
            count = 1
        elif values[a] >= best or values[a] > best - 1e-9:  # >=: past ~1e7, 1e-9 is below a float's step
            count += 1
    if count == 0:  # no legal value compares (NaN, or -inf everywhere): any legal index, uniformly
        for a in range(values.shape[0]):
            if mask[a] != 0:
                count += 1
        if count == 0:
            return -1
        k = rng_below(rng, 0, count)
        for a in range(values.shape[0]):
            if mask[a] != 0:
                if k == 0:
                    return a
                k -= 1
        return -1
    k = rng_below(rng, 0, count)
    for a in range(values.shape[0]):
        if mask[a] != 0 and (values[a] >= best or values[a] > best - 1e-9):
            if k == 0:
                return a
            k -= 1
    return -1


@jit
def mlp_value(x: np.ndarray, w1t: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
              hidden: np.ndarray) -> float:
    """``b2[0] + w2 . relu(b1 + x @ w1t)`` for the flat int8 observation ``x`` (``w1t``: (D, H),
    scaled for raw int8 inputs; ``hidden``: (H,) scratch); the first layer skips the zero
    entries, most of an observation. ``H`` 0 is the linear model ``b2[0] + w2 . x``."""
    if b1.shape[0] == 0:
        v = b2[0]
        for j in range(x.shape[0]):
            if x[j] != 0:
                v += w2[j] * x[j]
        return v
    hidden[:] = b1
    for j in range(x.shape[0]):
        xj = x[j]
        if xj != 0:
            row = w1t[j]
            for k in range(hidden.shape[0]):
                hidden[k] += row[k] * xj
    v = b2[0]
    for k in range(hidden.shape[0]):
        if hidden[k] > 0.0:
            v += w2[k] * hidden[k]
    return v


@ijit
def rollout_value(K, state: np.ndarray, mask: np.ndarray, count: int, rng: np.ndarray, row: int, horizon: int,
                  scale: float, n: int, sc: np.ndarray, keys: np.ndarray, out: np.ndarray) -> None:
    """Play ``state`` on by uniformly random legal decisions (``mask``: its legal mask, ``count``
    legal; the generator ``rng[row]``), to the end or for ``horizon`` decisions (0: to the end),
    and write the value of the position reached per seat into ``out``: the rank rewards, or on a
    game cut short with ``scale`` > 0, ``tanh(margin / scale)`` (``margin_values``). The
    rollout of MCTS and of PUCT's mixed leaf value.

    ``K`` is the rules module the calling kernel closes over (numba passes a module as a compile-time
    constant). Inlined (``ijit``): it compiles and is cached as part of that kernel, under that
    kernel's stamp; a kernel of its own would be cached with a signature naming the module, under
    gamecore's stamp alone, so a game added at run time could load it stale."""
    steps = 0
    while state[H_TERMINAL] == 0 and (horizon == 0 or steps < horizon):
        count = K.apply_legal(state, rng_pick_legal(mask, count, rng, row), mask)
        steps += 1
    if state[H_TERMINAL] == 0 and scale > 0.0:
        K.scores(state, sc)
        margin_values(sc, n, scale, out)
    else:
        K.rank_keys(state, keys)
        rank_rewards(keys, n, out)


@ijit
def _root_order(K, root: np.ndarray, sim: np.ndarray, mask: np.ndarray, n: int, sc: np.ndarray,
                keys: np.ndarray, reward: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """The root's legal decisions, best first by their one-step value for the root's decider (the
    position value right after the decision; ties in random order). ``sim``: scratch."""
    count = K.legal_mask(root, mask)
    prior = np.full(mask.shape[0], -math.inf)
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            sim[:] = root
            K.apply(sim, a)
            K.scores(sim, sc)
            prior[a] = margin(sc, n, root[H_CURRENT])
            if sim[H_TERMINAL] != 0:
                K.rank_keys(sim, keys)
                rank_rewards(keys, n, reward)
                prior[a] += WIN_WEIGHT * reward[root[H_CURRENT]]
            prior[a] += 1e-6 * (rng_below(rng, 0, 1 << 20) / (1 << 20))
    return np.argsort(-prior)[:count]


@ijit
def _mark_children(first: int, node_next: np.ndarray, node_action: np.ndarray, mask: np.ndarray,
                   stamp: np.ndarray, child_of: np.ndarray, tick: int) -> int:
    """Stamp the decisions legal now (``mask``) that have a child in the list from ``first``
    (``stamp[a] = tick``, ``child_of[a]`` = the child); returns how many have one."""
    tried = 0
    ch = first
    while ch >= 0:
        a = node_action[ch]
        if mask[a] != 0:
            stamp[a] = tick
            child_of[a] = ch
            tried += 1
        ch = node_next[ch]
    return tried


@ijit
def _expand_pick(mask: np.ndarray, stamp: np.ndarray, tick: int, root_order: np.ndarray, at_root: bool,
                 untried: int, rng: np.ndarray) -> int:
    """The legal decision to expand (one without a child, ``stamp[a] != tick``): at the root the
    first in ``root_order``, elsewhere (or if none is left there) one of the ``untried`` uniformly."""
    if at_root:
        for j in range(root_order.shape[0]):
            a = root_order[j]
            if mask[a] != 0 and stamp[a] != tick:
                return a
    k = rng_below(rng, 0, untried)
    for a in range(mask.shape[0]):
        if mask[a] != 0 and stamp[a] != tick:
            if k == 0:
                return a
            k -= 1
    return -1


@ijit
def _uct_child(mask: np.ndarray, stamp: np.ndarray, tick: int, child_of: np.ndarray, node_n: np.ndarray,
               node_w: np.ndarray, parent_n: int, decider: int, c_uct: float) -> int:
    """The child maximising ``mean + c * sqrt(ln(N_parent) / N_child)`` for ``decider`` among the
    decisions legal now that have one (a legal child even if no score compares)."""
    log_n = math.log(parent_n + 1.0)
    best = -math.inf
    best_child = -1
    for a in range(mask.shape[0]):
        if mask[a] != 0 and stamp[a] == tick:
            ch = child_of[a]
            nc = node_n[ch]
            u = node_w[ch, decider] / nc + c_uct * math.sqrt(log_n / nc)
            if best_child < 0 or u > best:
                best = u
                best_child = ch
    return best_child


@ijit
def _backup(node: int, node_parent: np.ndarray, node_n: np.ndarray, node_w: np.ndarray, reward: np.ndarray,
            n: int) -> None:
    """Add one visit and ``reward`` to ``node`` and every node above it."""
    while node >= 0:
        node_n[node] += 1
        for q in range(n):
            node_w[node, q] += reward[q]
        node = node_parent[node]


@ijit
def _most_visited(node_first: np.ndarray, node_next: np.ndarray, node_action: np.ndarray, node_n: np.ndarray,
                  node_w: np.ndarray, decider: int, visits: np.ndarray) -> int:
    """The root child visited most (ties: the higher mean for ``decider``, then the lower action),
    -1 if the root has none; ``visits[a]`` gets each root child's visit count (0 elsewhere)."""
    for a in range(visits.shape[0]):
        visits[a] = 0
    best_a = -1
    best_n = -1
    best_q = -math.inf
    ch = node_first[0]
    while ch >= 0:
        a = node_action[ch]
        visits[a] = node_n[ch]
        q = node_w[ch, decider] / max(node_n[ch], 1)
        if node_n[ch] > best_n or (node_n[ch] == best_n and (q > best_q or (q == best_q and a < best_a))):
            best_n = node_n[ch]
            best_q = q
            best_a = a
        ch = node_next[ch]
    return best_a


@ijit
def _next_legal(mk: np.ndarray, lv: int, start: int) -> int:
    """The first legal decision ``>= start`` of the mask ``mk[lv]`` (-1 if none)."""
    for a in range(start, mk.shape[1]):
        if mk[lv, a] != 0:
            return a
    return -1


@ijit
def _keep_value(values: np.ndarray, i: int, best: np.ndarray, lv: int, a: int, v: float) -> None:
    """A greedy lookahead's value ``v`` of decision ``a`` at level ``lv``: the root decision's value
    (``values[i, a]``) at level 0, else the level's best so far if higher."""
    if lv == 0:
        values[i, a] = v
    elif v > best[lv]:
        best[lv] = v


def build_greedy(K: ModuleType):
    """``batch_greedy`` for the rules module ``K`` (built once per module)."""
    if K.__name__ in _GREEDY:
        return _GREEDY[K.__name__]

    @jit
    def batch_greedy(states, seats, depth, node_cap, samples, seeds, net, masks, values, actions):
        """Greedy decision of seat ``seats[i]`` in ``states[i]`` into ``actions[i]``; ``values[i, a]``
        gets the value of each legal decision (-inf elsewhere; the mean over ``samples``
        resamples) and ``masks[i]`` the legal mask. ``depth`` >= 1 decisions of the own turn are
        looked at. ``net``: None (the plain greedy search: numba prunes every use of it, so the
        observation kernel is not compiled in), or a learned leaf value ``(w1t, b1, w2, b2,
        flat obs_template, weight)`` whose estimate, times ``weight``, is added to the margin of every
        leaf where the game goes on (:func:`mlp_value` on ``me``'s observation of the leaf)."""
        L = states.shape[1]
        A = masks.shape[1]
        for i in range(states.shape[0]):
            me = seats[i]
            n = states[i, H_NPLAYERS]
            if net is not None:
                ob = np.zeros_like(net[4])
                hidden = np.zeros(net[1].shape[0])
            st = np.empty((depth + 1, L), dtype=np.int64)
            mk = np.zeros((depth + 1, A), dtype=np.int8)
            cursor = np.zeros(depth + 1, dtype=np.int64)
            act = np.zeros(depth + 1, dtype=np.int64)
            best = np.full(depth + 1, -math.inf)
            sc = np.zeros(n)
            keys = np.zeros(n)
            rr = np.zeros(n)
            rng = np.zeros(1, dtype=np.int64)
            rng_seed(rng, 0, seeds[i])
            total = np.zeros(A)
            for smp in range(samples):
                st[0] = states[i]
                K.resample(st[0], me, episode_seed(seeds[i], -1 - smp))
                K.legal_mask(st[0], mk[0])
                for a in range(A):
                    values[i, a] = -math.inf
                cursor[0] = 0
                nodes = 0
                lv = 0
                while True:
                    a = _next_legal(mk, lv, cursor[lv])
                    if a < 0:  # level exhausted: its best value goes to the decision that led here
                        if lv == 0:
                            break
                        lv -= 1
                        _keep_value(values, i, best, lv, act[0], best[lv + 1])
                        continue
                    cursor[lv] = a + 1
                    act[lv] = a
                    nxt = st[lv + 1]
                    nxt[:] = st[lv]
                    K.apply(nxt, a)
                    nodes += 1
                    leaf = lv + 1 >= depth or nodes >= node_cap or nxt[H_TERMINAL] != 0 or nxt[H_CURRENT] != me
                    if leaf:
                        K.scores(nxt, sc)
                        v = margin(sc, n, me)
                        if nxt[H_TERMINAL] != 0:
                            K.rank_keys(nxt, keys)
                            rank_rewards(keys, n, rr)
                            v += WIN_WEIGHT * rr[me]
                        elif net is not None:
                            K.observe(nxt, me, ob)
                            v += net[5] * mlp_value(ob, net[0], net[1], net[2], net[3], hidden)
                        _keep_value(values, i, best, lv, a, v)
                    else:
                        lv += 1
                        K.legal_mask(st[lv], mk[lv])
                        cursor[lv] = 0
                        best[lv] = -math.inf
                for a in range(A):
                    if mk[0, a] != 0:
                        total[a] += values[i, a]
            masks[i] = mk[0]
            for a in range(A):
                values[i, a] = total[a] / samples if mk[0, a] != 0 else -math.inf
            actions[i] = pick_best(values[i], mk[0], rng)

    _GREEDY[K.__name__] = batch_greedy
    return batch_greedy


def build_mcts(K: ModuleType):
    """``batch_mcts`` for the rules module ``K`` (built once per module)."""
    if K.__name__ in _MCTS:
        return _MCTS[K.__name__]

    @jit
    def batch_mcts(states, seats, budget, c_uct, widen, horizon, scale, seeds, determinize, visits, actions):
        """MCTS decision of seat ``seats[i]`` in ``states[i]`` after ``budget`` simulations into
        ``actions[i]``; ``visits[i, a]`` gets the root visit count of each decision. ``widen`` > 0
        lets a node of N visits have at most ``ceil(widen * sqrt(N + 1))`` children (0: no limit).
        ``horizon`` > 0 stops each rollout after that many random decisions; the position reached is
        then valued by ``tanh(margin / scale)`` per seat (``scale`` > 0) or by the rank rewards of
        the scores as they stand (``scale`` 0); ``horizon`` 0 plays every rollout to the end.
        ``determinize=False`` searches the states as given (for perfect-information analysis and
        for tests that show what resampling protects against)."""
        L = states.shape[1]
        A = visits.shape[1]
        for i in range(states.shape[0]):
            me = seats[i]
            n = states[i, H_NPLAYERS]
            cap = budget + 1
            node_action = np.zeros(cap, dtype=np.int64)
            node_parent = np.full(cap, -1, dtype=np.int64)
            node_first = np.full(cap, -1, dtype=np.int64)
            node_next = np.full(cap, -1, dtype=np.int64)
            node_n = np.zeros(cap, dtype=np.int64)
            node_w = np.zeros((cap, n))
            used = 1
            sim = np.empty(L, dtype=np.int64)
            mask = np.zeros(A, dtype=np.int8)
            stamp = np.zeros(A, dtype=np.int64)
            child_of = np.zeros(A, dtype=np.int64)
            keys = np.zeros(n)
            reward = np.zeros(n)
            rng = np.zeros(1, dtype=np.int64)
            rng_seed(rng, 0, seeds[i])
            sc = np.zeros(n)
            root = states[i].copy()
            if determinize:
                K.resample(root, me, episode_seed(seeds[i], -1))
            root_order = _root_order(K, root, sim, mask, n, sc, keys, reward, rng)
            tick = 0
            for it in range(budget):
                sim[:] = states[i]
                if determinize:
                    K.resample(sim, me, episode_seed(seeds[i], it))
                node = 0
                while sim[H_TERMINAL] == 0:  # down the tree, until a decision is expanded or no room is left
                    count = K.legal_mask(sim, mask)
                    tick += 1
                    tried = _mark_children(node_first[node], node_next, node_action, mask, stamp, child_of, tick)
                    room = used < cap and tried < count
                    if room and widen > 0.0:
                        room = tried < math.ceil(widen * math.sqrt(node_n[node] + 1.0))
                    if room:
                        pick = _expand_pick(mask, stamp, tick, root_order, node == 0, count - tried, rng)
                        child = used
                        used += 1
                        node_action[child] = pick
                        node_parent[child] = node
                        node_next[child] = node_first[node]
                        node_first[node] = child
                        K.apply(sim, pick)
                        node = child
                        break
                    if tried == 0:  # no room left in the tree: roll out from here
                        break
                    node = _uct_child(mask, stamp, tick, child_of, node_n, node_w, node_n[node], sim[H_CURRENT],
                                      c_uct)
                    K.apply(sim, node_action[node])
                count = K.legal_mask(sim, mask)
                rollout_value(K, sim, mask, count, rng, 0, horizon, scale, n, sc, keys, reward)
                _backup(node, node_parent, node_n, node_w, reward, n)
            best_a = _most_visited(node_first, node_next, node_action, node_n, node_w, states[i, H_CURRENT], visits[i])
            if best_a < 0:  # budget 0: a random legal decision
                count = K.legal_mask(states[i], mask)
                best_a = rng_pick_legal(mask, count, rng, 0)
            actions[i] = best_a

    _MCTS[K.__name__] = batch_mcts
    return batch_mcts


_POOL: ThreadPoolExecutor | None = None


def _run_rows(kernel, rows: int, call) -> None:
    """Run ``call(lo, hi)`` over row blocks on ``numba.get_num_threads()`` threads (the kernels
    release the GIL, so the searches of a batch run side by side without a parallel kernel)."""
    global _POOL
    threads = min(rows, numba.get_num_threads())
    if threads <= 1:
        call(0, rows)
        return
    if _POOL is None or _POOL._max_workers < threads:
        _POOL = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="gamecore-search")
    bounds = np.linspace(0, rows, threads + 1).astype(int)
    futures = [_POOL.submit(call, int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]
    for f in futures:
        f.result()


class SearchMemoryError(ValueError, MemoryError):
    """A search whose trees would not fit in memory, refused before anything is allocated (a
    ValueError, as a bad argument, and a MemoryError, as the batch's refusal)."""


def _spec_of(K: ModuleType | GameSpec) -> GameSpec:
    """The game whose rules module is ``K`` (or ``K`` itself when it is a game)."""
    if isinstance(K, GameSpec):
        return K
    from gamecore.kernel.games import GAMES, get_game

    package = getattr(K, "__name__", "").split(".")[0]
    for name, pkg in GAMES.items():
        if pkg == package:
            return get_game(name)
    raise TypeError(f"K must be the rules module of a game ({', '.join(GAMES.values())}), got {short_repr(K)}")


def check_int(name: str, value: Any, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int ``>= low`` (and ``<= high`` when given), or TypeError (not an int: a
    float, a string, a bool) / ValueError (out of range)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {short_repr(value)}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {short_repr(value)}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be at most {high:,}, got {short_repr(value)}")
    return int(value)


def check_sims(name: str, value: Any) -> int:
    """A number of simulations per decision: an int 1..:data:`MAX_SIMS`."""
    return check_int(name, value, high=MAX_SIMS)


def check_greedy(prefix: str, depth: Any, node_cap: Any, samples: Any) -> tuple[int, int, int]:
    """``(depth, node_cap, samples)`` of a greedy search checked: ints >= 1, ``samples`` at most
    :data:`MAX_SAMPLES` and ``samples * node_cap`` at most :data:`MAX_GREEDY_NODES` (``prefix``
    starts every message: ``"greedy: "``)."""
    depth = check_int(f"{prefix}depth", depth)
    node_cap = check_int(f"{prefix}node_cap", node_cap, high=MAX_GREEDY_NODES)
    samples = check_int(f"{prefix}samples", samples, high=MAX_SAMPLES)
    if samples * node_cap > MAX_GREEDY_NODES:
        raise ValueError(f"{prefix}samples x node_cap = {samples:,} x {node_cap:,} decisions a search may apply, "
                         f"more than {MAX_GREEDY_NODES:,}: lower samples or the node cap")
    return depth, node_cap, samples


def check_real(name: str, value: Any) -> float:
    """``value`` as a finite float ``>= 0`` (NaN or infinity would steer the search nowhere)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {short_repr(value)}")
    v = float(value)
    if not math.isfinite(v) or v < 0 or v > MAX_REAL:
        raise ValueError(f"{name} must be a finite number 0..{MAX_REAL:g}, got {short_repr(value)}")
    return v


def _int_rows(name: str, arr: Any, shape: tuple[int, ...]) -> np.ndarray:
    """An integer array of ``shape`` as int64 (no bools, floats, objects; nothing wraps)."""
    a = np.asarray(arr)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array, got dtype {a.dtype}")
    if a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {a.shape}")
    if a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds values beyond int64")
    return np.ascontiguousarray(a, dtype=np.int64)


def check_search(K: ModuleType | GameSpec, states: Any, seats: Any = None,
                 num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a batch of search inputs before any kernel sees them; returns ``(states, seats,
    legal)`` as int64 / int64 / int8 arrays (``legal``: each row's legal mask, width
    ``num_actions``). ``states`` (B, STATE_LEN) integers, each a position of its game that play
    can continue from (``check_state`` with the params its player count and option slots name,
    the game running, the decider with a legal action), all of one action count (``num_actions``
    when given); ``seats`` (B,) integers, each the deciding seat of its state (None: the
    deciders). TypeError for a wrong kind of value, ValueError for a wrong shape or value."""
    game = _spec_of(K)
    K = game.kernels
    a = np.asarray(states)
    if a.dtype.kind not in "iu":
        raise TypeError(f"states must be an integer array (the int64 state arrays), got dtype {a.dtype}")
    if a.ndim != 2 or a.shape[1] != K.STATE_LEN:
        raise ValueError(f"states must have shape (decisions, {K.STATE_LEN}), got {a.shape}")
    b = a.shape[0]
    st = _int_rows("states", a, a.shape)
    width = None if num_actions is None else check_int("num_actions", num_actions)
    legal_rows = []
    for i in range(b):
        row = st[i]
        try:
            params = game.params_of_state(row)
        except ValueError as exc:
            raise ValueError(f"states[{i}]: {exc}") from None
        bad = K.check_state(row, params)
        if bad:
            raise ValueError(f"states[{i}] is no {game.name} position play can continue from: slot {bad - 1} is out "
                             "of range or inconsistent")
        if row[H_TERMINAL]:
            raise ValueError(f"states[{i}]: the game is over, there is no decision to search")
        count = game.num_actions(params)
        if width is None:
            width = count
        elif count != width:
            raise ValueError(f"states[{i}] has {count} actions, not {width} as the batch before it (one player "
                             "count per batch)")
        row_legal = np.zeros(count, dtype=np.int8)
        if K.legal_mask(row, row_legal) == 0:
            raise ValueError(f"states[{i}]: the game is running but the decider has no legal action")
        legal_rows.append(row_legal)
    legal = np.array(legal_rows, dtype=np.int8).reshape(b, width or 0)
    deciders = st[:, H_CURRENT].copy()
    if seats is None:
        return st, deciders, legal
    s, wrong = seat_array(seats, b, game.max_players, "state")
    if not len(wrong):
        wrong = np.flatnonzero(s.astype(np.int64) != deciders)
    if len(wrong):
        i = int(wrong[0])
        raise ValueError(f"seats[{i}] is {short_repr(s[i].item())}; a search decides for the seat deciding in its "
                         f"state (H_CURRENT = {int(deciders[i])})")
    return st, deciders, legal


def seat_array(seats: Any, b: int, max_players: int, per: str) -> tuple[np.ndarray, np.ndarray]:
    """``seats`` as a (b,) integer array (TypeError / ValueError for another dtype or shape) and
    the indices of the entries that are no seat 0..max_players-1."""
    s = np.asarray(seats)
    if s.dtype.kind not in "iu":
        raise TypeError(f"seats must be an integer array, got dtype {s.dtype}")
    if s.shape != (b,):
        raise ValueError(f"seats must have shape ({b},), one per {per}, got {s.shape}")
    return s, np.flatnonzero(~((s >= 0) & (s < max_players)))


def _fits(what: str, per_search: int, rows: int) -> None:
    """Refuse a search whose scratch arrays (``per_search`` bytes, one search per thread at a
    time) exceed the memory the OS reports as available."""
    from gamecore.envs.batched import available_memory

    need = per_search * max(1, min(rows, numba.get_num_threads()))
    avail = available_memory()
    if avail is not None and need > avail:
        raise SearchMemoryError(f"{what} needs {need:,} bytes ({need / 2**30:.1f} GiB) of search arrays; only "
                                f"{avail:,} bytes are available")


def greedy_bytes(states_len: int, num_actions: int, num_players: int, depth: int) -> int:
    """Bytes one greedy search allocates (its stack of ``depth + 1`` positions and masks)."""
    return (depth + 1) * (8 * states_len + num_actions + 3 * 8) + 8 * num_actions + 3 * 8 * num_players


def mcts_bytes(budget: int, num_actions: int, num_players: int) -> int:
    """Bytes one MCTS allocates (a tree of ``budget + 1`` nodes and the root's arrays)."""
    return (budget + 1) * (5 * 8 + 8 * num_players) + 4 * 8 * num_actions


def greedy_actions(K: ModuleType, states: np.ndarray, seats: np.ndarray, num_actions: int | None, seeds: np.ndarray,
                   depth: int = DEFAULT_DEPTH, node_cap: int = DEFAULT_NODE_CAP,
                   samples: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(actions, values) of the greedy search for each row of ``states`` (``num_actions``: None or
    the game's count; every argument checked by :func:`check_search` first)."""
    depth, node_cap, samples = check_greedy("", depth, node_cap, samples)
    states, seats, legal = check_search(K, states, seats, num_actions)
    return _greedy(_spec_of(K).kernels, states, seats, _seeds(seeds, len(states)), depth, node_cap, samples,
                   legal.shape[1])


def mcts_actions(K: ModuleType, states: np.ndarray, seats: np.ndarray, num_actions: int | None, seeds: np.ndarray,
                 budget: int, c_uct: float = DEFAULT_C, widen: float = DEFAULT_WIDEN,
                 determinize: bool = True, horizon: int | None = None,
                 scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(actions, root visit counts) of an MCTS of ``budget`` simulations for each row of ``states``
    (arguments checked as for :func:`greedy_actions`); ``horizon`` / ``scale``: the rollout
    horizon and its value scale (None: the game's ``mcts_horizon`` / ``mcts_value_scale``)."""
    budget, c_uct, widen = check_sims("budget", budget), check_real("c", c_uct), check_real("widen", widen)
    if not isinstance(determinize, (bool, np.bool_)):
        raise TypeError(f"determinize must be True or False, got {short_repr(determinize)}")
    horizon, scale = check_horizon(_spec_of(K), horizon, scale)
    states, seats, legal = check_search(K, states, seats, num_actions)
    return _mcts(_spec_of(K).kernels, states, seats, _seeds(seeds, len(states)), budget, c_uct, widen,
                 bool(determinize), legal.shape[1], horizon, scale)


def check_horizon(game: GameSpec, horizon: Any = None, scale: Any = None) -> tuple[int, float]:
    """``(horizon, scale)`` checked (an int >= 0, a finite number >= 0), None meaning the game's
    default (``game.mcts_horizon`` / ``game.mcts_value_scale``)."""
    h = game.mcts_horizon if horizon is None else check_int("horizon", horizon, low=0)
    v = game.mcts_value_scale if scale is None else check_real("scale", scale)
    return int(h), float(v)


def _seeds(seeds: Any, b: int) -> np.ndarray:
    return _int_rows("seeds", seeds, (b,))


def _greedy(K: ModuleType, states: np.ndarray, seats: np.ndarray, seeds: np.ndarray, depth: int, node_cap: int,
            samples: int, num_actions: int, net: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The greedy searches on checked input (see :func:`check_search`); ``net``: None, or a learned
    leaf value as ``batch_greedy`` takes it (:class:`gamecore.search.value_net.ValueNet` makes one)."""
    greedy = build_greedy(K)
    b = states.shape[0]
    if b:
        n = int(states[:, H_NPLAYERS].max())
        _fits(f"greedy: a search of depth {depth:,}", greedy_bytes(K.STATE_LEN, num_actions, n, depth), b)
    actions = np.zeros(b, dtype=np.int64)
    values = np.zeros((b, num_actions))
    masks = np.zeros((b, num_actions), dtype=np.int8)

    def call(lo: int, hi: int) -> None:
        greedy(states[lo:hi], seats[lo:hi], depth, node_cap, samples, seeds[lo:hi], net, masks[lo:hi], values[lo:hi],
               actions[lo:hi])

    _run_rows(greedy, b, call)
    return actions, values


def _mcts(K: ModuleType, states: np.ndarray, seats: np.ndarray, seeds: np.ndarray, budget: int, c_uct: float,
          widen: float, determinize: bool, num_actions: int, horizon: int = 0,
          scale: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The MCTS searches on checked input (see :func:`check_search`)."""
    mcts = build_mcts(K)
    b = states.shape[0]
    if b:
        n = int(states[:, H_NPLAYERS].max())
        _fits(f"mcts: a budget of {budget:,} simulations", mcts_bytes(budget, num_actions, n), b)
    actions = np.zeros(b, dtype=np.int64)
    visits = np.zeros((b, num_actions), dtype=np.int64)

    def call(lo: int, hi: int) -> None:
        mcts(states[lo:hi], seats[lo:hi], budget, c_uct, widen, horizon, scale, seeds[lo:hi], determinize,
             visits[lo:hi], actions[lo:hi])

    _run_rows(mcts, b, call)
    return actions, visits


__all__ = ["build_greedy", "build_mcts", "rollout_value", "check_search", "check_horizon",
           "check_sims", "check_greedy", "greedy_actions", "mcts_actions", "greedy_bytes",
           "mcts_bytes", "SearchMemoryError", "WIN_WEIGHT",
           "DEFAULT_C", "DEFAULT_WIDEN", "DEFAULT_DEPTH", "DEFAULT_NODE_CAP", "MAX_REAL", "MAX_SIMS", "MAX_SAMPLES",
           "MAX_GREEDY_NODES"]
