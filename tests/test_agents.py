"""Baseline agents: the spec strings, both paths for every game, tactics, and no peeking."""

from __future__ import annotations

import numpy as np
import pytest

from calcada_env import layout as CL
from calcada_env.game import state_from_ascii as calcada_from_ascii
from callisto_env.game import state_from_ascii as callisto_from_ascii
from conftest import GAME_NAMES, game_module, play_random
from gamecore.envs.batched import BatchedGames
from gamecore.kernel.games import get_game
from gamecore.kernel.protocol import H_CURRENT, H_OWNER, H_RNG, H_TERMINAL
from gamecore.search.agents import GreedyAgent, MCTSAgent, RandomAgent, aec_action, make_agent, parse_spec


# ---- specs ---------------------------------------------------------------------------------------
def test_agent_specs_parse_and_name_the_agent():
    assert parse_spec("random") == ("random", None, {})
    assert parse_spec("mcts:200") == ("mcts", "200", {})
    assert parse_spec("mcts:800,c=0.7,widen=0") == ("mcts", "800", {"c": 0.7, "widen": 0.0})
    assert parse_spec("greedy:depth=1") == ("greedy", None, {"depth": 1})
    assert parse_spec("ppo:runs/x.zip") == ("ppo", "runs/x.zip", {})
    assert make_agent("mcts:50", "callisto").spec == "mcts:50"
    assert make_agent("mcts:50,c=2", "callisto").spec == "mcts:50,c=2"
    assert make_agent("greedy", "callisto").spec == "greedy"
    assert make_agent("greedy:depth=1", "calcada").spec == "greedy:depth=1"
    for bad, why in (("alphazero", "unknown agent"), ("mcts:many", "number of simulations"),
                     ("mcts:10,temperature=1", "unknown option"), ("ppo", "path"), ("greedy:3", "positional"),
                     ("mcts:0", "at least 1")):
        with pytest.raises(ValueError, match=why):
            make_agent(bad, "callisto")
    with pytest.raises(FileNotFoundError):
        make_agent("ppo:no/such/model.zip", "callisto")


# ---- both paths, every game -----------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_agent_plays_legal_decisions_on_the_aec_and_the_batched_path(name):
    mod = game_module(name)
    n = mod.GAME.default_players
    agents = [RandomAgent(name, seed=1), GreedyAgent(name, seed=2), MCTSAgent(name, seed=3, budget=8)]
    env = mod.env(num_players=n, illegal="raise")
    env.reset(seed=4)
    for k in range(30):  # AEC: env.last() and the state
        agent = agents[k % 3]
        action = aec_action(agent, env)
        if action is None or env.unwrapped.game_over:
            break
        assert env.unwrapped._legal_mask()[action]
        env.step(action)
    games = BatchedGames(name, 6, seed=5, num_players=n)
    obs, masks = games.reset()
    for k in range(10):  # batched: each agent decides for its games in one call
        actions = np.zeros(6, dtype=np.int64)
        for j, agent in enumerate(agents):
            rows = np.arange(6) % 3 == (j + k) % 3
            actions[rows] = agent.act(obs[rows], masks[rows].astype(bool), games.states[rows],
                                      games.current_players[rows])
        assert masks[np.arange(6), actions].all()
        obs, _, _, masks = games.step(actions)
    with pytest.raises(TypeError, match="searches the game state"):
        agents[1](obs, masks)  # search agents are no plain (obs, masks) opponents
    assert agents[0](obs, masks).shape == (6,)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_search_agents_leave_the_states_they_are_given_untouched_and_repeat_under_a_seed(name):
    mod = game_module(name)
    env = mod.raw_env()
    env.reset(seed=6)
    play_random(env, np.random.default_rng(6), max_steps=9)
    state = env.get_state()
    mask = env.observe(env.agent_selection)["action_mask"]
    for make in (lambda s: GreedyAgent(name, seed=s), lambda s: MCTSAgent(name, seed=s, budget=40)):
        before = state.copy()
        first = make(11).act_one(None, mask, state)
        assert np.array_equal(state, before)
        assert make(11).act_one(None, mask, state) == first
        assert mask[first]


