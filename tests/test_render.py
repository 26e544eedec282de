"""Pictures: stable sizes, nothing clipped, and the parts that show a change do change."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PIL import ImageDraw

from calcada_env import render as calcada_render
from callisto_env import render as callisto_render
from conftest import GAME_NAMES, GAME_PLAYERS, game_module, random_legal
from gamecore.envs import render as R
from gamecore.kernel.protocol import H_TERMINAL, VIEW_PUBLIC, GameSpec


def _game_states(mod, n: int, seed: int = 0, picks: int = 4) -> list[np.ndarray]:
    """The start, ``picks - 2`` positions along a random game, and its end."""
    env = mod.raw_env(num_players=n)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    states = [env.get_state()]
    while not env.state_array[H_TERMINAL]:
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
        states.append(env.get_state())
    idx = np.linspace(0, len(states) - 1, picks).astype(int)
    return [states[i] for i in idx]


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_a_game_draws_at_one_size_with_nothing_at_the_edges(name, n):
    mod = game_module(name)
    states = _game_states(mod, n)
    images = [mod.GAME.render_rgb(s, VIEW_PUBLIC) for s in states]
    assert all(im.dtype == np.uint8 and im.ndim == 3 and im.shape[2] == 3 for im in images)
    assert len({im.shape for im in images}) == 1, [im.shape for im in images]
    for im in images:  # a clear margin all round: nothing is cut off at an edge
        frame = np.concatenate([im[:2].reshape(-1, 3), im[-2:].reshape(-1, 3), im[:, :2].reshape(-1, 3),
                                im[:, -2:].reshape(-1, 3)])
        assert (frame == frame[0]).all()
    assert not np.array_equal(images[0], images[-1])


def test_sizes_follow_the_player_count_only(game_name):
    mod = game_module(game_name)
    shapes = {n: mod.GAME.render_rgb(_game_states(mod, n, seed=n, picks=2)[1]).shape
              for n in mod.GAME.player_counts}
    again = {n: mod.GAME.render_rgb(_game_states(mod, n, seed=n + 10, picks=2)[0]).shape
             for n in mod.GAME.player_counts}
    assert shapes == again


def _crop(im: np.ndarray, box) -> np.ndarray:
    x0, y0, x1, y1 = box
    return im[y0:y1, x0:x1]


def _changed(a: np.ndarray, b: np.ndarray, boxes: dict) -> set[str]:
    return {k for k, box in boxes.items() if not np.array_equal(_crop(a, box), _crop(b, box))}


def test_callisto_a_placement_changes_the_board_the_turn_line_and_the_two_seats_involved():
    mod = game_module("callisto")
    env = mod.raw_env(num_players=3)
    env.reset(seed=1)
    for _ in range(6):  # past the opening pillars
        env.step(env.legal_actions()[0])
    before = env.get_state()
    tile = next(a for a in env.legal_actions() if not env.action_to_string(a).startswith("pillar"))
    env.step(tile)
    boxes = callisto_render.regions(3)
    a, b = callisto_render.rgb(before), callisto_render.rgb(env.state_array)
    assert boxes["board"][2] <= a.shape[1] and boxes["seat2"][3] <= a.shape[0]
    assert _changed(a, b, boxes) == {"title", "board", "seat0", "seat1"}


def test_calcada_a_declare_changes_the_turn_line_carousel_and_displays_and_a_placement_the_boards():
    mod = game_module("calcada")
    env = mod.raw_env(num_players=3)
    env.reset(seed=2)
    boxes = calcada_render.regions(3)
    s0 = env.get_state()
    declare = next(a for a in env.legal_actions() if env.action_to_string(a).startswith("declare"))
    env.step(declare)
    s1 = env.get_state()
    changed = _changed(calcada_render.rgb(s0), calcada_render.rgb(s1), boxes)
    assert {"title", "carousel", "displays"} <= changed
    assert not changed & {"board0", "board1", "board2", "legend", "scoreboard"}
    place = next(a for a in env.legal_actions() if env.action_to_string(a).startswith("take"))
    env.step(place)
    changed = _changed(calcada_render.rgb(s1), calcada_render.rgb(env.state_array), boxes)
    assert {"title", "board0", "board1"} <= changed  # the tile, and the frame moving to the next seat
    assert "board2" not in changed and "legend" not in changed


def test_the_missing_cedilla_is_drawn():
    fnt = R.font(20)
    img_c, draw_c = R.canvas(40, 30)
    img_cc, draw_cc = R.canvas(40, 30)
    R.text(draw_c, (4, 2), "c", fnt)
    R.text(draw_cc, (4, 2), "ç", fnt)
    a, b = np.asarray(img_c), np.asarray(img_cc)
    assert R.text_width("ç", fnt) == R.text_width("c", fnt)
    diff = np.flatnonzero((a != b).any(axis=(1, 2)))
    base = np.flatnonzero((a != a[0, 0]).any(axis=(1, 2))).max()
    assert diff.size and diff.min() > base - 3  # the difference is a mark below the letter


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_terminal_board_is_the_text_board_in_colour(name):
    mod = game_module(name)
    env = mod.raw_env(num_players=mod.GAME.default_players)
    env.reset(seed=3)
    for _ in range(8):
        env.step(env.legal_actions()[-1])
    st = env.state_array
    plain = mod.GAME.render_ansi(st, VIEW_PUBLIC)
    assert mod.GAME.render_terminal(st, VIEW_PUBLIC, colour=False) == plain
    coloured = mod.GAME.render_terminal(st, VIEW_PUBLIC, colour=True)
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain
    if type(mod.GAME).render_terminal is not GameSpec.render_terminal:  # the game draws in colour
        assert "\x1b[" in coloured


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_the_final_picture_shows_every_seat_s_final_score(name, n, monkeypatch):
    """The game-over frame names each seat's final score (the ``scores`` kernel; Callisto's as the
    penalty it is), not only the winner's: a replay's last frame tells how the game ended."""
    mod = game_module(name)
    end = _game_states(mod, n, seed=1, picks=2)[-1]
    final = np.zeros(n)
    mod.GAME.kernels.scores(end, final)
    drawn: list[str] = []
    real_text = ImageDraw.ImageDraw.text

    def record(self, xy, text, *args, **kwargs):
        drawn.append(str(text))
        return real_text(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", record)
    mod.GAME.render_rgb(end, VIEW_PUBLIC)
    numbers = {tok for s in drawn for tok in re.findall(r"-?\d+(?:\.\d+)?", s)}
    for p in range(n):
        assert f"{abs(final[p]):g}" in numbers, (p, final, drawn)
