"""Cultivo for PettingZoo (see :mod:`cultivo_env.env` for the full documentation)."""

from typing import TYPE_CHECKING

from gamecore.kernel.games import lazy_exports, register_package

# first, before any kernel of the package is defined: the package is the game Cultivo (its kernels are
# cached and announced as its); the cold compile of each path on an idle 2-core machine and the
# kernels it compiles, measured by benchmarks/notice_seconds.py
register_package(
    __name__,
    env_id="cultivo-v1",
    title="Cultivo",
    compile_seconds={"aec": 53, "batched": 9, "threaded": 24, "mcts": 34, "greedy": 8, "puct": 8},
    compile_kernels={"aec": 117, "batched": 10, "threaded": 4, "mcts": 18, "greedy": 3, "puct": 2},
)

# the env and the spec load on first use: importing a kernel module imports neither gymnasium nor
# pettingzoo
lazy_exports(__name__, {
    "env": "cultivo_env.env",
    "raw_env": "cultivo_env.env",
    "GAME": "cultivo_env.game",
    "state_from_ascii": "cultivo_env.game",
    "legal_strings": "cultivo_env.game",
})
__all__ = ["env", "raw_env", "GAME", "state_from_ascii", "legal_strings"]

if TYPE_CHECKING:  # what the names are, for type checkers
    from cultivo_env.env import env, raw_env
    from cultivo_env.game import GAME, legal_strings, state_from_ascii
