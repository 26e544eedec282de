"""The policy / value network of the AlphaZero-style loop (``examples/alphazero.py``) and its checkpoints.

Needs torch (the ``train`` extra); :mod:`gamecore.search.puct` itself does not. The network is a small
MLP on the flat int8 observation of the deciding seat: a trunk of ``hidden`` ReLU layers, a policy
head of one logit per action (masked by legality in :func:`gamecore.search.puct.masked_softmax`) and a
value head ``tanh`` in [-1, 1], the decider's expected rank reward.

Observation scaling
-------------------
:func:`encode_obs` is the one place the int8 observation becomes the float32 network input:
``sign(x) * log1p(|x|)``, which leaves 0/1 planes near 1 (0.69) and squashes counts (one of ~80 goes
to 4.4) so none saturates the trunk; every game's ``obs_high`` is 127, so no per-game divisor
is known. The checkpoint records the encoding's name (``ENCODING``), so a later encoding (an
``obs_encoding="scaled"`` env option, say) can replace this function and still refuse, or convert,
old checkpoints.

Checkpoints
-----------
``torch.save`` of a dict: ``format`` (``CHECKPOINT_FORMAT``), ``config`` (game, players, sizes,
hidden layers, encoding and the training options), ``model`` (the network's ``state_dict``),
``optimizer``, ``iteration`` and ``rng`` (the generators' states, for an exact ``--resume``).
Every entry is a tensor or a plain value (numbers, strings, lists, dicts), so
:func:`load_checkpoint` reads a checkpoint with ``torch.load(..., weights_only=True)``: a file
that holds anything else (a crafted pickle) is refused, never run. Before any tensor is used, the
config's values must be of the types :func:`save_checkpoint` writes, its network at most
:data:`gamecore.search.model_io.MAX_PARAMETERS` weights (hidden layers: at most ``MAX_LAYERS`` of at most
``MAX_WIDTH``), and every tensor dense and finite (:func:`gamecore.search.model_io.check_tensors`): a
small file cannot stand for a large network.
"""

from __future__ import annotations

import math
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
    """The :data:`gamecore.search.puct.Evaluator` of ``net``: one forward pass (no gradients) on the
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


def _plain(value: Any, where: str) -> Any:
    """``value`` in the types ``torch.load(..., weights_only=True)`` reads back (numbers, strings,
    None, tensors and lists / tuples / str-keyed dicts of them): numpy scalars and arrays become
    Python numbers and tensors, paths strings; anything else is a TypeError naming ``where``."""
    import torch

    if isinstance(value, np.generic):  # before float: np.float64 is one
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str, torch.Tensor)):
        return value
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        items = [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        if not all(isinstance(k, (str, int)) for k in value):
            raise TypeError(f"save_checkpoint: {where} has keys other than strings and ints")
        return {k: _plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    raise TypeError(f"save_checkpoint: {where} is a {type(value).__name__}, which a checkpoint cannot hold "
                    "(numbers, strings, tensors and lists / dicts of them)")


def save_checkpoint(path: str | Path, net: Any, optimizer: Any, iteration: int, config: dict[str, Any],
                    rng: dict[str, Any]) -> Path:
    """Write a checkpoint (atomically: a temporary file renamed over ``path``), every entry in the
    types :func:`load_checkpoint` reads back with ``weights_only=True``: numpy scalars and arrays
    become Python numbers and tensors, paths strings, anything else a TypeError."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(_plain({"format": CHECKPOINT_FORMAT, "config": dict(config), "model": net.state_dict(),
                       "optimizer": optimizer.state_dict() if optimizer is not None else None,
                       "iteration": int(iteration), "rng": rng}, "the checkpoint"), tmp)
    tmp.replace(path)
    return path


def _is_count(v: Any, high: int = 2**24) -> bool:
    return type(v) is int and 1 <= v <= high


