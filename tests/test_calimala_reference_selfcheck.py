"""Self-checks of the plain-Python Calimala reference (tests/reference/calimala_reference.py)
against hand-worked cases from the rules page (docs/rules/calimala.md) and the rulebook's
extended example. Every expectation is an exact number worked out by hand."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from reference import calimala_reference as ref

COUNCIL = ref.COUNCIL


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def position(n: int = 3) -> dict:
    return ref.new_position(n)


def set_seats(pos: dict, order: list[int]) -> None:
    """Give the council seats in this order (first seat first)."""
    pos["seat_order"] = list(order)
    for i, p in enumerate(pos["players"]):
        p["seats"] = order.count(i)


def set_council_art(pos: dict, order: list[int]) -> None:
    """Put artworks on the Palazzo Vecchio in this order (first first)."""
    pos["council_artwork_order"] = list(order)
    for i, p in enumerate(pos["players"]):
        p["artworks"][COUNCIL] = order.count(i)


def award(values: list[int], pos: dict) -> list[int]:
    return ref.rank_award(values, pos, (3, 2, 1))


def final_award(values: list[int], pos: dict) -> list[int]:
    return ref.rank_award(values, pos, (5, 3, 1))


def fill_ports(player: dict) -> None:
    """36 cubes: all 12 slots of the three port cities (leaves the player a reserve of 4)."""
    for c in ref.PORT_CITIES:
        player["cloth"][c] = 12


# ---------------------------------------------------------------------------
# categories
# ---------------------------------------------------------------------------


def test_category_names_are_the_15_tiles():
    pos = position()
    assert set(ref.category_values(pos)) == set(ref.CATEGORIES)
    assert len(ref.CATEGORIES) == 15
    assert set(ref.CATEGORIES) == {
        "Barcelona", "Lisbon", "London", "Troyes", "Bruges", "Hamburg",
        "Santa Maria del Fiore", "San Miniato", "Santa Croce",
        "Artwork", "Port cities", "Trade cities",
        "Contributed wood", "Contributed brick", "Contributed marble",
    }  # fmt: skip


def worked_position() -> dict:
    pos = position(3)
    a, b, c = pos["players"]
    a["cloth"].update(Barcelona=3, Lisbon=1, London=0, Troyes=2, Bruges=0, Hamburg=4)
    b["cloth"].update(Barcelona=0, Lisbon=5, London=2, Troyes=0, Bruges=1, Hamburg=0)
    c["cloth"].update(Barcelona=1, Lisbon=0, London=0, Troyes=0, Bruges=0, Hamburg=1)
    a["contributions"]["Santa Maria del Fiore"].update(wood=2, brick=1, marble=0)
    a["contributions"]["San Miniato"].update(wood=0, brick=0, marble=1)
    b["contributions"]["Santa Croce"].update(wood=1, brick=3, marble=2)
    b["contributions"]["Santa Maria del Fiore"].update(wood=0, brick=0, marble=3)
    c["contributions"]["San Miniato"].update(wood=2, brick=1, marble=0)
    a["artworks"]["Santa Maria del Fiore"] = 1
    b["artworks"]["San Miniato"] = 2
    c["artworks"]["Santa Croce"] = 1
    set_council_art(pos, [2, 0, 2])  # c 2 council artworks, a 1
    return pos


def test_category_values_every_category():
    v = ref.category_values(worked_position())
    assert v["Barcelona"] == [3, 0, 1]
    assert v["Lisbon"] == [1, 5, 0]
    assert v["London"] == [0, 2, 0]
    assert v["Troyes"] == [2, 0, 0]
    assert v["Bruges"] == [0, 1, 0]
    assert v["Hamburg"] == [4, 0, 1]
    # church = its contributions (all rows) + its artworks
    assert v["Santa Maria del Fiore"] == [2 + 1 + 1, 3, 0]
    assert v["San Miniato"] == [1, 2, 3]
    assert v["Santa Croce"] == [0, 6, 1]
    # Artwork = artworks on all 4 buildings, council included
    assert v["Artwork"] == [1 + 1, 2, 1 + 2]
    assert v["Port cities"] == [4, 7, 1]
    assert v["Trade cities"] == [6, 1, 1]
    assert v["Contributed wood"] == [2, 1, 2]
    assert v["Contributed brick"] == [1, 3, 1]
    # artworks are marble cubes but not contributions
    assert v["Contributed marble"] == [1, 5, 0]


def test_council_scoring_uses_the_category():
    pos = worked_position()
    assert ref.council_scoring(pos, "Lisbon") == [2, 3, 0]
    assert ref.council_scoring(pos, "Port cities") == [2, 3, 1]
    assert ref.council_scoring(pos, "Santa Croce") == [0, 3, 2]
    # Artwork 2 / 2 / 3: a and b tied, no seats; a has 1 council artwork (sum 1), b none -> a ahead
    assert ref.council_scoring(pos, "Artwork") == [2, 1, 3]
    assert ref.council_scoring(pos, "Contributed marble") == [2, 3, 0]


# ---------------------------------------------------------------------------
# council 3/2/1
# ---------------------------------------------------------------------------


def test_three_two_one_distinct_values():
    assert award([2, 5, 1], position(3)) == [2, 3, 1]
    assert award([1, 4, 3, 2, 9], position(5)) == [0, 2, 1, 0, 3]


def test_nobody_scores_with_zero():
    assert award([0, 0, 0], position(3)) == [0, 0, 0]
    assert award([0, 4, 0], position(3)) == [0, 3, 0]
    assert award([2, 0, 0, 1], position(4)) == [3, 0, 0, 2]


def test_zero_with_seats_exact():
    pos = position(3)
    set_seats(pos, [0, 0, 0])
    # a has 3 seats but value 0: no points; b and c fully tied share (3+2)//2 = 2
    assert award([0, 1, 1], pos) == [0, 2, 2]


def test_higher_value_beats_any_tie_break():
    pos = position(3)
    set_seats(pos, [0, 0])
    set_council_art(pos, [0])
    assert award([1, 2, 0], pos) == [2, 3, 0]


def test_tie_step1_higher_seats_plus_council_artworks():
    pos = position(3)
    set_seats(pos, [1])  # b: 1 seat, sum 1
    set_council_art(pos, [0, 0])  # a: 0 seats + 2 council artworks, sum 2
    assert award([4, 4, 1], pos) == [3, 2, 1]
    # reversed: b 2 seats (sum 2) vs a 0 seats + 1 council artwork (sum 1)
    pos2 = position(3)
    set_seats(pos2, [1, 1])
    set_council_art(pos2, [0])
    assert award([4, 4, 1], pos2) == [2, 3, 1]


def test_tie_step2_more_seats_when_sums_equal():
    pos = position(3)
    set_seats(pos, [0, 0, 1])  # a 2 seats, b 1 seat
    set_council_art(pos, [1])  # b 1 council artwork: both sums 2
    assert award([3, 3, 0], pos) == [3, 2, 0]
    pos2 = position(3)
    set_seats(pos2, [1, 1, 0])  # b 2 seats, a 1 seat + 1 art
    set_council_art(pos2, [0])
    assert award([3, 3, 0], pos2) == [2, 3, 0]


def test_tie_step3_who_first_reached_the_seat_count():
    pos = position(3)
    set_seats(pos, [1, 0])  # one seat each, b's first
    assert award([2, 2, 2], pos) == [2, 3, 1]
    # 2 seats each: a took the first seat, but b reached 2 seats first (index 2 < 3)
    pos2 = position(3)
    set_seats(pos2, [0, 1, 1, 0])
    assert award([2, 2, 0], pos2) == [2, 3, 0]
    pos3 = position(3)
    set_seats(pos3, [1, 0, 0, 1])
    assert award([2, 2, 0], pos3) == [3, 2, 0]


def test_tie_step3_comes_before_council_artwork_order():
    pos = position(3)
    set_seats(pos, [0, 1])  # a reached 1 seat first
    set_council_art(pos, [1, 0])  # b placed the first council artwork
    assert award([5, 5, 0], pos) == [3, 2, 0]


def test_tie_step4_no_seats_first_council_artwork():
    pos = position(3)
    set_council_art(pos, [2, 1])  # one each for c and b, c first; a none (sum 0, third)
    assert award([1, 1, 1], pos) == [1, 2, 3]
    # 2 each: a placed the very first one; b reached 2 first but that does not count here
    pos2 = position(3)
    set_council_art(pos2, [0, 1, 1, 0])
    assert award([6, 6, 0], pos2) == [3, 2, 0]
    pos3 = position(3)
    set_council_art(pos3, [1, 0, 0, 1])
    assert award([6, 6, 0], pos3) == [2, 3, 0]


def test_tie_step4_one_each_exact():
    pos = position(3)
    set_council_art(pos, [2, 1, 0])  # c first, then b, then a
    assert award([1, 1, 1], pos) == [1, 2, 3]


def test_tie_step5_split_rounded_down():
    pos = position(3)  # nobody has seats or council artworks
    assert award([4, 4, 1], pos) == [2, 2, 1]  # (3+2)//2
    assert award([3, 3, 3], pos) == [2, 2, 2]  # (3+2+1)//3
    assert award([5, 2, 2], pos) == [3, 1, 1]  # (2+1)//2
    assert award([5, 4, 2, 2], position(4)) == [3, 2, 0, 0]  # places 3 and 4: (1+0)//2
    assert award([1, 1, 1, 1, 1], position(5)) == [1, 1, 1, 1, 1]  # (3+2+1+0+0)//5
    assert award([1, 1, 1, 1], position(4)) == [1, 1, 1, 1]  # (3+2+1+0)//4
    assert award([2, 0, 2, 2, 0], position(5)) == [2, 0, 2, 2, 0]


def test_tie_split_after_partial_tie_break():
    pos = position(3)
    set_seats(pos, [2])  # c wins the three-way tie, a and b still tied for places 2 and 3
    assert award([3, 3, 3], pos) == [1, 1, 3]
    pos4 = position(4)
    set_seats(pos4, [3])  # d ahead; a, b, c share places 2, 3, 4: (2+1+0)//3
    assert award([2, 2, 2, 2], pos4) == [1, 1, 1, 3]


def test_tied_players_with_equal_council_artworks_but_no_seats_and_none_placed():
    # no seats and no council artworks: split even if they hold artworks on churches
    pos = position(3)
    pos["players"][0]["artworks"]["Santa Croce"] = 1
    assert award([2, 2, 0], pos) == [2, 2, 0]


# ---------------------------------------------------------------------------
# the rulebook's extended example: Lisbon
# ---------------------------------------------------------------------------


def test_extended_example_lisbon():
    pos = position(3)
    angelika, marion, tanja = pos["players"]
    angelika["cloth"]["Lisbon"] = 2
    marion["cloth"]["Lisbon"] = 2
    tanja["cloth"]["Lisbon"] = 1
    marion["artworks"]["Santa Croce"] = 2  # her two artworks of the turn
    angelika["artworks"]["San Miniato"] = 1
    set_seats(pos, [1])  # Marion's disc was just put on the Lisbon tile
    assert ref.council_scoring(pos, "Lisbon") == [2, 3, 1]


# ---------------------------------------------------------------------------
# final cards 5/3/1
# ---------------------------------------------------------------------------


def test_final_card_values():
    pos = worked_position()
    set_seats(pos, [1, 1, 0])
    assert ref.final_card_values(pos, "Hamburg") == [4, 0, 1]
    assert ref.final_card_values(pos, "Santa Croce") == [0, 6, 1]
    assert ref.final_card_values(pos, "San Miniato") == [1, 2, 3]
    assert ref.final_card_values(pos, "Santa Maria del Fiore") == [4, 3, 0]
    assert ref.final_card_values(pos, COUNCIL) == [1 + 1, 2 + 0, 0 + 2]
    assert set(ref.FINAL_CARDS) == set(ref.CITIES) | {COUNCIL, "Santa Croce", "Santa Maria del Fiore", "San Miniato"}


def test_final_five_three_one():
    pos = worked_position()
    assert ref.final_scoring(pos, ["Lisbon"]) == [3, 5, 0]
    assert ref.final_scoring(pos, ["San Miniato"]) == [1, 3, 5]
    assert ref.final_scoring(pos, ["Lisbon", "San Miniato", "Barcelona"]) == [3 + 1 + 5, 5 + 3 + 0, 0 + 5 + 3]
    assert ref.final_scoring(pos, []) == [0, 0, 0]


def test_final_church_counts_contributions_and_artworks():
    pos = position(3)
    pos["players"][0]["contributions"]["Santa Croce"]["wood"] = 1
    pos["players"][1]["artworks"]["Santa Croce"] = 3
    pos["players"][2]["contributions"]["Santa Croce"]["marble"] = 1
    pos["players"][2]["artworks"]["Santa Croce"] = 1
    assert ref.final_scoring(pos, ["Santa Croce"]) == [1, 5, 3]


def test_final_palazzo_vecchio_seats_plus_artworks_tie_by_seats():
    pos = position(3)
    set_seats(pos, [0, 1, 0])  # a 2 seats, b 1 seat
    set_council_art(pos, [1, 2])  # b 1 art (sum 2), c 1 art (sum 1)
    assert ref.final_card_values(pos, COUNCIL) == [2, 2, 1]
    assert ref.final_scoring(pos, [COUNCIL]) == [5, 3, 1]
    # equal seats and sums: the one who reached the seat count first
    pos2 = position(3)
    set_seats(pos2, [1, 0])
    set_council_art(pos2, [0, 1])
    assert ref.final_scoring(pos2, [COUNCIL]) == [3, 5, 0]


def test_final_ties():
    pos = position(4)  # no seats, no council artworks
    assert final_award([3, 3, 1, 0], pos) == [4, 4, 1, 0]  # (5+3)//2
    assert final_award([3, 2, 2, 0], pos) == [5, 2, 2, 0]  # (3+1)//2
    assert final_award([1, 1, 1, 0], pos) == [3, 3, 3, 0]  # (5+3+1)//3
    assert final_award([4, 3, 1, 1], pos) == [5, 3, 0, 0]  # (1+0)//2
    assert final_award([1, 1, 1, 1], pos) == [2, 2, 2, 2]  # (5+3+1+0)//4
    set_council_art(pos, [3, 2])  # no seats: d's council artwork came first
    assert ref.final_scoring(pos, ["Troyes"]) == [0, 0, 0, 0]
    for p, v in zip(pos["players"], [2, 2, 2, 2], strict=True):
        p["cloth"]["Troyes"] = v
    # d (1 art) and c (1 art) ahead of a and b (sum 0); d placed first; a, b share (1+0)//2
    assert ref.final_scoring(pos, ["Troyes"]) == [0, 0, 3, 5]


def test_final_tie_by_first_reached_seat_count():
    pos = position(3)
    set_seats(pos, [2, 0, 0, 2])  # a and c 2 seats; a reached 2 at index 2, c at 3
    for p in pos["players"]:
        p["cloth"]["London"] = 1
    assert ref.final_scoring(pos, ["London"]) == [5, 1, 3]


# ---------------------------------------------------------------------------
# winner
# ---------------------------------------------------------------------------


def test_winner_most_vp():
    pos = position(3)
    set_seats(pos, [1, 1, 1])
    for p, vp in zip(pos["players"], [41, 40, 12], strict=True):
        p["vp"] = vp
    assert ref.winners(pos) == [0]


def test_winner_tie_by_seats_plus_council_artworks():
    pos = position(3)
    set_seats(pos, [0])  # a: 1
    set_council_art(pos, [1, 1])  # b: 2
    for p, vp in zip(pos["players"], [40, 40, 39], strict=True):
        p["vp"] = vp
    assert ref.winners(pos) == [1]


def test_winner_still_tied_is_shared():
    pos = position(4)
    set_seats(pos, [0, 0])  # a: 2 seats
    set_council_art(pos, [2, 2])  # c: 2 council artworks -- more seats does not break it
    for p, vp in zip(pos["players"], [30, 28, 30, 30], strict=True):
        p["vp"] = vp
    assert ref.winners(pos) == [0, 2]
    pos2 = position(3)
    assert ref.winners(pos2) == [0, 1, 2]


# ---------------------------------------------------------------------------
# can_carry_out
# ---------------------------------------------------------------------------


def test_resource_actions():
    pos = position(3)
    me = pos["players"][0]
    assert ref.can_carry_out(pos, 0, "Wood")
    me["warehouse"]["wood"] = 4
    assert not ref.can_carry_out(pos, 0, "Wood")
    assert ref.can_carry_out(pos, 0, "Brick")
    assert ref.can_carry_out(pos, 0, "Marble")
    me["warehouse"]["marble"] = 3
    assert ref.can_carry_out(pos, 0, "Marble")


def reserve_empty_position() -> dict:
    """Player 0 has all 40 cubes placed: 36 cloth in the ports, 2 brick, 2 marble."""
    pos = position(3)
    me = pos["players"][0]
    fill_ports(me)
    me["warehouse"].update(wood=0, brick=2, marble=2)
    assert ref.reserve(pos, 0) == 0
    return pos


def test_empty_reserve_blocks_only_cube_from_reserve():
    pos = reserve_empty_position()
    assert not ref.can_carry_out(pos, 0, "Wood")
    assert not ref.can_carry_out(pos, 0, "Brick")
    assert not ref.can_carry_out(pos, 0, "Marble")
    assert not ref.can_carry_out(pos, 0, "Weave")  # the workshop has room
    assert ref.can_carry_out(pos, 0, "Build")  # trade house: 2 brick back to the reserve
    assert ref.can_carry_out(pos, 0, "Artwork")
    assert ref.can_carry_out(pos, 0, "Contribute")
    assert not ref.can_carry_out(pos, 0, "Ship")  # no ship (and the ports are full)
    assert not ref.can_carry_out(pos, 0, "Transport")


def test_weave():
    pos = position(3)
    me = pos["players"][0]
    me["workshops"] = [4]
    assert not ref.can_carry_out(pos, 0, "Weave")
    me["workshops"] = [4, 3]
    assert ref.can_carry_out(pos, 0, "Weave")
    me["workshops"] = [4, 4, 4]
    assert not ref.can_carry_out(pos, 0, "Weave")


def test_weave_with_too_few_reserve_cubes_fills_the_emptiest_workshops_first():
    """Rules page, "The actions", Weave: "with too few cubes in the reserve for every workshop, the
    emptiest workshops get theirs first" -- one outcome, not the player's pick."""
    pos = position(3)
    me = pos["players"][0]
    fill_ports(me)
    me["workshops"] = [2, 0, 0]  # 38 cubes placed: 2 in reserve for 3 workshops with room
    me["hand"] = ["Weave"]
    outcomes = ref._outcomes(ref._mat_state(pos, 0), "Weave")
    assert [(mat[1], mat[4]) for mat in outcomes] == [((1, 1, 2), 0)]  # (workshops sorted, reserve)


