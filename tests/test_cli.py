"""The command line refuses every bad argument as argparse does: the usage, one ``error:`` line
naming the argument, exit status 2, no traceback; and nothing is played or written first."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest

from gamecore.tools.cli import main

B = "x" * 100_000  # a huge value: the message must not echo it whole

# (id, command line with {tmp} / {good} / {dir} / {text} placeholders, what the error line names)
BAD = [
    # arena
    ("arena-unknown-option", "arena calcada --agents random --option foo=1", "--option: calcada has no option 'foo'"),
    ("arena-option-no-eq", "arena calcada --agents random --option board_side", "--option: takes key=value"),
    ("arena-option-seats", "arena calcada --agents random --option num_players=3", "--players"),
    ("arena-option-env-kwarg", "arena calcada --agents random --option illegal=lose", "--option"),
    ("arena-option-twice", "arena calcada --agents random --option board_side=A --option board_side=B",
     "board_side given twice"),
    ("arena-option-bad-value", "arena calcada --agents random --option board_side=Z", "--option: calcada: board_side"),
    ("arena-option-huge-key", f"arena calcada --agents random --option {B}=1", "--option"),
    ("arena-option-huge-value", f"arena calcada --agents random --option board_side={B}", "--option"),
    ("arena-json-directory", "arena calcada --agents random greedy --games 2 --json {dir}", "--json: "),
    ("arena-json-no-parent", "arena calcada --agents random greedy --games 2 --json {tmp}/no/x.json", "--json: "),
    ("arena-unknown-agent", "arena calcada --agents nonsense", "--agents: "),
    ("arena-agent-bad-budget", "arena calcada --agents mcts:0", "--agents: "),
    ("arena-agent-huge-budget", f"arena calcada --agents mcts:{'9' * 5000}", "--agents: "),
    ("arena-agent-no-model", "arena calcada --agents ppo:{tmp}/missing.zip", "--agents: "),
    ("arena-agent-not-a-model", "arena calcada --agents ppo:{text}", "--agents: "),
    ("arena-agents-twice", "arena calcada --agents random Random --games 2", "--agents: random given twice"),
    ("arena-agent-option-twice", "arena calcada --agents random mcts:20,c=1,c=2", "--agents: 'mcts:20,c=1,c=2': "
     "option c given twice"),
    ("arena-agent-absurd-samples", "arena calcada --agents random greedy:samples=100000000000000000",
     "samples must be at most 1,000"),
    ("arena-agent-absurd-sims", "arena calcada --agents random mcts:100000000", "budget must be at most 1,000,000"),
    ("arena-json-fifo", "arena calcada --agents random greedy --games 2 --json {fifo}", "--json: cannot write"),
    ("arena-players-0", "arena calcada --agents random --players 0", "--players: "),
    ("arena-players-99", "arena calcada --agents random --players 99", "--players: "),
    ("arena-games-0", "arena calcada --agents random --games 0", "--games: "),
    ("arena-games-negative", "arena calcada --agents random --games -5", "--games: "),
    ("arena-games-huge", f"arena calcada --agents random --games {10**30}", "--games: "),
    ("arena-seed-negative", "arena calcada --agents random --seed -1", "--seed: "),
    ("arena-seed-huge", f"arena calcada --agents random --seed {2**70}", "--seed: "),
    ("arena-seed-past-the-streams", f"arena calcada --agents random greedy --seed {2**63 - 1}", "--seed: "),
    ("arena-parallel-0", "arena calcada --agents random --parallel 0", "--parallel: "),
    ("arena-threads-negative", "arena calcada --agents random --threads -1", "--threads: "),
    ("arena-games-not-int", "arena calcada --agents random --games many", "--games"),
    ("arena-unknown-game", "arena chess --agents random", "invalid choice"),
    # record
    ("record-unknown-option", "record calcada --agents random --option foo=1 --out {tmp}/r.json", "--option: "),
    ("record-option-seats", "record calcada --agents random --option num_players=3 --out {tmp}/r.json", "--players"),
    ("record-out-directory", "record calcada --agents random --out {dir}", "--out: "),
    ("record-out-no-parent", "record calcada --agents random --out {tmp}/no/r.json", "--out: "),
    ("record-out-fifo", "record calcada --agents random --out {fifo}", "--out: cannot write"),
    ("record-agents-count", "record calcada --agents random greedy random --players 2 --out {tmp}/r.json",
     "--agents: "),
    ("record-agents-too-many-seats", "record calcada --agents random random random random random --out {tmp}/r.json",
     "--agents: "),
    ("record-players-0", "record calcada --agents random --players 0 --out {tmp}/r.json", "--players: "),
    ("record-seed-negative", "record calcada --agents random --seed -1 --out {tmp}/r.json", "--seed: "),
    ("record-unknown-agent", "record calcada --agents nonsense --out {tmp}/r.json", "--agents: "),
    # play
    ("play-unknown-option", "play calcada --vs random --option foo=1", "--option: "),
    ("play-option-seats", "play calcada --vs random --option num_players=3", "--players"),
    ("play-players-0", "play calcada --vs random --players 0", "--players: "),
    ("play-players-9", "play calcada --vs random --players 9", "--players: "),
    ("play-human-seat", "play calcada --vs random --human 5", "--human: "),
    ("play-human-word", "play calcada --vs random --human abc", "--human: "),
    ("play-human-negative", "play calcada --vs random --human -1", "--human: "),
    ("play-vs-count", "play calcada --vs random random random", "--vs: "),
    ("play-vs-unknown", "play calcada --vs nonsense", "seat 1 ('nonsense')"),
    ("play-hint-unknown", "play calcada --vs random --hint nonsense", "the hint agent"),
    ("play-seed-negative", "play calcada --vs random --seed -1", "--seed: "),
    ("play-load-directory", "play calcada --vs random --load {dir}", "--load: "),
    ("play-load-missing", "play calcada --vs random --load {tmp}/missing.json", "--load: "),
    ("play-load-not-json", "play calcada --vs random --load {text}", "--load: "),
    ("play-load-other-game", "play callisto --vs random --load {good}", "--load: "),
    ("play-load-illegal", "play calcada --vs random --load {tmp}/illegal.json", "--load: "),
    ("play-load-other-players", "play calcada --vs random --players 3 --load {good}", "--players: "),
    ("play-load-other-options", "play calcada --vs random --option board_side=B --load {good}", "--option: "),
    ("play-save-directory", "play calcada --vs random --save {dir}", "--save: "),
    ("play-save-no-parent", "play calcada --vs random --save {tmp}/no/g.json", "--save: "),
    # replay
    ("replay-directory", "replay {dir} --out {tmp}/x.gif", "record: "),
    ("replay-missing", "replay {tmp}/missing.json --out {tmp}/x.gif", "record: "),
    ("replay-binary", "replay {tmp}/binary.json --out {tmp}/x.gif", "not JSON"),
    ("replay-deep-json", "replay {tmp}/deep.json --out {tmp}/x.gif", "not JSON"),
    ("replay-a-list", "replay {tmp}/list.json --out {tmp}/x.gif", "not a game record"),
    ("replay-options-list", "replay {tmp}/options_list.json --out {tmp}/x.gif", "options"),
    ("replay-unknown-game", "replay {tmp}/unknown_game.json --out {tmp}/x.gif", "unknown game 'chess'"),
    ("replay-game-not-a-name", "replay {tmp}/game_int.json --out {tmp}/x.gif", "game is a name"),
    ("replay-actions-5", "replay {tmp}/actions_5.json --out {tmp}/x.gif", "actions"),
    ("replay-seed-text", "replay {tmp}/seed_text.json --out {tmp}/x.gif", "seed"),
    ("replay-seed-float", "replay {tmp}/seed_float.json --out {tmp}/x.gif", "seed"),
    ("replay-seed-5000-digits", "replay {tmp}/seed_5000.json --out {tmp}/x.gif", "seed_5000.json: not JSON"),
    ("replay-seed-4000-digits", "replay {tmp}/seed_4000.json --out {tmp}/x.gif", "seed_4000.json: not a game record: "
     "seed must be an int 0..2**63 - 1, got an int of 13,288 bits"),
    ("replay-seats-list", "replay {tmp}/seats_list.json --out {tmp}/x.gif", "seats"),
    ("replay-option-type", "replay {tmp}/players_text.json --out {tmp}/x.gif", "num_players"),
    ("replay-unknown-record-option", "replay {tmp}/option_unknown.json --out {tmp}/x.gif", "options"),
    ("replay-illegal-decision", "replay {tmp}/illegal.json --out {tmp}/x.gif", "decision 1"),
    ("replay-past-the-end", "replay {tmp}/too_long.json --out {tmp}/x.gif", "after the end of the game"),
    ("replay-out-suffix", "replay {good} --out {tmp}/x.txt", "--out: "),
    ("replay-out-directory", "replay {good} --out {tmp}/dir.gif", "--out: "),
    ("replay-out-no-parent", "replay {good} --out {tmp}/no/x.gif", "--out: "),
    ("replay-out-fifo", "replay {good} --out {fifo_gif}", "--out: cannot write"),
    ("replay-every-0", "replay {good} --out {tmp}/x.gif --every 0", "--every: "),
    ("replay-viewer-seat", "replay {good} --out {tmp}/x.gif --viewer 9", "--viewer: "),
    ("replay-viewer-word", "replay {good} --out {tmp}/x.gif --viewer foo", "--viewer: "),
    ("replay-ms-0", "replay {good} --out {tmp}/x.gif --ms 0", "--ms: "),
    ("replay-ms-huge", "replay {good} --out {tmp}/x.gif --ms 100000000", "--ms: "),
    ("replay-columns-0", "replay {good} --out {tmp}/x.png --columns 0", "--columns: "),
    ("replay-columns-negative", "replay {good} --out {tmp}/x.png --columns -2", "--columns: "),
    ("replay-scale-1e6", "replay {good} --out {tmp}/x.png --scale 1e6 --every 50", "--scale: "),
    ("replay-scale-0", "replay {good} --out {tmp}/x.png --scale 0", "--scale: "),
    ("replay-scale-nan", "replay {good} --out {tmp}/x.png --scale nan", "--scale: "),
    ("replay-scale-inf", "replay {good} --out {tmp}/x.png --scale inf", "--scale: "),
    # tables
    ("tables-games-0", "tables --games 0 --only calcada --mcts", "--games: "),
    ("tables-mcts-0", "tables --games 2 --only calcada --mcts 0", "--mcts: "),
    ("tables-mcts-twice", "tables --games 2 --only calcada --mcts 4 4", "--mcts: 4 given twice"),
    ("tables-only-twice", "tables --games 2 --only calcada calcada --mcts", "--only: calcada given twice"),
    ("tables-seed-negative", "tables --games 2 --only calcada --mcts --seed -1", "--seed: "),
    ("tables-extra-bad", "tables --games 2 --only calcada --mcts --extra mcts:x", "--extra: "),
    ("tables-extra-twice", "tables --games 2 --only calcada --mcts 4 --extra mcts:4", "--extra: mcts:4 is in every"),
    ("tables-threads-negative", "tables --games 2 --only calcada --mcts --threads -1", "--threads: "),
    ("tables-readme-missing", "tables --games 2 --only calcada --mcts --readme {tmp}/missing.md", "--readme: "),
    ("tables-readme-directory", "tables --games 2 --only calcada --mcts --readme {dir}", "--readme: "),
    ("tables-json-dir-a-file", "tables --games 2 --only calcada --mcts --json-dir {text}", "--json-dir: "),
    ("tables-json-dir-under-a-file", "tables --games 2 --only calcada --mcts --json-dir {text}/sub", "--json-dir: "),
    ("tables-json-file-a-fifo", "tables --games 2 --only calcada --mcts --json-dir {fifo_dir}", "--json-dir: cannot "
     "write"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A good record and broken ones, a directory and a text file."""
    tmp = tmp_path_factory.mktemp("cli")
    good = tmp / "good.json"
    main(["record", "calcada", "--agents", "random", "--seed", "1", "--out", str(good)])
    rec = json.loads(good.read_text())
    (tmp / "adir").mkdir()
    (tmp / "dir.gif").mkdir()
    (tmp / "notes.txt").write_text("hello\n")
    (tmp / "binary.json").write_bytes(b"\x89PNG\x00\xff")
    (tmp / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp / "list.json").write_text("[1, 2]")
    broken = {"options_list": {"options": [1, 2]}, "unknown_game": {"game": "chess"}, "game_int": {"game": 5},
              "actions_5": {"actions": 5}, "seed_text": {"seed": "abc"}, "seed_float": {"seed": 1.5},
              "seats_list": {"seats": [1]}, "players_text": {"options": {"num_players": "2"}},
              "option_unknown": {"options": {"num_players": 2, "foo": 1}}, "illegal": {"actions": ["nonsense"]},
              "too_long": {"actions": rec["actions"] + rec["actions"][:1]}}
    for name, change in broken.items():
        (tmp / f"{name}.json").write_text(json.dumps({**rec, **change}))
    for digits in (4000, 5000):  # json.dumps cannot write a 5,000-digit int
        (tmp / f"seed_{digits}.json").write_text(json.dumps({**rec, "seed": 0}).replace('"seed": 0', '"seed": '
                                                                                          + "9" * digits))
    os.mkfifo(tmp / "fifo.json")  # exists, but opening it to write would wait for a reader
    os.mkfifo(tmp / "fifo.gif")
    (tmp / "jsondir").mkdir()
    os.mkfifo(tmp / "jsondir" / "arena_calcada.json")
    return {"tmp": str(tmp), "good": str(good), "dir": str(tmp / "adir"), "text": str(tmp / "notes.txt"),
            "fifo": str(tmp / "fifo.json"), "fifo_gif": str(tmp / "fifo.gif"), "fifo_dir": str(tmp / "jsondir")}


