"""Cultivo's observation (v1, issue 50): every pending choice is shown to every seat, the travel's
path in order with its canals, no silent clipping, the end shows no pending decision, and the env
docstring's table is the layout."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_cultivo_rules import at, play, strings  # the rules tests' position helpers

import cultivo_env
from cultivo_env import layout as L
from cultivo_env import notation
from cultivo_env.game import GAME, state_from_ascii
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_PHASE, H_TERMINAL

GRAY = {0: "V3.2", 1: "V6.1"}


def phase(state: np.ndarray) -> str:
    return L.PHASE_NAMES[int(state[H_PHASE])]


def views(state: np.ndarray, seat: int) -> dict[str, np.ndarray]:
    """Seat ``seat``'s observation of ``state`` as the named views."""
    n = int(state[H_NPLAYERS])
    obs = np.empty(L.obs_len(n), dtype=np.int8)
    GAME.kernels.observe(state, seat, obs)
    return GAME.observation_views(obs, GAME.make_params(n))


def field(state: np.ndarray, name: str) -> int:
    return notation.parse_field(state, name)


def flags(state: np.ndarray, seat: int, flag: int) -> list[str]:
    """Names of the fields whose FIELD_FLAGS entry ``flag`` is set in ``seat``'s observation."""
    f = views(state, seat)["FIELD_FLAGS"][:, flag]
    return sorted(notation.field_name(state, int(i)) for i in np.flatnonzero(f))


# ---- pending choices ------------------------------------------------------------------------------
def test_the_worker_chosen_to_move_is_shown_to_every_seat():
    env = at(workers={0: "V3.2 V5.5", 1: "V6.1"}, goods={0: "y4"})
    play(env, "move a worker")
    assert strings(env) == ["move the worker on V3.2", "move the worker on V5.5"]
    before = env.get_state()
    seen = set()
    for worker in ("V3.2", "V5.5"):
        env.set_state(before)
        play(env, f"move the worker on {worker}")
        st = env.state_array
        assert phase(st) == "move_target"
        for seat in range(2):
            assert flags(st, seat, L.FF_MOVER) == [worker]
            assert views(st, seat)["PATH_STEP"].sum() == 0  # no path yet: the target comes first
            seen.add((seat, views(st, seat)["FIELD_FLAGS"].tobytes()))
    assert len(seen) == 4
    play(env, "move to V5.4 (blue)")  # a step within the village, free: the move is over
    assert phase(env.state_array) == "action" and flags(env.state_array, 0, L.FF_MOVER) == []


def test_the_field_chosen_to_build_on_is_shown_during_the_stalls():
    kit = {0: "blue barrel, red barrel, green stall"}
    env = at(workers={0: "V3.3 V3.1", 1: "V6.1"}, goods={0: "b2 r2 y4 g2"}, equipment=kit)
    play(env, "build")
    assert strings(env) == ["build the castle on V3.1", "build the monastery on V3.3"]
    before = env.get_state()
    for where, kind in (("V3.1", "castle"), ("V3.3", "monastery")):
        env.set_state(before)
        play(env, f"build the {kind} on {where}")
        st = env.state_array
        assert phase(st) == "stall"
        for seat in range(2):
            v = views(st, seat)
            assert flags(st, seat, L.FF_BUILD) == [where]
            assert v["ACT"][L.ACT_BUILD] == 1 and v["PHASE"][L.PH_STALL] == 1
            assert v["STALL"].tolist() == [0, 0, 1, 0, 0, 0]  # the green stall decides
    play(env, "green stall: no substitution")
    assert flags(env.state_array, 0, L.FF_BUILD) == []  # built: the action is over