def test_ship():
    pos = position(3)
    me = pos["players"][0]
    me["workshops"] = [1]
    assert not ref.can_carry_out(pos, 0, "Ship")  # no ship
    me["ships"] = 1
    assert ref.can_carry_out(pos, 0, "Ship")
    me["workshops"] = [0]
    assert not ref.can_carry_out(pos, 0, "Ship")  # no cloth
    me["workshops"] = [0, 2]
    assert ref.can_carry_out(pos, 0, "Ship")
    other = pos["players"][1]
    fill_ports(other)  # all port slots filled
    assert not ref.can_carry_out(pos, 0, "Ship")
    other["cloth"]["London"] = 11
    assert ref.can_carry_out(pos, 0, "Ship")


def test_build():
    pos = position(3)
    me = pos["players"][0]
    assert not ref.can_carry_out(pos, 0, "Build")
    me["warehouse"].update(wood=1)
    assert not ref.can_carry_out(pos, 0, "Build")
    me["warehouse"].update(wood=2)
    assert ref.can_carry_out(pos, 0, "Build")  # ship
    me["ships"] = 3
    assert not ref.can_carry_out(pos, 0, "Build")
    me["warehouse"].update(wood=1, brick=1)
    assert ref.can_carry_out(pos, 0, "Build")  # workshop
    me["workshops"] = [0, 0, 0]
    assert not ref.can_carry_out(pos, 0, "Build")
    me["warehouse"].update(wood=0, brick=2)
    me["trade_houses"] = {"Troyes", "Bruges"}
    assert ref.can_carry_out(pos, 0, "Build")  # trade house in Hamburg
    me["trade_houses"] = {"Troyes", "Bruges", "Hamburg"}
    assert not ref.can_carry_out(pos, 0, "Build")


