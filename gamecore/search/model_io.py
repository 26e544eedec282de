"""Model files read without running their code: MaskablePPO zips and ``.npz`` arrays.

A model file may come from anywhere (a download, an untrusted checkout), so no loader here lets it
name code to run, and none lets a small file make it allocate much (every size is checked on what
the file declares before anything is read or built) or set anything outside the object it builds.
Every failure is one ``ValueError`` (``FileNotFoundError`` for a missing file) whose message names
the file and what is wrong with it.

MaskablePPO zips
----------------
Stable-Baselines3 saves a model as a zip of a ``data`` JSON entry (the algorithm's settings) and
``.pth`` state dicts (read with ``torch.load(..., weights_only=True)``). The entries of ``data``
that JSON cannot hold (the policy and buffer classes, the spaces, the schedules, the last
observation) are cloudpickle blobs (``":serialized:"``), which ``MaskablePPO.load`` would unpickle:
a crafted file runs its code there. :func:`load_maskppo` never lets it: it reads the JSON first and
supplies every such entry itself (SB3's ``custom_objects``, which stand in for them unread), built
from the game's own spaces and the library's classes after checking the entry's readable fields
say so:

- ``policy_class``: ``MaskableActorCriticPolicy`` (the ``MlpPolicy`` ``examples/train.py`` trains),
  ``rollout_buffer_class``: ``MaskableRolloutBuffer``;
- ``observation_space``: the game's Box at the player count whose observation shape the entry's
  ``_shape`` gives, int8 ``[0, 127]`` or, for ``dtype`` float32, the scaled ``[0, 1]``
  (:mod:`gamecore.envs.encoding`); ``action_space``: ``Discrete(n)``, ``n`` the game's action count at
  that player count;
- ``lr_schedule``, ``clip_range``, ``clip_range_vf``, ``learning_rate``: a constant schedule of the
  value its readable ``value_schedule`` text names (``ConstantSchedule(val=0.2)``), else a
  stand-in (SB3's defaults, 3e-4 and 0.2; the learning rate's own value for ``lr_schedule``): these
  steer further training of the loaded object only, which no route here does (``train.py --init``
  copies the weights and the optimizer state into a model of its own settings);
- ``_last_obs``, ``_last_original_obs``, ``_last_episode_starts``, ``action_noise``: None;
  ``ep_info_buffer``, ``ep_success_buffer``: empty.

- ``policy_kwargs``: the saved one checked (below), SB3's stale ``device`` dropped;
- ``n_steps``, ``n_envs``, ``batch_size``, ``rollout_buffer_kwargs``: 1, 1, 1 and ``{}`` (passed to
  SB3's load, saved or not): the loaded object allocates a one-step rollout buffer, not the saved
  ``n_steps x n_envs`` observations and masks. It is an object to play with and to copy weights
  from; trained in place it would roll out one step at a time.

Refused, each with one error naming the file:

- any other serialized entry; an ``env`` entry (SB3 never saves one; loaded, a string there would
  be passed to ``gym.make``, which imports the module a ``"module:Env"`` id names); a ``data``
  entry named after an attribute of the class (SB3 sets every entry on the model: ``"predict": 1``
  would replace the method); a space that fits none of the game's; a zip without ``data`` or one
  of another game;
- sizes checked before anything is read or built: a file of more than :data:`MAX_MODEL_BYTES`;
  an entry compressed otherwise than stored or deflated, or named twice; ``data`` of more than
  :data:`MAX_DATA_BYTES` or a ``.pth`` of more than :data:`MAX_PTH_BYTES` uncompressed (the zip's
  directory says; a deflate bomb is never inflated); ``data`` JSON nested too deep to parse;
- ``policy_kwargs`` other than ``net_arch``, ``ortho_init``, ``share_features_extractor``,
  ``normalize_images`` (booleans) and ``optimizer_kwargs`` (finite numbers); a ``net_arch`` of
  more than :data:`MAX_LAYERS` widths (per branch) or a width beyond :data:`MAX_WIDTH`, or one
  whose network holds more than :data:`MAX_PARAMETERS` weights;
- a ``.pth`` entry other than ``policy.pth``, ``policy.optimizer.pth`` and
  ``pytorch_variables.pth`` (SB3 loads any ``name.pth`` into the attribute ``name``), and a
  ``pytorch_variables.pth`` that is not empty (MaskablePPO saves none; SB3 would run
  ``setattr`` on whatever path each name gives, ``torch.nn.Parameter`` included);
- ``policy.pth`` tensors that are not exactly the names and shapes of the network
  ``policy_kwargs`` describes (checked before SB3 builds it), not floating-point, not finite, or
  stored in fewer bytes than their elements take (a zero-stride view standing for a large tensor:
  :func:`check_tensors`); an optimizer state with such tensors, more than twice
  :data:`MAX_PARAMETERS` numbers, a non-finite number or a moment of another shape than its
  parameter.

Every ``.pth`` entry is read here with ``weights_only=True`` before SB3 reads it, so an older SB3
(which read them unrestricted) runs no code either.

:func:`strip_pickles` (``python -m gamecore.search.model_io MODEL.zip``) rewrites a zip's ``data`` with
every serialized blob removed (the readable fields kept, the other entries byte for byte), the form
the shipped baselines and ``examples/train.py``'s models (:func:`save_maskppo`) take: they hold no
pickle but the ``.pth`` tensors, and :func:`load_maskppo` reads them as it reads a zip SB3 saved.
"""

