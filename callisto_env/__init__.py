"""Callisto for PettingZoo (see :mod:`callisto_env.env` for the full documentation)."""

from typing import TYPE_CHECKING

from gamecore.kernel.games import lazy_exports, register_package

# first, before any kernel of the package is defined: the package is the game Callisto (its kernels are
# cached and announced as its); the cold compile of each path on an idle 2-core machine and the
# kernels it compiles, measured by benchmarks/notice_seconds.py
register_package(
    __name__,
    env_id="callisto-v1",
    title="Callisto",
    compile_seconds={"aec": 6, "batched": 4, "threaded": 6, "mcts": 12, "greedy": 6, "puct": 6},
    compile_kernels={"aec": 33, "batched": 7, "threaded": 4, "mcts": 12, "greedy": 3, "puct": 2},
)

# the env and the spec load on first use: importing a kernel module imports neither gymnasium nor
# pettingzoo
lazy_exports(__name__, {
    "env": "callisto_env.env",
    "raw_env": "callisto_env.env",
    "GAME": "callisto_env.game",
    "state_from_ascii": "callisto_env.game",
    "legal_strings": "callisto_env.game",
})
__all__ = ["env", "raw_env", "GAME", "state_from_ascii", "legal_strings"]

if TYPE_CHECKING:  # what the names are, for type checkers
    from callisto_env.env import env, raw_env
    from callisto_env.game import GAME, legal_strings, state_from_ascii
