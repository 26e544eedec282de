"""Calimala, one test per clause of docs/rules/calimala.md (positions built from text)."""

from __future__ import annotations

import numpy as np
import pytest

import calimala_env
from calimala_env import layout as L
from calimala_env import notation, rules
from calimala_env.game import GAME, legal_strings, state_from_ascii
from calimala_env.rules.accessors import art_free, church_free, city_free, hand_count
from calimala_env.rules.mat import VLEN, can_do, fill_mat, search_achievable
from calimala_env.rules.scoring import award, category_value, final_scoring
from calimala_env.rules.turn import place_disc, start_activation
from gamecore.kernel.protocol import H_CURRENT, H_OWNER, H_PHASE, H_TERMINAL, VIEW_ALL

P = L.MAX_PLAYERS
# a1 Wood     b1 Brick       c1 Marble
# a2 Artwork  b2 Contribute  c2 Weave
# a3 Ship     b3 Build       c3 Transport
LAYOUT = "layout Wood Brick Marble / Artwork Contribute Weave / Ship Build Transport"
ALL_STREETS = sorted(L.STREET_NAMES)


def tiles_with(first: list[str]) -> str:
    """A 'tiles' line: the given tiles first, in order, then the others in the table's order."""
    rest = [t for t in L.TILE_NAMES if t not in first]
    return "tiles " + " / ".join(first + rest)


def at(text: str, seed: int = 0) -> calimala_env.raw_env:
    st = state_from_ascii(text, seed)
    n = int(st[1])
    opts = {"num_players": n, "start_player": int(st[L.START])}
    if text.find("layout") >= 0:
        opts["action_layout"] = [L.ACTION_NAMES[int(t)] for t in st[L.LAYOUT: L.LAYOUT + 9]]
    env = calimala_env.raw_env(**opts)
    env.reset(seed=seed)
    env.set_state(st)
    return env


def play(env, *texts: str) -> None:
    for text in texts:
        env.step(env.string_to_action(text))


def strings(env, prefix: str = "") -> list[str]:
    return [s for s in env.legal_action_strings() if s.startswith(prefix)]


def places(env, disc: str = "coloured") -> list[str]:
    """The streets where a disc of that kind may be placed."""
    pre = f"place {disc} on street "
    return sorted(s[len(pre):] for s in env.legal_action_strings() if s.startswith(pre))


def st_(env) -> np.ndarray:
    return env.state_array


def wh(env, p: int) -> list[int]:
    return [int(x) for x in st_(env)[L.WH + 3 * p: L.WH + 3 * p + 3]]


def hand(env, p: int) -> list[str]:
    return notation.card_names(st_(env)[L.HAND + 9 * p: L.HAND + 9 * p + 9])


def vp(env) -> list[int]:
    n = env.num_players
    return [int(x) for x in st_(env)[L.VP: L.VP + n]]


def seat_order(env) -> list:
    out = []
    for k in range(int(st_(env)[L.NEXT_SEAT])):
        sv = int(st_(env)[L.SEAT + k])
        out.append(sv - L.SEAT_BASE if sv >= L.SEAT_BASE else None)
    return out


def fresh(n: int = 3, seed: int = 0, **kw) -> calimala_env.raw_env:
    env = calimala_env.raw_env(num_players=n, **kw)
    env.reset(seed=seed)
    return env


def finish_setup(env) -> None:
    while env.state_array[H_PHASE] in (L.PH_KEEP, L.PH_START):
        env.step(env.legal_actions()[0])


# =================================================================================================
# components and data
# =================================================================================================
def test_grid_has_12_streets_between_orthogonally_adjacent_cells():
    pairs = {tuple(sorted(p)) for p in L.STREET_CELLS_LIST}
    want = set()
    for c in range(9):
        r, k = divmod(c, 3)
        if k < 2:
            want.add((c, c + 1))
        if r < 2:
            want.add((c, c + 3))
    assert pairs == want and len(L.STREET_NAMES) == 12
    assert L.STREET_NAMES[:3] == ("a1-b1", "b1-c1", "a2-b2") and "b2-b3" in L.STREET_NAMES


def test_random_layout_shuffles_the_8_tiles_around_the_printed_centre():
    layouts = set()
    for seed in range(30):
        st = fresh(seed=seed).state_array
        lay = tuple(int(x) for x in st[L.LAYOUT: L.LAYOUT + 9])
        assert lay[L.CENTRE] == L.CONTRIBUTE == L.CENTRE_ACTION
        assert sorted(lay) == list(range(9))
        layouts.add(lay)
    assert len(layouts) > 20


def test_layout_option_first_game_or_explicit_and_bad_layouts_are_rejected():
    env = fresh(action_layout="first_game")
    assert [L.ACTION_NAMES[int(t)] for t in env.state_array[L.LAYOUT: L.LAYOUT + 9]] == list(L.FIRST_GAME_LAYOUT)
    names = ["Ship", "Wood", "Brick", "Marble", "Weave", "Build", "Artwork", "Transport", "Contribute"]
    env = fresh(action_layout=names)
    assert env.to_dict()["layout"]["a1"] == "Ship" and env.to_dict()["layout"]["c3"] == "Contribute"
    with pytest.raises(ValueError, match="each of the 9 actions once"):
        fresh(action_layout=["Wood"] * 9)
    with pytest.raises(ValueError, match="needs 9"):
        fresh(action_layout=["Wood"])
    with pytest.raises(ValueError, match="unknown action"):
        fresh(action_layout=names[:8] + ["Gold"])


def test_components_cards_tiles_slots():
    assert L.CARD_COPIES == (5,) * 9 and L.NUM_CARDS == 45
    assert len(L.TILE_NAMES) == 15 and len(set(L.TILE_NAMES)) == 15
    assert len(L.SCORING_CARD_NAMES) == 10
    assert [int(x) for x in L.CHURCH_SLOTS.sum(axis=1)] == [15, 9, 12]  # SMdF, San Miniato, Santa Croce
    assert [int(x) for x in L.ART_SLOTS] == [5, 3, 4, 4]  # ... and the council
    st = fresh(seed=4).state_array
    assert sorted(int(x) for x in st[L.TILES: L.TILES + 15]) == list(range(15))


@pytest.mark.parametrize("n,coloured,white", [(3, 12, 3), (4, 10, 2), (5, 8, 2)])
def test_player_pieces_and_discs_per_player_count(n, coloured, white):
    st = fresh(n).state_array
    for p in range(n):
        assert int(st[L.RESERVE + p]) == 40
        assert int(st[L.COLOURED + p]) == coloured and int(st[L.WHITE + p]) == white
        assert int(st[L.WORKSHOPS + p]) == 1 and int(st[L.SHIPS + p]) == 0
        assert wh_of(st, p) == [0, 0, 0]


def wh_of(st, p):
    return [int(x) for x in st[L.WH + 3 * p: L.WH + 3 * p + 3]]


# =================================================================================================
# setup
# =================================================================================================
@pytest.mark.parametrize("n,each,up,out", [(3, 3, 1, 0), (4, 2, 1, 1), (5, 2, 0, 0)])
def test_scoring_cards_are_dealt_per_player_count(n, each, up, out):
    env = fresh(n, seed=2)
    d = env.to_dict("all")
    for p in range(n):
        assert len(d["players"][p]["dealt_scoring_cards"]) == each
    assert (d["face_up_scoring_card"] is not None) == bool(up)
    assert (d["scoring_card_out_of_game"] is not None) == bool(out)
    public = env.to_dict()
    assert "dealt_scoring_cards" not in public["players"][0] and "scoring_card_out_of_game" not in public