from __future__ import annotations

import copy
import io
import json
import math
import re
import zipfile
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from gamecore.kernel.options import one_line

__all__ = ["check_torch_archive", "load_maskppo", "maskppo_custom_objects", "read_maskppo_data", "save_maskppo",
           "strip_pickles", "read_npz", "check_tensors", "MAX_NPZ_BYTES", "MAX_PARAMETERS", "MAX_WIDTH",
           "MAX_LAYERS", "MAX_MODEL_BYTES", "MAX_DATA_BYTES", "MAX_PTH_BYTES", "MAX_TORCH_BYTES"]

#: the most uncompressed bytes :func:`read_npz` reads from one file
MAX_NPZ_BYTES = 2**31
#: the most numbers (tensor elements) a network's weights may hold, in a MaskablePPO zip's
#: ``policy.pth`` or an AlphaZero checkpoint's ``model``: 2**26 (67 million; 256 MiB of float32).
#: The shipped networks hold 0.1 to 0.7 million; a 1024 x 1024 MaskablePPO network on the largest
#: observation of the shipped games, 12 million. Optimizer states may hold twice as many (Adam's two moments).
MAX_PARAMETERS = 2**26
#: the widest hidden layer a saved network may declare (``net_arch``, ``hidden``): 2**16
MAX_WIDTH = 2**16
#: the most hidden layers a saved network may declare (per branch of a ``net_arch``)
MAX_LAYERS = 64
#: the largest MaskablePPO zip :func:`load_maskppo` reads (a file beyond it is refused unread)
MAX_MODEL_BYTES = 2**31
#: the largest uncompressed ``data`` entry of a MaskablePPO zip (the shipped ones: 6 to 11 KB; an SB3
#: save whose pickled last observation holds a few hundred float32 observations of the largest game: a few MB)
MAX_DATA_BYTES = 16 * 2**20
#: the largest uncompressed ``.pth`` entry of a MaskablePPO zip (:data:`MAX_PARAMETERS` float32
#: numbers take 256 MiB; their Adam state twice that)
MAX_PTH_BYTES = 2**30
#: the largest ``torch.save`` file :func:`check_torch_archive` lets ``torch.load`` read on its own (an
#: AlphaZero checkpoint: the network of :data:`MAX_PARAMETERS` float32 numbers, its Adam state and
#: the rest)
MAX_TORCH_BYTES = 2**31
#: the ``.pth`` entries a MaskablePPO zip may hold (SB3 would load any other ``name.pth`` into the
#: attribute ``name`` of the model)
_PTH_ENTRIES = ("policy.pth", "policy.optimizer.pth", "pytorch_variables.pth")
#: the ``policy_kwargs`` a saved MaskablePPO may hold (plain values only: any class would make SB3
#: pickle the whole entry, which is refused); SB3 removes ``device`` itself
_POLICY_KWARGS = ("net_arch", "ortho_init", "share_features_extractor", "normalize_images", "optimizer_kwargs",
                  "device")
#: stand-ins for the rollout settings of a loaded model (passed to SB3's load after the saved
#: values): the loaded object allocates a one-step rollout buffer, not the ``n_steps x n_envs``
#: observations (and action masks) of the saved settings; no route here trains the loaded object
_ROLLOUT_STANDINS = {"n_steps": 1, "n_envs": 1, "batch_size": 1, "rollout_buffer_kwargs": {}}

_POLICY_MODULE = "sb3_contrib.common.maskable.policies"
_BUFFER_MODULE = "sb3_contrib.common.maskable.buffers"
_BOX = "<class 'gymnasium.spaces.box.Box'>"
_DISCRETE = "<class 'gymnasium.spaces.discrete.Discrete'>"
_CONSTANT = re.compile(r"ConstantSchedule\(val=([^()]+)\)")
#: entries a loaded model needs none of (SB3 resets or rebuilds them when it trains)
_EMPTY_ENTRIES = ("_last_obs", "_last_original_obs", "_last_episode_starts", "action_noise")
_BUFFERS = ("ep_info_buffer", "ep_success_buffer")
#: schedules and the stand-in where their value cannot be read (SB3's defaults)
_SCHEDULES = {"learning_rate": 3e-4, "lr_schedule": None, "clip_range": 0.2, "clip_range_vf": None}


def _is_serialized(value: Any) -> bool:
    """An entry SB3 wrote as a pickle (``":serialized:"``), or one :func:`strip_pickles` stripped of it."""
    return isinstance(value, dict) and (":serialized:" in value or ":type:" in value)


