"""Callisto, one test per clause of docs/rules/callisto.md (positions built from ASCII)."""

from __future__ import annotations

import numpy as np
import pytest

import callisto_env
from callisto_env import layout as L
from callisto_env import rules
from callisto_env.game import state_from_ascii
from gamecore.kernel.protocol import H_CURRENT, H_DONE, H_TERMINAL

EMPTY10 = "\n".join(["." * 10] * 10)


def make(num_players=2, **kw):
    env = callisto_env.raw_env(num_players=num_players, **kw)
    env.reset(seed=0)
    return env


def at(board: str, num_players: int = 2, **kw) -> callisto_env.raw_env:
    """An env in the position drawn by ``board``."""
    env = make(num_players)
    env.set_state(state_from_ascii(board, num_players, **kw))
    return env


def ring(size: int) -> set[str]:
    cols = "abcdefghijklmn"
    return {f"{cols[c]}{r + 1}" for r in range(size) for c in range(size) if r in (0, size - 1) or c in (0, size - 1)}


# ---- components ---------------------------------------------------------------------------------
def test_each_colour_has_13_tiles_of_47_squares():
    assert int(L.TILE_COPIES.sum()) == 13
    assert int((L.TILE_COPIES * L.TILE_SIZE).sum()) == 47


def test_penalty_of_a_tile_is_its_number_of_squares():
    assert dict(zip(L.TILE_NAMES, L.TILE_SIZE.tolist(), strict=True)) == {
        "D2": 2, "I3": 3, "V3": 3, "L4": 4, "T4": 4, "S4": 4, "O4": 4, "X5": 5, "T5": 5, "U5": 5,
    }


def test_tiles_rotate_and_flip_with_duplicate_orientations_merged():
    counts = {name: 0 for name in L.TILE_NAMES}
    for o in range(L.NUM_ORIENTS):
        counts[L.TILE_NAMES[L.ORIENT_TILE[o]]] += 1
    assert counts == {"D2": 2, "I3": 2, "V3": 4, "L4": 8, "T4": 4, "S4": 4, "O4": 1, "X5": 1, "T5": 4, "U5": 4}


@pytest.mark.parametrize("n,size", [(2, 10), (3, 12), (4, 14)])
def test_board_is_10_12_14_for_2_3_4_players(n, size):
    env = make(n)
    assert env.to_dict()["board_size"] == size
    assert env.action_space("player_0").n == 35 * size * size
    assert env.observation_space("player_0")["observation"].shape == (size, size, n * n + 18 * n + 3)


# ---- opening pillars --------------------------------------------------------------------------------
def test_first_turn_is_a_pillar_on_any_free_ring_cell():
    env = make(2)
    assert env.legal_action_strings() == sorted(f"pillar {c}" for c in ring(10))


def test_opening_pillar_may_not_be_adjacent_to_any_pillar():
    board = """
        a b c d e f g h i j
      1 G . . . . . . . . .
      2 . . . . . . . . . .
      3 . . . . . . . . . .
      4 . . . . . . . . . .
      5 . . . . . . . . . B
      6 . . . . . . . . . .
      7 . . . . . . . . . .
      8 . . . . . . . . . .
      9 . . . . . . . . . .
     10 . . . . . . . . . .
    """
    env = at(board, current=0, pillar_turns={0: 1, 1: 1})
    expected = ring(10) - {"a1", "b1", "a2", "j4", "j5", "j6"}
    assert env.legal_action_strings() == sorted(f"pillar {c}" for c in expected)


def test_turns_1_and_2_are_pillars_then_tiles():
    env = make(2)
    for _ in range(4):  # two pillars each
        assert all(s.startswith("pillar") for s in env.legal_action_strings())
        env.step(env.legal_actions()[0])
    assert any(not s.startswith("pillar") for s in env.legal_action_strings())
    d = env.to_dict()
    assert [p["pillars_placed"] for p in d["players"]] == [2, 2]


def test_a_player_with_no_free_ring_cell_skips_the_pillar_placement():
    # every ring cell is covered or next to a pillar; seat 0 has its first opening turn
    board = """
      b b b b b b b b b b
      b . . . . . . . . b
      b . . . . . . . . b
      b . . . . . . . . b
      b . . . . . . . . b
      b . . . . . . . . b
      b . . . . . . . . b
      b . . . . . . . . b
      b . . . . . . . . B
      b b b b b b b b b b
    """
    state = state_from_ascii(
        board, 2, current=1, pillar_turns={0: 0, 1: 2}, third={1: False}, remaining={1: {"D2": 1}}
    )
    rules.settle(state, 0)  # green's first opening turn: skipped, blue moves
    assert state[L.PILLAR_TURNS + 0] == 1 and state[H_CURRENT] == 1
    env = make(2)
    env.set_state(state)
    env.step(env.string_to_action("D2 r0 c2"))
    # green's second opening turn is skipped too, blue (nothing left) is out, and green has its
    # tile-phase turn, in which only the third pillar fits (next to a tile, not next to a pillar)
    assert env.state_array[L.PILLAR_TURNS + 0] == 2
    assert env.agent_selection == "player_0"
    legal = env.legal_action_strings()
    assert legal and all(s.startswith("pillar") for s in legal)
    assert {"pillar b2", "pillar c3", "pillar e2"} <= set(legal)
    assert "pillar i9" not in legal and "pillar e5" not in legal


