"""Game records (JSON) and replays into pictures.

A record is what it takes to replay a game exactly: the game, its options, the seed of
``reset`` and the decisions in game notation::

    {"game": "<game>", "options": {"num_players": 2, "start_player": 0, ...},
     "seed": 7, "actions": ["<the first action's string>", "<the second's>", ...],
     "seats": {"0": "human", "1": "mcts:400"},
     "result": {"scores": [31, 25], "ranks": [1, 2], "winners": [0], "rank_rewards": [1.0, -1.0]}}

``result`` (written once the game is over, by ``outcome``) holds the final scores in game
terms, each seat's place (1 = first; tied seats share the better place), the winning seats and the
``rank`` rewards; a record of an unfinished game has none.

``play`` saves and loads records; ``record`` writes one for a game between agents; ``replay``
turns one into an animated GIF or a PNG strip of frames drawn by the game's ``rgb_array`` renderer.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from gamecore.kernel.games import GAMES, game_key, get_game
from gamecore.kernel.options import one_line, short_repr
from gamecore.kernel.protocol import H_OWNER, H_TERMINAL, VIEW_PUBLIC
from gamecore.kernel.rng import check_seed

FORMAT = "tabletop-rl-envs game record v1"
MAX_GIF_MS = 655350  # a GIF frame lasts at most 65535 hundredths of a second
MAX_SHEET_PIXELS = 2**27  # a PNG strip of at most ~134 million pixels (~400 MB while drawn)
#: largest record file read (16 MiB): a long game's record is a few hundred KiB, and no
#: more than this is ever read (a wrong file, /dev/zero, must not fill the memory)
MAX_RECORD_BYTES = 2**24


@dataclass
class GameRecord:
    game: str
    options: dict[str, Any]
    seed: int
    actions: list[str] = field(default_factory=list)
    seats: dict[str, str] = field(default_factory=dict)
    result: dict[str, Any] | None = None

    def to_json(self) -> str:
        d = {"format": FORMAT, "game": self.game, "options": self.options, "seed": self.seed,
             "actions": self.actions, "seats": self.seats}
        if self.result is not None:
            d["result"] = self.result
        return json.dumps(d, indent=1, ensure_ascii=False) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def from_dict(cls, d: Any) -> GameRecord:
        """A record from its JSON object, checked: a known game, options that game accepts (the
        defaults filled in), a valid seed, the decisions as strings. Raises ValueError."""
        if not isinstance(d, dict):
            raise ValueError(f"not a game record: a JSON object is expected, got {type(d).__name__}")
        missing = [k for k in ("game", "options", "seed", "actions") if k not in d]
        if missing:
            raise ValueError(f"not a game record: missing {', '.join(missing)}")
        if "format" in d and d["format"] != FORMAT:
            raise ValueError(f"not a game record: format {short_repr(d['format'])}, expected {FORMAT!r}")
        if not isinstance(d["game"], str):
            raise ValueError(f"not a game record: game is a name, got {short_repr(d['game'])}")
        spec = get_game(d["game"])
        options = d["options"]
        if not isinstance(options, dict):
            raise ValueError(f"not a game record: options is an object, got {type(options).__name__}")
        try:
            options = spec.params_to_options(spec.make_params(**options))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a game record: options: {exc}") from None
        if isinstance(d["seed"], bool) or not isinstance(d["seed"], int):
            raise ValueError(f"not a game record: seed is an int, got {short_repr(d['seed'])}")
        if not 0 <= d["seed"] < 2**63:  # said before check_seed, which would print every digit
            raise ValueError(f"not a game record: seed must be an int 0..2**63 - 1, got {_int_text(d['seed'])}")
        try:
            seed = check_seed(d["seed"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a game record: {exc}") from None
        actions = d["actions"]
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise ValueError("not a game record: actions is a list of decisions in game notation (strings)")
        seats = d.get("seats", {})
        if not isinstance(seats, dict):
            raise ValueError(f"not a game record: seats is an object, got {type(seats).__name__}")
        result = d.get("result")
        if result is not None and not isinstance(result, dict):
            raise ValueError(f"not a game record: result is an object, got {type(result).__name__}")
        return cls(spec.name, options, seed, list(actions), {str(k): str(v) for k, v in seats.items()}, result)

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read and check a record (:meth:`from_dict`); ValueError for anything but a record (not
        a regular file, more than :data:`MAX_RECORD_BYTES`, not JSON, not a record), OSError when
        the file cannot be read; every message names the file. At most ``MAX_RECORD_BYTES + 1``
        bytes are read, and a FIFO or a device (``/dev/zero``) is refused without reading."""
        raw = _read_capped(path)
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, a 5,000-digit number
            raise ValueError(f"{path}: not JSON, or not JSON a record can hold ({one_line(exc, 120)})") from None
        try:
            return cls.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}: {exc}") from None


