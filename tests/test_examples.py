"""Smoke tests of the example scripts (examples/ is not a package: load the files by path)."""

from __future__ import annotations

import importlib.util
import re
import zipfile
from pathlib import Path

import numpy as np
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

    from gamecore.search.model_io import load_maskppo

    assert b":serialized:" not in zipfile.ZipFile(out_path).read("data")  # saved with no pickle in it
    model = load_maskppo(out_path, "callisto")
    assert model.action_space.n == 3500


def test_train_init_starts_from_a_saved_model_and_refuses_another_network(tmp_path, capsys):
    """--init PATH: the run starts from that model's weights and Adam state (a longer recipe goes on
    from its last checkpoint); a model of another game or network is refused before training."""
    pytest.importorskip("sb3_contrib")
    import torch

    from gamecore.search.model_io import load_maskppo

    train = load_script("train")
    small = "--envs 4 --n-steps 32 --batch-size 64 --opponent-update 128 --eval-games 2 --no-progress"
    first = tmp_path / "first.zip"
    train.main(["--timesteps", "128", *small.split(), "--out", str(first)])
    cont = tmp_path / "cont.zip"
    train.main(["--timesteps", "128", "--lr", "0", "--init", str(first), *small.split(), "--out", str(cont)])
    assert f"starting from {first}" in capsys.readouterr().out
    a = load_maskppo(first, "callisto").policy.state_dict()
    b = load_maskppo(cont, "callisto").policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)  # learning rate 0: the weights it started from
    with pytest.raises(SystemExit, match="another network"):
        train.main(["--timesteps", "128", "--net-arch", "8", "--init", str(first), *small.split(),
                    "--out", str(tmp_path / "x.zip")])
    with pytest.raises(SystemExit, match="observations"):
        train.main(["--game", "calcada", "--timesteps", "128", "--init", str(first), *small.split(),
                    "--out", str(tmp_path / "y.zip")])
    with pytest.raises(SystemExit):
        train.parse_args(["--init", str(tmp_path / "missing.zip")])


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
    assert args.margin_shaping == 0.0 and train.parse_args(["--margin-shaping", "0.05"]).margin_shaping == 0.05
    for bad in ("-1", "nan", "inf"):
        with pytest.raises(SystemExit):
            train.parse_args(["--margin-shaping", bad])


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


def test_train_imitate_args_and_errors(tmp_path):
    train = load_script("train")
    args = train.parse_args(["--imitate", "greedy", "--timesteps", "0"])
    assert args.imitate == "greedy" and args.timesteps == 0
    defaults = (args.imitate_decisions, args.imitate_epochs, args.imitate_envs, args.imitate_random)
    assert defaults == (50_000, 10, 64, 0.05)
    args = train.parse_args(["--imitate", "mcts:50", "--imitate-decisions", "7", "--imitate-random", "0"])
    assert args.imitate_decisions == 7 and args.imitate_random == 0.0
    bad = [
        ["--imitate", "chess"],  # unknown agent
        ["--imitate", "mcts:lots"],  # bad budget
        ["--imitate", "greedy:depth=x"],  # bad option value
        ["--imitate", "ppo:" + str(tmp_path / "missing.zip")],  # no such model
        ["--imitate", "greedy", "--imitate-decisions", "0"],
        ["--imitate", "greedy", "--imitate-epochs", "0"],
        ["--imitate", "greedy", "--imitate-envs", "0"],
        ["--imitate", "greedy", "--imitate-random", "1"],
        ["--imitate", "greedy", "--imitate-random", "-0.1"],
        ["--imitate", "greedy", "--timesteps", "-1"],
        ["--imitate-decisions", "100"],  # no teacher
        ["--timesteps", "0"],  # nothing to train
    ]
    for argv in bad:
        with pytest.raises(SystemExit):
            train.parse_args(argv)


# ~9 s alone on a core (1,500 decisions of Calçada's greedy search), ~25 s beside another busy process
@pytest.mark.slow
def test_train_imitate_greedy_agreement_rises(tmp_path, capsys):
    """A small behaviour-cloning run of the greedy agent: on held-out games the fitted policy agrees
    with the teacher more often than the untrained network, and PPO can follow it."""
    pytest.importorskip("sb3_contrib")
    train = load_script("train")
    argv = ("--game calcada --imitate greedy --imitate-decisions 1500 --imitate-envs 12 --imitate-epochs 20 "
            "--timesteps 0 --eval-games 6 --no-progress")
    result = train.main([*argv.split(), "--out", str(tmp_path / "bc.zip")])
    out = capsys.readouterr().out
    im = result["imitation"]
    assert im["teacher"] == "greedy" and im["decisions"] == 1500 and im["held_out"] > 0
    # seeded: the held-out game's 105 decisions, 0.086 -> 0.105 (one of greedy's tied best moves: 0.23 -> 0.34);
    # exact agreement there moves by two decisions, too few to assert on, so the tied count is asserted
    assert im["after"]["agreement_tied"] > im["before"]["agreement_tied"] + 0.05, im
    assert im["train_after"]["agreement"] > im["before"]["agreement"] + 0.1, im
    assert result["timesteps"] == 0
    assert re.search(r"imitation: 1500 decisions of \d+ games by greedy in .* decisions/s", out), out
    assert re.search(r"teacher agreement 0\.\d{3} -> 0\.\d{3}", out), out
    assert (tmp_path / "bc.zip").is_file()


def test_imitation_data_is_what_the_training_env_observes(tmp_path):
    """The recorded decisions: the first decision of each of the first games is its reset position,
    encoded by the scaled training env's encoder exactly as that env observes it; masks hold the
    recorded action; returns are the decider's rank reward; a cache round-trips and is refused
    for other settings."""
    pytest.importorskip("sb3_contrib")
    from gamecore.envs.batched import BatchedGames
    from gamecore.envs.sb3 import SelfPlayVecEnv
    from gamecore.search.agents import make_agent

    train = load_script("train")
    teacher = make_agent("random", "calcada", seed=1)
    data = train.collect_imitation("calcada", 2, teacher, 300, seed=11, random_share=0.5, envs=4)
    assert len(data["actions"]) == 300 and data["best"] is None
    assert data["masks"][np.arange(300), data["actions"]].all()
    assert set(np.unique(data["returns"])) <= {-1.0, 0.0, 1.0}
    venv = SelfPlayVecEnv("calcada", num_envs=4, seed=11, num_players=2, obs_encoding="scaled")
    reference = BatchedGames("calcada", 4, seed=11, num_players=2, obs_encoding="scaled")
    reference.reset()
    firsts = [int(k) for k in np.unique(data["games"]) if k < 4]  # game k < 4: slot k's first game
    assert firsts
    for k in firsts:
        first = int(np.flatnonzero(data["games"] == k)[0])
        encoded = venv.games.encoder(data["obs"][first : first + 1])
        assert encoded.dtype == np.float32
        np.testing.assert_array_equal(encoded.reshape(-1), reference.observations[k].reshape(-1))
    path = tmp_path / "bc.npz"
    key = {"game": "calcada", "seed": 11}
    train.save_imitation_cache(path, key, data)
    loaded = train.load_imitation_cache(path, key)
    for name in ("obs", "masks", "actions", "returns", "games"):
        np.testing.assert_array_equal(loaded[name], data[name])
    assert loaded["best"] is None and loaded["decisions_played"] == data["decisions_played"]
    assert train.load_imitation_cache(path, {**key, "seed": 12}) is None