def _open_zip(path: Path, what: str) -> tuple[bytes, zipfile.ZipFile]:
    if not path.is_file():
        raise FileNotFoundError(f"{what}: no saved model at {path}")
    size = path.stat().st_size
    if size > MAX_MODEL_BYTES:
        raise ValueError(f"{what}: {path} holds {size:,} bytes, more than the {MAX_MODEL_BYTES:,} a MaskablePPO "
                         "model is read with (refused unread)")
    raw = path.read_bytes()
    if not raw:
        raise ValueError(f"{what}: {path} is empty, not a saved model")
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: not a zip file (truncated, or another kind "
                         f"of file: {one_line(exc, 160)})") from None
    try:
        _check_members(archive, path, what)
    except ValueError:
        archive.close()
        raise
    return raw, archive


def _check_members(archive: zipfile.ZipFile, path: Path, what: str) -> None:
    """Every entry of a MaskablePPO zip checked before any is read: one of each name, stored or
    deflated (a bzip2 or lzma entry decompresses without a bound), ``data`` at most
    :data:`MAX_DATA_BYTES` and each ``.pth`` at most :data:`MAX_PTH_BYTES` uncompressed, and no
    ``.pth`` but SB3's three (SB3 loads any other ``name.pth`` into the model's attribute ``name``)."""
    seen: set[str] = set()
    for info in archive.infolist():
        name = info.filename
        if name in seen:
            raise ValueError(f"{what}: {path} holds two entries named {name[:80]!r} (refused: which one is read "
                             "is not defined)")
        seen.add(name)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ValueError(f"{what}: {path} holds its {name[:80]!r} entry compressed with method "
                             f"{info.compress_type} (SB3 writes stored or deflated entries only)")
        if name.endswith(".pth") and name not in _PTH_ENTRIES:
            raise ValueError(f"{what}: {path} holds an entry {name[:80]!r} (refused: a MaskablePPO model holds "
                             f"{', '.join(_PTH_ENTRIES)} only, and SB3 would load any other into the model)")
        cap = MAX_DATA_BYTES if name == "data" else MAX_PTH_BYTES if name in _PTH_ENTRIES else None
        if cap is not None and info.file_size > cap:
            raise ValueError(f"{what}: {path} holds a {name!r} entry of {info.file_size:,} bytes uncompressed, more "
                             f"than the {cap:,} read (refused unread)")


def _read_member(archive: zipfile.ZipFile, name: str, path: Path, what: str) -> bytes:
    try:
        return archive.read(name)
    except Exception as exc:  # a truncated or corrupt entry: BadZipFile, zlib.error, EOFError, ...
        raise ValueError(f"{what}: {path} is not a readable MaskablePPO model: its {name!r} entry is damaged "
                         f"({one_line(exc, 160)})") from None


def _data_of(archive: zipfile.ZipFile, path: Path, what: str) -> dict[str, Any]:
    if "data" not in archive.namelist():
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: the zip has no 'data' entry")
    text = _read_member(archive, "data", path, what)
    try:
        data = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: its 'data' entry is not JSON "
                         f"({one_line(exc, 160)})") from None
    except RecursionError:
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: its 'data' entry nests too deep to read"
                         ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: its 'data' entry is a JSON "
                         f"{type(data).__name__}, not an object")
    return data


def read_maskppo_data(path: str | Path, what: str = "ppo") -> dict[str, Any]:
    """The ``data`` JSON of a MaskablePPO zip as it is written (serialized entries unread)."""
    path = Path(path)
    _, archive = _open_zip(path, what)
    with archive:
        return _data_of(archive, path, what)


def _class_name(entry: dict[str, Any]) -> str | None:
    """The class a serialized class entry names in its readable fields (``__init__``'s repr)."""
    for key in ("__init__", "forward", "reset", "__doc__"):
        m = re.match(r"<function (\w+)\.", str(entry.get(key, "")))
        if m:
            return m.group(1)
    return None


def _schedule(entry: Any, default: float | None) -> Any:
    """A constant schedule of the value a serialized schedule's readable text names, else ``default``."""
    from stable_baselines3.common.utils import ConstantSchedule, FloatSchedule

    text = str(entry.get("value_schedule", "")) if isinstance(entry, dict) else ""
    m = _CONSTANT.fullmatch(text.strip())
    value = default
    if m:
        try:
            v = float(m.group(1))
        except ValueError:
            v = math.nan
        if math.isfinite(v):
            value = v
    return None if value is None else FloatSchedule(ConstantSchedule(value))


