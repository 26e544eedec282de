"""Self-checks of the Cultivo plain-Python reference (tests/reference/cultivo_reference.py).

Small hand-built maps; every expected set or number is worked out by hand from the rules
page (docs/rules/cultivo.md) and the rulebook's examples, not printed by the reference.
A naive brute force (every path, every option, every stall assignment, no pruning and no
caches) written here checks the reference's search on random small positions.
"""

from __future__ import annotations

import itertools
import random

import pytest

from reference import cultivo_reference as ref

R, O, G, W, B, Y = range(6)  # red/tomatoes, orange, green/grapes, brown/wood, blue/olives, yellow/wheat


# ---------------------------------------------------------------------------
# Builders
# ---------------------------------------------------------------------------

def fld(x, y, village, colour):
    return {"x": x, "y": y, "village": village, "colour": colour}


def goods(red=0, orange=0, green=0, wood=0, blue=0, wheat=0):
    return (red, orange, green, wood, blue, wheat)


def player(gd=None, workers=(), equipment=(), buildings=(), vp_tiles=()):
    return {"goods": list(gd or goods()), "workers": list(workers), "equipment": list(equipment),
            "buildings": list(buildings), "vp_tiles": list(vp_tiles)}


def empty_market():
    return [[None] * 5 for _ in range(5)]


def position(fields, players, market=None, stack_size=0):
    return {"fields": fields, "players": players,
            "market": market if market is not None else empty_market(), "stack_size": stack_size}


def lane(colours, village_of=None):
    """Fields in a row along x = 0, 1, ...; one village unless village_of gives each field's."""
    village_of = village_of or [0] * len(colours)
    return [fld(i, 0, v, c) for i, (v, c) in enumerate(zip(village_of, colours, strict=True))]


NOBODY = player()


# ---------------------------------------------------------------------------
# Rulebook examples: placing (Gray)
# ---------------------------------------------------------------------------
# Gray's village 0: yellow start Y with free neighbours A, B, C. Village 1 behind a canal:
# D (canal-adjacent to Y), F (direct to D, canal to C), E (direct to D, canal to A).
#        B
#     A  Y  C          row 1
#     E  D  F          row 2 (village 1)
GRAY_FIELDS = [
    fld(1, 1, 0, Y),   # 0 Y
    fld(0, 1, 0, R),   # 1 A
    fld(1, 0, 0, O),   # 2 B
    fld(2, 1, 0, G),   # 3 C
    fld(1, 2, 1, W),   # 4 D
    fld(2, 2, 1, B),   # 5 F
    fld(0, 2, 1, O),   # 6 E
]
Y0, A, BF, C, D, F, E = range(7)


def test_gray_places_free_on_adjacent_fields_pays_a_canal_and_two_routes_to_f():
    pos = position(GRAY_FIELDS, [player(goods(wheat=2, green=2, wood=2), workers=[Y0]), NOBODY])
    out = ref.place_outcomes(pos, 0)
    expected = {
        (A, (goods(red=1, green=2, wood=2, wheat=2), goods()), False),      # free, +1 red
        (BF, (goods(orange=1, green=2, wood=2, wheat=2), goods()), False),  # free
        (C, (goods(green=3, wood=2, wheat=2), goods()), False),             # free
        (D, (goods(green=2, wood=3), goods()), False),                      # 2 wheat for the canal
        (F, (goods(wood=2, blue=1), goods()), False),                       # via C: 2 green + 2 wheat
        (F, (goods(green=2, blue=1), goods()), False),                      # via D: 2 wheat + 2 wood
        (E, (goods(orange=1, green=2), goods()), False),                    # via D: 2 wheat + 2 wood
    }
    assert out == expected


def test_gray_without_wheat_reaches_only_the_free_fields():
    pos = position(GRAY_FIELDS, [player(goods(green=2, wood=2), workers=[Y0]), NOBODY])
    assert {o[0] for o in ref.place_outcomes(pos, 0)} == {A, BF, C}


def test_a_longer_dearer_path_may_be_chosen_even_where_a_free_one_exists():
    # C is free from Y; it can also be reached Y -> D -> F -> C (2 wheat, 2 wood, 2 blue, 2 wheat).
    pos = position(GRAY_FIELDS, [player(goods(wood=2, blue=2, wheat=4), workers=[Y0]), NOBODY])
    out = {o[1][0] for o in ref.place_outcomes(pos, 0) if o[0] == C}
    assert out == {goods(green=1, wood=2, blue=2, wheat=4), goods(green=1)}


def test_the_arrival_good_cannot_pay_for_the_travel():
    # One wheat only: the canal to D costs 2; arriving on a yellow field would not help.
    fields = [fld(0, 0, 0, R), fld(1, 0, 1, Y)]
    pos = position(fields, [player(goods(wheat=1), workers=[0]), NOBODY])
    assert ref.place_outcomes(pos, 0) == set()


# ---------------------------------------------------------------------------
# Rulebook examples: carts, barges, market stalls, scales
# ---------------------------------------------------------------------------
# A Z village laid along a lane P1..P5 = yellow, orange, green, wood, blue (V1's pattern).
Z_LANE = lane([Y, O, G, W, B])


def test_red_cart_moving_four_fields_pays_three_red():
    pos = position(Z_LANE, [player(goods(red=3), workers=[0], equipment=[("cart", R)]), NOBODY])
    assert ref.move_outcomes(pos, 0) == {
        (0, 1, (goods(red=3, orange=1), goods())),   # adjacent: free
        (0, 2, (goods(red=2, green=1), goods())),    # 1 field passed: 1 red
        (0, 3, (goods(red=1, wood=1), goods())),     # 2 fields: 2 red
        (0, 4, (goods(blue=1), goods())),            # 3 fields: 3 red
    }