def test_each_seat_keeps_one_scoring_card_from_the_start_seat_clockwise():
    env = fresh(3, seed=5, start_player=1)
    order = []
    while env.state_array[H_PHASE] == L.PH_KEEP:
        p = int(env.state_array[H_CURRENT])
        order.append(p)
        dealt = env.to_dict(p)["players"][p]["dealt_scoring_cards"]
        assert strings(env) == sorted(f"keep scoring card {c}" for c in dealt)
        play(env, f"keep scoring card {dealt[1]}")
        assert env.to_dict(p)["players"][p]["kept_scoring_card"] == dealt[1]
        assert "kept_scoring_card" not in env.to_dict((p + 1) % 3)["players"][p]
    assert order == [1, 2, 0]


def test_start_cards_are_taken_face_up_from_the_seat_before_the_start_seat_backwards():
    env = fresh(3, seed=5, start_player=1)
    while env.state_array[H_PHASE] == L.PH_KEEP:
        env.step(env.legal_actions()[0])
    assert strings(env) == [f"take start card {c}" for c in ("Brick", "Build", "Marble", "Weave", "Wood")]
    order = []
    for card in ("Weave", "Wood", "Build"):
        order.append(int(env.state_array[H_CURRENT]))
        play(env, f"take start card {card}")
    assert order == [0, 2, 1]
    d = env.to_dict(0)
    assert d["players"][0]["known_cards"] == ["Weave"] and d["players"][2]["known_cards"] == ["Wood"]
    assert d["players"][1]["hand_count"] == 1 and d["players"][1]["known_cards"] == ["Build"]
    # the two cards left (Brick, Marble) were shuffled into the deck: 40 + 2
    assert d["deck_size"] == 42 and d["start_cards_on_table"] == []
    assert int(env.state_array[H_PHASE]) == L.PH_PLACE and int(env.state_array[H_CURRENT]) == 1


def test_with_five_players_the_last_start_card_is_taken_automatically():
    env = fresh(5, seed=1)
    while env.state_array[H_PHASE] == L.PH_KEEP:
        env.step(env.legal_actions()[0])
    for _ in range(4):
        env.step(env.legal_actions()[0])
    assert int(env.state_array[H_PHASE]) == L.PH_PLACE
    assert env.to_dict()["deck_size"] == 40 and sum(p["hand_count"] for p in env.to_dict()["players"]) == 5


# =================================================================================================
# the rulebook's extended example
# =================================================================================================
EXAMPLE = f"""
players 3
{LAYOUT}
{tiles_with(["Troyes", "Bruges", "Lisbon"])}
seats 0 1
street a2-a3: 2w 2 1
city Lisbon: 1 2 1
deck Wood Ship Weave
p0: marble 2 cloth 1 1 ships 2 hand Artwork Wood
p1: marble 1 brick 1 cloth 0 ships 2 houses Troyes hand Build
p2: cloth 0
"""  # Marion = p0 (blue), Angelika = p1 (red), Tanja = p2 (yellow)


def test_rulebook_extended_example():
    env = at(EXAMPLE)
    st = env.state_array
    white_before = int(st[L.WHITE + 0])
    # Marion places on the street of Artwork and Ship, on top of Angelika, Tanja and a white disc
    assert "place coloured on street a2-a3" in strings(env)
    play(env, "place coloured on street a2-a3")
    assert int(st[H_OWNER]) == 0 and int(st[H_CURRENT]) == 0
    assert env.to_dict()["turn"]["activations"] == [{"owner": 0, "times": 1}, {"owner": 1, "times": 1},
                                                    {"owner": 2, "times": 1}]
    # she may not end before carrying out one of the two actions
    assert strings(env) == ["play card Artwork", "play card Wood", "take action Artwork", "take action Ship"]
    play(env, "take action Artwork")
    assert strings(env) == [f"artwork: marble to {b}" for b in
                            ("Palazzo Vecchio", "San Miniato", "Santa Croce", "Santa Maria del Fiore")]
    play(env, "artwork: marble to Santa Croce", "play card Artwork", "artwork: marble to Santa Croce")
    play(env, "take action Ship")
    assert strings(env) == ["ship: cloth to Barcelona", "ship: cloth to Lisbon", "ship: cloth to London"]
    play(env, "ship: cloth to Lisbon")
    assert strings(env) == ["ship: cloth to Barcelona", "ship: cloth to Lisbon", "ship: cloth to London",
                            "stop shipping"]
    play(env, "stop shipping")
    assert env.to_dict()["cities"]["Lisbon"] == [2, 2, 1]  # one yellow, two blue, two red
    assert strings(env) == ["end activation", "play card Wood"]
    play(env, "end activation")
    # Angelika's red disc: the decider moves, the turn owner stays Marion
    assert int(st[H_CURRENT]) == 1 and int(st[H_OWNER]) == 0
    play(env, "take action Artwork", "artwork: marble to San Miniato")
    assert strings(env) == ["end activation", "take action Ship: cannot, draw a card"]
    play(env, "take action Ship: cannot, draw a card")
    assert hand(env, 1) == ["Wood", "Build"]
    assert strings(env) == ["end activation", "play card Wood"]  # Build needs wood: not yet playable
    play(env, "play card Wood")
    assert strings(env) == ["end activation", "play card Build"]
    play(env, "play card Build")  # the workshop is her only build: carried out, and nothing is left to do
    assert int(st[L.WORKSHOPS + 1]) == 2 and wh(env, 1) == [0, 0, 0]
    # Tanja: no marble, no cloth; both actions give a card
    assert int(st[H_CURRENT]) == 2
    assert strings(env) == ["end activation", "take action Artwork: cannot, draw a card",
                            "take action Ship: cannot, draw a card"]
    play(env, "end activation")
    assert hand(env, 2) == ["Weave", "Ship"]
    d = env.to_dict(0)
    assert d["players"][2]["hand_count"] == 2 and "hand" not in d["players"][2]
    # the white fourth disc: Marion exchanges it for a blue disc from her reserve, on Lisbon's seat
    assert seat_order(env) == [0, 1, 0]
    assert d["council"]["seats"][2]["tile"] == "Lisbon"
    assert int(st[L.WHITE + 0]) == white_before + 1
    assert notation.stack_tokens(st, L.STREET_NAMES.index("a2-a3")) == ["2", "1", "0"]
    # Lisbon: Marion and Angelika 2 each, Tanja 1; Marion has more seats
    assert vp(env) == [3, 2, 1]
    assert int(st[H_OWNER]) == 1 and int(st[H_PHASE]) == L.PH_PLACE
    assert GAME.invariant_errors(st) == []


# =================================================================================================
# placing a disc
# =================================================================================================
BARE = f"""
players 3
{LAYOUT}
"""
# with nothing on the mat, the possible actions are Wood, Brick, Marble and Weave
BARE_STREETS = ["a1-a2", "a1-b1", "b1-b2", "b1-c1", "b2-c2", "c1-c2", "c2-c3"]


def test_a_disc_goes_only_where_one_of_the_two_actions_can_be_carried_out():
    env = at(BARE)
    assert places(env) == BARE_STREETS
    assert places(env, "white") == BARE_STREETS


def test_cards_in_hand_count_when_choosing_a_street():
    env = at(BARE + "p0: hand Marble")  # Marble then Artwork; a marble can also be contributed
    assert places(env) == sorted(BARE_STREETS + ["a2-a3", "a2-b2", "b2-b3"])
    # Wood, Wood -> Build a ship; Weave -> a cloth: now Ship too (four cards)
    env = at(BARE + "p0: hand Wood Wood Build Weave")
    assert places(env) == ALL_STREETS[:0] + sorted(set(BARE_STREETS) | {"a2-a3", "a3-b3", "b3-c3", "a2-b2",
                                                                         "b2-b3"})
    env = at(BARE + "p0: hand Wood Build Weave")  # one wood short of a ship: no Ship, no Build
    assert places(env) == sorted(BARE_STREETS + ["a2-b2", "b2-b3"])


