"""Calçada for PettingZoo (see :mod:`calcada_env.env` for the full documentation)."""

from gamecore.jit import register_game_package

# first, before any kernel of the package is defined: its kernels are the project's (cached and
# announced as Calçada's); the cold compile of each path on an idle 2-core machine and the kernels
# it compiles, measured by benchmarks/notice_seconds.py (see gamecore.jit.COMPILE_SECONDS)
register_game_package(
    __name__,
    title="Calçada",
    compile_seconds={"aec": 8, "batched": 4, "threaded": 5, "mcts": 11, "greedy": 4, "puct": 4},
    compile_kernels={"aec": 41, "batched": 13, "threaded": 4, "mcts": 12, "greedy": 3, "puct": 2},
)

from calcada_env.env import env, raw_env  # noqa: E402
from calcada_env.game import GAME, state_from_ascii  # noqa: E402
from gamecore.registration import register_game  # noqa: E402

register_game(GAME.env_id, "calcada_env:env")

__all__ = ["env", "raw_env", "GAME", "state_from_ascii"]
