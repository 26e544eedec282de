"""Shared test fixtures: the games under test and helpers to drive them."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from gamecore.games import GAMES


def available_games() -> list[str]:
    names = []
    for name, module in GAMES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        names.append(name)
    return names


GAME_NAMES = available_games()
PLAYER_COUNTS = (2, 3, 4)
GAME_PLAYERS = [(g, n) for g in GAME_NAMES for n in PLAYER_COUNTS]


def game_module(name: str):
    return importlib.import_module(GAMES[name])


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def play_random(raw, rng: np.random.Generator, max_steps: int | None = None) -> int:
    """Step a raw env with random legal actions (None for dead agents); returns steps taken."""
    steps = 0
    while raw.agents and (max_steps is None or steps < max_steps):
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
        else:
            raw.step(random_legal(raw.observe(agent)["action_mask"], rng))
        steps += 1
    return steps


@pytest.fixture(params=GAME_NAMES)
def game_name(request) -> str:
    return request.param
