"""Shared test fixtures: the games under test and helpers to drive them.

Every game of ``gamecore.games.GAMES`` is under test at every player count it supports (from the
game's own limits). A game package that fails to import fails the whole run here, at collection:
it never drops out of the suite silently.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from gamecore.games import GAMES
from gamecore.protocol import H_CURRENT


def _import_all() -> dict[str, object]:
    modules = {}
    for name, package in GAMES.items():
        modules[name] = importlib.import_module(package)  # an ImportError here fails the run
    return modules


MODULES = _import_all()
GAME_NAMES = list(GAMES)
GAME_PLAYERS = [(g, n) for g in GAME_NAMES for n in MODULES[g].GAME.player_counts]


def game_module(name: str):
    return MODULES[name]


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


def play_to_end(raw, rng: np.random.Generator, max_steps: int = 100_000) -> None:
    """Random legal decisions until the kernel state is terminal (dead agents not stepped)."""
    from gamecore.protocol import H_TERMINAL

    for _ in range(max_steps):
        if raw.state_array[H_TERMINAL]:
            return
        raw.step(random_legal(raw.observe(raw.agent_selection)["action_mask"], rng))
    raise AssertionError("game did not end")


def opening_seat(name: str) -> int:
    """The seat that takes the first decision of a fresh game at the default player count and
    options (Cultivo's setup opens with the seat before the start player)."""
    raw = game_module(name).raw_env()
    raw.reset(seed=0)
    return int(raw.state_array[H_CURRENT])


@pytest.fixture(params=GAME_NAMES)
def game_name(request) -> str:
    return request.param
