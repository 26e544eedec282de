"""Calçada, one test per clause of docs/rules/calcada.md (positions built from ASCII)."""

from __future__ import annotations

import numpy as np
import pytest

import calcada_env
from calcada_env import layout as L
from calcada_env import notation, rules
from calcada_env.game import GAME, state_from_ascii
from gamecore.kernel.protocol import H_CURRENT, H_DONE, H_TERMINAL
from reference import calcada_scoring_reference as ref

EMPTY = "\n".join([".. .. .. .. .."] * 5)

# Side A, printed layout (district letter + number):
#   A1 A2 A3 B4 B5
#   A4 A5 C1 B1 B2
#   D2 D3 C4 C5 E3
#   D1 F4 F5 G3 E2
#   H5 H3 F2 G4 E1
# A full side-A board: A yellow, B red, C blue, D green, E purple, F yellow, G blue, H green.
FULL = """
yt yp yk rt rp
yc yb bt rk rc
gt gp bp bk pt
gk yt yp bc pp
gc gb yk bb pk
"""
# FULL with r1c4 (B4, red district) and r5c1 (H5, green district) empty.
TWO_HOLES = """
yt yp yk .. rp
yc yb bt rk rc
gt gp bp bk pt
gk yt yp bc pp
.. gb yk bb pk
"""
# spaces 1..6 hold 1, 2, 3, 4, 5, 0 cobblestones
STAIRS = ["r", "yb", "ypg", "rbgp", "yrbgp", ""]
# every space holds 3 cobblestones (space 6 none): the declared number is always 3
THREES = ["yrb", "gpy", "rbg", "pyr", "bgp", ""]


def make(num_players: int = 2, **kw) -> calcada_env.raw_env:
    env = calcada_env.raw_env(num_players=num_players, **kw)
    env.reset(seed=0)
    return env


def at(boards, board_side: str = "A", **kw) -> calcada_env.raw_env:
    """An env in the position drawn by ``boards`` (one ASCII board per seat)."""
    env = make(len(boards), board_side=board_side)
    env.set_state(state_from_ascii(boards, board_side=board_side, **kw))
    return env


def play(env, text: str) -> None:
    env.step(env.string_to_action(text))


def strings(env, prefix: str = "") -> list[str]:
    return [s for s in env.legal_action_strings() if s.startswith(prefix)]


def board_of(env, seat: int) -> list[str]:
    return notation.board_rows(env.state_array, seat)


def every_stone(carousel: list[str], verb: str, suffix: str = "") -> list[str]:
    """One action string per (colour, space) that holds a cobblestone."""
    out = set()
    for s, stones in enumerate(carousel):
        for ch in stones:
            out.add(f"{verb} {L.COLOURS[L.COLOUR_CHARS.index(ch)]} on space {s + 1}{suffix}")
    return sorted(out)


def test_state_from_ascii_reads_the_boards_from_one_text_or_one_per_seat():
    boards = [EMPTY, "bk b* .. .. ..\n.. .. .. .. ..\n.. .. .. .. ..\n.. .. .. .. ..\n.. .. .. .. yt", EMPTY]
    carousel = ["r", "yb", "ypg", "rbgp", "yrbgp", ""]
    one = state_from_ascii(boards, carousel=carousel)
    assert np.array_equal(state_from_ascii("\n\n".join(boards), carousel=carousel), one)
    assert notation.board_rows(one, 1)[0] == "bk b* .. .. .."
    with pytest.raises(ValueError, match="5 rows each"):
        state_from_ascii(EMPTY + "\n.. .. .. .. ..", carousel=carousel)


# ---- components and setup ---------------------------------------------------------------------------
def test_each_colour_has_20_motif_tiles_and_5_bonus_tiles():
    assert L.KIND_COPIES.tolist() == [4, 4, 4, 4, 4, 5]
    assert L.TILES_PER_COLOUR == 25