def test_red_cart_short_of_red_pays_two_of_the_field_colour_for_the_third_field():
    pos = position(Z_LANE, [player(goods(red=2, wood=2), workers=[0], equipment=[("cart", R)]), NOBODY])
    out = ref.move_outcomes(pos, 0)
    assert {o for o in out if o[1] == 4} == {(0, 4, (goods(blue=1), goods()))}
    assert out == {
        (0, 1, (goods(red=2, orange=1, wood=2), goods())),
        (0, 2, (goods(red=1, green=1, wood=2), goods())),
        (0, 3, (goods(wood=3), goods())),
        (0, 4, (goods(blue=1), goods())),
    }


def test_red_and_blue_carts_pay_red_and_or_blue():
    pos = position(Z_LANE, [player(goods(red=2, blue=2), workers=[0],
                                   equipment=[("cart", R), ("cart", B)]), NOBODY])
    out = {o[2][0] for o in ref.move_outcomes(pos, 0) if o[1] == 3}
    assert out == {goods(blue=2, wood=1), goods(red=1, blue=1, wood=1), goods(red=2, wood=1)}


def test_red_scales_and_red_cart_move_three_fields_for_one_red():
    pos = position(Z_LANE, [player(goods(red=2), workers=[0],
                                   equipment=[("cart", R), ("scales", R)]), NOBODY])
    out = ref.move_outcomes(pos, 0)
    assert {o for o in out if o[1] == 3} == {(0, 3, (goods(red=1, wood=1), goods()))}
    # 3 fields passed: 3 red owed, 2 paid.
    assert {o for o in out if o[1] == 4} == {(0, 4, (goods(blue=1), goods()))}


# Three villages in a row, one field each: a | b | c (two canals from a to c).
THREE_VILLAGES = lane([R, W, G], village_of=[0, 1, 2])


def test_orange_barge_over_two_canals_pays_two_orange():
    pos = position(THREE_VILLAGES, [player(goods(orange=2, wood=2), workers=[0],
                                           equipment=[("barge", O)]), NOBODY])
    assert ref.move_outcomes(pos, 0) == {
        (0, 1, (goods(orange=1, wood=3), goods())),          # 1 canal: 1 orange
        (0, 2, (goods(green=1), goods())),                   # 2 canals: 2 orange; b: 2 wood
    }


def test_orange_and_yellow_barges_choose_per_canal():
    pos = position(THREE_VILLAGES, [player(goods(orange=2, wood=2, wheat=4), workers=[0],
                                           equipment=[("barge", O), ("barge", Y)]), NOBODY])
    out = {o[2][0] for o in ref.move_outcomes(pos, 0) if o[1] == 2}
    # per canal: 2 wheat (no barge), 1 orange or 1 wheat; (orange, wheat) paid:
    paid = {(2, 0), (1, 1), (1, 2), (0, 2), (0, 3), (0, 4)}
    assert out == {goods(orange=2 - o, green=1, wheat=4 - w) for o, w in paid}


def test_green_market_stall_pays_a_canal_with_one_wheat_and_one_green():
    fields = [fld(0, 0, 0, R), fld(1, 0, 1, B)]
    me = player(goods(green=1, wheat=1), workers=[0], equipment=[("market_stall", G)])
    assert ref.place_outcomes(position(fields, [me, NOBODY]), 0) == {(1, (goods(blue=1), goods()), False)}
    no_stall = player(goods(green=1, wheat=1), workers=[0])
    assert ref.place_outcomes(position(fields, [no_stall, NOBODY]), 0) == set()


def test_green_and_blue_market_stalls_pay_a_canal_with_one_green_and_one_blue():
    fields = [fld(0, 0, 0, R), fld(1, 0, 1, O)]
    me = player(goods(green=1, blue=1), workers=[0],
                equipment=[("market_stall", G), ("market_stall", B)])
    assert ref.place_outcomes(position(fields, [me, NOBODY]), 0) == {(1, (goods(orange=1), goods()), False)}
    one_stall = player(goods(green=1, blue=1), workers=[0], equipment=[("market_stall", G)])
    assert ref.place_outcomes(position(fields, [one_stall, NOBODY]), 0) == set()


def test_market_stall_is_optional_and_each_is_used_once_per_action():
    # Two fields passed (2 red + 2 red): the green stall may replace at most one red.
    fields = lane([Y, R, R, O])
    me = player(goods(red=4, green=2), workers=[0], equipment=[("market_stall", G)])
    out = {o[2][0] for o in ref.move_outcomes(position(fields, [me, NOBODY]), 0) if o[1] == 3}
    assert out == {goods(green=2, orange=1), goods(red=1, green=1, orange=1)}


def test_yellow_scales_make_a_canal_cost_one_wheat():
    fields = [fld(0, 0, 0, R), fld(1, 0, 1, B)]
    for wheat in (1, 2):
        me = player(goods(wheat=wheat), workers=[0], equipment=[("scales", Y)])
        assert ref.place_outcomes(position(fields, [me, NOBODY]), 0) == {
            (1, (goods(blue=1, wheat=wheat - 1), goods()), False)}


def test_yellow_scales_make_a_building_cost_one_wheat():
    fields = [fld(0, 0, 0, B)]
    me = player(goods(blue=2, wheat=2), workers=[0], equipment=[("barrel", B), ("scales", Y)])
    assert ref.build_outcomes(position(fields, [me, NOBODY]), 0) == {(0, (goods(wheat=1), goods()))}


# ---------------------------------------------------------------------------
# Travel payments to other players, borrowing, own workers
# ---------------------------------------------------------------------------

