"""Name -> game lookup, importing a game package only when it is asked for."""

from __future__ import annotations

import importlib

from gamecore.options import short_repr
from gamecore.protocol import GameSpec

#: every game of the library: name -> package
GAMES = {
    "callisto": "callisto_env",
    "calcada": "calcada_env",
    "calimala": "calimala_env",
    "cultivo": "cultivo_env",
}
#: every game's PettingZoo id, name-vN: the version goes up whenever what an env returns changes
#: (its observation, say), PettingZoo's convention; each game's ``GameSpec.env_id`` says the same
#: (tests/test_packaging.py), this copy lets registration name the id without importing the game
ENV_IDS = {
    "callisto": "callisto-v1",
    "calcada": "calcada-v1",
    "calimala": "calimala-v1",
    "cultivo": "cultivo-v1",
}


def game_key(game: str) -> str:
    """``"Calçada"``, ``"calcada-v0"``, ``"CALCADA"`` -> ``"calcada"``."""
    return str(game).lower().replace("ç", "c").split("-")[0].split("/")[-1]


def get_game(game: str | GameSpec) -> GameSpec:
    if isinstance(game, GameSpec):
        return game
    if not isinstance(game, str):
        raise TypeError(f"game must be a name or a GameSpec, got {type(game).__name__}")
    key = game_key(game)
    if key not in GAMES:
        raise ValueError(f"unknown game {short_repr(game)}; available: {', '.join(sorted(GAMES))}")
    return importlib.import_module(GAMES[key]).GAME