def test_both_board_sides_cover_25_squares_numbered_1_to_5():
    assert L.NUM_DISTRICTS.tolist() == [8, 9]
    for side in (0, 1):
        assert sorted(set(L.SQ_NUMBER[side].tolist())) == [1, 2, 3, 4, 5]
        assert int(L.DISTRICT_SIZE[side].sum()) == 25


def test_scoreboards_per_player_count():
    for n, rows in {2: [3, 2, 1], 3: [3, 2, 2, 1], 4: [3, 3, 2, 2, 1]}.items():
        assert L.SCORE_ROWS[n, : L.NUM_ROWS[n]].tolist() == rows


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup(n):
    for seed in range(20):
        env = make(n, start_player=n - 1)
        env.reset(seed=seed)
        st = env.state_array
        car = st[L.CAR : L.CAR + 30].reshape(6, 5)
        per_space = car.sum(axis=1)
        empty = int(np.flatnonzero(per_space == 0)[0])
        # 1 on a random space, 2 on the next clockwise, ... 5; the sixth stays empty
        assert [int(per_space[(empty + 1 + j) % 6]) for j in range(6)] == [1, 2, 3, 4, 5, 0]
        assert car.sum(axis=0).tolist() == [3] * 5  # 3 cobblestones of each colour: 15
        assert st[L.SB_ROW : L.SB_ROW + 5].tolist() == [0] * 5  # 5 more on the scoreboard's top row
        assert st[L.BONUS : L.BONUS + n].tolist() == [2] * n
        for c in range(5):
            assert len([t for t in notation.display_tokens(st, c) if t != "."]) == 3
            assert int(st[L.STACK_N + c]) == 22
        assert int(st[H_CURRENT]) == n - 1
        assert rules.check_state(st, env.params) == 0


def test_setup_stacks_are_shuffled_by_the_seed():
    a, b = make(), make()
    b.reset(seed=1)
    assert not np.array_equal(a.state_array[L.STACK : L.DISPLAY], b.state_array[L.STACK : L.DISPLAY])


# ---- declare ---------------------------------------------------------------------------------------
def test_declared_number_is_the_count_on_the_space_before_moving():
    env = at([TWO_HOLES, EMPTY], carousel=STAIRS, bonus={0: 0}, displays={"red": "rt rk ."})
    # r1c4 shows 4 (red district B); r5c1 shows 5 (green district H)
    assert env.legal_action_strings() == [
        "declare green on space 5 (number 5)",
        "declare red on space 4 (number 4)",
    ]
    play(env, "declare red on space 4 (number 4)")
    st = env.state_array
    assert int(st[L.DECL_NUM]) == 4  # space 4 had 4 stones; it has 3 after the move
    assert int(st[L.CAR + 5 * 3 + 1]) == 0 and int(st[L.CAR + 5 * 4 + 1]) == 2  # red moved clockwise
    assert int(st[H_CURRENT]) == 0  # the same seat now places
    assert env.legal_action_strings() == ["take slot 1 (red tram) to r1c4", "take slot 2 (red kiosk) to r1c4"]


def test_six_or_more_stones_make_any_empty_square_legal():
    board = """
    .. yp yk rt rp
    yc yb .. rk rc
    gt gp bp bk ..
    gk yt .. bc pp
    gc gb yk bb pk
    """
    env = at([board, EMPTY], carousel=["yyrrbb", "yr", "bg", "gpp", "gp", ""], bonus={0: 0},
             displays={"yellow": "yt y* ."})
    assert "declare yellow on space 1 (number 6)" in env.legal_action_strings()
    play(env, "declare yellow on space 1 (number 6)")
    # any empty square of a yellow (or empty) district: r1c1 (A) and r4c3 (F); not r2c3 (blue C)
    # or r3c5 (purple E)
    assert env.legal_action_strings() == [
        "take slot 1 (yellow tram) to r1c1",
        "take slot 1 (yellow tram) to r4c3",
        "take slot 2 (yellow bonus) to r1c1",
        "take slot 2 (yellow bonus) to r4c3",
    ]


