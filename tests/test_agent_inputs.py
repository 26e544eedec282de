"""Bad input at the agents' ``act()``, the search functions, ``SelfPlayVecEnv`` and
``BatchedGames.forfeit``: one clear error before any kernel sees it, nothing changed (issue 18,
items 3, 4, 6 and 9), and the bounds-checked fuzz of every agent's ``act()`` inputs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import GAME_NAMES, game_module, play_random
from gamecore.envs.batched import BatchedGames, RandomOpponent
from gamecore.kernel.games import get_game
from gamecore.kernel.options import short_repr
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_TERMINAL
from gamecore.search import mcts as M
from gamecore.search.agents import GreedyAgent, MCTSAgent, RandomAgent, make_agent, parse_spec

HERE = Path(__file__).parent


def position(name: str, steps: int = 5, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(state, legal mask) of a running game at the default player count."""
    env = game_module(name).raw_env()
    env.reset(seed=seed)
    play_random(env, np.random.default_rng(seed), max_steps=steps)
    assert not env.state_array[H_TERMINAL]
    return env.get_state(), env.observe(env.agent_selection)["action_mask"]


def search_agents(name: str):
    return [GreedyAgent(name, seed=0, depth=1), MCTSAgent(name, seed=0, budget=4)]


def refused(call, *args, match: str | None = None):
    """``call(*args)`` raises ValueError or TypeError and leaves its array arguments unchanged."""
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises((ValueError, TypeError), match=match):
        call(*args)
    for a, b in zip(args, before, strict=True):
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


# ---- item 3: agents' act() -----------------------------------------------------------------------
@pytest.mark.parametrize("name", GAME_NAMES)
def test_search_agents_refuse_masks_narrower_or_wider_than_the_action_space(name):
    state, mask = position(name)
    narrow, wide = mask[None, :-1].copy(), np.concatenate([mask[None], [[1]]], axis=1).astype(np.int8)
    for agent in search_agents(name):
        refused(agent.act, None, narrow, state[None], match="column per action")
        refused(agent.act, None, wide, state[None], match="column per action")
    refused(RandomAgent(name).act, None, mask[None, :-7].copy(), match="one column per")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_search_agents_refuse_seats_that_are_not_the_decider(name):
    state, mask = position(name)
    cur = int(state[H_CURRENT])
    for agent in search_agents(name):
        for seats in (np.array([2**40]), np.array([-1]), np.array([(cur + 1) % int(state[H_NPLAYERS])]),
                      np.array([2**64 - 1], dtype=np.uint64)):
            refused(agent.act, None, mask[None], state[None], seats, match=r"seats\[0\]")
        refused(agent.act, None, mask[None], state[None], np.array([float(cur)]), match="integer array")
        refused(agent.act, None, mask[None], state[None], np.array([bool(cur)]), match="integer array")
        refused(agent.act_one, None, mask, state, True, match="seat must be an int")
        refused(agent.act_one, None, mask, state, 2**70, match="seat must be a seat")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_search_agents_refuse_states_with_a_corrupted_header(name):
    state, mask = position(name)
    for agent in search_agents(name):
        for slot, value, why in ((H_NPLAYERS, 99, "num_players"), (H_NPLAYERS, -1, "num_players"),
                                 (H_CURRENT, 7, "slot 2"), (H_CURRENT, -1, "slot 2"), (H_TERMINAL, 1, "slot")):
            bad = state.copy()
            bad[slot] = value
            refused(agent.act, None, mask[None], bad[None], match=why)
            refused(agent.act_one, None, mask, bad, match=why)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_search_agents_refuse_float_bool_and_misshapen_states(name):
    state, mask = position(name)
    for agent in search_agents(name):
        refused(agent.act, None, mask[None], state[None] + 0.5, match="integer array")
        refused(agent.act, None, mask[None], state[None].astype(np.float64), match="integer array")
        refused(agent.act, None, mask[None], state[None].astype(bool), match="integer array")
        refused(agent.act, None, mask[None], state[None, :-1].copy(), match="shape")
        refused(agent.act, None, mask[None], np.concatenate([state[None]] * 2), match="one row per mask")
        refused(agent.act, None, mask[None], None, match="pass states")


