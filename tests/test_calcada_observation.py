"""Calçada's observation (issue 50): every entry the rules let a seat use, decoded by the env
docstring alone, with no silent clipping; the blocks by name (``GAME.observation_views``)."""

from __future__ import annotations

import numpy as np
import pytest

import calcada_env
from calcada_env import layout as L
from calcada_env import rules
from calcada_env.game import GAME, state_from_ascii
from gamecore.kernel.protocol import H_CURRENT, H_TERMINAL

EMPTY = """
.. .. .. .. ..
.. .. .. .. ..
.. .. .. .. ..
.. .. .. .. ..
.. .. .. .. ..
"""
STAIRS = ["r", "yb", "ypg", "rbgp", "yrbgp", ""]


def observe(state: np.ndarray, seat: int) -> dict[str, np.ndarray]:
    """The seat's observation of ``state``, by block name."""
    params = GAME.params_of_state(state)
    obs = np.empty(GAME.obs_shape(params), dtype=np.int8)
    rules.observe(state, seat, obs)
    return GAME.observation_views(obs, params)


def play_to_the_end(n: int, seed: int) -> np.ndarray:
    params = GAME.make_params(n)
    state = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(state, params, seed)
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rng = np.random.default_rng(seed)
    while not state[H_TERMINAL]:
        rules.legal_mask(state, mask)
        legal = np.flatnonzero(mask)
        rules.apply(state, int(legal[rng.integers(len(legal))]))
    return state


# ---- the turn counter ----------------------------------------------------------------------------
@pytest.mark.parametrize(("turns", "shown"), [(0, [0, 0]), (7, [0, 7]), (99, [0, 99]), (100, [1, 0]),
                                              (127, [1, 27]), (128, [1, 28]), (404, [4, 4])])
def test_turns_are_shown_as_hundreds_then_the_rest(turns, shown):
    state = state_from_ascii([EMPTY] * 4, carousel=STAIRS)
    state[L.TURNS] = turns  # set directly: the entries only read the slot
    for seat in range(4):
        assert observe(state, seat)["TURNS"].tolist() == shown