def test_all_tiles_in_a_district_share_one_colour():
    board = """
    yt yp yk rt rp
    yc yb bt rk rc
    gt gp .. .. pt
    gk yt yp bc pp
    gc gb yk bb pk
    """
    # C (r2c3 blue, r3c3 shows 4, r3c4 shows 5): only blue may join it
    env = at([board, EMPTY], carousel=STAIRS, bonus={0: 0})
    assert env.legal_action_strings() == [
        "declare blue on space 4 (number 4)",
        "declare blue on space 5 (number 5)",
    ]
    # with C empty, any colour may start it (r2c3 shows 1)
    board_c_empty = board.replace("yb bt rk", "yb .. rk")
    env = at([board_c_empty, EMPTY], carousel=STAIRS, bonus={0: 0})
    assert env.legal_action_strings() == sorted(
        ["declare red on space 1 (number 1)"]
        + every_stone(["", "", "", "rbgp", "", ""], "declare", " (number 4)")
        + every_stone(["", "", "", "", "yrbgp", ""], "declare", " (number 5)")
    )


def test_a_colour_that_left_the_scoreboard_cannot_be_declared():
    env = at([TWO_HOLES, EMPTY], carousel=STAIRS, bonus={0: 0}, scoreboard={"red": 3})
    assert env.legal_action_strings() == ["declare green on space 5 (number 5)"]


def test_a_colour_with_an_empty_display_cannot_be_declared():
    # seat 1 holds the other 22 red tiles: red's stack and display are empty
    reds = """
    rt rt rt rt rp
    rp rp rk rk rk
    rc rc rc rb rb
    rb rb r* r* r*
    r* r* .. .. ..
    """
    env = at([TWO_HOLES, reds], carousel=STAIRS, bonus={0: 0})
    assert env.to_dict()["colours"]["red"]["display"] == [".", ".", "."]
    assert env.legal_action_strings() == ["declare green on space 5 (number 5)"]


def test_no_legal_cobblestone_the_player_moves_one_and_places_nothing():
    # every space holds 3 stones, seat 0's empty squares show 4 and 5
    env = at([TWO_HOLES, EMPTY], carousel=THREES, bonus={0: 0})
    assert env.legal_action_strings() == every_stone(THREES, "move", " without placing")
    before = board_of(env, 0)
    play(env, "move yellow on space 1 without placing")
    st = env.state_array
    assert board_of(env, 0) == before
    assert int(st[L.CAR + 0]) == 0 and int(st[L.CAR + 5 * 1 + 0]) == 2  # yellow moved to space 2
    assert int(st[H_CURRENT]) == 1  # the turn is over
    assert int(st[L.PHASE]) == L.PHASE_DECLARE


def test_no_legal_cobblestone_bonus_moves_may_still_make_one_legal():
    env = at([TWO_HOLES, EMPTY], carousel=THREES, bonus={0: 1})
    assert strings(env, "declare") == []
    play(env, "bonus move red on space 1")  # space 2 now holds 4 stones, red among them
    assert env.legal_action_strings() == ["declare red on space 2 (number 4)"]


# ---- bonus tiles ------------------------------------------------------------------------------------
def test_bonus_moves_only_before_the_declare_and_swaps_only_after_it():
    env = at([TWO_HOLES, EMPTY], carousel=STAIRS, bonus={0: 2})
    assert strings(env, "bonus move") == every_stone(STAIRS, "bonus move")
    assert strings(env, "swap") == []
    play(env, "bonus move red on space 1")  # costs 1 bonus tile, still seat 0's decision
    assert int(env.state_array[L.BONUS]) == 1 and int(env.state_array[H_CURRENT]) == 0
    assert int(env.state_array[L.CAR + 5 * 1 + 1]) == 1
    play(env, "declare red on space 4 (number 4)")
    assert strings(env, "bonus move") == []
    assert strings(env, "swap") == [f"swap display {c}" for c in sorted(L.COLOURS)]
    play(env, "swap display purple")
    assert int(env.state_array[L.BONUS]) == 0
    assert strings(env, "swap") == []
    assert all(s.startswith("take") for s in env.legal_action_strings())


