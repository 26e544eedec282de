#!/usr/bin/env python
"""Throughput, start-up time and memory of the numba game envs, against PettingZoo and OpenSpiel.

Run from the repository root::

    python benchmarks/bench.py                 # ~3 s per throughput row, cold + warm start-up
    python benchmarks/bench.py --quick         # ~1 s per row, warm start-up only (smoke run)
    python benchmarks/bench.py --games callisto,calcada --players 2,3 --json results.json

Everything is measured in one run on one machine. Every throughput row is warmed up (numba
kernels loaded or compiled, thread pool started) before its clock starts; compile / load cost is
reported separately as "time to first step", measured in fresh subprocesses. See
``benchmarks/README.md`` for what each row means.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gamecore.kernel.games import GAMES  # noqa: E402

GAME_MODULES = dict(GAMES)
WARM_FIRST_STEP_TARGET_S = 2.0
PER_CORE_TARGET = 10.0
THREAD_SCALING_TARGET = 1.7  # all threads vs 1 on quiet cores, N = 1024
AEC_TARGET = 2.0  # our AEC steps/s vs PettingZoo connect four's
# issue 48's goals: a cold AEC first step (empty cache, quiet 2-core machine) within 20 s for every
# game, and the cold batched first step within 20 s more than that
COLD_FIRST_STEP_TARGET_S = 20.0
COLD_BATCHED_MORE_TARGET_S = 20.0
ROLLOUT_TARGET = 300_000  # whole random games, decisions/s per core (issue 48: Cultivo at every count)
TAIL_TARGET_MS = 1.0  # the slowest single Cultivo decision in 100 random 4-player games
MCTS_TARGET_MS = 10.0  # every timed mcts:200 decision (issue 48)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Result rows
# --------------------------------------------------------------------------------------------
@dataclass
class Row:
    path: str
    game: str
    players: int | str
    steps: int = 0  # decisions (steps that carried an action) in the timed window
    seconds: float = 0.0
    notes: str = ""
    key: str = ""  # stable id used by the targets section / JSON
    threads: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    skipped: bool = False

    @property
    def rate(self) -> float | None:
        if self.skipped or self.seconds <= 0 or self.steps <= 0:
            return None
        return self.steps / self.seconds

    @property
    def us_per_step(self) -> float | None:
        r = self.rate
        return None if r is None else 1e6 / r

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["steps_per_s"] = self.rate
        d["us_per_step"] = self.us_per_step
        return d


def skipped_row(path: str, game: str, players: int | str, why: str, key: str = "") -> Row:
    return Row(path, game, players, notes=f"skipped: {why}", key=key, skipped=True)


def run_row(make, path: str, game: str, players: int | str, key: str) -> Row:
    """Run one measurement; a failure becomes a row saying so instead of ending the run."""
    log(f"  {path:<28} {game:<28} ...")
    try:
        row = make()
    except Exception as exc:  # noqa: BLE001 - a broken row must not hide the others
        traceback.print_exc(file=sys.stderr)
        return skipped_row(path, game, players, f"FAILED: {type(exc).__name__}: {exc}", key)
    row.path, row.game, row.players, row.key = path, game, players, key
    if row.rate is not None:
        log(f"  {'':<28} {'':<28} {row.rate:12,.0f} steps/s in {row.seconds:.1f} s; {row.notes}")
    return row


# --------------------------------------------------------------------------------------------
# Game availability (other games may be half-written while this runs)
# --------------------------------------------------------------------------------------------
def probe_game(name: str) -> tuple[bool, str]:
    """(available, reason) for one of our games: its package, AEC ``env`` and batched kernels."""
    mod_name = GAME_MODULES.get(name)
    if mod_name is None:
        return False, f"unknown game {name!r} (known: {', '.join(GAME_MODULES)})"
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as exc:
        return False, f"{mod_name} not importable ({type(exc).__name__}: {exc})"
    except Exception as exc:  # noqa: BLE001 - half-edited module
        return False, f"{mod_name} failed to import ({type(exc).__name__}: {exc})"
    missing = [a for a in ("env", "GAME") if not hasattr(mod, a)]
    if missing:
        return False, f"{mod_name} not importable yet (has no {', '.join(missing)})"
    try:
        from gamecore.kernel.batch_kernels import build

        build(mod.GAME.kernels)
    except Exception as exc:  # noqa: BLE001
        return False, f"{mod_name}: batched kernels cannot be built ({type(exc).__name__}: {exc})"
    return True, ""


# --------------------------------------------------------------------------------------------
# Timed windows: the budget of a row is split into equal windows and the best one is reported
# (the least disturbed by whatever else runs on the machine); all windows go to the JSON.
# --------------------------------------------------------------------------------------------
class Windows:
    def __init__(self, seconds: float, count: int) -> None:
        self.length = seconds / max(1, count)
        self.count = max(1, count)
        self.done: list[tuple[int, float, float]] = []  # (steps, seconds, aux seconds)
        self.steps = 0
        self.aux = 0.0

    def begin(self, now: float) -> None:
        self.start = now
        self.end = now + self.length
        self.steps = 0
        self.aux = 0.0

    def close(self, now: float) -> bool:
        """End the current window; True once all windows are done."""
        self.done.append((self.steps, now - self.start, self.aux))
        if len(self.done) >= self.count:
            return True
        self.begin(now)
        return False

    def best(self) -> tuple[int, float, float]:
        return max(self.done, key=lambda w: w[0] / w[1] if w[1] > 0 else 0.0)

    def total(self) -> tuple[int, float]:
        return sum(w[0] for w in self.done), sum(w[1] for w in self.done)

    def row(self, notes: str, threads: int | None, extra: dict[str, Any]) -> Row:
        steps, secs, _aux = self.best()
        tot_steps, tot_secs = self.total()
        if self.count > 1:
            notes = f"best of {self.count} windows (mean {tot_steps / tot_secs:,.0f}/s); " + notes
        extra = dict(
            extra,
            windows=[{"steps": s, "seconds": t, "aux_seconds": a} for s, t, a in self.done],
            mean_steps_per_s=tot_steps / tot_secs,
        )
        return Row("", "", 0, steps=steps, seconds=secs, notes=notes, threads=threads, extra=extra)


# --------------------------------------------------------------------------------------------
# AEC loop: the same code drives our envs and PettingZoo's
# --------------------------------------------------------------------------------------------
def aec_loop(env, w: Windows, seed: int = 0) -> dict[str, Any]:
    """The standard PettingZoo loop with a uniformly random legal action from ``action_mask``.

    Windows count decisions (steps with an action); ``total`` counts every env.step call
    (including the ``None`` steps of terminated agents). Resets at the end of each game; the
    timed windows include those resets.
    """
    rnd = random.Random(seed).random
    flatnonzero = np.flatnonzero
    perf = time.perf_counter
    total = games = 0
    env.reset(seed=seed)
    t0 = perf()
    w.begin(t0)
    done = False
    while not done:
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                legal = flatnonzero(obs["action_mask"])
                action = int(legal[int(rnd() * len(legal))])
                w.steps += 1
            env.step(action)
            total += 1
            now = perf()
            if now >= w.end and w.close(now):
                done = True
                break
        else:
            games += 1
            env.reset()
    return {"total": total, "games": games, "seconds": perf() - t0}


def aec_row(make_env, seconds: float, warmup: float, windows: int) -> Row:
    env = make_env()
    aec_loop(env, Windows(warmup, 1), seed=12345)  # loads / compiles kernels, warms caches
    w = Windows(seconds, windows)
    r = aec_loop(env, w, seed=0)
    env.close()
    total_rate = r["total"] / r["seconds"]
    notes = f"{r['games']} games done; all env.step calls incl. None: {total_rate:,.0f}/s (mean)"
    return w.row(notes, None, {"total_steps": r["total"], "games": r["games"], "total_steps_per_s": total_rate})


def floor_row(seconds: float, warmup: float, windows: int) -> Row:
    """The AEC loop on a game with no rules (benchmarks/noop_game.py): what the wrappers and the
    Python around the kernels cost per step."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import noop_game

    return aec_row(noop_game.env, seconds, warmup, windows)