def test_with_no_street_allowing_an_action_the_disc_may_go_anywhere():
    # 40 cubes on the board: nothing in reserve, nothing on the mat, no card
    text = BARE + "city Barcelona: 12 0 0\ncity Lisbon: 12 0 0\ncity London: 12 0 0\ncontrib croce wood: 4 0 0\n"
    env = at(text)
    assert int(env.state_array[L.RESERVE]) == 0
    assert places(env) == ALL_STREETS


def test_a_disc_goes_on_top_and_only_own_discs_in_reserve_can_be_placed():
    env = at(BARE + "street a1-b1: 1 2\np0: white 0")
    assert places(env, "white") == [] and places(env) == BARE_STREETS
    play(env, "place coloured on street a1-b1")
    assert notation.stack_tokens(env.state_array, 0) == ["1", "2", "0"]
    assert int(env.state_array[L.COLOURED]) == 11 and int(env.state_array[L.PLACED]) == 1


# =================================================================================================
# activating a street
# =================================================================================================
def test_the_placing_player_does_both_actions_in_any_order():
    env = at(BARE)
    play(env, "place coloured on street a1-b1")
    assert strings(env) == ["take action Brick", "take action Wood"]
    play(env, "take action Brick")
    assert strings(env) == ["end activation", "take action Wood"]
    play(env, "take action Wood")  # nothing left to do: the activation ends by itself
    assert wh(env, 0) == [1, 1, 0] and int(env.state_array[H_CURRENT]) == 1


def test_a_white_top_disc_allows_each_action_twice_in_any_order():
    env = at(BARE)
    play(env, "place white on street a1-b1")
    assert env.to_dict()["turn"]["pending"] == {"Wood": 2, "Brick": 2}
    play(env, "take action Wood", "take action Brick", "take action Brick")
    assert env.to_dict()["turn"]["pending"] == {"Wood": 1, "Brick": 0}
    play(env, "take action Wood")
    assert wh(env, 0) == [2, 2, 0] and int(env.state_array[L.WHITE]) == 2


def test_the_2nd_and_3rd_coloured_discs_are_activated_but_not_white_ones_below_the_top():
    env = at(BARE + "street a1-b1: 0 1w 2\nturn 1")
    play(env, "place coloured on street a1-b1")
    assert env.to_dict()["turn"]["activations"] == [{"owner": 1, "times": 1}, {"owner": 2, "times": 1}]


def test_a_player_owning_several_activated_discs_acts_for_each():
    env = at(BARE + "street a1-b1: 1 1\nturn 1")
    play(env, "place coloured on street a1-b1")
    assert [a["owner"] for a in env.to_dict()["turn"]["activations"]] == [1, 1, 1]
    for _ in range(3):
        play(env, "take action Wood", "take action Brick")
    assert wh(env, 1) == [3, 3, 0]


def test_the_decider_moves_to_the_lower_discs_while_the_turn_owner_stays():
    env = at(BARE + "street a1-b1: 2")
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    st = env.state_array
    assert int(st[H_CURRENT]) == 2 and int(st[H_OWNER]) == 0 and env.agent_selection == "player_2"
    n = 3
    off = L.OBS[n]
    for seat in range(3):
        obs = env.observe(f"player_{seat}")["observation"]
        owner = obs[off.offset("OWNER"): off.offset("OWNER") + n].tolist()
        cur = obs[off.offset("CURRENT"): off.offset("CURRENT") + n].tolist()
        assert owner.index(1) == (0 - seat) % n and cur.index(1) == (2 - seat) % n
        phase = obs[off.offset("PHASE"): off.offset("PHASE") + L.NUM_PHASES].tolist()
        assert phase.index(1) == L.PH_ACTIVATE


def test_a_card_may_be_played_only_if_its_action_can_be_carried_out():
    env = at(BARE + "street a1-b1: 2\np2: hand Artwork Ship Wood Contribute")
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    assert strings(env) == ["end activation", "play card Wood", "take action Brick", "take action Wood"]
    play(env, "play card Wood")
    assert strings(env) == ["end activation", "play card Contribute", "take action Brick", "take action Wood"]
    play(env, "play card Contribute")
    assert strings(env) == [f"contribute wood to {b}" for b in ("San Miniato", "Santa Croce", "Santa Maria del Fiore")]
    play(env, "contribute wood to San Miniato")
    assert env.to_dict()["discard_pile"] == ["Wood", "Contribute"]
    assert hand(env, 2) == ["Ship", "Artwork"]


def test_an_impossible_action_draws_its_card_at_once_and_that_card_may_be_played():
    env = at(BARE + "street a1-b1: 2\ndeck Brick\np2: wood 4")
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    assert strings(env) == ["end activation", "take action Brick", "take action Wood: cannot, draw a card"]
    play(env, "take action Wood: cannot, draw a card")
    assert hand(env, 2) == ["Brick"]
    assert strings(env) == ["end activation", "play card Brick", "take action Brick"]
    play(env, "play card Brick", "take action Brick")
    assert wh(env, 2) == [4, 2, 0] and hand(env, 2) == []


def test_ending_skips_possible_actions_without_a_card_and_gives_a_card_per_impossible_one():
    env = at(BARE + "street a1-b1: 2\ndeck Ship Weave Build\np2: wood 4")
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    play(env, "end activation")  # Wood impossible: 1 card; Brick skipped: none
    assert hand(env, 2) == ["Ship"]
    # a white disc whose two actions are both impossible gives 4 cards
    env = at(BARE + "deck Ship Weave Build Artwork Contribute\n"
             "city Barcelona: 12 0 0\ncity Lisbon: 12 0 0\ncity London: 12 0 0\ncontrib croce wood: 4 0 0")
    play(env, "place white on street a1-b1")
    assert strings(env) == ["end activation", "take action Brick: cannot, draw a card",
                            "take action Wood: cannot, draw a card"]
    play(env, "end activation")
    assert hand(env, 0) == ["Weave", "Ship", "Build", "Artwork"]


def test_the_placing_player_may_not_end_before_carrying_out_an_action_and_must_play_cards_if_need_be():
    env = at(BARE + "deck Ship\np0: hand Marble")
    play(env, "place coloured on street a2-a3")  # Artwork + Ship: no marble, no ship
    # Ship gives a card, Artwork stays possible through the Marble card; giving up Artwork does not
    assert strings(env) == ["play card Marble", "take action Ship: cannot, draw a card"]
    play(env, "take action Ship: cannot, draw a card")
    # the Ship card drawn cannot be played; the only choice left was the Marble card, then Artwork:
    # both single choices were taken at once, and the artwork's building is asked
    assert hand(env, 0) == ["Ship"] and env.to_dict()["discard_pile"] == ["Marble"]
    assert int(env.state_array[H_PHASE]) == L.PH_ARTWORK
    assert strings(env) == [f"artwork: marble to {b}" for b in
                            ("Palazzo Vecchio", "San Miniato", "Santa Croce", "Santa Maria del Fiore")]
    play(env, "artwork: marble to San Miniato")
    # nothing left to do (the Ship card cannot be played): the turn passed on
    assert int(env.state_array[H_OWNER]) == 1 and int(env.state_array[H_PHASE]) == L.PH_PLACE