def test_no_bonus_actions_without_bonus_tiles():
    env = at([TWO_HOLES, EMPTY], carousel=STAIRS, bonus={0: 0}, declared=("red", 4),
             displays={"red": "rt . ."})
    assert env.legal_action_strings() == ["take slot 1 (red tram) to r1c4"]


def test_swap_puts_the_display_under_its_stack_and_reveals_3_new():
    env = at([TWO_HOLES, EMPTY], carousel=STAIRS, bonus={0: 1}, declared=("red", 4),
             displays={"red": "rt rk ."})
    full = env.to_dict("all")["colours"]["red"]
    assert full["stack_known_bottom"] == []
    play(env, "swap display red")
    after = env.to_dict("all")["colours"]["red"]
    assert after["display"] == full["stack_top_first"][:3]
    assert after["stack_size"] == full["stack_size"] + 2 - 3
    assert after["stack_top_first"][-2:] == ["rk", "rt"]  # slot 1 went under first, then slot 2
    # everybody saw them go under: the bottom of the stack is public from now on
    for viewer in ("public", 0, 1):
        assert env.to_dict(viewer)["colours"]["red"]["stack_known_bottom"] == ["rt", "rk"]
        assert "stack_top_first" not in env.to_dict(viewer)["colours"]["red"]


def test_the_known_bottom_of_a_stack_is_in_every_seats_observation():
    env = at([TWO_HOLES, EMPTY], carousel=STAIRS, bonus={0: 1}, declared=("red", 4),
             displays={"red": "rt rk ."})
    red = L.COLOURS.index("red")
    params = GAME.make_params(2)

    def views(agent):
        return GAME.observation_views(env.observe(agent)["observation"], params)

    before = views("player_1")
    assert not before["KNOWN_KINDS"][red].any() and not before["KNOWN_ORDER"][red].any()
    play(env, "swap display red")  # the tram went under first (the bottom), then the kiosk on it
    tram, kiosk = L.KIND_NAMES.index("tram"), L.KIND_NAMES.index("kiosk")
    for agent in env.possible_agents:
        v = views(agent)
        assert v["KNOWN_KINDS"][red].tolist() == [1 if k in (tram, kiosk) else 0 for k in range(6)]
        # the kiosk comes out first once the unknown tiles above it are gone, then the tram, then none
        order = v["KNOWN_ORDER"][red]
        assert [np.flatnonzero(row).tolist() for row in order[:3]] == [[kiosk], [tram], []]
        assert not order[2:].any()
        assert v["STACK_SIZES"][red] == env.to_dict(agent)["colours"]["red"]["stack_size"]


def test_swap_needs_a_non_empty_stack():
    reds = """
    rt rt rt rt rp
    rp rp rk rk rk
    rc rc rc rb rb
    rb rb r* r* r*
    r* .. .. .. ..
    """
    env = at([TWO_HOLES, reds], carousel=STAIRS, bonus={0: 1}, declared=("red", 4), displays={"red": "r*"})
    assert env.to_dict()["colours"]["red"]["stack_size"] == 0
    assert "swap display red" not in strings(env, "swap")
    assert "swap display blue" in strings(env, "swap")


def test_bonus_symbol_tile_gives_2_bonus_tiles():
    env = at([TWO_HOLES, EMPTY], carousel=STAIRS, bonus={0: 0}, declared=("red", 4),
             displays={"red": "r* rt ."})
    play(env, "take slot 1 (red bonus) to r1c4")
    assert int(env.state_array[L.BONUS]) == 2
    assert board_of(env, 0)[0] == "yt yp yk r* rp"