def _plain_config(value: Any) -> bool:
    """Whether a config holds only plain values (numbers, strings, None, lists and str-keyed
    dicts of them; walked without recursion): no tensor."""
    stack = [value]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if not all(type(k) is str for k in x):
                return False
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif not (x is None or type(x) in (bool, int, float, str)):
            return False
    return True


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint written by :func:`save_checkpoint`, read with ``torch.load(..., weights_only=True)``
    (tensors and plain values only: a file that holds anything else is refused, never run) and
    checked before any tensor is used: FileNotFoundError for a missing file, one ValueError naming
    the file and what is wrong for anything else: a config value of another type than
    :func:`save_checkpoint` writes, more than :data:`~gamecore.search.model_io.MAX_LAYERS` hidden layers or
    one wider than :data:`~gamecore.search.model_io.MAX_WIDTH`, a network of more than
    :data:`~gamecore.search.model_io.MAX_PARAMETERS` weights (its optimizer state twice that), a tensor
    stored in fewer bytes than its elements take (a zero-stride view), non-finite weights or
    optimizer state (:func:`gamecore.search.model_io.check_tensors`)."""
    path = Path(path)
    if not path.is_file():  # before the import: a wrong path is reported without torch installed
        raise FileNotFoundError(f"az: no checkpoint at {path}")
    import pickle

    import torch

    from gamecore.kernel.options import one_line
    from gamecore.search.model_io import (
        MAX_LAYERS,
        MAX_PARAMETERS,
        MAX_TORCH_BYTES,
        MAX_WIDTH,
        check_tensors,
        check_torch_archive,
    )

    what = f"az: {path} is not a checkpoint of examples/alphazero.py"
    with open(path, "rb") as f:
        head = f.read(4)
    if not head:
        raise ValueError(f"{what}: the file is empty")
    if path.stat().st_size > MAX_TORCH_BYTES:
        raise ValueError(f"{what} (a file of {path.stat().st_size:,} bytes, more than the {MAX_TORCH_BYTES:,} read)")
    if head.startswith(b"PK"):  # torch's zip format: no compressed record, bounded in all
        check_torch_archive(path, what, MAX_TORCH_BYTES)
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        if head.startswith(b"PK"):  # torch's own zip format, holding more than tensors and plain values
            raise ValueError(f"az: {path} holds objects other than tensors and plain values (refused: loading "
                             "them could run code)") from None
        raise ValueError(f"{what} (not a torch file)") from None
    except Exception as exc:  # truncated or foreign: RuntimeError, EOFError, ...
        raise ValueError(f"{what} (truncated, or another kind of file: {one_line(exc, 120)})") from None
    # exact types first: a tensor compared with == or tested for truth raises (or broadcasts)
    if not isinstance(ckpt, dict) or type(ckpt.get("format")) is not int or ckpt["format"] != CHECKPOINT_FORMAT \
            or not isinstance(ckpt.get("config"), dict) or any(k not in ckpt["config"] for k in NETWORK_KEYS):
        raise ValueError(f"{what} (format {CHECKPOINT_FORMAT}: a dict with format, config, model)")
    cfg = ckpt["config"]
    if not _plain_config(cfg):
        raise ValueError(f"{what}: its config holds values other than numbers, strings and lists (a tensor?)")
    if type(cfg["encoding"]) is not str or cfg["encoding"] != ENCODING:
        named = cfg["encoding"][:40] if type(cfg["encoding"]) is str else f"a {type(cfg['encoding']).__name__}"
        raise ValueError(f"az: {path} encodes observations as {named!r}; this version reads {ENCODING!r}")
    hidden = cfg["hidden"]
    if not (type(cfg["game"]) is str and _is_count(cfg["players"], 64) and _is_count(cfg["obs_len"])
            and _is_count(cfg["num_actions"]) and isinstance(hidden, (list, tuple)) and len(hidden) <= MAX_LAYERS
            and all(_is_count(h, MAX_WIDTH) for h in hidden)):
        raise ValueError(f"{what}: malformed config (game, players, obs_len, num_actions; hidden sizes: at most "
                         f"{MAX_LAYERS} layers of at most {MAX_WIDTH:,})")
    numbers = sum(math.prod(s) for s in _expected_shapes(cfg).values())
    if numbers > MAX_PARAMETERS:
        raise ValueError(f"az: {path} declares a network of {numbers:,} weights (obs_len {cfg['obs_len']}, hidden "
                         f"{list(hidden)}, {cfg['num_actions']} actions), more than the {MAX_PARAMETERS:,} read")
    from gamecore.search import mcts, puct

    options = {"simulations": lambda v: mcts.check_int("simulations", v),  # what the az agent searches with
               "c_puct": lambda v: puct.check_real("c_puct", v, strict=True),
               "mix": lambda v: puct.check_real("mix", v, high=1.0),
               "horizon": lambda v: mcts.check_int("horizon", v, low=0),
               "scale": lambda v: mcts.check_real("scale", v)}
    for key, check in options.items():
        if cfg.get(key) is not None:
            try:
                if type(cfg[key]) not in (int, float):
                    raise TypeError(f"{key} must be a number, got a {type(cfg[key]).__name__}")
                check(cfg[key])
            except (TypeError, ValueError) as exc:
                raise ValueError(f"az: {path} holds a malformed training option: {exc}") from None
    if "iteration" in ckpt and not (type(ckpt["iteration"]) is int and ckpt["iteration"] >= 0):
        raise ValueError(f"{what}: its iteration is not a count")
    model = ckpt.get("model")
    if not isinstance(model, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in model.items()):
        raise ValueError(f"{what}: its model entry is not a state dict of tensors")
    prefix = f"az: {path}"
    check_tensors(model, prefix, "model", MAX_PARAMETERS)  # dense, capped, finite: before any is used
    if ckpt.get("optimizer") is not None:
        if not isinstance(ckpt["optimizer"], dict):
            raise ValueError(f"{what}: its optimizer entry is not an optimizer state")
        check_tensors(ckpt["optimizer"], prefix, "optimizer", 2 * MAX_PARAMETERS + 2**20)
    check_tensors(ckpt.get("rng"), prefix, "rng", 2**20, finite=False)
    return ckpt


def _expected_shapes(cfg: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The state dict shapes of :func:`make_network` for a checkpoint's config."""
    shapes: dict[str, tuple[int, ...]] = {}
    width = int(cfg["obs_len"])
    for i, h in enumerate(cfg["hidden"]):
        shapes[f"trunk.{2 * i}.weight"], shapes[f"trunk.{2 * i}.bias"] = (int(h), width), (int(h),)
        width = int(h)
    shapes["policy.weight"], shapes["policy.bias"] = (int(cfg["num_actions"]), width), (int(cfg["num_actions"]),)
    shapes["value.weight"], shapes["value.bias"] = (1, width), (1,)
    return shapes