class Busy:
    """A competing process spinning on one core while a row runs (``with Busy():``)."""

    def __enter__(self) -> Busy:
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.3)
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()


# --------------------------------------------------------------------------------------------
# Batched path
# --------------------------------------------------------------------------------------------
def set_threads(n: int) -> None:
    import numba

    numba.set_num_threads(n)


_STEADY: dict[tuple[str, int, int], Any] = {}


def steady_batch(game: str, players: int, num_envs: int):
    """A seeded batch of ``num_envs`` random games whose phases are spread as in a long run, built
    once per game, count and size and shared by that game's batched rows (each row then steps it on
    its own thread count). A batch fresh from ``reset`` times only openings: Cultivo's first few
    hundred decisions run ~2.5x faster than its later ones, and a thread count that gets further in
    the same seconds would be timed on slower positions. So slot ``i`` first plays ``k_i`` random
    decisions alone, ``k_i`` uniform below the mean game length (from 16 probe games), which
    staggers the slots over the whole game; the rows' windows then run on from there."""
    from gamecore.envs.batched import BatchedGames
    from gamecore.kernel.jit import compile_seconds

    key = (game, players, num_envs)
    if key not in _STEADY:
        import numba

        probe = BatchedGames(game, 16, seed=0, num_players=players, num_threads=numba.config.NUMBA_NUM_THREADS)
        mean_len = max(1, probe.random_rollout(1, seed=12345) // 16)
        b = BatchedGames(game, num_envs, seed=0, num_players=players,
                         num_threads=max(1, min(numba.config.NUMBA_NUM_THREADS, num_envs // 64)))
        b.reset()
        offsets = np.random.default_rng(0).integers(0, mean_len, num_envs)
        t0, c0 = time.perf_counter(), compile_seconds()
        for c in range(int(offsets.max())):
            b.step(b.random_actions(), active=offsets > c)
        # the probe's thread count may differ from this batch's: a copy compiled here is left out
        log(f"  {game} {players}p: batch of {num_envs} staggered over a mean game of {mean_len} decisions "
            f"in {time.perf_counter() - t0 - (compile_seconds() - c0):.1f} s")
        _STEADY[key] = b
    return _STEADY[key]


def batched_step_row(
    game: str, players: int, num_envs: int, threads: int, seconds: float, warmup: float, windows: int
) -> Row:
    from gamecore.envs.batched import ThreadChooser

    b = steady_batch(game, players, num_envs)
    b.threads = ThreadChooser(threads, num_envs)  # this row's thread count (or "auto")
    pick = b.random_actions  # one jitted pass over the masks, from the batch's seeded generators
    perf = time.perf_counter
    # warm-up: kernels loaded, thread pool running, numpy temporaries sized
    t_end = perf() + warmup
    n = 0
    while n < 3 or perf() < t_end:
        b.step(pick())
        n += 1
    # no reset here: games keep their staggered phases (steady_batch)
    w = Windows(seconds, windows)
    finished = calls = 0
    w.begin(perf())
    while True:
        a = pick()
        t1 = perf()
        _obs, _rew, dones, _masks = b.step(a)
        t2 = perf()
        w.aux += t2 - t1
        w.steps += num_envs
        finished += int(dones.sum())
        calls += 1
        if t2 >= w.end and w.close(t2):
            break
    steps, secs, in_step = w.best()
    excl = steps / in_step
    sel_us = (secs - in_step) / steps * 1e6
    notes = (
        f"N={num_envs}, incl. action pick (random_actions); step() alone {excl:,.0f}/s "
        f"({1e6 / excl:.2f} µs); pick {sel_us:.2f} µs/decision; {finished} games done"
    )
    if threads == "auto":
        notes += f"; auto chose {b.num_threads} thread(s) at the end"
    elif threads > 1:
        notes += f"; per thread {steps / secs / threads:,.0f}/s"
    return w.row(
        notes,
        threads,
        {
            "num_envs": num_envs,
            "step_only_per_s": excl,
            "pick_us_per_decision": sel_us,
            "batch_calls": calls,
            "games": finished,
        },
    )


def rollout_row(
    game: str, players: int, num_envs: int, threads: int, seconds: float, games_per_env: int, windows: int
) -> Row:
    """Whole random games in one jitted call per window step. One call plays ``num_envs x
    games_per_env`` games, so the batch is cut (to a power of two) where one call would outlast a
    window (Cultivo's 1,024 whole games take tens of seconds): every row stays inside its budget."""
    from gamecore.envs.batched import BatchedGames

    perf = time.perf_counter
    probe = BatchedGames(game, 8, seed=0, num_players=players, num_threads=threads)
    probe.random_rollout(1, seed=999)  # compile / load
    t0 = perf()
    probe.random_rollout(1, seed=998)
    per_game = (perf() - t0) / 8
    w = Windows(seconds, windows)
    wanted = num_envs
    while num_envs > 8 and per_game * num_envs * games_per_env > w.length:
        num_envs //= 2
    b = BatchedGames(game, num_envs, seed=0, num_players=players, num_threads=threads)
    calls = 0
    w.begin(perf())
    while True:
        w.steps += b.random_rollout(games_per_env, seed=1_000_003 * calls)
        calls += 1
        now = perf()
        if now >= w.end and w.close(now):
            break
    games = calls * num_envs * games_per_env
    tot_steps, _ = w.total()
    steps, secs, _ = w.best()
    cut = f" (cut from {wanted} to fit a {w.length:.2g} s window)" if num_envs < wanted else ""
    notes = (
        f"N={num_envs}{cut} x {games_per_env} game(s) per call, {calls} call(s); "
        f"{tot_steps / games:.1f} decisions/game; no observations written"
    )
    if threads > 1:
        notes += f"; per thread {steps / secs / threads:,.0f}/s"
    return w.row(notes, threads, {"num_envs": num_envs, "num_envs_asked": wanted, "games": games, "calls": calls})


# --------------------------------------------------------------------------------------------
# OpenSpiel
# --------------------------------------------------------------------------------------------
def openspiel_loop(game_name: str, w: Windows, with_obs: bool, seed: int = 0) -> dict[str, Any]:
    """OpenSpiel driven the cheap way: one reusable observation buffer (``set_from`` writes into
    a numpy view), legal mask written into a preallocated int8 array from ``legal_actions()``."""
    import pyspiel

    try:
        from open_spiel.python.observation import make_observation
    except ImportError:  # pragma: no cover - bare pyspiel wheel
        make_observation = None

    game = pyspiel.load_game(game_name)
    mask = np.zeros(game.num_distinct_actions(), dtype=np.int8)
    obs = None
    if with_obs:
        if make_observation is not None:
            obs = make_observation(game)
        else:  # same thing by hand

            class _Obs:
                def __init__(self) -> None:
                    self._o = pyspiel._Observation(game, game.make_observer({}))
                    self.tensor = np.frombuffer(self._o, np.float32)

                def set_from(self, state, player) -> None:
                    self._o.set_from(state, player)

            obs = _Obs()
    rnd = random.Random(seed).random
    perf = time.perf_counter
    steps = games = 0
    tensor = None
    t0 = perf()
    w.begin(t0)
    done = False
    while not done:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [o for o, _p in state.chance_outcomes()]
                state.apply_action(outcomes[int(rnd() * len(outcomes))])
                continue
            if with_obs:
                obs.set_from(state, state.current_player())
                tensor = obs.tensor  # numpy view of the buffer: what a learner would read
                legal = state.legal_actions()
                mask.fill(0)
                mask[legal] = 1
            else:
                legal = state.legal_actions()
            state.apply_action(legal[int(rnd() * len(legal))])
            steps += 1
            w.steps += 1
            now = perf()
            if now >= w.end and w.close(now):
                done = True
                break
        else:
            games += 1
    return {
        "steps": steps,
        "games": games,
        "seconds": perf() - t0,
        "obs_size": None if tensor is None else int(tensor.size),
    }


def openspiel_row(game_name: str, seconds: float, with_obs: bool, warmup: float, windows: int) -> Row:
    openspiel_loop(game_name, Windows(warmup, 1), with_obs, seed=12345)
    w = Windows(seconds, windows)
    r = openspiel_loop(game_name, w, with_obs, seed=0)
    per_game = r["steps"] / r["games"] if r["games"] else float("nan")
    if with_obs:
        notes = (
            f"obs tensor ({r['obs_size']} float32, reused buffer) + int8 mask from "
            f"legal_actions(); {r['games']} games, {per_game:.0f} plies/game; 1 thread"
        )
    else:
        notes = f"legal_actions() + apply_action only; {r['games']} games; 1 thread"
    return w.row(notes, 1, {"games": r["games"]})


# --------------------------------------------------------------------------------------------
# Time to first step (subprocesses)
# --------------------------------------------------------------------------------------------
# appended to every first-step script: did the kernels load from numba's cache or compile?
CACHE_STATS = """
from numba.core.registry import CPUDispatcher
seen = {{}}
for name, m in list(sys.modules.items()):
    if name.split(".")[0] in ("gamecore", "callisto_env", "calcada_env", "cultivo_env", "calimala_env"):
        for v in list(vars(m).values()):
            if isinstance(v, CPUDispatcher):
                seen[id(v)] = v
hits = sum(sum(v.stats.cache_hits.values()) for v in seen.values())
misses = sum(sum(v.stats.cache_misses.values()) for v in seen.values())
print(json.dumps({{"in_process_s": elapsed, "import_s": t_import, "cache_hits": hits, "cache_misses": misses}}))
"""

FIRST_STEP_SCRIPTS = {
    "aec": """
import time, json, sys
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import numpy as np, importlib
mod = importlib.import_module({module!r})
t_import = time.perf_counter() - t0
env = mod.env(num_players={players})
env.reset(seed=0)
obs, rew, term, trunc, info = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
elapsed = time.perf_counter() - t0
{stats}""",
    "batched": """
import time, json, sys
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import numpy as np
from gamecore.envs.batched import BatchedGames
t_import = time.perf_counter() - t0
b = BatchedGames({game!r}, 16, seed=0, num_players={players})
obs, masks = b.reset()
b.step(masks.argmax(axis=1))
elapsed = time.perf_counter() - t0
{stats}""",
    "rollout": """
import time, json, sys
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import numpy as np
from gamecore.envs.batched import BatchedGames
t_import = time.perf_counter() - t0
BatchedGames({game!r}, 16, seed=0, num_players={players}).random_rollout(1, seed=0)
elapsed = time.perf_counter() - t0
{stats}""",
}
FIRST_STEP_LABELS = {
    "aec": "AEC env: import, env(), reset, 1 step",
    "batched": "BatchedGames(16): reset + 1 step",
    "rollout": "BatchedGames(16).random_rollout(1)",
}


def run_script(code: str, cache_dir: str | None, timeout: float = 900.0) -> dict[str, Any]:
    env = dict(os.environ)
    if cache_dir is None:
        env.pop("NUMBA_CACHE_DIR", None)
    else:
        env["NUMBA_CACHE_DIR"] = cache_dir
    t0 = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=timeout
    )
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or ["?"]
        raise RuntimeError(f"subprocess exit {p.returncode}: {tail[0]}")
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["wall_s"] = wall
    return out


def player_counts(games: list[str], players: str) -> dict[str, list[int]]:
    """{game: the player counts its rows run}: every count the game supports for ``"all"``, else the
    listed counts it supports (Calimala seats 3-5, so ``"2,3"`` gives it 3 and Callisto 2 and 3)."""
    supported = {g: list(importlib.import_module(GAME_MODULES[g]).GAME.player_counts) if g in GAME_MODULES
                 else [2] for g in games}
    if players == "all":
        return supported
    fixed = [int(x) for x in players.split(",") if x.strip()]
    counts_of = {g: [p for p in fixed if p in supported[g]] for g in games}
    for g in games:
        if not counts_of[g]:
            log(f"{g}: none of --players {players} is a count it supports ({supported[g]}); no rows")
    return counts_of


def first_step_rows(game: str, players: int, cold: bool, repeats: int = 3) -> list[dict[str, Any]]:
    rows = []
    module = GAME_MODULES[game]
    for kind, template in FIRST_STEP_SCRIPTS.items():
        code = template.format(root=str(ROOT), module=module, game=game, players=players, stats=CACHE_STATS.format())
        entry: dict[str, Any] = {"game": game, "players": players, "kind": kind, "what": FIRST_STEP_LABELS[kind]}
        log(f"  first step: {game} {kind} ...")
        tmp = tempfile.mkdtemp(prefix="bench_numba_cache_") if cold else None
        try:
            if cold:
                entry["cold"] = run_script(code, tmp)
                entry["cache"] = "fresh NUMBA_CACHE_DIR, then same dir again"
            else:
                run_script(code, None)  # make sure the in-tree cache is populated
                entry["cache"] = "in-tree __pycache__ (cold run skipped)"
            # A warm run that still compiles means the sources changed under us (someone edited a
            # kernel file, invalidating the cache): it is discarded and the case run again.
            warm_runs: list[dict[str, Any]] = []
            recompiled: list[dict[str, Any]] = []
            while len(warm_runs) < repeats and len(recompiled) < 3:
                r = run_script(code, tmp)
                (recompiled if r.get("cache_misses") else warm_runs).append(r)
            if warm_runs:
                entry["warm"] = min(warm_runs, key=lambda r: r["wall_s"])
                entry["warm_runs"] = warm_runs
                if len(warm_runs) > 1:
                    entry["cache"] += f"; warm = best of {len(warm_runs)}"
            else:
                entry["warm"] = recompiled[-1]
                entry["cache"] += "; every warm run recompiled"
            if recompiled:
                entry["warm_recompiled"] = recompiled
                entry["cache"] += (
                    f"; {len(recompiled)} warm run(s) recompiled (sources changed during the run?) and were discarded"
                )
        except Exception as exc:  # noqa: BLE001
            entry["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        rows.append(entry)
    return rows


# --------------------------------------------------------------------------------------------
# Memory of a batch (subprocess, so ru_maxrss belongs to this measurement only)
# --------------------------------------------------------------------------------------------
MEMORY_SCRIPT = """
import gc, json, resource, sys, tracemalloc
sys.path.insert(0, {root!r})
import numpy as np
from gamecore.envs.batched import BatchedGames

def status(key):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None

def maxrss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

w = BatchedGames({game!r}, 4, seed=0, num_players={players})   # load kernels, start threads
m = w.reset()[1]
for _ in range(3):
    m = w.step(m.argmax(axis=1))[3]
del w, m
gc.collect()
# Peak RSS is a high-water mark, and loading the kernels (LLVM) peaks above what a batch adds:
# writing 5 to clear_refs resets the mm's peak (VmHWM) to the current RSS (Linux >= 4.0).
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    peak_reset = True
except OSError:
    peak_reset = False
ru0, rss0, hwm0 = maxrss(), status("VmRSS"), status("VmHWM")
tracemalloc.start()
b = BatchedGames({game!r}, {n}, seed=0, num_players={players})
obs, masks = b.reset()
for _ in range({steps}):
    obs, rewards, dones, masks = b.step(masks.argmax(axis=1))
cur, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
ru1, rss1, hwm1 = maxrss(), status("VmRSS"), status("VmHWM")
arrays = {{k: int(v.nbytes) for k, v in vars(b).items() if isinstance(v, np.ndarray)}}
ok = peak_reset and hwm1 is not None and rss0 is not None
print(json.dumps({{
    "num_envs": {n}, "steps": {steps}, "arrays": arrays, "array_bytes": sum(arrays.values()),
    "ru_maxrss_before": ru0, "ru_maxrss_after": ru1, "ru_maxrss_delta": ru1 - ru0,
    "vmrss_before": rss0, "vmrss_after": rss1,
    "vmrss_delta": None if rss0 is None or rss1 is None else rss1 - rss0,
    "peak_reset": peak_reset, "vmhwm_after": hwm1,
    "peak_rss_delta": (hwm1 - rss0) if ok else ru1 - ru0,
    "tracemalloc_peak": peak,
}}))
"""


def memory_measure(game: str, players: int, n: int = 1024, steps: int = 20) -> dict[str, Any]:
    code = MEMORY_SCRIPT.format(root=str(ROOT), game=game, players=players, n=n, steps=steps)
    return run_script(code, None)


# --------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------
def fmt_rate(x: float | None) -> str:
    return "—" if x is None else f"{x:,.0f}"


def fmt_us(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def fmt_bytes(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x / 2**20:.1f} MiB"


def table(headers: list[str], rows: list[list[str]], align: str) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells):
        out = []
        for c, w, a in zip(cells, widths, align, strict=True):
            out.append(c.rjust(w) if a == "r" else c.ljust(w))
        return "| " + " | ".join(out) + " |"

    sep = (
        "|"
        + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2)) for w, a in zip(widths, align, strict=True))
        + "|"
    )
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])


