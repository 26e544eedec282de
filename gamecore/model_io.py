"""Model files read without running their code: MaskablePPO zips and ``.npz`` arrays.

A model file may come from anywhere (a download, an untrusted checkout), so no loader here lets it
name code to run. Every failure is one ``ValueError`` (``FileNotFoundError`` for a missing file)
whose message names the file and what is wrong with it.

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
  (:mod:`gamecore.encoding`); ``action_space``: ``Discrete(n)``, ``n`` the game's action count at
  that player count;
- ``lr_schedule``, ``clip_range``, ``clip_range_vf``, ``learning_rate``: a constant schedule of the
  value its readable ``value_schedule`` text names (``ConstantSchedule(val=0.2)``), else a
  stand-in (SB3's defaults, 3e-4 and 0.2; the learning rate's own value for ``lr_schedule``): these
  steer further training of the loaded object only, which no route here does (``train.py --init``
  copies the weights and the optimizer state into a model of its own settings);
- ``_last_obs``, ``_last_original_obs``, ``_last_episode_starts``, ``action_noise``: None;
  ``ep_info_buffer``, ``ep_success_buffer``: empty.

Any other serialized entry, an ``env`` entry (SB3 never saves one; loaded, a string there would be
passed to ``gym.make``, which imports the module a ``"module:Env"`` id names), a space that fits
none of the game's, a zip without ``data`` or one of another game is refused. The ``.pth`` entries
are read once more here with ``weights_only=True`` before SB3 reads them, so an older SB3 (which
read them unrestricted) runs no code either.

:func:`strip_pickles` (``python -m gamecore.model_io MODEL.zip``) rewrites a zip's ``data`` with
every serialized blob removed (the readable fields kept, the other entries byte for byte), the form
the shipped baselines and ``examples/train.py``'s models (:func:`save_maskppo`) take: they hold no
pickle but the ``.pth`` tensors, and :func:`load_maskppo` reads them as it reads a zip SB3 saved.
"""

from __future__ import annotations

import io
import json
import math
import re
import zipfile
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["load_maskppo", "maskppo_custom_objects", "read_maskppo_data", "save_maskppo", "strip_pickles",
           "read_npz", "MAX_NPZ_BYTES"]

#: the most uncompressed bytes :func:`read_npz` reads from one file
MAX_NPZ_BYTES = 2**31

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


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _open_zip(path: Path, what: str) -> tuple[bytes, zipfile.ZipFile]:
    if not path.is_file():
        raise FileNotFoundError(f"{what}: no saved model at {path}")
    raw = path.read_bytes()
    if not raw:
        raise ValueError(f"{what}: {path} is empty, not a saved model")
    try:
        return raw, zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: not a zip file (truncated, or another kind "
                         f"of file: {_short(exc)})") from None


def _read_member(archive: zipfile.ZipFile, name: str, path: Path, what: str) -> bytes:
    try:
        return archive.read(name)
    except Exception as exc:  # a truncated or corrupt entry: BadZipFile, zlib.error, EOFError, ...
        raise ValueError(f"{what}: {path} is not a readable MaskablePPO model: its {name!r} entry is damaged "
                         f"({_short(exc)})") from None


def _data_of(archive: zipfile.ZipFile, path: Path, what: str) -> dict[str, Any]:
    if "data" not in archive.namelist():
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: the zip has no 'data' entry")
    text = _read_member(archive, "data", path, what)
    try:
        data = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: its 'data' entry is not JSON "
                         f"({_short(exc)})") from None
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

    from gamecore.encoding import ObsEncoder

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

    from gamecore.games import get_game

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


