"""Smoke tests of the example scripts (examples/ is not a package: load the files by path)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_random_play_main(capsys):
    random_play = load_script("random_play")
    result = random_play.main(["--game", "callisto", "--players", "2", "--batch-envs", "16", "--batch-games", "2"])
    out = capsys.readouterr().out
    assert result["moves"] > 0
    assert set(result["rewards"]) == {"player_0", "player_1"}
    assert sorted(result["rewards"].values()) == [-1.0, 1.0]  # rank rewards, no ties in one game
    assert result["board"] and result["board"] in out
    assert "player_0: reward" in out
    assert re.search(r"batched step loop: \d+ games .* games/s", out)
    assert re.search(r"batched random_rollout: 32 games .* games/s", out)


def test_random_play_three_players_no_batch(capsys):
    random_play = load_script("random_play")
    result = random_play.main(["--players", "3", "--seed", "5", "--no-batch"])
    assert len(result["rewards"]) == 3
    assert max(result["rewards"].values()) == 1.0
    assert "batched" not in capsys.readouterr().out


def test_train_main_smoke(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    train = load_script("train")
    out_path = tmp_path / "model.zip"
    argv = "--timesteps 256 --envs 4 --n-steps 32 --batch-size 64 --opponent-update 128 --eval-games 10"
    result = train.main([*argv.split(), "--no-progress", "--out", str(out_path)])
    out = capsys.readouterr().out
    assert out_path.is_file()
    assert result["model_path"] == str(out_path)
    assert result["timesteps"] >= 256
    assert result["eval"]["games"] == 10 and result["baseline"]["games"] == 10
    assert 0.0 <= result["eval"]["win_rate"] <= 1.0
    line = out.strip().splitlines()[-1]
    assert re.fullmatch(
        r"win rate vs random: \d\.\d\d \(10 games, learner rotating seats; random-vs-random baseline \d\.\d\d\)",
        line,
    ), line

    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(out_path, device="cpu")
    assert model.action_space.n == 3500


def test_train_args_defaults_and_errors():
    train = load_script("train")
    args = train.parse_args([])
    assert args.game == "callisto" and args.players == 2 and args.eval_games == 200
    assert args.out == Path("runs") / "callisto_maskppo.zip"
    assert train.parse_args(["--game", "calcada"]).out == Path("runs") / "calcada_maskppo.zip"
    assert train.parse_args(["--game", "calimala"]).players == 3  # the game's smallest count
    with pytest.raises(SystemExit):
        train.parse_args(["--game", "calimala", "--players", "2"])
    with pytest.raises(SystemExit):
        train.parse_args(["--game", "chess"])
    with pytest.raises(SystemExit):
        train.parse_args(["--players", "1"])


def test_train_progress_is_a_few_plain_lines_when_the_output_is_not_a_terminal(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    train = load_script("train")
    argv = "--timesteps 640 --envs 4 --n-steps 16 --batch-size 64 --opponent-update 0 --eval-games 4"
    train.main([*argv.split(), "--out", str(tmp_path / "m.zip")])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("progress:")]
    assert 1 <= len(lines) <= 10, err
    assert re.fullmatch(r"progress: 640/640 steps \(100%\), \d+ steps/s", lines[-1])
    assert "\r" not in err and "it/s" not in err  # no progress bar redraws in a log


def test_train_progress_draws_a_bar_on_a_terminal():
    pytest.importorskip("tqdm")
    pytest.importorskip("sb3_contrib")
    import io

    train = load_script("train")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    callback = train.make_progress_callback(100, stream=stream)
    callback._on_training_start()
    assert callback.progress.bar is not None
    callback.progress.update(50)
    callback._on_training_end()
    assert "50/100" in stream.getvalue()
