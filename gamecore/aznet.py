"""The policy / value network of the AlphaZero-style loop (``examples/alphazero.py``) and its checkpoints.

Needs torch (the ``train`` extra); :mod:`gamecore.puct` itself does not. The network is a small
MLP on the flat int8 observation of the deciding seat: a trunk of ``hidden`` ReLU layers, a policy
head of one logit per action (masked by legality in :func:`gamecore.puct.masked_softmax`) and a
value head ``tanh`` in [-1, 1], the decider's expected rank reward.

Observation scaling
-------------------
:func:`encode_obs` is the one place the int8 observation becomes the float32 network input:
``sign(x) * log1p(|x|)``, which leaves 0/1 planes near 1 (0.69) and squashes counts (Calçada's go
to ~80, 4.4) so none saturates the trunk; every game's ``obs_high`` is 127, so no per-game divisor
is known. The checkpoint records the encoding's name (``ENCODING``), so a later encoding (an
``obs_encoding="scaled"`` env option, say) can replace this function and still refuse, or convert,
old checkpoints.

Checkpoints
-----------
``torch.save`` of a dict: ``format`` (``CHECKPOINT_FORMAT``), ``config`` (game, players, sizes,
hidden layers, encoding and the training options), ``model`` (the network's ``state_dict``),
``optimizer``, ``iteration`` and ``rng`` (the generators' states, for an exact ``--resume``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: name of :func:`encode_obs`'s scaling, recorded in every checkpoint
ENCODING = "log1p"
#: version of the checkpoint dict
CHECKPOINT_FORMAT = 1
#: the config keys a checkpoint must hold to rebuild its network
NETWORK_KEYS = ("game", "players", "obs_len", "num_actions", "hidden", "encoding")


def encode_obs(obs: Any):
    """The network input for a batch of int8 observations ``(k, ...)``: ``(k, obs_len)`` float32,
    ``sign(x) * log1p(|x|)`` (see the module docstring)."""
    import torch

    x = torch.as_tensor(np.asarray(obs)).reshape(len(obs), -1).to(torch.float32)
    return torch.sign(x) * torch.log1p(x.abs())


def make_network(obs_len: int, num_actions: int, hidden: tuple[int, ...] | list[int] = (256, 256)):
    """A fresh ``PolicyValueNet``, a torch module (torch is imported here, not at module import)."""
    import torch
    from torch import nn

    class PolicyValueNet(nn.Module):
        """MLP trunk, a policy head (one logit per action) and a tanh value head."""

        def __init__(self) -> None:
            super().__init__()
            layers: list[nn.Module] = []
            width = obs_len
            for h in hidden:
                layers += [nn.Linear(width, int(h)), nn.ReLU()]
                width = int(h)
            self.trunk = nn.Sequential(*layers)
            self.policy = nn.Linear(width, num_actions)
            self.value = nn.Linear(width, 1)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            z = self.trunk(x)
            return self.policy(z), torch.tanh(self.value(z)).squeeze(-1)

    return PolicyValueNet()


def make_evaluator(net: Any):
    """The :data:`gamecore.puct.Evaluator` of ``net``: one forward pass (no gradients) on the
    encoded leaf observations."""
    import torch

    def evaluate(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        was = net.training
        net.eval()
        with torch.no_grad():
            logits, values = net(encode_obs(obs))
        net.train(was)
        return logits.numpy(), values.numpy()

    return evaluate


def save_checkpoint(path: str | Path, net: Any, optimizer: Any, iteration: int, config: dict[str, Any],
                    rng: dict[str, Any]) -> Path:
    """Write a checkpoint (atomically: a temporary file renamed over ``path``)."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"format": CHECKPOINT_FORMAT, "config": dict(config), "model": net.state_dict(),
                "optimizer": optimizer.state_dict() if optimizer is not None else None,
                "iteration": int(iteration), "rng": rng}, tmp)
    tmp.replace(path)
    return path


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint written by :func:`save_checkpoint`, checked (FileNotFoundError / ValueError)."""
    path = Path(path)
    if not path.is_file():  # before the import: a wrong path is reported without torch installed
        raise FileNotFoundError(f"az: no checkpoint at {path}")
    import torch

    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:  # a truncated or foreign file
        raise ValueError(f"az: {path} is not a checkpoint of examples/alphazero.py ({exc})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT or not isinstance(
            ckpt.get("config"), dict) or any(k not in ckpt["config"] for k in NETWORK_KEYS):
        raise ValueError(f"az: {path} is not a checkpoint of examples/alphazero.py (format {CHECKPOINT_FORMAT})")
    if ckpt["config"]["encoding"] != ENCODING:
        raise ValueError(f"az: {path} encodes observations as {ckpt['config']['encoding']!r}; this version reads "
                         f"{ENCODING!r}")
    return ckpt


def load_network(path: str | Path) -> tuple[Any, dict[str, Any]]:
    """(network in eval mode, config) of a checkpoint."""
    ckpt = load_checkpoint(path)
    cfg = ckpt["config"]
    net = make_network(int(cfg["obs_len"]), int(cfg["num_actions"]), tuple(cfg["hidden"]))
    net.load_state_dict(ckpt["model"])
    net.eval()
    return net, cfg


__all__ = ["ENCODING", "encode_obs", "make_network", "make_evaluator", "save_checkpoint", "load_checkpoint",
           "load_network"]
