"""Calimala for PettingZoo (see :mod:`calimala_env.env` for the full documentation)."""

from calimala_env.env import env, raw_env
from calimala_env.game import GAME, legal_strings, position
from gamecore.registration import register_game

register_game(GAME.env_id, "calimala_env:env")

__all__ = ["env", "raw_env", "GAME", "position", "legal_strings"]