def test_passing_another_players_worker_pays_one_to_them_and_one_to_the_supply():
    fields = lane([Y, R, O])
    me = player(goods(red=2), workers=[0])
    other = player(goods(), workers=[1])
    assert ref.place_outcomes(position(fields, [me, other]), 0) == {
        (2, (goods(orange=1), goods(red=1)), False)}


def test_passing_an_own_worker_costs_the_full_two():
    fields = lane([Y, R, O])
    me = player(goods(red=2), workers=[0, 1])
    assert ref.move_outcomes(position(fields, [me, NOBODY]), 0) == {
        (0, 2, (goods(orange=1), goods())),   # worker on 0 passes own worker on 1: 2 red
        (1, 2, (goods(red=2, orange=1), goods())),
    }


def test_own_cart_on_an_occupied_field_pays_the_supply_and_the_worker_owner_nothing():
    fields = lane([Y, R, O])
    me = player(goods(blue=1), workers=[0], equipment=[("cart", B)])
    other = player(workers=[1])
    assert ref.place_outcomes(position(fields, [me, other]), 0) == {
        (2, (goods(orange=1), goods()), False)}


def test_borrowed_cart_pays_its_owner_and_the_worker_owner_nothing():
    fields = lane([Y, R, O])
    me = player(goods(blue=1), workers=[0])
    worker_owner = player(workers=[1])
    cart_owner = player(equipment=[("cart", B)])
    assert ref.place_outcomes(position(fields, [me, worker_owner, cart_owner]), 0) == {
        (2, (goods(orange=1), goods(), goods(blue=1)), False)}


def test_borrowing_is_allowed_while_owning_a_cart_of_another_colour():
    fields = lane([Y, W, O])
    me = player(goods(red=1, blue=1), workers=[0], equipment=[("cart", R)])
    other = player(equipment=[("cart", B)])
    out = {o[1] for o in ref.place_outcomes(position(fields, [me, other]), 0) if o[0] == 2}
    assert out == {(goods(blue=1, orange=1), goods()), (goods(red=1, orange=1), goods(blue=1))}


def test_borrowed_barge_pays_its_owner():
    fields = [fld(0, 0, 0, R), fld(1, 0, 1, B)]
    me = player(goods(green=1, wheat=2), workers=[0])
    other = player(equipment=[("barge", G)])
    assert ref.place_outcomes(position(fields, [me, other]), 0) == {
        (1, (goods(green=1, blue=1), goods()), False),              # 2 wheat to the supply
        (1, (goods(blue=1, wheat=2), goods(green=1)), False),      # 1 green to the barge owner
    }


def test_market_stall_may_replace_a_good_paid_to_another_player():
    fields = lane([Y, R, O])
    me = player(goods(red=1, blue=1), workers=[0], equipment=[("market_stall", B)])
    other = player(workers=[1])
    out = {o[1] for o in ref.place_outcomes(position(fields, [me, other]), 0)}
    assert out == {
        (goods(orange=1), goods(blue=1)),    # blue replaces the red owed to the other player
        (goods(orange=1), goods(red=1)),     # blue replaces the red owed to the supply
    }


def test_scales_act_on_the_supply_share_only():
    # Two occupied red fields: 1 red to the owner and 1 to the supply each. Supply red 2 -> 1.
    fields = lane([Y, R, R, O])
    me = player(goods(red=3), workers=[0], equipment=[("scales", R)])
    other = player(workers=[1, 2])
    out = {o[1] for o in ref.place_outcomes(position(fields, [me, other]), 0) if o[0] == 3}
    assert out == {(goods(orange=1), goods(red=2))}


def test_scales_act_before_market_stalls():
    # Canal with yellow scales owes 1 wheat; the green stall may then replace that wheat.
    fields = [fld(0, 0, 0, R), fld(1, 0, 1, B)]
    me = player(goods(green=1, wheat=1), workers=[0],
                equipment=[("scales", Y), ("market_stall", G)])
    out = {o[1][0] for o in ref.place_outcomes(position(fields, [me, NOBODY]), 0)}
    assert out == {goods(green=1, blue=1), goods(wheat=1, blue=1)}


# ---------------------------------------------------------------------------
# Placement wheat, exchanges, the 10th worker
# ---------------------------------------------------------------------------

def many_fields(n):
    """One long village of n fields in a row, colours cycling red, orange, green, wood, blue."""
    return lane([i % 5 for i in range(n)])


@pytest.mark.parametrize("placed, wheat", [(1, 0), (3, 0), (4, 1), (5, 1), (6, 2), (7, 2), (8, 3), (9, 4)])
def test_placement_wheat_by_worker_number(placed, wheat):
    fields = many_fields(placed + 1)
    target = placed   # next to the last worker: free travel
    me = player(goods(wheat=wheat), workers=list(range(placed)))
    out = ref.place_outcomes(position(fields, [me, NOBODY]), 0)
    assert (target, (_gain(goods(), fields[target]["colour"]), goods()), placed + 1 == 10) in out
    assert all(o[0] == target for o in out)
    if wheat:
        short = player(goods(wheat=wheat - 1), workers=list(range(placed)))
        assert ref.place_outcomes(position(fields, [short, NOBODY]), 0) == set()


def _gain(gd, colour, k=1):
    g = list(gd)
    g[colour] += k
    return tuple(g)


def test_no_place_with_all_ten_workers_on_the_map_or_none_on_it():
    fields = many_fields(11)
    full = player(goods(wheat=9), workers=list(range(10)))
    assert ref.place_outcomes(position(fields, [full, NOBODY]), 0) == set()
    none = player(goods(wheat=9))
    assert ref.place_outcomes(position(fields, [none, NOBODY]), 0) == set()


def test_tenth_worker_flags_the_extra_action():
    fields = many_fields(10)
    me = player(goods(wheat=4), workers=list(range(9)))
    assert ref.place_outcomes(position(fields, [me, NOBODY]), 0) == {(9, (_gain(goods(), 9 % 5), goods()), True)}


