"""Calimala for PettingZoo (see :mod:`calimala_env.env` for the full documentation)."""

from typing import TYPE_CHECKING

from gamecore.kernel.games import lazy_exports, register_package

# first, before any kernel of the package is defined: the package is the game Calimala (its kernels are
# cached and announced as its); the cold compile of each path on an idle 2-core machine and the
# kernels it compiles, measured by benchmarks/notice_seconds.py
register_package(
    __name__,
    env_id="calimala-v1",
    title="Calimala",
    compile_seconds={"aec": 19, "batched": 5, "threaded": 10, "mcts": 27, "greedy": 8, "puct": 7},
    compile_kernels={"aec": 49, "batched": 7, "threaded": 4, "mcts": 40, "greedy": 3, "puct": 2},
)

# the env and the spec load on first use: importing a kernel module imports neither gymnasium nor
# pettingzoo
lazy_exports(__name__, {
    "env": "calimala_env.env",
    "raw_env": "calimala_env.env",
    "GAME": "calimala_env.game",
    "state_from_ascii": "calimala_env.game",
    "legal_strings": "calimala_env.game",
})
__all__ = ["env", "raw_env", "GAME", "state_from_ascii", "legal_strings"]

if TYPE_CHECKING:  # what the names are, for type checkers
    from calimala_env.env import env, raw_env
    from calimala_env.game import GAME, legal_strings, state_from_ascii
