"""Calimala's observation (issue 50): every pending choice shown to every seat, no count the rules can
reach clipped, the terminal observation, and the shapes / names the env docstring's table gives."""

from __future__ import annotations

import numpy as np
import pytest

import calimala_env
from calimala_env import layout as L
from calimala_env import notation, rules
from calimala_env.game import GAME, state_from_ascii
from calimala_env.rules.scoring import final_scoring, score_tile
from calimala_env.rules.turn import place_disc, start_activation
from gamecore.envs.encoding import ObsEncoder
from gamecore.kernel.layout import table_by_count
from gamecore.kernel.protocol import H_CURRENT, H_OWNER, H_PHASE, H_TERMINAL

# a1 Wood     b1 Brick       c1 Marble
# a2 Artwork  b2 Contribute  c2 Weave
# a3 Ship     b3 Build       c3 Transport
LAYOUT = "layout Wood Brick Marble / Artwork Contribute Weave / Ship Build Transport"
BARE = f"players 3\n{LAYOUT}\n"
TURN_BLOCKS = ("SPACE", "PENDING", "ACT", "OBLIG", "EXEC", "EXEC_CARD", "EXEC_USED")


def views(st: np.ndarray, seat: int) -> dict[str, np.ndarray]:
    n = int(st[1])
    params = GAME.make_params(n)
    obs = np.zeros(GAME.obs_shape(params), dtype=np.int8)
    rules.observe(st, seat, obs)
    return {k: v.copy() for k, v in GAME.observation_views(obs, params).items()}


def seat_row(v: dict[str, np.ndarray], rel: int, field: str) -> np.ndarray:
    size = dict((name, s) for name, s, _m in L.SEAT_FIELDS)[field]
    off = L.SEAT_OFF[field]
    return v["SEATS"][rel, off: off + size]


def at(text: str) -> calimala_env.raw_env:
    st = state_from_ascii(text)
    env = calimala_env.raw_env(num_players=int(st[1]),
                               action_layout=[L.ACTION_NAMES[int(t)] for t in st[L.LAYOUT: L.LAYOUT + 9]])
    env.reset(seed=0)
    env.set_state(st)
    return env


def lower_disc(p2_line: str, street: str, extra: str = "") -> calimala_env.raw_env:
    """Seat 2 owns the disc under seat 0's new one on ``street`` and decides for it now."""
    st = state_from_ascii(BARE + f"street {street}: 2\np2: {p2_line}\n{extra}")
    place_disc(st, notation.parse_street(street), 0)
    start_activation(st, 1)
    env = at(BARE)
    env.set_state(st)
    return env


def play(env, *texts: str) -> None:
    for text in texts:
        env.step(env.string_to_action(text))


def decision_seen_by_all(env) -> list[dict[str, np.ndarray]]:
    """Every seat's views, after checking each shows the same decision kind, decider and turn owner."""
    st = env.state_array
    n = int(st[1])
    out = []
    for seat in range(n):
        v = views(st, seat)
        assert v["PHASE"].tolist().index(1) == int(st[H_PHASE]) and v["PHASE"].sum() == 1
        assert v["CURRENT"].tolist().index(1) == (int(st[H_CURRENT]) - seat) % n and v["CURRENT"].sum() == 1
        assert v["OWNER"].tolist().index(1) == (int(st[H_OWNER]) - seat) % n and v["OWNER"].sum() == 1
        out.append(v)
    return out


# =================================================================================================
# pending choices, seen by every seat
# =================================================================================================
def test_ships_used_so_far_show_in_unary_to_every_seat():
    env = lower_disc("cloth 4 ships 3", street="a2-a3")  # Artwork + Ship
    play(env, "take action Ship")
    used = []
    for _ in range(2):
        vs = decision_seen_by_all(env)
        for v in vs:
            assert v["EXEC"].tolist() == [int(t == L.SHIP) for t in range(L.NUM_TYPES)]
            assert v["EXEC_CARD"].tolist() == [0]
        used.append(vs[0]["EXEC_USED"].tolist())
        assert all(v["EXEC_USED"].tolist() == used[-1] for v in vs)
        play(env, "ship: cloth to Lisbon")
    assert used == [[0, 0, 0], [1, 0, 0]]
    play(env, "ship: cloth to Lisbon")
    assert views(env.state_array, 0)["EXEC_USED"].tolist() == [0, 0, 0]  # three ships: done, back to activate
    assert env.to_dict()["phase"] == "activate"