@pytest.mark.parametrize("placed", [7, 8])
def test_eighth_and_ninth_worker_may_exchange_one_good_after_arrival(placed):
    fields = many_fields(placed + 1)
    wheat = ref.PLACEMENT_WHEAT[placed + 1]
    me = player(goods(wheat=wheat, wood=1), workers=list(range(placed)))
    out = ref.place_outcomes(position(fields, [me, NOBODY]), 0)
    arrival = fields[placed]["colour"]
    after = _gain(goods(wood=1), arrival)
    expected = {after}
    for give in range(6):
        for take in range(6):
            if after[give] and take != give:
                g = list(after)
                g[give] -= 1
                g[take] += 1
                expected.add(tuple(g))
    assert {o[1][0] for o in out} == expected
    # no exchange, or give one of the 1 or 2 colours held for one of the 5 others
    assert len(out) == (1 + 5 if arrival == W else 1 + 5 + 5)
    assert all(o[0] == placed and o[2] is False for o in out)


def test_seventh_worker_has_no_exchange():
    fields = many_fields(7)
    me = player(goods(wheat=2, wood=1), workers=list(range(6)))
    out = ref.place_outcomes(position(fields, [me, NOBODY]), 0)
    assert out == {(6, (_gain(goods(wood=1), 6 % 5), goods()), False)}


def test_yellow_scales_count_the_placement_wheat():
    # 5th worker (1 wheat) across a canal (2 wheat): 3 wheat owed, yellow scales: 2.
    fields = [fld(0, 0, 0, R), fld(1, 0, 0, O), fld(2, 0, 0, G), fld(3, 0, 0, W), fld(4, 0, 1, B)]
    me = player(goods(wheat=2), workers=[0, 1, 2, 3], equipment=[("scales", Y)])
    assert ref.place_outcomes(position(fields, [me, NOBODY]), 0) == {(4, (goods(blue=1), goods()), False)}


# ---------------------------------------------------------------------------
# Produce
# ---------------------------------------------------------------------------

PRODUCE_FIELDS = lane([R, R, B, B, Y])


def test_two_workers_on_red_fields_produce_two():
    me = player(goods(wheat=1), workers=[0, 1])
    assert ref.produce_outcomes(position(PRODUCE_FIELDS, [me, NOBODY]), 0) == {
        (R, (goods(red=2, wheat=1), goods()))}


def test_two_workers_on_blue_and_the_blue_tool_produce_three():
    me = player(workers=[2, 3], equipment=[("tool", B)])
    assert ref.produce_outcomes(position(PRODUCE_FIELDS, [me, NOBODY]), 0) == {
        (B, (goods(blue=3), goods()))}


def test_produce_counts_a_worker_on_an_own_building_twice_and_offers_each_worked_colour():
    me = player(workers=[0, 1, 4], buildings=[1], equipment=[("tool", Y)])
    other = player(workers=[2], buildings=[0])   # another player's building gives nothing
    assert ref.produce_outcomes(position(PRODUCE_FIELDS, [me, other]), 0) == {
        (R, (goods(red=3), goods())),
        (Y, (goods(wheat=2), goods())),
    }


# ---------------------------------------------------------------------------
# Acquire
# ---------------------------------------------------------------------------

def market_with(cells):
    m = empty_market()
    for (i, j), piece in cells.items():
        m[i][j] = piece
    return m


def test_red_barge_in_red_row_green_column_is_paid_3_1_or_2_2_or_1_3():
    m = market_with({(0, 2): ("barge", R)})
    me = player(goods(red=4, green=4))
    assert ref.acquire_outcomes(position([], [me, NOBODY], m), 0) == {
        (0, 2, None, (goods(red=1, green=3), goods()), False),
        (0, 2, None, (goods(red=2, green=2), goods()), False),
        (0, 2, None, (goods(red=3, green=1), goods()), False),
    }


def test_purchase_needs_one_of_each_type_and_a_diagonal_one_type():
    m = market_with({(0, 2): ("barge", R), (3, 3): ("cart", O)})
    me = player(goods(red=4, wood=3))
    assert ref.acquire_outcomes(position([], [me, NOBODY], m), 0) == {
        (3, 3, None, (goods(red=4), goods()), False)}


def test_barrel_grants_the_extra_action():
    m = market_with({(1, 4): ("barrel", G)})
    me = player(goods(orange=1, blue=5))
    assert ref.acquire_outcomes(position([], [me, NOBODY], m), 0) == {
        (1, 4, None, (goods(), goods()), True)}


def test_refill_choice_only_when_a_row_and_a_column_empty_at_once_with_five_in_the_stack():
    me = player(goods(red=3))
    alone = market_with({(0, 0): ("cart", B)})
    assert ref.acquire_outcomes(position([], [me, NOBODY], alone, stack_size=5), 0) == {
        (0, 0, "row", (goods(), goods()), False), (0, 0, "col", (goods(), goods()), False)}
    assert ref.acquire_outcomes(position([], [me, NOBODY], alone, stack_size=4), 0) == {
        (0, 0, None, (goods(), goods()), False)}
    row_only = market_with({(0, 0): ("cart", B), (3, 0): ("tool", R)})
    assert ref.acquire_outcomes(position([], [me, NOBODY], row_only, stack_size=10), 0) == {
        (0, 0, None, (goods(), goods()), False)}