def _check_weights(archive: zipfile.ZipFile, path: Path, what: str) -> None:
    """Every ``.pth`` entry read with ``weights_only=True`` (tensors and plain containers only)."""
    import pickle

    import torch

    names = archive.namelist()
    if "policy.pth" not in names:
        raise ValueError(f"{what}: {path} is not a MaskablePPO model: the zip has no 'policy.pth' entry")
    for name in names:
        if not name.endswith(".pth"):
            continue
        blob = _read_member(archive, name, path, what)
        try:
            torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
        except pickle.UnpicklingError:
            raise ValueError(f"{what}: {path} holds objects other than tensors in its {name!r} entry (refused: "
                             "loading them could run code)") from None
        except Exception as exc:
            raise ValueError(f"{what}: {path} is not a readable MaskablePPO model: its {name!r} entry is damaged "
                             f"({_short(exc)})") from None


def load_maskppo(path: str | Path, game: Any, device: str = "cpu", what: str = "ppo") -> Any:
    """The MaskablePPO model saved at ``path`` for ``game`` (a name or a
    :class:`~gamecore.protocol.GameSpec`), read without unpickling anything (see the module
    docstring). FileNotFoundError for a missing file; one ValueError, naming the file and what is
    wrong, for anything else (``what`` starts the message)."""
    path = Path(path)
    raw, archive = _open_zip(path, what)
    with archive:
        data = _data_of(archive, path, what)
        custom = maskppo_custom_objects(path, game, data, what)
        _check_weights(archive, path, what)
    import warnings

    from sb3_contrib import MaskablePPO

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. "could not deserialize": every such entry is supplied
            return MaskablePPO.load(io.BytesIO(raw), device=device, custom_objects=custom)
    except Exception as exc:  # a state dict of another network, missing settings, bad values
        raise ValueError(f"{what}: {path} could not be loaded as a MaskablePPO model ({_short(exc)})") from None


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
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w") as dst:
        for info in src.infolist():
            blob = json.dumps(stripped, indent=4).encode() if info.filename == "data" else src.read(info.filename)
            dst.writestr(info, blob, compress_type=info.compress_type)
    tmp.replace(out)
    return out


def save_maskppo(model: Any, path: str | Path) -> Path:
    """``model.save(path)`` (``.zip`` appended to a path without a suffix, as SB3 does) in the form
    :func:`strip_pickles` writes: no pickle in the file. Returns the path written."""
    path = Path(path)
    model.save(path)
    saved = path if path.suffix else path.with_name(path.name + ".zip")  # where SB3 wrote it
    return strip_pickles(saved)


def read_npz(path: str | Path, what: str, max_bytes: int = MAX_NPZ_BYTES) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` file at ``path``, read with ``allow_pickle=False``: numbers and
    strings only. FileNotFoundError for a missing file; one ValueError naming the file and what is
    wrong for an empty, truncated or foreign one, a pickled object array, or one of more than
    ``max_bytes`` uncompressed bytes. ``what`` starts the message."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what}: no file at {path}")
    if path.stat().st_size == 0:
        raise ValueError(f"{what}: {path} is empty, not an .npz file")
    try:
        with zipfile.ZipFile(path) as z:
            size = sum(i.file_size for i in z.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{what}: {path} is not an .npz file (truncated, or another kind of file: "
                         f"{_short(exc)})") from None
    if size > max_bytes:
        raise ValueError(f"{what}: {path} holds {size:,} bytes of arrays, more than the {max_bytes:,} read")
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
        raise ValueError(f"{what}: {path} is not a readable .npz file ({_short(exc)})") from None
    except Exception as exc:  # truncated members: BadZipFile, zlib.error, EOFError, ...
        raise ValueError(f"{what}: {path} is not a readable .npz file (truncated or damaged: {_short(exc)})") from None
    return out


def _main(argv: list[str] | None = None) -> None:
    """``python -m gamecore.model_io PATH...``: :func:`strip_pickles` on each MaskablePPO zip, in place."""
    import sys

    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        raise SystemExit("usage: python -m gamecore.model_io MODEL.zip [MODEL.zip ...]  (strips the pickles, in place)")
    for p in paths:
        try:
            print(f"stripped {strip_pickles(p)}")
        except (OSError, ValueError) as exc:
            raise SystemExit(f"error: {exc}") from None


if __name__ == "__main__":
    _main()
