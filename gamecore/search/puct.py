"""Batched PUCT search guided by a policy / value network (AlphaZero-style), stepped from Python.

The network cannot run inside numba, so one search of ``budget`` simulations over a batch of B
root states (one tree per row) is a Python loop over simulations, each of three steps:

(a) one kernel (``descend``) that, for every tree, copies the root, redeals it for the searching
    seat with the game's ``resample`` kernel (seed ``episode_seed(seeds[i], simulation)``:
    information-set determinisation as in :mod:`gamecore.search.mcts`; a game with nothing hidden only
    reseeds), descends the tree by PUCT among the decisions legal in this determinisation, and
    writes the leaf's observation (``observe`` for the seat deciding there) and legal mask into
    batch buffers;
(b) ONE call of the evaluator on the leaves that need it (the rows whose leaf is not terminal):
    ``evaluate(obs, masks) -> (logits, values)``; the logits are masked by legality and
    soft-maxed into priors (:func:`masked_softmax`);
(c) one kernel (``expand_backup``) that expands the leaves with those priors and backs the values
    up to the roots.

Before the budget's simulations the roots themselves are evaluated and expanded the same way (one
more evaluator call), and Dirichlet noise can then be mixed into the root priors (self-play).

Values
------
Values are per-seat vectors in seat-absolute order; a node's decider picks by its own entry. A
terminal leaf takes the game's rank rewards (+1 first .. -1 last, ties sharing, as the env's
``rank`` reward) and needs no network. The network's value ``v`` in [-1, 1] is the leaf decider's
expected rank reward (its observation is seat-relative to that seat); it becomes the zero-sum
vector ``v`` for the decider and ``-v / (n - 1)`` for each other seat (rank rewards sum to zero,
and with two seats this is exact). A child never visited counts as ``Q = 0`` (the mean rank reward).

With ``mix`` > 0 (AlphaGo's leaf evaluation) every evaluated leaf is also played on by a random
rollout (``horizon`` random decisions, or to the end; a position not finished valued
``tanh(margin / scale)`` per seat, as :mod:`gamecore.search.mcts` values its rollouts), and the leaf's
value is ``(1 - mix) * network + mix * rollout``: ``mix=1`` keeps the network's priors and takes
no value from it. Each tree's rollouts draw from their own generator (seeded from ``seeds[i]``).

Selection
---------
At a node whose decider is seat ``d``, among the decisions legal in this determinisation, the
child maximising ``Q_d + c_puct * P * sqrt(N_parent) / (1 + N_child)`` is followed (ties: the
first in the node's edge list, i.e. the lowest action among those expanded together), where
``Q_d`` is the child's mean value for ``d`` and ``P`` its prior renormalised over the decisions
legal now. The tree is open-loop (keyed by decisions only): chance and hidden cards are averaged
over the determinisations. Where a determinisation makes legal a decision the node has no edge
for (another seat's hidden hand, say), that node is the simulation's leaf: it is evaluated in this
determinisation, gets edges for the missing decisions (their priors from this evaluation) and
backs this value up. At the root, whose legal decisions the searching seat sees, that never
happens. Every node's visit count includes the visit that expanded it; the root children's visits
therefore sum to ``budget``.

Memory
------
Per tree: ``budget + 1`` nodes (a simulation adds at most one) and an edge pool (one edge per
decision a node was expanded with) that grows from Python when a simulation needs more room; no
``(nodes, actions)`` array is allocated, so a game of thousands of actions (3,500-6,860 in the
largest action space shipped) pays only for the edges of the decisions legal at expanded nodes.
Every tree of a batch is allocated at once (the arena searches all its running games together), so
before anything is allocated the batch's trees (:func:`puct_bytes` each, with the first edge pool)
are checked against the memory the OS reports available: a batch that would not fit is a
:class:`gamecore.search.mcts.SearchMemoryError`. ``budget`` is at most
:data:`gamecore.search.mcts.MAX_SIMS`.

What the evaluator returns
--------------------------
Its shapes and numbers are checked before any kernel sees them: a NaN or infinite logit of a
legal decision, or a value that is not a finite number in [-1, 1], is a ValueError (a model gone
bad is reported, not played around: the arena, ``record`` and ``play`` stop with one error line,
``play`` saving the game first). Finite logits of any size are fine (the softmax is shifted by the
row's largest), and the selection keeps a legal edge whatever the priors and values: the search
returns a legal decision whenever the evaluator's output passes these checks.

Result
------
:class:`PUCTResult`: the root visit counts per action, the priors used at the root (noise mixed
in), each root child's mean value for the root decider, and the chosen action: the most visited
(ties: the higher prior, then the lower action) or, with ``temperature`` > 0, sampled with
probability proportional to ``visits ** (1 / temperature)``.

The kernels close over the game's rules module only (like :func:`gamecore.search.mcts.build_mcts`), so
numba caches them across processes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_TERMINAL
from gamecore.kernel.jit import jit
from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import GameSpec
from gamecore.kernel.rewards import rank_rewards
from gamecore.kernel.rng import episode_seed, rng_seed
from gamecore.search.mcts import _fits, check_horizon, check_search, check_sims, rollout_value

#: default PUCT exploration constant (values lie in [-1, 1])
DEFAULT_C_PUCT = 1.25
#: default Dirichlet noise share at the root (when ``dirichlet_alpha`` is given)
DEFAULT_DIRICHLET_EPS = 0.25
#: largest c_puct / temperature / alpha accepted
MAX_REAL = 1e6
#: the episode index of a tree's rollout generator (``episode_seed(seeds[i], ROLLOUT_STREAM)``),
#: apart from the determinisations' 0 .. budget - 1 and the root's -1
ROLLOUT_STREAM = -2

#: ``evaluate(obs (k, obs_len) int8, masks (k, A) int8) -> (logits (k, A), values (k,))``
Evaluator = Callable[[np.ndarray, np.ndarray], tuple[Any, Any]]

_BUILT: dict[str, tuple] = {}


def build(K: ModuleType) -> tuple:
    """(descend, expand_backup) for the rules module ``K`` (built once per module)."""
    if K.__name__ in _BUILT:
        return _BUILT[K.__name__]

    @jit
    def descend(roots, seats, seeds, sim, determinize, c_puct, node_n, node_w, node_first, edge_action,
                edge_prior, edge_child, edge_next, node_parent, used_nodes, scratch, stamp, tick, leaf_node,
                leaf_eval, leaf_value, leaf_obs, leaf_mask, leaf_decider, need_edges, mix, horizon, scale,
                roll_rng):
        """Step (a) of simulation ``sim`` (-1: the root's own evaluation) in every tree; with
        ``mix`` > 0 a leaf to evaluate also gets a random rollout's value in ``leaf_value``."""
        keys = np.zeros(node_w.shape[2])
        reward = np.zeros(node_w.shape[2])
        sc = np.zeros(node_w.shape[2])
        roll_mask = np.zeros(leaf_mask.shape[1], dtype=np.int8)
        for i in range(roots.shape[0]):
            if sim == -1:
                rng_seed(roll_rng, i, episode_seed(seeds[i], ROLLOUT_STREAM))
            st = scratch[i]
            st[:] = roots[i]
            me = seats[i]
            n = roots[i, H_NPLAYERS]
            if determinize:
                K.resample(st, me, episode_seed(seeds[i], sim))
            mask = leaf_mask[i]
            node = 0
            need_edges[i] = 0
            while True:
                decider = st[H_CURRENT]
                if st[H_TERMINAL] != 0:
                    K.rank_keys(st, keys)
                    rank_rewards(keys, n, reward)
                    for q in range(n):
                        leaf_value[i, q] = reward[q]
                    leaf_eval[i] = 0
                    break
                count = K.legal_mask(st, mask)
                tick[i] += 1
                t = tick[i]
                psum = 0.0
                found = 0
                e = node_first[i, node]
                while e >= 0:
                    a = edge_action[i, e]
                    if mask[a] != 0:
                        stamp[i, a] = t
                        psum += edge_prior[i, e]
                        found += 1
                    e = edge_next[i, e]
                if found < count:  # unexpanded, or decisions without an edge in this determinisation
                    K.observe(st, decider, leaf_obs[i])
                    leaf_eval[i] = 1
                    need_edges[i] = count - found
                    if mix > 0.0:  # AlphaGo's rollout from the leaf, on a copy of its mask
                        roll_mask[:] = mask
                        rollout_value(K, st, roll_mask, count, roll_rng, i, horizon, scale, n, sc, keys, reward)
                        for q in range(n):
                            leaf_value[i, q] = reward[q]
                    break
                sq = math.sqrt(node_n[i, node])
                best = -math.inf
                best_e = -1
                e = node_first[i, node]
                while e >= 0:
                    a = edge_action[i, e]
                    if mask[a] != 0:
                        ch = edge_child[i, e]
                        nc = 0
                        q = 0.0
                        if ch >= 0:
                            nc = node_n[i, ch]
                            if nc > 0:
                                q = node_w[i, ch, decider] / nc
                        p = edge_prior[i, e] / psum if psum > 0.0 else 1.0 / count
                        u = q + c_puct * p * sq / (1.0 + nc)
                        if best_e < 0 or u > best:  # a legal edge even if no score compares
                            best = u
                            best_e = e
                    e = edge_next[i, e]
                K.apply(st, edge_action[i, best_e])
                ch = edge_child[i, best_e]
                if ch < 0:
                    ch = used_nodes[i]
                    used_nodes[i] += 1
                    edge_child[i, best_e] = ch
                    node_parent[i, ch] = node
                    node_first[i, ch] = -1
                    node_n[i, ch] = 0
                    for q in range(n):
                        node_w[i, ch, q] = 0.0
                node = ch
            leaf_node[i] = node
            leaf_decider[i] = decider

    @jit
    def expand_backup(roots, leaf_node, leaf_eval, leaf_value, leaf_mask, leaf_decider, priors, values, node_n,
                      node_w, node_first, edge_action, edge_prior, edge_child, edge_next, node_parent, used_edges,
                      stamp, tick, mix):
        """Step (c): add the missing edges of every evaluated leaf (priors ``priors[i, a]``), turn
        its value ``values[i]`` into a per-seat vector (mixed with its rollout's, weight ``mix``)
        and back it (or a terminal leaf's rank rewards) up to the root."""
        A = leaf_mask.shape[1]
        val = np.zeros(node_w.shape[2])
        for i in range(roots.shape[0]):
            n = roots[i, H_NPLAYERS]
            node = leaf_node[i]
            if leaf_eval[i] != 0:
                t = tick[i]
                for a in range(A - 1, -1, -1):  # prepended in reverse: the list runs in action order
                    if leaf_mask[i, a] != 0 and stamp[i, a] != t:
                        e = used_edges[i]
                        used_edges[i] += 1
                        edge_action[i, e] = a
                        edge_prior[i, e] = priors[i, a]
                        edge_child[i, e] = -1
                        edge_next[i, e] = node_first[i, node]
                        node_first[i, node] = e
                d = leaf_decider[i]
                v = values[i]
                for q in range(n):
                    val[q] = (1.0 - mix) * (v if q == d else -v / (n - 1)) + mix * leaf_value[i, q]
            else:
                for q in range(n):
                    val[q] = leaf_value[i, q]
            while node >= 0:
                node_n[i, node] += 1
                for q in range(n):
                    node_w[i, node, q] += val[q]
                node = node_parent[i, node]

    _BUILT[K.__name__] = (descend, expand_backup)
    return _BUILT[K.__name__]


@dataclass
class PUCTResult:
    """What one batched search returns, one row per root."""

    #: (B,) int64: the decision chosen in each row
    actions: np.ndarray
    #: (B, A) int64: visits of each root child (0 for illegal decisions); each row sums to the budget
    visits: np.ndarray
    #: (B, A) float64: the root priors the search used (the masked softmax, noise mixed in; 0 if illegal)
    priors: np.ndarray
    #: (B, A) float64: each root child's mean value for the root's decider (0 where never visited)
    q: np.ndarray
    #: (B,) float64: the root's mean value for its decider over the whole search
    root_value: np.ndarray
    #: (B,) int64: nodes in each tree (root included): ``budget + 1`` unless some simulations ended
    #: at a terminal node already in the tree or at a node a determinisation gave new legal decisions
    nodes: np.ndarray | None = None

    @property
    def policy(self) -> np.ndarray:
        """(B, A) float64: the visit distribution (visits / budget), the self-play policy target."""
        total = self.visits.sum(axis=1, keepdims=True)
        return self.visits / np.maximum(total, 1)


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Softmax of each row of ``logits`` over the entries where ``masks`` is non-zero (0 elsewhere),
    in float64."""
    x = np.where(masks != 0, np.asarray(logits, dtype=np.float64), -np.inf)
    with np.errstate(over="ignore"):  # logits 1e308 apart: the far one's share is 0, as it should be
        x = x - x.max(axis=1, keepdims=True)
    p = np.exp(x)
    return p / p.sum(axis=1, keepdims=True)


def uniform_evaluator(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors over the legal decisions and value 0 everywhere: PUCT then relies on the
    terminal positions it reaches alone (the network-free baseline of the tests)."""
    return np.zeros(masks.shape, dtype=np.float32), np.zeros(len(masks), dtype=np.float32)


def check_real(name: str, value: Any, low: float = 0.0, high: float = MAX_REAL, strict: bool = False) -> float:
    """``value`` as a finite float in ``[low, high]`` (``(low, high]`` when ``strict``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {short_repr(value)}")
    v = float(value)
    if not math.isfinite(v) or v < low or v > high or (strict and v == low):
        span = f"{'above' if strict else 'at least'} {low:g} and at most {high:g}"
        raise ValueError(f"{name} must be a finite number {span}, got {short_repr(value)}")
    return v


def _spec_of(game: ModuleType | GameSpec | str) -> GameSpec:
    from gamecore.kernel.games import get_game
    from gamecore.search.mcts import _spec_of as spec_of_module

    if isinstance(game, str):
        return get_game(game)
    return spec_of_module(game)


def _check_output(out: Any, k: int, width: int, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The evaluator's ``(logits, values)`` for ``k`` leaves checked and as float64 arrays."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"evaluate must return (logits, values), got {short_repr(out)}")
    logits, values = (np.asarray(_numpy(x), dtype=np.float64) for x in out)
    if logits.shape != (k, width):
        raise ValueError(f"evaluate returned logits of shape {logits.shape}, expected ({k}, {width}): one row "
                         "per leaf, one column per action")
    values = values.reshape(-1) if values.shape in ((k,), (k, 1)) else values
    if values.shape != (k,):
        raise ValueError(f"evaluate returned values of shape {values.shape}, expected ({k},): one per leaf")
    if not np.all(np.isfinite(logits[masks != 0])):
        raise ValueError("evaluate returned a non-finite logit for a legal action")
    if not np.all(np.isfinite(values)) or np.any(np.abs(values) > 1.0 + 1e-6):
        raise ValueError("evaluate returned a value outside [-1, 1] (the leaf decider's expected rank reward)")
    return logits, np.clip(values, -1.0, 1.0)


def _numpy(x: Any) -> Any:
    detach = getattr(x, "detach", None)  # a torch tensor
    return detach().cpu().numpy() if callable(detach) else x


def puct_search(game: str | GameSpec | ModuleType, states: Any, evaluate: Evaluator, budget: int, seeds: Any,
                c_puct: float = DEFAULT_C_PUCT, dirichlet_alpha: float | None = None,
                dirichlet_eps: float = DEFAULT_DIRICHLET_EPS, temperature: float = 0.0,
                determinize: bool = True, seats: Any = None, mix: float = 0.0, horizon: int | None = None,
                scale: float | None = None) -> PUCTResult:
    """Search every row of ``states`` (B running positions of ``game``, one player count) with
    ``budget`` PUCT simulations guided by ``evaluate`` (see the module docstring); ``seeds`` (B,)
    integers seed each tree's determinisations, noise and sampling. ``dirichlet_alpha``: mix
    ``Dirichlet(alpha)`` noise into the root priors with weight ``dirichlet_eps``; ``temperature``
    > 0 samples the action from the visits (self-play), 0 takes the most visited.
    ``determinize=False`` searches the states as they are, hidden cards included (for tests that
    show what resampling protects against). ``seats``: None or the deciders (as
    :func:`gamecore.search.mcts.check_search`). ``mix`` in [0, 1]: the weight of a random rollout's value
    in each evaluated leaf's value (AlphaGo's lambda; 0, the default: the network's value alone,
    and no rollouts); each rollout plays ``horizon`` random decisions from the leaf (0: to the
    end) and a position not finished is valued ``tanh(margin / scale)`` per seat, as the ``mcts``
    agent's rollouts are (None: the game's ``mcts_horizon`` / ``mcts_value_scale``). Every
    argument is checked before any kernel runs."""
    spec = _spec_of(game)
    K = spec.kernels
    budget = check_sims("budget", budget)
    c_puct = check_real("c_puct", c_puct, strict=True)
    temperature = check_real("temperature", temperature)
    if dirichlet_alpha is not None:
        dirichlet_alpha = check_real("dirichlet_alpha", dirichlet_alpha, strict=True)
    dirichlet_eps = check_real("dirichlet_eps", dirichlet_eps, high=1.0)
    mix = check_real("mix", mix, high=1.0)
    horizon, scale = check_horizon(spec, horizon, scale)
    if not isinstance(determinize, (bool, np.bool_)):
        raise TypeError(f"determinize must be True or False, got {short_repr(determinize)}")
    if not callable(evaluate):
        raise TypeError(f"evaluate must be a callable (obs, masks) -> (logits, values), got {short_repr(evaluate)}")
    states, seats, legal = check_search(spec, states, seats)
    b = len(states)
    s = np.asarray(seeds)
    if s.dtype.kind not in "iu" or s.shape != (b,):
        raise ValueError(f"seeds must be {b} integers, one per state, got {s.dtype} {s.shape}")
    seeds = s.astype(np.int64)
    width = legal.shape[1]
    if b == 0:
        z = np.zeros((0, width))
        return PUCTResult(np.zeros(0, np.int64), z.astype(np.int64), z, z.copy(), np.zeros(0), np.zeros(0, np.int64))
    counts = np.unique(states[:, H_NPLAYERS])
    if len(counts) != 1:
        raise ValueError(f"states must share one player count (one observation size per batch), got {counts}")
    params = spec.params_of_state(states[0])
    n = int(counts[0])
    obs_len = int(np.prod(spec.obs_shape(params)))
    root_legal = legal.sum(axis=1)
    per_tree = puct_bytes(budget, width, n, K.STATE_LEN, obs_len, int(root_legal.max()))
    _fits(f"puct: {b:,} searches of {budget:,} simulations", per_tree * b, 1)  # every tree at once
    descend, expand_backup = build(K)

    cap = budget + 1
    node_n = np.zeros((b, cap), dtype=np.int64)
    node_w = np.zeros((b, cap, n), dtype=np.float64)
    node_first = np.full((b, cap), -1, dtype=np.int64)
    node_parent = np.full((b, cap), -1, dtype=np.int64)
    used_nodes = np.ones(b, dtype=np.int64)
    edges = _first_edges(int(root_legal.max()), budget)
    edge_action = np.zeros((b, edges), dtype=np.int64)
    edge_prior = np.zeros((b, edges), dtype=np.float64)
    edge_child = np.full((b, edges), -1, dtype=np.int64)
    edge_next = np.full((b, edges), -1, dtype=np.int64)
    used_edges = np.zeros(b, dtype=np.int64)
    scratch = np.empty_like(states)
    stamp = np.zeros((b, width), dtype=np.int64)
    tick = np.zeros(b, dtype=np.int64)
    leaf_node = np.zeros(b, dtype=np.int64)
    leaf_eval = np.zeros(b, dtype=np.int8)
    leaf_value = np.zeros((b, n), dtype=np.float64)
    leaf_obs = np.zeros((b, obs_len), dtype=np.int8)
    leaf_mask = np.zeros((b, width), dtype=np.int8)
    leaf_decider = np.zeros(b, dtype=np.int64)
    need_edges = np.zeros(b, dtype=np.int64)
    priors = np.zeros((b, width), dtype=np.float64)
    values = np.zeros(b, dtype=np.float64)
    roll_rng = np.zeros(b, dtype=np.int64)

    for sim in range(-1, budget):
        descend(states, seats, seeds, sim, bool(determinize), c_puct, node_n, node_w, node_first, edge_action,
                edge_prior, edge_child, edge_next, node_parent, used_nodes, scratch, stamp, tick, leaf_node,
                leaf_eval, leaf_value, leaf_obs, leaf_mask, leaf_decider, need_edges, mix, horizon, scale, roll_rng)
        rows = np.flatnonzero(leaf_eval)
        if len(rows):
            logits, v = _check_output(evaluate(leaf_obs[rows], leaf_mask[rows]), len(rows), width, leaf_mask[rows])
            priors[rows] = masked_softmax(logits, leaf_mask[rows])
            values[rows] = v
        short = int((used_edges + need_edges).max())
        if short > edges:  # grow the edge pools (doubling) before the kernel writes past them
            grow = max(short, 2 * edges) - edges
            edge_action = np.pad(edge_action, ((0, 0), (0, grow)))
            edge_prior = np.pad(edge_prior, ((0, 0), (0, grow)))
            edge_child = np.pad(edge_child, ((0, 0), (0, grow)), constant_values=-1)
            edge_next = np.pad(edge_next, ((0, 0), (0, grow)), constant_values=-1)
            edges += grow
        expand_backup(states, leaf_node, leaf_eval, leaf_value, leaf_mask, leaf_decider, priors, values, node_n,
                      node_w, node_first, edge_action, edge_prior, edge_child, edge_next, node_parent, used_edges,
                      stamp, tick, mix)
        if sim == -1:
            root_edges = used_edges.copy()  # every root edge comes from the root's own evaluation
            if dirichlet_alpha is not None and dirichlet_eps > 0:
                for i in range(b):
                    k = int(root_edges[i])
                    noise = np.random.default_rng([int(seeds[i]) & (2**63 - 1), 1]).dirichlet(
                        np.full(k, dirichlet_alpha))
                    edge_prior[i, :k] = (1 - dirichlet_eps) * edge_prior[i, :k] + dirichlet_eps * noise

    result = _result(states, seats, seeds, root_edges, node_n, node_w, edge_action, edge_prior, edge_child, width,
                     temperature)
    result.nodes = used_nodes
    return result


def _first_edges(root_legal: int, budget: int) -> int:
    """The first size of a tree's edge pool (it grows when a simulation needs more)."""
    return root_legal + 4 * budget + 16