def _spaces(game: Any, data: dict[str, Any], path: Path, what: str) -> tuple[Any, Any]:
    """The game's (observation space, action space) the saved ones describe, else ValueError."""
    from gymnasium import spaces

    from gamecore.envs.encoding import ObsEncoder

    obs, act = data.get("observation_space"), data.get("action_space")
    for key, entry, kind in (("observation_space", obs, _BOX), ("action_space", act, _DISCRETE)):
        if not _is_serialized(entry):
            raise ValueError(f"{what}: {path} is not a MaskablePPO model of this library: its {key!r} is "
                             f"{'missing' if entry is None else 'not a saved space'}")
        if entry.get(":type:") != kind:
            raise ValueError(f"{what}: {path} has an {key} of type {str(entry.get(':type:'))[:80]}; "
                             f"{game.name} models have a {kind[8:-2].rsplit('.', 1)[-1]}")
    dtype, shape = str(obs.get("dtype")), obs.get("_shape")
    if dtype not in ("int8", "float32") or not (isinstance(shape, list) and all(
            isinstance(s, int) and not isinstance(s, bool) for s in shape)):
        raise ValueError(f"{what}: {path} has an observation space of dtype {dtype[:40]!r} and shape "
                         f"{str(shape)[:60]}: {game.name} observations are int8 (or float32 scaled) arrays")
    try:
        n_act, start = int(str(act.get("n"))), int(str(act.get("start", "0")))
    except ValueError:
        raise ValueError(f"{what}: {path} has an action space without a readable size") from None
    for players in game.player_counts:
        params = game.make_params(players)
        if tuple(game.obs_shape(params)) == tuple(shape) and game.num_actions(params) == n_act and start == 0:
            encoder = ObsEncoder(game, params, "int8" if dtype == "int8" else "scaled")
            return encoder.space(), spaces.Discrete(n_act)
    raise ValueError(f"{what}: {path} was trained on observations of shape {tuple(shape)} and {n_act} actions, "
                     f"which fit no player count of {game.name} (a model of another game?)")


def maskppo_custom_objects(path: str | Path, game: Any, data: dict[str, Any], what: str = "ppo") -> dict[str, Any]:
    """SB3's ``custom_objects`` for the zip at ``path`` of ``game``, its ``data`` read: a stand-in for
    every serialized entry (see the module docstring); ValueError naming the file and the entry where
    one cannot be supplied."""
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from gamecore.kernel.games import get_game

    path, spec = Path(path), get_game(game)
    if "env" in data:  # SB3 never saves one; a string there would be gym.make()'s, which imports the module it names
        raise ValueError(f"{what}: {path} holds an 'env' entry (refused: SB3 would make, and import, the environment "
                         "it names)")
    out: dict[str, Any] = {}
    out["observation_space"], out["action_space"] = _spaces(spec, data, path, what)
    policy = data.get("policy_class")
    if not _is_serialized(policy):
        raise ValueError(f"{what}: {path} is not a MaskablePPO model of this library: its 'policy_class' is "
                         f"{'missing' if policy is None else 'not a saved class'}")
    if policy.get("__module__") != _POLICY_MODULE or _class_name(policy) not in (None, "MaskableActorCriticPolicy"):
        raise ValueError(f"{what}: {path} has the policy class {_class_name(policy) or '?'} of "
                         f"{str(policy.get('__module__'))[:80]}; this library loads MaskablePPO's MlpPolicy "
                         "(sb3_contrib's MaskableActorCriticPolicy) only")
    out["policy_class"] = MaskableActorCriticPolicy
    window = data.get("_stats_window_size", 100)
    window = window if isinstance(window, int) and not isinstance(window, bool) and 1 <= window <= 10**6 else 100
    rate = data.get("learning_rate")
    for key, entry in data.items():
        _check_key(key, path, what)
        if key in out or not _is_serialized(entry):
            continue
        if key == "rollout_buffer_class":
            if entry.get("__module__") != _BUFFER_MODULE or _class_name(entry) not in (None, "MaskableRolloutBuffer"):
                raise ValueError(f"{what}: {path} has the rollout buffer class {_class_name(entry) or '?'} of "
                                 f"{str(entry.get('__module__'))[:80]}; MaskablePPO's is MaskableRolloutBuffer")
            out[key] = MaskableRolloutBuffer
        elif key in _EMPTY_ENTRIES:
            out[key] = None
        elif key in _BUFFERS:
            out[key] = deque(maxlen=window)
        elif key in _SCHEDULES:
            default = _SCHEDULES[key]
            if key == "lr_schedule":
                default = float(rate) if isinstance(rate, (int, float)) and not isinstance(rate, bool) and \
                    math.isfinite(rate) else _SCHEDULES["learning_rate"]
            out[key] = _schedule(entry, default)
        else:
            raise ValueError(f"{what}: {path} holds a pickled {key!r} entry this library cannot supply (refused: "
                             "unpickling it could run code)")
    return out


def _check_key(key: str, path: Path, what: str) -> None:
    """SB3 sets every ``data`` entry as an attribute of the model it builds: none may replace one of
    the class's own (a method, a property), which would break the model where it is used."""
    from sb3_contrib import MaskablePPO

    if key.startswith("__") or hasattr(MaskablePPO, key):
        raise ValueError(f"{what}: {path} holds a {key[:80]!r} entry (refused: it would replace MaskablePPO's own "
                         f"{key[:80]})")


