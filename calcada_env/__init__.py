"""Calçada for PettingZoo (see :mod:`calcada_env.env` for the full documentation)."""

from calcada_env.env import env, raw_env
from calcada_env.game import GAME, state_from_ascii
from gamecore.registration import register_game

register_game(GAME.env_id, "calcada_env:env")

__all__ = ["env", "raw_env", "GAME", "state_from_ascii"]