def test_the_turn_bound_is_the_documented_maximum():
    """n (25 n + 1) turns at most (the state check's bound): 102, 228, 404; the hundreds entry's
    maximum is that over 100, and a terminal count at the bound is shown exactly."""
    for n, top in ((2, 102), (3, 228), (4, 404)):
        assert L.max_turns(n) == top
        high = GAME.observation_views(GAME.obs_high_vector(GAME.make_params(n)), GAME.make_params(n))["TURNS"]
        assert high.tolist() == [top // 100, 99]
        state = state_from_ascii([EMPTY] * n, carousel=STAIRS)
        state[L.TURNS] = top
        assert observe(state, 0)["TURNS"].tolist() == [top // 100, top % 100]
        state[L.TURNS] = top + n  # beyond it (no play reaches it): still exact, above the maximum
        assert observe(state, 0)["TURNS"].tolist() == [(top + n) // 100, (top + n) % 100]


def test_turns_tell_apart_positions_that_differ_only_in_the_round():
    state = state_from_ascii([EMPTY] * 2, carousel=STAIRS)
    later = state.copy()
    later[L.TURNS] += 2  # the same seat to move, one round on
    assert GAME.to_dict(state, viewer=0)["turns"] != GAME.to_dict(later, viewer=0)["turns"]
    for seat in range(2):
        assert not np.array_equal(observe(state, seat)["TURNS"], observe(later, seat)["TURNS"])


def test_turns_follow_play():
    env = calcada_env.raw_env(num_players=3)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while not env.state_array[H_TERMINAL]:
        for seat in range(3):
            v = GAME.observation_views(env.observe(f"player_{seat}")["observation"], env._params)
            assert 100 * int(v["TURNS"][0]) + int(v["TURNS"][1]) == env.to_dict(seat)["turns"]
        legal = env.legal_actions()
        env.step(legal[rng.integers(len(legal))])


# ---- the known bottom of a stack, in order ---------------------------------------------------------
def test_the_whole_known_bottom_is_shown_in_the_order_it_comes_out():
    """8 swaps of one colour make its whole stack (22 tiles) known: every row of KNOWN_ORDER is
    used, row j being to_dict's bottom-first list read from the top."""
    state = state_from_ascii([EMPTY] * 2, carousel=STAIRS)
    red = L.COLOURS.index("red")
    for swaps in range(1, 9):
        rules.swap_display(state, red)
        known = int(state[L.STACK_KNOWN + red])
        assert known == min(3 * swaps, L.MAX_KNOWN)
        bottom = GAME.to_dict(state, viewer=1)["colours"]["red"]["stack_known_bottom"]
        assert len(bottom) == known
        for seat in range(2):
            v = observe(state, seat)
            order = v["KNOWN_ORDER"][red]
            assert order.shape == (L.MAX_KNOWN, L.NUM_KINDS)
            shown = ["r" + L.KIND_CHARS[int(np.flatnonzero(row)[0])] for row in order[:known]]
            assert shown == bottom[::-1]
            assert (order[:known].sum(axis=1) == 1).all() and not order[known:].any()
            assert v["KNOWN_KINDS"][red].sum() == known
            assert v["STACK_SIZES"][red] == 22 == GAME.to_dict(state, viewer=seat)["colours"]["red"]["stack_size"]
    assert int(state[L.STACK_KNOWN + red]) == int(state[L.STACK_N + red]) == L.MAX_KNOWN == 22


def test_known_tiles_past_the_next_three_tell_positions_apart():
    """Two stacks whose known bottoms differ only in their 4th tile from the top (the old
    observation showed the next three and the counts only)."""
    state = state_from_ascii([EMPTY] * 2, carousel=STAIRS)
    blue = L.COLOURS.index("blue")
    for _ in range(2):
        rules.swap_display(state, blue)
    base = L.STACK + L.TILES_PER_COLOUR * blue
    known = int(state[L.STACK_KNOWN + blue])
    assert known == 6
    bottom = state[base : base + known]
    i, k = next((i, k) for i in range(known - 3) for k in range(i + 1, known - 3) if bottom[i] != bottom[k])
    other = state.copy()
    other[base + i], other[base + k] = state[base + k], state[base + i]  # same kinds, the same next three
    assert GAME.to_dict(state, viewer=0) != GAME.to_dict(other, viewer=0)
    a, b = observe(state, 0), observe(other, 0)
    assert np.array_equal(a["KNOWN_KINDS"], b["KNOWN_KINDS"])
    assert np.array_equal(a["KNOWN_ORDER"][blue, :3], b["KNOWN_ORDER"][blue, :3])
    assert not np.array_equal(a["KNOWN_ORDER"], b["KNOWN_ORDER"])


def test_a_hand_built_known_bottom_beyond_play_shows_its_top_22():
    """No play reaches a stack of 25 (22 at most) but a hand-built state may hold one: the 22 known
    tiles nearest the top are shown, the counts in full, and nothing is written out of the block."""
    yellow = L.COLOURS.index("yellow")
    state = state_from_ascii([EMPTY] * 2, carousel=STAIRS, displays={"yellow": ". . ."})
    assert int(state[L.STACK_N + yellow]) == 25
    state[L.STACK_KNOWN + yellow] = 25
    assert rules.check_state(state, GAME.make_params(2)) == 0
    v = observe(state, 0)
    base = L.STACK + L.TILES_PER_COLOUR * yellow
    top_first = state[base : base + 25][::-1]
    assert [int(np.flatnonzero(row)[0]) for row in v["KNOWN_ORDER"][yellow]] == top_first[:22].tolist()
    assert v["KNOWN_KINDS"][yellow].tolist() == L.KIND_COPIES.tolist()
    assert v["STACK_SIZES"][yellow] == 25
    assert not v["KNOWN_ORDER"][yellow + 1 :].any()


def test_stacks_never_pass_22_in_play():
    for n in (2, 3, 4):
        params = GAME.make_params(n)
        state = np.zeros(L.STATE_LEN, dtype=np.int64)
        mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
        rng = np.random.default_rng(n)
        for g in range(3):
            rules.init(state, params, g)
            while not state[H_TERMINAL]:
                assert state[L.STACK_N : L.STACK_N + 5].max() <= L.MAX_STACK == 22
                rules.legal_mask(state, mask)
                legal = np.flatnonzero(mask)
                # swap as often as allowed, to drive the stacks and their known bottoms up
                swaps = [a for a in legal if L.A_SWAP <= a < L.A_PLACE]
                rules.apply(state, int(swaps[0] if swaps else legal[rng.integers(len(legal))]))


# ---- bonus tiles and points: proven bounds, no clipping in play -------------------------------------
def test_bonus_tiles_and_points_at_their_bounds_are_shown_exactly():
    state = state_from_ascii([EMPTY] * 3, carousel=STAIRS, bonus={0: L.MAX_BONUS_HELD, 1: 51, 2: 0},
                             points={0: 0, 1: L.MAX_PLAY_POINTS, 2: 84})
    assert (L.MAX_BONUS_HELD, L.MAX_PLAY_POINTS) == (52, 85)
    v = observe(state, 1)  # rel 0 is seat 1, rel 1 seat 2, rel 2 seat 0
    assert v["BONUS_TILES"].tolist() == [51, 0, 52]
    assert v["POINTS"].tolist() == [85, 84, 0]
    high = GAME.observation_views(GAME.obs_high_vector(GAME.make_params(3)), GAME.make_params(3))
    assert high["BONUS_TILES"].tolist() == [52] * 3 and high["POINTS"].tolist() == [85] * 3


def test_bonus_tiles_and_points_beyond_their_bounds_only_in_hand_built_states():
    """The state check allows any count; a hand-built count above 127 shows 127."""
    state = state_from_ascii([EMPTY] * 2, carousel=STAIRS, bonus={0: 53, 1: 500}, points={0: 86, 1: 128})
    v = observe(state, 0)
    assert v["BONUS_TILES"].tolist() == [53, 127] and v["POINTS"].tolist() == [86, 127]


# ---- the pending decision, and the end -----------------------------------------------------------
def test_every_seat_sees_the_pending_declare_and_who_decides():
    state = state_from_ascii([EMPTY] * 3, carousel=STAIRS, current=2, declared=("green", 4))
    green = L.COLOURS.index("green")
    for seat in range(3):
        v = observe(state, seat)
        assert v["PHASE"].tolist() == [0, 1]
        assert v["DECL_NUM"].tolist() == [4]
        assert np.flatnonzero(v["DECL_COL"]).tolist() == [green]
        assert np.flatnonzero(v["CURRENT"]).tolist() == [(2 - seat) % 3]
        assert np.flatnonzero(v["START"]).tolist() == [(0 - seat) % 3]
    before = state_from_ascii([EMPTY] * 3, carousel=STAIRS, current=2)
    for seat in range(3):
        v = observe(before, seat)
        assert v["PHASE"].tolist() == [1, 0] and not v["DECL_NUM"].any() and not v["DECL_COL"].any()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_terminal_observation_shows_no_pending_decision(n):
    state = play_to_the_end(n, seed=10 + n)
    for seat in range(n):
        v = observe(state, seat)
        for name in GAME.obs_pending_blocks:
            assert not v[name].any(), name
        # the final position is still there
        assert v["BOARDS"].any() and int(v["TURNS"][0]) * 100 + int(v["TURNS"][1]) == int(state[L.TURNS])
        assert int(state[L.TURNS]) % n == 0
        assert v["START"].sum() == 1
        assert v["BONUS_TILES"].tolist() == [int(state[L.BONUS + (seat + r) % n]) for r in range(n)]
    assert set(GAME.obs_pending_blocks) == {"PHASE", "DECL_NUM", "DECL_COL", "CURRENT"}


# ---- decoding by the docstring ---------------------------------------------------------------------
def test_boards_decode_by_colour_and_kind():
    board = """
    .. .. .. .. ..
    .. .. bk .. ..
    .. .. .. .. ..
    .. .. .. .. ..
    .. .. .. .. p*
    """
    state = state_from_ascii([EMPTY, board], carousel=STAIRS)
    v = observe(state, 0)
    squares = v["BOARDS"][1]  # rel 1 of seat 0 is seat 1
    assert squares.shape == (25, 11)
    r2c3 = 5 * 1 + 2
    assert np.flatnonzero(squares[r2c3]).tolist() == [L.COLOURS.index("blue"), 5 + L.KIND_CHARS.index("k")]
    r5c5 = 5 * 4 + 4
    assert np.flatnonzero(squares[r5c5]).tolist() == [L.COLOURS.index("purple"), 5 + L.KIND_BONUS]
    assert squares.sum() == 4 and not v["BOARDS"][0].any()
    assert GAME.to_dict(state, viewer=0)["players"][1]["board"][1].split()[2] == "bk"
    assert np.array_equal(observe(state, 1)["BOARDS"][0], squares)


def test_a_colour_off_the_scoreboard_shows_row_n_plus_1():
    for n in (2, 3, 4):
        red = L.COLOURS.index("red")
        state = state_from_ascii([EMPTY] * n, carousel=STAIRS, scoreboard={"red": n + 1, "blue": n})
        v = observe(state, 0)
        assert v["SB_ROWS"][red] == n + 1 and v["MULTIPLIERS"][red] == 0
        assert v["SB_ROWS"][L.COLOURS.index("blue")] == n and v["MULTIPLIERS"][L.COLOURS.index("blue")] == 1
        assert GAME.to_dict(state, viewer=0)["colours"]["red"]["on_scoreboard"] is False


@pytest.mark.parametrize("n", [2, 3, 4])
def test_shapes_and_views_match_the_docstring(n):
    params = GAME.make_params(n)
    size = 279 * n + 887
    assert GAME.obs_shape(params) == (size,) == (L.obs_len(n),)
    shapes = {name: v.shape for name, v in GAME.observation_views(np.zeros(size, dtype=np.int8), params).items()}
    assert shapes == {
        "BOARDS": (n, 25, 11), "BONUS_TILES": (n,), "POINTS": (n,), "NUMBERS": (25,), "DISTRICTS": (25,),
        "CAROUSEL": (6, 5), "DISPLAYS": (5, 3, 6), "STACK_SIZES": (5,), "SB_ROWS": (5,), "MULTIPLIERS": (5,),
        "PHASE": (2,), "DECL_NUM": (1,), "DECL_COL": (5,), "END": (1,), "ROUND_PLACED": (1,), "TURNS": (2,),
        "CURRENT": (n,), "START": (n,), "KNOWN_KINDS": (5, 6), "KNOWN_ORDER": (5, 22, 6),
    }
    doc = calcada_env.env.__doc__
    assert f"{size} ({n}p)" in doc
    assert "2 x 25 x 11 / 3 x 25 x 11 / 4 x 25 x 11" in doc and "5 x 22 x 6" in doc
    assert "`decisions`" in doc and "v1: observation" in doc
    assert "KNOWN_NEXT" not in calcada_env.layout.OBS[n].names()


def test_env_id_is_v1():
    assert GAME.env_id == "calcada-v1"
    assert calcada_env.raw_env.metadata["name"] == "calcada_v1"


def test_current_is_the_deciding_seat_during_play():
    env = calcada_env.raw_env(num_players=4)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(80):
        cur = int(env.state_array[H_CURRENT])
        for seat in range(4):
            v = GAME.observation_views(env.observe(f"player_{seat}")["observation"], env._params)
            assert np.flatnonzero(v["CURRENT"]).tolist() == [(cur - seat) % 4]
            assert v["PHASE"].sum() == 1
        legal = env.legal_actions()
        env.step(legal[rng.integers(len(legal))])
