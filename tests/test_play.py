"""Playing in the terminal (scripted input), game records and replays into pictures."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from PIL import Image

from gamecore.kernel.games import get_game
from gamecore.kernel.protocol import H_CURRENT, VIEW_ALL, VIEW_PUBLIC
from gamecore.tools.cli import main
from gamecore.tools.play import TerminalGame
from gamecore.tools.replay import GameRecord, make_env, replay_env


def session(game: str, seats: list[str], lines: list[str], **kw) -> tuple[TerminalGame, str]:
    out = io.StringIO()
    t = TerminalGame(game, seats, inp=io.StringIO("".join(f"{x}\n" for x in lines)), out=out, **kw)
    t.run()
    return t, out.getvalue()


def test_moves_by_code_and_name_undo_hints_and_errors(tmp_path):
    save = tmp_path / "game.json"
    t, out = session("callisto", ["human", "greedy"], ["?", "pillar a1", "h", "u", "u", "7", "xyz", "999",
                                                        "pillar", f"save {save}", "q"], colour=False)
    assert "undo" in out and "hint" in out  # the help
    assert "  ? / help   " in out and "``" not in out and "=====" not in out  # as plain text, not the RST source
    assert "player_0 plays: pillar a1" in out
    assert re.search(r"player_1 \(greedy\) plays: pillar \w\d+", out)
    assert re.search(r"hint \(greedy\): \d+  pillar \w\d+", out)
    assert "back to decision 1" in out and "nothing to undo" in out
    assert "no decision 999" in out and "not a legal decision or command: 'xyz'" in out
    # after the undo, code 7 of the sorted list (a1, a2, ... a10 in natural order) is played
    assert "player_0 plays: pillar a7" in out
    rec = json.loads(save.read_text())
    assert rec["actions"][0] == "pillar a7" and len(rec["actions"]) == 2
    assert rec["seats"] == {"0": "human", "1": "greedy"} and rec["options"]["num_players"] == 2
    assert t.record.actions == rec["actions"]


def test_load_continues_a_saved_game_and_a_game_plays_to_its_end(tmp_path):
    save = tmp_path / "game.json"
    session("calcada", ["human", "random"], ["declare", "1", f"save {save}", "q"], seed=4, colour=False)
    before = GameRecord.load(save)
    assert before.actions and before.seed == 4
    t, out = session("calcada", ["human", "random"], [f"load {save}"] + ["1"] * 400, seed=0, colour=True)
    assert f"loaded {save}: {len(before.actions)} decisions" in out
    assert "game over:" in out and "\x1b[" in out  # played to the end, boards in colour
    assert t.record.actions[: len(before.actions)] == before.actions
    env = replay_env(t.record)
    assert env.game_over


def test_people_can_take_every_seat_and_prefixes_list_or_play():
    lines = ["pillar c", "pillar a1", "pillar b", "pillar j1", "q"]
    t, out = session("callisto", ["human", "human"], lines, colour=False)
    listed = out.split("[turn]> ", 2)[1].split("[turn]> ")[0]  # the answer to "pillar c"
    assert re.search(r"\d+  pillar c1 +\d+  pillar c10", listed) and "pillar d1" not in listed
    # "pillar b": b1 is next to the pillar on a1, so b10 is the only match and is played
    assert t.record.actions == ["pillar a1", "pillar b10", "pillar j1"]
    assert "player_1 plays: pillar b10" in out


def test_play_command_reads_the_seats_and_the_opponent(monkeypatch, capsys, tmp_path):
    save = tmp_path / "g.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\nq\n"))
    main(["play", "callisto", "--players", "3", "--human", "1", "--vs", "random", "greedy", "--no-color",
          "--save", str(save)])
    out = capsys.readouterr().out
    assert "player_0 (random) plays:" in out and "player_1 plays:" in out
    assert GameRecord.load(save).seats == {"0": "random", "1": "human", "2": "greedy"}


def test_record_and_replay_to_a_gif_and_a_strip(tmp_path, capsys):
    rec_path = tmp_path / "game.json"
    main(["record", "calcada", "--agents", "greedy", "random", "--seed", "5", "--out", str(rec_path)])
    rec = GameRecord.load(rec_path)
    assert rec.seats == {"0": "greedy", "1": "random"} and rec.options["num_players"] == 2
    env = replay_env(rec)
    assert env.game_over
    # the outcome is in the record and printed: scores, places, winner, as the env scores the replay
    scores = np.zeros(2)
    env.unwrapped.game.kernels.scores(env.state_array, scores)
    rewards = [env.rewards[a] for a in env.possible_agents]
    res = rec.result
    assert res["scores"] == [int(x) for x in scores] and res["rank_rewards"] == rewards
    assert res["winners"] == [p for p in range(2) if rewards[p] == max(rewards)]
    assert res["ranks"] == ([1, 1] if rewards[0] == rewards[1] else [1, 2] if rewards[0] > rewards[1] else [2, 1])
    printed = capsys.readouterr().out
    first = res["winners"][0]
    assert f"1. player_{first}" in printed and f"score {res['scores'][first]}" in printed
    assert (f"winner: player_{first} ({rec.seats[str(first)]})" in printed if len(res["winners"]) == 1
            else "tied first: player_0 (greedy), player_1 (random)" in printed)
    assert json.loads(rec_path.read_text())["result"] == res
    gif = tmp_path / "game.gif"
    main(["replay", str(rec_path), "--out", str(gif), "--every", "4"])
    with Image.open(gif) as im:
        frames = im.n_frames
    assert frames == len(range(0, len(rec.actions) + 1, 4)) + (len(rec.actions) % 4 != 0)
    strip = tmp_path / "game.png"
    main(["replay", str(rec_path), "--out", str(strip), "--every", "20", "--columns", "3"])
    assert Image.open(strip).size[0] > 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(rec_path.read_text()), "actions": ["swap display nothing"]}))
    try:
        main(["replay", str(bad), "--out", str(tmp_path / "x.gif")])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("a record with an illegal decision replayed")


def _obs(K, state: np.ndarray, seat: int, size: int) -> np.ndarray:
    out = np.empty(size, dtype=np.int8)
    K.observe(state, seat, out)
    return out


@pytest.mark.parametrize("game,players", [("callisto", 2), ("calcada", 2), ("calimala", 3), ("cultivo", 3)])
def test_play_prints_only_what_the_person_may_know(game, players):
    """Scripted person at seat 0 against random agents, a whole seeded game: every printed move of
    another seat reads the same as each decision that seat 0 could not tell apart from it (same
    observation for seat 0 afterwards, a different one for the mover: a secret choice), and no
    board line shows what only another view shows (hands, kept cards, stack order)."""
    spec = get_game(game)
    t, out = session(game, ["human"] + ["random"] * (players - 1), ["1"] * 3000, seed=5, colour=False)
    assert "game over:" in out
    lines = out.splitlines()
    moves = [line.rsplit(" plays: ", 1) for line in lines if " plays: " in line]
    assert len(moves) == len(t.record.actions)
    K = spec.kernels
    size = spec.obs_shape(spec.make_params(**t.record.options))[0]
    hides = spec.hides_information(players)
    env = make_env(game, **t.record.options)
    env.reset(seed=t.record.seed)
    mine: set[str] = set()
    others: set[str] = set()
    secret_moves = 0
    for full, (who, shown) in zip(t.record.actions, moves, strict=True):
        s = env.state_array.copy()
        seat = int(s[H_CURRENT])
        a = env.string_to_action(full)
        if seat == 0:
            assert who.endswith("player_0") and shown == full
            mine.update(spec.render_terminal(s, 0, colour=False).splitlines())
            others.update(spec.render_terminal(s, VIEW_ALL, colour=False).splitlines())
        else:
            assert who.endswith(f"player_{seat} (random)")
        if seat != 0 and hides:
            taken = s.copy()
            K.apply(taken, a)
            twins = {full}
            for b in env.legal_actions():
                other = s.copy()
                K.apply(other, int(b))
                if (np.array_equal(_obs(K, other, 0, size), _obs(K, taken, 0, size))
                        and not np.array_equal(_obs(K, other, seat, size), _obs(K, taken, seat, size))):
                    twins.add(spec.action_to_string(s, int(b)))
            if len(twins) > 1:  # a secret choice: the line names none of the candidates
                secret_moves += 1
                assert shown not in twins, (shown, twins)
        env.step(a)
    final = env.state_array
    mine.update(spec.render_terminal(final, 0, colour=False).splitlines())
    others.update(spec.render_terminal(final, VIEW_ALL, colour=False).splitlines())
    leaked = [line for line in lines if line in others - mine]
    assert not leaked
    if game == "calimala":  # the two agents' scoring cards were secret choices
        assert secret_moves == 2 and out.count("(random) plays: keep a scoring card") == 2


def test_calimala_scoring_cards_kept_by_other_seats_are_secret():
    spec = get_game("calimala")
    env = make_env("calimala", num_players=3)
    env.reset(seed=2)
    s = env.state_array
    mover = int(s[H_CURRENT])
    keep = env.legal_actions()[0]
    full = spec.action_to_string(s, keep)
    assert full.startswith("keep scoring card ")
    assert spec.public_action_string(s, keep, mover) == full
    assert spec.public_action_string(s, keep, VIEW_ALL) == full
    for viewer in (VIEW_PUBLIC, *(p for p in range(3) if p != mover)):
        assert spec.public_action_string(s, keep, viewer) == "keep a scoring card"
    place = [a for a in range(spec.num_actions(env.params)) if spec.action_to_string(s, a).startswith("place ")][0]
    assert spec.public_action_string(s, place, VIEW_PUBLIC) == spec.action_to_string(s, place)
    # people sharing a screen see only what is public, their own choices too; the end shows no hands
    t, out = session("calimala", ["human", "human", "random"], ["1"] * 3000, seed=3, colour=False)
    assert out.count("plays: keep a scoring card") == 3 and "plays: keep scoring card" not in out
    final_board = out.split("\ngame over:\n")[0].rsplit(" plays: ", 1)[1]
    assert "face-up scoring card" in final_board and "    hand: " not in final_board


def test_pictures_and_records_refuse_bad_arguments_before_drawing(tmp_path):
    from gamecore.tools.replay import MAX_GIF_MS, write_gif, write_strip

    frames = [np.zeros((40, 60, 3), dtype=np.uint8)] * 3
    for kw, match in [({"columns": 0}, "columns"), ({"columns": 1.5}, "columns"), ({"scale": 0}, "scale"),
                      ({"scale": float("nan")}, "scale"), ({"scale": float("inf")}, "scale"),
                      ({"scale": 1e6}, "pixels")]:
        with pytest.raises(ValueError, match=match):
            write_strip(frames, tmp_path / "s.png", **kw)
    for ms in (0, -5, MAX_GIF_MS + 1, 2.5, True):
        with pytest.raises(ValueError, match="ms_per_frame"):
            write_gif(frames, tmp_path / "g.gif", ms_per_frame=ms)
    assert not list(tmp_path.iterdir())
    write_strip(frames, tmp_path / "s.png", columns=2, scale=1.0)
    assert Image.open(tmp_path / "s.png").size == (120, 80)
    for bad, match in [([], "JSON object"), ({"game": "calcada", "options": {}, "seed": True, "actions": []}, "seed"),
                       ({"game": "calcada", "options": {}, "seed": 0, "actions": "abc"}, "actions"),
                       ({"format": "v0", "game": "calcada", "options": {}, "seed": 0, "actions": []}, "format")]:
        with pytest.raises(ValueError, match=match):
            GameRecord.from_dict(bad)
    rec = GameRecord.from_dict({"game": "Calçada", "options": {}, "seed": 3, "actions": []})
    assert rec.game == "calcada" and rec.options["num_players"] == 2  # the defaults filled in


def test_a_session_survives_a_bad_save_and_an_interrupt(tmp_path):
    t, out = session("callisto", ["human", "random"], [f"save {tmp_path}", "q"], colour=False)
    assert "cannot save:" in out and "stopped." in out

    class Interrupted(io.StringIO):
        def readline(self, *a):
            raise KeyboardInterrupt

    save = tmp_path / "g.json"
    out = io.StringIO()
    TerminalGame("callisto", ["human", "random"], inp=Interrupted(), out=out, colour=False, save=str(save)).run()
    assert "stopped." in out.getvalue() and GameRecord.load(save).actions == []


# ---- issue 46: an agent failing mid-game, and what load reads -------------------------------------------
class Flaky:
    """An agent that plays the first legal decision ``after`` times, then raises (or returns ``action``)."""

    needs_state = False
    spec = "flaky"

    def __init__(self, after: int = 0, action: int | None = None) -> None:
        self.left, self.action = after, action

    def act_one(self, obs, mask, state=None, seat=None) -> int:
        if self.left == 0:
            if self.action is not None:
                return self.action
            raise RuntimeError("the model went wrong")
        self.left -= 1
        return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("action", [None, -1], ids=["raises", "returns -1"])
@pytest.mark.parametrize("given", [True, False], ids=["--save", "no --save"])
def test_an_agent_failing_mid_game_stops_the_game_with_it_saved(tmp_path, action, given):
    """Before: the error ended the session and the game was lost (no autosave)."""
    from gamecore.tools.play import AgentError

    save = tmp_path / "g.json"
    out = io.StringIO()
    t = TerminalGame("callisto", ["human", "random"], inp=io.StringIO("1\n" * 20), out=out, colour=False,
                     save=str(save) if given else None)
    t.agents[1] = Flaky(after=1, action=action)  # its second decision fails
    with pytest.raises(AgentError, match=r"the agent of seat 1 \(flaky\) (failed: the model went wrong|returned -1, "
                                         r"not a legal decision); the game so far is saved in") as exc:
        t.run()
    where = str(exc.value).split("saved in ")[1].split(" (")[0]
    assert (where == str(save)) if given else where != str(save) and not save.exists()
    try:
        assert GameRecord.load(where).actions == t.record.actions and len(t.record.actions) == 3
        assert f"saved {where}" in out.getvalue() and "stopped: " in out.getvalue()
    finally:
        if not given:
            import os

            os.unlink(where)


def test_a_failing_hint_agent_says_so_and_the_game_goes_on():
    t = TerminalGame("callisto", ["human", "random"], inp=io.StringIO("h\nh\n1\nq\n"), out=io.StringIO(),
                     colour=False)
    t.hinter = Flaky(after=0)
    t.run()
    out = t.out.getvalue()
    assert "no hint: the hint agent (flaky) failed: the model went wrong" in out
    assert "player_0 plays:" in out and "stopped." in out
    t = TerminalGame("callisto", ["human", "random"], inp=io.StringIO("h\nq\n"), out=io.StringIO(), colour=False)
    t.hinter = Flaky(after=0, action=-1)
    t.run()
    assert "no hint: the hint agent (flaky) returned -1, not a legal decision" in t.out.getvalue()


def test_load_refuses_a_device_a_fifo_and_an_oversized_file_without_reading_them(tmp_path, monkeypatch):
    """Before: ``load /dev/zero`` read until the memory ran out, a FIFO waited for a writer for ever."""
    import os
    import time

    import gamecore.tools.replay

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    GameRecord("callisto", get_game("callisto").params_to_options(get_game("callisto").make_params(2)), 0,
               ["pillar a1"] * 100).save(big)
    monkeypatch.setattr(gamecore.tools.replay, "MAX_RECORD_BYTES", 1000)
    t0 = time.perf_counter()
    t, out = session("callisto", ["human", "random"], ["load /dev/zero", f"load {fifo}", f"load {big}", "q"],
                     colour=False)
    assert time.perf_counter() - t0 < 30
    assert "cannot load: /dev/zero: not a regular file" in out
    assert f"cannot load: {fifo}: not a regular file" in out
    assert f"cannot load: {big}: more than 1,000 bytes" in out
    assert t.record.actions == []


def test_every_record_loading_error_names_the_file_even_for_a_5000_digit_seed(tmp_path):
    head = '{"game": "calcada", "options": {"num_players": 2}, "actions": [], "seed": '
    for digits, match in ((5000, "not JSON"), (4000, "an int of 13,288 bits"), (20, "0..2")):
        path = tmp_path / f"seed{digits}.json"
        path.write_text(head + "9" * digits + "}")
        with pytest.raises(ValueError, match=re.escape(str(path))) as exc:
            GameRecord.load(path)
        assert match in str(exc.value) and len(str(exc.value)) < 400
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path}: a directory")):
        GameRecord.load(tmp_path)
    rec = tmp_path / "illegal.json"
    GameRecord("calcada", {"num_players": 2}, 0, ["nonsense"]).save(rec)
    t, out = session("calcada", ["human", "random"], [f"load {rec}", "q"], colour=False)
    assert f"cannot load: {rec}: decision 1 ('nonsense')" in out
