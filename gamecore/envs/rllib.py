"""Ray RLlib adapter: every game as a turn-based ``MultiAgentEnv`` for RLlib's new API stack
(needs the ``rllib`` extra: ``pip install -e ".[rllib]"`` from a clone of this repository).

What it fixes compared with wrapping the AEC env in RLlib's own ``PettingZooEnv``:

* observations are ``{"observations": float32 Box, "action_mask": float32 Box}``: :class:`MaskedPPOTorchRLModule`
  (this module's own, on RLlib's ``DefaultPPOTorchRLModule``) feeds ``observations`` to RLlib's default
  encoders (a flat vector by default; ``flatten=False`` keeps the game's own shape) and sets the logits of
  masked-out actions to the lowest float; the keys are the ones RLlib's action-masking example module reads;
* an illegal action follows ``illegal`` as for the AEC env, ``"lose"`` by default: RLlib's env
  check and an unmasked module sample actions regardless of the mask, which then end the game
  with -1 for the mover instead of crashing the env runner.

Turn-based conventions (as RLlib's OpenSpiel and PettingZoo wrappers): each ``reset`` / ``step``
returns an observation only for the agent that decides next, so the action dict always holds
exactly that one agent's action; rewards are terminal only; when the game ends, every agent
receives its final observation (mask all zero), its reward and ``terminated=True``, and
``terminateds["__all__"]`` is True. A seat that is out before the end (in a game that lets a seat
drop out) simply stops receiving observations until then.

Build it from an RLlib ``env_config``: ``{"game": "<game>", "num_players": 3, ...}`` -- the game
name plus every keyword of the game's ``env()`` (``reward_mode``, ``illegal``, ``obs_encoding``, its
own options) and ``flatten``. ``obs_encoding="scaled"`` divides each entry by its documented maximum
(:mod:`gamecore.envs.encoding`), so ``observations`` lie in ``[0, 1]``; the default passes the int8
counts on as float32 (``[0, 127]``)::

    from ray.rllib.algorithms.ppo import PPOConfig
    from gamecore.envs.rllib import RLlibEnv, masked_ppo_config
    config = masked_ppo_config(PPOConfig(), {"game": "<game>", "num_players": 2})

``examples/rllib_ppo.py`` trains one shared self-play policy this way, locally or on a cluster.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from gamecore.envs.single_agent import raw_env_class
from gamecore.kernel.games import get_game
from gamecore.kernel.options import check_options, short_repr
from gamecore.kernel.protocol import H_CURRENT

_OWN_KEYWORDS = ("game", "flatten", "reward_mode", "render_mode", "viewer", "illegal", "obs_encoding")

#: the module id of the one policy every seat shares in :func:`masked_ppo_config`
SHARED_POLICY = "shared"


class RLlibEnv(MultiAgentEnv):
    """A game for RLlib: one agent per seat (``player_0`` ...), the deciding one observed."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        cfg = dict(config or {})
        if "game" not in cfg:
            raise ValueError("RLlibEnv: env_config must name the game, e.g. {'game': <name>, 'num_players': 2}")
        spec = get_game(cfg.pop("game"))
        flatten = cfg.pop("flatten", True)
        cfg.setdefault("illegal", "lose")
        check_options(spec, cfg, _OWN_KEYWORDS, "RLlibEnv")
        self.game = spec
        self.aec = raw_env_class(spec)(**cfg)
        raw = self.aec
        if not isinstance(flatten, (bool, np.bool_)):
            raise TypeError(f"flatten must be True or False, got {short_repr(flatten)}")
        self.flatten = bool(flatten)
        box = raw.observation_spaces[raw.possible_agents[0]]["observation"]
        shape = (int(np.prod(box.shape)),) if self.flatten else box.shape
        space = gym.spaces.Dict(
            {
                # float32 in any encoding: the int8 counts as they are, or scaled to [0, 1]
                "observations": gym.spaces.Box(0.0, float(box.high.max()), shape, dtype=np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (raw._num_actions,), dtype=np.float32),
            }
        )
        self.possible_agents = list(raw.possible_agents)
        self.agents = list(self.possible_agents)
        self._agent_ids = set(self.possible_agents)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: gym.spaces.Discrete(raw._num_actions) for a in self.possible_agents}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        o = self.aec.observe(agent)
        obs = o["observation"].reshape(-1) if self.flatten else o["observation"]
        return {"observations": obs.astype(np.float32), "action_mask": o["action_mask"].astype(np.float32)}

    @property
    def _decider(self) -> str:
        return self.possible_agents[int(self.aec.state_array[H_CURRENT])]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed)
        self.agents = list(self.possible_agents)
        agent = self._decider
        return {agent: self._obs(agent)}, {agent: {}}

    def step(self, action_dict: dict[str, Any]):
        raw = self.aec
        if raw.game_over:
            raise RuntimeError("the game is over: call reset()")
        agent = self._decider
        if agent not in action_dict:
            raise ValueError(f"{agent} decides now; the action dict has {sorted(action_dict)}")
        raw.step(action_dict[agent])
        if raw.game_over:
            agents = self.possible_agents
            obs = {a: self._obs(a) for a in agents}
            rewards = {a: float(raw.rewards[a]) for a in agents}
            infos = {a: dict(raw.infos.get(a, {})) for a in agents}
            done = dict.fromkeys(agents, True)
            return obs, rewards, {**done, "__all__": True}, {**dict.fromkeys(agents, False), "__all__": False}, infos
        nxt = self._decider
        # RLlib wants a reward with every observation of an agent that has acted: mid-game it is 0
        return {nxt: self._obs(nxt)}, {nxt: 0.0}, {"__all__": False}, {"__all__": False}, {nxt: {}}

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