# ---- tiles ---------------------------------------------------------------------------------------------
def test_a_tile_must_touch_an_own_pillar_or_tile_by_an_edge():
    board = """
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . G . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . B
    """
    env = at(board, third={0: False}, remaining={0: {"O4": 1}})
    # 2x2 squares with a side square next to e5 (corner contact, e.g. c3-d4, does not count)
    assert env.legal_action_strings() == sorted(
        ["O4 r0 c4", "O4 r0 d3", "O4 r0 e3", "O4 r0 f4", "O4 r0 f5", "O4 r0 e6", "O4 r0 d6", "O4 r0 c5"]
    )


def test_touching_only_another_players_piece_is_not_enough():
    board = """
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . b b . . . .
      . . . . B . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      G . . . . . . . . .
    """
    env = at(board, third={0: False}, remaining={0: {"D2": 1}})
    assert env.legal_action_strings() == sorted(["D2 r0 a9", "D2 r0 b10", "D2 r90 a8", "D2 r90 b9"])


def test_a_tile_lies_inside_the_grid_on_free_cells():
    board = """
      G b . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . B
    """
    env = at(board, third={0: False}, remaining={0: {"I3": 1}})
    # a2 is the pillar's only free neighbour; b2-d2 touches a1 only by a corner
    assert env.legal_action_strings() == sorted(["I3 r0 a2", "I3 r90 a2"])


def test_third_pillar_goes_next_to_the_frame_or_a_tile_and_not_next_to_a_pillar():
    board = """
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . g g . . . .
      . . . . G . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . B
    """
    env = at(board, remaining={0: {}})  # nothing left to place but the third pillar
    expected = {"pillar " + c for c in (ring(10) - {"j10", "j9", "i10"})} | {
        "pillar e3", "pillar f3", "pillar d4", "pillar g4",  # f5 touches the pillar on e5
    }
    assert env.legal_action_strings() == sorted(expected)


def test_the_third_pillar_is_placed_once():
    env = at(
        "\n".join(["G........."] + ["." * 10] * 8 + [".........B"]),
        remaining={0: {"D2": 2}},
    )
    env.step(env.string_to_action("pillar e1"))
    env.step(env.legal_actions()[0])  # blue
    assert not any(s.startswith("pillar") for s in env.legal_action_strings())


# ---- out, end and penalties --------------------------------------------------------------------------
def test_a_player_who_can_do_nothing_is_out_and_skipped():
    board = """
      G b . . . . . . . .
      b b . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . B
    """
    state = state_from_ascii(board, 2, current=1, third={0: False}, remaining={0: {"X5": 1}, 1: {"D2": 2}})
    env = make(2)
    env.set_state(state)
    env.step(env.string_to_action("D2 r0 h10"))
    assert env.terminations == {"player_0": True, "player_1": False}
    assert env.agent_selection == "player_1"  # green is skipped
    env.step(env.string_to_action("D2 r0 f10"))
    assert env.agent_selection == "player_1"


def test_game_ends_when_every_player_is_out_and_penalties_are_unplaced_squares():
    board = """
      G b . . . . . . . .
      b b . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . .
      . . . . . . . . . B
    """
    state = state_from_ascii(
        board, 2, current=1, third={0: False, 1: False}, remaining={0: {"X5": 1, "I3": 1}, 1: {"D2": 1}}
    )
    env = callisto_env.raw_env(num_players=2, reward_mode="score")
    env.reset(seed=0)
    env.set_state(state)
    env.step(env.string_to_action("D2 r0 h10"))
    assert env.state_array[H_TERMINAL] == 1
    assert env.rewards == {"player_0": -8.0, "player_1": 0.0}  # 3 + 5 = 8; placed all: 0


@pytest.mark.parametrize(
    "tiles,pen", [({"I3": 1, "X5": 1}, 8), ({"L4": 1, "O4": 1, "T5": 1}, 13), ({"V3": 1, "T4": 1, "S4": 1}, 11)]
)
def test_rulebook_penalty_examples(tiles, pen):
    state = state_from_ascii(EMPTY10, 2, remaining={0: tiles})
    assert rules.penalty(state, 0) == pen


def test_an_unplaced_pillar_costs_nothing():
    state = state_from_ascii(EMPTY10, 2, third={0: True}, remaining={0: {"D2": 1}})
    assert rules.penalty(state, 0) == 2


def test_lowest_penalty_wins():
    state = state_from_ascii(EMPTY10, 2, remaining={0: {"D2": 1}, 1: {"I3": 1}})
    keys = np.zeros(2)
    rules.rank_keys(state, keys)
    state[L.MATCH_PEN:L.MATCH_PEN + 2] = [2, 3]
    rules.rank_keys(state, keys)
    assert keys[0] > keys[1]