# ---- display --------------------------------------------------------------------------------------
def test_display_is_refilled_only_when_its_last_tile_is_taken():
    env = at([EMPTY, EMPTY], carousel=STAIRS, bonus={0: 0, 1: 0}, declared=("blue", 3),
             displays={"blue": "bt bk ."})
    stack = env.to_dict()["colours"]["blue"]["stack_size"]
    play(env, "take slot 1 (blue tram) to r3c5")
    d = env.to_dict()["colours"]["blue"]
    assert d["display"] == [".", "bk", "."] and d["stack_size"] == stack
    # seat 1 takes the last blue tile: 3 new ones are revealed
    play(env, "declare blue on space 2 (number 2)")
    full = env.to_dict("all")["colours"]["blue"]
    play(env, "take slot 2 (blue kiosk) to r3c1")
    d = env.to_dict()["colours"]["blue"]
    assert d["display"] == full["stack_top_first"][:3] and d["stack_size"] == stack - 3


def test_display_refill_takes_fewer_when_the_stack_runs_low():
    blues = """
    bt bt bt bt bp
    bp bp bp bk bk
    bk bk bc bc bc
    bc bb bb bb bb
    b* b* .. .. ..
    """
    env = at([EMPTY, blues], carousel=STAIRS, bonus={0: 0}, declared=("blue", 3), displays={"blue": "b*"})
    assert env.to_dict()["colours"]["blue"]["stack_size"] == 2
    play(env, "take slot 1 (blue bonus) to r3c5")
    d = env.to_dict()["colours"]["blue"]
    assert d["display"] == ["b*", "b*", "."] and d["stack_size"] == 0


# ---- district scoring -------------------------------------------------------------------------------
def test_clare_completes_a_blue_district_of_2_at_x3_and_blue_moves_down_to_x2():
    board = """
    .. .. .. .. ..
    .. .. .. .. ..
    .. .. .. .. ..
    .. .. .. .. ..
    bt .. .. .. ..
    """
    env = at([board, EMPTY], carousel=STAIRS, bonus={0: 0}, declared=("blue", 3), displays={"blue": "bk"})
    assert env.to_dict()["colours"]["blue"]["multiplier"] == 3
    play(env, "take slot 1 (blue kiosk) to r5c2")  # H: r5c1 + r5c2
    assert int(env.state_array[L.POINTS]) == 6
    blue = env.to_dict()["colours"]["blue"]
    assert blue["scoreboard_row"] == 1 and blue["multiplier"] == 2


def test_an_incomplete_district_does_not_score():
    env = at([EMPTY, EMPTY], carousel=STAIRS, bonus={0: 0}, declared=("blue", 3), displays={"blue": "bk"})
    play(env, "take slot 1 (blue kiosk) to r5c2")
    assert int(env.state_array[L.POINTS]) == 0
    assert env.to_dict()["colours"]["blue"]["scoreboard_row"] == 0


def test_leaving_the_scoreboard_gives_2_points_and_retires_the_colour():
    board = "\n".join([".. .. .. .. .."] * 4 + ["bt .. .. .. .."])
    env = at([board, EMPTY], carousel=STAIRS, bonus={0: 0}, declared=("blue", 3), displays={"blue": "bk"},
             scoreboard={"blue": 2})  # 2 players: rows x3 x2 x1, blue on the bottom row
    play(env, "take slot 1 (blue kiosk) to r5c2")
    assert int(env.state_array[L.POINTS]) == 2 * 1 + 2
    blue = env.to_dict()["colours"]["blue"]
    assert not blue["on_scoreboard"] and blue["multiplier"] == 0
    assert not env.state_array[L.END_TRIGGERED]  # only the first colour to leave
    # blue can never be declared again
    assert not any("blue" in s for s in strings(env, "declare"))


def test_a_retired_colours_district_can_never_be_completed_and_counts_as_incomplete():
    board = "\n".join([".. .. .. .. .."] * 4 + ["bt .. .. .. .."])
    env = at([board, EMPTY], carousel=STAIRS, bonus={0: 0}, scoreboard={"blue": 3})
    assert not any("blue" in s for s in strings(env, "declare"))
    assert int(rules.incomplete_district_tiles(env.state_array, 0)) == 1