def test_trade_cities_served_show_as_bits_and_a_card_as_exec_card():
    env = lower_disc("cloth 4 houses Troyes Bruges Hamburg hand Transport", street="b3-c3")  # Build + Transport
    play(env, "play card Transport")
    v = decision_seen_by_all(env)[1]
    assert v["EXEC"].tolist() == [int(t == L.TRANSPORT) for t in range(L.NUM_TYPES)]
    assert v["EXEC_CARD"].tolist() == [1] and v["EXEC_USED"].tolist() == [0, 0, 0]
    play(env, "transport: cloth to Bruges")
    for v in decision_seen_by_all(env):
        assert v["EXEC_USED"].tolist() == [0, 1, 0] and v["EXEC_CARD"].tolist() == [1]
    play(env, "transport: cloth to Hamburg")
    assert views(env.state_array, 0)["EXEC_USED"].tolist() == [0, 1, 1]


def test_the_activations_pending_actions_and_the_duty_are_seen_by_every_seat():
    env = at(BARE + "street a1-b1: 2 1\n")
    play(env, "place white on street a1-b1", "take action Wood")
    for seat, v in enumerate(decision_seen_by_all(env)):
        # the placed white disc acts twice for each action: one Wood taken, the duty done
        assert v["PENDING"].tolist() == [1, 2, 0, 0, 0, 0, 0, 0, 0]
        assert v["SPACE"].tolist().index(1) == notation.parse_street("a1-b1")
        assert v["OBLIG"].tolist() == [0]
        rows = v["ACT"]
        assert rows.shape == (3, 4)
        assert rows[:, 0].tolist() == [1, 0, 0]  # activation 0 runs
        owners = [rows[i, 1:].tolist().index(1) for i in range(3)]
        assert owners == [(0 - seat) % 3, (1 - seat) % 3, (2 - seat) % 3]
        stack = v["STACKS"][notation.parse_street("a1-b1")]
        assert stack[2, :2].tolist() == [1, 1] and stack[2, 2 + (0 - seat) % 3] == 1  # white, seat 0's


@pytest.mark.parametrize("n", [3, 4, 5])
def test_setup_decisions_and_known_start_cards_are_seen_by_every_seat(n):
    env = calimala_env.raw_env(num_players=n)
    env.reset(seed=1)
    st = env.state_array
    while int(st[H_PHASE]) == L.PH_KEEP:
        decision_seen_by_all(env)
        env.step(env.legal_actions()[0])
    taker = int(st[H_CURRENT])
    decision_seen_by_all(env)
    play(env, "take start card Marble")
    for seat in range(n):
        v = views(env.state_array, seat)
        assert v["START_LEFT"].tolist() == [1, 1, 0, 1, 1]
        for q in range(n):
            known = seat_row(v, (q - seat) % n, "known").tolist()
            assert known == [int(q == taker and t == L.MARBLE) for t in range(L.NUM_TYPES)]


def test_my_kept_card_shows_once_kept_and_only_to_me():
    env = calimala_env.raw_env(num_players=3)
    env.reset(seed=2)
    st = env.state_array
    keeper = int(st[H_CURRENT])
    before = [views(st, s)["MY_KEPT"].sum() for s in range(3)]
    env.step(env.legal_actions()[0])
    after = [views(env.state_array, s)["MY_KEPT"].sum() for s in range(3)]
    assert before == [0, 0, 0] and after == [int(s == keeper) for s in range(3)]