def test_search_agents_refuse_a_finished_game_and_a_mask_that_is_not_the_states():
    name = "callisto"
    state, mask = position(name)
    other = mask.copy()
    other[np.flatnonzero(mask)[0]] = 0
    for agent in search_agents(name):
        refused(agent.act, None, other[None], state[None], match="not the legal mask")
    env = game_module(name).raw_env()
    env.reset(seed=1)
    play_random(env, np.random.default_rng(1))
    over = env.get_state()
    assert over[H_TERMINAL]
    for agent in search_agents(name):
        refused(agent.act, None, mask[None], over[None], match="the game is over")


def test_the_search_functions_check_their_input_too():
    K = get_game("callisto").kernels
    state, mask = position("callisto")
    bad = state.copy()
    bad[H_NPLAYERS] = 99
    seeds = np.zeros(1, dtype=np.int64)
    refused(M.mcts_actions, K, bad[None], None, None, seeds, 4, match="num_players")
    refused(M.greedy_actions, K, state[None], None, mask.size - 1, seeds, match="actions")
    refused(M.mcts_actions, K, state[None], None, None, seeds, 4, float("nan"), match="finite")
    refused(M.mcts_actions, K, state[None], None, None, np.zeros(2, np.int64), 4, match="seeds")
    refused(GreedyAgent("callisto").values, state[None], None, mask.size + 1, match="actions")
    actions, visits = M.mcts_actions(K, state[None], None, None, seeds, 4)
    assert mask[actions[0]] and visits.shape == (1, mask.size)


def test_the_greedy_error_for_a_one_dimensional_mask_names_the_masks_shape():
    state, mask = position("calcada")
    with pytest.raises(ValueError, match=rf"masks must be 2-D \(decisions, actions\), got shape \({mask.size},\)"):
        GreedyAgent("calcada").act(None, mask, state[None])


def test_valid_input_still_gives_legal_actions_and_is_left_as_it_was():
    for name in GAME_NAMES:
        state, mask = position(name)
        for agent in [RandomAgent(name, seed=0), *search_agents(name)]:
            st, m = state.copy(), mask.copy()
            a = agent.act_one(None, m, st if agent.needs_state else None)
            assert mask[a] and np.array_equal(st, state) and np.array_equal(m, mask)


# ---- item 4: the MCTS (and greedy) options -----------------------------------------------------------
@pytest.mark.parametrize("spec", ["mcts:10,c=nan", "mcts:10,c=inf", "mcts:10,widen=nan", "mcts:10,widen=-inf",
                                  "mcts:2.7", "mcts:1e3", "mcts:-5", "greedy:depth=2.7", "greedy:samples=nan",
                                  "greedy:cap=1e9"])
def test_agent_specs_refuse_non_finite_and_non_integer_values(spec):
    with pytest.raises(ValueError, match="whole number|finite number"):
        make_agent(spec, "calcada")


@pytest.mark.parametrize("kwargs,err", [({"c": float("nan")}, ValueError), ({"widen": float("inf")}, ValueError),
                                        ({"c": -1.0}, ValueError), ({"budget": 2.7}, TypeError),
                                        ({"budget": "5"}, TypeError), ({"budget": True}, TypeError),
                                        ({"c": "1"}, TypeError), ({"widen": 1e300}, ValueError)])
def test_the_mcts_constructor_refuses_non_finite_and_non_integer_values(kwargs, err):
    with pytest.raises(err):
        MCTSAgent("calcada", **kwargs)


@pytest.mark.parametrize("kwargs", [{"depth": 2.7}, {"depth": "5"}, {"samples": True}, {"node_cap": 1e9}])
def test_the_greedy_constructor_refuses_non_integer_values(kwargs):
    with pytest.raises(TypeError, match="must be an int"):
        GreedyAgent("calcada", **kwargs)


def test_the_nan_uct_constant_from_the_issue_is_a_clear_cli_error_not_a_crash():
    proc = subprocess.run([sys.executable, "-m", "gamecore", "arena", "calcada", "--agents", "random",
                           "mcts:10,c=nan", "--games", "2"], capture_output=True, text=True, timeout=600,
                          cwd=HERE.parent, env=dict(os.environ, PYTHONPATH=str(HERE.parent)))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "finite number" in proc.stderr