def find(rows: list[Row], key: str) -> Row | None:
    for r in rows:
        if r.key == key and r.rate is not None:
            return r
    return None


# --------------------------------------------------------------------------------------------
# Per-decision tail (one game at a time, from Python)
# --------------------------------------------------------------------------------------------
def _one_game(game: str, players: int):
    """``(spec, kernels, params, state, mask)`` of one game driven from Python: its GameSpec and
    kernel module, the option vector for ``players`` seats, an empty state and a mask buffer."""
    spec = importlib.import_module(GAME_MODULES[game]).GAME
    K = spec.kernels
    params = spec.make_params(players)
    return spec, K, params, np.zeros(K.STATE_LEN, dtype=np.int64), np.zeros(spec.num_actions(params), dtype=np.int8)


def timed_random_decisions(K, params, state, mask, games: int, seed: int, rng, keep_states: bool = False):
    """Play ``games`` uniformly random games (game g seeded ``seed * 1_000_003 + g``, actions drawn
    from ``rng``) one decision at a time from Python, yielding for each decision (ns in
    ``legal_mask`` plus ``apply``, the phase it was taken in, the action, a copy of the state before
    it or None): the loop of :func:`decision_tail` and ``replay_timing.py``. Kernels are loaded (or
    compiled) before the clock starts."""
    from gamecore.kernel.header import H_PHASE, H_TERMINAL

    K.init(state, params, 0)  # warm-up: load every kernel the loop calls
    K.apply(state, int(np.flatnonzero(mask)[0]) if K.legal_mask(state, mask) else 0)
    clock = time.perf_counter_ns
    for g in range(games):
        K.init(state, params, seed * 1_000_003 + g)
        while not state[H_TERMINAL]:
            before = state.copy() if keep_states else None
            ph = int(state[H_PHASE])
            t0 = clock()
            n = K.legal_mask(state, mask)
            t1 = clock()
            a = int(np.flatnonzero(mask)[int(rng.integers(n))])
            t2 = clock()
            K.apply(state, a)
            t3 = clock()
            yield t1 - t0 + t3 - t2, ph, a, before