def puct_bytes(budget: int, num_actions: int, num_players: int, state_len: int, obs_len: int,
               root_legal: int | None = None) -> int:
    """Bytes one tree of :func:`puct_search` allocates: its ``budget + 1`` nodes, its first edge
    pool (``root_legal`` root decisions, ``num_actions`` when not known) and its row of the batch
    buffers."""
    root = num_actions if root_legal is None else root_legal
    nodes = (budget + 1) * (3 * 8 + 8 * num_players)
    edges = _first_edges(root, budget) * 4 * 8
    rows = 8 * state_len + num_actions * (8 + 1 + 8 + 8 + 8 + 8) + obs_len + 8 * num_players + 8 * 8
    return nodes + edges + rows


def check_sims_fit(name: str, sims: Any, game: GameSpec) -> int:
    """``sims`` simulations per decision checked for a network-guided search of ``game``: an int
    1..:data:`gamecore.search.mcts.MAX_SIMS` whose one tree fits in the memory available (at the game's
    smallest player count; each batch is checked again before it is searched)."""
    sims = check_sims(name, sims)
    p = game.make_params(game.min_players)
    _fits(f"{name.split(':')[0]}: a search of {sims:,} simulations",
          puct_bytes(sims, game.num_actions(p), game.min_players, game.kernels.STATE_LEN,
                     int(np.prod(game.obs_shape(p)))), 1)
    return sims