def test_while_the_duty_is_open_no_card_may_spend_what_the_last_possible_action_needs():
    text = BARE + "p0: marble 1 hand Contribute"
    env = at(text)
    play(env, "place coloured on street a2-a3")  # Artwork + Ship: Artwork possible with the marble
    # contributing the marble (a playable card) would leave no action possible
    assert strings(env) == ["take action Artwork", "take action Ship: cannot, draw a card"]
    play(env, "take action Artwork", "artwork: marble to Santa Croce")
    assert strings(env) == ["end activation", "take action Ship: cannot, draw a card"]
    # the same cards in a lower disc's hand: no duty, the card may be played
    env = at(BARE + "street a2-a3: 2\np2: marble 1 hand Contribute\np0: wood 1")
    play(env, "place coloured on street a1-a2", "take action Wood")
    env = at(BARE + "street a2-a3: 2\np2: marble 1 hand Contribute\np0: marble 1")
    play(env, "place coloured on street a2-a3", "take action Artwork", "artwork: marble to Santa Croce")
    play(env, "end activation")  # Ship impossible: Marion draws
    assert int(env.state_array[H_CURRENT]) == 2
    assert strings(env) == ["end activation", "play card Contribute", "take action Artwork",
                            "take action Ship: cannot, draw a card"]


def test_other_activated_players_may_end_at_once():
    env = at(BARE + "street a2-a3: 1")
    play(env, "place coloured on street a1-a2", "take action Wood")
    play(env, "end activation")
    assert int(env.state_array[H_CURRENT]) == 1
    env = at(BARE + "street a1-b1: 2")
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    assert "end activation" in strings(env)
    play(env, "end activation")
    assert int(env.state_array[H_OWNER]) == 1 and wh(env, 2) == [0, 0, 0] and hand(env, 2) == []


def test_played_cards_go_face_up_and_the_last_card_drawn_brings_the_discard_pile_back_as_deck():
    discard = " ".join(["Brick", "Marble", "Weave", "Ship", "Build", "Artwork", "Transport", "Contribute"] * 5
                       + ["Wood"] * 4)
    env = at(BARE + f"discard {discard}\nstreet a1-b1: 2\np2: wood 4")
    assert env.to_dict()["deck_size"] == 1
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    play(env, "take action Wood: cannot, draw a card")
    d = env.to_dict()
    assert hand(env, 2) == ["Wood"] and d["deck_size"] == 44 and d["discard_pile"] == []


def test_with_deck_and_discard_pile_empty_no_card_is_drawn():
    cards = " ".join([name for name in L.ACTION_NAMES for _ in range(5)])
    env = at(BARE + f"street a1-b1: 2\np2: wood 4\np1: hand {cards}")
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    play(env, "take action Wood: cannot, draw a card")
    assert hand(env, 2) == [] and env.to_dict()["deck_size"] == 0


# =================================================================================================
# the actions
# =================================================================================================
def lower_disc(p2_line: str, street: str = "a1-b1", extra: str = "") -> calimala_env.raw_env:
    """Seat 2 owns the disc under seat 0's new one on ``street`` and now decides for it (both
    actions pending); seat 0's own activation is skipped in building the position."""
    st = state_from_ascii(BARE + f"street {street}: 2\np2: {p2_line}\n{extra}")
    place_disc(st, notation.parse_street(street), 0)
    start_activation(st, 1)
    env = at(BARE)
    env.set_state(st)
    assert int(env.state_array[H_CURRENT]) == 2 and int(env.state_array[H_OWNER]) == 0
    return env


def test_wood_brick_marble_add_a_cube_unless_the_warehouse_is_full_or_the_reserve_empty():
    env = lower_disc("wood 3 brick 4")
    play(env, "take action Wood")
    assert wh(env, 2) == [4, 4, 0]
    assert strings(env) == ["end activation", "take action Brick: cannot, draw a card"]
    text = ("city Barcelona: 0 0 12\ncity Lisbon: 0 0 12\ncity London: 0 0 12\ncontrib croce brick: 0 0 4")
    env = lower_disc("wood 0", extra=text)
    assert int(env.state_array[L.RESERVE + 2]) == 0
    assert strings(env) == ["end activation", "take action Brick: cannot, draw a card",
                            "take action Wood: cannot, draw a card"]


def test_weave_puts_a_cloth_into_every_workshop_with_room():
    env = lower_disc("cloth 4 2 0", street="c1-c2")  # Marble + Weave
    play(env, "take action Weave")
    assert env.to_dict()["players"][2]["cloth_in_workshops"] == [4, 3, 1]
    env = lower_disc("cloth 4 4", street="c1-c2")
    assert "take action Weave: cannot, draw a card" in strings(env)


def test_weave_with_a_short_reserve_fills_the_emptiest_workshops_first():
    text = "city Barcelona: 0 0 12\ncity Lisbon: 0 0 12\ncity London: 0 0 9\ncontrib croce brick: 0 0 2"
    env = lower_disc("cloth 2 0 1", street="c1-c2", extra=text)
    assert int(env.state_array[L.RESERVE + 2]) == 2
    play(env, "take action Weave")
    assert env.to_dict()["players"][2]["cloth_in_workshops"] == [2, 1, 2]


def test_ship_one_cloth_per_ship_to_port_cities_with_room_chosen_ship_by_ship():
    env = lower_disc("cloth 1 3 ships 3", street="a2-a3", extra="city London: 6 6 0")
    play(env, "take action Ship")
    assert strings(env) == ["ship: cloth to Barcelona", "ship: cloth to Lisbon"]  # London is full
    play(env, "ship: cloth to Lisbon")
    assert env.to_dict()["players"][2]["cloth_in_workshops"] == [1, 2]  # the fullest workshop first
    assert strings(env) == ["ship: cloth to Barcelona", "ship: cloth to Lisbon", "stop shipping"]
    play(env, "ship: cloth to Lisbon", "ship: cloth to Barcelona")  # three ships: done
    d = env.to_dict()
    assert d["cities"]["Lisbon"][2] == 2 and d["cities"]["Barcelona"][2] == 1
    assert d["players"][2]["cloth_in_workshops"] == [0, 1] and d["phase"] == "activate"


def test_ship_is_impossible_without_ships_cloth_or_a_free_port_slot():
    for line, extra in (("cloth 2", ""), ("cloth 0 ships 2", ""),
                        ("cloth 2 ships 1", "city Barcelona: 12 0 0\ncity Lisbon: 0 12 0\ncity London: 6 0 6")):
        env = lower_disc(line, street="a2-a3", extra=extra)
        assert "take action Ship: cannot, draw a card" in strings(env), line


def test_build_a_ship_a_trade_house_where_none_is_own_or_a_workshop():
    env = lower_disc("wood 2 brick 2 houses Troyes", street="a3-b3")
    play(env, "take action Build")
    assert strings(env) == ["build ship", "build trade house in Bruges", "build trade house in Hamburg",
                            "build workshop"]
    play(env, "build trade house in Hamburg")
    d = env.to_dict()["players"][2]
    assert d["trade_houses"] == ["Troyes", "Hamburg"] and d["warehouses"] == {"wood": 2, "brick": 0, "marble": 0}
    assert d["reserve_cubes"] == 40 - 2
    env = lower_disc("wood 1 brick 1 ships 3 cloth 0 0 0", street="a3-b3")
    assert "take action Build: cannot, draw a card" in strings(env)  # all workshops built, 1 wood


def test_artwork_one_marble_to_a_free_artwork_slot_council_artworks_in_order():
    env = lower_disc("marble 2", street="a1-a2", extra="art fiore: 5 0 0\ncouncil 1")
    play(env, "take action Artwork")
    assert strings(env) == ["artwork: marble to Palazzo Vecchio", "artwork: marble to San Miniato",
                            "artwork: marble to Santa Croce"]  # Santa Maria del Fiore is full
    play(env, "artwork: marble to Palazzo Vecchio")
    assert env.to_dict()["council"]["artworks_in_order"] == [1, 2]


