"""Callisto's observation planes (issue 50): every plane group is named, shaped and decoded by the
env docstring's table (``callisto_env.layout.OBS_PLANES``), the seat to move and the match facts are
shown, nothing clips, and the terminal observation shows no pending decision."""

from __future__ import annotations

import numpy as np
import pytest

import callisto_env
from callisto_env import layout as L
from callisto_env import rules
from callisto_env.game import GAME, state_from_ascii
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_TERMINAL

COUNTS = (2, 3, 4)


def empty_board(n: int) -> str:
    return "\n".join(["." * L.BOARD_SIZE[n]] * L.BOARD_SIZE[n])


def views_of(state: np.ndarray, seat: int) -> dict[str, np.ndarray]:
    """The seat's observation of ``state`` as named views, each reduced to cell (0, 0)."""
    n = int(state[H_NPLAYERS])
    obs = full_observation(state, seat)
    return {k: v[0, 0] for k, v in GAME.observation_views(obs, GAME.make_params(n)).items()}


def full_observation(state: np.ndarray, seat: int) -> np.ndarray:
    n = int(state[H_NPLAYERS])
    obs = np.full(GAME.obs_shape(GAME.make_params(n)), -1, dtype=np.int8)
    rules.observe(state, seat, obs.reshape(-1))
    return obs


def play_to_end(n: int, match: bool, seed: int, on_position=None) -> np.ndarray:
    params = GAME.make_params(n, match=match, start_player=seed % n)
    state = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(state, params, seed)
    mask = np.zeros(GAME.num_actions(params), dtype=np.int8)
    rng = np.random.default_rng(seed)
    while not state[H_TERMINAL]:
        if on_position is not None:
            on_position(state)
        rules.legal_mask(state, mask)
        legal = np.flatnonzero(mask)
        rules.apply(state, int(legal[rng.integers(len(legal))]))
    return state


# ---- the table, the shapes and the named views ------------------------------------------------------
@pytest.mark.parametrize("n", COUNTS)
def test_the_planes_per_count_are_n_squared_plus_18n_plus_3(n):
    params = GAME.make_params(n)
    size = L.BOARD_SIZE[n]
    assert GAME.obs_shape(params) == (size, size, n * n + 18 * n + 3) == (size, size, {2: 43, 3: 66, 4: 91}[n])
    assert L.OBS_PLANES[n].size == L.OBS_C[n] == n * n + 18 * n + 3
    assert list(L.OBS_BLOCKS) == L.OBS_PLANES[n].names() == [
        "TILES", "PILLARS", "REMAIN", "THIRD", "OPENING", "OUT", "TO_MOVE", "MATCH_PEN", "STARTED", "MATCH",
        "GAMES", "GAMES_LEFT"]


@pytest.mark.parametrize("n", COUNTS)
def test_the_named_views_are_the_docstring_table_and_index_the_right_channels(n):
    params = GAME.make_params(n)
    shape = GAME.obs_shape(params)
    size, _, C = shape
    obs = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    views = GAME.observation_views(obs, params)
    lay = L.OBS_PLANES[n]
    assert list(views) == lay.names()
    expected_axes = {"TILES": (n,), "PILLARS": (n,), "REMAIN": (n, 10), "THIRD": (n,), "OPENING": (n,), "OUT": (n,),
                     "TO_MOVE": (n,), "MATCH_PEN": (n, 2), "STARTED": (n, n), "MATCH": (1,), "GAMES": (1,),
                     "GAMES_LEFT": (1,)}
    for block in lay.blocks:
        view = views[block.name]
        assert view.shape == (size, size, *expected_axes[block.name]) == (size, size, *block.axes), block.name
        assert int(np.prod(block.axes)) == block.size
        assert np.shares_memory(view, obs), block.name
        # channel k of cell (r, c) is entry (r * S + c) * C + k; the view's entries are the block's channels in C order
        channels = np.arange(block.offset, block.end).reshape(block.axes)
        for r, c in ((0, 0), (size - 1, 2), (3, size - 1)):
            assert np.array_equal(view[r, c], (r * size + c) * C + channels), (block.name, r, c)
    # the docstring's table names every group with its offsets for every count and its shape
    doc = callisto_env.env.__doc__
    for block in lay.blocks:
        offsets = " | ".join(str(L.OBS_PLANES[k].offset(block.name)) for k in COUNTS)
        assert f"| `{block.name}` | {offsets} |" in doc, block.name
    assert "| `REMAIN` | 0 | 0 | 0 |" not in doc and "2 x 10 / 3 x 10 / 4 x 10" in doc
    assert "2 x 2 / 3 x 3 / 4 x 4" in doc  # STARTED: (game, seat)
    # a batch keeps its leading axes; views of it are views of the batch
    batch = np.stack([obs, obs + 1, obs + 2]).astype(np.float32)
    bviews = GAME.observation_views(batch, params)
    assert bviews["REMAIN"].shape == (3, size, size, n, 10)
    assert np.shares_memory(bviews["STARTED"], batch)
    bviews["GAMES"][1] = -5
    assert np.all(batch[1, :, :, lay.offset("GAMES")] == -5)
    with pytest.raises(ValueError, match="shape"):
        GAME.observation_views(obs[..., :-1], params)