def test_scales_and_stalls_on_a_purchase():
    m = market_with({(0, 2): ("barge", R)})
    # Red scales: a split owing 2 or more red pays 1 red less.
    me = player(goods(red=3, green=1), equipment=[("scales", R)])
    # 3 red + 1 green -> 2 red + 1 green; 2 red + 2 green -> 1 red + 2 green (1 green short);
    # 1 red + 3 green: no reduction (1 red), 2 green short.
    assert {o[3][0] for o in ref.acquire_outcomes(position([], [me, NOBODY], m), 0)} == {goods(red=1)}
    # Blue stall: the split 1 red + 3 green may pay 1 blue for the only red (split before stall).
    me = player(goods(green=3, blue=1), equipment=[("market_stall", B)])
    assert ref.acquire_outcomes(position([], [me, NOBODY], m), 0) == {
        (0, 2, None, (goods(), goods()), False)}


def test_equipment_type_may_be_given_by_its_index():
    m_named = market_with({(0, 2): ("barge", R)})
    m_index = market_with({(0, 2): (ref.EQUIPMENT_TYPES.index("barge"), R)})
    me = player(goods(red=3, green=2), equipment=[(ref.EQUIPMENT_TYPES.index("scales"), G)])
    named = player(goods(red=3, green=2), equipment=[("scales", G)])
    got = ref.acquire_outcomes(position([], [me, NOBODY], m_index), 0)
    assert got == ref.acquire_outcomes(position([], [named, NOBODY], m_named), 0)
    # splits 3+1, 2+2 (green scales: 1 green), 1+3 (green scales: 2 green)
    assert {o[3][0] for o in got} == {goods(green=1), goods(red=1, green=1), goods(red=2)}


def test_equipment_bought_does_not_act_on_its_own_purchase():
    m = market_with({(0, 0): ("scales", R)})
    me = player(goods(red=5))
    assert ref.acquire_outcomes(position([], [me, NOBODY], m), 0) == set()


# ---------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------

BUILD_FIELDS = lane([B, B, Y, R])


@pytest.mark.parametrize("equipment, ok", [
    ([("barrel", B)], True),                            # 5
    ([("cart", B), ("tool", B)], True),                 # 1 + 3
    ([("cart", B), ("market_stall", B)], False),        # 3
    ([("tool", B)], False),                             # 3
    ([("barge", B)], True),                             # 4
    ([("barrel", R), ("scales", O)], False),            # other colours
])
def test_monastery_needs_blue_equipment_worth_four(equipment, ok):
    me = player(goods(blue=2, wheat=2), workers=[0], equipment=equipment)
    expected = {(0, (goods(), goods()))} if ok else set()
    assert ref.build_outcomes(position(BUILD_FIELDS, [me, NOBODY]), 0) == expected


def test_build_needs_an_own_worker_a_free_field_and_an_unbuilt_type():
    eq = [("barrel", B)]
    gd = goods(blue=2, wheat=2)
    # field 1 carries the other player's building, field 0 has no own worker.
    me = player(gd, workers=[1], equipment=eq)
    other = player(workers=[0], buildings=[1])
    assert ref.build_outcomes(position(BUILD_FIELDS, [me, other]), 0) == set()
    # own monastery already built (on field 0): no second one.
    me = player(gd, workers=[1], equipment=eq, buildings=[0])
    assert ref.build_outcomes(position(BUILD_FIELDS, [me, NOBODY]), 0) == set()
    # goods short
    me = player(goods(blue=1, wheat=2), workers=[1], equipment=eq)
    assert ref.build_outcomes(position(BUILD_FIELDS, [me, NOBODY]), 0) == set()
    me = player(gd, workers=[0, 1], equipment=eq)
    assert ref.build_outcomes(position(BUILD_FIELDS, [me, NOBODY]), 0) == {
        (0, (goods(), goods())), (1, (goods(), goods()))}


def test_mill_costs_four_wheat_and_yellow_scales_take_one_off_the_total():
    me = player(goods(wheat=4), workers=[2], equipment=[("barge", Y)])
    assert ref.build_outcomes(position(BUILD_FIELDS, [me, NOBODY]), 0) == {(2, (goods(), goods()))}
    me = player(goods(wheat=4), workers=[2], equipment=[("scales", Y)])
    assert ref.build_outcomes(position(BUILD_FIELDS, [me, NOBODY]), 0) == {(2, (goods(wheat=1), goods()))}


def test_stall_on_a_building():
    me = player(goods(red=1, wheat=3), workers=[3], equipment=[("barrel", R), ("market_stall", Y)])
    # 2 wheat + 2 red; the yellow stall may replace one red by a wheat.
    assert ref.build_outcomes(position(BUILD_FIELDS, [me, NOBODY]), 0) == {(3, (goods(), goods()))}


def test_next_vp_tile_counts_the_buildings_of_the_game():
    fields = many_fields(10)
    assert ref.next_vp_tile(position(fields, [player(), player()])) == 7
    assert ref.next_vp_tile(position(fields, [player(buildings=[0, 1]), player(buildings=[2])])) == 4
    assert ref.next_vp_tile(position(fields, [player(buildings=[0, 1, 2, 3]), player(buildings=[5, 6, 7])])) is None
    assert ref.next_vp_tile(position(fields, [player(buildings=[0, 1, 2, 3]), player(buildings=[5, 6])])) == 1


# ---------------------------------------------------------------------------
# Final scoring
# ---------------------------------------------------------------------------

def brute_triples(gd):
    best = 0

    def rec(g, n):
        nonlocal best
        best = max(best, n)
        for trio in itertools.combinations(range(6), 3):
            if all(g[c] for c in trio):
                h = list(g)
                for c in trio:
                    h[c] -= 1
                rec(tuple(h), n + 1)

    rec(tuple(gd), 0)
    return best


