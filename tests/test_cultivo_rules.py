"""Cultivo, one test per clause of docs/rules/cultivo.md; the rulebook's worked examples on equivalent
situations of the reconstructed map. Positions are built from text (:func:`state_from_ascii`).

The 2-player map with the village tiles in order (``random_villages=False``), one cell per field:
tile.position, colour letter (r o g w=brown b=blue y), worker seat, building seat; ``|`` and
``---`` are canals::

                    1.1y.. |2.1b..  2.2w..
                            -------
    1.4w..  1.3g..  1.2o.. |3.1r.. |2.3y..
            ------- -------
    1.5b.. |3.4g..  3.3b..  3.2y.. |2.4g..  2.5o.. |4.1w..
    -------         ------- ------- ------- -------
    5.1o.. |3.5w.. |6.1y..  6.2b.. |4.4y..  4.3r..  4.2g..
            ------- -------
    5.2r..  5.3w..  5.4b.. |6.3o.. |4.5b..
                                    -------
                    5.5y.. |6.4r..  6.5w..
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import cultivo_env
from cultivo_env import layout as L
from cultivo_env import notation, rules
from cultivo_env.game import GAME, state_from_ascii
from cultivo_env.rules.accessors import place_of
from cultivo_env.rules.scoring import building_points, final_score, goods_triples
from cultivo_env.rules.travel import S_CANAL, S_FOREIGN, load_context, new_ws, no_dearer, summary_feasible
from gamecore.envs import render as R
from gamecore.kernel.protocol import H_PHASE, H_TERMINAL, VIEW_ALL, VIEW_PUBLIC


def at(num_players: int = 2, **kw) -> cultivo_env.raw_env:
    """An env (villages in order) in the position described by ``kw`` (see state_from_ascii)."""
    env = cultivo_env.raw_env(num_players=num_players, random_villages=False)
    env.reset(seed=0)
    env.set_state(state_from_ascii(num_players=num_players, **kw))
    return env


def play(env, *texts: str) -> None:
    for text in texts:
        env.step(env.string_to_action(text))


def strings(env, prefix: str = "") -> list[str]:
    return [s for s in env.legal_action_strings() if s.startswith(prefix)]


def goods_of(env, p: int) -> str:
    st = env.state_array
    return notation.goods_text(st[L.GOODS_S + 6 * p: L.GOODS_S + 6 * p + 6])


def phase(env) -> str:
    return L.PHASE_NAMES[int(env.state_array[H_PHASE])]


def worker_fields(env, p: int) -> list[str]:
    return env.to_dict()["players"][p]["worker_fields"]


# two-player position used by many tests: player_0 (Gray) on V3.2, player_1 on V6.1
GRAY = {0: "V3.2", 1: "V6.1"}


# =====================================================================================================
# Components and the map
# =====================================================================================================
def test_each_village_has_five_colours_exactly_one_yellow():
    assert len(L.VILLAGE_PATTERNS) == 10
    for pattern in L.VILLAGE_PATTERNS:
        assert len(set(pattern)) == 5 and pattern.count("y") == 1


def test_village_patterns_are_those_of_the_rules_page():
    # V1 Wh Or Gr Wd Ol ... V10 Wd Gr Or Tom Wh
    assert L.VILLAGE_PATTERNS[0] == "yogwb" and L.VILLAGE_PATTERNS[9] == "wgory"


def test_36_pieces_six_types_in_six_colours_with_cost_and_vp():
    assert L.NUM_EQUIP == 36
    table = dict(zip(L.EQUIP_TYPES, zip(L.EQUIP_COST, L.EQUIP_VP, strict=True), strict=True))
    assert table == {"cart": (3, 1), "stall": (2, 2), "barge": (4, 4), "tool": (5, 3), "barrel": (6, 5),
                     "scales": (6, 6)}
    assert {notation.piece_name(e) for e in range(36)} == {f"{c} {t}" for c in L.COLOURS for t in L.EQUIP_TYPES}


def test_market_rows_and_columns_are_the_five_goods_other_than_wheat():
    assert [L.COLOURS[c] for c in L.MARKET_ORDER] == ["red", "orange", "green", "brown", "blue"]


def test_buildings_by_colour():
    assert dict(zip(L.COLOURS, L.BUILDINGS, strict=True)) == {
        "red": "castle", "orange": "manor", "green": "tower", "brown": "workshop", "blue": "monastery",
        "yellow": "mill"}


def _squares(n: int) -> dict[tuple[int, int], int]:
    rows = L.MAPS[n]
    letters = sorted({ch for r in rows for ch in r if ch != "."})
    return {(r, c): letters.index(ch) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}


@pytest.mark.parametrize("n,villages", [(2, 6), (3, 8), (4, 10)])
def test_default_map_has_6_8_10_z_villages(n, villages):
    sq = _squares(n)
    assert len(set(sq.values())) == villages
    for k in range(villages):
        cells = [c for c, v in sq.items() if v == k]
        assert L.z_order(cells) is not None, (n, k)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_default_map_is_gap_free(n):
    sq = _squares(n)
    # one edge-connected region
    seen, todo = set(), [next(iter(sq))]
    while todo:
        r, c = todo.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        todo += [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if (r + dr, c + dc) in sq]
    assert seen == set(sq)
    # no enclosed empty square: every empty square of the box reaches the outside
    h, w = len(L.MAPS[n]), len(L.MAPS[n][0])
    outside, todo = set(), [(r, c) for r in range(-1, h + 1) for c in (-1, w)] + [(r, c) for c in range(w)
                                                                                   for r in (-1, h)]
    while todo:
        r, c = todo.pop()
        if (r, c) in outside or (r, c) in sq or not (-1 <= r <= h and -1 <= c <= w):
            continue
        outside.add((r, c))
        todo += [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    holes = [(r, c) for r in range(h) for c in range(w) if (r, c) not in sq and (r, c) not in outside]
    assert holes == []


@pytest.mark.parametrize("n", [2, 3, 4])
def test_default_map_is_compact(n):
    sq = _squares(n)
    rs = [r for r, _ in sq]
    cs = [c for _, c in sq]
    h, w = max(rs) - min(rs) + 1, max(cs) - min(cs) + 1
    assert max(h, w) <= 2 * min(h, w)
    assert 2 * len(sq) >= h * w


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_village_borders_at_least_two_others(n):
    sq = _squares(n)
    borders = {k: set() for k in set(sq.values())}
    for (r, c), k in sq.items():
        for dr, dc in ((1, 0), (0, 1)):
            j = sq.get((r + dr, c + dc))
            if j is not None and j != k:
                borders[k].add(j)
                borders[j].add(k)
    assert min(len(b) for b in borders.values()) >= 2


def test_z_shape_check_accepts_the_8_orientations_only():
    z = [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)]
    for mirror in (False, True):
        for rot in range(4):
            cells = []
            for r, c in z:
                if mirror:
                    c = -c
                for _ in range(rot):
                    r, c = c, -r
                cells.append((r, c))
            assert L.z_order(cells) is not None
    for other in ([(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)],  # W
                  [(0, 0), (1, 0), (1, 1), (1, 2), (0, 2)],  # U
                  [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)],  # I
                  [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]):  # V
        assert L.z_order(other) is None


def test_fields_of_one_village_are_directly_adjacent_along_the_z_and_others_across_a_canal():
    st = state_from_ascii(num_players=2, workers=GRAY)
    f = notation.parse_field(st, "V3.2")
    nbrs = {notation.field_name(st, g): bool(place_of(f) != place_of(g)) for g in L.NEIGH[2, f] if g >= 0}
    assert nbrs == {"V3.1": False, "V3.3": False, "V6.2": True, "V2.4": True}


# =====================================================================================================
# Setup
# =====================================================================================================
@pytest.mark.parametrize("n,stack", [(2, 0), (3, 5), (4, 10)])
def test_setup_25_pieces_on_the_market_and_a_stack_of_10_5_0(n, stack):
    env = cultivo_env.raw_env(num_players=n)
    for seed in range(5):
        env.reset(seed=seed)
        st = env.state_array
        market = [int(v) - 1 for v in st[L.MARKET: L.MARKET + 25]]
        assert len(set(market)) == 25 and min(market) >= 0
        assert int(st[L.STACK_N]) == stack
        locs = st[L.EQUIP_LOC: L.EQUIP_LOC + 36]
        assert (locs == L.LOC_MARKET).sum() == 25 and (locs == L.LOC_STACK).sum() == stack
        assert (locs == L.LOC_OUT).sum() == 36 - 25 - stack


def test_villages_go_to_their_places_at_random_from_the_seed():
    env = cultivo_env.raw_env(num_players=4)
    seen = set()
    for seed in range(6):
        env.reset(seed=seed)
        st = env.state_array
        deal = tuple(int(x) for x in st[L.PLACE_TILE: L.PLACE_TILE + 10]) + tuple(
            int(x) for x in st[L.PLACE_FLIP: L.PLACE_FLIP + 10])
        assert sorted(deal[:10]) == list(range(10))
        seen.add(deal)
    assert len(seen) == 6
    again = cultivo_env.raw_env(num_players=4)
    again.reset(seed=5)
    assert np.array_equal(again.get_state(), env.get_state())
    fixed = cultivo_env.raw_env(num_players=2, random_villages=False)
    fixed.reset(seed=3)
    assert [d["village"] for d in fixed.to_dict()["map"]["places"]] == ["V1", "V2", "V3", "V4", "V5", "V6"]


def test_a_turned_village_reads_its_fields_backwards():
    st = state_from_ascii(num_players=2, villages="V1* V2 V3 V4 V5 V6", workers=GRAY)
    f = 0  # first field of place A
    assert notation.field_name(st, f) == "V1.5" and notation.field_colour(st, f) == "blue"


def test_setup_places_starting_workers_in_reverse_seat_order_on_free_yellow_fields():
    env = cultivo_env.raw_env(num_players=3, start_player=1, random_villages=False)
    env.reset(seed=0)
    order = []
    for _ in range(3):
        order.append(env.agent_selection)
        legal = strings(env)
        assert all(s.startswith("start on V") for s in legal)
        assert all(notation.field_colour(env.state_array, notation.parse_field(env.state_array, s[9:])) == "yellow"
                   for s in legal)
        env.step(env.string_to_action(legal[0]))
    assert order == ["player_0", "player_2", "player_1"]
    assert env.agent_selection == "player_1" and phase(env) == "action"
    # the second to place cannot take the first one's yellow field
    assert len(env.to_dict()["players"][2]["worker_fields"]) == 1


def test_starting_worker_takes_one_good_of_each_colour_of_its_village():
    env = cultivo_env.raw_env(num_players=2, random_villages=False)
    env.reset(seed=0)
    play(env, "start on V3.2")  # player_1 (before the start player) places first
    assert goods_of(env, 1) == "r1 g1 w1 b1 y1"  # V3: red, yellow, blue, green, brown


def test_a_turn_is_two_actions_the_same_twice_allowed():
    env = at(workers=GRAY)
    play(env, "produce")  # one colour to produce: taken automatically
    assert env.agent_selection == "player_0" and phase(env) == "action"
    play(env, "produce")
    assert env.agent_selection == "player_1"
    assert goods_of(env, 0) == "y2"


# =====================================================================================================
# Place a worker
# =====================================================================================================
def test_place_free_on_a_field_beside_an_own_worker_in_the_same_village():
    # Gray's example, fields A and B: with no goods only the neighbours in the village are free
    env = at(workers=GRAY)
    play(env, "place a worker (2nd: 0 wheat)")
    assert strings(env) == ["place on V3.1 (red)", "place on V3.3 (blue)"]
    play(env, "place on V3.1 (red)")
    assert worker_fields(env, 0) == ["V3.1", "V3.2"] and goods_of(env, 0) == "r1"


def test_place_across_a_canal_costs_2_wheat():
    # Gray's example, field E
    env = at(workers=GRAY, goods={0: "y2"})
    play(env, "place a worker (2nd: 0 wheat)")
    assert strings(env) == ["place on V2.4 (green)", "place on V3.1 (red)", "place on V3.3 (blue)",
                            "place on V6.2 (blue)"]
    play(env, "place on V2.4 (green)")  # one path, one way to pay: taken automatically
    assert worker_fields(env, 0) == ["V2.4", "V3.2"] and goods_of(env, 0) == "g1"


def test_gray_two_steps_away_by_either_path_and_its_way_of_paying():
    # Gray's example, field F: through C (same village, then the canal) or through D (the canal,
    # then D's village): 2 red + 2 wheat, or 2 wheat + 2 green
    env = at(workers=GRAY, goods={0: "r2 g2 y2"})
    play(env, "place a worker (2nd: 0 wheat)", "place on V2.3 (yellow)")
    assert phase(env) == "step"
    assert strings(env) == ["step across a canal to V2.4", "step to V3.1"]
    via_c = env.get_state()
    play(env, "step to V3.1")  # the last step and the payment leave no choice: applied at once
    assert phase(env) == "action" and worker_fields(env, 0) == ["V2.3", "V3.2"]
    assert goods_of(env, 0) == "g2 y1"  # paid r2 y2, gained the wheat of V2.3
    env.set_state(via_c)
    play(env, "step across a canal to V2.4")  # then to the target, and pay: no choice left
    assert worker_fields(env, 0) == ["V2.3", "V3.2"] and goods_of(env, 0) == "r2 y1"


def test_place_travels_from_any_field_with_an_own_worker():
    env = at(workers={0: "V3.2 V3.4", 1: "V6.1"})
    play(env, "place a worker (3rd: 0 wheat)", "place on V3.3 (blue)")
    assert strings(env) == ["travel from V3.2", "travel from V3.4"]
    env = at(workers={0: "V3.2 V5.3", 1: "V6.1"}, goods={0: "y2"})
    play(env, "place a worker (3rd: 0 wheat)", "place on V3.5 (brown)")
    # from V3.2 it would pass V3.3 and V3.4, with no goods for them: the travel starts from V5.3
    assert worker_fields(env, 0) == ["V3.2", "V3.5", "V5.3"] and goods_of(env, 0) == "w1"


@pytest.mark.parametrize("k,wheat", [(5, 1), (6, 1), (7, 2), (8, 2), (9, 3), (10, 4)])
def test_workers_5_to_10_cost_wheat_first(k, wheat):
    fields = "V3.2 V1.1 V5.1 V3.1 V5.2 V3.3 V5.3 V3.4 V5.4"  # each prefix leaves a free neighbour
    others = " ".join(fields.split()[: k - 1])
    env = at(workers={0: others, 1: "V6.1"}, goods={0: f"y{wheat - 1}"} if wheat > 1 else None)
    assert "place a worker" not in " ".join(strings(env))
    env = at(workers={0: others, 1: "V6.1"}, goods={0: f"y{wheat}"})
    assert f"place a worker ({notation.ordinal(k)}: {wheat} wheat)" in strings(env)


def test_no_11th_worker():
    env = at(workers={0: "V3.2 V3.1 V3.3 V3.4 V3.5 V1.2 V1.3 V1.4 V1.5 V1.1", 1: "V6.1"}, goods={0: "y9"})
    assert not [s for s in strings(env) if s.startswith("place")]


def test_a_building_does_not_block_a_field():
    env = at(workers=GRAY, buildings={1: "V3.1"}, goods={0: "y2"})
    play(env, "place a worker (2nd: 0 wheat)")
    assert "place on V3.1 (red)" in strings(env)


def test_passing_another_players_worker_pays_one_to_that_player_and_one_to_the_supply():
    env = at(workers={0: "V3.2", 1: "V3.3 V6.1"}, goods={0: "b2"})
    play(env, "move a worker")  # one worker: chosen automatically
    assert strings(env) == ["move to V3.1 (red)", "move to V3.4 (green)"]
    play(env, "move to V3.4 (green)")
    assert goods_of(env, 0) == "g1" and goods_of(env, 1) == "b1"
    env = at(workers={0: "V3.2", 1: "V3.3 V6.1"}, goods={0: "b1"})
    play(env, "move a worker")  # 1 blue to player_1 and 1 to the supply: 2 needed; V3.1 is the one target
    assert worker_fields(env, 0) == ["V3.1"] and goods_of(env, 0) == "r1 b1"


def test_passing_an_own_worker_costs_the_full_two_goods():
    env = at(workers={0: "V3.2 V3.3", 1: "V6.1"}, goods={0: "b1"})
    play(env, "move a worker")
    assert "move the worker on V3.2" in strings(env)
    play(env, "move the worker on V3.2")
    assert "move to V3.4 (green)" not in strings(env)  # passing own V3.3 needs 2 blue


def test_the_good_gained_on_arrival_cannot_pay_for_the_travel():
    # V3.4 -> pass V3.5 (brown) -> canal -> V5.3 (brown): 2 brown + 2 wheat
    env = at(workers={0: "V3.4", 1: "V6.1"}, goods={0: "w1 y2"})
    play(env, "move a worker")
    assert "move to V5.3 (brown)" not in strings(env)
    env = at(workers={0: "V3.4", 1: "V6.1"}, goods={0: "w2 y2"})
    play(env, "move a worker")
    assert "move to V5.3 (brown)" in strings(env)


def test_8th_and_9th_worker_may_exchange_one_good_after_the_arrival_good():
    env = at(workers={0: "V3.2 V3.1 V3.3 V3.4 V3.5 V1.2 V1.3", 1: "V6.1"}, goods={0: "y2"})
    play(env, "place a worker (8th: 2 wheat)", "place on V1.4 (brown)")
    assert phase(env) == "exchange"
    legal = strings(env)
    assert legal[:1] == ["exchange 1 brown for 1 blue"] and "no exchange" in legal
    assert len(legal) == 1 + 5  # only the brown just gained can be given
    play(env, "exchange 1 brown for 1 blue")
    assert goods_of(env, 0) == "b1"


def test_the_10th_worker_gives_one_extra_action():
    env = at(workers={0: "V3.2 V3.1 V3.3 V3.4 V3.5 V1.2 V1.3 V1.4 V1.5", 1: "V6.1"}, goods={0: "y4"})
    play(env, "place a worker (10th: 4 wheat)")  # V1.1 is the one field it can reach: no choice
    assert worker_fields(env, 0)[:2] == ["V1.1", "V1.2"]
    # two actions are left: the extra one and the second of the turn (only Produce is possible,
    # so that choice too is automatic)
    assert env.state_array[L.ACTIONS_LEFT] == 2 and env.agent_selection == "player_0"


# =====================================================================================================
# Move a worker
# =====================================================================================================
def test_move_to_a_free_field_gains_its_good_and_frees_the_old_one():
    env = at(workers=GRAY)
    play(env, "move a worker")
    assert strings(env) == ["move to V3.1 (red)", "move to V3.3 (blue)"]
    play(env, "move to V3.3 (blue)")
    assert worker_fields(env, 0) == ["V3.3"] and goods_of(env, 0) == "b1"


def test_move_target_must_have_no_worker():
    env = at(workers={0: "V3.2 V5.5", 1: "V3.1 V6.1"})
    play(env, "move a worker")
    assert strings(env) == ["move the worker on V3.2", "move the worker on V5.5"]
    play(env, "move the worker on V3.2")  # V3.1 holds a worker: V3.3 is the only target
    assert phase(env) == "action" and worker_fields(env, 0) == ["V3.3", "V5.5"]


def test_any_simple_path_may_be_chosen_and_no_field_twice():
    env = at(workers=GRAY, goods={0: "r4 b4 g4 o4 y8"})
    play(env, "move a worker", "move to V3.4 (green)")
    # V3.3 is the short way; the long way round through V3.1, V1.2 (and a canal) is also offered
    assert "step to V3.3" in strings(env) and "step to V3.1" in strings(env)
    play(env, "step to V3.1")
    assert "step to V3.2" not in " ".join(strings(env))  # the origin is on the path


# =====================================================================================================
# Produce
# =====================================================================================================
def test_two_workers_on_red_fields_produce_2_red():
    # rulebook example
    env = at(workers={0: "V3.1 V5.2 V5.5", 1: "V6.1"})
    play(env, "produce")
    assert strings(env) == ["produce red (+2)", "produce yellow (+1)"]


def test_two_workers_on_blue_fields_and_the_blue_tool_produce_3():
    # rulebook example
    env = at(workers={0: "V3.3 V2.1 V5.5", 1: "V6.1"}, equipment={0: "blue tool"})
    play(env, "produce", "produce blue (+3)")
    assert goods_of(env, 0) == "b3"


def test_a_worker_on_the_players_own_building_produces_one_more():
    env = at(workers={0: "V3.1 V5.2 V5.5", 1: "V6.1"}, buildings={0: "V3.1", 1: "V5.2"})
    play(env, "produce")
    assert strings(env) == ["produce red (+3)", "produce yellow (+1)"]  # another player's building: +0


def test_produce_only_a_colour_with_an_own_worker():
    env = at(workers={0: "V3.1 V3.3", 1: "V6.1"}, equipment={0: "green tool"})
    play(env, "produce")
    assert strings(env) == ["produce blue (+1)", "produce red (+1)"]


# =====================================================================================================
# Acquire equipment
# =====================================================================================================
MARKET_RED_BARGE = [
    "-, -, red barge, -, -",
    "-, yellow barrel, -, -, -",
    "green cart, -, -, -, -",
    "-, -, -, blue stall, -",
    "-, -, -, -, brown tool",
]


def test_the_red_barge_in_the_red_row_and_green_column_3_1_2_2_or_1_3():
    # rulebook example
    env = at(workers=GRAY, goods={0: "r5 g5"}, market=MARKET_RED_BARGE)
    play(env, "acquire equipment")
    assert "acquire the red barge (row red, column green: 4 goods)" in strings(env)
    play(env, "acquire the red barge (row red, column green: 4 goods)")
    assert strings(env) == ["pay 1 red + 3 green", "pay 2 red + 2 green", "pay 3 red + 1 green"]
    play(env, "pay 3 red + 1 green")
    assert goods_of(env, 0) == "r2 g4" and env.to_dict()["players"][0]["equipment"] == ["red barge"]


def test_a_diagonal_slot_is_paid_in_its_one_colour():
    env = at(workers=GRAY, goods={0: "w2 g3 o6"}, market=MARKET_RED_BARGE)
    play(env, "acquire equipment")
    assert strings(env) == ["acquire the blue stall (row brown, column brown: 2 goods)",
                            "acquire the yellow barrel (row orange, column orange: 6 goods)"]
    play(env, "acquire the blue stall (row brown, column brown: 2 goods)")  # one way to pay: 2 brown
    assert goods_of(env, 0) == "o6 g3"


def test_a_purchase_pays_at_least_one_of_each_colour():
    # the red barge (row red, column green) and the green cart (row green, column red) with green
    # only: neither can be bought; one red makes both possible
    env = at(workers=GRAY, goods={0: "g5"}, market=MARKET_RED_BARGE)
    assert "acquire equipment" not in strings(env)
    env = at(workers=GRAY, goods={0: "r1 g5"}, market=MARKET_RED_BARGE)
    play(env, "acquire equipment")
    assert strings(env) == ["acquire the green cart (row green, column red: 3 goods)",
                            "acquire the red barge (row red, column green: 4 goods)"]


def test_a_barrel_gives_one_extra_action_at_once():
    env = at(workers=GRAY, goods={0: "o6 w2"}, market=MARKET_RED_BARGE)
    play(env, "acquire equipment", "acquire the yellow barrel (row orange, column orange: 6 goods)")
    assert env.state_array[L.ACTIONS_LEFT] == 2 and env.agent_selection == "player_0"


def test_an_emptied_row_is_refilled_from_the_stack():
    market = ["red cart, -, -, -, -", "-, green cart, -, -, -", "-, -, blue cart, -, -", "-, -, -, red tool, -",
              "-, -, -, -, red stall"]
    env = at(3, workers={0: "V3.2", 1: "V6.1", 2: "V5.5"}, goods={0: "r3"}, market=market,
             stack="blue barrel, blue barge, blue tool, blue stall, blue scales")
    play(env, "acquire equipment")  # the red cart is the one piece player_0 can pay: chosen at once
    # the red cart was the last of its row AND of its column: the buyer chooses
    assert strings(env) == ["refill column red", "refill row red"]
    play(env, "refill row red")
    grid = env.to_dict()["market"]["grid"]
    assert grid[0] == ["blue scales", "blue stall", "blue tool", "blue barge", "blue barrel"]
    assert env.state_array[L.STACK_N] == 0


def test_a_row_emptied_alone_is_refilled_without_a_choice():
    market = ["red cart, -, -, -, -", "green cart, -, -, -, -", "-, -, blue cart, -, -", "-, -, -, red tool, -",
              "-, -, -, -, red stall"]
    env = at(3, workers={0: "V3.2", 1: "V6.1", 2: "V5.5"}, goods={0: "r3"}, market=market,
             stack="blue barrel, blue barge, blue tool, blue stall, blue scales")
    play(env, "acquire equipment")  # the one piece player_0 can pay
    assert phase(env) == "action"
    assert env.to_dict()["market"]["grid"][0] == ["blue scales", "blue stall", "blue tool", "blue barge",
                                                  "blue barrel"]


def test_no_refill_while_the_stack_holds_fewer_than_5():
    market = ["red cart, -, -, -, -", "green cart, -, -, -, -", "-, -, blue cart, -, -", "-, -, -, red tool, -",
              "-, -, -, -, red stall"]
    env = at(2, workers=GRAY, goods={0: "r3"}, market=market)
    play(env, "acquire equipment")
    assert env.to_dict()["market"]["grid"][0] == [None] * 5


# =====================================================================================================
# Build
# =====================================================================================================
def test_the_monastery_needs_blue_equipment_worth_4():
    # rulebook example: a blue barrel (5), or a blue cart (1) and a blue tool (3)
    for kit, ok in (("blue barrel", True), ("blue cart, blue tool", True), ("blue cart", False),
                    ("blue cart, red tool", False)):
        env = at(workers={0: "V3.3", 1: "V6.1"}, goods={0: "b2 y2"}, equipment={0: kit})
        assert ("build" in strings(env)) is ok, kit
    env = at(workers={0: "V3.3", 1: "V6.1"}, goods={0: "b2 y2"}, equipment={0: "blue barrel"})
    play(env, "build")
    assert phase(env) == "action" and goods_of(env, 0) == "-"  # one field: chosen automatically
    assert env.to_dict()["players"][0]["buildings"] == [{"type": "monastery", "field": "V3.3"}]


def test_building_costs_2_wheat_and_2_of_the_fields_colour():
    for have, ok in (("b2 y2", True), ("b1 y3", False), ("b3 y1", False)):
        env = at(workers={0: "V3.3", 1: "V6.1"}, goods={0: have}, equipment={0: "blue barrel"})
        assert ("build" in strings(env)) is ok, have


def test_build_needs_an_own_worker_on_a_field_without_a_building_and_each_type_once():
    kit = {0: "blue barrel, red barrel"}
    env = at(workers={0: "V3.3", 1: "V6.1"}, buildings={1: "V3.3"}, goods={0: "b2 r2 y4"}, equipment=kit)
    assert "build" not in strings(env)
    env = at(workers={0: "V3.1 V6.2", 1: "V6.1"}, buildings={0: "V2.1"}, goods={0: "b2 r2 y4"}, equipment=kit)
    play(env, "build")  # the monastery is built already: the castle on V3.1 is the one choice
    assert env.to_dict()["players"][0]["buildings"] == [{"type": "monastery", "field": "V2.1"},
                                                        {"type": "castle", "field": "V3.1"}]


def test_the_first_7_buildings_take_the_vp_tiles_7_down_to_1():
    env = at(workers={0: "V3.3", 1: "V6.1"}, buildings={0: "V3.1 V3.4", 1: "V6.2 V6.3 V6.4 V6.5"},
             goods={0: "b2 y2"}, equipment={0: "blue barrel"})
    assert env.to_dict()["vp_tiles_left"] == [1]
    play(env, "build")
    assert env.to_dict()["players"][0]["vp_tiles"] == 7 + 6 + 1
    env = at(workers={0: "V2.2", 1: "V6.1"}, buildings={0: "V3.1 V3.4 V3.3 V1.2", 1: "V6.3 V6.4 V6.5"},
             goods={0: "w2 y2"}, equipment={0: "brown barrel"})
    vp = env.to_dict()["players"][0]["vp_tiles"]
    play(env, "build")
    assert env.to_dict()["players"][0]["vp_tiles"] == vp  # the 8th building takes no tile


# =====================================================================================================
# Equipment
# =====================================================================================================
def test_a_red_cart_moving_4_fields_pays_3_red():
    # rulebook example: the worker passes 3 fields (V1.4, V1.3, V1.2) on its way V1.5 -> V1.1
    env = at(workers={0: "V1.5", 1: "V6.1"}, goods={0: "r3"}, equipment={0: "red cart"})
    play(env, "move a worker", "move to V1.1 (yellow)")
    assert phase(env) == "action"  # one path, one way to pay
    assert goods_of(env, 0) == "y1"


def test_a_red_cart_with_only_2_red_pays_2_red_and_2_of_the_third_fields_colour():
    # rulebook example: V1.4 brown, V1.3 green, V1.2 orange; 2 red and 2 green
    env = at(workers={0: "V1.5", 1: "V6.1"}, goods={0: "r2 g2"}, equipment={0: "red cart"})
    play(env, "move a worker", "move to V1.1 (yellow)")
    assert phase(env) == "action" and goods_of(env, 0) == "y1"
    # with enough of everything each field is a choice: the payment is decided as its outcome,
    # colour by colour (red, orange, green, brown): how much red the cart takes, then which fields
    env = at(workers={0: "V1.5", 1: "V6.1"}, goods={0: "r3 o2 g2 w2"}, equipment={0: "red cart"})
    play(env, "move a worker", "move to V1.1 (yellow)")
    assert strings(env) == ["pay 0 red", "pay 1 red", "pay 2 red", "pay 3 red"]
    play(env, "pay 2 red")
    assert strings(env) == ["pay 0 orange", "pay 2 orange"]
    play(env, "pay 0 orange")
    assert strings(env) == ["pay 0 green", "pay 2 green"]
    play(env, "pay 0 green")  # the cart's two goods are placed: brown pays 2, automatically
    assert goods_of(env, 0) == "r1 o2 g2 y1"


def test_a_borrowed_cart_pays_its_owner():
    env = at(workers={0: "V1.5", 1: "V6.1"}, goods={0: "r3"}, equipment={1: "red cart"})
    play(env, "move a worker", "move to V1.1 (yellow)")
    assert goods_of(env, 0) == "y1" and goods_of(env, 1) == "r3"


def test_the_cart_replaces_the_share_and_the_worker_owner_gets_nothing():
    env = at(workers={0: "V1.3", 1: "V1.2 V6.1"}, goods={0: "r1 o2"}, equipment={0: "red cart"})
    play(env, "move a worker", "move to V1.1 (yellow)")
    assert strings(env) == ["pay 0 red", "pay 1 red"]  # the share, or the own red cart
    play(env, "pay 0 red")  # then 2 orange, 1 of them to player_1: no choice left
    assert goods_of(env, 1) == "o1" and goods_of(env, 0) == "r1 y1"
    env = at(workers={0: "V1.3", 1: "V1.2 V6.1"}, goods={0: "r1 o2"}, equipment={0: "red cart"})
    play(env, "move a worker", "move to V1.1 (yellow)", "pay 1 red")
    assert goods_of(env, 1) == "-" and goods_of(env, 0) == "o2 y1"


def test_an_orange_barge_over_2_canals_pays_2_orange():
    # rulebook example: V3.2 -> canal -> V2.4 -> canal -> V4.4
    env = at(workers=GRAY, goods={0: "o2 g2"}, equipment={0: "orange barge"})
    play(env, "move a worker", "move to V4.4 (yellow)")
    assert phase(env) == "action"
    assert goods_of(env, 0) == "y1"  # 2 orange for the canals, 2 green for V2.4


def test_a_barge_pays_one_canal_of_two_and_wheat_the_other():
    env = at(workers=GRAY, goods={0: "o1 g2 y2"}, equipment={0: "orange barge"})
    play(env, "move a worker", "move to V4.4 (yellow)")
    assert phase(env) == "action" and goods_of(env, 0) == "y1"


def test_a_borrowed_barge_pays_its_owner():
    env = at(workers=GRAY, goods={0: "o1"}, equipment={1: "orange barge"})
    play(env, "move a worker", "move to V2.4 (green)")
    assert goods_of(env, 0) == "g1" and goods_of(env, 1) == "o1"


def test_the_green_stall_pays_a_canal_with_1_wheat_and_1_green():
    # rulebook example
    env = at(workers=GRAY, goods={0: "g1 y2"}, equipment={0: "green stall"})
    play(env, "move a worker", "move to V2.4 (green)")
    assert phase(env) == "pay"
    assert strings(env) == ["pay 0 green", "pay 1 green"]  # 2 wheat, or the stall's green for one
    play(env, "pay 1 green")  # then 1 wheat: automatic
    assert goods_of(env, 0) == "g1 y1"  # the green paid, the green of V2.4 gained
    env = at(workers=GRAY, goods={0: "g1 y1"}, equipment={0: "green stall"})
    play(env, "move a worker", "move to V2.4 (green)")
    assert goods_of(env, 0) == "g1"  # only way: 1 wheat + 1 green


def test_a_green_and_a_blue_stall_pay_a_canal_with_1_green_and_1_blue():
    # rulebook example
    env = at(workers=GRAY, goods={0: "g1 b1"}, equipment={0: "green stall, blue stall"})
    play(env, "move a worker", "move to V2.4 (green)")
    assert phase(env) == "action" and goods_of(env, 0) == "g1"


def test_a_stall_replacing_a_good_paid_to_another_player_gives_that_player_the_stall_colour():
    env = at(workers={0: "V1.3 V5.5", 1: "V1.2 V6.1"}, goods={0: "o1 b1"}, equipment={0: "blue stall"})
    play(env, "move a worker", "move the worker on V1.3", "move to V1.1 (yellow)")
    # the share is 1 orange to player_1 and 1 to the supply; holding 1 orange, the blue stall must
    # replace one of them: player_1 receives the orange or the blue
    assert strings(env) == ["player_1 receives 0 orange", "player_1 receives 1 orange"]
    play(env, "player_1 receives 0 orange")  # the blue then goes to player_1: automatic
    assert goods_of(env, 1) == "b1" and goods_of(env, 0) == "y1"


def test_yellow_scales_make_a_canal_cost_1_wheat():
    # rulebook example
    env = at(workers=GRAY, goods={0: "y1"}, equipment={0: "yellow scales"})
    play(env, "move a worker", "move to V2.4 (green)")
    assert phase(env) == "action" and goods_of(env, 0) == "g1"


def test_yellow_scales_make_a_building_cost_1_wheat():
    # rulebook example
    env = at(workers={0: "V3.3", 1: "V6.1"}, goods={0: "b2 y1"}, equipment={0: "yellow scales, blue barrel"})
    play(env, "build")
    assert goods_of(env, 0) == "-"


def test_red_scales_and_red_cart_move_3_fields_for_1_red():
    # rulebook example: V1.5 -> V1.2 passes V1.4 and V1.3; both by the cart, 2 red, the scales take 1
    env = at(workers={0: "V1.5", 1: "V6.1"}, goods={0: "r1"}, equipment={0: "red scales, red cart"})
    play(env, "move a worker", "move to V1.2 (orange)")
    assert phase(env) == "action" and goods_of(env, 0) == "o1"


def test_scales_count_the_placement_wheat():
    # the 5th worker's wheat and a canal's 2 wheat: 3, the yellow scales take 1
    env = at(workers={0: "V3.2 V3.1 V3.3 V3.4", 1: "V6.1"}, goods={0: "y2"}, equipment={0: "yellow scales"})
    play(env, "place a worker (5th: 1 wheat)")
    assert "place on V2.4 (green)" in strings(env)
    play(env, "place on V2.4 (green)")
    if phase(env) == "origin":
        play(env, "travel from V3.2")
    assert goods_of(env, 0) == "g1"


def test_scales_of_another_colour_do_not_help():
    env = at(workers=GRAY, goods={0: "y1"}, equipment={0: "red scales"})
    play(env, "move a worker")
    assert strings(env) == ["move to V3.1 (red)", "move to V3.3 (blue)"]


# =====================================================================================================
# One choice per outcome
# =====================================================================================================
def test_the_order_of_two_equal_fields_is_not_a_choice():
    # two passed fields of one colour across villages:
    # V3.4 -> V3.5 (brown) -> canal -> V5.3 (brown) -> V5.2: two brown fields, a red cart and 1 red.
    # Outcomes: 4 brown, or 2 brown + 1 red (the cart on either field: one choice)
    env = at(workers={0: "V3.4", 1: "V6.1"}, goods={0: "w4 r1 y2"}, equipment={0: "red cart"})
    play(env, "move a worker", "move to V5.2 (red)")  # the way starts with V3.5 (no other is payable)
    assert strings(env) == ["step across a canal to V5.1", "step across a canal to V5.3"]
    play(env, "step across a canal to V5.3")
    # the cart on V3.5 or on V5.3 is one outcome (1 red + 2 brown): two choices in all
    assert phase(env) == "pay"
    assert strings(env) == ["pay 0 red", "pay 1 red"]
    play(env, "pay 1 red")  # then 2 brown: automatic
    assert goods_of(env, 0) == "r1 w2"  # 2 wheat for the canal, the red of V5.2 gained


def test_scales_do_not_make_two_ways_of_paying_one_outcome():
    # red scales and a red cart: one red field passed. Goods (2 red, scales take 1) and the cart
    # (1 red) leave the same goods: one choice
    env = at(workers={0: "V5.1", 1: "V6.1"}, goods={0: "r2"}, equipment={0: "red scales, red cart"})
    play(env, "move a worker", "move to V5.3 (brown)")
    assert phase(env) == "action" and goods_of(env, 0) == "r1 w1"


def test_a_purchase_split_and_a_stall_never_offer_one_outcome_twice():
    # 4 goods of red / green with a blue stall: 3r+1g with blue for red = 2r+1g+1b = 2r+2g with blue
    # for green; each outcome once
    market = [row.replace("blue stall", "-") for row in MARKET_RED_BARGE]
    env = at(workers=GRAY, goods={0: "r4 g4 b1"}, market=market, equipment={0: "blue stall"})
    play(env, "acquire equipment", "acquire the red barge (row red, column green: 4 goods)")
    splits = strings(env)
    outcomes = set()
    for s in splits:
        saved = env.get_state()
        play(env, s)
        for t in strings(env):
            inner = env.get_state()
            play(env, t)
            outcome = goods_of(env, 0)
            assert outcome not in outcomes, (s, t)
            outcomes.add(outcome)
            env.set_state(inner)
        env.set_state(saved)
    # 3 splits x (no stall, or blue for one of the colours) minus the duplicates
    assert outcomes == {"r1 g3 b1", "r2 g2 b1", "r3 g1 b1", "r2 g3", "r1 g4", "r3 g2", "r4 g1"}


# =====================================================================================================
# End of the game and scoring
# =====================================================================================================
def test_the_end_triggers_with_4_pieces_left_then_the_round_and_one_more():
    market = ["red cart, -, -, -, -", "-, green cart, -, -, -", "-, -, blue cart, -, -", "-, -, -, red tool, -",
              "-, -, -, -, red stall"]
    env = at(3, workers={0: "V3.2", 1: "V6.1", 2: "V5.5"}, goods={1: "r3"}, market=market, current=1)
    play(env, "acquire equipment")  # the red cart: the one piece player_1 can pay
    st = env.state_array
    assert st[L.END_TRIGGERED] == 1 and st[L.FINAL_ROUND] == 0
    seen = []
    while not env.state_array[H_TERMINAL]:
        if phase(env) == "action":
            seen.append((int(env.state_array[L.ROUND]), env.agent_selection))
        env.step(env.string_to_action("produce") if phase(env) == "action" else env.legal_actions()[0])
    turns = sorted(set(seen))
    # round 0: player_1 (trigger), player_2; round 1: 0, 1, 2; the seat before the start is last
    assert turns == [(0, "player_1"), (0, "player_2"), (1, "player_0"), (1, "player_1"), (1, "player_2")]


def test_the_end_triggers_when_a_player_builds_a_5th_building():
    env = at(workers={0: "V3.3", 1: "V6.1"}, buildings={0: "V3.1 V3.4 V3.5 V1.2"}, goods={0: "b2 y2"},
             equipment={0: "blue barrel"})
    play(env, "build")
    assert env.state_array[L.END_TRIGGERED] == 1


def test_goods_triples_are_the_most_disjoint_sets_of_three_colours():
    for text, k in (("r3 g3 b3", 3), ("r9", 0), ("r5 g5", 0), ("r5 g5 b1", 1), ("r2 g2 b2 y2 o2 w2", 4),
                    ("r7 g2 b2", 2), ("r1 o1 g1 w1 b1 y1", 2), ("-", 0)):
        st = state_from_ascii(num_players=2, workers=GRAY, goods={0: text})
        assert goods_triples(st, 0) == k, text


def test_score_counts_triples_vp_tiles_equipment_and_buildings():
    st = state_from_ascii(num_players=2, workers=GRAY, goods={0: "r3 g3 b3"}, buildings={0: "V3.1"},
                         equipment={0: "red barrel, red tool"})
    # 3 triples + VP tile 7 + barrel 5 + tool 3 + castle: 3 per village with a worker (V3)
    assert final_score(st, 0) == 3 + 7 + 5 + 3 + 3


def test_monastery_scores_1_per_worker_on_the_map():
    st = state_from_ascii(num_players=2, workers={0: "V3.3 V3.2 V1.1", 1: "V6.1"}, buildings={0: "V3.3"})
    assert building_points(st, 0, L.MONASTERY) == 3


def test_workshop_scores_2_per_equipment_type():
    # rulebook example: 2 carts, 2 barges and 4 barrels: 3 types, 6 VP
    st = state_from_ascii(num_players=2, workers=GRAY, buildings={0: "V2.2"},
                         equipment={0: "red cart, blue cart, red barge, blue barge, red barrel, blue barrel, "
                                       "green barrel, yellow barrel"})
    assert building_points(st, 0, L.WORKSHOP) == 6


def test_tower_scores_2_per_own_building():
    st = state_from_ascii(num_players=2, workers=GRAY, buildings={0: "V3.4 V3.1 V3.3", 1: "V1.1"})
    assert building_points(st, 0, L.TOWER) == 6


def test_castle_scores_3_per_village_with_an_own_worker():
    st = state_from_ascii(num_players=2, workers={0: "V3.2 V3.3 V1.1 V5.5", 1: "V6.1"}, buildings={0: "V3.1"})
    assert building_points(st, 0, L.CASTLE) == 9


def test_manor_scores_3_per_own_worker_on_it_or_beside_it_canal_or_not():
    # the manor on V1.2 (orange): neighbours V1.1, V1.3 (village), V3.3, V3.1 (canal)
    st = state_from_ascii(num_players=2, workers={0: "V1.2 V1.3 V3.1 V5.5", 1: "V1.1 V6.1"}, buildings={0: "V1.2"})
    assert building_points(st, 0, L.MANOR) == 9


def test_mill_scores_4_per_own_worker_on_a_yellow_field():
    st = state_from_ascii(num_players=2, workers={0: "V3.2 V1.1 V3.3", 1: "V6.1"}, buildings={0: "V1.1"})
    assert building_points(st, 0, L.MILL) == 8


def test_a_tie_goes_to_more_goods_left_after_the_triples_then_is_shared():
    st = state_from_ascii(num_players=2, workers=GRAY, goods={0: "r3 g3 b3 y1", 1: "r3 g3 b3"})
    keys = np.zeros(2)
    rules.rank_keys(st, keys)
    assert final_score(st, 0) == final_score(st, 1) and keys[0] > keys[1]
    st = state_from_ascii(num_players=2, workers=GRAY, goods={0: "r3 g3 b3", 1: "r3 g3 b3"})
    rules.rank_keys(st, keys)
    assert keys[0] == keys[1]


def test_the_max_rounds_cap_ends_the_game():
    env = cultivo_env.raw_env(num_players=2, max_rounds=2)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.state_array[H_TERMINAL]:
        env.step(int(rng.choice(env.legal_actions())))
    assert env.state_array[L.ROUND] == 2


# =====================================================================================================
# Hidden information, views, notation
# =====================================================================================================
def test_resample_redeals_the_stack_and_the_pieces_out_of_the_game_only():
    env = cultivo_env.raw_env(num_players=3)
    env.reset(seed=4)
    st = env.get_state()
    hidden = sorted(e for e in range(36) if st[L.EQUIP_LOC + e] in (L.LOC_STACK, L.LOC_OUT))
    orders = set()
    for seed in range(8):
        s = st.copy()
        rules.resample(s, 0, seed)
        assert sorted(e for e in range(36) if s[L.EQUIP_LOC + e] in (L.LOC_STACK, L.LOC_OUT)) == hidden
        assert s[L.STACK_N] == st[L.STACK_N]
        assert np.array_equal(s[L.MARKET: L.MARKET + 25], st[L.MARKET: L.MARKET + 25])
        assert GAME.to_dict(s, 1) == GAME.to_dict(st, 1)
        orders.add(tuple(s[L.STACK: L.STACK + 5]))
    assert len(orders) > 4


def test_to_dict_shows_the_stack_only_to_the_all_seeing_view():
    env = cultivo_env.raw_env(num_players=4)
    env.reset(seed=1)
    public = env.to_dict()
    assert "stack_top_first" not in public and public["stack_size"] == 10
    everything = env.to_dict("all")
    assert len(everything["stack_top_first"]) == 10 and len(everything["out_of_game"]) == 1
    json.dumps(everything)
    field = everything["map"]["fields"][0]
    assert set(field) >= {"field", "name", "village", "tile_position", "row", "col", "colour", "worker", "building",
                          "neighbours"}
    assert GAME.to_dict(env.state_array, VIEW_PUBLIC) == GAME.to_dict(env.state_array, 2) | {"viewer": "public"}
    assert "stack_top_first" in GAME.to_dict(env.state_array, VIEW_ALL)


def test_observation_shows_goods_as_hundreds_and_the_rest():
    env = at(workers=GRAY, goods={0: "r500 y3"})
    obs = env.observe("player_0")["observation"]
    goods = GAME.observation_views(obs, GAME.make_params(2))["GOODS"]
    assert goods[0, L.RED].tolist() == [5, 0, 0] and goods[0, L.YELLOW].tolist() == [0, 3, 0]
    assert obs.max() <= 127 and obs.min() >= 0


def test_observation_is_seat_relative():
    env = at(workers=GRAY, goods={0: "r1", 1: "g2"})
    params = GAME.make_params(2)
    g0 = GAME.observation_views(env.observe("player_0")["observation"], params)["GOODS"]
    g1 = GAME.observation_views(env.observe("player_1")["observation"], params)["GOODS"]
    assert g0[0, L.RED, 1] == 1 and g1[1, L.RED, 1] == 1
    assert g1[0, L.GREEN, 1] == 2 and g0[1, L.GREEN, 1] == 2


def test_field_names_round_trip_and_actions_invert():
    st = state_from_ascii(num_players=2, villages="V6 V5* V4 V3 V2* V1", workers={0: "V4.3", 1: "V1.1"})
    for f in range(30):
        assert notation.parse_field(st, notation.field_name(st, f)) == f
    env = at(workers=GRAY, goods={0: "r2 g2 y2"})
    for a in env.legal_actions():
        assert env.string_to_action(env.action_to_string(a)) == a


def test_state_from_ascii_rejects_bad_positions():
    with pytest.raises(ValueError):
        state_from_ascii(num_players=2, workers={0: "V3.2 V3.2", 1: "V6.1"})
    with pytest.raises(ValueError):
        state_from_ascii(num_players=2, workers={0: "V3.2"})  # player_1 has no starting worker
    with pytest.raises(ValueError):
        state_from_ascii(num_players=2, workers=GRAY, equipment={0: "red cart", 1: "red cart"})
    with pytest.raises(ValueError):
        state_from_ascii(num_players=2, workers={0: "V9.1", 1: "V6.1"})  # V9 is not on the 2-player map


@pytest.mark.parametrize("n,kw", [
    (2, {"villages": "V1* V2 V3 V4 V5* V6", "workers": {0: "V3.2 V1.1", 1: "V6.1"},
         "buildings": {0: "V3.1", 1: "V6.1 V2.2"}}),
    (3, {"workers": {0: "V3.2", 1: "V6.1", 2: "V5.5"}}),
    (4, {"villages": "V10 V9* V8 V7 V6 V5 V4* V3 V2 V1", "workers": {0: "V3.2", 1: "V6.1", 2: "V5.5", 3: "V1.1"},
         "buildings": {3: "V1.1"}}),
])
def test_state_from_ascii_reads_the_map_back(n, kw):
    """The map as notation.map_ascii writes it (indented or not) gives the villages, workers and
    buildings: the same position as naming them."""
    st = state_from_ascii(num_players=n, goods={0: "r3 g2"}, **kw)
    text = notation.map_ascii(st)
    assert np.array_equal(state_from_ascii(text, goods={0: "r3 g2"}), st)
    indented = "\n" + "\n".join("    " + line for line in text.splitlines()) + "\n"
    assert np.array_equal(state_from_ascii(indented, num_players=n, goods={0: "r3 g2"}), st)
    assert notation.parse_map(text).num_players == n


def test_state_from_ascii_rejects_a_bad_map():
    text = notation.map_ascii(state_from_ascii(num_players=2, workers=GRAY))
    assert "3.2y0." in text
    with pytest.raises(ValueError, match="colour letter"):
        state_from_ascii(text.replace("3.2y0.", "3.2r0."))  # V3.2 is yellow
    with pytest.raises(ValueError, match="seat 2"):
        state_from_ascii(text.replace("3.2y0.", "3.2y2."))
    with pytest.raises(ValueError, match="several tiles"):
        state_from_ascii(text.replace("3.2y0.", "4.2y0."))
    with pytest.raises(ValueError, match="given twice"):
        state_from_ascii(text, workers=GRAY)
    with pytest.raises(ValueError, match="2-player map"):
        state_from_ascii(text, num_players=3)
    with pytest.raises(ValueError, match="no Cultivo map"):
        state_from_ascii("1.1y.. 1.2o..")
    with pytest.raises(TypeError, match="num_players="):
        state_from_ascii(2)  # type: ignore[arg-type]


def test_rgb_frame_keeps_its_size_and_margins_with_long_text():
    """A seat holding 18 pieces and 720 goods: its lines are shortened ("..."), the picture keeps
    the size of the player count and nothing is drawn at its edges."""
    from cultivo_env import render

    env = at(workers=GRAY, goods={0: "r120 o120 g120 w120 b120 y120"},
             equipment={0: ", ".join(notation.piece_name(e) for e in range(0, 36, 2))})
    plain = at(workers=GRAY)
    img = render.rgb(env.state_array)
    assert img.shape == render.rgb(plain.state_array).shape
    frame = np.concatenate([img[:2].reshape(-1, 3), img[-2:].reshape(-1, 3), img[:, :2].reshape(-1, 3),
                            img[:, -2:].reshape(-1, 3)])
    assert (frame == frame[0]).all()
    font = R.font(11)
    equipment = render.seat_equipment(env.state_array, 0)
    assert R.text_width(equipment, font) > img.shape[1]  # too long to draw whole ...
    assert R.fit(equipment, font, 300).endswith("...") and R.text_width(R.fit(equipment, font, 300), font) <= 300


def _pack_summary(plain, foreign, canals):
    """A travel summary: 4-bit counts of passed fields without / with another player's worker by
    colour, then the canals."""
    return (sum(v << (4 * k) for k, v in enumerate(plain)) + sum(v << (S_FOREIGN + 4 * k) for k, v in
                                                                  enumerate(foreign)) + (canals << S_CANAL))


def _summary_counts(s):
    return ([(s >> (4 * k)) & 15 for k in range(6)], [(s >> (S_FOREIGN + 4 * k)) & 15 for k in range(6)],
            (s >> S_CANAL) & 63)


def test_summary_no_dearer_compares_every_count():
    """The lane-parallel order of the travel search (no_dearer: no more canals, and per colour no
    more fields with another player's worker and no more fields in all) agrees with comparing the
    counts one by one, at the extremes and at random."""
    def want(a, b):
        (pa, fa, ca), (pb, fb, cb) = _summary_counts(a), _summary_counts(b)
        return ca <= cb and all(fa[c] <= fb[c] and pa[c] + fa[c] <= pb[c] + fb[c] for c in range(6))

    rng = np.random.default_rng(7)
    full, empty = _pack_summary([15] * 6, [15] * 6, 63), _pack_summary([0] * 6, [0] * 6, 0)
    cases = [(full, full), (empty, full), (full, empty)]
    for c in range(6):  # one count above, everything else equal; a field moved between the classes
        lo = [3] * 6
        hi = list(lo)
        hi[c] = 15
        cases += [(_pack_summary(hi, lo, 5), _pack_summary(lo, lo, 5)), (_pack_summary(lo, hi, 5),
                                                                          _pack_summary(lo, lo, 5))]
        moved_p, moved_f = list(lo), list(lo)
        moved_p[c] += 1
        moved_f[c] -= 1
        cases += [(_pack_summary(moved_p, moved_f, 5), _pack_summary(lo, lo, 5)),  # a worker's field -> none
                  (_pack_summary(lo, lo, 5), _pack_summary(moved_p, moved_f, 5))]
    cases.append((_pack_summary([3] * 6, [3] * 6, 6), _pack_summary([3] * 6, [3] * 6, 5)))
    for _ in range(3000):
        pa, fa = ([int(x) for x in rng.integers(0, 16, 6)] for _ in range(2))
        pb = [min(15, x + int(d)) for x, d in zip(pa, rng.integers(-2, 3, 6), strict=True)]
        fb = [max(0, min(15, x + int(d))) for x, d in zip(fa, rng.integers(-2, 3, 6), strict=True)]
        cases.append((_pack_summary(pa, fa, int(rng.integers(0, 64))), _pack_summary(pb, fb, int(rng.integers(0, 64)))))
    for a, b in cases:
        assert no_dearer(np.int64(a), np.int64(b)) == want(a, b), (_summary_counts(a), _summary_counts(b))
    assert any(want(a, b) for a, b in cases) and not all(want(a, b) for a, b in cases)


def test_a_field_with_another_players_worker_is_never_cheaper():
    """What the search's pruning rests on: whenever a travel's obligations can be paid, so can any
    that no_dearer puts below them: one passed field fewer, one canal fewer, or a field with
    another player's worker (1 good to that player, 1 to the supply) passed as one without (2 goods
    to the supply, which only helps the scales). Checked with the exact payment test on the goods and
    pieces of seats in random 4-player games, at random obligations."""
    rng = np.random.default_rng(11)
    state = np.zeros(rules.STATE_LEN, dtype=np.int64)
    mask = np.zeros(GAME.num_actions(GAME.make_params(4)), dtype=np.int8)
    checked = payable = 0
    for g in range(3):
        rules.init(state, GAME.make_params(4), 500 + g)
        while not state[H_TERMINAL]:
            if rng.random() < 0.06:
                ws = new_ws()
                p = int(rng.integers(4))
                load_context(state, p, ws)
                for _ in range(8):
                    plain, foreign = ([int(x) for x in rng.integers(0, 3, 6)] for _ in range(2))
                    canals, w = int(rng.integers(0, 4)), int(rng.integers(0, 3))
                    s = _pack_summary(plain, foreign, canals)
                    if not summary_feasible(np.int64(s), w, ws, p):
                        continue
                    payable += 1
                    c = int(rng.integers(6))
                    cheaper = []
                    if foreign[c]:
                        cheaper.append(_pack_summary([x + (k == c) for k, x in enumerate(plain)],
                                                     [x - (k == c) for k, x in enumerate(foreign)], canals))
                        cheaper.append(_pack_summary(plain, [x - (k == c) for k, x in enumerate(foreign)], canals))
                    if plain[c]:
                        cheaper.append(_pack_summary([x - (k == c) for k, x in enumerate(plain)], foreign, canals))
                    if canals:
                        cheaper.append(_pack_summary(plain, foreign, canals - 1))
                    for t in cheaper:
                        assert no_dearer(np.int64(t), np.int64(s))
                        assert summary_feasible(np.int64(t), w, ws, p), (_summary_counts(s), _summary_counts(t))
                        checked += 1
            n = rules.legal_mask(state, mask)
            rules.apply(state, int(np.flatnonzero(mask)[int(rng.integers(n))]))
    assert payable >= 40 and checked >= 60, (payable, checked)
