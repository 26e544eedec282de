"""OpenSpiel adapter (``gamecore.envs.openspiel``) under bad input: every public entry that takes a
player, a viewer, an action, a seed or a sampler refuses a wrong kind with TypeError and a wrong
value with ValueError (IllegalActionError for an action applied), before any kernel sees it (numba
checks no bounds: a seat of 99 in the observe kernel wrote outside the observation and killed the
process), and changes nothing; no seat number shows more than a seat may know. Also the
serialization and pickling that pyspiel allows a Python game (``docs/compatibility.md``)."""

from __future__ import annotations

import base64
import copy
import json
import os
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs open_spiel (the dev extra)")

from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation  # noqa: E402

import gamecore.envs.openspiel as gos  # noqa: E402
from conftest import GAME_NAMES, GAME_PLAYERS, game_module  # noqa: E402
from gamecore.kernel.protocol import HEADER_LEN, VIEW_ALL, VIEW_PUBLIC  # noqa: E402

WRONG_KIND = (2.5, True, np.bool_(False), "0", None)


def bad_seats(n: int) -> list:
    return [-2, -1, n, 99, 2**40, *WRONG_KIND]


def error_for(value) -> type[Exception]:
    return ValueError if isinstance(value, int) and not isinstance(value, bool) else TypeError


def load(name: str, **params):
    return pyspiel.load_game(gos.SHORT_NAMES[name], params)


