"""Machinery shared by the game packages, in four layers; a module imports only from its own layer
and the layers below it (``tests/test_layers.py``):

* ``gamecore.kernel`` -- numba kernels and what they read: jit options and the kernel cache
  (:mod:`~gamecore.kernel.jit`), the kernel contract and :class:`~gamecore.kernel.protocol.GameSpec`
  (:mod:`~gamecore.kernel.protocol`), layouts, the state header, the in-state RNG, the batched
  kernels, rewards, and the registry of games (:mod:`~gamecore.kernel.games`). Imports neither
  gymnasium nor pettingzoo.
* ``gamecore.envs`` -- the paths a trainer steps: the PettingZoo AEC env
  (:mod:`~gamecore.envs.aec`), N games in one array (:mod:`~gamecore.envs.batched`), the SB3
  ``VecEnv`` (:mod:`~gamecore.envs.sb3`), the single-agent Gymnasium env, RLlib, OpenSpiel, the
  observation encodings, the global state and the registration with PettingZoo's and Gymnasium's
  registries (``import gamecore.envs``).
* ``gamecore.search`` -- search and learning: MCTS and PUCT kernels, the agents, the value and
  AlphaZero nets, reading and writing models.
* ``gamecore.tools`` -- what a person runs: the arena, terminal play, records and replays, the
  warm-up, the CLI (``python -m gamecore``).

:mod:`gamecore.testing` is the conformance kit a game passes (see ``docs/adding_a_game.md``).
"""

from gamecore.kernel.protocol import GameSpec, Kernels

__all__ = ["GameSpec", "Kernels"]
