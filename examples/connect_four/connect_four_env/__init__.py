"""Connect Four for tabletop-rl-envs (see :mod:`connect_four_env.env` for the env's documentation)."""

from typing import TYPE_CHECKING

from gamecore.kernel.games import lazy_exports, register_package

# first, before any kernel of the package is defined: this package is the game Connect Four (its
# kernels are cached and announced as its). No compile figures: the notice then gives no estimate.
register_package(__name__, env_id="connect_four-v1", title="Connect Four")

# the env and the spec load on first use: importing the kernels imports neither gymnasium nor pettingzoo
lazy_exports(__name__, {
    "env": "connect_four_env.env",
    "raw_env": "connect_four_env.env",
    "GAME": "connect_four_env.game",
    "state_from_ascii": "connect_four_env.game",
    "legal_strings": "connect_four_env.game",
})
__all__ = ["env", "raw_env", "GAME", "state_from_ascii", "legal_strings"]

if TYPE_CHECKING:  # what the names are, for type checkers
    from connect_four_env.env import env, raw_env
    from connect_four_env.game import GAME, legal_strings, state_from_ascii
