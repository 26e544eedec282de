"""Machinery shared by the four game packages.

* :mod:`gamecore.jit`       -- the one place jit options are set.
* :mod:`gamecore.rng`       -- a counter-free xorshift generator kept *inside* the state array.
* :mod:`gamecore.protocol`  -- the kernel interface every game implements, and :class:`~gamecore.protocol.GameSpec`.
* :mod:`gamecore.aec`       -- :class:`~gamecore.aec.BaseRawEnv`, the PettingZoo AEC wrapper over a kernel.
* :mod:`gamecore.batched`   -- :class:`~gamecore.batched.BatchedGames` (N games in one array) and the SB3
  :class:`~gamecore.sb3.SelfPlayVecEnv`.
* :mod:`gamecore.rewards`   -- rank / score rewards from a finished game.
* :mod:`gamecore.single_agent` -- one seat against fixed opponents as a ``gymnasium.Env``
  (``tabletop-rl-envs/<Game>-v1``).
* :mod:`gamecore.rllib`     -- the games as RLlib ``MultiAgentEnv`` s (needs the ``rllib`` extra).
* :mod:`gamecore.agents`    -- baseline agents (random, greedy, MCTS, MaskablePPO) for every game;
  :mod:`gamecore.mcts` holds their search kernels.
* :mod:`gamecore.arena`     -- seat-rotated games between agents, statistics and ratings.
* :mod:`gamecore.play`, :mod:`gamecore.replay` -- terminal play, game records and replay pictures;
  :mod:`gamecore.cli` is ``python -m gamecore``.
"""

from gamecore import registration as _registration  # noqa: F401  (registers every game's ids)
from gamecore.protocol import GameSpec, Kernels

__all__ = ["GameSpec", "Kernels"]