# =================================================================================================
# no silent saturation: VP at the rules' bound
# =================================================================================================
@pytest.mark.parametrize(("n", "bound"), [(3, 65), (4, 70), (5, 70)])
def test_the_vp_bound_is_what_a_seat_first_alone_in_every_scoring_gets(n, bound):
    """Seat 0 alone has something in every category: each of the 15 tiles gives it 3, each final
    card (every kept card and the face-up one) 5; the observation shows the bound, unclipped."""
    assert L.max_vp(n) == bound
    kept = {3: ["Lisbon", "Troyes", "Palazzo Vecchio"], 4: ["Lisbon", "Troyes", "Bruges", "Hamburg"],
            5: ["Lisbon", "Troyes", "Bruges", "Hamburg", "San Miniato"]}[n]
    zeros = " ".join(["0"] * (n - 1))
    lines = [f"players {n}", "council 0"]
    lines += [f"city {c}: 1 {zeros}" for c in L.CITY_NAMES]
    lines += [f"contrib {b} {r}: 1 {zeros}" for b, r in (("fiore", "wood"), ("miniato", "brick"), ("croce", "marble"))]
    lines += [f"p{p}: kept {k}" for p, k in enumerate(kept)]
    if n < 5:
        lines.append("faceup Barcelona")
    st = state_from_ascii("\n".join(lines))
    for _ in range(L.NUM_SEATS):
        score_tile(st, np.int64(-1))
    final_scoring(st)
    assert int(st[L.VP]) == bound and not st[L.VP + 1: L.VP + n].any()
    for seat in range(n):
        assert seat_row(views(st, seat), (0 - seat) % n, "vp").tolist() == [bound]
    params = GAME.make_params(n)
    high = GAME.obs_high_vector(params)
    vp_entries = [L.OBS_SEAT * rel + L.OS_VP for rel in range(n)]
    assert high[vp_entries].tolist() == [bound] * n
    obs = np.zeros(GAME.obs_shape(params), dtype=np.int8)
    rules.observe(st, 0, obs)
    assert ObsEncoder(GAME, params, "scaled")(obs)[vp_entries[0]] == 1.0


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_documented_vp_range_is_the_bound(n):
    text = L.OBS[n]["SEATS"].range_text()
    assert "vp 0..65 / 70 / 70" in text and "never clipped" in text
    assert "65 / 70 / 70" in calimala_env.env.__doc__


def test_beyond_the_bound_only_a_hand_built_position_clips_at_127():
    for vp in (70, 127, 128, 500):
        st = state_from_ascii(f"players 3\np1: vp {vp}")
        assert seat_row(views(st, 0), 1, "vp").tolist() == [min(vp, 127)]


def test_a_hand_of_every_card_is_shown_unclipped():
    hand = " ".join(name for t, name in enumerate(L.ACTION_NAMES) for _ in range(L.CARD_COPIES[t]))
    st = state_from_ascii(f"players 3\np1: hand {hand}")
    v = views(st, 1)
    assert seat_row(v, 0, "hand_count").tolist() == [L.NUM_CARDS]
    assert seat_row(views(st, 0), 1, "hand_count").tolist() == [L.NUM_CARDS]
    assert v["MY_HAND"].tolist() == list(L.CARD_COPIES) and v["DECK_N"].tolist() == [0]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_play_stays_within_every_documented_maximum(n):
    params = GAME.make_params(n)
    high = GAME.obs_high_vector(params)
    st = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(st, params, 11 + n)
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    obs = np.zeros(GAME.obs_shape(params), dtype=np.int8)
    rng = np.random.default_rng(n)
    while True:
        for seat in range(n):
            rules.observe(st, seat, obs)
            assert (obs >= 0).all() and (obs <= high).all()
        if st[H_TERMINAL]:
            break
        rules.legal_mask(st, mask)
        rules.apply(st, int(rng.choice(np.flatnonzero(mask))))