# ---- greedy ---------------------------------------------------------------------------------------
CALLISTO_GAP = """
g g g g g g g g g G
g g . g g g g g g g
g . . . b g g g g g
g g . g g g g g g g
g g g g g g g g g g
g g g g g g g g g g
g g g g g g g g g g
g g g g g g g g g g
g g g g g g g g . .
B g g g g g g g g g
"""


def callisto_gap():
    """Green to move with an X5 and a D2 left. The plus-shaped gap b2..d4 takes the X5 in one way
    only; the D2 fits there or at i9-j9. Blue's last tile, a D2, fits only in the gap (beside its
    tile at e3). Placing the X5 now wins (penalty 0 against 2); any D2 first loses the X5 (5)."""
    return callisto_from_ascii(CALLISTO_GAP, 2, current=0, third={0: False, 1: False},
                               remaining={0: {"X5": 1, "D2": 1}, 1: {"D2": 1}})


def test_greedy_values_each_decision_by_the_score_margin_after_it():
    state = callisto_gap()
    g = get_game("callisto")
    actions, values = GreedyAgent("callisto", seed=0).values(state[None])
    legal = {g.action_to_string(state, a): v for a, v in enumerate(values[0]) if np.isfinite(v)}
    # penalties now: green 7, blue 2. D2 on i9: blue decides next, margin -5 + 2. X5: blue is out, green
    # places the D2 too and wins (+1000 for first place, margin 0 + 2). A D2 in the gap: blue and then
    # green are out, green loses (-1000, margin -5 + 2).
    assert legal == {"X5 r0 c2": 1002.0, "D2 r0 i9": -3.0, "D2 r0 b3": -1003.0, "D2 r0 c3": -1003.0,
                     "D2 r90 c2": -1003.0, "D2 r90 c3": -1003.0}
    assert g.action_to_string(state, int(actions[0])) == "X5 r0 c2"


def test_greedy_breaks_ties_at_random():
    from callisto_env import layout as L

    state = callisto_gap()
    state[L.REMAIN : L.REMAIN + L.NUM_TILE_TYPES] = 0
    state[L.REMAIN + L.TILE_NAMES.index("D2")] = 1  # only the five D2 placements, all worth the same
    get_game("callisto").kernels.refresh_legal(state)  # the legal-set cache, after the slots written by hand
    picks = {GreedyAgent("callisto", seed=s).act_one(None, _mask("callisto", state), state) for s in range(24)}
    assert len(picks) >= 4


def _mask(name: str, state: np.ndarray) -> np.ndarray:
    g = get_game(name)
    mask = np.zeros(g.num_actions(g.make_params(int(state[1]))), dtype=np.int8)
    g.kernels.legal_mask(state, mask)
    return mask


def test_greedy_looks_through_the_rest_of_a_multi_decision_turn():
    """Calçada: a declare scores nothing by itself; greedy values it by the best placement it
    allows later in the same turn (depth 2: declare, then place)."""
    g = get_game("calcada")
    env = game_module("calcada").raw_env(num_players=2)
    env.reset(seed=12)
    state = env.get_state()
    assert state[CL.PHASE] == CL.PHASE_DECLARE
    _, values = GreedyAgent("calcada", seed=0, depth=2, samples=1).values(state[None])
    mask = _mask("calcada", state)
    for a in np.flatnonzero(mask):
        name = g.action_to_string(state, int(a))
        if not name.startswith("declare"):
            continue
        after = state.copy()
        g.kernels.resample(after, 0, 0)  # the stacks' order plays no part in a declare and a place
        g.kernels.apply(after, int(a))
        assert after[H_OWNER] == 0 and after[H_CURRENT] == 0
        _, inner = GreedyAgent("calcada", seed=0, depth=1, samples=1).values(after[None])
        places = [inner[0, b] for b in range(CL.A_PLACE, CL.NUM_ACTIONS) if np.isfinite(inner[0, b])]
        assert values[0, a] == pytest.approx(max(places)), name