def run_bad(argv: list[str], capsys) -> str:
    """Run a command line that must be refused; the error line (after the usage)."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    lines = captured.err.strip().splitlines()
    errors = [line for line in lines if "error:" in line]
    assert len(errors) == 1 and lines[-1] == errors[0], lines  # one line, after argparse's usage
    assert lines[0].startswith("usage: python -m gamecore")
    assert len(errors[0]) < 400  # no huge value echoed whole
    return errors[0]


@pytest.mark.parametrize("case,line,names", BAD, ids=[c[0] for c in BAD])
def test_a_bad_argument_is_one_error_line_and_exit_status_2(case, line, names, files, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    argv = [part.format(**files) for part in line.split()]
    error = run_bad(argv, capsys)
    assert error.startswith(f"python -m gamecore {argv[0]}: error: ")
    assert names in error, error
    written = [n for n in ("r.json", "g.json", "x.gif", "x.png", "x.txt") if os.path.exists(f"{files['tmp']}/{n}")]
    assert not written  # refused before anything was played or written


@pytest.mark.parametrize("command", ["arena", "record", "play"])
@pytest.mark.parametrize("error", [ValueError, TypeError])
def test_an_agent_its_constructor_refuses_is_a_bad_argument(command, error, monkeypatch, tmp_path, capsys):
    """What agent construction raises for a bad spec (``mcts:10,c=nan``) ends in exit status 2."""
    import gamecore.search.agents
    import gamecore.tools.arena
    import gamecore.tools.play

    real = gamecore.search.agents.make_agent

    def refuse(spec, game, seed=None):
        if spec.startswith("mcts"):
            raise error("mcts: c must be a finite number >= 0, got nan")
        return real(spec, game, seed=seed)

    monkeypatch.setattr(gamecore.search.agents, "make_agent", refuse)
    monkeypatch.setattr(gamecore.tools.play, "make_agent", refuse)
    monkeypatch.setattr(gamecore.tools.arena, "make_agent", refuse)  # no search ever runs with c=nan here
    argv = {"arena": ["arena", "calcada", "--agents", "random", "mcts:10,c=nan", "--games", "2"],
            "record": ["record", "calcada", "--agents", "mcts:10,c=nan", "--out", str(tmp_path / "r.json")],
            "play": ["play", "calcada", "--vs", "mcts:10,c=nan"]}[command]
    error_line = run_bad(argv, capsys)
    assert "c must be a finite number" in error_line and "mcts:10,c=nan" in error_line
    assert not (tmp_path / "r.json").exists()


# ---- issue 46: outputs checked before any game, an agent failing mid-game ------------------------------------
def _no_games(monkeypatch):
    """Make every way of playing a game fail the test."""
    import gamecore.tools.arena
    import gamecore.tools.replay

    def played(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(gamecore.tools.arena, "play", played)
    monkeypatch.setattr(gamecore.tools.replay, "make_env", played)
    monkeypatch.setattr(gamecore.tools.replay, "frames", played)


def _unwritable_dir() -> str:
    """A directory that takes no new file, even for root (Linux's /proc); skip where there is none."""
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(dir="/proc")
    except OSError:
        return "/proc"
    os.close(fd)
    os.unlink(probe)
    pytest.skip("no directory refuses a new file here")


@pytest.mark.parametrize("command", ["arena", "record", "replay", "tables-json-dir", "tables-readme"])
def test_an_unwritable_output_is_refused_before_any_game_is_played(command, files, monkeypatch, capsys, tmp_path):
    """Before: a directory that takes no file was found only when the results were written, after the run."""
    import time

    _no_games(monkeypatch)
    bad = _unwritable_dir()
    readme = tmp_path / "README.md"
    readme.write_text("# x\n")
    os.chmod(readme, 0o444)
    if command == "tables-readme" and os.access(readme, os.W_OK):
        pytest.skip("running as root: a read-only file is writable")
    argv = {"arena": ["arena", "calcada", "--agents", "random", "greedy", "--games", "2", "--json", f"{bad}/a.json"],
            "record": ["record", "calcada", "--agents", "random", "--out", f"{bad}/r.json"],
            "replay": ["replay", files["good"], "--out", f"{bad}/x.gif"],
            "tables-json-dir": ["tables", "--games", "2", "--only", "calcada", "--mcts", "--json-dir", bad],
            "tables-readme": ["tables", "--games", "2", "--only", "calcada", "--mcts", "--readme", str(readme)],
            }[command]
    t0 = time.perf_counter()
    error = run_bad(argv, capsys)
    assert time.perf_counter() - t0 < 5
    assert "cannot write" in error



@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_device_as_output_is_refused_before_any_game_is_played(monkeypatch, capsys):
    """Before: ``--json /dev/full`` passed the check (it opens for writing) and the run failed at its
    end with "[Errno 28] No space left on device", naming neither the flag nor the file. /dev/null
    (results discarded on purpose) is still taken."""
    from pathlib import Path

    from gamecore.tools.cli import _output

    _no_games(monkeypatch)
    for argv, flag in ((["arena", "calcada", "--agents", "random", "greedy", "--games", "2", "--json", "/dev/full"],
                        "--json"),
                       (["record", "calcada", "--agents", "random", "--out", "/dev/full"], "--out")):
        assert f"{flag}: cannot write /dev/full: a device, not a file" in run_bad(argv, capsys)
    assert _output(Path(os.devnull), "--json") == Path(os.devnull)


class _Flaky:
    """An agent that plays the first legal decision ``after`` times, then raises."""

    needs_state = False

    def __init__(self, spec: str, after: int) -> None:
        self.spec, self.left = spec, after

    def act_one(self, obs, mask, state=None, seat=None) -> int:
        if self.left == 0:
            raise RuntimeError("the model went wrong")
        self.left -= 1
        return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("command", ["record", "play"])
def test_an_agent_failing_mid_game_is_one_error_line_and_the_game_so_far_is_saved(command, monkeypatch, capsys,
                                                                                   tmp_path):
    import gamecore.search.agents
    import gamecore.tools.play
    from gamecore.tools.replay import GameRecord

    flaky = lambda spec, game, seed=None: _Flaky(spec, after=2)  # noqa: E731
    monkeypatch.setattr(gamecore.search.agents, "make_agent", flaky)
    monkeypatch.setattr(gamecore.tools.play, "make_agent", flaky)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 50))
    out = tmp_path / "g.json"
    argv = {"record": ["record", "callisto", "--agents", "random", "--out", str(out)],
            "play": ["play", "callisto", "--vs", "random", "--save", str(out), "--no-color"]}[command]
    error = run_bad(argv, capsys)
    assert "the model went wrong" in error and f"saved in {out}" in error
    assert len(GameRecord.load(out).actions) == (4 if command == "record" else 5)  # each agent played 2