def test_goods_triples_hand_cases():
    assert ref.max_disjoint_triples(goods()) == 0
    assert ref.max_disjoint_triples(goods(red=9)) == 0
    assert ref.max_disjoint_triples(goods(red=9, orange=9)) == 0
    assert ref.max_disjoint_triples(goods(red=1, orange=1, green=1)) == 1
    assert ref.max_disjoint_triples(goods(red=5, orange=1, green=1)) == 1
    assert ref.max_disjoint_triples(goods(red=2, orange=2, green=2, wood=2, blue=2, wheat=2)) == 4
    assert ref.max_disjoint_triples(goods(red=6, orange=3, green=3)) == 3
    assert ref.max_disjoint_triples(goods(red=6, orange=2, green=2, wood=2)) == 3   # 3 non-red per red


def test_goods_triples_against_brute_force():
    rng = random.Random(7)
    for _ in range(150):
        gd = [0] * 6
        for _ in range(rng.randint(0, 11)):
            gd[rng.randrange(6)] += 1
        assert ref.max_disjoint_triples(gd) == brute_triples(gd), gd


# Scoring map: two villages; village 0 fields 0..4 in a row, village 1 fields 5..9 below.
#   row 0:  0 1 2 3 4      colours R O G W Y
#   row 1:  5 6 7 8 9      colours B Y R O G   (village 1)
SCORE_FIELDS = [fld(i, 0, 0, c) for i, c in enumerate([R, O, G, W, Y])] + \
               [fld(i, 1, 1, c) for i, c in enumerate([B, Y, R, O, G])]


def score(pl, others=()):
    return ref.score_breakdown(position(SCORE_FIELDS, [pl, *others]), 0)


def test_score_goods_tiles_equipment():
    s = score(player(goods(red=2, orange=1, green=1, wood=1, blue=1), vp_tiles=[7, 3],
                     equipment=[("cart", R), ("market_stall", O), ("barge", G), ("tool", W),
                                ("barrel", B), ("scales", Y)]))
    assert (s["goods"], s["vp_tiles"], s["equipment"]) == (2, 10, 1 + 2 + 4 + 3 + 5 + 6)
    assert s["goods_left"] == 0
    assert s["total"] == 2 + 10 + 21


def test_score_monastery_one_per_worker_on_the_map():
    s = score(player(workers=[5, 0, 1, 9], buildings=[5]))
    assert s["monastery"] == 4 and s["total"] == 4


def test_score_workshop_two_per_equipment_type():
    eq = [("cart", R), ("cart", B), ("barge", O), ("barge", Y), ("barrel", R), ("barrel", O),
          ("barrel", G), ("barrel", W)]
    s = score(player(buildings=[3], equipment=eq))
    assert s["workshop"] == 6                         # 2 carts, 2 barges, 4 barrels: 3 types
    assert s["equipment"] == 2 * 1 + 2 * 4 + 4 * 5
    all_types = [(t, R) for t in ref.EQUIPMENT_TYPES]
    assert score(player(buildings=[3], equipment=all_types))["workshop"] == 12


def test_score_tower_two_per_own_building():
    assert score(player(buildings=[2]))["tower"] == 2
    assert score(player(buildings=[2, 0, 3, 4]))["tower"] == 8


def test_score_castle_three_per_village_with_an_own_worker():
    assert score(player(buildings=[0], workers=[1, 2]))["castle"] == 3
    assert score(player(buildings=[0], workers=[1, 7]))["castle"] == 6
    assert score(player(buildings=[0], workers=[]))["castle"] == 0


def test_score_manor_three_per_own_worker_on_or_next_to_it_canal_included():
    # manor on field 1 (orange): neighbours 0, 2 (direct) and 6 (across the canal).
    s = score(player(buildings=[1], workers=[1, 0, 6, 3, 7]), [player(workers=[2])])
    assert s["manor"] == 9


def test_score_mill_four_per_own_worker_on_a_yellow_field():
    assert score(player(buildings=[4], workers=[4, 6, 0]))["mill"] == 8


def test_unbuilt_types_score_nothing():
    s = score(player(workers=[0, 4, 6]))
    assert all(s[name] == 0 for name in ref.BUILDING_OF_COLOUR)


def test_final_scores_and_winner_by_vp():
    pos = position(SCORE_FIELDS, [player(vp_tiles=[7]), player(vp_tiles=[6, 1]), player(vp_tiles=[2])])
    assert ref.final_scores(pos) == [7, 7, 2]


def test_tie_goes_to_more_goods_left_after_the_triples():
    # Both 3 VP from goods tiles/triples: player 0 holds 9 goods in 3 triples (0 left), player 1
    # holds 3 VP tile + 5 red (0 triples, 5 left): player 1 wins although holding fewer goods.
    p0 = player(goods(red=3, orange=3, green=3))
    p1 = player(goods(red=5), vp_tiles=[3])
    pos = position(SCORE_FIELDS, [p0, p1])
    assert ref.final_scores(pos) == [3, 3]
    assert ref.winners(pos) == [1]


def test_still_tied_winners_share():
    p0 = player(goods(red=4, orange=1, green=1), vp_tiles=[2])   # 1 triple, 3 left
    p1 = player(goods(wood=3), vp_tiles=[3])                     # 0 triples, 3 left
    p2 = player(goods(wood=9), vp_tiles=[3])                     # 0 triples, 9 left
    pos = position(SCORE_FIELDS, [p0, p1, player(vp_tiles=[1])])
    assert ref.winners(pos) == [0, 1]
    pos = position(SCORE_FIELDS, [p0, p1, p2])
    assert ref.winners(pos) == [2]


# ---------------------------------------------------------------------------
# Map check
# ---------------------------------------------------------------------------