def test_artwork():
    pos = position(3)
    me = pos["players"][0]
    assert not ref.can_carry_out(pos, 0, "Artwork")
    me["warehouse"]["marble"] = 1
    assert ref.can_carry_out(pos, 0, "Artwork")
    b, c = pos["players"][1], pos["players"][2]
    b["artworks"].update({"Santa Maria del Fiore": 5, "San Miniato": 3, "Santa Croce": 4})
    c["artworks"].update({COUNCIL: 3})
    set_council_art(pos, [2, 2, 2])
    assert ref.can_carry_out(pos, 0, "Artwork")  # one council slot left
    set_council_art(pos, [2, 2, 2, 1])
    assert not ref.can_carry_out(pos, 0, "Artwork")


def test_transport():
    pos = position(3)
    me = pos["players"][0]
    me["workshops"] = [2]
    assert not ref.can_carry_out(pos, 0, "Transport")  # no trade house
    me["trade_houses"] = {"Bruges"}
    assert ref.can_carry_out(pos, 0, "Transport")
    me["workshops"] = [0, 0]
    assert not ref.can_carry_out(pos, 0, "Transport")  # no cloth
    me["workshops"] = [0, 1]
    pos["players"][1]["cloth"]["Bruges"] = 12  # Bruges full
    assert not ref.can_carry_out(pos, 0, "Transport")
    pos["players"][2]["cloth"]["Troyes"] = 12  # a free slot elsewhere does not help
    me["trade_houses"] = {"Bruges", "Hamburg"}
    assert ref.can_carry_out(pos, 0, "Transport")


