"""Playing in the terminal (scripted input), game records and replays into pictures."""

from __future__ import annotations

import io
import json
import re

from PIL import Image

from gamecore.cli import main
from gamecore.play import TerminalGame
from gamecore.replay import GameRecord, replay_env


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
    assert replay_env(rec).game_over
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