def _read_capped(path: str | Path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_RECORD_BYTES` (ValueError naming ``path``
    otherwise; opened without blocking, so a FIFO with no writer is refused, not waited on)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
            raise ValueError(f"{path}: {what}; a game record is a JSON file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_RECORD_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(f"{path}: more than {MAX_RECORD_BYTES:,} bytes, too large for a game record")
    return data


def _int_text(value: int) -> str:
    """An int as text, a huge one by its size (never thousands of digits in a message)."""
    return str(value) if abs(value) < 10**30 else f"an int of {value.bit_length():,} bits"


def outcome(game: str, state: np.ndarray) -> dict[str, Any]:
    """The result of a finished game: final ``scores`` in game terms (ints where whole), each seat's
    place in ``ranks`` (1 = first; tied seats share the better place, from the game's tie-breaks),
    the ``winners`` (every seat placed first) and the ``rank_rewards`` the env pays."""
    from gamecore.kernel.protocol import H_NPLAYERS
    from gamecore.kernel.rewards import rank_rewards

    kernels = get_game(game).kernels
    n = int(state[H_NPLAYERS])
    scores, keys, rewards = np.zeros(n), np.zeros(n), np.zeros(n)
    kernels.scores(state, scores)
    kernels.rank_keys(state, keys)
    rank_rewards(keys, n, rewards)
    ranks = [1 + int(np.sum(keys > keys[p])) for p in range(n)]
    return {"scores": [int(x) if float(x).is_integer() else float(x) for x in scores], "ranks": ranks,
            "winners": [p for p in range(n) if ranks[p] == 1], "rank_rewards": [float(x) for x in rewards]}


def make_env(game: str, **options: Any):
    """The game's raw AEC env (``illegal="raise"``)."""
    module = importlib.import_module(GAMES[game_key(get_game(game).name)])
    return module.raw_env(**options)


def replay_env(record: GameRecord, upto: int | None = None):
    """A raw env with the record's first ``upto`` decisions (all by default) applied; ValueError
    naming the first decision that is not legal where it stands."""
    env = make_env(record.game, **record.options)
    env.reset(seed=record.seed)
    actions = record.actions if upto is None else record.actions[:upto]
    for k, text in enumerate(actions):
        _replay_step(env, k, text)
    return env


def _replay_step(env: Any, k: int, text: str) -> None:
    if env.state_array[H_TERMINAL]:
        raise ValueError(f"decision {k + 1} ({short_repr(text)}) comes after the end of the game")
    try:
        a = env.string_to_action(text)
    except ValueError:
        raise ValueError(f"decision {k + 1} ({short_repr(text)}) is not a decision of this game here") from None
    if a not in env.legal_actions():
        raise ValueError(f"decision {k + 1} ({short_repr(text)}) is not legal there")
    env.step(a)


def states(record: GameRecord) -> list[np.ndarray]:
    """The state before the first decision and after every decision (checked as in :func:`replay_env`)."""
    env = make_env(record.game, **record.options)
    env.reset(seed=record.seed)
    out = [env.get_state()]
    for k, text in enumerate(record.actions):
        _replay_step(env, k, text)
        out.append(env.get_state())
    return out


def frames(record: GameRecord, viewer: int = VIEW_PUBLIC, every: int = 1, turns: bool = False) -> list[np.ndarray]:
    """``rgb_array`` pictures of the game: the start, every ``every``-th decision (with ``turns``:
    every ``every``-th turn, a turn ending where the turn owner changes) and the end."""
    spec = get_game(record.game)
    sts = states(record)
    if turns:
        marks = [0] + [i for i in range(1, len(sts)) if sts[i][H_OWNER] != sts[i - 1][H_OWNER]]
    else:
        marks = list(range(len(sts)))
    keep = marks[:: max(1, every)]
    if keep[-1] != len(sts) - 1:
        keep.append(len(sts) - 1)
    return [spec.render_rgb(sts[i], viewer) for i in keep]


def write_gif(images: list[np.ndarray], path: str | Path, ms_per_frame: int = 600, last_ms: int = 2500) -> None:
    """An animated GIF (adaptive palette; the last frame held longer). Frame times are whole
    milliseconds 1..655350 (GIF keeps them in hundredths of a second, 16 bits)."""
    if not images:
        raise ValueError("no frames")
    for name, ms in (("ms_per_frame", ms_per_frame), ("last_ms", last_ms)):
        if isinstance(ms, bool) or not isinstance(ms, (int, np.integer)) or not 1 <= ms <= MAX_GIF_MS:
            raise ValueError(f"{name} must be an int 1..{MAX_GIF_MS} (milliseconds), got {short_repr(ms)}")
    # one palette for every frame (taken from the last, fullest one), no dithering: unchanged
    # pixels stay identical from frame to frame, so the GIF stores little more than the changes
    palette = Image.fromarray(images[-1]).quantize(colors=96, method=Image.Quantize.MEDIANCUT)
    pics = [Image.fromarray(im).quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    durations = [ms_per_frame] * (len(pics) - 1) + [last_ms]
    pics[0].save(path, save_all=True, append_images=pics[1:], duration=durations, loop=0, optimize=True)


def write_strip(images: list[np.ndarray], path: str | Path, columns: int = 4, scale: float = 0.5) -> None:
    """A PNG contact sheet of the frames, ``columns`` per row, each scaled by ``scale`` (the
    sheet at most MAX_SHEET_PIXELS pixels)."""
    if not images:
        raise ValueError("no frames")
    if isinstance(columns, bool) or not isinstance(columns, (int, np.integer)) or columns < 1:
        raise ValueError(f"columns must be a positive int, got {short_repr(columns)}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a finite number > 0, got {short_repr(scale)}")
    h, w = images[0].shape[:2]
    tw, th = max(1, int(w * min(scale, MAX_SHEET_PIXELS))), max(1, int(h * min(scale, MAX_SHEET_PIXELS)))
    rows = (len(images) + columns - 1) // columns
    sheet_w, sheet_h = tw * min(columns, len(images)), th * rows
    if sheet_w * sheet_h > MAX_SHEET_PIXELS:
        raise ValueError(f"the strip would be {sheet_w:,} x {sheet_h:,} pixels, more than {MAX_SHEET_PIXELS:,}: "
                         f"a smaller scale ({scale:g}) or fewer frames")
    pics = [Image.fromarray(im) for im in images]
    sheet = Image.new("RGB", (sheet_w, sheet_h), (255, 255, 255))
    for k, pic in enumerate(pics):
        sheet.paste(pic.resize((tw, th), Image.Resampling.LANCZOS), ((k % columns) * tw, (k // columns) * th))
    sheet.save(path)


__all__ = ["GameRecord", "make_env", "replay_env", "states", "frames", "write_gif", "write_strip", "FORMAT",
           "MAX_GIF_MS", "MAX_SHEET_PIXELS", "MAX_RECORD_BYTES"]
