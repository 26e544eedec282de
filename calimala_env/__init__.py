"""Calimala for PettingZoo (see :mod:`calimala_env.env` for the full documentation)."""

from gamecore.jit import register_game_package

# first, before any kernel of the package is defined: its kernels are the project's (cached and
# announced as Calimala's); the cold compile of each path on an idle 2-core machine and the kernels
# it compiles, measured by benchmarks/notice_seconds.py (see gamecore.jit.COMPILE_SECONDS)
register_game_package(
    __name__,
    title="Calimala",
    compile_seconds={"aec": 19, "batched": 5, "threaded": 10, "mcts": 27, "greedy": 8, "puct": 7},
    compile_kernels={"aec": 49, "batched": 7, "threaded": 4, "mcts": 40, "greedy": 3, "puct": 2},
)

from calimala_env.env import env, raw_env  # noqa: E402
from calimala_env.game import GAME, legal_strings, position  # noqa: E402
from gamecore.registration import register_game  # noqa: E402

register_game(GAME.env_id, "calimala_env:env")

__all__ = ["env", "raw_env", "GAME", "position", "legal_strings"]