def test_transport_one_cloth_to_each_chosen_own_trade_house_city_with_room():
    env = lower_disc("cloth 3 houses Troyes Bruges Hamburg", street="b3-c3", extra="city Hamburg: 6 6 0")
    play(env, "take action Transport")
    assert strings(env) == ["transport: cloth to Bruges", "transport: cloth to Troyes"]
    play(env, "transport: cloth to Bruges")
    assert strings(env) == ["stop transporting", "transport: cloth to Troyes"]  # one per trade house
    play(env, "transport: cloth to Troyes")
    assert env.to_dict()["players"][2]["cloth_in_cities"]["Troyes"] == 1
    assert env.to_dict()["phase"] == "activate"
    env = lower_disc("cloth 3", street="b3-c3")
    assert "take action Transport: cannot, draw a card" in strings(env)


def test_contribute_one_cube_to_a_free_slot_of_its_resource():
    env = lower_disc("wood 1 marble 1", street="b1-b2", extra="contrib fiore marble: 5 0 0")
    play(env, "take action Contribute")
    assert strings(env) == ["contribute marble to San Miniato", "contribute marble to Santa Croce",
                            "contribute wood to San Miniato", "contribute wood to Santa Croce",
                            "contribute wood to Santa Maria del Fiore"]
    play(env, "contribute marble to Santa Croce")
    assert env.to_dict()["churches"]["Santa Croce"]["marble"] == [0, 0, 1]
    env = lower_disc("brick 0", street="b1-b2")
    assert "take action Contribute: cannot, draw a card" in strings(env)


def test_a_cube_from_an_empty_reserve_cannot_be_had():
    text = "city Barcelona: 0 0 12\ncity Lisbon: 0 0 12\ncity London: 0 0 12\ncontrib croce brick: 0 0 3"
    env = lower_disc("wood 1", street="c1-c2", extra=text)  # Marble + Weave, reserve 0
    assert int(env.state_array[L.RESERVE + 2]) == 0
    assert strings(env) == ["end activation", "take action Marble: cannot, draw a card",
                            "take action Weave: cannot, draw a card"]


# =================================================================================================
# the fourth disc
# =================================================================================================
def end_all_activations(env) -> None:
    owner = int(env.state_array[H_OWNER])
    while int(env.state_array[H_OWNER]) == owner and int(env.state_array[H_PHASE]) != L.PH_PROMOTE \
            and not env.state_array[H_TERMINAL]:
        legal = strings(env)
        env.step(env.string_to_action("end activation" if "end activation" in legal else legal[0]))


def test_a_fourth_disc_goes_to_the_next_council_seat_and_its_tile_is_scored():
    env = at(BARE + tiles_with(["Artwork", "Lisbon"]) + "\nseats 0\nstreet a1-b1: 1 2 2\ncity Lisbon: 0 1 2")
    play(env, "place coloured on street a1-b1")
    assert [a["owner"] for a in env.to_dict()["turn"]["activations"]] == [0, 2, 2]  # not the 4th
    end_all_activations(env)
    assert seat_order(env) == [0, 1] and vp(env) == [0, 2, 3]  # Lisbon: 3 to seat 2, 2 to seat 1
    assert notation.stack_tokens(env.state_array, 0) == ["2", "2", "0"]


SEATS10 = "seats " + " ".join(["0"] * 10)


def test_a_white_fourth_disc_with_no_coloured_disc_in_reserve_takes_one_from_another_street():
    env = at(BARE + SEATS10 + "\nstreet a1-b1: 1w 2 2\nstreet b1-c1: 0\nstreet c1-c2: 2 0 1\np0: coloured 0")
    play(env, "place white on street a1-b1")
    end_all_activations(env)
    assert int(env.state_array[H_PHASE]) == L.PH_PROMOTE and int(env.state_array[H_CURRENT]) == 0
    assert strings(env) == ["move own disc from street b1-c1 (top) to the council",
                            "move own disc from street c1-c2 (2nd from top) to the council"]
    play(env, "move own disc from street c1-c2 (2nd from top) to the council")
    st = env.state_array
    assert notation.stack_tokens(st, L.STREET_NAMES.index("c1-c2")) == ["2", "1", "0w"]
    assert notation.stack_tokens(st, 0) == ["2", "2", "0w"]
    assert seat_order(env) == [0] * 11 and GAME.invariant_errors(st) == []


def test_a_single_disc_to_take_from_another_street_is_taken_without_asking():
    # two own discs one on the other are one choice: either leaves the same stack
    env = at(BARE + SEATS10 + "\nstreet a1-b1: 1w 2 2\nstreet b1-c1: 0 0\np0: coloured 0")
    play(env, "place white on street a1-b1")
    end_all_activations(env)
    assert seat_order(env) == [0] * 11
    assert notation.stack_tokens(env.state_array, 1) == ["0", "0w"]


def test_a_white_fourth_disc_with_no_own_coloured_disc_anywhere_leaves_and_the_tile_is_scored():
    # ruling: the seat stays empty, the white disc leaves the game, the tile is still scored
    others = [t for t in L.TILE_NAMES if t != "Lisbon"]
    env = at(BARE + tiles_with(others[:12] + ["Lisbon"]) + "\n"
             + "seats " + " ".join(["0"] * 12) + "\nstreet a1-b1: 1w 2 2\ncity Lisbon: 0 1 2\np0: coloured 0 white 1")
    play(env, "place white on street a1-b1")
    out_before = int(env.state_array[L.WHITE_OUT])
    end_all_activations(env)
    st = env.state_array
    assert seat_order(env) == [0] * 12 + [None]
    assert int(st[L.WHITE_OUT]) == out_before + 1 and int(st[L.WHITE]) == 0
    assert env.to_dict()["council"]["seats"][12]["tile"] == "Lisbon" and vp(env) == [0, 2, 3]
    assert GAME.invariant_errors(st) == []


# =================================================================================================
# scoring
# =================================================================================================
SCORED = f"""
players 3
{LAYOUT}
city Barcelona: 1 0 2
city Lisbon: 0 3 0
city Troyes: 2 0 0
city Hamburg: 0 0 1
contrib fiore wood: 1 2 0
contrib fiore marble: 0 0 3
contrib miniato brick: 2 0 0
contrib croce wood: 0 0 1
art fiore: 1 0 0
art croce: 0 2 0
council 2 0
seats 1
"""


def test_category_values():
    st = state_from_ascii(SCORED)
    want = {
        "Barcelona": [1, 0, 2], "Lisbon": [0, 3, 0], "London": [0, 0, 0], "Troyes": [2, 0, 0],
        "Bruges": [0, 0, 0], "Hamburg": [0, 0, 1],
        "Santa Maria del Fiore": [2, 2, 3],  # contributions + artworks there
        "San Miniato": [2, 0, 0], "Santa Croce": [0, 2, 1],
        "Artwork": [2, 2, 1],  # on all four buildings, the council's included
        "Port cities": [1, 3, 2], "Trade cities": [2, 0, 1],
        "Contributed wood": [1, 2, 1], "Contributed brick": [2, 0, 0], "Contributed marble": [0, 0, 3],
        "Palazzo Vecchio": [1, 1, 1],  # seats + council artworks
    }
    for cat, name in enumerate(L.CATEGORY_NAMES):
        assert [int(category_value(st, cat, p)) for p in range(3)] == want[name], name