def test_the_stall_decisions_so_far_are_shown():
    kit = {0: "blue barrel, orange stall, green stall"}
    env = at(workers={0: "V3.3", 1: "V6.1"}, goods={0: "b2 y4 o2 g2"}, equipment=kit)
    play(env, "build")
    st = env.state_array
    assert phase(st) == "stall" and views(st, 1)["STALL"][L.ORANGE] == 1
    assert not views(st, 1)["STALLS_DONE"].any()
    orange_choices = [s for s in strings(env) if s.startswith("orange stall")]
    assert "orange stall: no substitution" in orange_choices and len(orange_choices) >= 2
    before = env.get_state()
    seen = {}
    for choice in orange_choices:
        env.set_state(before)
        play(env, choice)
        st = env.state_array
        if phase(st) != "stall":
            continue
        for seat in range(2):
            v = views(st, seat)
            assert v["STALL"][L.GREEN] == 1
            done = v["STALLS_DONE"]
            assert done[L.ORANGE, 0] == 1 and not np.delete(done, L.ORANGE, axis=0).any()
            row = done[L.ORANGE]
            if choice.endswith("no substitution"):
                assert not row[1:].any()
            else:  # "orange stall: 1 orange for 1 X (supply)"
                x = L.COLOURS.index(choice.split(" for 1 ")[1].split(" ")[0])
                assert row[1 + x] == 1 and row[1:7].sum() == 1 and row[7] == 1 and not row[8:].any()
            seen[(seat, v["STALLS_DONE"].tobytes())] = choice
    assert len(seen) == 2 * len([c for c in orange_choices])


def test_a_stall_decision_replacing_a_good_paid_to_a_seat_names_that_seat_relative():
    kit = {0: "blue barrel, orange stall, green stall"}
    env = at(3, workers={0: "V3.3", 1: "V6.1", 2: "V7.1"}, goods={0: "b2 y4 o2 g2"}, equipment=kit)
    play(env, "build")
    st = env.get_state()
    assert phase(st) == "stall"
    # a hand-made decision of the orange stall: a red good paid to the seat 2 places after the payer
    st[L.STALL_CHOICE] = 1 + L.NUM_COLOURS * 2 + L.RED
    st[L.STALL_K] = 1
    for seat in range(3):
        row = views(st, seat)["STALLS_DONE"][L.ORANGE]
        assert row[0] == 1 and row[1 + L.RED] == 1 and row[7] == 0
        assert row[8 + (2 - seat) % 3] == 1 and row[8:].sum() == 1


# ---- the travel -----------------------------------------------------------------------------------
def test_the_path_is_shown_in_order_with_the_canals_it_crossed():
    env = at(workers=GRAY, goods={0: "r4 b4 g4 o4 y8"})
    play(env, "move a worker", "move to V3.4 (green)")
    st = env.state_array
    assert flags(st, 1, L.FF_TARGET) == ["V3.4"] and flags(st, 1, L.FF_MOVER) == ["V3.2"]
    play(env, "step to V3.1", "step across a canal to V1.2")
    st = env.state_array
    assert phase(st) == "step"
    for seat in range(2):
        step = views(st, seat)["PATH_STEP"]
        assert {notation.field_name(st, int(f)): int(step[f]) for f in np.flatnonzero(step)} == {
            "V3.2": 1, "V3.1": 2, "V1.2": 3}
        assert flags(st, seat, L.FF_POSITION) == ["V1.2"]
        assert flags(st, seat, L.FF_CANAL) == ["V1.2"]  # V3.1 -> V1.2 crossed a canal, V3.2 -> V3.1 did not
        assert flags(st, seat, L.FF_PASSED) == []  # not paying yet
    # the same fields in another order are another observation
    env2 = at(workers=GRAY, goods={0: "r4 b4 g4 o4 y8"})
    play(env2, "move a worker", "move to V3.4 (green)", "step to V3.1")
    assert not np.array_equal(views(env2.state_array, 0)["PATH_STEP"], views(st, 0)["PATH_STEP"])


def test_the_fields_passed_are_flagged_while_the_travel_is_paid():
    env = at(workers={0: "V1.3 V5.5", 1: "V1.2 V6.1"}, goods={0: "o1 b1"}, equipment={0: "blue stall"})
    play(env, "move a worker", "move the worker on V1.3", "move to V1.1 (yellow)")
    st = env.state_array
    assert phase(st) == "pay"
    for seat in range(2):
        v = views(st, seat)
        assert flags(st, seat, L.FF_PASSED) == ["V1.2"] and flags(st, seat, L.FF_POSITION) == ["V1.1"]
        assert flags(st, seat, L.FF_CANAL) == []
        # the amount being decided: what player_1 receives of orange
        amount = v["AMOUNT"]
        assert amount[1] == 1 and amount[2 + L.ORANGE] == 1 and amount[8 + (1 - seat) % 2] == 1
        assert amount.sum() == 3
        # the payer's total of orange (1: the blue stall pays for the other) stands at the supply
        assert v["PAY_SUPPLY"][L.ORANGE].tolist() == [0, 1] and not v["PAY_SEATS"].any()


