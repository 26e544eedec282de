"""OpenSpiel adapter (``gamecore.openspiel``) under bad input: every public entry that takes a
player, a viewer, an action, a seed or a sampler refuses a wrong kind with TypeError and a wrong
value with ValueError (IllegalActionError for an action applied), before any kernel sees it (numba
checks no bounds: a seat of 99 in the observe kernel wrote outside the observation and killed the
process), and changes nothing; no seat number shows more than a seat may know. Also the
serialization and pickling that pyspiel allows a Python game (``docs/compatibility.md``)."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs open_spiel (the dev extra)")

from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation  # noqa: E402

import gamecore.openspiel as gos  # noqa: E402
from conftest import GAME_NAMES, GAME_PLAYERS, game_module  # noqa: E402
from gamecore.protocol import VIEW_ALL, VIEW_PUBLIC  # noqa: E402

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