class MaskedPPOCatalog(PPOCatalog):
    """RLlib's PPO catalog for the ``observations`` part of a ``{"observations", "action_mask"}`` space:
    the encoder sees the game's observation, never the mask."""

    def __init__(self, observation_space: gym.Space, action_space: gym.Space, model_config_dict: dict) -> None:
        if isinstance(observation_space, gym.spaces.Dict):
            observation_space = observation_space["observations"]
        super().__init__(observation_space, action_space, model_config_dict)


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The action mask, and a shallow copy of ``batch`` whose observations are the game's alone."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict) or "action_mask" not in obs or "observations" not in obs:
        raise ValueError(
            'MaskedPPOTorchRLModule needs {"observations": ..., "action_mask": ...} observations '
            f"(gamecore.envs.rllib.RLlibEnv's), got {type(obs).__name__} {sorted(obs) if isinstance(obs, dict) else ''}"
        )
    return obs["action_mask"], {**batch, Columns.OBS: obs["observations"]}


def _masked(out: dict[str, Any], mask: Any) -> dict[str, Any]:
    logits = out[Columns.ACTION_DIST_INPUTS]
    # the lowest finite float, not -inf: an all-zero mask (a game's final observation) gives equal
    # probabilities, and the entropy and log-probabilities of the loss stay finite
    out[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0, logits, torch.finfo(logits.dtype).min)
    return out


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module (``DefaultPPOTorchRLModule``: encoder, policy and value heads
    from ``PPOCatalog`` and ``model_config``) for :class:`RLlibEnv`'s dict observations: the networks
    see ``observations``; in every forward pass the logits of actions whose ``action_mask`` entry is 0
    are set to the lowest float, so sampling, greedy play and the PPO loss only see legal actions.

    The module's ``observation_space`` stays the dict space (RLlib rebuilds the module from it on every
    env runner and learner); only the catalog builds its networks for ``observations``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("catalog_class") is None:
            kwargs["catalog_class"] = MaskedPPOCatalog
        super().__init__(*args, **kwargs)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        return _masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        return _masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None:
            batch = _split(batch)[1]
        return super().compute_values(batch, embeddings)


def action_masking_module_spec(model_config: dict[str, Any] | None = None):
    """An ``RLModuleSpec`` of :class:`MaskedPPOTorchRLModule` (RLlib's default model config keys:
    ``fcnet_hiddens``, ``head_fcnet_hiddens``, ``vf_share_layers``, ...)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    return RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        catalog_class=MaskedPPOCatalog,
        model_config=dict(model_config or {"fcnet_hiddens": [128, 128], "head_fcnet_hiddens": []}),
    )


def shared_policy_mapping(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the same policy (self-play with parameter sharing)."""
    return SHARED_POLICY


def masked_ppo_config(config: Any, env_config: dict[str, Any], model_config: dict[str, Any] | None = None) -> Any:
    """``config`` (a ``PPOConfig``) set up for a game: :class:`RLlibEnv` with ``env_config``, one
    policy shared by every seat, and :class:`MaskedPPOTorchRLModule`. RLlib's env check stays on: it
    steps sampled (unmasked) actions, which forfeit under the default ``illegal="lose"``."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    return (
        config.environment(RLlibEnv, env_config=dict(env_config))
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy_mapping)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: action_masking_module_spec(model_config)})
        )
    )


__all__ = [
    "MaskedPPOCatalog",
    "MaskedPPOTorchRLModule",
    "RLlibEnv",
    "SHARED_POLICY",
    "action_masking_module_spec",
    "masked_ppo_config",
    "shared_policy_mapping",
]