# ---- counts past 127 ------------------------------------------------------------------------------
@pytest.mark.parametrize(("held", "shown"), [
    (0, [0, 0, 0]), (127, [1, 27, 0]), (128, [1, 28, 0]), (12_700, [127, 0, 0]), (12_799, [127, 99, 0]),
    (12_800, [127, 99, 1]), (10**9, [127, 99, 1]),
])
def test_goods_are_hundreds_and_the_rest_with_a_saturation_flag(held, shown):
    st = state_from_ascii(num_players=3, workers={0: "V3.2", 1: "V6.1", 2: "V7.1"})
    st[L.GOODS_S + L.NUM_COLOURS * 1 + L.BLUE] = held
    for seat in range(3):
        goods = views(st, seat)["GOODS"]
        assert goods[(1 - seat) % 3, L.BLUE].tolist() == shown
        assert goods[(0 - seat) % 3, L.BLUE].tolist() == [0, 0, 0]


@pytest.mark.parametrize(("rounds", "shown"), [(0, [0, 0]), (127, [1, 27]), (128, [1, 28]), (9_999, [99, 99]),
                                               (10_000, [100, 0])])
def test_rounds_are_hundreds_and_the_rest(rounds, shown):
    st = state_from_ascii(num_players=2, workers=GRAY, round=min(rounds, 9_999), max_rounds=10_000)
    st[L.ROUND] = rounds  # the cap (max_rounds <= 10000) is the largest value the rules reach
    assert views(st, 0)["ROUND"].tolist() == shown
    hi = GAME.obs_high_vector(GAME.make_params(2))
    lay = L.OBS[2]["ROUND"]
    assert (np.array(shown) <= hi[lay.offset:lay.end]).all()


