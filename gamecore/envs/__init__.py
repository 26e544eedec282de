"""The paths a trainer steps: the AEC env, batched games, the SB3 ``VecEnv``, the single-agent env,
RLlib, OpenSpiel. Importing this package registers every game's ids with PettingZoo and Gymnasium
(:mod:`gamecore.envs.registration`)."""

from gamecore.envs import registration as _registration

_registration.register_all()
