"""Registration with PettingZoo's and Gymnasium's registries: importing ``gamecore.envs`` (which
any env of any game does) registers every game of the registry (:func:`gamecore.kernel.games.games`),
so that ``pettingzoo.make("aec", "<game>-v1", ...)`` and
``gymnasium.make("tabletop-rl-envs/<Game>-v1", ...)`` (the single-agent env of
:mod:`gamecore.envs.single_agent`) work for all of them; Gymnasium's module prefix does the import,
``gymnasium.make("gamecore.envs:tabletop-rl-envs/<Game>-v1")``. The entry points are
``"module:attr"`` strings: a game's env module (and its kernels) loads only when an env of that game
is made. A game added later in the process (:func:`gamecore.kernel.games.add_game`) is registered by
calling :func:`register_all` again."""

from __future__ import annotations

import gymnasium
import pettingzoo

from gamecore.kernel.games import game_package, games

#: Gymnasium namespace of the single-agent envs (the distribution's name)
GYMNASIUM_NAMESPACE = "tabletop-rl-envs"


def gymnasium_id(env_id: str) -> str:
    """``"mygame-v1"`` -> ``"tabletop-rl-envs/Mygame-v1"`` (same game, same version)."""
    name, _, version = env_id.rpartition("-")
    return f"{GYMNASIUM_NAMESPACE}/{name.capitalize()}-{version}"


def register_game(env_id: str, entry_point: str) -> None:
    """Register one game's AEC env (``entry_point``, ``"module:attr"``) and its single-agent env."""
    if env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", env_id, entry_point=entry_point)
    gym_id = gymnasium_id(env_id)
    if gym_id not in gymnasium.registry:
        gymnasium.register(
            gym_id,
            entry_point="gamecore.envs.single_agent:SingleAgentEnv",
            kwargs={"game": env_id.rpartition("-")[0]},
        )


def env_id(name: str) -> str:
    """The PettingZoo id of a game of the registry (what its package registered)."""
    return game_package(name).env_id


def register_all() -> None:
    """Register every game of the registry (idempotent). A game package that fails to import is
    left out here; asking for it by name says why."""
    for name, package in games().items():
        try:
            entry = game_package(name)
        except (ImportError, ValueError):
            continue
        register_game(entry.env_id, f"{package}:env")