def test_contribute():
    pos = position(3)
    me = pos["players"][0]
    assert not ref.can_carry_out(pos, 0, "Contribute")
    me["warehouse"]["wood"] = 1
    assert ref.can_carry_out(pos, 0, "Contribute")
    b = pos["players"][1]
    for ch, cap in (("Santa Maria del Fiore", 5), ("San Miniato", 3), ("Santa Croce", 4)):
        b["contributions"][ch]["wood"] = cap  # every wood row full
    assert not ref.can_carry_out(pos, 0, "Contribute")
    me["warehouse"]["marble"] = 1
    assert ref.can_carry_out(pos, 0, "Contribute")


def test_validate_rejects_inconsistent_positions():
    pos = position(3)
    pos["players"][0]["seats"] = 1  # but seat_order is empty
    with pytest.raises(ValueError):
        ref.category_values(pos)
    pos = position(3)
    pos["players"][1]["reserve"] = 39
    with pytest.raises(ValueError):
        ref.can_carry_out(pos, 1, "Wood")
    pos["players"][1]["reserve"] = 40
    assert ref.can_carry_out(pos, 1, "Wood")
    pos = position(3)
    pos["players"][0]["cloth"]["Lisbon"] = 7
    pos["players"][1]["cloth"]["Lisbon"] = 6  # 13 > 12 slots
    with pytest.raises(ValueError):
        ref.council_scoring(pos, "Lisbon")


