"""Seat-rotated games between agents, a table per agent and a rating across them.

``python -m gamecore arena GAME --players 2 --agents random greedy mcts:200 --games 400``

Schedule
--------
With k agents and n seats, a *seating* assigns an agent to every seat: every ordered choice of n
distinct agents when k >= n, else every assignment that uses each agent at least once. Every
*deal* (a game seed) is played once under every seating, so each agent meets every other in every
seat on the same deals; ``--games`` is rounded up to a whole number of deals. Deals run side by
side on the batched path (:class:`gamecore.envs.batched.BatchedGames`), each agent deciding for all the
games where it is to move in one call.

Statistics (per agent, over every seat it played)
-------------------------------------------------
* win rate: first place, a share of ``1/t`` when t seats tie for it; 95% Wilson interval;
* rank reward: +1 first .. -1 last, ties sharing (the env's ``rank`` reward); mean with a 95%
  normal interval (1.96 standard errors);
* score: the game's ``scores`` kernel at the end; mean and 95% interval;
* head to head: for every pair of agents, how often one finished ahead of the other in the
  games where both played (ties half);
* rating: OpenSkill's Plackett-Luce model (``openskill``), every game a free-for-all of its seats
  ranked by the game's rank keys, games taken in deal order; ``mu +- sigma`` (mu starts at 25).
  An agent holding several seats of one game (k < n) is rated per seat and then takes the mean.

Timings
-------
``ms_per_decision`` (an agent's time in its ``act`` calls over the decisions it took) and
``seconds`` (the games' wall time) leave compiling out: before the clock starts, every agent
decides once on a copy of the first position (:func:`warm_up`; its ``rng`` put back, so the games
are the ones it would have played) and a spare batch steps once and scores its game, so numba
compiles (or loads from its cache) and a model makes its first call there; and any compile that
still happens inside the timed part (:func:`gamecore.kernel.jit.compile_seconds`) is subtracted from it.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gamecore.envs.batched import BatchedGames
from gamecore.kernel.games import get_game
from gamecore.kernel.jit import compile_seconds
from gamecore.kernel.protocol import GameSpec
from gamecore.kernel.rewards import rank_rewards
from gamecore.kernel.rng import check_seed
from gamecore.search.agents import Agent, make_agent

Z95 = 1.959963984540054


def seat_schedule(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """Every seating of ``num_agents`` agents at ``num_players`` seats (see the module docstring)."""
    if num_agents < 1:
        raise ValueError("the arena needs at least one agent")
    if num_agents >= num_players:
        return list(itertools.permutations(range(num_agents), num_players))
    return [t for t in itertools.product(range(num_agents), repeat=num_players) if len(set(t)) == num_agents]


@dataclass
class GameResult:
    deal: int
    seating: tuple[int, ...]
    keys: list[float]
    rank_reward: list[float]
    scores: list[float]
    decisions: int


@dataclass
class ArenaRun:
    game: str
    num_players: int
    agents: list[str]
    seed: int
    results: list[GameResult] = field(default_factory=list)
    seconds: float = 0.0
    think_seconds: list[float] = field(default_factory=list)
    think_decisions: list[int] = field(default_factory=list)


def deals_side_by_side(seatings: int, games: int, parallel: int) -> tuple[int, int]:
    """(deals, deals played side by side) for at least ``games`` games of ``seatings`` seatings
    each, about ``parallel`` games at once."""
    for name, v in (("seatings", seatings), ("games", games), ("parallel", parallel)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    deals = max(1, math.ceil(games / seatings))
    return deals, max(1, min(deals, parallel // seatings or 1))


def play(game: str | GameSpec, agents: list[Agent | str], num_players: int | None = None, games: int = 100,
         seed: int = 0, parallel: int = 64, progress: Callable[[int, int], None] | None = None,
         **options: Any) -> ArenaRun:
    """Play the seat-rotated schedule (at least ``games`` games) and return every game's result.
    ``progress(done, total)`` is called as games finish (``python -m gamecore arena`` passes a
    :class:`gamecore.tools.progress.Progress`)."""
    spec = get_game(game)
    check_seed(seed)
    agents = [make_agent(a, spec, seed=seed * 1009 + j + 1) for j, a in enumerate(agents)]
    names = [a.spec for a in agents]
    if len(set(names)) < len(names):
        raise ValueError(f"the arena's agents need distinct names (their table rows), got {names}")
    params = spec.make_params(num_players, **options)
    n = int(params[0])
    schedule = seat_schedule(len(agents), n)
    t = len(schedule)
    deals, side = deals_side_by_side(t, games, parallel)
    check_seed(seed, side * t)  # the games of a batch take streams seed, seed + 1, ...
    batch = BatchedGames(spec, side * t, seed=seed, **{"num_players": n, **options})
    spare = BatchedGames(spec, 1, seed=seed, **{"num_players": n, **options})
    slots = np.arange(side * t)
    streams = seed + slots // t  # the t seatings of a deal share its stream
    seating = np.array([schedule[i % t] for i in slots], dtype=np.int64)
    quota = np.array([len(range(i // t, deals, side)) for i in slots], dtype=np.int64)
    played = np.zeros_like(quota)
    decisions = np.zeros_like(quota)
    run = ArenaRun(spec.name, n, [a.spec for a in agents], seed, think_seconds=[0.0] * len(agents),
                   think_decisions=[0] * len(agents))
    obs, masks = batch.reset(streams=streams)
    active = quota > 0
    total = int(quota.sum())
    K = spec.kernels
    keys = np.zeros(n)
    rr = np.zeros(n)
    sc = np.zeros(n)
    warm_up(agents, batch, spare)
    t0 = time.perf_counter()
    compiling0 = compile_seconds()
    while active.any():
        seats = batch.current_players
        mover = seating[slots, seats]
        actions = np.zeros(len(slots), dtype=np.int64)
        for j, agent in enumerate(agents):
            idx = np.flatnonzero(active & (mover == j))
            if not len(idx):
                continue
            s0 = time.perf_counter()
            c0 = compile_seconds()
            states = batch.states[idx] if agent.needs_state else None
            actions[idx] = agent.act(batch.observations[idx], batch.masks[idx].astype(bool), states, seats[idx])
            run.think_seconds[j] += time.perf_counter() - s0 - (compile_seconds() - c0)
            run.think_decisions[j] += len(idx)
        batch.step(actions, active=active.astype(np.int8))
        decisions += active
        for i in np.flatnonzero(batch.dones & active):
            final = batch.final_states[i]
            K.rank_keys(final, keys)
            rank_rewards(keys, n, rr)
            K.scores(final, sc)
            deal = int(i // t) + side * int(played[i])
            run.results.append(GameResult(deal, tuple(int(x) for x in seating[i]), keys.tolist(), rr.tolist(),
                                          sc.tolist(), int(decisions[i])))
            decisions[i] = 0
            played[i] += 1
            if played[i] >= quota[i]:
                active[i] = False
        if progress is not None:
            progress(len(run.results), total)
    run.seconds = time.perf_counter() - t0 - (compile_seconds() - compiling0)
    run.results.sort(key=lambda r: (r.deal, schedule.index(r.seating)))
    return run


def warm_up(agents: list[Agent], batch: BatchedGames, spare: BatchedGames | None = None) -> None:
    """What :func:`play` does before its clock starts: every agent decides once for a copy of the
    first game of ``batch`` (numba compiles or loads its kernels, a model makes its first call), its
    ``rng`` (and torch's, where torch is loaded) put back afterwards, so that the games are the ones
    it would have played; ``spare``, a batch of its own, steps once and its first game is scored, as
    the timed loop does with ``batch``."""
    obs, masks = batch.observations[:1].copy(), batch.masks[:1].astype(bool)
    states, seats = batch.states[:1].copy(), batch.current_players[:1].copy()
    for agent in agents:
        rng = getattr(agent, "rng", None)
        torch = sys.modules.get("torch")
        torch_state = torch.get_rng_state() if torch is not None else None
        if rng is not None:
            agent.rng = np.random.default_rng(0)
        try:
            agent.act(obs.copy(), masks.copy(), states.copy() if agent.needs_state else None, seats.copy())
        finally:
            if rng is not None:
                agent.rng = rng
            if torch_state is not None:
                torch.set_rng_state(torch_state)
    if spare is not None:
        spare.reset()
        spare.step(spare.random_actions())
        K = spare.game.kernels
        n = spare.num_players
        keys, rr, sc = np.zeros(n), np.zeros(n), np.zeros(n)
        final = spare.states[0].copy()
        K.rank_keys(final, keys)
        rank_rewards(keys, n, rr)
        K.scores(final, sc)


# ---- statistics ------------------------------------------------------------------------------
def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (fractional successes allowed)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    den = 1 + z * z / trials
    mid = (p + z * z / (2 * trials)) / den
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def mean_ci(values: list[float], z: float = Z95) -> tuple[float, float]:
    """(mean, half-width of its normal 95% interval)."""
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return (float(x.mean()) if len(x) else 0.0, math.inf)
    return float(x.mean()), float(z * x.std(ddof=1) / math.sqrt(len(x)))


def ratings(run: ArenaRun) -> dict[str, dict[str, float]]:
    """OpenSkill (Plackett-Luce) rating of every agent over the run's games; none (and a warning)
    where openskill is not installed (the ``arena`` extra)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        warnings.warn("tabletop-rl-envs: no ratings without openskill (pip install 'tabletop-rl-envs[arena]')",
                      RuntimeWarning, stacklevel=2)
        return {}

    model = PlackettLuce()
    current = [model.rating(name=name) for name in run.agents]
    for res in run.results:
        teams = [[model.rating(mu=current[a].mu, sigma=current[a].sigma)] for a in res.seating]
        rated = model.rate(teams, scores=list(res.keys))
        for j in set(res.seating):
            mine = [rated[s][0] for s, a in enumerate(res.seating) if a == j]
            current[j] = model.rating(mu=float(np.mean([r.mu for r in mine])),
                                      sigma=float(np.mean([r.sigma for r in mine])))
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma}
            for name, r in zip(run.agents, current, strict=True)}