# =================================================================================================
# the terminal observation
# =================================================================================================
@pytest.mark.parametrize("n", [3, 4, 5])
def test_once_the_game_is_over_no_decision_and_no_turn_is_shown(n):
    params = GAME.make_params(n)
    st = np.zeros(L.STATE_LEN, dtype=np.int64)
    rules.init(st, params, 5 + n)
    mask = np.zeros(L.NUM_ACTIONS, dtype=np.int8)
    rng = np.random.default_rng(5)
    while not st[H_TERMINAL]:
        rules.legal_mask(st, mask)
        rules.apply(st, int(rng.choice(np.flatnonzero(mask))))
    assert set(GAME.obs_pending_blocks) == {"PHASE", "OWNER", "CURRENT"}
    for seat in range(n):
        v = views(st, seat)
        for block in (*GAME.obs_pending_blocks, *TURN_BLOCKS):
            assert not v[block].any(), block
        # everything else is the final position
        assert v["START"].tolist().index(1) == (int(st[L.START]) - seat) % n
        assert v["NEXT_SEAT"].tolist().index(1) == L.NUM_SEATS and v["END"].tolist() == [1]
        assert v["SEAT_OWNER"].sum(axis=1).tolist() == [1] * L.NUM_SEATS  # every seat scored
        for q in range(n):
            assert seat_row(v, (q - seat) % n, "vp").tolist() == [int(st[L.VP + q])]


def test_the_docstring_states_the_terminal_convention_and_what_is_left_out():
    doc = calimala_env.env.__doc__
    assert "Terminal observation (house convention)" in doc
    for key, reason in GAME.obs_leaves_out.items():
        assert f"* `{key}`: {reason}." in doc
    assert GAME.env_id == "calimala-v1" and "* v1: observation" in doc and '"calimala-v1"' in doc


# =================================================================================================
# the docstring's table is the layout; named views in its shapes
# =================================================================================================
def test_the_docstring_prints_the_layouts_table():
    assert table_by_count(L.OBS, markdown=True) in calimala_env.env.__doc__


@pytest.mark.parametrize("n", [3, 4, 5])
def test_multi_axis_blocks_have_their_shapes(n):
    want = {"SEATS": (n, L.OBS_SEAT), "LAYOUT": (9, 9), "STACKS": (12, 4, 7), "TILES": (15, 15),
            "SEAT_OWNER": (15, n + 1), "COUNCIL_ART": (4, n), "ACT": (3, n + 1)}
    lay = L.OBS[n]
    assert {b.name: b.axes for b in lay.blocks if len(b.axes) > 1} == want
    params = GAME.make_params(n)
    obs = np.arange(lay.size, dtype=np.int64)
    v = GAME.observation_views(obs, params)
    assert list(v) == lay.names()
    for b in lay.blocks:
        assert v[b.name].shape == b.axes and v[b.name].reshape(-1).tolist() == list(range(b.offset, b.end))
    # a seat row holds the fields in the documented order
    assert sum(s for _n, s, _m in L.SEAT_FIELDS) == L.OBS_SEAT == 46


def test_a_seat_row_is_that_seats_mat():
    st = state_from_ascii(BARE + "p1: wood 1 brick 2 marble 3 cloth 4 1 ships 2 houses Bruges vp 9\n"
                  "city Hamburg: 0 5 0\ncontrib croce brick: 0 2 0\nart miniato: 0 1 0")
    v = views(st, 2)
    row = 2  # seat 1 seen from seat 2: (1 - 2) mod 3
    assert seat_row(v, row, "wh").tolist() == [1, 2, 3]
    assert seat_row(v, row, "cloth").tolist() == [4, 1, 0] and seat_row(v, row, "workshops").tolist() == [2]
    assert seat_row(v, row, "ships").tolist() == [2] and seat_row(v, row, "houses").tolist() == [0, 1, 0]
    assert seat_row(v, row, "vp").tolist() == [9]
    assert seat_row(v, row, "cities").tolist() == [0, 0, 0, 0, 0, 5]
    assert seat_row(v, row, "contrib").reshape(3, 3)[2].tolist() == [0, 2, 0]  # Santa Croce: brick
    assert seat_row(v, row, "art").tolist() == [0, 1, 0, 0]
    assert seat_row(v, row, "reserve").tolist() == [40 - 6 - 5 - 5 - 2 - 1]