@pytest.mark.parametrize("start,winner", [(0, 1), (1, 0)])
def test_on_a_tie_the_player_who_started_later_wins(start, winner):
    state = state_from_ascii(EMPTY10, 2, start_player=start)
    state[L.START] = start
    state[L.MATCH_PEN:L.MATCH_PEN + 2] = [5, 5]
    keys = np.zeros(2)
    rules.rank_keys(state, keys)
    assert int(np.argmax(keys)) == winner


def test_three_way_tie_goes_to_the_latest_starter():
    state = state_from_ascii("\n".join(["." * 12] * 12), 3, start_player=1)
    state[L.START] = 1
    state[L.MATCH_PEN:L.MATCH_PEN + 3] = [4, 4, 4]
    keys = np.zeros(3)
    rules.rank_keys(state, keys)
    assert list(np.argsort(-keys)) == [0, 2, 1]  # order of play 1, 2, 0: seat 0 started last


# ---- seat order and the match ------------------------------------------------------------------------
def test_start_player_begins_and_turns_go_round_in_seat_order():
    env = make(3, start_player=2)
    seen = []
    for _ in range(6):
        seen.append(env.agent_selection)
        env.step(env.legal_actions()[0])
    assert seen == ["player_2", "player_0", "player_1"] * 2


def test_match_plays_as_many_games_as_players_with_rotating_start_and_summed_penalties():
    env = callisto_env.raw_env(num_players=3, match=True, reward_mode="score")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    starts = []
    last_game = -1
    while not env.state_array[H_TERMINAL]:
        d = env.to_dict()
        if d["match_game"] != last_game:
            last_game = d["match_game"]
            starts.append(d["start_player"])
            assert not any(env.terminations.values())  # nobody terminates before the match ends
        env.step(int(rng.choice(env.legal_actions())))
    d = env.to_dict()
    assert starts == [0, 1, 2]
    pens = np.array(d["finished_game_penalties"])
    assert pens.shape == (3, 3)
    assert env.rewards == {f"player_{p}": -float(pens[:, p].sum()) for p in range(3)}


def test_the_score_of_a_running_game_is_minus_the_penalty_if_it_ended_now():
    state = state_from_ascii(EMPTY10, 2, remaining={0: {"D2": 1, "X5": 1}, 1: {"I3": 1}})
    state[L.MATCH_PEN:L.MATCH_PEN + 2] = [4, 0]  # a match: penalties of finished games count too
    out = np.zeros(2)
    rules.scores(state, out)
    assert list(out) == [-(4 + 7), -3]


def test_match_winner_has_lowest_summed_penalty_and_ties_share():
    state = state_from_ascii(EMPTY10, 2)
    state[L.MATCH] = 1
    state[L.MATCH_PEN:L.MATCH_PEN + 2] = [7, 7]
    keys = np.zeros(2)
    rules.rank_keys(state, keys)
    assert keys[0] == keys[1]


def test_done_bits_follow_players_going_out():
    env = make(2)
    rng = np.random.default_rng(1)
    while not env.state_array[H_TERMINAL]:
        bits = int(env.state_array[H_DONE])
        for p in range(2):
            assert bool((bits >> p) & 1) == env.to_dict()["players"][p]["out"]
        env.step(int(rng.choice(env.legal_actions())))


# ---- the legal-set cache (not a rule: LEGAL must always equal its recomputation) -------------------
@pytest.mark.parametrize("num_players,match", [(2, False), (3, False), (4, False), (3, True)])
def test_the_cached_legal_set_equals_its_recomputation_from_the_board_along_random_games(num_players, match):
    rng = np.random.default_rng(num_players)
    env = callisto_env.raw_env(num_players=num_players, match=match)
    legal = slice(L.LEGAL, L.LEGAL + L.LEGAL_KINDS * L.BB_WORDS)
    steps = 0
    for game in range(3):
        env.reset(seed=game)
        while True:
            state = env.state_array
            scratch = state.copy()
            scratch[L.BB_FREE:] = 0  # every bitboard and the cache, rebuilt from BOARD and the counters
            scratch[legal] = -1
            rules.rebuild_bitboards(scratch)
            rules.refresh_legal(scratch)
            assert np.array_equal(scratch, state), f"step {steps}: slots {np.flatnonzero(scratch != state)}"
            assert rules.check_state(state, env._params) == 0
            mask = np.zeros(env.action_space(env.agent_selection).n, dtype=np.int8)
            assert rules.legal_mask(state, mask) == int(mask.sum()) == int(
                sum(bin(int(w) & (2**64 - 1)).count("1") for w in state[legal]))
            if state[H_TERMINAL]:
                assert not state[legal].any()
                break
            env.step(int(rng.choice(env.legal_actions())))
            steps += 1
    assert steps > 60


def test_check_state_refuses_a_stale_legal_cache():
    env = make(2)
    for _ in range(8):
        env.step(env.legal_actions()[0])
    state = env.get_state()
    for slot in (L.LEGAL, L.LEGAL + L.BB_WORDS * L.NUM_ORIENTS + 1):
        bad = state.copy()
        bad[slot] ^= 1
        assert rules.check_state(bad, env._params) == slot + 1