# ---- game end ---------------------------------------------------------------------------------------
def test_second_colour_leaving_triggers_the_end_and_the_round_is_finished():
    board = "\n".join([".. .. .. .. .."] * 4 + ["bt .. .. .. .."])
    env = at([EMPTY, board, EMPTY], carousel=STAIRS, current=1, declared=("blue", 3),
             displays={"blue": "bk"}, scoreboard={"blue": 3, "red": 4})  # 3 players: 4 rows
    play(env, "take slot 1 (blue kiosk) to r5c2")
    st = env.state_array
    assert st[L.END_TRIGGERED] and not st[H_TERMINAL]
    assert int(st[H_CURRENT]) == 2  # seat 2 still takes its turn: then everyone has had equal turns
    play(env, "declare yellow on space 2 (number 2)")
    play(env, env.legal_action_strings()[-1])
    assert st[H_TERMINAL] and int(st[H_DONE]) == 0b111


def test_end_triggered_by_the_last_seat_of_the_round_ends_at_once():
    board = "\n".join([".. .. .. .. .."] * 4 + ["bt .. .. .. .."])
    env = at([EMPTY, board], carousel=STAIRS, current=1, declared=("blue", 3), displays={"blue": "bk"},
             scoreboard={"blue": 2, "red": 3})
    play(env, "take slot 1 (blue kiosk) to r5c2")
    assert env.state_array[H_TERMINAL]
    assert all(env.terminations.values())


def test_a_whole_round_without_a_placement_ends_the_game():
    env = at([FULL, FULL], carousel=THREES, bonus={0: 0, 1: 0})
    play(env, "move yellow on space 1 without placing")
    assert not env.state_array[H_TERMINAL]
    play(env, env.legal_action_strings()[0])
    assert env.state_array[H_TERMINAL]


def test_a_round_with_a_placement_does_not_end_the_game():
    env = at([FULL, TWO_HOLES], carousel=THREES, current=1, bonus={0: 0, 1: 0}, placed_this_round=True)
    play(env, "move yellow on space 1 without placing")
    assert not env.state_array[H_TERMINAL] and int(env.state_array[H_CURRENT]) == 0


# ---- final scoring -----------------------------------------------------------------------------------
KIRSTIN = """
yt yt yt rk rk
yt y* bc rk rk
gt gb bc bc pp
g* yk .. bt pp
gc .. .. .. p*
"""


def test_motif_group_points_table():
    assert [int(rules.motif_group_points(s)) for s in range(1, 11)] == [0, 1, 3, 5, 8, 11, 14, 18, 18, 18]


def test_kirstin_final_scoring():
    # trams 5 (8), red kiosks 4 (5), blue cafes 3 (3), purple plazas 2 (1): 17 for motifs;
    # F, G and H hold one tile each and are incomplete: 3; 7 bonus tiles: 3
    env = at([KIRSTIN, EMPTY], carousel=STAIRS, bonus={0: 7}, points={0: 33})
    st = env.state_array
    assert int(rules.motif_points(st, 0)) == 17
    assert int(rules.incomplete_district_tiles(st, 0)) == 3
    assert int(rules.final_scoring(st, 0)) == 17 + 3 + 3
    out = np.zeros(2)
    rules.scores(st, out)
    assert out[0] == 56


def test_ties_share_the_victory():
    env = at([KIRSTIN, EMPTY], carousel=STAIRS, bonus={0: 7, 1: 0}, points={0: 33, 1: 56})
    keys = np.zeros(2)
    rules.rank_keys(env.state_array, keys)
    assert keys[0] == keys[1]


