"""Cultivo for PettingZoo (see :mod:`cultivo_env.env` for the full documentation)."""

from gamecore.jit import register_game_package

# first, before any kernel of the package is defined: its kernels are the project's (cached and
# announced as Cultivo's); the cold compile of each path on an idle 2-core machine and the kernels
# it compiles, measured by benchmarks/notice_seconds.py (see gamecore.jit.COMPILE_SECONDS)
register_game_package(
    __name__,
    title="Cultivo",
    compile_seconds={"aec": 53, "batched": 9, "threaded": 24, "mcts": 34, "greedy": 8, "puct": 8},
    compile_kernels={"aec": 117, "batched": 10, "threaded": 4, "mcts": 18, "greedy": 3, "puct": 2},
)

from cultivo_env.env import env, raw_env  # noqa: E402
from cultivo_env.game import GAME, state_from_text  # noqa: E402
from gamecore.registration import register_game  # noqa: E402

register_game(GAME.env_id, "cultivo_env:env")

__all__ = ["env", "raw_env", "GAME", "state_from_text"]
