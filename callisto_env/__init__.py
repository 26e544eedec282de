"""Callisto for PettingZoo (see :mod:`callisto_env.env` for the full documentation)."""

from gamecore.jit import register_game_package

# first, before any kernel of the package is defined: its kernels are the project's (cached and
# announced as Callisto's); the cold compile of each path on an idle 2-core machine and the kernels
# it compiles, measured by benchmarks/notice_seconds.py (see gamecore.jit.COMPILE_SECONDS)
register_game_package(
    __name__,
    title="Callisto",
    compile_seconds={"aec": 6, "batched": 4, "threaded": 6, "mcts": 12, "greedy": 6, "puct": 6},
    compile_kernels={"aec": 33, "batched": 7, "threaded": 4, "mcts": 12, "greedy": 3, "puct": 2},
)

from callisto_env.env import env, raw_env  # noqa: E402
from callisto_env.game import GAME, state_from_ascii  # noqa: E402
from gamecore.registration import register_game  # noqa: E402

register_game(GAME.env_id, "callisto_env:env")

__all__ = ["env", "raw_env", "GAME", "state_from_ascii"]
