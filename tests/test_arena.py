"""The arena: schedules, statistics, ratings, and the command line."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from gamecore.envs.batched import BatchedGames
from gamecore.tools import arena
from gamecore.tools.cli import main


def test_every_agent_meets_every_other_in_every_seat():
    assert arena.seat_schedule(3, 2) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    assert len(arena.seat_schedule(4, 4)) == 24
    few = arena.seat_schedule(2, 3)  # fewer agents than seats: every agent plays in every game
    assert len(few) == 6 and all(set(t) == {0, 1} for t in few)
    assert arena.seat_schedule(1, 3) == [(0, 0, 0)]
    with pytest.raises(ValueError):
        arena.seat_schedule(0, 2)


def test_games_given_one_stream_are_one_deal():
    games = BatchedGames("calcada", 4, num_players=2)
    games.reset(streams=np.array([5, 5, 6, 6]))
    s = games.states
    assert np.array_equal(s[0], s[1]) and np.array_equal(s[2], s[3]) and not np.array_equal(s[0], s[2])
    with pytest.raises(ValueError, match="streams"):
        games.reset(streams=np.array([1, 2]))


def test_intervals():
    lo, hi = arena.wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert arena.wilson(0, 10)[0] == 0.0 and arena.wilson(10, 10)[1] == pytest.approx(1.0)
    mean, half = arena.mean_ci([1.0, -1.0, 1.0, -1.0])
    assert mean == 0.0 and half == pytest.approx(1.96 * 2 / np.sqrt(3) / 2, rel=1e-3)


def test_a_small_arena_plays_whole_deals_and_ranks_greedy_above_random():
    run = arena.play("calcada", ["random", "greedy"], 2, games=7, seed=3, parallel=4)
    assert len(run.results) == 8  # rounded up to whole deals: 4 deals x 2 seatings
    by_deal: dict[int, set] = {}
    for r in run.results:
        by_deal.setdefault(r.deal, set()).add(r.seating)
        assert sum(r.rank_reward) == pytest.approx(0.0)
    assert by_deal == {d: {(0, 1), (1, 0)} for d in range(4)}
    summary = arena.summarize(run)
    rnd, greedy = summary["per_agent"]["random"], summary["per_agent"]["greedy"]
    assert rnd["seats_played"] == greedy["seats_played"] == 8
    assert rnd["win_rate"] + greedy["win_rate"] == pytest.approx(1.0)
    assert greedy["score"] > rnd["score"] and greedy["rank_reward"] > 0 > rnd["rank_reward"]
    assert greedy["rating"]["mu"] > 25 > rnd["rating"]["mu"]
    lo, hi = greedy["win_rate_ci95"]
    assert lo <= greedy["win_rate"] <= hi
    h2h = summary["head_to_head"]
    assert h2h[0][0] is None and h2h[1][0] == pytest.approx(greedy["win_rate"])  # two players: wins
    assert h2h[0][1] + h2h[1][0] == pytest.approx(1.0)
    table = arena.format_table(summary)
    assert table.splitlines()[4].startswith("| `greedy` |")  # best rating first
    assert "| `greedy` | – | " in table


def test_arena_command_prints_the_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "arena.json"
    main(["arena", "callisto", "--agents", "random", "greedy", "--games", "4", "--threads", "1",
          "--json", str(out)])
    text = capsys.readouterr().out
    assert "| `greedy` |" in text and "| `random` |" in text
    data = json.loads(out.read_text())
    assert data["games"] == 4 and data["agents"] == ["random", "greedy"]
    assert len(data["results"]) == 4 and set(data["per_agent"]) == {"random", "greedy"}
    with pytest.raises(SystemExit):
        main(["arena", "callisto", "--agents", "nonsense", "--games", "2"])


def test_tables_rewrites_the_readme_section_between_its_markers(tmp_path, capsys):
    from gamecore.tools.cli import BEGIN, END

    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nbefore\n\n{BEGIN}\nold tables\n{END}\n\nafter\n")
    main(["tables", "--games", "2", "--mcts", "4", "--only", "callisto", "--models", str(tmp_path), "--threads", "1",
          "--readme", str(readme)])
    text = readme.read_text()
    assert text.startswith("# Title\n\nbefore\n\n" + BEGIN) and text.endswith(END + "\n\nafter\n")
    assert "old tables" not in text
    assert "(`python -m gamecore tables --games 2 --mcts 4 --seed 0 --only callisto" in text
    assert "| `mcts:4` |" in text and "no trained model at" in text


def test_tables_for_some_games_keep_the_other_games_tables(tmp_path):
    from gamecore.tools.cli import BEGIN, END

    readme = tmp_path / "README.md"
    old = ("Produced by `python -m gamecore tables --games 200`.\n\ncalcada, 2 players: 200 games\n\n| calcada table |"
           "\n\ncallisto, 2 players: 200 games\n\n| old callisto table |")
    readme.write_text(f"{BEGIN}\n{old}\n{END}\n")
    main(["tables", "--games", "2", "--mcts", "4", "--only", "callisto", "--models", str(tmp_path), "--threads", "1",
          "--readme", str(readme)])
    text = readme.read_text()
    assert "| calcada table |\n\n(`python -m gamecore tables --games 200`)" in text
    assert "old callisto table" not in text and text.index("calcada, 2") < text.index("callisto, 2 players")
    assert text.count("(`python -m gamecore tables --games 2 --mcts 4 --seed 0 --only callisto") == 1


def test_tables_take_extra_agents_and_leave_a_baseline_spec_out_of_a_game_without_one(tmp_path, monkeypatch):
    import gamecore.search.agents as agents
    from gamecore.tools.cli import BEGIN, END

    game = "calcada"  # as if its package shipped no baseline
    shipped = agents.shipped_baseline
    monkeypatch.setattr(agents, "shipped_baseline", lambda g: None if g == game else shipped(g))
    readme = tmp_path / "README.md"
    readme.write_text(f"{BEGIN}\n{END}\n")
    main(["tables", "--games", "2", "--mcts", "--only", game, "--models", str(tmp_path), "--threads", "1",
          "--extra", "mcts:3", "baseline:sims=2", "--readme", str(readme)])
    text = readme.read_text()
    assert "| `mcts:3` |" in text and "baseline" not in text.split("(`python")[0]
    assert f"(`python -m gamecore tables --games 2 --mcts --seed 0 --extra mcts:3 baseline:sims=2 --only {game}" in text


def test_arena_progress_is_a_few_plain_lines_when_stderr_is_not_a_terminal(capsys):
    main(["arena", "calcada", "--agents", "random", "greedy", "--games", "20", "--parallel", "4", "--threads", "1"])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("arena calcada: ")]
    assert 1 <= len(lines) <= 10, err
    assert re.fullmatch(r"arena calcada: 20/20 games \(100%\), [0-9.]+ games/s", lines[-1]), lines
    assert "\r" not in err
    main(["arena", "calcada", "--agents", "random", "greedy", "--games", "2", "--threads", "1", "--no-progress"])
    assert "arena calcada" not in capsys.readouterr().err


def test_progress_draws_a_bar_on_a_terminal_and_plain_tenths_elsewhere():
    import io

    from gamecore.tools.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    pytest.importorskip("tqdm")
    tty = Terminal()
    bar = Progress(10, "game", stream=tty)
    bar(4, 40)  # the total is first known with the first report
    bar.close()
    assert "4/40" in tty.getvalue()
    log = io.StringIO()
    plain = Progress(100, "step", stream=log, label="p")
    for done in range(0, 101, 3):
        plain.update(done)
    plain.update(100)
    lines = log.getvalue().splitlines()
    assert [ln.split()[1] for ln in lines] == [f"{k}/100" for k in (12, 21, 30, 42, 51, 60, 72, 81, 90, 100)]


def test_the_arena_refuses_agents_that_share_a_name_and_bad_sizes():
    with pytest.raises(ValueError, match="distinct names"):
        arena.play("calcada", ["random", "random"], 2, games=2)
    assert arena.deals_side_by_side(2, 7, 4) == (4, 2)
    for bad in [(0, 2, 4), (2, 0, 4), (2, 2, 0), (2, 2.5, 4)]:
        with pytest.raises(ValueError):
            arena.deals_side_by_side(*bad)
    with pytest.raises(ValueError, match="seed"):  # a batch of 2 games takes streams seed and seed + 1
        arena.play("calcada", ["random", "greedy"], 2, games=2, seed=2**63 - 1)


def _first_call_slow(pause: float):
    """A random agent whose first decision takes ``pause`` seconds more, as a first call that
    compiles kernels (or loads a model) does."""
    import time

    from gamecore.search.agents import RandomAgent

    class SlowFirst(RandomAgent):
        spec = "slowfirst"
        calls = 0

        def act(self, obs, masks, states=None, seats=None):
            self.calls += 1
            if self.calls == 1:
                time.sleep(pause)
            return super().act(obs, masks, states, seats)

    return SlowFirst("callisto", seed=1)


def test_the_arena_times_agents_after_their_first_call():
    """A first decision that compiles (here: sleeps 2 s) is made before the clock starts: neither the
    agent's ms per decision nor the games' seconds contain it (both are milliseconds here)."""
    slow = _first_call_slow(2.0)
    run = arena.play("callisto", [slow, "random"], 2, games=2, seed=0)
    assert slow.calls > 1
    per = arena.summarize(run)["per_agent"]
    assert run.think_decisions[0] > 0
    assert per["slowfirst"]["ms_per_decision"] * run.think_decisions[0] < 1000.0, per["slowfirst"]
    assert run.seconds < 1.0


def test_the_arena_subtracts_compiling_inside_the_timed_games(monkeypatch):
    """A compile inside the timed part (a kernel first met mid-game) is left out of the agent that
    met it and of the games' seconds: numba's compile seconds (``gamecore.kernel.jit.compile_seconds``)
    are subtracted. Simulated: each decision of one agent sleeps 0.2 s and says it compiled for 0.2 s."""
    import time

    clock = {"compiled": 0.0}
    monkeypatch.setattr(arena, "compile_seconds", lambda: clock["compiled"])
    from gamecore.search.agents import RandomAgent

    class Compiling(RandomAgent):
        spec = "compiling"

        def act(self, obs, masks, states=None, seats=None):
            time.sleep(0.2)
            clock["compiled"] += 0.2
            return super().act(obs, masks, states, seats)

    run = arena.play("callisto", [Compiling("callisto", seed=1), "random"], 2, games=2, seed=0)
    decisions = run.think_decisions[0]
    assert decisions > 5  # else the sleeps would not add up to anything
    assert run.think_seconds[0] < 0.1 * decisions  # 0.2 s a decision before the subtraction
    assert run.seconds < 0.1 * decisions


def test_the_arena_warm_up_leaves_the_agents_random_state_alone():
    """The warm-up decision draws from a spare generator: the agents' own generators (the games
    they play) are where they were."""
    from gamecore.search.agents import make_agent

    agents = [make_agent(spec, "callisto", seed=7) for spec in ("random", "greedy", "mcts:4")]
    batch = BatchedGames("callisto", 2, seed=0, num_players=2)
    batch.reset()
    before = [a.rng.bit_generator.state for a in agents]
    arena.warm_up(agents, batch, BatchedGames("callisto", 1, seed=0, num_players=2))
    assert [a.rng.bit_generator.state for a in agents] == before
    assert arena.play("callisto", ["random", "greedy"], 2, games=2, seed=4).results == \
        arena.play("callisto", ["random", "greedy"], 2, games=2, seed=4).results