def test_an_mcts_budget_too_large_for_memory_is_refused_up_front_naming_the_bytes(monkeypatch):
    import gamecore.envs.batched

    monkeypatch.setattr(gamecore.envs.batched, "available_memory", lambda: 10**7)
    need = M.mcts_bytes(10**6, get_game("calcada").num_actions(get_game("calcada").make_params(2)), 2)
    with pytest.raises(M.SearchMemoryError, match=f"budget of 1,000,000 simulations needs {need:,} bytes"):
        make_agent("mcts:1000000", "calcada")
    with pytest.raises(MemoryError):  # also a MemoryError, as the batch's refusal
        MCTSAgent("calcada", budget=10**6)
    with pytest.raises(ValueError, match="depth 1,000,000,000 needs"):
        GreedyAgent("calcada", depth=10**9)
    monkeypatch.setattr(gamecore.envs.batched, "available_memory", lambda: 10**9)
    agent = MCTSAgent("calcada", budget=10**6)  # fits in the constructor (2 players) ...
    monkeypatch.setattr(gamecore.envs.batched, "available_memory", lambda: 10**7)
    state, mask = position("calcada")
    with pytest.raises(MemoryError, match="budget of 1,000,000 simulations"):  # ... and checked before the search
        agent.act(None, mask[None], state[None])


def test_spec_numbers_are_kept_exact():
    assert parse_spec("mcts:200,c=0.5") == ("mcts", "200", {"c": 0.5})
    assert parse_spec("greedy:depth=2,samples=3,cap=50") == ("greedy", None, {"depth": 2, "samples": 3, "cap": 50})


# ---- item 6: SelfPlayVecEnv and BatchedGames.forfeit ----------------------------------------------------
@pytest.fixture
def sb3():
    pytest.importorskip("stable_baselines3")
    import gamecore.envs.sb3

    return gamecore.envs.sb3


@pytest.mark.parametrize("value,match", [(3402.7, "integers"), (np.iinfo(np.uint64).max, "18446744073709551615"),
                                         (np.timedelta64(3), "integers"), ("3", "integers")])
def test_selfplay_vecenv_refuses_an_opponent_action_that_is_not_an_integer_in_range(sb3, value, match):
    venv = sb3.SelfPlayVecEnv("callisto", num_envs=2, seed=0, learner_seat=0)
    venv.reset()
    venv.set_opponent(lambda obs, masks: np.full(len(masks), value))
    g = venv.games
    before = g.states.copy()
    actions = np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])
    with pytest.raises((TypeError, ValueError), match=match):
        venv.step(actions)  # the learner moves, then the opponent answers with the bad value
    assert np.array_equal(g.states, before)
    with pytest.raises(ValueError, match="one action per game"):
        venv.set_opponent(lambda obs, masks: np.zeros(len(masks) + 1, dtype=np.int64))
        venv.step(actions)


def test_selfplay_vecenv_seed_is_checked_when_given_and_a_bad_one_changes_nothing(sb3):
    venv = sb3.SelfPlayVecEnv("calcada", num_envs=3, seed=5)
    first = venv.reset().copy()
    for bad, err in (("abc", TypeError), (-1, ValueError), (2**63, ValueError), (2**63 - 2, ValueError),
                     (1.5, TypeError), (True, TypeError)):
        with pytest.raises(err):
            venv.seed(bad)
        assert venv._seed == 5 and venv.games._seed == 5
    assert np.array_equal(venv.reset(), first)
    venv.seed(None)
    venv.seed(2**63 - 3)
    venv.reset()


def test_selfplay_vecenv_refuses_a_bool_learner_seat(sb3):
    for seat in (True, np.bool_(False)):
        with pytest.raises(ValueError, match="learner_seat"):
            sb3.SelfPlayVecEnv("calcada", num_envs=2, learner_seat=seat)


def test_selfplay_vecenv_get_images_before_reset_is_a_clear_error(sb3):
    venv = sb3.SelfPlayVecEnv("calcada", num_envs=2)
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before get_images\(\)"):
        venv.get_images()


def test_batched_forfeit_checks_its_rows_before_changing_anything():
    b = BatchedGames("calcada", 3, seed=0)
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before forfeit\(\)"):
        b.forfeit([0])
    b.reset()
    states, episodes = b.states.copy(), b.episodes.copy()
    for rows, err, match in (([-1], ValueError, r"rows\[0\] is -1"), ([3], ValueError, "not a game 0..2"),
                             (np.array([2**64 - 1], dtype=np.uint64), ValueError, "18446744073709551615"),
                             ([0.0], TypeError, "integers"), ([True, False], ValueError, "shape"),
                             (["0"], TypeError, "integers"), ([[0]], ValueError, "1-D")):
        with pytest.raises(err, match=match):
            b.forfeit(rows)
        assert np.array_equal(b.states, states) and np.array_equal(b.episodes, episodes)
    b.forfeit([2])
    assert b.dones.tolist() == [False, False, True] and b.episodes.tolist() == [0, 0, 1]
    b.forfeit(np.array([True, False, False]))
    assert b.dones.tolist() == [True, False, False]
    b.forfeit([])
    assert not b.dones.any()