def scored(text: str, category: str, points=L.COUNCIL_PTS) -> list[int]:
    st = state_from_ascii(text)
    n = int(st[1])
    before = st[L.VP: L.VP + n].copy()
    award(st, L.CATEGORY_NAMES.index(category), points)
    return [int(x) for x in st[L.VP: L.VP + n] - before]


def lisbon(values: str, extra: str = "", n: int = 3) -> str:
    return f"players {n}\ncity Lisbon: {values}\n{extra}"


def test_council_scoring_3_2_1_and_nobody_scores_with_nothing():
    assert scored(lisbon("3 2 1"), "Lisbon") == [3, 2, 1]
    assert scored(lisbon("0 5 0"), "Lisbon") == [0, 3, 0]
    assert scored(lisbon("1 2 3 4", n=4), "Lisbon") == [0, 1, 2, 3]


def test_a_tie_goes_to_more_seats_plus_council_artworks():
    assert scored(lisbon("2 2 1", "seats 1"), "Lisbon") == [2, 3, 1]
    assert scored(lisbon("2 2 1", "council 0"), "Lisbon") == [3, 2, 1]
    assert scored(lisbon("2 2 1", "seats 1\ncouncil 0 0"), "Lisbon") == [3, 2, 1]  # 2 beats 1


def test_then_more_seats():
    # seat 0 has a seat, seat 1 a council artwork: both sums are 1
    assert scored(lisbon("2 2 0", "seats 0\ncouncil 1"), "Lisbon") == [3, 2, 0]


def test_then_who_reached_that_number_of_seats_first():
    assert scored(lisbon("2 2 0", "seats 1 0"), "Lisbon") == [2, 3, 0]
    assert scored(lisbon("2 2 0", "seats 0 1"), "Lisbon") == [3, 2, 0]
    # two seats each: seat 1 had its second seat first
    assert scored(lisbon("2 2 0", "seats 0 1 1 0"), "Lisbon") == [2, 3, 0]


def test_without_seats_who_made_the_first_council_artwork():
    assert scored(lisbon("2 2 0", "council 1 0"), "Lisbon") == [2, 3, 0]


def test_still_tied_the_points_of_the_places_are_shared_rounded_down():
    assert scored(lisbon("2 2 0"), "Lisbon") == [2, 2, 0]  # (3 + 2) // 2
    assert scored(lisbon("1 1 1"), "Lisbon") == [2, 2, 2]
    assert scored(lisbon("3 2 2 0", n=4), "Lisbon") == [3, 1, 1, 0]  # (2 + 1) // 2
    assert scored(lisbon("3 2 1 1", n=4), "Lisbon") == [3, 2, 0, 0]  # (1 + 0) // 2
    assert scored(lisbon("1 1 1 1 1", n=5), "Lisbon") == [1, 1, 1, 1, 1]  # 6 // 5


def test_final_cards_score_5_3_1_with_the_same_ties_and_the_face_up_card_with_3_or_4_players():
    text = lisbon("3 2 1", "faceup Troyes\ncity Troyes: 0 0 4\np0: kept Lisbon\np1: kept Bruges\np2: kept Hamburg")
    st = state_from_ascii(text)
    final_scoring(st)
    assert [int(x) for x in st[L.VP: L.VP + 3]] == [5, 3, 1 + 5]
    assert scored(lisbon("2 2 0", "seats 1"), "Lisbon", L.FINAL_PTS) == [3, 5, 0]
    st = state_from_ascii(lisbon("1 1 2 3 4", "p4: kept Lisbon", n=5))
    assert int(st[L.FACE_UP]) == 0
    final_scoring(st)
    assert [int(x) for x in st[L.VP: L.VP + 5]] == [0, 0, 1, 3, 5]


def test_palazzo_vecchio_final_card_counts_seats_and_council_artworks():
    assert scored("players 3\nseats 0 1 1\ncouncil 2 0", "Palazzo Vecchio", L.FINAL_PTS) == [3, 5, 1]


def test_most_vp_wins_then_seats_plus_council_artworks_then_shared():
    st = state_from_ascii("players 3\nseats 1\np0: vp 10\np1: vp 10\np2: vp 9")
    keys = np.zeros(3)
    rules.rank_keys(st, keys)
    assert keys[1] > keys[0] > keys[2]
    st = state_from_ascii("players 3\np0: vp 10\np1: vp 10\np2: vp 9")
    rules.rank_keys(st, keys)
    assert keys[0] == keys[1] > keys[2]


# =================================================================================================
# the end of the game
# =================================================================================================
def test_when_nobody_has_a_disc_left_unscored_tiles_are_scored_without_seats_then_the_final_cards():
    text = ("players 3\n" + LAYOUT + "\nfaceup Bruges\ncity Lisbon: 1 2 3\n"
            "p0: coloured 1 white 0 out 11 kept Lisbon\np1: coloured 0 white 0 out 12 kept Barcelona\n"
            "p2: coloured 0 white 0 out 12 kept Troyes")
    env = at(text)
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    st = env.state_array
    assert st[H_TERMINAL] and all(env.terminations.values())
    assert seat_order(env) == [None] * 15
    # Lisbon and Port cities tiles 1/2/3 each, then the Lisbon final card 1/3/5
    assert vp(env) == [3, 7, 11]
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 1.0}
    d = env.to_dict(0)
    assert d["players"][1]["kept_scoring_card"] == "Barcelona"  # revealed at the end


def test_once_all_tiles_are_scored_the_round_is_finished_and_fourth_discs_leave_unscored():
    last_lisbon = tiles_with([t for t in L.TILE_NAMES if t != "Lisbon"] + ["Lisbon"])
    text = (f"players 3\n{LAYOUT}\n{last_lisbon}\n"
            "seats 0 1 2 0 1 2 0 1 2 0 1 2 0 1\nstreet a1-b1: 0 2 2\nstreet b1-c1: 1 1 0\ncity Lisbon: 1 0 0\nturn 1")
    env = at(text)
    play(env, "place coloured on street a1-b1")
    end_all_activations(env)
    st = env.state_array
    assert seat_order(env)[-1] == 0 and st[L.END_TRIGGERED] and vp(env) == [3, 0, 0]
    assert int(st[H_OWNER]) == 2 and not st[H_TERMINAL]  # seat 2 still plays in this round
    col_out = int(st[L.COL_OUT + 1])
    play(env, "place coloured on street b1-c1")
    end_all_activations(env)
    assert int(st[L.COL_OUT + 1]) == col_out + 1  # seat 1's 4th disc left the game unscored
    assert notation.stack_tokens(st, 1) == ["1", "0", "2"]
    assert st[H_TERMINAL]  # the start seat would be next: the game is over


def test_a_seat_with_no_disc_left_is_skipped():
    env = at(BARE + "p1: coloured 0 white 0 out 12")
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    assert int(env.state_array[H_OWNER]) == 2 and env.agent_selection == "player_2"


