"""Record a golden playthrough per game: ``python tests/golden/make_golden.py [game ...]``.

A playthrough is a seeded random game through the raw env, kept as OpenSpiel keeps its
playthroughs: for every decision the seat to move, every legal action's string (in action order),
the action taken, a digest of every seat's observation before it and the rewards after it; then
the final ANSI board and the final rewards. tests/test_golden.py replays it and compares each of
these, so any drift in the rules, the masks, the notation, the observations or the scoring fails
with the step and the field that changed, and a re-recorded file shows it as a readable diff (one
decision per line). Re-record only when such a change is intended (and bump the env version).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gamecore.kernel.games import GAMES  # noqa: E402

HERE = Path(__file__).parent
CONFIGS = {"callisto": {"num_players": 3}, "calcada": {"num_players": 3}, "calimala": {"num_players": 3},
           "cultivo": {"num_players": 3}}
SEED = 2026


def observation_digest(env) -> str:
    """16 hex digits of SHA-256 over every seat's int8 observation, seat by seat."""
    h = hashlib.sha256()
    for agent in env.possible_agents:
        h.update(np.ascontiguousarray(env.observe(agent)["observation"]).tobytes())
    return h.hexdigest()[:16]


def step_record(env, action: int) -> dict:
    """What a playthrough holds of one decision, before ``action`` is taken (rewards after)."""
    return {"player": env.agent_selection, "legal": env.legal_action_strings(), "obs": observation_digest(env),
            "action": env.action_to_string(action)}


def record(name: str) -> dict:
    mod = importlib.import_module(GAMES[name])
    options = CONFIGS[name]
    env = mod.raw_env(reward_mode="score", **options)
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    steps = []
    while not env.state_array[3]:
        a = int(rng.choice(env.legal_actions()))
        step = step_record(env, a)
        env.step(a)
        step["rewards"] = [env.rewards[agent] for agent in env.possible_agents]
        steps.append(step)
    return {
        "game": name,
        "options": options,
        "seed": SEED,
        "steps": steps,
        "final_obs": observation_digest(env),
        "final_board": mod.GAME.render_ansi(env.state_array),
        "rewards": env.rewards,
    }


def dumps(rec: dict) -> str:
    """The record as JSON with one decision per line (readable diffs)."""
    head = {k: v for k, v in rec.items() if k != "steps"}
    lines = [json.dumps(s, ensure_ascii=False) for s in rec["steps"]]
    body = json.dumps(head, indent=1, ensure_ascii=False)
    steps = '"steps": [\n' + ",\n".join(lines) + "\n]"
    return body[:-2] + ",\n " + steps + "\n}" + os.linesep


if __name__ == "__main__":
    for name in sys.argv[1:] or list(CONFIGS):
        path = HERE / f"{name}_playthrough.json"
        path.write_text(dumps(record(name)), encoding="utf-8")
        print("wrote", path)