@pytest.mark.parametrize("n", COUNTS)
def test_obs_high_vector_is_the_tables_maxima_at_every_cell(n):
    params = GAME.make_params(n)
    shape = GAME.obs_shape(params)
    high = GAME.obs_high_vector(params).reshape(shape)
    lay = L.OBS_PLANES[n]
    assert np.array_equal(high[0, 0], lay.high_vector()) and np.all(high == high[0, 0])
    views = GAME.observation_views(high, params)
    most = 47 * n
    assert views["MATCH_PEN"][0, 0].tolist() == [[most // 100, min(most, 99)]] * n
    assert int(views["GAMES"][0, 0, 0]) == int(views["GAMES_LEFT"][0, 0, 0]) == n
    assert np.all(views["TO_MOVE"] == 1) and np.all(views["STARTED"] == 1) and np.all(views["MATCH"] == 1)


# ---- the seat to move ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", COUNTS)
def test_every_seat_sees_who_is_to_move(n):
    for current in range(n):
        state = state_from_ascii(empty_board(n), n, current=current, pillar_turns=dict.fromkeys(range(n), 0))
        for seat in range(n):
            v = views_of(state, seat)
            expected = np.zeros(n, dtype=np.int8)
            expected[(current - seat) % n] = 1
            assert np.array_equal(v["TO_MOVE"], expected), (current, seat)


def test_the_movers_opening_plane_says_whether_an_opening_pillar_is_pending():
    """OPENING counts the opening pillar turns still to come; while the mover's is above 0 every
    legal action is a pillar on the ring, once it is 0 the mover places a tile or its third pillar."""
    n = 3
    params = GAME.make_params(n)
    SS = L.BOARD_SIZE[n] ** 2
    mask = np.zeros(GAME.num_actions(params), dtype=np.int8)
    seen = set()

    def check(state):
        rules.legal_mask(state, mask)
        legal = np.flatnonzero(mask)
        mover = int(state[H_CURRENT])
        for seat in range(n):
            v = views_of(state, seat)
            rel = (mover - seat) % n
            assert v["TO_MOVE"][rel] == 1
            assert np.array_equal(v["OPENING"][[(q - seat) % n for q in range(n)]],
                                  2 - state[L.PILLAR_TURNS:L.PILLAR_TURNS + n])
            opening = int(v["OPENING"][rel]) > 0
            seen.add(opening)
            if opening:
                assert np.all(legal // SS == L.NUM_ORIENTS)
        if int(state[L.PILLAR_TURNS + mover]) == 2 and np.any(legal // SS < L.NUM_ORIENTS):
            seen.add("tile")

    play_to_end(n, False, 4, check)
    assert seen == {True, False, "tile"}


# ---- the match facts ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("match", [False, True])
def test_match_games_and_starters_along_a_played_episode(n, match):
    """MATCH, GAMES (finished games), GAMES_LEFT and STARTED (which seat started each game) at every
    position of a random single game or match, for every observer."""
    first = 1 % n
    games = n if match else 1
    seen_games = set()

    def check(state):
        g = int(state[L.GAME])
        seen_games.add(g)
        for seat in range(n):
            v = views_of(state, seat)
            assert int(v["MATCH"][0]) == int(match)
            assert int(v["GAMES"][0]) == g
            assert int(v["GAMES_LEFT"][0]) == games - g
            started = np.zeros((n, n), dtype=np.int8)
            for h in range(g + 1):
                started[h, ((first + h) % n - seat) % n] = 1
            assert np.array_equal(v["STARTED"], started), (g, seat)

    state = play_to_end(n, match, first, check)  # start_player = seed % n = first
    assert seen_games == set(range(games))
    for seat in range(n):
        v = views_of(state, seat)
        assert int(v["GAMES"][0]) == games and int(v["GAMES_LEFT"][0]) == 0
        started = np.zeros((n, n), dtype=np.int8)
        for h in range(games):
            started[h, ((first + h) % n - seat) % n] = 1
        assert np.array_equal(v["STARTED"], started)


def test_a_single_game_shows_only_its_starter_in_row_0():
    state = state_from_ascii(empty_board(3), 3, start_player=2, current=2)
    v = views_of(state, 1)
    assert v["STARTED"].tolist() == [[0, 1, 0], [0, 0, 0], [0, 0, 0]]  # seat 2 is rel 1 for seat 1
    assert int(v["MATCH"][0]) == 0 and int(v["GAMES"][0]) == 0 and int(v["GAMES_LEFT"][0]) == 1


# ---- no saturation ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("pen", [0, 47, 94, 99, 100, 126, 127, 128, 141, 188, 199])
def test_the_match_penalty_is_hundreds_then_the_rest_and_never_clips(n, pen):
    """Summed penalties reach 47 n (94 / 141 / 188): shown as v // 100, v % 100, at and beyond 127."""
    state = state_from_ascii(empty_board(n), n)
    state[L.MATCH] = 1
    pens = [pen, 47 * n, 0, 127][:n]
    state[L.MATCH_PEN:L.MATCH_PEN + n] = pens
    for seat in range(n):
        v = views_of(state, seat)
        for q in range(n):
            hundreds, rest = v["MATCH_PEN"][(q - seat) % n].tolist()
            assert (hundreds, rest) == divmod(pens[q], 100)
            assert 100 * hundreds + rest == pens[q]
    # every reachable value (at most 47 n) is within the documented maxima
    if pen <= 47 * n:
        obs = full_observation(state, 0).reshape(-1)
        assert np.all(obs >= 0) and np.all(obs <= GAME.obs_high_vector(GAME.make_params(n)))


@pytest.mark.parametrize("n", COUNTS)
def test_the_largest_reachable_match_penalty_is_shown_exactly(n):
    """Every seat leaving all 47 squares unplaced in each of the n games: 47 n, at the end of a match."""
    state = state_from_ascii(empty_board(n), n)
    state[L.MATCH] = 1
    state[L.GAME] = n - 1
    state[L.MATCH_PEN:L.MATCH_PEN + n] = 47 * (n - 1)  # the finished games
    state[L.OUT:L.OUT + n] = 1
    rules.settle(state, 0)  # everyone is out: the last game ends with 47 more each
    assert state[H_TERMINAL] == 1 and list(state[L.MATCH_PEN:L.MATCH_PEN + n]) == [47 * n] * n
    for seat in range(n):
        v = views_of(state, seat)
        assert v["MATCH_PEN"].tolist() == [list(divmod(47 * n, 100))] * n
    obs = full_observation(state, 0).reshape(-1)
    assert np.all(obs >= 0) and np.all(obs <= GAME.obs_high_vector(GAME.make_params(n)))


# ---- the terminal observation ----------------------------------------------------------------------
@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("match", [False, True])
def test_the_terminal_observation_shows_no_pending_decision_and_the_final_position(n, match):
    state = play_to_end(n, match, 7 + n)
    games = n if match else 1
    params = GAME.make_params(n, match=match)
    for seat in range(n):
        obs = full_observation(state, seat)
        views = GAME.observation_views(obs, params)
        for block in GAME.obs_pending_blocks:
            assert not np.any(views[block]), block
        v = {k: x[0, 0] for k, x in views.items()}
        order = [(seat + r) % n for r in range(n)]
        assert np.all(views["TO_MOVE"] == 0)
        assert int(v["GAMES_LEFT"][0]) == 0 and int(v["GAMES"][0]) == games
        assert np.all(v["OUT"] == 1)
        pens = state[L.MATCH_PEN:L.MATCH_PEN + n][order]
        assert np.array_equal(100 * v["MATCH_PEN"][:, 0] + v["MATCH_PEN"][:, 1].astype(np.int64), pens)
        assert pens.tolist() == [sum(row[p] for row in GAME.to_dict(state)["finished_game_penalties"])
                                 for p in order]
        remain = state[L.REMAIN:L.REMAIN + 10 * n].reshape(n, 10)[order]
        assert np.array_equal(v["REMAIN"], remain)
        # the final board is still shown
        size = L.BOARD_SIZE[n]
        board = state[L.BOARD:L.BOARD + size * size].reshape(size, size)
        for r in range(n):
            q = order[r]
            assert np.array_equal(views["TILES"][..., r] == 1, (board != 0) & ((board - 1) % 4 == q) & (board > 4))
            assert np.array_equal(views["PILLARS"][..., r] == 1, (board != 0) & ((board - 1) % 4 == q) & (board <= 4))
    assert GAME.obs_pending_blocks == ("TO_MOVE",)


def test_the_env_docstring_states_the_terminal_observation_and_what_is_left_out():
    doc = callisto_env.env.__doc__
    assert "Terminal observation" in doc and "`TO_MOVE` is all zero" in doc
    for key, reason in GAME.obs_leaves_out.items():
        assert f"* `{key}`: {reason}." in doc
    assert "callisto-v1" in doc and "* v1: observation" in doc and GAME.env_id == "callisto-v1"
