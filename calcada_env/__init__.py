"""Calçada for PettingZoo (see :mod:`calcada_env.env` for the full documentation)."""

from typing import TYPE_CHECKING

from gamecore.kernel.games import lazy_exports, register_package

# first, before any kernel of the package is defined: the package is the game Calçada (its kernels are
# cached and announced as its); the cold compile of each path on an idle 2-core machine and the
# kernels it compiles, measured by benchmarks/notice_seconds.py
register_package(
    __name__,
    env_id="calcada-v1",
    title="Calçada",
    compile_seconds={"aec": 8, "batched": 4, "threaded": 5, "mcts": 11, "greedy": 4, "puct": 4},
    compile_kernels={"aec": 41, "batched": 13, "threaded": 4, "mcts": 12, "greedy": 3, "puct": 2},
)

# the env and the spec load on first use: importing a kernel module imports neither gymnasium nor
# pettingzoo
lazy_exports(__name__, {
    "env": "calcada_env.env",
    "raw_env": "calcada_env.env",
    "GAME": "calcada_env.game",
    "state_from_ascii": "calcada_env.game",
    "legal_strings": "calcada_env.game",
})
__all__ = ["env", "raw_env", "GAME", "state_from_ascii", "legal_strings"]

if TYPE_CHECKING:  # what the names are, for type checkers
    from calcada_env.env import env, raw_env
    from calcada_env.game import GAME, legal_strings, state_from_ascii
