"""Registration with PettingZoo's registry: importing a game package makes
``pettingzoo.make("aec", "<game>-v0", ...)`` work."""

from __future__ import annotations

import pettingzoo


def register_game(env_id: str, entry_point: str) -> None:
    if env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", env_id, entry_point=entry_point)