# A legal 6-village map (villages 0..5 laid out as below, 7x7 box, 30 squares):
#   ....411
#   554441.
#   .54011.
#   355000.
#   333220.
#   ..32...
#   ..22...
MAP6 = [fld(x, y, v, c) for x, y, v, c in [
    (5, 4, 0, 5), (5, 3, 0, 1), (4, 3, 0, 2), (3, 3, 0, 3), (3, 2, 0, 4),
    (4, 2, 1, 4), (5, 2, 1, 3), (5, 1, 1, 5), (5, 0, 1, 2), (6, 0, 1, 1),
    (4, 4, 2, 0), (3, 4, 2, 5), (3, 5, 2, 4), (3, 6, 2, 2), (2, 6, 2, 3),
    (0, 3, 3, 3), (0, 4, 3, 2), (1, 4, 3, 0), (2, 4, 3, 5), (2, 5, 3, 4),
    (4, 0, 4, 1), (4, 1, 4, 0), (3, 1, 4, 3), (2, 1, 4, 4), (2, 2, 4, 5),
    (0, 1, 5, 5), (1, 1, 5, 4), (1, 2, 5, 1), (1, 3, 5, 0), (2, 3, 5, 3)]]


def zv(village, ox, oy, colours=(Y, O, G, W, B)):
    """A Z village ('XX./.X./.XX') with its top-left at (ox, oy); colours along the Z."""
    cells = [(0, 0), (1, 0), (1, 1), (1, 2), (2, 2)]
    return [fld(ox + x, oy + y, village, c) for (x, y), c in zip(cells, colours, strict=True)]