def _widths(value: Any, key: str, path: Path, what: str) -> list[int]:
    if not isinstance(value, list) or len(value) > MAX_LAYERS or not all(
            type(h) is int and 1 <= h <= MAX_WIDTH for h in value):
        raise ValueError(f"{what}: {path} has a malformed net_arch{'' if key == 'net_arch' else ' ' + key} (at most "
                         f"{MAX_LAYERS} layer widths, each an int 1..{MAX_WIDTH:,})")
    return value


def _policy_kwargs(data: dict[str, Any], path: Path, what: str) -> tuple[dict[str, Any], list[int], list[int]]:
    """The saved ``policy_kwargs`` checked (the keys of :data:`_POLICY_KWARGS`, each of its type;
    ``net_arch`` at most :data:`MAX_LAYERS` widths of at most :data:`MAX_WIDTH`), SB3's stale
    ``device`` dropped and a ``[dict(pi=..., vf=...)]`` net_arch unwrapped as SB3 does; with the
    policy's and the value network's hidden widths."""
    kwargs = data.get("policy_kwargs", {})
    if not isinstance(kwargs, dict):
        raise ValueError(f"{what}: {path} has a 'policy_kwargs' entry that is not a JSON object")
    unknown = [str(k)[:40] for k in kwargs if k not in _POLICY_KWARGS]
    if unknown:
        raise ValueError(f"{what}: {path} holds policy_kwargs this library does not load ({', '.join(unknown[:4])}): "
                         f"it reads {', '.join(_POLICY_KWARGS[:-1])} (MaskablePPO's MlpPolicy)")
    out = {k: v for k, v in kwargs.items() if k != "device"}
    for key in ("ortho_init", "share_features_extractor", "normalize_images"):
        if key in out and type(out[key]) is not bool:
            raise ValueError(f"{what}: {path} has a malformed policy_kwargs {key} (true or false)")
    opt = out.get("optimizer_kwargs")
    if opt is not None and not (isinstance(opt, dict) and len(opt) <= 16 and all(
            isinstance(k, str) and (v is None or type(v) in (bool, int) or (type(v) is float and math.isfinite(v))
                                    or (isinstance(v, list) and len(v) <= 4 and all(
                                        type(x) in (int, float) and math.isfinite(x) for x in v)))
            for k, v in opt.items())):
        raise ValueError(f"{what}: {path} has malformed policy_kwargs optimizer_kwargs (names of finite numbers, "
                         "booleans or short lists of numbers)")
    arch = out.get("net_arch")
    if isinstance(arch, list) and arch and isinstance(arch[0], dict):  # SB3 < 1.8's form: SB3 reads arch[0]
        arch = out["net_arch"] = arch[0]
    if arch is None:  # MaskableActorCriticPolicy's default
        pi = vf = [64, 64]
    elif isinstance(arch, dict):
        if any(k not in ("pi", "vf") for k in arch):
            raise ValueError(f"{what}: {path} has a malformed net_arch (a list of widths, or pi and vf lists)")
        pi, vf = (_widths(arch.get(k, []), k, path, what) for k in ("pi", "vf"))
    else:
        pi = vf = _widths(arch, "net_arch", path, what)
    return out, pi, vf


def _policy_shapes(pi: list[int], vf: list[int], inputs: int, actions: int) -> list[tuple[str, tuple[int, ...]]]:
    """The state dict of MaskableActorCriticPolicy (flat features, ``pi`` / ``vf`` hidden widths),
    in the order of its parameters: the names and shapes of ``policy.pth``."""
    shapes: list[tuple[str, tuple[int, ...]]] = []
    last = {}
    for branch, widths in (("policy_net", pi), ("value_net", vf)):
        width = inputs
        for i, h in enumerate(widths):
            shapes += [(f"mlp_extractor.{branch}.{2 * i}.weight", (h, width)),
                       (f"mlp_extractor.{branch}.{2 * i}.bias", (h,))]
            width = h
        last[branch] = width
    shapes += [("action_net.weight", (actions, last["policy_net"])), ("action_net.bias", (actions,)),
               ("value_net.weight", (1, last["value_net"])), ("value_net.bias", (1,))]
    return shapes