# ---------------------------------------------------------------------------
# placement_spaces
# ---------------------------------------------------------------------------


def test_placement_direct():
    pos = position(3)
    spaces = [("Wood", "Ship"), ("Ship", "Transport"), ("Artwork", "Contribute"), ("Build", "Weave")]
    assert ref.placement_spaces(pos, 0, spaces) == {0, 3}


def nothing_possible_position() -> dict:
    """Player 0: reserve 0 (36 cloth in ports + 4 wood contributed), empty warehouses, 1 empty
    workshop, no ship, no trade house: no action can be carried out."""
    pos = position(3)
    me = pos["players"][0]
    fill_ports(me)
    me["contributions"]["Santa Maria del Fiore"]["wood"] = 4
    assert ref.reserve(pos, 0) == 0
    return pos


def test_placement_anywhere_when_nothing_is_possible():
    pos = nothing_possible_position()
    assert not any(ref.can_carry_out(pos, 0, a) for a in ref.ACTIONS)
    spaces = [("Wood", "Ship"), ("Ship", "Transport"), ("Artwork", "Contribute")]
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1, 2}
    pos["players"][0]["hand"] = ["Wood", "Marble", "Weave"]  # none of them playable
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1, 2}


def test_placement_two_cards_then_build():
    pos = position(3)
    spaces = [("Ship", "Transport"), ("Build", "Transport"), ("Wood", "Weave")]
    assert ref.placement_spaces(pos, 0, spaces) == {2}
    pos["players"][0]["hand"] = ["Wood"]
    assert ref.placement_spaces(pos, 0, spaces) == {2}
    pos["players"][0]["hand"] = ["Wood", "Wood"]
    assert ref.placement_spaces(pos, 0, spaces) == {1, 2}
    pos["players"][0]["hand"] = {"Wood": 1, "Brick": 1}  # workshop
    assert ref.placement_spaces(pos, 0, spaces) == {1, 2}


def test_placement_long_chain_for_transport():
    pos = position(3)
    spaces = [("Transport", "Ship"), ("Ship", "Artwork"), ("Wood", "Marble")]
    pos["players"][0]["hand"] = ["Brick", "Brick", "Build"]  # trade house, but no cloth
    assert ref.placement_spaces(pos, 0, spaces) == {2}
    pos["players"][0]["hand"] = ["Weave", "Build", "Brick", "Brick"]
    assert ref.placement_spaces(pos, 0, spaces) == {0, 2}


def test_placement_build_card_needs_cards_first():
    pos = position(3)
    pos["players"][0]["workshops"] = [1]
    spaces = [("Ship", "Transport"), ("Artwork", "Contribute"), ("Wood", "Weave")]
    pos["players"][0]["hand"] = ["Build", "Wood"]  # Build unplayable, one Wood is not enough
    assert ref.placement_spaces(pos, 0, spaces) == {1, 2}  # Contribute after the Wood card
    pos["players"][0]["hand"] = ["Build", "Wood", "Wood"]
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1, 2}  # ship built, then Ship


