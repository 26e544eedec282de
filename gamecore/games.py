"""Name -> game lookup, importing a game package only when it is asked for."""

from __future__ import annotations

import importlib
from types import ModuleType

from gamecore.protocol import GameSpec

GAMES = {
    "callisto": "callisto_env",
    "calcada": "calcada_env",
}


def get_game(game: str | GameSpec) -> GameSpec:
    if isinstance(game, GameSpec):
        return game
    key = str(game).lower().replace("ç", "c").split("-")[0]
    if key not in GAMES:
        raise ValueError(f"unknown game {game!r}; available: {', '.join(sorted(GAMES))}")
    return importlib.import_module(GAMES[key]).GAME


def batched_kernels(game: GameSpec) -> ModuleType:
    """The game's ``batched`` module (parallel kernels), imported on first use."""
    package = game.kernels.__name__.rsplit(".", 1)[0]
    return importlib.import_module(f"{package}.batched")
