"""Registration with PettingZoo's and Gymnasium's registries: importing ``gamecore`` or any game
package registers every game, so that ``pettingzoo.make("aec", "<game>-v1", ...)`` and
``gymnasium.make("tabletop-rl-envs/<Game>-v1", ...)`` (the single-agent env of
:mod:`gamecore.single_agent`) work for all of them. The entry points are ``"module:attr"`` strings:
a game's package is imported (and its kernels loaded) only when an env of that game is made."""

from __future__ import annotations

import gymnasium
import pettingzoo

from gamecore.games import ENV_IDS, GAMES

#: Gymnasium namespace of the single-agent envs (the distribution's name)
GYMNASIUM_NAMESPACE = "tabletop-rl-envs"


def gymnasium_id(env_id: str) -> str:
    """``"callisto-v1"`` -> ``"tabletop-rl-envs/Callisto-v1"`` (same game, same version)."""
    name, _, version = env_id.rpartition("-")
    return f"{GYMNASIUM_NAMESPACE}/{name.capitalize()}-{version}"


def register_game(env_id: str, entry_point: str) -> None:
    if env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", env_id, entry_point=entry_point)
    gym_id = gymnasium_id(env_id)
    if gym_id not in gymnasium.registry:
        gymnasium.register(
            gym_id,
            entry_point="gamecore.single_agent:SingleAgentEnv",
            kwargs={"game": env_id.rpartition("-")[0]},
        )


def env_id(name: str) -> str:
    """The PettingZoo id of a game of :data:`gamecore.games.GAMES` (its ``GameSpec.env_id``)."""
    return ENV_IDS[name]


def register_all() -> None:
    """Register every game (idempotent)."""
    for name, package in GAMES.items():
        register_game(env_id(name), f"{package}:env")


register_all()
