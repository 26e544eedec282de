"""Replay each game's golden playthrough (tests/golden/*_playthrough.json) decision by decision:
the seat to move, the legal action strings, the digest of every seat's observation, the action
and the rewards after it, then the final board and rewards. Re-record with
``python tests/golden/make_golden.py <game>`` when a change is intended (and bump the env version)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import GAME_NAMES, game_module

GOLDEN = Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN))
from make_golden import dumps, observation_digest  # noqa: E402


@pytest.mark.parametrize("name", GAME_NAMES)
def test_golden_playthrough_replays_exactly(name):
    path = GOLDEN / f"{name}_playthrough.json"
    if not path.exists():
        pytest.fail(f"missing {path}; record it with python tests/golden/make_golden.py {name}")
    record = json.loads(path.read_text(encoding="utf-8"))
    mod = game_module(name)
    env = mod.raw_env(reward_mode="score", **record["options"])
    env.reset(seed=record["seed"])
    for k, step in enumerate(record["steps"]):
        where = f"step {k} ({step['action']!r})"
        assert env.agent_selection == step["player"], where
        assert env.legal_action_strings() == step["legal"], f"{where}: legal actions"
        assert observation_digest(env) == step["obs"], f"{where}: observations"
        env.step(env.string_to_action(step["action"]))
        assert [env.rewards[a] for a in env.possible_agents] == step["rewards"], f"{where}: rewards"
    assert env.state_array[3] == 1, "the game should be over"
    assert observation_digest(env) == record["final_obs"]
    assert mod.GAME.render_ansi(env.state_array) == record["final_board"]
    assert env.rewards == record["rewards"]


def test_a_record_reads_back_as_written():
    """The one-decision-per-line layout is plain JSON that reads back to the record."""
    rec = {"game": "g", "options": {"num_players": 2}, "seed": 1, "final_board": "x\ny", "rewards": {"a": 1},
           "steps": [{"player": "a", "legal": ["p", "q"], "obs": "00", "action": "p", "rewards": [0, 0]}]}
    text = dumps(rec)
    assert json.loads(text) == rec
    assert json.dumps(rec["steps"][0], ensure_ascii=False) in text.splitlines()