def midgame(name: str, n: int, moves: int = 12):
    game = load(name, players=n, seed=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(n)
    for _ in range(moves):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return game, state


def unchanged(state, array: np.ndarray, history: list[int]) -> bool:
    return np.array_equal(state.state_array, array) and state.history() == history


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_observers_and_view_string_refuse_every_other_seat_number(name, n):
    """``set_from`` / ``string_from`` of both observers and ``view_string`` take a seat 0..n-1 and
    nothing else (-1, -2 gave the public / all-seeing view, 99 crashed Calçada and Calimala); a
    refused call leaves the observer's tensor and the state as they were."""
    game, state = midgame(name, n)
    spec = game_module(name).GAME
    array, history = state.state_array.copy(), state.history()
    for obs in (make_observation(game), make_observation(game, INFO_STATE_OBS_TYPE)):
        obs.set_from(state, 0)
        tensor = obs.tensor.copy()
        for p in bad_seats(n):
            with pytest.raises(error_for(p), match=r"set_from: player must be (a seat 0\.\.|an int)"):
                obs.set_from(state, p)
            with pytest.raises(error_for(p), match=r"string_from: player must be (a seat 0\.\.|an int)"):
                obs.string_from(state, p)
            assert np.array_equal(obs.tensor, tensor) and unchanged(state, array, history)
        for p in range(n):  # what is accepted is exactly the seat's own view
            obs.set_from(state, np.int64(p))
            assert obs.tensor.tolist() == list(state.observation_tensor(p))
            assert obs.string_from(state, p) == state.view_string(p) == state.observation_string(p)
            assert f'"viewer":{p}' in state.view_string(p)
    for p in bad_seats(n):
        with pytest.raises(error_for(p), match="view_string"):
            state.view_string(p)
    assert unchanged(state, array, history)
    if spec.hides_information(n):  # seat 0's view is not the all-seeing one
        assert state.view_string(0) != json.dumps(spec.to_dict(state.state_array, VIEW_ALL), sort_keys=True,
                                                  separators=(",", ":")).replace('"viewer":"all"', '"viewer":0')


def test_observers_refuse_a_state_of_another_game():
    """An observer's buffers fit its own game's observation: a state of another game or player
    count (larger observations) is refused, not observed into them."""
    game = load("calcada", players=2)
    obs = make_observation(game)
    for other in (load("calcada", players=4), load("calimala", players=3)):
        with pytest.raises(ValueError, match="another game"):
            obs.set_from(other.new_initial_state(), 0)
        with pytest.raises(ValueError, match="another game"):
            obs.string_from(other.new_initial_state(), 0)
    with pytest.raises(TypeError, match="state must be a tabletop_calcada state"):
        obs.set_from(np.zeros(10), 0)


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_state_methods_refuse_bad_players(name, n):
    game, state = midgame(name, n)
    array, history = state.state_array.copy(), state.history()
    legal = state.legal_actions()[0]
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    calls = {
        "observation_string": lambda p: state.observation_string(p),
        "observation_tensor": lambda p: state.observation_tensor(p),
        "information_state_string": lambda p: state.information_state_string(p),
        "information_state_tensor": lambda p: state.information_state_tensor(p),
        "legal_actions": lambda p: state.legal_actions(p),  # 99 gave [] (pyspiel asks no Python)
        "legal_actions_mask": lambda p: state.legal_actions_mask(p),
        "action_to_string": lambda p: state.action_to_string(p, legal),
        "player_return": lambda p: state.player_return(p),
        "player_reward": lambda p: state.player_reward(p),
        "resample_from_infostate": lambda p: state.resample_from_infostate(p, sampler),
    }
    for what, call in calls.items():
        for p in bad_seats(n):
            with pytest.raises(error_for(p), match=what):
                call(p)
            assert unchanged(state, array, history)
        for p in range(n):
            call(p)
    cur = state.current_player()
    assert state.legal_actions(cur) == state.legal_actions() and state.legal_actions((cur + 1) % n) == []
    done = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not done.is_terminal():
        done.apply_action(int(rng.choice(done.legal_actions())))
    assert done.legal_actions(pyspiel.PlayerId.TERMINAL) == []  # the current player's id, as pyspiel has it


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_state_methods_refuse_bad_actions(name, n):
    """``action_to_string`` (-1 named a move in Callisto, 3500 raised a raw IndexError),
    ``public_action_string``, ``apply_action``, ``child``: an action is an int
    0..num_distinct_actions-1."""
    game, state = midgame(name, n)
    array, history = state.state_array.copy(), state.history()
    num = game.num_distinct_actions()
    cur = state.current_player()
    for a in (-1, num, 2**40, 2**70, *WRONG_KIND):
        kind = error_for(a)
        with pytest.raises(kind, match=r"action_to_string: action (-?\d+ is out of range 0\.\.|must be an int)"):
            state.action_to_string(cur, a)
        with pytest.raises(kind, match="action_to_string: action"):
            state.action_to_string(a)
        with pytest.raises(kind, match="public_action_string: action"):
            state.public_action_string(a)
        applied = gos.IllegalActionError if kind is ValueError else TypeError
        for call in (state.apply_action, state.child, state.apply_action_with_legality_check):
            with pytest.raises(applied, match="action"):
                call(a)
        assert unchanged(state, array, history)
    with pytest.raises(ValueError, match="sequential game"):
        state.apply_actions([state.legal_actions()[0]])
    assert unchanged(state, array, history)
    for a in (0, num - 1):
        assert state.action_to_string(cur, a) == state.action_to_string(a) == state.public_action_string(a, cur)


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_public_action_string_checks_its_viewer(name, n):
    """``public_action_string(action, viewer)``: a seat or VIEW_PUBLIC (-1); VIEW_ALL (-2) named
    Calimala's kept scoring card to anyone who asked."""
    _, state = midgame(name, n, moves=0)
    array, history = state.state_array.copy(), state.history()
    a = state.legal_actions()[0]
    for v in (VIEW_ALL, n, 99, *WRONG_KIND):
        with pytest.raises(error_for(v), match="public_action_string: viewer"):
            state.public_action_string(a, v)
    assert unchanged(state, array, history)
    mover = state.current_player()
    shown = {v: state.public_action_string(a, v) for v in (VIEW_PUBLIC, *range(n))}
    assert shown[mover] == state.action_to_string(mover, a)
    if name == "calimala":  # the first decision keeps a dealt scoring card: a secret
        assert {shown[v] for v in shown if v != mover} == {"keep a scoring card"}


@pytest.mark.parametrize("name", GAME_NAMES)
def test_resample_from_infostate_refuses_bad_players_and_samples(name):
    n = max(game_module(name).GAME.player_counts)
    _, state = midgame(name, n)
    array, history = state.state_array.copy(), state.history()
    uniform = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for p in (2.7, 1.0, "0", True, -1, n, None):
        with pytest.raises(error_for(p), match="resample_from_infostate: player_id"):
            state.resample_from_infostate(p, uniform)
    for u in (1.5, -0.1, float("nan"), "0.5", None, True):
        with pytest.raises(ValueError, match=r"probability_sampler\(\) must return a number in \[0, 1\]"):
            state.resample_from_infostate(0, lambda u=u: u)
    assert unchanged(state, array, history)
    for u in (0.0, 0.999, 1.0, np.float32(0.5)):
        sampled = state.resample_from_infostate(n - 1, lambda u=u: u)
        assert sampled.information_state_string(n - 1) == state.information_state_string(n - 1)


def test_seeds_past_pyspiels_int_fail_clearly_and_new_initial_state_takes_them():
    """pyspiel's int game parameters are C++ ``int``: a ``seed`` of 2**31 or more fails inside
    pyspiel before the game sees it (its own error); the game's constructor refuses it with a
    ValueError that says what to do instead, ``new_initial_state(seed=s)``, which takes any
    0 <= s < 2**63 and is the env's ``reset(seed=s)``."""
    assert load("callisto", seed=gos.MAX_PARAM_SEED).get_parameters()["seed"] == 2**31 - 1
    for seed in (2**31, 2**62):
        with pytest.raises((RuntimeError, pyspiel.SpielError)):  # pybind11's cast error / pyspiel's parse check
            load("callisto", seed=seed)
        with pytest.raises(pyspiel.SpielError):
            pyspiel.load_game(f"tabletop_callisto(seed={seed})")
        with pytest.raises(ValueError, match=r"seed must be an int 0\.\.2\*\*31 - 1 .*new_initial_state\(seed=s\)"):
            gos.GAME_CLASSES["callisto"]({"seed": seed})
    with pytest.raises(TypeError, match="seed must be an int"):
        gos.GAME_CLASSES["callisto"]({"seed": 1.0})
    game = load("calcada")
    for seed in (2**31, 2**62, 2**63 - 1):
        env = game_module("calcada").raw_env()
        env.reset(seed=seed)
        assert np.array_equal(game.new_initial_state(seed=seed).state_array, env.state_array)
    with pytest.raises(ValueError, match="seed"):
        game.new_initial_state(seed=2**63)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_pickle_and_deserialize_state_restore_the_game_exactly(name):
    """``pickle`` of a game or a state works (our ``__reduce__``: pyspiel's own goes through
    ``Game::Serialize``, which needs a ``GetRNGState`` a Python game cannot implement);
    ``game.deserialize_state(state.serialize())`` is exact; neither it nor a clone made from Python
    draws a game of the seed stream."""
    game, state = midgame(name, min(game_module(name).GAME.player_counts))
    before = game._episode
    back = game.deserialize_state(state.serialize())
    state.clone(), state.child(state.legal_actions()[0]), copy.deepcopy(state)
    state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert game._episode == before  # pyspiel builds each from a new_initial_state(): not a game of the stream
    assert np.array_equal(back.state_array, state.state_array) and back.history() == state.history()
    game2, state2 = pickle.loads(pickle.dumps((game, state)))
    assert state2.get_game() is game2 and game2 == game and game2._episode == game._episode
    for s in (back, state2, copy.deepcopy(state)):
        assert np.array_equal(s.state_array, state.state_array) and s.history() == state.history()
    for s in (state, back, state2):  # the same future: the generator travels in the array
        rng = np.random.default_rng(7)
        for _ in range(20):
            if not s.is_terminal():
                s.apply_action(int(rng.choice(s.legal_actions())))
    assert np.array_equal(back.state_array, state.state_array) and np.array_equal(state2.state_array, state.state_array)
    assert np.array_equal(game2.new_initial_state().state_array, game.new_initial_state().state_array)
    fresh = load(name, seed=-1)  # a stream drawn from entropy travels too
    assert np.array_equal(copy.deepcopy(fresh).new_initial_state().state_array, fresh.new_initial_state().state_array)
    # documented: pyspiel's Game::Serialize needs GetRNGState, which a Python game cannot implement
    with pytest.raises(pyspiel.SpielError, match="GetRNGState unimplemented"):
        pyspiel.serialize_game_and_state(game, state)
    if name == "callisto":
        with pytest.raises(pyspiel.SpielError, match="GetRNGState unimplemented"):
            pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


# ---- serialization: no pickle, no unchecked state array ----------------------------------------

def pickle_form(payload) -> str:
    """pyspiel's default serialization of a Python state: its ``__dict__=`` part is a base64 pickle."""
    return "history=\nmove_number=0\n__dict__=" + base64.b64encode(pickle.dumps(payload)).decode()


class WritesMarker:
    """A pickle that, when loaded, creates a directory (any code could run there)."""

    def __init__(self, path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return os.mkdir, (self.path,)


def next_initial_states_agree(game, name: str, **params) -> bool:
    """``game``'s seed stream is where a twin loaded the same way and drawn as often has it."""
    twin = load(name, **params)
    for _ in range(game._episode):
        twin.new_initial_state()
    return np.array_equal(game.new_initial_state().state_array, twin.new_initial_state().state_array)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_deserialize_state_never_unpickles(name, tmp_path):
    """``game.deserialize_state`` refuses pyspiel's pickle form (``__dict__=``) with a ValueError
    that says why, before unpickling anything: a crafted text that names code (here a ``mkdir``)
    runs nothing, and a data-only one (a scrambled ``_state`` array, a forged ``_mask``, the
    ``os_crash`` case that segfaulted ``observation_tensor``) is refused too; pyspiel's
    ``__setstate__`` (a ``serialize_game_and_state`` text) is refused the same way. As documented,
    ``pyspiel.deserialize_game_and_state`` is pyspiel's own C++ and unpickles for every Python
    game (our override is never called): it runs the payload, and refuses the JSON that
    ``state.serialize()`` writes."""
    n = min(game_module(name).GAME.player_counts)
    game, state = midgame(name, n)
    episode = game._episode
    marker = tmp_path / "code_ran"
    evil = pickle_form(WritesMarker(marker))
    forged = {"_state": np.full(state.state_array.shape, 10**12, dtype=np.int64),
              "_mask": np.ones(game.num_distinct_actions(), dtype=np.int8), "_mask_fresh": True,
              "_num_actions": 10**6, "_params": np.zeros(3, dtype=np.int64), "_key": (name, ())}
    for text in (evil, " " + evil, evil.replace("history=", "history=0:1", 1), pickle_form(forged)):
        with pytest.raises(ValueError, match=r"deserialize_state: this is pyspiel's default serialization .*pickle"):
            game.deserialize_state(text)
    assert not marker.exists() and game._episode == episode
    cls = type(state)
    with pytest.raises(ValueError, match="__setstate__"):
        cls.__new__(cls).__setstate__(f"[Meta]\nVersion: 1\n\n[Game]\n{gos.SHORT_NAMES[name]}()\n[State]\n{evil}")
    assert not marker.exists() and next_initial_states_agree(game, name, players=n, seed=3)
    # pyspiel's own route (documented in docs/compatibility.md: never give it untrusted text)
    header = f"[Meta]\nVersion: 1\n\n[Game]\n{gos.SHORT_NAMES[name]}()\n[State]\n"
    with pytest.raises(pyspiel.SpielError):  # not its __dict__= form
        pyspiel.deserialize_game_and_state(header + state.serialize())
    with pytest.raises(Exception):  # noqa: B017  (the payload's result is no dict)
        pyspiel.deserialize_game_and_state(header + evil)
    assert marker.exists()  # pyspiel unpickled it: the hazard the docs warn of


@pytest.mark.parametrize("name", GAME_NAMES)
def test_deserialize_state_refuses_forged_texts(name):
    """A ``serialize()`` text that is not a state of this game play can continue from is refused
    with ValueError (TypeError for a non-str) before any kernel sees the array, and changes
    nothing: an array of the wrong length, of another game or player count, with values out of
    range or scrambled (the reviewer's crash case), floats, bools, ints beyond int64; another
    game's or player count's text; extra keys (a forged mask); a history that is not this game's
    actions or does not match the array's decision count; deep, huge or non-JSON text."""
    counts = game_module(name).GAME.player_counts
    n = min(counts)
    game, state = midgame(name, n)
    good = json.loads(state.serialize())
    length = len(good["state"])
    episode = game._episode

    def text(**changes) -> str:
        return json.dumps({**good, **changes})

    other = next(g for g in GAME_NAMES if g != name)
    _, foreign = midgame(other, min(game_module(other).GAME.player_counts))
    more = [json.loads(midgame(name, m)[1].serialize()) for m in counts if m != n][:1]
    rng = np.random.default_rng(0)
    scrambled = [[10**12] * length, [-1] * length, [0] * length,
                 rng.integers(-(2**62), 2**62, size=length).tolist(), rng.integers(0, 64, size=length).tolist()]
    for slot in (*range(1, HEADER_LEN), length - 1):  # the header's slots after the generator, the last
        for value in (-(2**63), -7, 99, 2**40):
            forged = list(good["state"])
            forged[slot] = value
            if forged[slot] != good["state"][slot]:
                scrambled.append(forged)
    bad_texts = [
        text(state=good["state"][:-1]), text(state=good["state"] + [0]), text(state=foreign.state_array.tolist()),
        *(text(state=s) for s in scrambled),
        text(state=[float(v) for v in good["state"]]), text(state=[True] * length),
        text(state=[2**63] + good["state"][1:]), text(state="1,2,3"),
        foreign.serialize(), text(game=gos.SHORT_NAMES[other]),
        text(params=[good["params"][0] + 1, *good["params"][1:]]), text(params=good["params"][:-1]),
        text(format="gamecore.envs.openspiel state 0"), json.dumps({**good, "_mask": [1] * 10}),
        json.dumps({k: v for k, v in good.items() if k != "history"}),
        text(history=good["history"][:-1]), text(history=good["history"] + [[0, 0]]),
        text(history=[[n, 0]] + good["history"][1:]),
        text(history=[[0, game.num_distinct_actions()]] + good["history"][1:]),
        text(history=[[0]] + good["history"][1:]), text(history={"0": 1}),
        "[" * 100_000 + "]" * 100_000, " " * 10**7, "not json", "", "null", "[]",
    ]
    for m in more:  # the same game at another player count: its text, and its array in this text
        bad_texts += [json.dumps(m), text(state=m["state"])]
    for bad in bad_texts:
        with pytest.raises(ValueError, match="deserialize_state"):
            game.deserialize_state(bad)
    for bad in (None, 3, b"{}", good):
        with pytest.raises(TypeError, match="must be a str"):
            game.deserialize_state(bad)
    assert game._episode == episode and next_initial_states_agree(game, name, players=n, seed=3)


def pairs(state) -> list[tuple[int, int]]:
    return [(pa.player, pa.action) for pa in state.full_history()]


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_serialize_is_json_and_round_trips_exactly(name, n):
    """``state.serialize()`` is one line of JSON (no pickle) and ``game.deserialize_state`` of it is
    the same state at every point of a game, the end included: the array, the history (with its
    players) and move number, legal actions, every seat's observation and information state,
    returns, rewards, the render and the same future; it draws no game of the seed stream. A state
    pickled (``__reduce__``) goes the same way."""
    game = load(name, players=n, seed=5)
    state = game.new_initial_state()
    rng = np.random.default_rng(n)
    step = 0
    while True:
        text = state.serialize()
        assert "\n" not in text and "__dict__" not in text
        assert json.loads(text)["format"] == gos.SERIALIZE_FORMAT
        episode = game._episode
        backs = (game.deserialize_state(text), pickle.loads(pickle.dumps(state)))
        assert game._episode == episode  # neither draws a game of the seed stream
        for back in backs:
            assert type(back) is type(state) and back.get_game() == game
            assert np.array_equal(back.state_array, state.state_array)
            assert pairs(back) == pairs(state) and back.move_number() == state.move_number()
            assert back.current_player() == state.current_player() and back.is_terminal() == state.is_terminal()
            assert back.legal_actions() == state.legal_actions() and back.returns() == state.returns()
            assert back.rewards() == state.rewards() and str(back) == str(state) and back.serialize() == text
            for seat in range(n):
                assert back.observation_tensor(seat) == state.observation_tensor(seat)
                assert back.information_state_string(seat) == state.information_state_string(seat)
            if not state.is_terminal():
                a = int(rng.choice(state.legal_actions()))
                assert np.array_equal(back.child(a).state_array, state.child(a).state_array)
        if state.is_terminal():
            break
        for _ in range(int(rng.integers(1, 3 + step))):
            if not state.is_terminal():
                state.apply_action(int(rng.choice(state.legal_actions())))
        step += 1
    assert next_initial_states_agree(game, name, players=n, seed=5)