def check_tensors(obj: Any, prefix: str, where: str, max_numbers: int, finite: bool = True) -> int:
    """Every tensor in ``obj`` (a tensor, or dicts, lists and tuples of them and of plain values,
    walked without recursion) checked before any is used: dense (contiguous, its storage holding
    its elements: no zero-stride view whose few stored bytes stand for a huge tensor), at most
    ``max_numbers`` elements in all, and, with ``finite``, every float (tensor or plain) finite.
    Returns the element count; one ValueError ``f"{prefix} holds ..."`` naming ``where`` and the
    entry otherwise."""
    import torch

    total = 0
    stack: list[tuple[str, Any]] = [(where, obj)]
    while stack:
        at, x = stack.pop()
        if isinstance(x, torch.Tensor):
            n = x.numel()
            if x.layout != torch.strided or not x.is_contiguous() or \
                    x.untyped_storage().nbytes() < (x.storage_offset() + n) * x.element_size():
                raise ValueError(f"{prefix} holds a tensor stored in fewer bytes than its {n:,} elements take "
                                 f"({at[:100]}: shape {tuple(x.shape)}; refused: a saved network is stored dense)")
            total += n
            if total > max_numbers:
                raise ValueError(f"{prefix} holds more than {max_numbers:,} numbers in its {where} (the most read; "
                                 f"at {at[:100]})")
            if finite and (x.is_floating_point() or x.is_complex()) and not bool(torch.isfinite(x).all()):
                raise ValueError(f"{prefix} holds non-finite weights ({at[:100]})")
        elif isinstance(x, float):
            if finite and not math.isfinite(x):
                raise ValueError(f"{prefix} holds a non-finite number ({at[:100]})")
        elif isinstance(x, dict):
            stack.extend((f"{at}[{str(k)[:40]!r}]" if isinstance(k, str) else f"{at}[{type(k).__name__}]", v)
                         for k, v in x.items())
        elif isinstance(x, (list, tuple)):
            stack.extend((f"{at}[{i}]", v) for i, v in enumerate(x))
    return total


def check_torch_archive(source: bytes | Path, where: str, max_bytes: int) -> None:
    """Refuse (one ValueError starting with ``where``) a ``torch.save`` file that is not torch's zip
    format with every record stored uncompressed and at most ``max_bytes`` in all. ``torch.load``
    inflates a compressed record before anything can be checked, so a small file could stand for a
    huge tensor; ``torch.save`` writes every record stored, so no file of its own is refused."""
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{where} (truncated, or not a torch zip file: {one_line(exc, 160)})") from None
    packed = sorted({i.filename for i in infos if i.compress_type != zipfile.ZIP_STORED})
    if packed:
        raise ValueError(f"{where} (its record {packed[0][:60]!r} is compressed; torch.save stores every record "
                         "as it is: refused unread)")
    size = sum(i.file_size for i in infos)
    if size > max_bytes:
        raise ValueError(f"{where} (it holds {size:,} bytes, more than the {max_bytes:,} read)")


def _load_pth(archive: zipfile.ZipFile, name: str, path: Path, what: str) -> Any:
    """A ``.pth`` entry read with ``weights_only=True`` (tensors and plain containers only), after
    :func:`check_torch_archive`."""
    import pickle

    import torch

    blob = _read_member(archive, name, path, what)
    check_torch_archive(blob, f"{what}: {path} is not a readable MaskablePPO model: its {name!r} entry is refused",
                        MAX_PTH_BYTES)
    try:
        return torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise ValueError(f"{what}: {path} holds objects other than tensors in its {name!r} entry (refused: "
                         "loading them could run code)") from None
    except Exception as exc:
        raise ValueError(f"{what}: {path} is not a readable MaskablePPO model: its {name!r} entry is damaged "
                         f"({one_line(exc, 160)})") from None


def _check_weights(archive: zipfile.ZipFile, path: Path, what: str,
                   shapes: list[tuple[str, tuple[int, ...]]]) -> None:
    """The ``.pth`` entries read with ``weights_only=True`` and checked before SB3 reads them:
    ``pytorch_variables.pth`` empty (MaskablePPO saves none; SB3 would set the attribute each name
    gives, anywhere in the process); ``policy.pth`` dense, finite floating-point tensors of
    exactly the names and ``shapes`` of the network ``policy_kwargs`` describe; the optimizer state
    dense and finite, each moment of its parameter's shape."""
    import torch

    names = archive.namelist()
    if "policy.pth" not in names:
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: the zip has no 'policy.pth' entry")
    prefix = f"{what}: {path}"
    if "pytorch_variables.pth" in names:
        variables = _load_pth(archive, "pytorch_variables.pth", path, what)
        if variables is not None and not (isinstance(variables, dict) and not variables):
            listed = ", ".join(str(k)[:40] for k in variables)[:120] if isinstance(variables, dict) else \
                f"a {type(variables).__name__}"
            raise ValueError(f"{prefix} holds pytorch_variables ({listed}) (refused: MaskablePPO saves none, and SB3 "
                             "would set whatever attribute each one names)")
    state = _load_pth(archive, "policy.pth", path, what)
    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in state.items()):
        raise ValueError(f"{prefix} is not a MaskablePPO model: its 'policy.pth' is not a state dict of tensors")
    check_tensors(state, prefix, "'policy.pth'", MAX_PARAMETERS)
    got = {k: tuple(v.shape) for k, v in state.items()}
    want = dict(shapes)
    if got != want:
        diff = sorted(set(got) ^ set(want)) or [k for k in want if got[k] != want[k]]
        raise ValueError(f"{prefix} holds weights that do not fit its policy_kwargs (net_arch pi "
                         f"{[s[0] for k, s in shapes if k.startswith('mlp_extractor.policy_net') and len(s) == 2]}, "
                         f"vf {[s[0] for k, s in shapes if k.startswith('mlp_extractor.value_net') and len(s) == 2]}): "
                         f"{', '.join(d[:60] for d in diff[:4])}")
    bad = [k for k, v in state.items() if not v.is_floating_point()]
    if bad:
        raise ValueError(f"{prefix} holds weights that are not floating-point numbers ({bad[0][:60]})")
    if "policy.optimizer.pth" not in names:
        return
    opt = _load_pth(archive, "policy.optimizer.pth", path, what)
    if not isinstance(opt, dict):
        raise ValueError(f"{prefix} is not a MaskablePPO model: its 'policy.optimizer.pth' is not an optimizer state")
    check_tensors(opt, prefix, "'policy.optimizer.pth'", 2 * MAX_PARAMETERS + 2**20)
    groups, moments = opt.get("param_groups"), opt.get("state")
    ids = [i for g in groups if isinstance(g, dict) and isinstance(g.get("params"), list)
           for i in g["params"]] if isinstance(groups, list) else []
    order = {i: j for j, i in enumerate(ids) if type(i) is int}
    for i, entry in (moments.items() if isinstance(moments, dict) else ()):
        j = order.get(i) if type(i) is int else None
        if j is None or j >= len(shapes) or not isinstance(entry, dict):
            continue  # torch refuses (or leaves unused) what fits none of the network's parameters
        name, shape = shapes[j]
        for key, v in entry.items():
            if isinstance(v, torch.Tensor) and v.dim() and tuple(v.shape) != shape:
                raise ValueError(f"{prefix} holds an optimizer state that does not fit its network ({str(key)[:40]} "
                                 f"of {name}: shape {tuple(v.shape)}, not {shape})")


