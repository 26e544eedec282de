"""Cultivo for PettingZoo (see :mod:`cultivo_env.env` for the full documentation)."""

from cultivo_env.env import env, raw_env
from cultivo_env.game import GAME, state_from_text
from gamecore.registration import register_game

register_game(GAME.env_id, "cultivo_env:env")

__all__ = ["env", "raw_env", "GAME", "state_from_text"]
