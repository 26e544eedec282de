"""How an observation reaches the network: ``obs_encoding="int8"`` (default) or ``"scaled"``.

Every env path takes the option: the AEC env (``<game>_env.env(...)`` / ``raw_env``),
:class:`gamecore.envs.batched.BatchedGames`, :class:`gamecore.envs.sb3.SelfPlayVecEnv`,
:class:`gamecore.envs.single_agent.SingleAgentEnv` and :class:`gamecore.envs.rllib.RLlibEnv`.

``"int8"``
    The kernel's observation as it is: int8 counts and flags, Box ``[0, obs_high]`` (127). The
    default, unchanged.
``"scaled"``
    The same entries as float32 in ``[0, 1]``: each entry divided by its documented maximum
    (:meth:`gamecore.kernel.protocol.GameSpec.obs_high_vector`, the ``Range`` column of the env
    docstring's observation table), so one-hot flags stay 0/1 and a count at its maximum is exactly
    1.0. The space is ``Box(0, 1, float32)``. Raw counts (points that reach ~80, stocks of goods
    higher still) saturate the tanh units of SB3's default ``MlpPolicy``; scaled ones do not.

The scaled value is ``float32(obs) / float32(high)``, correctly rounded (a precomputed float32
vector of the maxima, one vectorised divide into a preallocated buffer on the batched path;
dividing rather than multiplying by ``1 / high`` keeps a count at its maximum exactly 1.0). An entry
whose maximum is 0 never holds anything but 0 and stays 0. Opponents (``(obs, masks) -> actions``
callables) get the observations in the env's encoding; the global state (``env.state()``) stays int8.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import GameSpec

#: the accepted values of ``obs_encoding``, default first
OBS_ENCODINGS = ("int8", "scaled")


def check_obs_encoding(value: Any) -> str:
    """``value`` if it is one of :data:`OBS_ENCODINGS`, else ValueError naming them."""
    if not (isinstance(value, str) and value in OBS_ENCODINGS):
        raise ValueError(f"obs_encoding must be one of {list(OBS_ENCODINGS)}, got {short_repr(value)}")
    return value


def high_array(game: GameSpec, params: np.ndarray) -> np.ndarray:
    """The per-entry maxima in the observation's shape (int64)."""
    return game.obs_high_vector(params).reshape(game.obs_shape(params))


class ObsEncoder:
    """The encoding of one game at one player count: its spaces and the int8 -> float32 scaling.

    ``encoder.scaled`` says which encoding; ``encoder.space(shape)`` is the observation Box (int8
    ``[0, obs_high]`` or float32 ``[0, 1]``) for ``shape`` (default: the game's own);
    ``encoder(obs)`` returns the observation in the encoding (int8 as it is; scaled: a new float32
    array, or written into ``out``). ``obs`` is one observation or a batch (leading axes), flat or
    in the game's shape."""

    def __init__(self, game: GameSpec, params: np.ndarray, obs_encoding: str = "int8") -> None:
        self.encoding = check_obs_encoding(obs_encoding)
        self.scaled = obs_encoding == "scaled"
        self.shape = tuple(game.obs_shape(params))
        self.int8_high = int(game.obs_high(params))
        self._game, self._params = game, np.array(params)
        self._high: np.ndarray | None = None
        self._divisor: np.ndarray | None = None
        if self.scaled:  # the int8 path never reads the maxima
            self._divisor = np.maximum(self.high, 1).astype(np.float32)  # 1 where 0: such an entry is always 0
            self._divisor.setflags(write=False)

    @property
    def high(self) -> np.ndarray:
        """The per-entry maxima, flat (int64, read-only)."""
        if self._high is None:
            high = np.array(self._game.obs_high_vector(self._params), dtype=np.int64)
            if high.shape != (int(np.prod(self.shape)),) or high.min() < 0 or high.max() > self.int8_high:
                raise ValueError(f"{self._game.name}: obs_high_vector must give one maximum in 0..{self.int8_high} "
                                 f"per entry of {self.shape}")
            high.setflags(write=False)
            self._high = high
        return self._high

    @property
    def dtype(self) -> type:
        return np.float32 if self.scaled else np.int8

    def space(self, shape: tuple[int, ...] | None = None) -> spaces.Box:
        shape = self.shape if shape is None else tuple(shape)
        if self.scaled:
            return spaces.Box(low=0.0, high=1.0, shape=shape, dtype=np.float32)
        return spaces.Box(low=0, high=self.int8_high, shape=shape, dtype=np.int8)

    def __call__(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        if self._divisor is None:
            return obs
        n = self._divisor.size
        if obs.ndim >= len(self.shape) and obs.shape[obs.ndim - len(self.shape):] == self.shape:
            tail = self.shape
        elif obs.ndim >= 1 and obs.shape[-1] == n:
            tail = (n,)
        else:
            raise ValueError(f"observations of shape {obs.shape} do not end in {self.shape} or ({n},)")
        return np.divide(obs, self._divisor.reshape(tail), out=out, dtype=np.float32)


__all__ = ["OBS_ENCODINGS", "ObsEncoder", "check_obs_encoding", "high_array"]