def summarize(run: ArenaRun) -> dict[str, Any]:
    """The per-agent table and the ratings as plain JSON types."""
    per: dict[str, dict[str, Any]] = {}
    rated = ratings(run) if run.results else {}
    for j, name in enumerate(run.agents):
        wins: list[float] = []
        reward: list[float] = []
        score: list[float] = []
        for res in run.results:
            top = max(res.keys)
            tied = sum(1 for k in res.keys if k == top)
            for s, a in enumerate(res.seating):
                if a != j:
                    continue
                wins.append(1.0 / tied if res.keys[s] == top else 0.0)
                reward.append(res.rank_reward[s])
                score.append(res.scores[s])
        lo, hi = wilson(sum(wins), len(wins))
        r_mean, r_half = mean_ci(reward)
        s_mean, s_half = mean_ci(score)
        per[name] = {
            "seats_played": len(wins),
            "win_rate": sum(wins) / len(wins) if wins else 0.0,
            "win_rate_ci95": [lo, hi],
            "rank_reward": r_mean,
            "rank_reward_ci95": r_half,
            "score": s_mean,
            "score_ci95": s_half,
            "ms_per_decision": 1000 * run.think_seconds[j] / max(run.think_decisions[j], 1),
            "rating": rated.get(name, {}),
        }
    return {
        "game": run.game,
        "num_players": run.num_players,
        "agents": run.agents,
        "head_to_head": head_to_head(run),
        "seed": run.seed,
        "games": len(run.results),
        "deals": len({r.deal for r in run.results}),
        "seatings": len(seat_schedule(len(run.agents), run.num_players)),
        "seconds": run.seconds,
        "per_agent": per,
    }