def load_network(path: str | Path) -> tuple[Any, dict[str, Any]]:
    """(network in eval mode, config) of a checkpoint; ValueError naming the file where its weights
    do not fit the network its config describes."""
    ckpt = load_checkpoint(path)
    cfg = ckpt["config"]
    got = {k: tuple(v.shape) for k, v in ckpt["model"].items()}
    want = _expected_shapes(cfg)
    if got != want:
        diff = sorted(set(got) ^ set(want)) or [k for k in want if got[k] != want[k]]
        raise ValueError(f"az: {path} holds weights that do not match its config (obs_len {cfg['obs_len']}, "
                         f"hidden {list(cfg['hidden'])}, {cfg['num_actions']} actions): {', '.join(diff[:4])}")
    net = make_network(int(cfg["obs_len"]), int(cfg["num_actions"]), tuple(cfg["hidden"]))
    try:
        net.load_state_dict(ckpt["model"])
    except (RuntimeError, ValueError) as exc:  # a dtype torch cannot copy, say
        raise ValueError(f"az: {path} holds weights that do not fit its network ({str(exc)[:120]})") from None
    net.eval()
    return net, cfg


__all__ = ["ENCODING", "encode_obs", "make_network", "make_evaluator", "save_checkpoint", "load_checkpoint",
           "load_network"]