def test_placement_build_card_frees_the_reserve():
    pos = position(3)
    me = pos["players"][0]
    fill_ports(me)
    me["warehouse"].update(wood=2, brick=2)
    assert ref.reserve(pos, 0) == 0
    spaces = [("Wood", "Weave"), ("Ship", "Transport"), ("Contribute", "Marble")]
    assert ref.placement_spaces(pos, 0, spaces) == {2}
    me["hand"] = ["Build"]  # ship or trade house or workshop: 2 cubes back to the reserve
    assert ref.placement_spaces(pos, 0, spaces) == {0, 2}


def test_placement_unplayable_card_does_not_help():
    pos = position(3)
    me = pos["players"][0]
    fill_ports(me)
    me["contributions"]["San Miniato"]["brick"] = 2
    me["warehouse"]["brick"] = 2  # reserve 0
    me["hand"] = ["Marble"]
    spaces = [("Artwork", "Ship"), ("Build", "Weave")]
    assert ref.placement_spaces(pos, 0, spaces) == {1}
    me["contributions"]["San Miniato"]["brick"] = 1  # reserve 1: the Marble card is playable
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1}


def test_placement_build_choice_workshop_for_weave():
    pos = position(3)
    me = pos["players"][0]
    me["workshops"] = [4]
    me["warehouse"].update(wood=1, brick=1)
    spaces = [("Weave", "Ship"), ("Build", "Artwork"), ("Transport", "Ship")]
    assert ref.placement_spaces(pos, 0, spaces) == {1}
    me["hand"] = ["Build"]  # builds a workshop with room
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1}
    me["hand"] = ["Build", "Build"]  # not enough for a second build, Transport still impossible
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1}


def test_placement_order_of_cards_is_searched():
    # Transport needs the trade house (Brick, Brick, Build) and the one cloth; the Ship card
    # (1 ship, 1 cloth) is playable but would use the cloth up: the search must also try
    # sequences without it
    pos = position(3)
    me = pos["players"][0]
    me["ships"] = 1
    me["workshops"] = [1]
    me["hand"] = ["Ship", "Brick", "Brick", "Build"]
    spaces = [("Transport", "Artwork"), ("Weave", "Artwork")]
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1}
    me["hand"] = ["Ship", "Brick", "Build"]  # only one brick: no trade house
    assert ref.placement_spaces(pos, 0, spaces) == {1}
    me["hand"] = ["Ship", "Brick", "Brick", "Build"]
    pos["players"][1]["cloth"].update(Troyes=12, Bruges=12, Hamburg=12)  # no free trade-city slot
    assert ref.placement_spaces(pos, 0, spaces) == {1}


def test_placement_other_player_is_independent():
    pos = position(4)
    pos["players"][3]["hand"] = ["Wood", "Wood"]
    spaces = [("Build", "Transport"), ("Wood", "Ship")]
    assert ref.placement_spaces(pos, 3, spaces) == {0, 1}
    assert ref.placement_spaces(pos, 2, spaces) == {1}


@pytest.mark.parametrize(
    "setup",
    [
        # only a ship can be built: no brick, all 3 workshops built
        {"warehouse": {"wood": 2, "brick": 0, "marble": 0}, "workshops": [1, 1, 0]},
        # only a trade house: 2 brick, no wood (no cloth, so Transport stays impossible)
        {"warehouse": {"wood": 0, "brick": 2, "marble": 0}, "workshops": [0], "contributed_wood": 2},
        # only a workshop: 1 wood + 1 brick
        {"warehouse": {"wood": 1, "brick": 1, "marble": 0}, "workshops": [2]},
    ],
    ids=["ship", "trade-house", "workshop"],
)
def test_placement_each_build_returns_its_cubes_to_the_reserve(setup):
    pos = position(3)
    me = pos["players"][0]
    fill_ports(me)
    me["warehouse"] = dict(setup["warehouse"])
    me["workshops"] = list(setup["workshops"])
    me["contributions"]["San Miniato"]["wood"] = setup.get("contributed_wood", 0)
    assert ref.reserve(pos, 0) == 0
    spaces = [("Marble", "Artwork"), ("Ship", "Transport")]
    assert not ref.can_carry_out(pos, 0, "Marble")
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1}  # nothing possible: anywhere
    spaces.append(("Build", "Weave"))
    assert ref.placement_spaces(pos, 0, spaces) == {2}
    me["hand"] = ["Build"]
    assert ref.placement_spaces(pos, 0, spaces) == {0, 2}


def test_placement_contribute_or_artwork_card_makes_warehouse_room():
    pos = position(3)
    me = pos["players"][0]
    me["warehouse"].update(wood=4, marble=4)
    me["workshops"] = [4]
    spaces = [("Wood", "Ship"), ("Marble", "Transport"), ("Weave", "Ship"), ("Brick", "Transport")]
    assert ref.placement_spaces(pos, 0, spaces) == {3}
    me["hand"] = ["Artwork"]  # a marble leaves the warehouse
    assert ref.placement_spaces(pos, 0, spaces) == {1, 3}
    me["hand"] = ["Contribute"]  # wood or marble leaves the warehouse
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1, 3}


def test_placement_ship_or_transport_card_makes_workshop_room():
    pos = position(3)
    me = pos["players"][0]
    me["workshops"] = [4]
    me["warehouse"]["brick"] = 4
    spaces = [("Weave", "Brick"), ("Wood", "Marble")]
    me["warehouse"].update(wood=4, marble=4)
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1}  # nothing possible: anywhere
    spaces.append(("Contribute", "Ship"))
    assert ref.placement_spaces(pos, 0, spaces) == {2}
    me["hand"] = ["Transport"]  # no trade house: not playable
    assert ref.placement_spaces(pos, 0, spaces) == {2}
    me["trade_houses"] = {"Hamburg"}
    assert ref.placement_spaces(pos, 0, spaces) == {0, 2}
    me["trade_houses"] = set()
    me["ships"] = 2
    me["hand"] = ["Ship"]
    assert ref.placement_spaces(pos, 0, spaces) == {0, 2}