# =================================================================================================
# hidden information
# =================================================================================================
def midgame(n: int, seed: int, steps: int = 120) -> np.ndarray:
    env = fresh(n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.state_array[H_TERMINAL]:
            break
        env.step(int(rng.choice(env.legal_actions())))
    return env.get_state()


def views(st: np.ndarray, p: int) -> tuple:
    n = int(st[1])
    obs = np.zeros(L.obs_len(n), dtype=np.int8)
    rules.observe(st, p, obs)
    return obs.tobytes(), GAME.to_dict(st, p), GAME.render_ansi(st, p), GAME.render_ansi(st)


def swap_hidden_cards(st: np.ndarray, q: int) -> np.ndarray | None:
    """The same state with one unknown card of seat q's hand exchanged for a deck card of another
    type (None if there is no such pair)."""
    out = st.copy()
    for t in range(L.NUM_TYPES):
        if out[L.HAND + 9 * q + t] - out[L.KNOWN + 9 * q + t] <= 0:
            continue
        for i in range(int(out[L.DECK_N])):
            u = int(out[L.DECK + i])
            if u != t:
                out[L.HAND + 9 * q + t] -= 1
                out[L.HAND + 9 * q + u] += 1
                out[L.DECK + i] = t
                return out
    return None


@pytest.mark.parametrize("n", [3, 4, 5])
def test_another_seats_hand_kept_card_and_the_deck_order_are_in_no_view(n):
    checked = 0
    for seed in range(6):
        st = midgame(n, seed)
        p, q = 0, 1
        variants = []
        a = swap_hidden_cards(st, q)
        if a is not None:
            variants.append(a)
        b = st.copy()
        b[L.KEPT + q] = 1 + (int(b[L.KEPT + q]) % 2)  # the other of its first two dealt cards
        variants.append(b)
        c = st.copy()
        dn = int(c[L.DECK_N])
        c[L.DECK: L.DECK + dn] = c[L.DECK: L.DECK + dn][::-1].copy()
        if not np.array_equal(c, st):
            variants.append(c)
        for other in variants:
            assert rules.check_state(other, GAME.make_params(num_players=n)) == 0
            assert GAME.to_dict(other, VIEW_ALL) != GAME.to_dict(st, VIEW_ALL)  # they do differ
            assert views(other, p) == views(st, p)
            checked += 1
    assert checked >= 12


def test_the_seats_own_hand_and_scoring_cards_are_in_its_view_only():
    st = midgame(3, 3)
    for p in range(3):
        d = GAME.to_dict(st, p)
        mine = d["players"][p]
        assert mine["hand"] == notation.card_names(st[L.HAND + 9 * p: L.HAND + 9 * p + 9])
        assert mine["kept_scoring_card"] is not None
        for q in range(3):
            if q != p:
                assert "hand" not in d["players"][q] and "kept_scoring_card" not in d["players"][q]
    public = GAME.render_ansi(st)
    assert "hand:" not in public and "hand 0 cards" in public or "cards" in public
    assert "hand:" in GAME.render_ansi(st, VIEW_ALL) and GAME.render_ansi(st, 1).count("hand:") == 1


def test_start_cards_are_known_until_played_and_drawn_cards_are_not():
    env = at(BARE + "street a1-b1: 2\np2: wood 4 hand Brick known Brick\ndeck Marble")
    assert env.to_dict(0)["players"][2]["known_cards"] == ["Brick"]
    play(env, "place coloured on street a1-b1", "take action Wood", "take action Brick")
    play(env, "take action Wood: cannot, draw a card")
    d = env.to_dict(0)["players"][2]
    assert d["hand_count"] == 2 and d["known_cards"] == ["Brick"]
    play(env, "play card Brick")
    d = env.to_dict(0)["players"][2]
    assert d["hand_count"] == 1 and d["known_cards"] == []
    assert env.to_dict(0)["discard_pile"] == ["Brick"]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_resample_redeals_only_what_the_seat_cannot_see(n):
    changed = 0
    params = GAME.make_params(num_players=n)
    for seed in range(8):
        st = midgame(n, seed, steps=60 + 20 * seed)
        if st[H_TERMINAL]:
            continue
        for p in range(n):
            other = st.copy()
            rules.resample(other, p, 1000 + seed)
            assert rules.check_state(other, params) == 0 and GAME.invariant_errors(other) == []
            assert views(other, p) == views(st, p)
            for q in range(n):  # hand sizes and publicly known cards never change
                assert hand_count(other, q) == hand_count(st, q)
                known = slice(L.KNOWN + 9 * q, L.KNOWN + 9 * q + 9)
                assert np.array_equal(other[known], st[known])
            if GAME.to_dict(other, VIEW_ALL) != GAME.to_dict(st, VIEW_ALL):
                changed += 1
            mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
            assert rules.legal_mask(other, mask) > 0
    assert changed > 10


def test_resample_keeps_a_hand_that_lets_the_placing_player_carry_out_its_action():
    # seat 0 must play its (unknown to the others) Marble card to carry out Artwork
    text = BARE + "p0: hand Marble"
    st = state_from_ascii(text)
    env = at(text)
    env.set_state(st)
    play(env, "place coloured on street a2-a3")
    base = env.get_state()
    hands = set()
    for seed in range(40):
        other = base.copy()
        rules.resample(other, 1, seed)
        hands.add(tuple(notation.card_names(other[L.HAND: L.HAND + 9])))
        assert "end activation" not in legal_strings(other)
    assert hands == {("Marble",)}
    # seat 2's unknown cards do move around
    text2 = BARE + "p0: hand Marble\np2: hand Wood Ship"
    env = at(text2)
    play(env, "place coloured on street a2-a3")
    seen = set()
    for seed in range(40):
        other = env.get_state()
        rules.resample(other, 1, seed)
        seen.add(tuple(notation.card_names(other[L.HAND + 18: L.HAND + 27])))
    assert len(seen) > 5


# =================================================================================================
# the card-play search against brute force over every real choice
# =================================================================================================
def _py_feasible(m: dict, t: int) -> bool:
    """Rules text: can action t be carried out at least partly?"""
    wh, cloth = m["wh"], m["cloth"]
    if t <= L.MARBLE:
        return wh[t] < 4 and m["reserve"] > 0
    if t == L.WEAVE:
        return m["reserve"] > 0 and any(c < 4 for c in cloth)
    if t == L.SHIP:
        return m["ships"] > 0 and sum(cloth) > 0 and any(f > 0 for f in m["port_free"])
    if t == L.BUILD:
        return (m["ships"] < 3 and wh[0] >= 2) or (len(cloth) < 3 and wh[0] >= 1 and wh[1] >= 1) or \
            (wh[1] >= 2 and not all(m["houses"]))
    if t == L.ARTWORK:
        return wh[2] > 0 and any(f > 0 for f in m["art_free"])
    if t == L.TRANSPORT:
        return sum(cloth) > 0 and any(h and f > 0 for h, f in zip(m["houses"], m["trade_free"], strict=True))
    return any(wh[r] > 0 and any(m["church_free"][b][r] > 0 for b in range(3)) for r in range(3))


def _key(m: dict) -> tuple:
    return (tuple(m["hand"]), tuple(m["wh"]), m["reserve"], tuple(m["cloth"]), m["ships"], tuple(m["houses"]),
            tuple(m["trade_free"]), tuple(m["port_free"]), tuple(map(tuple, m["church_free"])), tuple(m["art_free"]))


def _copy(m: dict) -> dict:
    return {k: ([list(x) for x in v] if k == "church_free" else (list(v) if isinstance(v, list) else v))
            for k, v in m.items()}


def _take_cloth(m: dict) -> None:
    i = max(range(len(m["cloth"])), key=lambda w: (m["cloth"][w], -w))
    m["cloth"][i] -= 1


def _plays(m: dict):
    """Every state one card play away, with every real choice of the action."""
    for t in range(L.NUM_TYPES):
        if m["hand"][t] == 0 or not _py_feasible(m, t):
            continue
        base = _copy(m)
        base["hand"][t] -= 1
        if t <= L.MARBLE:
            base["wh"][t] += 1
            base["reserve"] -= 1
            yield base
        elif t == L.WEAVE:
            for w in sorted(range(len(base["cloth"])), key=lambda w: (base["cloth"][w], w)):
                if base["cloth"][w] < 4 and base["reserve"] > 0:
                    base["cloth"][w] += 1
                    base["reserve"] -= 1
            yield base
        elif t == L.SHIP:
            def ship(mm, left):
                for c in range(3):
                    if mm["port_free"][c] > 0 and sum(mm["cloth"]) > 0:
                        nx = _copy(mm)
                        _take_cloth(nx)
                        nx["port_free"][c] -= 1
                        yield nx
                        if left > 1:
                            yield from ship(nx, left - 1)
            yield from ship(base, base["ships"])
        elif t == L.BUILD:
            if base["ships"] < 3 and base["wh"][0] >= 2:
                nx = _copy(base)
                nx["wh"][0] -= 2
                nx["reserve"] += 2
                nx["ships"] += 1
                yield nx
            if len(base["cloth"]) < 3 and base["wh"][0] >= 1 and base["wh"][1] >= 1:
                nx = _copy(base)
                nx["wh"][0] -= 1
                nx["wh"][1] -= 1
                nx["reserve"] += 2
                nx["cloth"].append(0)
                yield nx
            for k in range(3):
                if not base["houses"][k] and base["wh"][1] >= 2:
                    nx = _copy(base)
                    nx["wh"][1] -= 2
                    nx["reserve"] += 2
                    nx["houses"][k] = 1
                    yield nx
        elif t == L.ARTWORK:
            for b in range(4):
                if base["art_free"][b] > 0:
                    nx = _copy(base)
                    nx["wh"][2] -= 1
                    nx["art_free"][b] -= 1
                    yield nx
        elif t == L.TRANSPORT:
            def transport(mm, done):
                for k in range(3):
                    if k not in done and mm["houses"][k] and mm["trade_free"][k] > 0 and sum(mm["cloth"]) > 0:
                        nx = _copy(mm)
                        _take_cloth(nx)
                        nx["trade_free"][k] -= 1
                        yield nx
                        yield from transport(nx, done | {k})
            yield from transport(base, frozenset())
        else:
            for r in range(3):
                for b in range(3):
                    if base["wh"][r] > 0 and base["church_free"][b][r] > 0:
                        nx = _copy(base)
                        nx["wh"][r] -= 1
                        nx["church_free"][b][r] -= 1
                        yield nx


def brute_force_achievable(m: dict) -> set[int]:
    found: set[int] = set()
    seen = set()
    todo = [m]
    while todo:
        cur = todo.pop()
        k = _key(cur)
        if k in seen:
            continue
        seen.add(k)
        found |= {t for t in range(L.NUM_TYPES) if _py_feasible(cur, t)}
        todo.extend(_plays(cur))
    return found


def random_mat_position(rng) -> tuple[str, dict]:
    """Seat 0's mat at random (sometimes with an empty reserve), the board partly filled by seats
    1 and 2, and a random hand of up to 6 cards."""
    wh = [int(rng.integers(0, 5)) for _ in range(3)]
    cloth = [int(rng.choice([0, 0, 1, 4, 4, 2])) for _ in range(int(rng.integers(1, 4)))]
    ships = int(rng.integers(0, 4))
    houses = [int(rng.random() < 0.3) for _ in range(3)]
    hand = [0] * 9
    for _ in range(int(rng.integers(0, 7))):
        hand[int(rng.integers(0, 9))] += 1
    budget = [40, 40]  # cubes of seats 1 and 2 for filling the board

    def fill(x: int) -> tuple[int, int]:
        k = 0 if budget[0] >= budget[1] else 1
        x = min(x, budget[k])
        budget[k] -= x
        return (x, 0) if k == 0 else (0, x)

    mine = 40 - sum(wh) - sum(cloth)
    drain = mine if rng.random() < 0.25 else 0  # seat 0's spare cubes to Barcelona/Lisbon/London
    lines = ["players 3", LAYOUT]
    for c in range(6):
        own = min(drain, 12) if c < 3 else 0
        drain -= own
        a, b = fill(min(int(rng.choice([0, 3, 11, 12, 12])), 12 - own))
        lines.append(f"city {L.CITY_NAMES[c]}: {own} {a} {b}")
    for bi, key in enumerate(("fiore", "miniato", "croce")):
        for r, res in enumerate(L.RESOURCE_NAMES):
            a, b = fill(int(rng.choice([0, 0, L.CHURCH_SLOT_TABLE[bi][r]])))
            lines.append(f"contrib {key} {res}: 0 {a} {b}")
        a, b = fill(int(rng.choice([0, L.ART_SLOT_TABLE[bi]])))
        lines.append(f"art {key}: 0 {a} {b}")
    cards = " ".join(L.ACTION_NAMES[t] for t in range(9) for _ in range(hand[t]))
    hs = " ".join(L.CITY_NAMES[3 + k] for k in range(3) if houses[k])
    lines.append(f"p0: wood {wh[0]} brick {wh[1]} marble {wh[2]} cloth {' '.join(map(str, cloth))} ships {ships}"
                 + (f" houses {hs}" if hs else "") + (f" hand {cards}" if cards else ""))
    text = "\n".join(lines)
    st = state_from_ascii(text)
    m = {
        "hand": hand, "wh": wh, "reserve": int(st[L.RESERVE]), "cloth": cloth, "ships": ships, "houses": houses,
        "trade_free": [int(city_free(st, 3 + k)) for k in range(3)],
        "port_free": [int(city_free(st, c)) for c in range(3)],
        "church_free": [[int(church_free(st, b, r)) for r in range(3)] for b in range(3)],
        "art_free": [int(art_free(st, b)) for b in range(4)],
    }
    return text, m


def test_the_card_play_search_finds_exactly_what_any_sequence_of_real_choices_can_reach():
    rng = np.random.default_rng(11)
    nontrivial = 0
    for _ in range(250):
        text, m = random_mat_position(rng)
        st = state_from_ascii(text)
        v = np.zeros(VLEN, dtype=np.int64)
        fill_mat(st, 0, v)
        direct = {t for t in range(9) if can_do(v, t)}
        assert direct == {t for t in range(9) if _py_feasible(m, t)}, text
        want = brute_force_achievable(m)
        for goal in ((1 << 9) - 1, 1 << int(rng.integers(9)), int(rng.integers(1, 1 << 9))):
            got = search_achievable(v, goal, False)
            assert {t for t in range(9) if (got >> t) & 1} == {t for t in want if (goal >> t) & 1}, text
            assert bool(search_achievable(v, goal, True)) == any((goal >> t) & 1 for t in want), text
        nontrivial += want != direct
    assert nontrivial > 30


# =================================================================================================
# conservation (checked at every step of the fuzz tests)
# =================================================================================================
def test_the_conservation_invariant_holds_in_play_and_names_what_went_missing():
    st = midgame(4, 2, steps=150)
    assert GAME.invariant_errors(st) == []
    cases = [
        (L.RESERVE + 1, -1, "player 1: 39 cubes"),
        (L.COLOURED + 2, -1, "player 2: 9 coloured discs"),
        (L.WHITE + 0, 1, "white discs, not 8"),
        (L.HAND + 9 * 3 + L.SHIP, 1, "action cards by type"),
        (L.SHIPS + 0, 4 - int(st[L.SHIPS]), "player 0: 4 ships"),
        (L.WORKSHOPS + 1, 4 - int(st[L.WORKSHOPS + 1]), "player 1: 4 workshops"),
    ]
    for slot, delta, message in cases:
        bad = st.copy()
        bad[slot] += delta
        errors = GAME.invariant_errors(bad)
        assert any(message in e for e in errors), (message, errors)
    bad = st.copy()
    dealt = int(bad[L.DEALT])
    bad[L.DEALT + 3] = dealt  # a scoring card twice
    assert any("scoring cards" in e for e in GAME.invariant_errors(bad))