def load_maskppo(path: str | Path, game: Any, device: str = "cpu", what: str = "ppo") -> Any:
    """The MaskablePPO model saved at ``path`` for ``game`` (a name or a
    :class:`~gamecore.kernel.protocol.GameSpec`), read without unpickling anything (see the module
    docstring). FileNotFoundError for a missing file; one ValueError, naming the file and what is
    wrong, for anything else (``what`` starts the message)."""
    path = Path(path)
    raw, archive = _open_zip(path, what)
    with archive:
        data = _data_of(archive, path, what)
        try:  # a value nested near the parser's limit, shown in a message
            custom = maskppo_custom_objects(path, game, data, what)
        except RecursionError:
            raise ValueError(f"{what}: {path} is not a MaskablePPO model: its 'data' entry nests too deep to read"
                             ) from None
        kwargs, pi, vf = _policy_kwargs(data, path, what)
        if "policy_kwargs" in data:
            custom["policy_kwargs"] = kwargs
        obs, act = custom["observation_space"], custom["action_space"]
        shapes = _policy_shapes(pi, vf, int(np.prod(obs.shape)), int(act.n))
        numbers = sum(math.prod(s) for _, s in shapes)
        if numbers > MAX_PARAMETERS:
            raise ValueError(f"{what}: {path} declares a network of {numbers:,} weights (net_arch pi {pi}, vf {vf}), "
                             f"more than the {MAX_PARAMETERS:,} read")
        _check_weights(archive, path, what, shapes)
    import warnings

    from sb3_contrib import MaskablePPO

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. "could not deserialize": every such entry is supplied
            return MaskablePPO.load(io.BytesIO(raw), device=device, custom_objects=custom,
                                    **copy.deepcopy(_ROLLOUT_STANDINS))
    except Exception as exc:  # a state dict of another network, missing settings, bad values
        raise ValueError(f"{what}: {path} could not be loaded as a MaskablePPO model ({one_line(exc, 160)})") from None


def strip_pickles(path: str | Path, out: str | Path | None = None) -> Path:
    """Rewrite the MaskablePPO zip at ``path`` (into ``out``, default: in place, atomically) with every
    serialized (pickled) blob removed from its ``data`` entry, the readable fields of each entry kept;
    every other entry is copied byte for byte. :func:`load_maskppo` reads the result; plain
    ``MaskablePPO.load`` does not (it would need the blobs). Returns the path written."""
    path = Path(path)
    out = path if out is None else Path(out)
    data = read_maskppo_data(path, "strip_pickles")
    stripped = {k: ({kk: vv for kk, vv in v.items() if kk != ":serialized:"} if _is_serialized(v) else v)
                for k, v in data.items()}
    tmp = out.with_name(out.name + ".tmp")
    try:
        with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w") as dst:
            for info in src.infolist():
                blob = json.dumps(stripped, indent=4).encode() if info.filename == "data" else src.read(info.filename)
                dst.writestr(info, blob, compress_type=info.compress_type)
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)  # a failed write leaves no half file behind
    return out


def save_maskppo(model: Any, path: str | Path) -> Path:
    """``model.save(path)`` (``.zip`` appended to a path without a suffix, as SB3 does) in the form
    :func:`strip_pickles` writes: no pickle in the file. Returns the path written."""
    path = Path(path)
    model.save(path)
    saved = path if path.suffix else path.with_name(path.name + ".zip")  # where SB3 wrote it
    return strip_pickles(saved)