# ---------------------------------------------------------------------------
# the card search against a plain brute force on whole positions
# ---------------------------------------------------------------------------
# The reference searches a reduced, capped state; here every card play is simulated on a full
# copy of the position with every choice (which port, church, building, trade city ...), and
# ``can_carry_out`` (its unchecked body, the position validated once) decides each play.
# Small hands keep this exhaustive.


def random_position(rng: random.Random) -> dict:
    n = rng.randint(3, 5)
    pos = position(n)
    order = list(range(n)) * 2
    rng.shuffle(order)
    set_seats(pos, order[: rng.randint(0, 6)])
    set_council_art(pos, [q for q in order[:4] if rng.random() < 0.4])
    for i, p in enumerate(pos["players"]):
        scarce = rng.random() < 0.3  # sometimes use up (nearly) all of the player's 40 cubes
        for c in ref.CITIES:
            p["cloth"][c] = rng.choice([0, 0, 1, 2, 3] + ([4, 5] if scarce else []))
        for ch in ref.CHURCHES:
            for r in ref.RESOURCES:
                p["contributions"][ch][r] = rng.choice([0, 0, 0, 1])
        for b in ref.CHURCHES:
            p["artworks"][b] = rng.choice([0, 0, 0, 1])
        for r in ref.RESOURCES:
            p["warehouse"][r] = rng.choice([0, 0, 1, 2, 4])
        p["workshops"] = [rng.choice([0, 1, 2, 4]) for _ in range(rng.randint(1, 3))]
        p["ships"] = rng.choice([0, 0, 1, 2, 3])
        p["trade_houses"] = {c for c in ref.TRADE_CITIES if rng.random() < 0.3}
        p["hand"] = [rng.choice(ref.ACTIONS) for _ in range(rng.randint(0, 4))]
        while ref.reserve(pos, i) < 0:
            c = rng.choice([c for c in ref.CITIES if p["cloth"][c] > 0])
            p["cloth"][c] -= 1
        if scarce:  # bring the reserve down to 0..2 with cloth in the cities
            room = max(0, ref.reserve(pos, i) - rng.randint(0, 2))
            for c in ref.CITIES:
                add = min(room, 12 - sum(q["cloth"][c] for q in pos["players"]))
                if add > 0:
                    p["cloth"][c] += add
                    room -= add
    for c in ref.CITIES:  # over-full city: take cloth from players other than player 0
        while sum(q["cloth"][c] for q in pos["players"]) > 12:
            max(pos["players"][1:], key=lambda q: q["cloth"][c])["cloth"][c] -= 1
    for ch in ref.CHURCHES:  # over-full church rows
        for r in ref.RESOURCES:
            while sum(q["contributions"][ch][r] for q in pos["players"]) > ref.CONTRIBUTION_SLOTS[ch][r]:
                max(pos["players"], key=lambda q: q["contributions"][ch][r])["contributions"][ch][r] -= 1
        while sum(q["artworks"][ch] for q in pos["players"]) > ref.ARTWORK_SLOTS[ch]:
            max(pos["players"], key=lambda q: q["artworks"][ch])["artworks"][ch] -= 1
    # sometimes fill slot rows so that "no free slot" cases occur
    filler = pos["players"][n - 1]
    free = ref.free_slots(pos)
    if rng.random() < 0.3:
        for ch in ref.CHURCHES:
            r = rng.choice(ref.RESOURCES)
            filler["contributions"][ch][r] += free["contribution"][ch][r]
    if rng.random() < 0.3:
        for b in ref.CHURCHES:
            filler["artworks"][b] += free["artwork"][b]
    if rng.random() < 0.3:
        for c in rng.sample(ref.CITIES, 3):
            filler["cloth"][c] += free["city"][c]
    if ref.reserve(pos, n - 1) < 0:
        return random_position(rng)
    ref.validate_position(pos)
    return pos


def clone(pos: dict) -> dict:
    """A deep copy of a position (faster than copy.deepcopy for this fixed shape)."""

    def player(p):
        q = dict(p)
        q["cloth"] = dict(p["cloth"])
        q["contributions"] = {ch: dict(rows) for ch, rows in p["contributions"].items()}
        q["artworks"] = dict(p["artworks"])
        q["warehouse"] = dict(p["warehouse"])
        q["workshops"] = list(p["workshops"])
        q["trade_houses"] = set(p["trade_houses"])
        q["hand"] = list(p["hand"])
        return q

    return {
        "players": [player(p) for p in pos["players"]],
        "seat_order": list(pos["seat_order"]),
        "council_artwork_order": list(pos["council_artwork_order"]),
    }