def _result(states, seats, seeds, root_edges, node_n, node_w, edge_action, edge_prior, edge_child, width,
            temperature) -> PUCTResult:
    b = len(states)
    visits = np.zeros((b, width), dtype=np.int64)
    pri = np.zeros((b, width))
    q = np.zeros((b, width))
    actions = np.zeros(b, dtype=np.int64)
    for i in range(b):
        k = int(root_edges[i])
        acts = edge_action[i, :k]
        ch = edge_child[i, :k]
        nv = np.where(ch >= 0, node_n[i, np.maximum(ch, 0)], 0)
        visits[i, acts] = nv
        pri[i, acts] = edge_prior[i, :k]
        w = node_w[i, np.maximum(ch, 0), seats[i]]
        q[i, acts] = np.where(nv > 0, w / np.maximum(nv, 1), 0.0)
        if temperature > 0:
            x = visits[i].astype(np.float64)
            logp = np.where(x > 0, np.log(np.maximum(x, 1e-300)) / temperature, -np.inf)
            p = np.exp(logp - logp.max())
            rng = np.random.default_rng([int(seeds[i]) & (2**63 - 1), 2])
            actions[i] = int(rng.choice(width, p=p / p.sum()))
        else:
            order = np.lexsort((acts, -edge_prior[i, :k], -nv))  # most visits, then prior, then action
            actions[i] = int(acts[order[0]])
    root_value = node_w[np.arange(b), 0, seats] / np.maximum(node_n[:, 0], 1)
    return PUCTResult(actions, visits, pri, q, root_value)


__all__ = ["build", "puct_search", "PUCTResult", "masked_softmax", "uniform_evaluator", "Evaluator", "puct_bytes",
           "check_sims_fit", "DEFAULT_C_PUCT", "DEFAULT_DIRICHLET_EPS"]
