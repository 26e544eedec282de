"""Game records (JSON) and replays into pictures.

A record is what it takes to replay a game exactly: the game, its options, the seed of
``reset`` and the decisions in game notation::

    {"game": "calcada", "options": {"num_players": 2, "start_player": 0, "board_side": "A"},
     "seed": 7, "actions": ["declare blue on space 2 (number 4)", "take slot 1 (blue kiosk) to r3c4", ...],
     "seats": {"0": "human", "1": "mcts:400"}}

``play`` saves and loads records; ``record`` writes one for a game between agents; ``replay``
turns one into an animated GIF or a PNG strip of frames drawn by the game's ``rgb_array`` renderer.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from gamecore.games import GAMES, game_key, get_game
from gamecore.protocol import H_OWNER, H_TERMINAL, VIEW_PUBLIC

FORMAT = "tabletop-rl-envs game record v1"


@dataclass
class GameRecord:
    game: str
    options: dict[str, Any]
    seed: int
    actions: list[str] = field(default_factory=list)
    seats: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "game": self.game, "options": self.options, "seed": self.seed,
                           "actions": self.actions, "seats": self.seats}, indent=1, ensure_ascii=False) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        missing = [k for k in ("game", "options", "seed", "actions") if k not in d]
        if missing:
            raise ValueError(f"not a game record: missing {', '.join(missing)}")
        return cls(str(d["game"]), dict(d["options"]), int(d["seed"]), [str(a) for a in d["actions"]],
                   {str(k): str(v) for k, v in d.get("seats", {}).items()})

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not JSON ({exc})") from None
        return cls.from_dict(data)


def make_env(game: str, **options: Any):
    """The game's raw AEC env (``illegal="raise"``)."""
    module = importlib.import_module(GAMES[game_key(get_game(game).name)])
    return module.raw_env(**options)


def replay_env(record: GameRecord, upto: int | None = None):
    """A raw env with the record's first ``upto`` decisions (all by default) applied."""
    env = make_env(record.game, **record.options)
    env.reset(seed=record.seed)
    actions = record.actions if upto is None else record.actions[:upto]
    for k, text in enumerate(actions):
        if env.state_array[H_TERMINAL]:
            raise ValueError(f"decision {k + 1} ({text!r}) comes after the end of the game")
        try:
            a = env.string_to_action(text)
        except ValueError as exc:
            raise ValueError(f"decision {k + 1}: {exc}") from None
        if a not in env.legal_actions():
            raise ValueError(f"decision {k + 1} ({text!r}) is not legal there")
        env.step(a)
    return env


def states(record: GameRecord) -> list[np.ndarray]:
    """The state before the first decision and after every decision."""
    env = make_env(record.game, **record.options)
    env.reset(seed=record.seed)
    out = [env.get_state()]
    for text in record.actions:
        env.step(env.string_to_action(text))
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
    """An animated GIF (adaptive palette; the last frame held longer)."""
    if not images:
        raise ValueError("no frames")
    # one palette for every frame (taken from the last, fullest one), no dithering: unchanged
    # pixels stay identical from frame to frame, so the GIF stores little more than the changes
    palette = Image.fromarray(images[-1]).quantize(colors=96, method=Image.Quantize.MEDIANCUT)
    pics = [Image.fromarray(im).quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    durations = [ms_per_frame] * (len(pics) - 1) + [last_ms]
    pics[0].save(path, save_all=True, append_images=pics[1:], duration=durations, loop=0, optimize=True)


def write_strip(images: list[np.ndarray], path: str | Path, columns: int = 4, scale: float = 0.5) -> None:
    """A PNG contact sheet of the frames, ``columns`` per row, each scaled by ``scale``."""
    if not images:
        raise ValueError("no frames")
    pics = [Image.fromarray(im) for im in images]
    w, h = pics[0].size
    tw, th = max(1, int(w * scale)), max(1, int(h * scale))
    rows = (len(pics) + columns - 1) // columns
    sheet = Image.new("RGB", (tw * min(columns, len(pics)), th * rows), (255, 255, 255))
    for k, pic in enumerate(pics):
        sheet.paste(pic.resize((tw, th), Image.Resampling.LANCZOS), ((k % columns) * tw, (k // columns) * th))
    sheet.save(path)


__all__ = ["GameRecord", "make_env", "replay_env", "states", "frames", "write_gif", "write_strip", "FORMAT"]