# ---- MCTS tactics ---------------------------------------------------------------------------------
def test_mcts_places_the_only_tile_that_avoids_a_large_penalty():
    state = callisto_gap()
    agent = MCTSAgent("callisto", seed=1, budget=3000, widen=0)
    actions, visits = agent.visits(state[None])
    g = get_game("callisto")
    assert g.action_to_string(state, int(actions[0])) == "X5 r0 c2"
    assert visits[0].sum() == 3000 and visits[0, actions[0]] > 0.5 * 3000


# Side A (district letter + number):  A1 A2 A3 B4 B5 / A4 A5 C1 B1 B2 / D2 D3 C4 C5 E3 / D1 F4 F5 G3 E2 / H5 H3 F2 G4 E1
# Red district B (r1c4 r1c5 r2c4 r2c5) lacks r1c4, printed 4; A4, C4, F4 and G4 are open too.
CALCADA_GAP = """
.. .. .. .. rt
.. .. .. rp rc
.. .. .. .. ..
.. .. .. .. ..
.. .. .. .. ..
"""
CALCADA_EMPTY = "\n".join([".. .. .. .. .."] * 5)


def test_mcts_takes_the_tile_that_completes_a_district():
    state = calcada_from_ascii([CALCADA_GAP, CALCADA_EMPTY], current=0, bonus={0: 0, 1: 2},
                               carousel=["r", "yb", "ypg", "rbgp", "yrbgp", ""], displays={"red": "rk . ."},
                               declared=("red", 4), seed=3)
    g = get_game("calcada")
    legal = sorted(g.action_to_string(state, int(a)) for a in np.flatnonzero(_mask("calcada", state)))
    assert legal == [f"take slot 1 (red kiosk) to {sq}" for sq in ("r1c4", "r2c1", "r3c3", "r4c2", "r5c4")]
    action, _ = MCTSAgent("calcada", seed=2, budget=3000).visits(state[None])
    assert g.action_to_string(state, int(action[0])) == "take slot 1 (red kiosk) to r1c4"


# ---- MCTS rollout horizon -------------------------------------------------------------------------
def test_the_mcts_spec_names_a_rollout_horizon_only_where_it_differs_from_the_games():
    assert parse_spec("mcts:200,horizon=40,scale=20") == ("mcts", "200", {"horizon": 40, "scale": 20.0})
    cultivo = make_agent("mcts:200", "cultivo")
    assert (cultivo.horizon, cultivo.scale, cultivo.spec) == (8, 20.0, "mcts:200")
    assert make_agent("mcts:200,horizon=0", "cultivo").spec == "mcts:200,horizon=0"
    callisto = make_agent("mcts:200", "callisto")
    assert (callisto.horizon, callisto.scale) == (0, 0.0)
    assert make_agent("mcts:50,horizon=12,scale=5", "callisto").spec == "mcts:50,horizon=12,scale=5"
    for bad, why in (("mcts:9,horizon=-1", "bad value"), ("mcts:9,horizon=1.5", "bad value"),
                     ("mcts:9,scale=nan", "bad value"), ("mcts:9,scale=-2", "finite number 0")):
        with pytest.raises(ValueError, match=why):
            make_agent(bad, "cultivo")