def _board_for_reference(st, seat):
    out = []
    for sq in range(25):
        v = int(st[L.BOARD + 25 * seat + sq])
        out.append(None if v == 0 else ((v - 1) // 6, (v - 1) % 6))
    return out


@pytest.mark.parametrize("n,side", [(2, "A"), (3, "B"), (4, "A")])
def test_final_scoring_matches_plain_python_reference_on_random_games(n, side):
    env = make(n, board_side=side)
    rng = np.random.default_rng(n)
    out = np.zeros(n)
    for g in range(200 if n == 2 else 70):
        env.reset(seed=1000 + g)
        while not env.state_array[H_TERMINAL]:
            legal = env.legal_actions()
            env.step(legal[rng.integers(len(legal))])
        st = env.state_array
        rules.scores(st, out)
        for p in range(n):
            board = _board_for_reference(st, p)
            want = int(st[L.POINTS + p]) + ref.final_scoring(board, int(st[L.BONUS + p]), side)
            assert out[p] == want


# ---- hidden information ----------------------------------------------------------------------------
def test_observations_never_show_stack_order():
    env = make(3)
    rng = np.random.default_rng(5)
    for _ in range(30):  # somewhere mid-game
        legal = env.legal_actions()
        env.step(legal[rng.integers(len(legal))])
    a = env.get_state()
    b = a.copy()
    for c in range(5):  # reorder what nobody has seen: all but the known bottom of each stack
        k = int(a[L.STACK_N + c])
        base = L.STACK + 25 * c + int(a[L.STACK_KNOWN + c])
        b[base : L.STACK + 25 * c + k] = rng.permutation(a[base : L.STACK + 25 * c + k])
    assert not np.array_equal(a, b)
    other = make(3)
    other.set_state(b)
    for agent in env.possible_agents:
        np.testing.assert_array_equal(env.observe(agent)["observation"], other.observe(agent)["observation"])
        assert env.to_dict(agent) == other.to_dict(agent)
        assert "stack_top_first" not in env.to_dict(agent)["colours"]["red"]


def test_observation_is_seat_relative():
    env = at([KIRSTIN, EMPTY, EMPTY], carousel=STAIRS)
    own = env.observe("player_0")["observation"]
    other = env.observe("player_1")["observation"]
    seat_block = L.OBS_SEAT
    np.testing.assert_array_equal(own[:seat_block], other[2 * seat_block : 3 * seat_block])


# ---- options and strings -------------------------------------------------------------------------------
def test_options_are_validated():
    with pytest.raises(ValueError):
        GAME.make_params(2, board_side="C")
    with pytest.raises(TypeError):
        GAME.make_params(2, board_side=1)
    with pytest.raises(ValueError):
        GAME.make_params(2, start_player=2)
    with pytest.raises(TypeError):
        GAME.make_params(2, start_player="0")
    assert GAME.params_to_options(GAME.make_params(3, board_side="b", start_player=2)) == {
        "num_players": 3, "start_player": 2, "board_side": "B"}


def test_side_b_uses_its_own_layout():
    env = make(2, board_side="B")
    assert env.to_dict()["board_layout"][0] == "A1 A2 B3 B4 B5"


def test_action_strings_are_unique_within_a_position():
    env = make(4)
    rng = np.random.default_rng(2)
    while not env.state_array[H_TERMINAL]:
        names = [env.action_to_string(a) for a in range(L.NUM_ACTIONS)]
        assert len(set(names)) == L.NUM_ACTIONS
        legal = env.legal_actions()
        env.step(legal[rng.integers(len(legal))])


def test_render_modes():
    env = calcada_env.raw_env(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert "carousel" in GAME.render_ansi(env.state_array)


def test_check_state_rejects_a_lost_tile():
    env = make()
    st = env.get_state()
    st[L.DISPLAY] = 0
    with pytest.raises(ValueError):
        env.set_state(st)


# ---- the mask and the observation against their one-square definitions -----------------------------
def _mask_from_clauses(st) -> np.ndarray:
    """The legal set straight from the one-stone / one-square rule functions (``declare_ok``,
    ``swap_ok``, ``square_ok``), the definition the word-level ``legal_mask`` must equal."""
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    seat = int(st[H_CURRENT])
    if st[L.PHASE] == L.PHASE_DECLARE:
        stones = [(s, c) for s in range(L.NUM_SPACES) for c in range(L.NUM_COLOURS)
                  if st[L.CAR + L.NUM_COLOURS * s + c] > 0]
        declarable = [(s, c) for s, c in stones if rules.declare_ok(st, seat, s, c)]
        for s, c in stones:
            i = L.NUM_COLOURS * s + c
            if st[L.BONUS + seat] > 0:
                mask[L.A_BONUS_MOVE + i] = 1
            if declarable:
                mask[L.A_DECLARE + i] = (s, c) in declarable
            else:
                mask[L.A_MOVE_ONLY + i] = 1
        return mask
    colour, number = int(st[L.DECL_COL]), int(st[L.DECL_NUM])
    for c in range(L.NUM_COLOURS):
        mask[L.A_SWAP + c] = rules.swap_ok(st, seat, c)
    for slot in range(L.DISPLAY_SIZE):
        if st[L.DISPLAY + L.DISPLAY_SIZE * colour + slot] != 0:
            for sq in range(L.NUM_SQUARES):
                mask[L.A_PLACE + L.NUM_SQUARES * slot + sq] = rules.square_ok(st, seat, sq, colour, number)
    return mask


@pytest.mark.parametrize("n,side", [(2, "A"), (3, "B"), (4, "B")])
def test_legal_mask_equals_the_one_square_rules_on_random_games(n, side):
    env = make(n, board_side=side)
    rng = np.random.default_rng(10 + n)
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    checked = 0
    for g in range(8):
        env.reset(seed=500 + g)
        while not env.state_array[H_TERMINAL]:
            st = env.state_array
            count = rules.legal_mask(st, mask)
            want = _mask_from_clauses(st)
            np.testing.assert_array_equal(mask, want)
            assert count == int(want.sum())
            checked += 1
            legal = np.flatnonzero(want)
            env.step(int(legal[rng.integers(len(legal))]))
    assert checked > 8 * 50


def test_open_squares_is_square_ok_for_any_number():
    env = at([TWO_HOLES, EMPTY], carousel=STAIRS)
    out = np.zeros(L.NUM_COLOURS, dtype=np.int64)
    for seat in range(2):
        rules.open_squares(env.state_array, seat, out)
        for c in range(L.NUM_COLOURS):
            want = sum(1 << sq for sq in range(L.NUM_SQUARES)
                       if rules.square_ok(env.state_array, seat, sq, c, L.ANY_SQUARE_NUMBER))
            assert int(out[c]) == want
    # TWO_HOLES: B4 (square 3) only for red, H5 (square 20) only for green; the empty board: all
    red, green = L.COLOURS.index("red"), L.COLOURS.index("green")
    rules.open_squares(env.state_array, 0, out)
    assert {c for c in range(L.NUM_COLOURS) if out[c]} == {red, green}
    rules.open_squares(env.state_array, 1, out)
    assert all(int(out[c]) == (1 << L.NUM_SQUARES) - 1 for c in range(L.NUM_COLOURS))


def test_observation_is_the_same_into_a_strided_buffer():
    """The square blocks are written as words into a row of bytes and byte by byte otherwise."""
    env = make(3)
    rng = np.random.default_rng(3)
    size = env.observation_space(env.agents[0])["observation"].shape[0]
    flat = np.zeros(size, dtype=np.int8)
    wide = np.full(2 * size, 99, dtype=np.int8)
    for _ in range(60):
        st = env.state_array
        for p in range(3):
            rules.observe(st, p, flat)
            rules.observe(st, p, wide[::2])
            np.testing.assert_array_equal(flat, wide[::2])
            assert (wide[1::2] == 99).all()
        legal = env.legal_actions()
        env.step(legal[rng.integers(len(legal))])