# ---- item 9 ---------------------------------------------------------------------------------------
def test_random_agent_refuses_an_all_zero_mask_and_masks_that_are_not_bools_or_0_1():
    agent = RandomAgent("calcada", seed=0)
    _, mask = position("calcada")
    for bad, match in ((np.zeros((1, mask.size), np.int8), "no legal action"),
                       (mask[None].astype(np.float64), "dtype"), (mask[None].astype(str), "dtype"),
                       (mask[None] * 2, "0/1")):
        refused(agent.act, None, bad, match=match)


def test_random_opponent_refuses_string_masks():
    with pytest.raises(TypeError, match="dtype"):
        RandomOpponent(0)(None, np.array([["1", "0"]]))
    assert RandomOpponent(0)(None, np.array([[0, 3]])).tolist() == [1]


def test_the_single_agent_env_refuses_a_timedelta_action():
    pytest.importorskip("gymnasium")
    from gamecore.envs.aec import IllegalActionError
    from gamecore.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv("calcada")
    env.reset(seed=0)
    before = env.aec.get_state()
    a = int(np.flatnonzero(env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="integer action"):
        env.step(np.timedelta64(a))
    assert np.array_equal(env.aec.get_state(), before)
    env.step(a)


def test_option_errors_do_not_echo_huge_values_whole():
    huge = list(range(20_000))
    calls = [lambda: get_game("calcada").make_params(2, start_player=huge),
             lambda: get_game("callisto").make_params(2, match=huge),
             lambda: get_game("cultivo").make_params(2, max_rounds=10**3000),
             lambda: get_game("calimala").make_params(3, action_layout=object.__new__(type("X" * 9000, (), {}))),
             lambda: get_game("calcada").make_params(num_players=huge),
             lambda: BatchedGames("calcada", huge),
             lambda: BatchedGames("calcada", 2, **{"x" * 50_000: 1}),
             lambda: get_game("y" * 50_000),
             lambda: make_agent("mcts:" + "9" * 50_000, "calcada")]
    for call in calls:
        with pytest.raises((TypeError, ValueError)) as info:
            call()
        assert len(str(info.value)) < 400, str(info.value)[:200]
        assert "characters)" in str(info.value)


def test_short_repr_keeps_short_values_and_cuts_long_ones():
    assert short_repr("ab") == "'ab'"
    assert short_repr("a" * 1000) == repr("a" * 1000)[:60] + "... (1002 characters)"


# ---- issue 46, item 3: a legal decision whatever the leaf values ---------------------------------------
def _leaf_net(name: str, w2: float, weight: float) -> tuple:
    """The ``net`` argument of the greedy kernel (a linear leaf value ``w2 . obs``), built directly:
    ``ValueNet.load`` refuses such weights in a file, this is what reaches the kernel if any do."""
    g = get_game(name)
    d = int(np.prod(g.obs_shape(g.make_params(g.default_players))))
    return np.zeros((0, 0)), np.zeros(0), np.full(d, w2), np.zeros(1), np.zeros(d, dtype=np.int8), weight


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_greedy_search_plays_a_legal_decision_whatever_the_learned_leaf_values(name):
    """Before: a NaN, infinite or huge leaf value (vgreedy with such a model) made every decision -1."""
    state, mask = position(name)
    for w2, weight in ((np.nan, 1.0), (np.inf, 1.0), (-np.inf, 1.0), (0.37, 1e300), (-0.37, 1e300), (1e6, 1e6)):
        agent = GreedyAgent(name, seed=0, depth=1, samples=2)
        agent.net = _leaf_net(name, w2, weight)
        actions = agent.act(None, mask[None], state[None])
        assert mask[actions[0]] == 1, (w2, weight, actions)


def test_pick_best_returns_a_legal_index_for_nan_infinite_and_huge_values():
    from gamecore.kernel.rng import rng_seed

    rng = np.zeros(1, dtype=np.int64)
    rng_seed(rng, 0, 12345)
    mask = np.array([0, 1, 1, 0, 1], dtype=np.int8)
    for values in ([np.nan] * 5, [-np.inf] * 5, [9.0, np.nan, -np.inf, 9.0, np.nan], [0, 3e301, 3e301, 0, 1e301],
                   [0, -3e301, -2e301, 0, -4e301], [0, np.inf, np.nan, 0, 1.0]):
        picks = {M.pick_best(np.array(values, dtype=np.float64), mask, rng) for _ in range(20)}
        assert picks and all(mask[a] == 1 for a in picks), (values, picks)
    assert {M.pick_best(np.array([0, 3e301, 3e301, 0, 1e301]), mask, rng) for _ in range(40)} == {1, 2}
    assert M.pick_best(np.array([0, 1.0, 2.0, 0, 2.0 + 1e-12]), mask, rng) in (2, 4)  # ordinary ties unchanged
    assert M.pick_best(np.zeros(5), np.zeros(5, dtype=np.int8), rng) == -1  # nothing legal: still -1


@pytest.mark.parametrize("name", GAME_NAMES)
def test_puct_refuses_non_finite_network_outputs_and_plays_legally_on_huge_finite_ones(name):
    """A NaN / infinite logit or an out-of-range value is refused before any kernel sees it (a model
    gone bad is reported); logits of any finite size, however far apart, still give a legal
    decision and finite priors."""
    from gamecore.search.puct import puct_search

    state, mask = position(name)
    states, seeds = np.stack([state, state]), np.array([1, 2])
    bad = {"nan": lambda o, m: (np.full(m.shape, np.nan), np.zeros(len(o))),
           "inf": lambda o, m: (np.where(np.arange(m.shape[1]) % 2, np.inf, -np.inf) * np.ones(m.shape),
                                np.zeros(len(o))),
           "nan value": lambda o, m: (np.zeros(m.shape), np.full(len(o), np.nan)),
           "huge value": lambda o, m: (np.zeros(m.shape), np.full(len(o), 1e300))}
    for evaluate in bad.values():
        with pytest.raises(ValueError, match="non-finite logit|outside \\[-1, 1\\]"):
            puct_search(name, states, evaluate, 6, seeds)
    huge = {"far apart": lambda o, m: (np.where(np.arange(m.shape[1]) % 3, -1e308, 1e308) * np.ones(m.shape),
                                       np.full(len(o), 1.0)),
            "all -1e308": lambda o, m: (np.full(m.shape, -1e308), np.full(len(o), -1.0))}
    for what, evaluate in huge.items():
        result = puct_search(name, states, evaluate, 6, seeds)
        assert all(mask[a] == 1 for a in result.actions), what
        assert np.all(np.isfinite(result.priors)) and np.all(np.isfinite(result.q)), what
        assert np.allclose(result.priors.sum(axis=1), 1.0) and not np.any(result.priors[:, mask == 0]), what


# ---- issue 46, item 4: absurd budgets are refused at once ------------------------------------------------
@pytest.mark.parametrize("spec,match", [
    ("greedy:samples=100000000000000000", "samples must be at most 1,000"),
    ("greedy:cap=100000000000000000", "node_cap must be at most 100,000,000"),
    ("greedy:samples=1000,cap=1000000", "samples x node_cap"),
    ("mcts:100000000", "budget must be at most 1,000,000"),
    ("ppo:no/such/model.zip,sims=100000000", "sims must be at most 1,000,000"),
    ("baseline:sims=100000000", "sims must be at most 1,000,000"),
])
def test_absurd_budgets_are_refused_by_the_constructor_before_any_search(spec, match):
    import time

    make_agent("greedy", "callisto")  # kernels loaded (and compiled, if the cache is cold) outside the timing
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        make_agent(spec, "callisto")  # callisto ships a ppo baseline: its sims are checked before loading
    assert time.perf_counter() - t0 < 1.0


def test_absurd_budgets_of_the_search_functions_and_a_vgreedy_model_are_refused(tmp_path):
    from gamecore.search.puct import puct_search, uniform_evaluator
    from gamecore.search.value_net import ValueNet

    state, _ = position("calcada")
    seeds = np.zeros(1, dtype=np.int64)
    refused(M.greedy_actions, get_game("calcada").kernels, state[None], None, None, seeds, 1, 10, 10**17,
            match="samples must be at most")
    refused(M.mcts_actions, get_game("calcada").kernels, state[None], None, None, seeds, 10**8,
            match="budget must be at most 1,000,000")
    refused(puct_search, "calcada", state[None], uniform_evaluator, 10**8, seeds, match="at most 1,000,000")
    assert M.check_int("x", 10**6, high=10**6) == 10**6
    g = get_game("calcada")
    d = int(np.prod(g.obs_shape(g.make_params(2))))
    path = ValueNet(np.zeros((0, 0)), np.zeros(0), np.zeros(d), np.zeros(1), {"game": "calcada", "players": 2,
                                                                             "weight": 1.0}).save(tmp_path / "v.npz")
    with pytest.raises(ValueError, match="samples must be at most"):
        make_agent(f"vgreedy:{path},samples=100000000000000000", "calcada")


def test_az_sims_are_capped_and_checked_against_memory(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    import gamecore.envs.batched
    from gamecore.search import aznet, puct

    g = get_game("calcada")
    params = g.make_params(2)
    obs_len, num_actions = int(np.prod(g.obs_shape(params))), g.num_actions(params)
    torch.manual_seed(0)
    net = aznet.make_network(obs_len, num_actions, (8,))
    config = {"game": "calcada", "players": 2, "obs_len": obs_len, "num_actions": num_actions, "hidden": [8],
              "encoding": aznet.ENCODING, "simulations": 4, "c_puct": 1.25}
    path = aznet.save_checkpoint(tmp_path / "calcada-az.pt", net, None, 0, config, {})
    with pytest.raises(ValueError, match="az: sims must be at most 1,000,000"):
        make_agent(f"az:{path},sims=100000000", "calcada")
    monkeypatch.setattr(gamecore.envs.batched, "available_memory", lambda: 10**7)
    with pytest.raises(M.SearchMemoryError, match="az: a search of 1,000,000 simulations needs"):
        make_agent(f"az:{path},sims=1000000", "calcada")
    assert puct.check_sims_fit("az: sims", 4, g) == 4


def test_puct_search_checks_the_memory_of_the_whole_batch_before_any_evaluation(monkeypatch):
    """The arena searches all its running games at once: the batch's trees are checked together."""
    import gamecore.envs.batched
    from gamecore.search.puct import puct_bytes, puct_search

    def evaluate(obs, masks):
        raise AssertionError("evaluated: the search started")

    state, _ = position("calcada")
    g = get_game("calcada")
    params = g.params_of_state(state)
    one = puct_bytes(1000, g.num_actions(params), 2, g.kernels.STATE_LEN, int(np.prod(g.obs_shape(params))))
    monkeypatch.setattr(gamecore.envs.batched, "available_memory", lambda: 40 * one)
    with pytest.raises(M.SearchMemoryError, match="puct: 64 searches of 1,000 simulations needs"):
        puct_search("calcada", np.stack([state] * 64), evaluate, 1000, np.arange(64))
    with pytest.raises(AssertionError, match="evaluated"):  # 32 trees fit: the search starts
        puct_search("calcada", np.stack([state] * 32), evaluate, 1000, np.arange(32))


# ---- issue 46, item 8: an option given twice -------------------------------------------------------------
@pytest.mark.parametrize("spec,key", [("mcts:20,c=1,c=2", "c"), ("greedy:depth=1,samples=2,depth=1", "depth"),
                                      ("vgreedy:x.npz,weight=1,weight=2", "weight"),
                                      ("ppo:x.zip,sims=4,sims=5", "sims"), ("baseline:sims=2,sims=2", "sims")])
def test_an_agent_option_given_twice_is_refused_naming_it(spec, key):
    with pytest.raises(ValueError, match=f"option {key} given twice"):
        parse_spec(spec)


# ---- the fuzz of every agent's act() inputs ------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_agents_act_refuses_bad_input(name):
    """tests/fuzz_agents.py in a subprocess (a kernel that a bad input reached and that crashed would
    kill that process, not pytest), on the kernels the suite's warm-up compiled. Not bounds-checked:
    every input it hands on to a kernel is a state ``check_state`` accepts, with its own legal mask
    and deciding seat, and such states are played bounds-checked by the slot sweep and the fuzz."""
    proc = subprocess.run([sys.executable, str(HERE / "fuzz_agents.py"), name, "11"], capture_output=True,
                          text=True, timeout=3000)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"agent fuzz ok {name} cases=" in proc.stdout