def test_a_rollout_horizon_beyond_the_end_of_the_game_changes_no_simulation():
    from gamecore.search import mcts as M

    K = get_game("callisto")  # mcts_actions takes the game (or its rules module)
    state = callisto_gap()  # a few empty squares left: every rollout ends within a dozen decisions
    seeds = np.array([5], dtype=np.int64)
    full = M.mcts_actions(K, state[None], None, None, seeds, 300, widen=0, horizon=0)
    far = M.mcts_actions(K, state[None], None, None, seeds, 300, widen=0, horizon=60, scale=7.0)
    assert np.array_equal(full[1], far[1]) and full[0][0] == far[0][0]
    env = game_module("callisto").raw_env()
    env.reset(seed=6)
    play_random(env, np.random.default_rng(6), max_steps=9)  # early: rollouts run ~40 decisions
    early = env.get_state()[None]
    full = M.mcts_actions(K, early, None, None, seeds, 300, horizon=0)
    cut = M.mcts_actions(K, early, None, None, seeds, 300, horizon=1, scale=1e6)
    assert not np.array_equal(full[1], cut[1])  # cut rollouts are valued ~0, not by who wins
    for bad, err in ((-1, ValueError), (True, TypeError), (2.5, TypeError)):
        with pytest.raises(err, match="horizon"):
            M.mcts_actions(K, state[None], None, None, seeds, 10, horizon=bad)
    with pytest.raises(ValueError, match="scale"):
        M.mcts_actions(K, state[None], None, None, seeds, 10, horizon=3, scale=float("inf"))


# ---- hidden information -----------------------------------------------------------------------------
#: simulations per search below: enough for hidden cards to change a peeking search; Cultivo's random
#: playouts are long, so it gets fewer
SEARCH_BUDGET_HIDDEN = {"callisto": 300, "calcada": 300, "calimala": 300, "cultivo": 100}
#: rollout horizon of those searches (None: the game's); Cultivo's default 8 decisions seldom reach
#: a draw from the face-down stack, so its rollouts are played to the end, where the order matters
SEARCH_HORIZON_HIDDEN = {"cultivo": 0}


@pytest.mark.slow
@pytest.mark.parametrize("name", GAME_NAMES)
def test_search_agents_never_read_what_their_seat_cannot_see(name, tmp_path):
    """Two states that differ only in what the deciding seat cannot see (one is the other redealt by
    ``resample``) get the same search from the same seed: every root visit count is equal. Searching
    the states as they are (no resampling) tells them apart, so the test has the power to fail."""
    mod = game_module(name)
    counts = [k for k in mod.GAME.player_counts if mod.GAME.hides_information(k)]
    if not counts:
        pytest.skip(f"{name} hides nothing: every state is what each seat sees")
    K = mod.GAME.kernels
    env = mod.raw_env(num_players=counts[0])
    rng = np.random.default_rng(0)
    budget, horizon = SEARCH_BUDGET_HIDDEN[name], SEARCH_HORIZON_HIDDEN.get(name)
    for attempt in range(40):
        env.reset(seed=100 + attempt)
        play_random(env, rng, max_steps=int(rng.integers(4, 40)))
        if env.state_array[H_TERMINAL]:
            continue
        a = env.get_state()
        seat = int(a[H_CURRENT])
        b = a.copy()
        K.resample(b, seat, 7 + attempt)
        b[H_RNG] = a[H_RNG]
        if np.array_equal(a, b):
            continue
        peek_a = MCTSAgent(name, seed=9, budget=budget, horizon=horizon).visits(a[None], determinize=False)[1][0]
        peek_b = MCTSAgent(name, seed=9, budget=budget, horizon=horizon).visits(b[None], determinize=False)[1][0]
        if np.array_equal(peek_a, peek_b):
            continue  # hidden cards that change no search: look for a position where they matter
        fair_a = MCTSAgent(name, seed=9, budget=budget, horizon=horizon).visits(a[None])[1][0]
        fair_b = MCTSAgent(name, seed=9, budget=budget, horizon=horizon).visits(b[None])[1][0]
        assert np.array_equal(fair_a, fair_b), "MCTS searched the hidden cards"
        greedy_a = GreedyAgent(name, seed=9).values(a[None])[1][0]
        greedy_b = GreedyAgent(name, seed=9).values(b[None])[1][0]
        assert np.array_equal(greedy_a, greedy_b), "greedy looked at the hidden cards"
        # greedy with a learned leaf value (random weights): its leaves are observed from the seat
        from gamecore.search.value_net import ValueNet

        d = int(np.prod(mod.GAME.obs_shape(mod.GAME.make_params(counts[0]))))
        w = np.random.default_rng(1).normal(0.0, 0.5, (d, 8))
        path = ValueNet(w, np.zeros(8), np.ones(8), np.zeros(1), {"game": mod.GAME.name, "players": counts[0]}).save(
            tmp_path / "v.npz")
        valued_a = make_agent(f"vgreedy:{path}", name, seed=9).values(a[None])[1][0]
        valued_b = make_agent(f"vgreedy:{path}", name, seed=9).values(b[None])[1][0]
        assert np.array_equal(valued_a, valued_b), "vgreedy looked at the hidden cards"
        assert not np.array_equal(valued_a, greedy_a)  # the model took part
        return
    pytest.fail("found no position whose hidden cards change a search that peeks")