# ---- issue 49: tables says what it plays, and shows progress ------------------------------------------------
def test_tables_says_how_many_games_it_plays_and_why_before_playing_and_shows_progress(monkeypatch, capsys):
    """Before: nothing for a minute, then a table of 20 games for --games 2 (one deal x 20 seatings)
    that no line explained. Two agents (no baseline) at Calçada's 2 seats: 2 seatings; --games 3 is
    2 whole deals, 4 games."""
    import gamecore.search.agents
    import gamecore.tools.arena

    monkeypatch.setattr(gamecore.search.agents, "shipped_baseline", lambda game: None)
    real = gamecore.tools.arena.play
    seen = []

    def play(*args, **kwargs):
        seen.append(capsys.readouterr())  # what was printed before the first game
        return real(*args, **kwargs)

    monkeypatch.setattr(gamecore.tools.arena, "play", play)
    main(["tables", "--games", "3", "--only", "calcada", "--mcts"])
    (before,) = seen
    assert before.out == ("calcada, 2 players: 2 agents (random, greedy), 2 seatings; --games 3 plays 2 deals x 2 "
                          "seatings = 4 games (rounded up to whole deals, each played once in every seating)\n")
    after = capsys.readouterr()
    assert after.out.startswith("calcada, 2 players: 4 games (2 deals x 2 seatings)")
    progress = after.err.strip().splitlines()
    assert progress and progress[-1].startswith("tables calcada: 4/4 games (100%)"), after.err


def test_record_leaves_compiling_out_of_the_time_it_prints(tmp_path, monkeypatch, capsys):
    """``record``'s "N decisions in X s" is the play, not numba's compiling inside it (issue 49):
    with 10 s on the clock of which 4 s were compiling, it says 6.0 s."""
    import types

    import gamecore.kernel.jit as jit
    import gamecore.tools.cli as cli

    clock = iter([100.0, 110.0])
    compiled = iter([20.0, 24.0])
    monkeypatch.setattr(cli, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    monkeypatch.setattr(jit, "compile_seconds", lambda: next(compiled))
    main(["record", "calcada", "--agents", "random", "--seed", "1", "--out", str(tmp_path / "r.json")])
    assert " decisions in 6.0 s; wrote " in capsys.readouterr().out