def head_to_head(run: ArenaRun) -> list[list[float | None]]:
    """``[i][j]``: how often agent i finished ahead of agent j in the games where both played
    (rank keys compared seat by seat, ties counting half); None where they never met."""
    k = len(run.agents)
    ahead = np.zeros((k, k))
    met = np.zeros((k, k))
    for res in run.results:
        for s, a in enumerate(res.seating):
            for t, b in enumerate(res.seating):
                if a == b:
                    continue
                met[a, b] += 1
                ahead[a, b] += 1.0 if res.keys[s] > res.keys[t] else (0.5 if res.keys[s] == res.keys[t] else 0.0)
    return [[float(ahead[i, j] / met[i, j]) if met[i, j] else None for j in range(k)] for i in range(k)]


def format_table(summary: dict[str, Any]) -> str:
    """A Markdown table of the summary, best rating first."""
    rows = sorted(summary["per_agent"].items(), key=lambda kv: -kv[1]["rating"].get("ordinal", 0.0))
    head = (f"{summary['game']}, {summary['num_players']} players: {summary['games']} games "
            f"({summary['deals']} deals x {summary['seatings']} seatings), seed {summary['seed']}")
    lines = [head, "",
             "| agent | seats | win rate (95% CI) | rank reward | score | rating (mu ± sigma) | ms/decision |",
             "|---|---:|---|---|---|---|---:|"]
    for name, p in rows:
        lo, hi = p["win_rate_ci95"]
        rating = p["rating"]
        lines.append(
            f"| `{name}` | {p['seats_played']} | {p['win_rate']:.2f} ({lo:.2f}–{hi:.2f}) | "
            f"{p['rank_reward']:+.2f} ± {p['rank_reward_ci95']:.2f} | {p['score']:.1f} ± {p['score_ci95']:.1f} | "
            f"{rating.get('mu', 0):.1f} ± {rating.get('sigma', 0):.1f} | {p['ms_per_decision']:.2f} |"
        )
    h2h = summary.get("head_to_head")
    if h2h and len(summary["agents"]) > 1:
        order = [summary["agents"].index(name) for name, _ in rows]
        lines += ["", "Head to head: how often the row agent finished ahead of the column agent.", "",
                  "| | " + " | ".join(f"`{summary['agents'][j]}`" for j in order) + " |",
                  "|---|" + "---:|" * len(order)]
        for i in order:
            cells = ["–" if h2h[i][j] is None else f"{h2h[i][j]:.2f}" for j in order]
            lines.append(f"| `{summary['agents'][i]}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_json(summary: dict[str, Any], run: ArenaRun, path: str | Path) -> None:
    out = dict(summary)
    out["results"] = [r.__dict__ for r in run.results]
    Path(path).write_text(json.dumps(out, indent=1) + "\n")


__all__ = ["seat_schedule", "deals_side_by_side", "play", "warm_up", "summarize", "ratings", "head_to_head",
           "format_table", "wilson", "mean_ci", "write_json", "ArenaRun", "GameResult"]