@pytest.mark.parametrize("amount", [0, 99, 127, 128, 150, L.MAX_AMOUNT - 1])
def test_payments_are_hundreds_and_the_rest(amount):
    st = state_from_ascii(num_players=3, workers={0: "V3.2", 1: "V6.1", 2: "V7.1"})
    st[L.AGG + L.NUM_COLOURS * L.SUPPLY + L.YELLOW] = amount
    st[L.AGG + L.NUM_COLOURS * 2 + L.RED] = amount
    for seat in range(3):
        v = views(st, seat)
        assert v["PAY_SUPPLY"][L.YELLOW].tolist() == [amount // 100, amount % 100]
        assert v["PAY_SEATS"][(2 - seat) % 3, L.RED].tolist() == [amount // 100, amount % 100]
    hi = GAME.obs_high_vector(GAME.make_params(3))
    blk = L.OBS[3]["PAY_SUPPLY"]
    assert hi[blk.offset:blk.end].tolist() == [(L.MAX_AMOUNT - 1) // 100, 99] * L.NUM_COLOURS


# ---- who decides, the end ---------------------------------------------------------------------------
def test_every_seat_sees_who_is_to_move_and_the_kind_of_decision():
    env = at(3, workers={0: "V3.2", 1: "V6.1", 2: "V7.1"}, current=1)
    st = env.state_array
    for seat in range(3):
        v = views(st, seat)
        assert np.flatnonzero(v["OWNER"]).tolist() == [(1 - seat) % 3]
        assert np.flatnonzero(v["PHASE"]).tolist() == [L.PH_ACTION]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_terminal_observation_shows_no_pending_decision(n):
    env = cultivo_env.raw_env(num_players=n, max_rounds=3)
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    while not env.state_array[H_TERMINAL]:
        env.step(int(rng.choice(env.legal_actions())))
    st = env.state_array
    pending = ("PHASE", "ACT", "OWNER", "PAY_SUPPLY", "PAY_SEATS", "AMOUNT", "STALL", "STALLS_DONE", "SLOT",
               "SPLIT", "PATH_STEP", "FIELD_FLAGS", "ACTIONS_LEFT")
    assert set(GAME.obs_pending_blocks) <= set(pending)
    for seat in range(n):
        v = views(st, seat)
        assert [k for k in pending if v[k].any()] == []
        assert v["ROUND"].tolist() == [0, 3] and v["START"][(0 - seat) % n] == 1
        assert v["FIELD_COLOUR"].sum() == L.NUM_FIELDS[n] and v["WORKERS"].sum() >= n


# ---- faithfulness of the choices that were hidden in v0 --------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_siblings_of_a_move_build_or_stall_decision_are_told_apart(n):
    """Random games: at every move_worker, build and stall decision, the children of the legal
    actions give every seat distinct observations whenever their views differ."""
    kernels = GAME.kernels
    params = GAME.make_params(n)
    mask = np.zeros(GAME.num_actions(params), dtype=np.int8)
    obs = np.empty(L.obs_len(n), dtype=np.int8)
    state = np.zeros(kernels.STATE_LEN, dtype=np.int64)
    rng = np.random.default_rng(n)
    branched = {"move_worker": 0, "build": 0, "stall": 0}
    for g in range(6):
        kernels.init(state, params, 50 + g)
        while not state[H_TERMINAL]:
            kernels.legal_mask(state, mask)
            legal = np.flatnonzero(mask)
            kind = phase(state)
            if kind in branched and branched[kind] < 12:
                branched[kind] += 1
                for seat in range(n):
                    seen = {}
                    for a in legal:
                        child = state.copy()
                        kernels.apply(child, int(a))
                        kernels.observe(child, seat, obs)
                        view = json.dumps(GAME.to_dict(child, viewer=seat), sort_keys=True)
                        assert seen.setdefault(obs.tobytes(), view) == view, (kind, seat)
            kernels.apply(state, int(legal[rng.integers(len(legal))]))
    assert branched["move_worker"] > 0 and branched["build"] + branched["stall"] > 0


# ---- the table is the layout ----------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_views_have_the_documented_shapes_and_fit_the_high_vector(n):
    params = GAME.make_params(n)
    lay = L.OBS[n]
    nf = int(L.NUM_FIELDS[n])
    expected = {
        "FIELD_COLOUR": (nf, 6), "FIELD_WORKER": (nf, n), "FIELD_BUILDING": (nf, n), "PATH_STEP": (nf,),
        "FIELD_FLAGS": (nf, 6), "GOODS": (n, 6, 3), "EQUIPMENT": (n, 6, 6), "WORKERS": (n,), "BUILT": (n, 6),
        "VP_TILES": (n,), "MARKET": (5, 5, 2, 6), "ROUND": (2,), "PAY_SUPPLY": (6, 2), "PAY_SEATS": (n, 6, 2),
        "AMOUNT": (8 + n,), "STALLS_DONE": (6, 8 + n), "OWNER": (n,), "START": (n,), "PHASE": (15,),
    }
    v = GAME.observation_views(np.zeros(L.obs_len(n), dtype=np.int8), params)
    for name, shape in expected.items():
        assert v[name].shape == shape, name
    assert list(v) == list(L.OBS_BLOCKS)
    assert [int(L.OBS_OFF[n, k]) for k in range(len(L.OBS_BLOCKS))] == [lay.offset(b) for b in L.OBS_BLOCKS]
    doc = cultivo_env.env.__doc__
    for b in lay.blocks:
        assert f"`{b.name}`" in doc and b.shape_text() in doc, b.name
    assert f"| total | {L.obs_len(2)} | {L.obs_len(3)} | {L.obs_len(4)} |" in doc
    # random play stays inside the documented maxima
    hi = GAME.obs_high_vector(params)
    env = cultivo_env.raw_env(num_players=n)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    while not env.state_array[H_TERMINAL]:
        st = env.state_array
        o = views(st, int(st[H_CURRENT]))
        flat = np.concatenate([x.reshape(-1) for x in o.values()])
        assert (flat >= 0).all() and (flat <= hi).all()
        env.step(int(rng.choice(env.legal_actions())))