def test_z_shape_has_four_distinct_orientations():
    shapes = ref.z_orientations()
    assert len(shapes) == 4        # the Z is symmetric under a half turn
    assert frozenset(ref.Z_SHAPE) in shapes
    assert frozenset([(2, 0), (1, 0), (1, 1), (1, 2), (0, 2)]) in shapes            # S (mirror)
    assert frozenset([(0, 2), (0, 1), (1, 1), (2, 1), (2, 0)]) in shapes            # quarter turn
    assert frozenset([(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]) not in shapes        # a V


def test_legal_map_has_no_problems():
    assert ref.check_map(MAP6) == []


def test_map_village_shape():
    bad = [dict(f) for f in MAP6]
    bad[0]["x"], bad[0]["y"] = 6, 3      # village 0: (6,3) (5,3) (4,3) (3,3) (3,2) is an L, not a Z
    assert ref.check_map(bad) == ["village 0 is not the Z shape XX./.X./.XX"]


def test_map_village_colours():
    bad = [dict(f) for f in MAP6]
    bad[1]["colour"] = Y                  # village 0 now has two yellow fields
    assert ref.check_map(bad) == ["village 0 repeats a colour",
                                  "village 0 has 2 yellow fields, not exactly one"]
    bad = [dict(f) for f in MAP6]
    bad[0]["colour"] = R                  # five colours but no yellow
    assert ref.check_map(bad) == ["village 0 has 0 yellow fields, not exactly one"]


def test_map_two_fields_on_one_square():
    bad = [dict(f) for f in MAP6] + [fld(0, 1, 5, R)]
    assert "fields 25 and 30 lie on the same square (0, 1)" in ref.check_map(bad)


def test_map_disconnected():
    # MAP6 plus a legal-shaped village far to the right: not connected, box 26x7 too long,
    # and too empty; the new village borders nobody.
    far = MAP6 + zv(6, 23, 0, (Y, R, O, G, W))
    assert ref.check_map(far) == [
        "the map is not one edge-connected region",
        "the bounding box 26x7 is longer than 2:1",
        "35 squares fill less than half of the 26x7 bounding box",
        "village 6 borders 0 other villages, fewer than 2",
    ]


def test_map_with_an_enclosed_empty_square():
    # MAP6 with a 3-square village 9 at (6,2), (7,1), (7,0): the empty (6,1) is walled in by
    # (6,0), (5,1), (7,1), (6,2). Village 9 touches village 1 only.
    fields = MAP6 + [fld(6, 2, 9, R), fld(7, 1, 9, O), fld(7, 0, 9, G)]
    assert ref.check_map(fields) == [
        "village 9 is not the Z shape XX./.X./.XX",
        "village 9 has 0 yellow fields, not exactly one",
        "the map encloses empty squares [(6, 1)]",
        "village 9 borders 1 other villages, fewer than 2",
    ]


def test_map_compactness_ratio_and_fill():
    # A staircase of three Z villages, each touching the next: the box 9x7 is not too long
    # but 15 squares fill less than half of it; the end villages border 1 village each.
    stair = zv(0, 0, 0) + zv(1, 3, 2) + zv(2, 6, 4)
    assert ref.check_map(stair) == [
        "15 squares fill less than half of the 9x7 bounding box",
        "village 0 borders 1 other villages, fewer than 2",
        "village 2 borders 1 other villages, fewer than 2",
    ]
    # Ratio exactly 2:1 is allowed, above is not: a 2x4 block of 8 one-square "villages"
    # and a 2x5 one (only the box messages matter here).
    block = [fld(x, y, 10 * y + x, Y) for x in range(4) for y in range(2)]
    assert not any("bounding box" in p for p in ref.check_map(block))
    block = [fld(x, y, 10 * y + x, Y) for x in range(5) for y in range(2)]
    assert "the bounding box 5x2 is longer than 2:1" in ref.check_map(block)


# ---------------------------------------------------------------------------
# The search against a naive brute force
# ---------------------------------------------------------------------------

def product_within(option_lists, budget):
    """itertools.product of the option lists, skipping choices of more than `budget` goods."""
    if not option_lists:
        yield ()
        return
    for opt in option_lists[0]:
        if len(opt) <= budget:
            for rest in product_within(option_lists[1:], budget - len(opt)):
                yield (opt,) + rest


def naive_travel_outcomes(pos, player_index, move):
    """Every simple path x every option per obligation x every stall use, no pruning."""
    fields = pos["fields"]
    players = pos["players"]
    me = players[player_index]
    at = {(f["x"], f["y"]): i for i, f in enumerate(fields)}
    worker_at = {w: q for q, p in enumerate(players) for w in p["workers"]}
    own = [(t, c) for t, c in me["equipment"]]
    carts = [(player_index, c) for t, c in own if t == "cart"]
    barges = [(player_index, c) for t, c in own if t == "barge"]
    for q, p in enumerate(players):
        if q != player_index:
            carts += [(q, c) for t, c in p["equipment"] if t == "cart"]
            barges += [(q, c) for t, c in p["equipment"] if t == "barge"]
    scales = {c for t, c in own if t == "scales"}
    stalls = [c for t, c in own if t == "market_stall"]
    number = len(me["workers"]) + 1
    results = set()
    if move:
        origins = list(me["workers"])
    else:
        if not me["workers"] or number > 10:
            return results
        origins = list(me["workers"])
    wheat = 0 if move else [0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 4][number]

    def neighbours(i):
        x, y = fields[i]["x"], fields[i]["y"]
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            j = at.get((x + dx, y + dy))
            if j is not None:
                yield j

    def paths(path):
        for j in neighbours(path[-1]):
            if j in path:
                continue
            yield path + [j]
            yield from paths(path + [j])

    for origin in origins:
        for path in paths([origin]):
            target = path[-1]
            if target in worker_at:
                continue
            # obligations: list of option lists; an option is a list of unit goods (recipient, colour)
            obligations = []
            if wheat:
                obligations.append([[("S", 5)] * wheat])
            for a, b in zip(path, path[1:], strict=False):
                if fields[a]["village"] != fields[b]["village"]:
                    opts = [[("S", 5), ("S", 5)]]
                    for q, c in barges:
                        opts.append([("S" if q == player_index else q, c)])
                    obligations.append(opts)
            for mid in path[1:-1]:
                c0 = fields[mid]["colour"]
                q0 = worker_at.get(mid)
                if q0 is None or q0 == player_index:
                    opts = [[("S", c0), ("S", c0)]]
                else:
                    opts = [[(q0, c0), ("S", c0)]]
                for q, c in carts:
                    opts.append([("S" if q == player_index else q, c)])
                obligations.append(opts)
            budget = sum(me["goods"]) + len(scales)   # scales save at most one good each
            if len(obligations) > budget:
                continue                              # every obligation costs at least 1 good
            for choice in product_within(obligations, budget):
                units = [u for opt in choice for u in opt]
                for c in scales:
                    if sum(1 for u in units if u == ("S", c)) > 1:
                        units.remove(("S", c))
                # stall uses: each stall picks a distinct unit index or nothing
                for picks in itertools.product(*[[None] + list(range(len(units)))] * len(stalls)):
                    chosen = [p for p in picks if p is not None]
                    if len(set(chosen)) != len(chosen):
                        continue
                    paid = list(units)
                    for s, p in zip(stalls, picks, strict=True):
                        if p is not None:
                            paid[p] = (paid[p][0], s)
                    rows = [list(p["goods"]) for p in players]
                    for who, c in paid:
                        rows[player_index][c] -= 1
                        if who != "S":
                            rows[who][c] += 1
                    if min(rows[player_index]) < 0:
                        continue
                    rows[player_index][fields[target]["colour"]] += 1
                    base = tuple(tuple(r) for r in rows)
                    finals = [base]
                    if not move and number in (8, 9):
                        mine = base[player_index]
                        for give in range(6):
                            for take in range(6):
                                if mine[give] and give != take:
                                    r2 = [list(r) for r in base]
                                    r2[player_index][give] -= 1
                                    r2[player_index][take] += 1
                                    finals.append(tuple(tuple(r) for r in r2))
                    for fin in finals:
                        if move:
                            results.add((origin, target, fin))
                        else:
                            results.add((target, fin, number == 10))
    return results


def random_small_position(rng):
    """Two to four small villages (rows of 3 squares) and 2-3 players with few goods."""
    nv = rng.randint(2, 4)
    fields = []
    for v in range(nv):
        for k in range(3):
            fields.append(fld(k, v, v if rng.random() < 0.8 else (v + 1) % nv, rng.randrange(6)))
    n = rng.randint(2, 3)
    free = list(range(len(fields)))
    rng.shuffle(free)
    equipment = [(t, c) for t in ("cart", "barge", "market_stall", "scales") for c in range(6)]
    rng.shuffle(equipment)
    players = []
    for q in range(n):
        count = rng.randint(1 if q == 0 else 0, 2)
        if q == 0 and rng.random() < 0.3:
            count = rng.choice([4, 5, 7, 8, 9])   # placement wheat, exchanges, the 10th worker
        workers = [free.pop() for _ in range(min(count, len(free) - 1))]
        gd = [0] * 6
        for _ in range(rng.randint(0, 7)):
            gd[rng.randrange(6)] += 1
        if count >= 7:
            gd[Y] += 4                             # enough for the placement wheat
        eq = [equipment.pop() for _ in range(rng.randint(0, 2))]
        players.append(player(gd, workers, eq))
    return position(fields, players)


def test_place_and_move_match_a_naive_brute_force_on_random_small_positions():
    rng = random.Random(2025)
    checked = 0
    nonempty = 0
    for _ in range(250):
        pos = random_small_position(rng)
        for q in range(len(pos["players"])):
            got_move = ref.move_outcomes(pos, q)
            assert got_move == naive_travel_outcomes(pos, q, move=True)
            got_place = ref.place_outcomes(pos, q)
            assert got_place == naive_travel_outcomes(pos, q, move=False)
            checked += 1
            nonempty += bool(got_move) + bool(got_place)
    assert checked > 500 and nonempty > 300