def play_outcomes(pos: dict, me: int, action: str) -> list[dict]:
    """Every position after ``me`` carries out ``action`` once, at least partly."""
    if not ref._can_carry_out_unchecked(pos, me, action):
        return []
    out = []

    def fresh():
        q = clone(pos)
        return q, q["players"][me]

    def take_cloth(p, k):
        for _ in range(k):
            i = max(range(len(p["workshops"])), key=lambda j: p["workshops"][j])
            p["workshops"][i] -= 1

    p0 = pos["players"][me]
    free = ref.free_slots(pos)
    if action in ("Wood", "Brick", "Marble"):
        q, p = fresh()
        p["warehouse"][action.lower()] += 1
        out.append(q)
    elif action == "Weave":  # too few reserve cubes: the emptiest workshops first, ties the lower (ruling)
        room = sorted((i for i, c in enumerate(p0["workshops"]) if c < 4), key=lambda i: (p0["workshops"][i], i))
        q, p = fresh()
        for i in room[: ref.reserve(pos, me)]:
            p["workshops"][i] += 1
        out.append(q)
    elif action == "Ship":
        ports = [c for c in ref.PORT_CITIES if free["city"][c] > 0]
        for k in range(1, min(p0["ships"], sum(p0["workshops"])) + 1):
            for dests in itertools.product(ports, repeat=k):
                q, p = fresh()
                take_cloth(p, k)
                for c in dests:
                    p["cloth"][c] += 1
                if all(v >= 0 for v in ref.free_slots(q)["city"].values()):
                    out.append(q)
    elif action == "Build":
        wh = p0["warehouse"]
        if p0["ships"] < 3 and wh["wood"] >= 2:
            q, p = fresh()
            p["warehouse"]["wood"] -= 2
            p["ships"] += 1
            out.append(q)
        for c in ref.TRADE_CITIES:
            if wh["brick"] >= 2 and c not in p0["trade_houses"]:
                q, p = fresh()
                p["warehouse"]["brick"] -= 2
                p["trade_houses"] = set(p["trade_houses"]) | {c}
                out.append(q)
        if len(p0["workshops"]) < 3 and wh["wood"] >= 1 and wh["brick"] >= 1:
            q, p = fresh()
            p["warehouse"]["wood"] -= 1
            p["warehouse"]["brick"] -= 1
            p["workshops"].append(0)
            out.append(q)
    elif action == "Artwork":
        for b in ref.BUILDINGS:
            if free["artwork"][b] > 0:
                q, p = fresh()
                p["warehouse"]["marble"] -= 1
                p["artworks"][b] += 1
                if b == COUNCIL:
                    q["council_artwork_order"].append(me)
                out.append(q)
    elif action == "Transport":
        cities = [c for c in ref.TRADE_CITIES if c in p0["trade_houses"] and free["city"][c] > 0]
        for k in range(1, min(len(cities), sum(p0["workshops"])) + 1):
            for chosen in itertools.combinations(cities, k):
                q, p = fresh()
                take_cloth(p, k)
                for c in chosen:
                    p["cloth"][c] += 1
                out.append(q)
    elif action == "Contribute":
        for ch in ref.CHURCHES:
            for r in ref.RESOURCES:
                if p0["warehouse"][r] > 0 and free["contribution"][ch][r] > 0:
                    q, p = fresh()
                    p["warehouse"][r] -= 1
                    p["contributions"][ch][r] += 1
                    out.append(q)
    return out


def brute_possible(pos: dict, me: int, memo: dict | None = None) -> set[str]:
    """Actions that can be carried out after some sequence of card plays (memo: whole position)."""
    memo = {} if memo is None else memo
    key = json.dumps(pos, sort_keys=True, default=sorted)
    if key in memo:
        return memo[key]
    ref.validate_position(pos)
    possible = {a for a in ref.ACTIONS if ref._can_carry_out_unchecked(pos, me, a)}
    hand = ref.hand_counter(pos["players"][me]["hand"])
    for card in hand:
        for q in play_outcomes(pos, me, card):
            rest = hand.copy()
            rest[card] -= 1
            q["players"][me]["hand"] = list(rest.elements())
            possible |= brute_possible(q, me, memo)
    memo[key] = possible
    return possible


def test_feasible_on_the_mat_state_matches_can_carry_out():
    rng = random.Random(20240601)
    for _ in range(150):
        pos = random_position(rng)
        for me in range(len(pos["players"])):
            state = ref._mat_state(pos, me)
            for a in ref.ACTIONS:
                assert ref._feasible(state, a) == ref.can_carry_out(pos, me, a), (a, me, pos)


def test_card_search_matches_brute_force_on_random_positions():
    rng = random.Random(7)
    all_spaces = [(a, a) for a in ref.ACTIONS] + list(itertools.combinations(ref.ACTIONS, 2))
    differing = 0
    for _ in range(150):
        pos = random_position(rng)
        me = rng.randrange(len(pos["players"]))
        possible = brute_possible(pos, me)
        direct = {a for a in ref.ACTIONS if ref.can_carry_out(pos, me, a)}
        differing += possible != direct
        expect = {i for i, (a, b) in enumerate(all_spaces) if a in possible or b in possible}
        assert ref.placement_spaces(pos, me, all_spaces) == (expect or set(range(len(all_spaces))))
    assert differing >= 15  # the sample does exercise card plays that enable actions


def test_placement_each_resource_card_takes_a_cube_from_the_reserve():
    pos = position(3)
    me = pos["players"][0]
    fill_ports(me)
    me["warehouse"]["marble"] = 3  # 39 cubes placed: reserve 1
    me["hand"] = ["Wood", "Brick"]
    spaces = [("Build", "Ship"), ("Marble", "Transport")]
    assert ref.placement_spaces(pos, 0, spaces) == {1}  # a workshop needs both cards
    me["warehouse"]["marble"] = 2  # reserve 2
    assert ref.placement_spaces(pos, 0, spaces) == {0, 1}