def test_a_search_agent_is_an_opponent_of_the_self_play_vec_env():
    pytest.importorskip("stable_baselines3")
    from gamecore.envs.sb3 import SelfPlayVecEnv

    venv = SelfPlayVecEnv("calcada", num_envs=3, seed=1, opponent=GreedyAgent("calcada", seed=1))
    obs = venv.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        masks = venv.action_masks()
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert obs.shape[0] == 3 and venv.games.current_players.tolist() == venv._seats.tolist()


def test_a_saved_maskable_ppo_model_plays_legal_decisions(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from gamecore.envs.sb3 import SelfPlayVecEnv

    venv = SelfPlayVecEnv("callisto", num_envs=2, seed=0)
    sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=8, seed=0, device="cpu").save(tmp_path / "m")
    agent = make_agent(f"ppo:{tmp_path / 'm'}", "callisto", seed=0)  # the .zip suffix is optional
    assert agent.spec.endswith("m.zip") and not agent.needs_state
    games = BatchedGames("callisto", 4, seed=2)
    obs, masks = games.reset()
    actions = agent(obs, masks.astype(bool))
    assert masks[np.arange(4), actions].all()
    other = BatchedGames("calcada", 2, seed=2)
    with pytest.raises(ValueError, match="trained on observations of shape"):
        agent(*other.reset())


def test_the_baseline_spec_loads_the_shipped_model_of_every_game():
    from gamecore.search.agents import BASELINE_FILES, shipped_baseline

    for name in GAME_NAMES:
        path = shipped_baseline(name)  # <package>/baseline/maskppo.zip or az.pt, its README beside it
        assert path is not None, name
        assert (path.parent / "README.md").is_file() and path.name in BASELINE_FILES
        if path.suffix != ".npz":  # a vgreedy value model plays without torch
            pytest.importorskip("sb3_contrib" if path.suffix == ".zip" else "torch")
        agent = make_agent("baseline", name, seed=0)
        assert agent.spec == "baseline" and agent.needs_state == (path.suffix != ".zip")  # az, vgreedy: searches
        games = BatchedGames(name, 4, seed=3)
        obs, masks = games.reset()
        for _ in range(5):
            actions = agent.act(obs, masks.astype(bool), games.states, games.current_players)
            assert masks[np.arange(4), actions].all()
            obs, _, _, masks = games.step(actions)
    with pytest.raises(ValueError, match="baseline takes no argument"):
        make_agent("baseline:runs/x.zip", "callisto")


def test_the_baseline_spec_of_a_game_without_one_says_which_games_have_one(monkeypatch):
    import gamecore.search.agents as agents

    shipped = agents.shipped_baseline
    monkeypatch.setattr(agents, "shipped_baseline", lambda g: None if g == "calcada" else shipped(g))
    with pytest.raises(ValueError, match="no baseline model is shipped for calcada yet .*callisto"):
        make_agent("baseline", "calcada")