def _npz_headers(z: zipfile.ZipFile, path: Path, what: str, max_elements: int | None) -> None:
    """Each ``.npy`` member's header read (never its data) and checked: stored or deflated, the
    bytes its shape and dtype declare held by the member (a header claiming more is refused before
    numpy allocates the array), at most ``max_elements`` elements in all."""
    total = 0
    for info in z.infolist():
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ValueError(f"{what}: {path} holds its {info.filename[:80]!r} entry compressed with method "
                             f"{info.compress_type} (numpy writes stored or deflated entries only)")
        with z.open(info) as f:
            if f.read(6) != b"\x93NUMPY":
                continue  # not an array: numpy hands back its bytes, refused below
            version = tuple(f.read(2))
            read = {(1, 0): np.lib.format.read_array_header_1_0}.get(version, np.lib.format.read_array_header_2_0)
            shape, _, dtype = read(f)
            header = f.tell()
        key = info.filename.removesuffix(".npy")[:80]
        numbers = math.prod(shape)
        if not dtype.hasobject and numbers * dtype.itemsize > info.file_size - header:  # objects: refused below
            raise ValueError(f"{what}: {path} holds an array {key!r} whose header declares {numbers:,} elements of "
                             f"{dtype.itemsize} bytes, more than its {info.file_size - header:,} bytes hold "
                             "(truncated, or crafted)")
        total += numbers
        if max_elements is not None and total > max_elements:
            raise ValueError(f"{what}: {path} holds more than {max_elements:,} numbers (the most read; at its array "
                             f"{key!r} of shape {tuple(shape)})")


def read_npz(path: str | Path, what: str, max_bytes: int = MAX_NPZ_BYTES,
             max_elements: int | None = None) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` file at ``path``, read with ``allow_pickle=False``: numbers and
    strings only. FileNotFoundError for a missing file; one ValueError naming the file and what is
    wrong for an empty, truncated or foreign one, a pickled object array, one of more than
    ``max_bytes`` uncompressed bytes or (where given) ``max_elements`` elements in all, or one whose
    header declares more than its entry holds; sizes are checked on the zip's directory and the
    arrays' headers, before any array is read. ``what`` starts the message."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what}: no file at {path}")
    if path.stat().st_size == 0:
        raise ValueError(f"{what}: {path} is empty, not an .npz file")
    try:
        with zipfile.ZipFile(path) as z:
            size = sum(i.file_size for i in z.infolist())
            if size > max_bytes:
                raise ValueError(f"{what}: {path} holds {size:,} bytes of arrays, more than the {max_bytes:,} read")
            _npz_headers(z, path, what, max_elements)
    except ValueError as exc:
        if str(exc).startswith(f"{what}: {path}"):
            raise
        raise ValueError(f"{what}: {path} is not a readable .npz file ({one_line(exc, 160)})") from None
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ValueError(f"{what}: {path} is not an .npz file (truncated, or another kind of file: "
                         f"{one_line(exc, 160)})") from None
    except Exception as exc:  # a damaged member or header: zlib.error, SyntaxError, ...
        raise ValueError(f"{what}: {path} is not a readable .npz file (truncated or damaged: "
                         f"{one_line(exc, 160)})") from None
    out: dict[str, np.ndarray] = {}
    try:
        with np.load(path, allow_pickle=False) as d:
            for key in d.files:
                try:
                    a = d[key]
                except ValueError as exc:
                    if "pickle" in str(exc) or "Object arrays" in str(exc):
                        raise ValueError(f"{what}: {path} holds Python objects in its array {key!r} (refused: "
                                         "unpickling them could run code)") from None
                    raise
                if not isinstance(a, np.ndarray):
                    raise ValueError(f"{what}: {path} holds an entry {key!r} that is not a numpy array")
                if a.dtype.kind not in "biufcU":
                    raise ValueError(f"{what}: {path} holds an array {key!r} of dtype {a.dtype}, not numbers or text")
                out[key] = a
    except ValueError as exc:
        if str(exc).startswith(f"{what}: {path}"):
            raise
        raise ValueError(f"{what}: {path} is not a readable .npz file ({one_line(exc, 160)})") from None
    except Exception as exc:  # truncated members: BadZipFile, zlib.error, EOFError, ...
        raise ValueError(f"{what}: {path} is not a readable .npz file (truncated or damaged: "
                         f"{one_line(exc, 160)})") from None
    return out


def _main(argv: list[str] | None = None) -> None:
    """``python -m gamecore.search.model_io PATH...``: :func:`strip_pickles` on each MaskablePPO zip, in place."""
    import sys

    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        raise SystemExit("usage: python -m gamecore.search.model_io MODEL.zip [MODEL.zip ...]"
                         "  (strips the pickles, in place)")
    for p in paths:
        try:
            print(f"stripped {strip_pickles(p)}")
        except (OSError, ValueError) as exc:
            raise SystemExit(f"error: {exc}") from None


if __name__ == "__main__":
    _main()
