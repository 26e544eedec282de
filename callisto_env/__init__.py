"""Callisto for PettingZoo (see :mod:`callisto_env.env` for the full documentation)."""

from callisto_env.env import env, raw_env
from callisto_env.game import GAME, state_from_ascii
from gamecore.registration import register_game

register_game(GAME.env_id, "callisto_env:env")

__all__ = ["env", "raw_env", "GAME", "state_from_ascii"]