def decision_tail(game: str = "cultivo", players: int = 4, games: int = 100, seed: int = 0) -> dict[str, Any]:
    """Time every decision of ``games`` uniformly random games, one game at a time: ``legal_mask``
    then ``apply`` (with its automatic steps) of the chosen action, each timed with
    ``time.perf_counter_ns``. Returns per decision kind (``GameSpec.phase_names``, the phase the
    decision was taken in) and over all decisions: the count, p50 / p99 / max in µs (mask + apply)
    and the total seconds, plus the share of the total taken by the slowest 1% of decisions.
    Kernels are loaded (or compiled) before the clock starts."""
    spec, K, params, state, mask = _one_game(game, players)
    rng = np.random.default_rng(seed)
    phases: list[int] = []
    times: list[int] = []
    for ns, ph, _a, _before in timed_random_decisions(K, params, state, mask, games, seed, rng):
        phases.append(ph)
        times.append(ns)
    ph_arr = np.asarray(phases)
    t_arr = np.asarray(times, dtype=np.float64) / 1e3  # µs

    def stats(x: np.ndarray) -> dict[str, float]:
        return {"n": int(x.size), "p50_us": float(np.percentile(x, 50)), "p99_us": float(np.percentile(x, 99)),
                "max_us": float(x.max()), "total_s": float(x.sum() / 1e6)}

    kinds = {}
    for ph in np.unique(ph_arr):
        name = spec.phase_names[ph] if 0 <= ph < len(spec.phase_names) else f"phase {ph}"
        kinds[name] = stats(t_arr[ph_arr == ph])
    srt = np.sort(t_arr)[::-1]
    top = srt[: max(1, srt.size // 100)]
    return {"game": game, "players": players, "games": games, "seed": seed, "kinds": kinds,
            "all": stats(t_arr), "slowest_1pct_share": float(top.sum() / srt.sum())}


def render_tail(tail: dict[str, Any]) -> str:
    rows = [[k, f"{v['n']:,}", f"{v['p50_us']:.1f}", f"{v['p99_us']:.1f}", f"{v['max_us'] / 1e3:.2f}",
             f"{v['total_s']:.2f}"] for k, v in [*tail["kinds"].items(), ("all", tail["all"])]]
    head = (f"## {tail['game'].capitalize()} per-decision tail ({tail['games']} random {tail['players']}-player games, "
            f"legal_mask + apply per decision from Python; the slowest 1% of decisions take "
            f"{100 * tail['slowest_1pct_share']:.0f}% of the time)")
    return head + "\n\n" + table(["decision kind", "decisions", "p50 µs", "p99 µs", "max ms", "total s"], rows,
                                  "lrrrrr")


# --------------------------------------------------------------------------------------------
# MCTS time per decision (the arena's `mcts:B` agent)
# --------------------------------------------------------------------------------------------
def mcts_timing(game: str, players: int, budget: int = 200, positions: int = 5, limit_s: float = 120.0,
                seed: int = 0) -> dict[str, Any]:
    """Wall time of one ``mcts:<budget>`` decision (``MCTSAgent.visits`` on one state, one search
    thread) at ``positions`` decisions spread over a seeded random game of ``players`` seats: the
    median and the slowest, in ms. The searches stop early once ``limit_s`` is spent (the count
    says how many ran). The first search is run untimed first, so compiling is not counted."""
    from gamecore.kernel.header import H_TERMINAL
    from gamecore.search.agents import MCTSAgent

    spec, K, params, state, mask = _one_game(game, players)
    rng = np.random.default_rng(seed)
    K.init(state, params, seed)
    states = []
    while not state[H_TERMINAL]:
        states.append(state.copy())
        n = K.legal_mask(state, mask)
        K.apply(state, int(np.flatnonzero(mask)[int(rng.integers(n))]))
    picks = [states[i] for i in np.linspace(0, len(states) - 1, positions + 2).round().astype(int)[1:-1]]
    agent = MCTSAgent(game, seed=seed, budget=budget)
    agent.visits(picks[0][None])  # load (or compile) the search kernel
    times = []
    t_start = time.perf_counter()
    for st in picks:
        t0 = time.perf_counter()
        agent.visits(st[None])
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - t_start > limit_s:
            break
    ms = np.asarray(times) * 1e3
    return {"game": game, "players": players, "budget": budget, "searched": len(times), "asked": positions,
            "median_ms": float(np.median(ms)), "max_ms": float(ms.max()), "decisions_in_game": len(states),
            "horizon": getattr(agent, "horizon", 0)}  # older trees' agents have none (to the end)


def render_mcts(results: list[dict[str, Any]]) -> str:
    rows = [[r["game"], str(r["players"]), str(r["budget"]), f"{r['searched']} of {r['asked']}",
             f"{r['median_ms']:,.1f}", f"{r['max_ms']:,.1f}", str(r.get("horizon", 0) or "to the end")]
            for r in results]
    head = ("## MCTS time per decision (the arena's `mcts:B`: one search of B simulations, one thread, "
            "positions spread over a seeded random game; rollouts: the game's horizon in random decisions)")
    return head + "\n\n" + table(["game", "players", "B", "positions", "median ms", "max ms", "rollouts"], rows,
                                  "lrrrrrr")


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--seconds", type=float, default=None, help="timed window per throughput row (default 3, or 1 with --quick)"
    )
    p.add_argument("--games", default=",".join(GAME_MODULES), help="comma list of our games (default: all)")
    p.add_argument("--players", default="all",
                   help="comma list of player counts, or 'all': every count each game supports (default)")
    p.add_argument("--no-busy", action="store_true", help="skip the rows measured beside a competing busy process")
    p.add_argument("--num-envs", type=int, default=1024, help="batch size of the batched rows")
    p.add_argument(
        "--windows",
        type=int,
        default=3,
        help="split each row's time into this many windows and report the best (default 3)",
    )
    p.add_argument("--games-per-env", type=int, default=1, help="games per slot in one random_rollout call (default 1)")
    p.add_argument("--quick", action="store_true", help="smoke run: ~1 s per row, warm start-up only (no cold compile)")
    p.add_argument("--cold", action="store_true", help="measure cold start-up even with --quick")
    p.add_argument(
        "--first-step-repeats",
        type=int,
        default=None,
        help="warm time-to-first-step runs per case, best reported (default 3, or 2 with --quick)",
    )
    p.add_argument("--no-first-step", action="store_true", help="skip the time-to-first-step table")
    p.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    p.add_argument("--no-peers", action="store_true", help="skip PettingZoo / OpenSpiel rows")
    p.add_argument("--mcts-budget", type=int, default=200, help="simulations of the timed MCTS decisions (default 200)")
    p.add_argument("--mcts-positions", type=int, default=5,
                   help="MCTS decisions timed per game, at the first player count (default 5; 0 skips the section)")
    p.add_argument("--tail-games", type=int, default=100,
                   help="random 4-player Cultivo games of the per-decision tail section (default 100; 0: skip)")
    p.add_argument("--json", metavar="PATH", help="also write all results as JSON to PATH")
    args = p.parse_args(argv)
    if args.seconds is None:
        args.seconds = 1.0 if args.quick else 3.0
    args.cold_first_step = args.cold or not args.quick
    if args.first_step_repeats is None:
        args.first_step_repeats = 2 if args.quick else 3
    args.first_step_repeats = max(1, args.first_step_repeats)
    args.warmup = 0.2 if args.quick else 0.5
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import numba

    games = [g.strip().lower() for g in args.games.split(",") if g.strip()]
    counts_of = player_counts(games, args.players)
    all_threads = int(numba.config.NUMBA_NUM_THREADS)
    thread_counts = [all_threads, 1] if all_threads > 1 else [1]
    seconds, warmup, nwin = args.seconds, args.warmup, args.windows

    meta: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "numba": numba.__version__,
        "numba_threads": all_threads,
        "numpy": np.__version__,
        "seconds_per_row": seconds,
        "windows_per_row": nwin,
        "num_envs": args.num_envs,
        "loadavg_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    for mod in ("pettingzoo", "pyspiel"):
        try:
            m = importlib.import_module(mod)
            meta[mod] = getattr(m, "__version__", "installed")
        except Exception:  # noqa: BLE001
            meta[mod] = None
    if meta["pyspiel"] is not None:
        try:
            from importlib.metadata import version

            meta["pyspiel"] = version("open_spiel")
        except Exception:  # noqa: BLE001
            pass

    available: dict[str, tuple[bool, str]] = {g: probe_game(g) for g in games}
    rows: list[Row] = []
    log(f"throughput rows: {seconds:g} s each, warm-up {warmup:g} s, numba threads {all_threads}")

    # ---- our games ----
    for g in games:
        ok, why = available[g]
        for p in counts_of[g]:
            if not ok:
                rows.append(skipped_row("aec / batched / rollout", g, p, why, key=f"{g}:{p}:aec"))
                continue
            mod = importlib.import_module(GAME_MODULES[g])
            rows.append(
                run_row(
                    lambda mod=mod, p=p: aec_row(lambda: mod.env(num_players=p), seconds, warmup, nwin),
                    "aec",
                    g,
                    p,
                    f"{g}:{p}:aec",
                )
            )
            for t in thread_counts:
                rows.append(
                    run_row(
                        lambda g=g, p=p, t=t: batched_step_row(g, p, args.num_envs, t, seconds, warmup, nwin),
                        f"batched step [{t} thr]",
                        g,
                        p,
                        f"{g}:{p}:batched:{t}",
                    )
                )
            for t in thread_counts:
                rows.append(
                    run_row(
                        lambda g=g, p=p, t=t: rollout_row(g, p, args.num_envs, t, seconds, args.games_per_env, nwin),
                        f"random_rollout [{t} thr]",
                        g,
                        p,
                        f"{g}:{p}:rollout:{t}",
                    )
                )
            if all_threads > 1 and not args.no_busy and p == counts_of[g][0]:
                for t in (1, all_threads, "auto"):
                    def busy_row(g=g, p=p, t=t):
                        with Busy():
                            return batched_step_row(g, p, args.num_envs, t, seconds, warmup, nwin)

                    rows.append(run_row(busy_row, f"batched step [{t} thr, busy]", g, p, f"{g}:{p}:batched_busy:{t}"))
            set_threads(all_threads)
            _STEADY.clear()

    rows.append(run_row(lambda: floor_row(seconds, warmup, nwin), "aec floor (no-op game)", "noop", 2, "floor"))

    # ---- peers ----
    if not args.no_peers:
        try:
            from pettingzoo.classic import chess_v6, connect_four_v3

            rows.append(
                run_row(
                    lambda: aec_row(connect_four_v3.env, seconds, warmup, nwin),
                    "pettingzoo aec",
                    "connect_four_v3",
                    2,
                    "pz:connect_four",
                )
            )
            rows.append(
                run_row(
                    lambda: aec_row(chess_v6.env, seconds, warmup, nwin), "pettingzoo aec", "chess_v6", 2, "pz:chess"
                )
            )
        except ImportError as exc:
            rows.append(
                skipped_row(
                    "pettingzoo aec",
                    "connect_four_v3 / chess_v6",
                    2,
                    f"pettingzoo[classic] not importable ({exc})",
                    "pz:connect_four",
                )
            )
        if meta["pyspiel"] is not None:
            rows.append(
                run_row(
                    lambda: openspiel_row("chess", seconds, True, warmup, nwin),
                    "openspiel (obs + mask)",
                    "chess",
                    2,
                    "os:chess:obs",
                )
            )
            rows.append(
                run_row(
                    lambda: openspiel_row("chess", seconds, False, warmup, nwin),
                    "openspiel (no obs)",
                    "chess",
                    2,
                    "os:chess:noobs",
                )
            )
            rows.append(
                run_row(
                    lambda: openspiel_row("connect_four", seconds, True, warmup, nwin),
                    "openspiel (obs + mask)",
                    "connect_four",
                    2,
                    "os:connect_four:obs",
                )
            )
        else:
            rows.append(skipped_row("openspiel", "chess", 2, "pyspiel not importable", "os:chess:obs"))

    # ---- time to first step ----
    first_steps: list[dict[str, Any]] = []
    if not args.no_first_step:
        log("time to first step (subprocesses)" + ("" if args.cold_first_step else ", warm only"))
        for g in games:
            ok, why = available[g]
            for p in counts_of[g][:1]:
                if ok:
                    first_steps.extend(first_step_rows(g, p, args.cold_first_step, args.first_step_repeats))
                else:
                    first_steps.append(
                        {"game": g, "players": p, "kind": "all", "what": "—", "error": f"skipped: {why}"}
                    )

    # ---- memory ----
    memory: list[dict[str, Any]] = []
    if not args.no_memory:
        for g in games:
            ok, why = available[g]
            p = counts_of[g][-1]
            if not ok:
                memory.append({"game": g, "players": p, "error": f"skipped: {why}"})
                continue
            log(f"  memory: {g} {p}p, 1024 games ...")
            try:
                m = memory_measure(g, p, n=1024)
                m.update(game=g, players=p)
            except Exception as exc:  # noqa: BLE001
                m = {"game": g, "players": p, "error": f"{type(exc).__name__}: {exc}"}
            memory.append(m)

    # ---- per-decision tail ----
    tail = None
    if "cultivo" in games and available["cultivo"][0] and args.tail_games > 0:
        log(f"  per-decision tail: cultivo 4p, {args.tail_games} games ...")
        try:
            tail = decision_tail("cultivo", 4, args.tail_games)
        except Exception as exc:  # noqa: BLE001  (a late section must not lose the rows measured before it)
            log(f"  per-decision tail FAILED: {type(exc).__name__}: {exc}")

    # ---- MCTS per decision ----
    mcts: list[dict[str, Any]] = []
    if args.mcts_positions > 0:
        set_threads(1)
        for g in games:
            if not available[g][0]:
                continue
            p = counts_of[g][0]
            log(f"  mcts:{args.mcts_budget}: {g} {p}p, {args.mcts_positions} positions ...")
            try:
                mcts.append(mcts_timing(g, p, args.mcts_budget, args.mcts_positions, limit_s=max(30.0, 20 * seconds)))
            except Exception as exc:  # noqa: BLE001
                log(f"  mcts:{args.mcts_budget}: {g} FAILED: {type(exc).__name__}: {exc}")
        set_threads(all_threads)

    meta["loadavg_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    report, targets = render(rows, first_steps, memory, meta, games, counts_of, all_threads)
    extra_targets = []
    if tail is not None:
        report += "\n\n" + render_tail(tail)
        slowest = tail["all"]["max_us"] / 1e3
        targets["cultivo:4:slowest_decision_ms"] = slowest
        extra_targets.append(f"7. Slowest single Cultivo decision in {tail['games']} random 4-player games: "
                             f"{slowest:.2f} ms, target <= {TAIL_TARGET_MS:g} ms: "
                             f"{'PASS' if slowest <= TAIL_TARGET_MS else 'FAIL'}")
    if mcts:
        report += "\n\n" + render_mcts(mcts)
        for r in mcts:
            targets[f"{r['game']}:{r['players']}:mcts{r['budget']}_median_ms"] = r["median_ms"]
            targets[f"{r['game']}:{r['players']}:mcts{r['budget']}_max_ms"] = r["max_ms"]
            extra_targets.append(
                f"8. mcts:{r['budget']} {r['game']} {r['players']}p: median {r['median_ms']:,.1f} ms, slowest "
                f"{r['max_ms']:,.1f} ms per decision ({r['searched']} positions), target <= {MCTS_TARGET_MS:g} ms: "
                f"{'PASS' if r['max_ms'] <= MCTS_TARGET_MS else 'FAIL'}")
    if extra_targets:
        report += "\n\n## Targets (continued)\n\n" + "\n".join(extra_targets)
    print(report)
    if args.json:
        out = {
            "meta": meta,
            "rows": [r.to_json() for r in rows],
            "first_step": first_steps,
            "memory": memory,
            "targets": targets,
            "decision_tail": tail,
            "mcts": mcts,
        }
        Path(args.json).write_text(json.dumps(out, indent=2, default=str) + "\n")
        log(f"wrote {args.json}")
    return 0


def render(rows, first_steps, memory, meta, games, counts_of, all_threads):
    out: list[str] = []
    la0, la1 = meta.get("loadavg_start"), meta.get("loadavg_end")
    out.append(
        f"## Throughput ({meta['seconds_per_row']:g} s per row; {meta['cpu_count']} CPUs, numba "
        f"{meta['numba']} with {all_threads} threads, Python {meta['python']}; "
        f"load avg {la0[0]:.2f} -> {la1[0]:.2f})"
        if la0 and la1
        else "## Throughput"
    )
    out.append("")
    out.append(
        "steps/s counts decisions (steps that carry an action); batched rows count one decision "
        f"per game per call; each row is the best of {meta['windows_per_row']} equal windows."
    )
    out.append("")
    out.append(
        table(
            ["path", "game", "players", "steps/s", "µs/step", "notes"],
            [[r.path, r.game, str(r.players), fmt_rate(r.rate), fmt_us(r.us_per_step), r.notes] for r in rows],
            "lllrrl",
        )
    )

    # time to first step
    if first_steps:
        out.append("")
        out.append(
            "## Time to first step (fresh subprocess, wall time incl. interpreter start; "
            "in-process time from before the first import in brackets)"
        )
        out.append("")
        fs_rows = []
        for e in first_steps:
            if "error" in e:
                fs_rows.append([e["game"], str(e["players"]), e["what"], "—", "—", e["error"]])
                continue

            def cell(x):
                return "—" if x is None else f"{x['wall_s']:.2f} s ({x['in_process_s']:.2f} s)"

            note = e["cache"]
            wm = e.get("warm") or {}
            if "cache_hits" in wm:
                note += f"; warm run: {wm['cache_hits']} kernel(s) from cache, {wm['cache_misses']} compiled"
            fs_rows.append([e["game"], str(e["players"]), e["what"], cell(e.get("cold")), cell(e.get("warm")), note])
        out.append(table(["game", "players", "what", "cold cache", "warm cache", "notes"], fs_rows, "lllrrl"))

    # memory
    if memory:
        out.append("")
        for m in memory:
            if "error" in m:
                out.append(f"Memory, {m['game']} {m['players']}p x 1024 games: {m['error']}")
                continue
            a = m["arrays"]
            parts = ", ".join(
                f"{k.lstrip('_')} {fmt_bytes(v)}" for k, v in sorted(a.items(), key=lambda kv: -kv[1]) if v >= 2**16
            )
            how = (
                "VmHWM reset via /proc/self/clear_refs"
                if m.get("peak_reset")
                else "ru_maxrss, not resettable here: lower bound"
            )
            out.append(
                f"Memory, {m['game']} {m['players']}p x {m['num_envs']} games: BatchedGames arrays "
                f"{fmt_bytes(m['array_bytes'])} ({parts}); peak RSS delta over create + reset + "
                f"{m['steps']} steps {fmt_bytes(m['peak_rss_delta'])} ({how}); resident after "
                f"{fmt_bytes(m['vmrss_delta'])} more; tracemalloc peak {fmt_bytes(m['tracemalloc_peak'])}; "
                f"ru_maxrss delta {fmt_bytes(m['ru_maxrss_delta'])} (process peak "
                f"{fmt_bytes(m['ru_maxrss_after'])}, set by kernel loading / inherited from the "
                f"parent at exec)"
            )

    # targets
    targets: dict[str, Any] = {}
    out.append("")
    out.append("## Targets")
    out.append("")
    c4 = find(rows, "pz:connect_four")
    floor = find(rows, "floor")
    os_chess = find(rows, "os:chess:obs")
    for g in games:
        for p in counts_of[g]:
            aec = find(rows, f"{g}:{p}:aec")
            if not (aec and c4 and aec.rate):
                out.append(f"1. AEC {g} {p}p vs PettingZoo connect_four_v3: n/a (a row is missing)")
                continue
            ratio = aec.rate / c4.rate
            targets[f"{g}:{p}:aec_vs_pz_connect_four"] = ratio
            line = (f"1. AEC {g} {p}p {aec.us_per_step:.1f} µs/step vs connect_four_v3 {c4.us_per_step:.1f} "
                    f"µs/step: {ratio:.2f}x its steps/s, target >= {AEC_TARGET:g}x: "
                    f"{'PASS' if ratio >= AEC_TARGET else 'FAIL'}")
            if floor and floor.rate:
                targets[f"{g}:{p}:aec_over_floor_us"] = aec.us_per_step - floor.us_per_step
                line += (f" (wrapper floor {floor.us_per_step:.1f} µs/step; the rules and observation add "
                         f"{aec.us_per_step - floor.us_per_step:.1f} µs)")
            out.append(line)
    for g in games:
        for p in counts_of[g]:
            b1 = find(rows, f"{g}:{p}:batched:1")
            if not (b1 and os_chess and b1.rate):
                out.append(f"2. Batched {g} {p}p 1 thread vs OpenSpiel chess with observations: n/a")
                continue
            ratio = b1.rate / os_chess.rate
            targets[f"{g}:{p}:batched1_vs_openspiel_chess_obs"] = ratio
            line = (
                f"2. Batched {g} {p}p, 1 thread, step() with observations + masks incl. action pick: "
                f"{b1.rate:,.0f}/s vs OpenSpiel chess with observations {os_chess.rate:,.0f}/s: {ratio:.2f}x, "
                f"target >= {PER_CORE_TARGET:g}x: {'PASS' if ratio >= PER_CORE_TARGET else 'FAIL'}"
            )
            extra = []
            so = b1.extra.get("step_only_per_s")
            if so:
                extra.append(f"step() alone {so / os_chess.rate:.2f}x")
                targets[f"{g}:{p}:batched1_step_only_vs_openspiel_chess_obs"] = so / os_chess.rate
            r1 = find(rows, f"{g}:{p}:rollout:1")
            if r1 and r1.rate:
                extra.append(f"random_rollout (no obs) {r1.rate / os_chess.rate:.2f}x")
                targets[f"{g}:{p}:rollout1_vs_openspiel_chess_obs"] = r1.rate / os_chess.rate
            if extra:
                line += f" [{'; '.join(extra)}]"
            out.append(line)
    for g in games:
        p = counts_of[g][0]
        b1, bn = find(rows, f"{g}:{p}:batched:1"), find(rows, f"{g}:{p}:batched:{all_threads}")
        if all_threads > 1 and b1 and bn and b1.rate and bn.rate:
            ratio = bn.rate / b1.rate
            targets[f"{g}:{p}:thread_scaling"] = ratio
            line = (f"3. Threads {g} {p}p: {all_threads} threads {bn.rate:,.0f}/s vs 1 thread {b1.rate:,.0f}/s: "
                    f"{ratio:.2f}x, target >= {THREAD_SCALING_TARGET:g}x on quiet cores: "
                    f"{'PASS' if ratio >= THREAD_SCALING_TARGET else 'FAIL'}")
            busy = {t: find(rows, f"{g}:{p}:batched_busy:{t}") for t in (1, all_threads, "auto")}
            if all(r and r.rate for r in busy.values()):
                auto_vs_1 = busy["auto"].rate / busy[1].rate
                targets[f"{g}:{p}:busy_auto_vs_1"] = auto_vs_1
                line += (f"; beside a busy process: 1 thread {busy[1].rate:,.0f}/s, {all_threads} threads "
                         f"{busy[all_threads].rate:,.0f}/s, auto {busy['auto'].rate:,.0f}/s "
                         f"(auto {auto_vs_1:.2f}x one thread; the default is one thread)")
            out.append(line)
    for g in games:
        got = [
            e
            for e in first_steps
            if e["game"] == g and e.get("kind") in ("aec", "batched") and "warm" in e
        ]
        if not got:
            out.append(f"4. Warm first step {g}: n/a (not measured or skipped)")
            continue
        for e in got:
            w = e["warm"]["wall_s"]
            ok = w <= WARM_FIRST_STEP_TARGET_S
            targets[f"{g}:warm_first_step:{e['kind']}"] = w
            out.append(
                f"4. Warm first step {g} {e['kind']} ({e['what']}): {w:.2f} s wall "
                f"(target <= {WARM_FIRST_STEP_TARGET_S:g} s): {'PASS' if ok else 'FAIL'}"
            )
    for g in games:
        cold = {e["kind"]: e["cold"]["wall_s"] for e in first_steps
                if e["game"] == g and e.get("kind") in ("aec", "batched") and "cold" in e}
        if not cold:
            out.append(f"5. Cold first step {g}: n/a (not measured: --quick without --cold, or skipped)")
            continue
        total = sum(cold.values())
        targets[f"{g}:cold_first_step_total"] = total
        parts = ", ".join(f"{k} {v:.1f} s" for k, v in cold.items())
        aec, batched = cold.get("aec"), cold.get("batched")
        ok = aec is not None and aec <= COLD_FIRST_STEP_TARGET_S and (
            batched is None or batched <= aec + COLD_BATCHED_MORE_TARGET_S)
        out.append(f"5. Cold first step {g} (empty cache, {parts}, each in a fresh process): target AEC <= "
                   f"{COLD_FIRST_STEP_TARGET_S:g} s and batched <= {COLD_BATCHED_MORE_TARGET_S:g} s more than AEC: "
                   f"{'PASS' if ok else 'FAIL'}")
    for g in games:
        for p in counts_of[g]:
            r1 = find(rows, f"{g}:{p}:rollout:1")
            if not r1:
                continue
            targets[f"{g}:{p}:rollout1_per_s"] = r1.rate
            verdict = "PASS" if r1.rate >= ROLLOUT_TARGET else "FAIL"
            if g != "cultivo":
                verdict = f"{verdict} (the issue sets it for Cultivo)"
            out.append(f"6. random_rollout {g} {p}p, 1 thread: {r1.rate:,.0f} decisions/s, "
                       f"target >= {ROLLOUT_TARGET:,} per core: {verdict}")
    return "\n".join(out), targets


if __name__ == "__main__":
    sys.exit(main())
