"""The benchmark script's own logic (no timings are asserted: the machines are noisy)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_bench():
    spec = importlib.util.spec_from_file_location("bench", ROOT / "benchmarks" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_players_default_to_every_count_and_quick_means_short_rows():
    bench = load_bench()
    args = bench.parse_args([])
    assert args.players == "all" and args.seconds == 3.0 and args.cold_first_step
    quick = bench.parse_args(["--quick"])
    assert quick.seconds == 1.0 and not quick.cold_first_step
    readme = (ROOT / "benchmarks" / "README.md").read_text()
    assert "(default `all`: every count each game supports)" in readme


def test_a_rollout_row_cuts_its_batch_where_one_call_would_outlast_the_window():
    """One random_rollout call plays N whole games; with a window far shorter than 1,024 Cultivo
    games, the row plays fewer games per call and says so."""
    bench = load_bench()
    row = bench.rollout_row("cultivo", 4, 1024, 1, 0.002, 1, 1)
    assert row.extra["num_envs_asked"] == 1024 and row.extra["num_envs"] < 1024
    assert f"N={row.extra['num_envs']} (cut from 1024 to fit" in row.notes
    assert row.steps > 0


def test_the_batched_rows_time_a_batch_spread_over_whole_games():
    """The batched rows start from slots staggered over the game, not from the openings of a fresh
    batch; every row of a game and count shares that batch."""
    from gamecore.envs.batched import BatchedGames

    bench = load_bench()
    b = bench.steady_batch("callisto", 2, 64)
    assert bench.steady_batch("callisto", 2, 64) is b
    fresh = BatchedGames("callisto", 64, seed=0, num_players=2)
    fresh.reset()
    moved = (b.states != fresh.states).any(axis=1)
    assert moved.mean() > 0.5
    assert len({row.tobytes() for row in b.states[moved]}) == moved.sum()
    bench._STEADY.clear()


def test_every_row_is_printed_as_it_finishes(capsys):
    bench = load_bench()
    assert bench.main(["--quick", "--games", "calcada", "--players", "2", "--seconds", "0.05", "--windows", "1",
                       "--no-first-step", "--no-memory", "--no-peers", "--no-busy"]) == 0
    captured = capsys.readouterr()
    finished = [ln for ln in captured.err.splitlines() if "steps/s in " in ln]
    # aec, batched step and random_rollout at each thread count, and the no-op floor
    import numba

    threads = 2 if numba.config.NUMBA_NUM_THREADS > 1 else 1
    assert len(finished) == 1 + 2 * threads + 1, captured.err
    assert "| aec " in captured.out and "random_rollout" in captured.out


def test_the_mcts_section_times_the_searches_it_says_and_reports_them_against_the_target():
    bench = load_bench()
    r = bench.mcts_timing("calcada", 2, budget=4, positions=3, limit_s=60.0)
    assert (r["game"], r["players"], r["budget"], r["asked"], r["searched"]) == ("calcada", 2, 4, 3, 3)
    assert 0 < r["median_ms"] <= r["max_ms"] and r["decisions_in_game"] > 3
    text = bench.render_mcts([r])
    row = [c.strip() for c in text.splitlines()[-1].strip("|").split("|")]
    assert row[:4] == ["calcada", "2", "4", "3 of 3"] and float(row[5]) == round(r["max_ms"], 1)
    assert row[6] == "to the end"  # Calçada's rollouts have no horizon; Cultivo's stop after 8 decisions
    assert bench.render_mcts([{**r, "game": "cultivo", "horizon": 8}]).splitlines()[-1].rstrip(" |").endswith("8")
    # a limit already spent stops after one search, and the count says so
    short = bench.mcts_timing("calcada", 2, budget=4, positions=3, limit_s=0.0)
    assert short["searched"] == 1 and "1 of 3" in bench.render_mcts([short])


def test_the_kernel_profiler_names_numba_functions_for_perf(tmp_path):
    """benchmarks/profile_kernels.py: numba's mangled names become dotted ones, and the perf map
    lists a kernel compiled in this process (here one compiled fresh: a cached one has no LLVM
    module to name), one line of hex address, hex size and name each."""
    spec = importlib.util.spec_from_file_location("profile_kernels", ROOT / "benchmarks" / "profile_kernels.py")
    prof = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prof)
    mangled = "_ZN11cultivo_env5rules7payment12pay_feasibleB3v58B40c8tJTIeFIjxB2IKSgI4CrvQClQZ6FcpE5ArrayIxLi1E1C"
    assert prof.short_name(mangled) == "cultivo_env.rules.payment.pay_feasible"
    assert prof.short_name("NRT_incref") == "NRT_incref"
    import types

    import numba
    import numpy as np

    module = types.ModuleType("gamecore._profile_probe")  # a module of the project's packages
    exec("def probe(a):\n    return a.sum() + 1\n", module.__dict__)  # noqa: S102 - its __module__ is the probe's
    module.probe = numba.njit(cache=False)(module.probe)
    module.probe(np.ones(3))
    sys.modules[module.__name__] = module
    try:
        out = tmp_path / "perf.map"
        assert prof.write_perf_map(str(out)) >= 1
    finally:
        del sys.modules[module.__name__]
    lines = out.read_text().splitlines()
    assert any(line.split()[2].startswith("gamecore._profile_probe.") for line in lines)
    assert all(int(line.split()[0], 16) > 0 and int(line.split()[1], 16) > 0 for line in lines)


def test_listed_player_counts_keep_only_those_each_game_supports():
    """``--players 2,3`` once asked Calimala (3-5 seats) for a 2-player game: its rows were errors."""
    bench = load_bench()
    counts = bench.player_counts(["calimala", "callisto", "cultivo"], "2,3")
    assert counts == {"calimala": [3], "callisto": [2, 3], "cultivo": [2, 3]}
    assert bench.player_counts(["calimala"], "2") == {"calimala": []}
    assert bench.player_counts(["calimala"], "all") == {"calimala": [3, 4, 5]}


def test_the_compile_breakdown_charges_each_kernel_its_own_time_only():
    """benchmarks/compile_breakdown.py: a kernel's own compile time is its compile less the nested
    compiles it started (numba raises nested ``numba:compile`` events); a second signature adds to
    the same kernel; unbalanced events are refused."""
    spec = importlib.util.spec_from_file_location("compile_breakdown", ROOT / "benchmarks" / "compile_breakdown.py")
    cb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cb)
    events = [(0.0, True, "mask"), (1.0, True, "search"), (4.0, True, "pay"), (6.0, False, "pay"),
              (7.0, False, "search"), (7.5, True, "pay"), (8.0, False, "pay"), (10.0, False, "mask")]
    own = cb.exclusive_times(events)
    assert own == {"mask": (10.0 - 6.0 - 0.5, 1), "search": (6.0 - 2.0, 1), "pay": (2.5, 2)}
    assert sum(s for s, _ in own.values()) == 10.0  # the outermost compile's wall time, shared out
    with pytest.raises(ValueError, match="not nested"):
        cb.exclusive_times([(0.0, True, "a"), (1.0, False, "b")])
    with pytest.raises(ValueError, match="not closed"):
        cb.exclusive_times([(0.0, True, "a")])


def test_the_notice_timer_measures_every_path_the_compile_notice_quotes():
    """benchmarks/notice_seconds.py times exactly the paths a game can register compile figures for
    (``gamecore.kernel.games.COMPILE_PATHS``), and every game registered a figure for each of them."""
    from conftest import OUR_GAMES as GAMES
    from gamecore.kernel import jit
    from gamecore.kernel.games import COMPILE_PATHS, game_package

    spec = importlib.util.spec_from_file_location("notice_seconds", ROOT / "benchmarks" / "notice_seconds.py")
    ns = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ns)
    assert set(ns.CASES) == set(jit._PATH_TITLES) == set(COMPILE_PATHS)
    for name in GAMES:
        entry = game_package(name)
        for values in (entry.compile_seconds, entry.compile_kernels):
            assert set(values) == set(COMPILE_PATHS), name
            assert all(isinstance(v, int) and v > 0 for v in values.values()), name
        assert jit.compile_notice(entry.package, "aec", load=None).startswith(
            f"tabletop-rl-envs: compiling {entry.title} kernels, once: ~{entry.compile_seconds['aec']} s on an idle ")


def test_the_replay_digest_is_the_same_for_the_same_games_and_differs_for_others():
    """benchmarks/replay_digest.py: the check that a kernel change left masks and states alone is
    deterministic, and it tells different games apart (another seed, another count)."""
    spec = importlib.util.spec_from_file_location("replay_digest", ROOT / "benchmarks" / "replay_digest.py")
    rd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rd)
    first = rd.replay_digest("calcada", [2], games=2, seed=1)
    assert rd.replay_digest("calcada", [2], games=2, seed=1)[:2] == first[:2]
    assert first[1] > 20  # decisions of two whole games
    assert rd.replay_digest("calcada", [2], games=2, seed=2)[0] != first[0]
    assert rd.replay_digest("calcada", [3], games=2, seed=1)[0] != first[0]
    with pytest.raises(SystemExit):
        rd.main(["calimala", "--players", "2", "--games", "1"])  # Calimala seats 3-5: refused


def test_replay_timing_records_the_slowest_and_the_named_phases_and_replays_them(tmp_path):
    """benchmarks/replay_timing.py: a recorded file holds the slowest decisions plus every decision
    of the named phases, each a state and its legal action, and replays in this tree."""
    spec = importlib.util.spec_from_file_location("replay_timing", ROOT / "benchmarks" / "replay_timing.py")
    rt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rt)
    rec = rt.record("calcada", 2, games=2, slowest=5, phases=["declare"])
    from calcada_env.game import GAME

    declare = GAME.phase_names.index("declare")
    n_declare = int((rec["phases"] == declare).sum())
    assert n_declare >= 1 and len(rec["actions"]) >= n_declare and len(rec["actions"]) <= n_declare + 5
    path = tmp_path / "rec.npz"
    np.savez_compressed(path, **rec)
    with np.load(path) as f:
        again = {k: f[k] for k in f.files}
    res = rt.time_file(again, reps=2)
    assert res["per_decision_s"].shape == (len(rec["actions"]),) and np.isfinite(res["per_decision_s"]).all()
    assert sum(k["n"] for k in res["kinds"].values()) == len(rec["actions"])
    with pytest.raises(SystemExit):
        rt.record("calcada", 2, games=1, slowest=1, phases=["no such phase"])
    with pytest.raises(SystemExit):
        rt.record("calimala", 2, games=1, slowest=1, phases=[])  # Calimala seats 3-5


def test_the_write_floor_writes_the_bytes_a_step_writes_and_times_the_same_batch():
    """benchmarks/write_floor.py: the floor copies an observation and a mask per game, as many bytes
    as the batch's own arrays hold, and the rules and step rates are measured on bench.py's batch."""
    spec = importlib.util.spec_from_file_location("write_floor", ROOT / "benchmarks" / "write_floor.py")
    wf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wf)
    obs = np.zeros((4, 10), dtype=np.int8)
    masks = np.full((4, 6), 7, dtype=np.int8)
    wf.write_rows(obs, np.arange(10, dtype=np.int8), masks, 2)
    assert (obs == np.arange(10)).all() and (masks.sum(axis=1) == 1).all() and (masks[:, 2] == 1).all()
    from callisto_env.game import GAME

    r = wf.measure("callisto", 2, num_envs=16, seconds=0.03)
    params = GAME.make_params(num_players=2)
    assert r["obs_bytes"] == int(np.prod(GAME.obs_shape(params))) and r["mask_bytes"] == GAME.num_actions(params)
    assert r["floor"] > 0 and r["rules"] > 0 and r["step"] > 0
