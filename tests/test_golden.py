"""Replay each game's golden playthrough (tests/golden/*_playthrough.json) move by move."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import GAME_NAMES, game_module

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_golden_playthrough_replays_exactly(name):
    path = GOLDEN / f"{name}_playthrough.json"
    if not path.exists():
        pytest.fail(f"missing {path}; record it with python tests/golden/make_golden.py {name}")
    record = json.loads(path.read_text())
    mod = game_module(name)
    env = mod.raw_env(reward_mode="score", **record["options"])
    env.reset(seed=record["seed"])
    for k, step in enumerate(record["steps"]):
        assert env.agent_selection == step["player"], f"step {k}"
        assert len(env.legal_actions()) == step["legal"], f"step {k}: number of legal actions"
        env.step(env.string_to_action(step["action"]))
    assert env.state_array[3] == 1, "the game should be over"
    assert mod.GAME.render_ansi(env.state_array) == record["final_board"]
    assert env.rewards == record["rewards"]
