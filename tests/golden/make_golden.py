"""Record a golden playthrough per game: ``python tests/golden/make_golden.py [game ...]``.

A playthrough is a seeded random game through the raw env: every action's string, how many actions
were legal before it, the final ANSI board and the rewards. tests/test_golden.py replays it; any
drift in the rules, the masks, the notation or the scoring makes it fail. Re-record only when a
rules change is intended (and bump the env version).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gamecore.games import GAMES  # noqa: E402

HERE = Path(__file__).parent
CONFIGS = {"callisto": {"num_players": 3}, "calcada": {"num_players": 3}, "calimala": {"num_players": 3},
           "cultivo": {"num_players": 3}}
SEED = 2026


def record(name: str) -> dict:
    mod = importlib.import_module(GAMES[name])
    options = CONFIGS[name]
    env = mod.raw_env(reward_mode="score", **options)
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    steps = []
    while not env.state_array[3]:
        legal = env.legal_actions()
        a = int(rng.choice(legal))
        steps.append({"player": env.agent_selection, "legal": len(legal), "action": env.action_to_string(a)})
        env.step(a)
    return {
        "game": name,
        "options": options,
        "seed": SEED,
        "steps": steps,
        "final_board": mod.GAME.render_ansi(env.state_array),
        "rewards": env.rewards,
    }


if __name__ == "__main__":
    for name in sys.argv[1:] or list(CONFIGS):
        path = HERE / f"{name}_playthrough.json"
        path.write_text(json.dumps(record(name), indent=1, ensure_ascii=False) + os.linesep)
        print("wrote", path)
