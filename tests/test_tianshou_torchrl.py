"""Tianshou 2.0 and TorchRL 0.14 with the games as shipped: the examples train on every game, and
TorchRL's own spec check passes at every player count.

Runs in the toolkit virtual environment of ``.ci/run``; each part is skipped where its toolkit is
not installed.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_examples import load_script

from conftest import GAME_NAMES, GAME_PLAYERS, game_module


@pytest.mark.parametrize("name", GAME_NAMES)
def test_tianshou_dqn_example_trains_against_masked_random_players(name, capsys):
    pytest.importorskip("tianshou", reason="needs tianshou")
    tianshou_dqn = load_script("tianshou_dqn")
    n = game_module(name).GAME.default_players
    argv = ["--game", name, "--epochs", "1", "--epoch-steps", "60", "--test-episodes", "3", "--train-envs", "2",
            "--batch-size", "16", "--hidden", "16", "--learner-seat", str(n - 1)]
    result = tianshou_dqn.main(argv)
    rewards = result["test_rewards"]
    assert len(rewards) == 3 and np.all((rewards >= -1) & (rewards <= 1))
    assert result["agents"] == [f"player_{i}" for i in range(n)]
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith(f"{name}, {n} players: Tianshou DQN in seat {n - 1}")
    assert re.fullmatch(r"learner mean rank reward vs random: [+-]\d\.\d\d over 3 test games .*", lines[-1])
    assert len(lines) == 2, "no progress bar or per-collect warning when the output is not a terminal"


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_torchrl_pettingzoo_wrapper_with_mask_passes_its_spec_check(name, n):
    pytest.importorskip("torchrl", reason="needs torchrl")
    import torch
    from torchrl.envs.utils import check_env_specs

    torch.manual_seed(n)  # the actor's weights and samples: the same game on every run
    torchrl_reinforce = load_script("torchrl_reinforce")
    args = torchrl_reinforce.parse_args(["--game", name, "--players", str(n)])
    env = torchrl_reinforce.make_env(args, seed=n)
    check_env_specs(env)
    actor = torchrl_reinforce.make_actor(env, hidden=8)
    rollout = env.rollout(100_000, policy=actor, break_when_any_done=True)  # illegal="raise": legal moves only
    acting = rollout["players", "mask"]
    assert (acting.sum(-1) == 1).all(), "exactly one seat decides at every step"
    final = rollout["next", "players", "reward"][-1, :, 0]
    assert rollout["next", "done"][-1].all()  # a finished game: the winners get the top rank reward,
    if bool((final == final[0]).all()):  # shared when tied (every seat tied: the middle, 0 each)
        assert float(final[0]) == 0.0
    else:  # and the last a negative one
        assert float(final.max()) > 0 > float(final.min())


def test_torchrl_refuses_an_aec_env_without_the_mask():
    pytest.importorskip("torchrl", reason="needs torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    with pytest.raises(ValueError, match="use_mask=True"):
        PettingZooWrapper(env=game_module(GAME_NAMES[0]).env(), use_mask=False)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_torchrl_reinforce_example_trains_each_game(name, capsys):
    pytest.importorskip("torchrl", reason="needs torchrl")
    torchrl_reinforce = load_script("torchrl_reinforce")
    result = torchrl_reinforce.main(["--game", name, "--updates", "2", "--games", "1", "--eval-games", "2",
                                     "--hidden", "16"])
    assert len(result["history"]) == 2 and all(np.isfinite(h["loss"]) for h in result["history"])
    assert len(result["eval_rewards"]) == 2 and all(-1 <= r <= 1 for r in result["eval_rewards"])
    out = capsys.readouterr().out
    assert re.search(r"^update 2: 1 games, mean length [\d.]+, loss [+-]\d", out, re.M)
    assert re.search(r"^seat-0 mean rank reward vs random: [+-]\d\.\d\d over 2 games", out, re.M)
