"""The batched PUCT search (gamecore.search.puct), the az agent and examples/alphazero.py."""

from __future__ import annotations

import numpy as np
import pytest
from test_agents import CALLISTO_GAP, callisto_gap
from test_examples import load_script

from callisto_env.game import state_from_ascii as callisto_from_ascii
from conftest import GAME_NAMES, game_module, play_random
from gamecore.envs.batched import BatchedGames
from gamecore.kernel.games import get_game
from gamecore.kernel.protocol import H_CURRENT, H_NPLAYERS, H_RNG, H_TERMINAL
from gamecore.kernel.rewards import rank_rewards
from gamecore.search.agents import AZAgent, MCTSAgent, aec_action, make_agent, parse_spec
from gamecore.search.puct import masked_softmax, puct_search, uniform_evaluator


def _legal(game, state: np.ndarray) -> np.ndarray:
    g = get_game(game)
    mask = np.zeros(g.num_actions(g.params_of_state(state)), dtype=np.int8)
    g.kernels.legal_mask(state, mask)
    return mask


def projection_evaluator(obs_len: int, num_actions: int, seed: int = 0):
    """A fixed random network: logits and value depend on every observation entry (so a search fed
    other leaves gets other priors)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(obs_len, num_actions)) / np.sqrt(obs_len)
    u = rng.normal(size=obs_len) / np.sqrt(obs_len)

    def evaluate(obs, masks):
        x = obs.astype(np.float64)
        return x @ w, np.tanh(x @ u)

    return evaluate


# ---- forced positions: PUCT with a uniform prior and zero value agrees with plain MCTS -------------
def test_a_position_with_one_legal_action():
    state = callisto_from_ascii(CALLISTO_GAP, 2, current=0, third={0: False, 1: False},
                                remaining={0: {"X5": 1}, 1: {"D2": 1}})
    mask = _legal("callisto", state)
    assert mask.sum() == 1
    only = int(np.flatnonzero(mask)[0])
    res = puct_search("callisto", state[None], uniform_evaluator, 5, np.array([0]))
    assert res.actions.tolist() == [only] and res.visits[0, only] == 5 and res.visits.sum() == 5
    assert MCTSAgent("callisto", seed=0, budget=5).act_one(None, mask, state) == only


def test_the_move_that_wins_is_found_as_mcts_finds_it():
    """Callisto: placing the X5 wins two decisions later (blue is then out, green's D2 ends the
    game); every D2 first loses. Zero values everywhere: only the terminal rank rewards steer."""
    state = callisto_gap()
    g = get_game("callisto")
    res = puct_search("callisto", state[None], uniform_evaluator, 40, np.array([3]))
    mcts = MCTSAgent("callisto", seed=1, budget=300, widen=0).act_one(None, _legal("callisto", state), state)
    assert g.action_to_string(state, int(res.actions[0])) == "X5 r0 c2"
    assert res.actions[0] == mcts
    assert res.q[0, res.actions[0]] > 0.9  # green wins below it
    assert res.visits.sum() == 40


def _winning_positions(name: str, want: int, seed: int) -> list[tuple[np.ndarray, set[int]]]:
    """Positions of random games where every legal decision ends the game at once, some with the
    mover first and some not, with the winning decisions (a forced choice for any search)."""
    mod = game_module(name)
    K = mod.GAME.kernels
    env = mod.raw_env()
    rng = np.random.default_rng(seed)
    found: list[tuple[np.ndarray, set[int]]] = []
    keys = np.zeros(8)
    rr = np.zeros(8)
    for episode in range(200):
        env.reset(seed=seed + episode)
        while not env.state_array[H_TERMINAL]:
            state = env.get_state()
            mask = _legal(name, state)
            me = int(state[H_CURRENT])
            n = int(state[H_NPLAYERS])
            wins = set()
            ends = 0
            for a in np.flatnonzero(mask):
                nxt = state.copy()
                K.apply(nxt, int(a))
                if nxt[H_TERMINAL]:
                    ends += 1
                    K.rank_keys(nxt, keys[:n])
                    rank_rewards(keys[:n], n, rr[:n])
                    if rr[me] == 1.0:
                        wins.add(int(a))
            if wins and len(wins) < mask.sum() == ends:
                found.append((state, wins))
                if len(found) >= want:
                    return found
            env.step(int(rng.choice(np.flatnonzero(mask))))
    return found


@pytest.mark.parametrize("name", ["callisto", "calcada"])
def test_a_move_that_wins_at_once_is_chosen(name):
    positions = _winning_positions(name, 3, seed=10)
    assert positions, f"no {name} position with a move that wins at once"
    for state, wins in positions:
        legal = int(_legal(name, state).sum())
        res = puct_search(name, state[None], uniform_evaluator, 2 * legal + 2, np.array([5]))
        assert int(res.actions[0]) in wins
        assert res.q[0, res.actions[0]] == 1.0
        mcts = MCTSAgent(name, seed=5, budget=4 * legal, widen=0).act_one(None, _legal(name, state), state)
        assert mcts in wins
        if len(wins) == 1:
            assert mcts == int(res.actions[0])


# ---- the network's priors reach the root ----------------------------------------------------------------
def test_root_priors_are_the_masked_softmax_and_a_sharp_prior_decides_a_small_search():
    env = game_module("calcada").raw_env(num_players=2)
    env.reset(seed=3)
    state = env.get_state()
    mask = _legal("calcada", state)
    legal = np.flatnonzero(mask)
    rng = np.random.default_rng(0)
    logits = rng.normal(size=mask.shape[0])

    def evaluate(obs, masks):
        return np.tile(logits, (len(obs), 1)), np.zeros(len(obs))

    res = puct_search("calcada", state[None], evaluate, 4, np.array([1]))
    assert np.allclose(res.priors[0], masked_softmax(logits[None], mask[None])[0])
    assert res.priors[0, mask == 0].sum() == 0 and res.priors[0].sum() == pytest.approx(1.0)
    favourite = int(legal[len(legal) // 2])
    sharp = np.zeros(mask.shape[0])
    sharp[favourite] = 8.0

    def focused(obs, masks):
        return np.tile(sharp, (len(obs), 1)), np.zeros(len(obs))

    res = puct_search("calcada", state[None], focused, 6, np.array([1]))
    assert res.actions[0] == favourite and res.visits[0, favourite] == res.visits[0].max() >= 4


def test_dirichlet_noise_mixes_into_the_root_priors_only():
    state = callisto_gap()
    plain = puct_search("callisto", state[None], uniform_evaluator, 4, np.array([1]))
    noisy = puct_search("callisto", state[None], uniform_evaluator, 4, np.array([1]), dirichlet_alpha=0.3,
                        dirichlet_eps=0.25)
    assert noisy.priors[0].sum() == pytest.approx(1.0) and not np.allclose(noisy.priors, plain.priors)
    assert (noisy.priors[0] > 0).tolist() == (plain.priors[0] > 0).tolist()
    again = puct_search("callisto", state[None], uniform_evaluator, 4, np.array([1]), dirichlet_alpha=0.3)
    assert np.array_equal(again.priors, noisy.priors) and np.array_equal(again.visits, noisy.visits)


# ---- rollout leaf values (mix) --------------------------------------------------------------------------
def _calcada_midgame(decisions: int = 6) -> np.ndarray:
    env = game_module("calcada").raw_env(num_players=2)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(decisions):
        env.step(int(rng.choice(np.flatnonzero(_legal("calcada", env.get_state())))))
    return env.get_state()


def test_with_mix_1_the_leaf_values_come_from_rollouts_and_the_networks_value_is_ignored():
    state = _calcada_midgame()
    base = projection_evaluator(int(np.prod(get_game("calcada").obs_shape(get_game("calcada").params_of_state(
        state)))), int(_legal("calcada", state).shape[0]))

    def hopeful(obs, masks):  # the same priors, opposite values
        return base(obs, masks)[0], np.full(len(obs), 0.9)

    def gloomy(obs, masks):
        return base(obs, masks)[0], np.full(len(obs), -0.9)

    runs = {(ev.__name__, mix): puct_search("calcada", state[None], ev, 40, np.array([7]), mix=mix)
            for ev in (hopeful, gloomy) for mix in (0.0, 0.5, 1.0)}
    one_h, one_g = runs["hopeful", 1.0], runs["gloomy", 1.0]
    assert np.array_equal(one_h.visits, one_g.visits) and np.array_equal(one_h.q, one_g.q)
    assert one_h.actions[0] == one_g.actions[0]
    for mix in (0.0, 0.5):  # the network's value counts: the two searches differ
        assert not np.allclose(runs["hopeful", mix].q, runs["gloomy", mix].q)
    # rollouts that play to the end value the root's children by real outcomes (rank rewards of
    # two seats: +1 / -1, or 0 for a tie), so the mean of a child visited once is one of them
    ends = puct_search("calcada", state[None], hopeful, 40, np.array([7]), mix=1.0, horizon=0)
    once = ends.visits[0] == 1
    assert once.any() and set(np.round(ends.q[0, once], 9)) <= {-1.0, 0.0, 1.0}
    again = puct_search("calcada", state[None], gloomy, 40, np.array([7]), mix=1.0, horizon=0)
    assert np.array_equal(again.visits, ends.visits)  # deterministic given the seeds


def test_rollouts_keep_the_forced_win_of_a_search():
    state = callisto_gap()
    g = get_game("callisto")
    res = puct_search("callisto", state[None], uniform_evaluator, 40, np.array([3]), mix=1.0)
    assert g.action_to_string(state, int(res.actions[0])) == "X5 r0 c2" and res.q[0, res.actions[0]] > 0.9


# ---- every game: visits sum to the budget, nothing illegal ----------------------------------------------
@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_searches_a_batch_within_its_budget_and_legal_actions(name):
    game = get_game(name)
    games = BatchedGames(name, 4, seed=2)
    obs, masks = games.reset()
    for _ in range(3):
        obs, _, _, masks = games.step(games.random_actions())
    evaluate = projection_evaluator(int(np.prod(games.obs_shape)), games.num_actions)
    for kwargs in ({}, {"temperature": 1.0, "dirichlet_alpha": 0.5}):
        res = puct_search(game, games.states, evaluate, 6, np.arange(4), **kwargs)
        assert res.visits.sum(axis=1).tolist() == [6] * 4
        assert not res.visits[masks == 0].any() and not res.priors[masks == 0].any()
        assert masks[np.arange(4), res.actions].all()
        assert np.allclose(res.policy.sum(axis=1), 1.0)
    before = games.states.copy()
    res2 = puct_search(game, games.states, evaluate, 6, np.arange(4))
    assert np.array_equal(games.states, before)  # searches work on copies
    assert np.array_equal(res2.visits, puct_search(game, games.states, evaluate, 6, np.arange(4)).visits)


# ---- hidden information ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["calcada", "calimala"])
def test_the_search_never_reads_what_its_seat_cannot_see(name):
    """Two states that differ only in what the deciding seat cannot see (one ``resample``d from the
    other) get identical searches from one seed, with network values and with rollout values
    (``mix=1``); searched as they are (no redeal), some pair is
    told apart (by the root's visits or values), so the test has the power to fail."""
    mod = game_module(name)
    K = mod.GAME.kernels
    n = mod.GAME.default_players
    env = mod.raw_env(num_players=n)
    params = mod.GAME.make_params(n)
    evaluate = projection_evaluator(int(np.prod(mod.GAME.obs_shape(params))), mod.GAME.num_actions(params), 1)
    rng = np.random.default_rng(0)
    for attempt in range(30):
        env.reset(seed=50 + attempt)
        play_random(env, rng, max_steps=int(rng.integers(3, 30)))
        if env.state_array[H_TERMINAL]:
            continue
        a = env.get_state()
        b = a.copy()
        K.resample(b, int(a[H_CURRENT]), 11 + attempt)
        b[H_RNG] = a[H_RNG]
        if np.array_equal(a, b):
            continue
        peek = [puct_search(name, s[None], evaluate, 24, np.array([4]), determinize=False) for s in (a, b)]
        if np.array_equal(peek[0].visits, peek[1].visits) and np.array_equal(peek[0].q, peek[1].q):
            continue  # told apart by neither the visits nor the values
        fair = [puct_search(name, s[None], evaluate, 24, np.array([4])) for s in (a, b)]
        assert np.array_equal(fair[0].visits, fair[1].visits) and np.array_equal(fair[0].q, fair[1].q)
        # the rollouts of mix > 0 play on the redealt copy: they see no more than the network
        rolled = [puct_search(name, s[None], evaluate, 24, np.array([4]), mix=1.0) for s in (a, b)]
        assert np.array_equal(rolled[0].visits, rolled[1].visits) and np.array_equal(rolled[0].q, rolled[1].q)
        return
    pytest.fail("found no position whose hidden cards change a search that peeks")


def test_a_determinisation_that_makes_new_decisions_legal_extends_the_node_it_reaches():
    """Calimala hides the other seats' hands: a redeal can make decisions legal at a node that it
    was not expanded with. That simulation ends there (new edges, no new node), so a search
    along one line (a sharp prior) has fewer nodes than simulations; searched without redeals,
    every simulation adds a node (no terminal is near)."""

    def sharp(obs, masks):  # the first legal action gets almost all the prior
        return np.where(np.cumsum(masks, axis=1) == 1, 10.0, 0.0), np.zeros(len(obs))

    games = BatchedGames("calimala", 4, seed=1)
    games.reset()
    for _ in range(6):
        games.step(games.random_actions())
    fair = puct_search("calimala", games.states, sharp, 40, np.arange(4))
    peek = puct_search("calimala", games.states, sharp, 40, np.arange(4), determinize=False)
    assert peek.nodes.tolist() == [41] * 4 and (fair.nodes < 41).any()
    assert fair.visits.sum(axis=1).tolist() == [40] * 4


# ---- the Python boundary ---------------------------------------------------------------------------------
def test_bad_arguments_and_bad_network_outputs_are_refused_with_clear_errors():
    state = callisto_gap()
    one = np.array([0])
    for kwargs, err, match in (({"budget": 0}, ValueError, "budget"), ({"budget": 2.0}, TypeError, "budget"),
                               ({"c_puct": 0}, ValueError, "c_puct"), ({"c_puct": float("nan")}, ValueError, "c_puct"),
                               ({"temperature": -1}, ValueError, "temperature"),
                               ({"dirichlet_alpha": 0}, ValueError, "dirichlet_alpha"),
                               ({"dirichlet_eps": 2}, ValueError, "dirichlet_eps"),
                               ({"seeds": np.array([0, 1])}, ValueError, "seeds"),
                               ({"determinize": 1}, TypeError, "determinize"),
                               ({"mix": 1.5}, ValueError, "mix"), ({"mix": "1"}, TypeError, "mix"),
                               ({"mix": 1, "horizon": -1}, ValueError, "horizon"),
                               ({"mix": 1, "scale": float("inf")}, ValueError, "scale"),
                               ({"evaluate": None}, TypeError, "callable")):
        args = {"budget": 3, "seeds": one, "evaluate": uniform_evaluator, **kwargs}
        with pytest.raises(err, match=match):
            puct_search("callisto", state[None], args.pop("evaluate"), args.pop("budget"), args.pop("seeds"), **args)
    with pytest.raises(ValueError, match="shape"):
        puct_search("callisto", state, uniform_evaluator, 3, one)
    over = state.copy()
    over[H_TERMINAL] = 1
    with pytest.raises(ValueError):
        puct_search("callisto", over[None], uniform_evaluator, 3, one)
    for bad, match in ((lambda o, m: (np.zeros((len(o), 7)), np.zeros(len(o))), "logits of shape"),
                       (lambda o, m: (np.zeros(m.shape), np.zeros(len(o) + 1)), "values of shape"),
                       (lambda o, m: (np.full(m.shape, np.nan), np.zeros(len(o))), "non-finite logit"),
                       (lambda o, m: (np.zeros(m.shape), np.full(len(o), 2.0)), r"outside \[-1, 1\]"),
                       (lambda o, m: np.zeros(m.shape), "logits, values")):
        with pytest.raises((TypeError, ValueError), match=match):
            puct_search("callisto", state[None], bad, 3, one)
    a = BatchedGames("calcada", 1, seed=0, num_players=2)
    b = BatchedGames("calcada", 1, seed=0, num_players=3)
    a.reset()
    b.reset()
    with pytest.raises(ValueError, match="one player count"):
        puct_search("calcada", np.concatenate([a.states, b.states]), uniform_evaluator, 3, np.arange(2))


# ---- the az agent ------------------------------------------------------------------------------------------
def _checkpoint(tmp_path, game: str = "calcada", players: int = 2, hidden=(16,)):
    torch = pytest.importorskip("torch")
    from gamecore.search import aznet

    g = get_game(game)
    params = g.make_params(players)
    obs_len, num_actions = int(np.prod(g.obs_shape(params))), g.num_actions(params)
    torch.manual_seed(0)
    net = aznet.make_network(obs_len, num_actions, hidden)
    config = {"game": game, "players": players, "obs_len": obs_len, "num_actions": num_actions,
              "hidden": list(hidden), "encoding": aznet.ENCODING, "simulations": 4, "c_puct": 1.25}
    path = tmp_path / f"{game}-az.pt"
    aznet.save_checkpoint(path, net, None, 0, config, {})
    return path


def test_az_specs_parse():
    assert parse_spec("az:runs/x.pt") == ("az", "runs/x.pt", {})
    assert parse_spec("az:runs/x.pt,sims=64,c=1.5") == ("az", "runs/x.pt", {"sims": 64, "c": 1.5})
    for bad, why in (("az", "path of a checkpoint"), ("az:,sims=3", "path of a checkpoint"),
                     ("az:x.pt,64", "key=value"), ("az:x.pt,widen=1", "unknown option"),
                     ("az:x.pt,sims=1.5", "whole number")):
        with pytest.raises(ValueError, match=why):
            parse_spec(bad)
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        make_agent("az:no/such/net.pt", "calcada")


def test_the_az_agent_plays_legal_decisions_on_both_paths_and_in_the_arena(tmp_path):
    path = _checkpoint(tmp_path)
    agent = make_agent(f"az:{path},sims=3", "calcada", seed=1)
    assert isinstance(agent, AZAgent) and agent.needs_state and agent.sims == 3
    assert agent.spec == f"az:{path},sims=3"
    assert make_agent(f"az:{path}", "calcada").sims == 4  # the training's budget by default
    games = BatchedGames("calcada", 3, seed=4, num_players=2)
    obs, masks = games.reset()
    for _ in range(4):
        actions = agent.act(obs, masks, games.states, games.current_players)
        assert masks[np.arange(3), actions].all()
        obs, _, _, masks = games.step(actions)
    env = game_module("calcada").env(num_players=2, illegal="raise")
    env.reset(seed=2)
    for _ in range(5):
        action = aec_action(agent, env)
        assert env.unwrapped._legal_mask()[action]
        env.step(action)
    again = make_agent(f"az:{path},sims=3", "calcada", seed=1)
    assert again.act(obs, masks, games.states, games.current_players).tolist() == \
        make_agent(f"az:{path},sims=3", "calcada", seed=1).act(obs, masks, games.states, games.current_players).tolist()
    from gamecore.tools.arena import play

    run = play("calcada", [f"az:{path},sims=2", "random"], num_players=2, games=2, seed=0)
    assert len(run.results) == 2
    with pytest.raises(ValueError, match="trained on calcada"):
        AZAgent("callisto", path)
    other = BatchedGames("calcada", 1, seed=0, num_players=3)
    o, m = other.reset()
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.act(o, m, other.states, other.current_players)


# ---- a ppo model guiding the search (ppo:<path>,sims=N; baseline:sims=N) -----------------------------------
def _ppo_model(tmp_path, game: str = "calcada", players: int = 2):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from gamecore.envs.sb3 import SelfPlayVecEnv

    venv = SelfPlayVecEnv(game, num_envs=2, seed=0, num_players=players)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=8, seed=0, device="cpu")
    path = tmp_path / f"{game}_maskppo.zip"
    model.save(path)
    return path


def test_ppo_and_baseline_search_specs_parse():
    assert parse_spec("ppo:runs/x.zip") == ("ppo", "runs/x.zip", {})
    assert parse_spec("ppo:runs/x.zip,sims=64,c=1.5") == ("ppo", "runs/x.zip", {"sims": 64, "c": 1.5})
    assert parse_spec("baseline:sims=200") == ("baseline", None, {"sims": 200})
    assert parse_spec("baseline:sims=200,mix=1,horizon=8,scale=20") == (
        "baseline", None, {"sims": 200, "mix": 1.0, "horizon": 8, "scale": 20.0})
    assert parse_spec("az:x.pt,mix=0.5") == ("az", "x.pt", {"mix": 0.5})
    for bad, why in (("ppo", "path of a saved model"), ("ppo:,sims=3", "path of a saved model"),
                     ("ppo:x.zip,64", "key=value"), ("ppo:x.zip,widen=1", "unknown option"),
                     ("baseline:sims=2.5", "whole number"), ("baseline:widen=2", "unknown option")):
        with pytest.raises(ValueError, match=why):
            parse_spec(bad)


def test_a_ppo_model_guiding_the_search_gives_its_own_policy_as_the_root_priors(tmp_path):
    path = _ppo_model(tmp_path)
    plain = make_agent(f"ppo:{path}", "calcada", seed=0)
    agent = make_agent(f"ppo:{path},sims=6,c=1.5", "calcada", seed=1)
    assert agent.needs_state and not plain.needs_state and agent.sims == 6 and agent.c == 1.5
    assert agent.spec == f"ppo:{path},sims=6,c=1.5"
    games = BatchedGames("calcada", 3, seed=5, num_players=2)
    obs, masks = games.reset()
    # the evaluator is the policy SB3 plays: its masked softmax is the model's action distribution
    import torch

    with torch.no_grad():
        dist = plain.model.policy.get_distribution(torch.as_tensor(obs, dtype=torch.float32),
                                                   action_masks=masks.astype(bool))
        want = dist.distribution.probs.numpy()
    logits, values = agent.evaluate(obs.reshape(3, -1), masks)
    assert np.allclose(masked_softmax(logits, masks), want, atol=1e-5)
    assert values.shape == (3,) and np.all(np.abs(values) <= 1.0)
    res = puct_search("calcada", games.states, agent.evaluate, 6, np.arange(3))
    assert np.allclose(res.priors, want, atol=1e-5)  # the network's priors reach the root
    for _ in range(3):
        actions = agent.act(obs, masks, games.states, games.current_players)
        assert masks[np.arange(3), actions].all()
        obs, _, _, masks = games.step(actions)
    with pytest.raises(ValueError, match="pass states"):
        agent.act(obs, masks)
    with pytest.raises(ValueError, match="give sims too"):
        make_agent(f"ppo:{path},c=1.5", "calcada")
    with pytest.raises(ValueError, match="give sims too"):
        make_agent(f"ppo:{path},mix=1", "calcada")
    with pytest.raises(ValueError, match="give mix too"):
        make_agent(f"ppo:{path},sims=4,horizon=3", "calcada")
    with pytest.raises(ValueError, match="mix"):
        make_agent(f"ppo:{path},sims=4,mix=2", "calcada")
    mixed = make_agent(f"ppo:{path},sims=6,mix=1,horizon=3", "calcada", seed=1)
    assert mixed.spec == f"ppo:{path},sims=6,mix=1,horizon=3"
    assert mixed.search_options == {"mix": 1.0, "horizon": 3, "scale": get_game("calcada").mcts_value_scale}
    actions = mixed.act(obs, masks, games.states, games.current_players)
    assert masks[np.arange(3), actions].all()
    other = BatchedGames("calcada", 1, seed=0, num_players=3)
    o, m = other.reset()
    with pytest.raises(ValueError, match="3-player games"):
        agent.act(o, m, other.states, other.current_players)


def test_the_shipped_baseline_guides_a_search_in_the_arena():
    pytest.importorskip("sb3_contrib")
    from gamecore.search.agents import shipped_baseline
    from gamecore.tools.arena import play

    game = next(g for g in ("callisto", "calimala") if shipped_baseline(g) is not None)
    agent = make_agent("baseline:sims=4", game, seed=0)
    assert agent.spec == "baseline:sims=4" and agent.needs_state
    run = play(game, ["baseline:sims=3", "random"], games=2, seed=0)
    assert run.agents[0] == "baseline:sims=3" and len(run.results) >= 2


def test_an_alphazero_network_can_be_the_shipped_baseline(tmp_path, monkeypatch):
    """A game whose package ships ``baseline/az.pt`` plays it as ``baseline`` (an az agent:
    ``baseline:sims=N`` is its budget)."""
    pytest.importorskip("torch")
    import gamecore.search.agents as agents

    az = load_script("alphazero")
    out = tmp_path / "az.pt"
    az.main(["--game", "callisto", "--iterations", "1", "--games-per-iteration", "2", "--simulations", "3",
             "--train-steps", "1", "--batch-size", "16", "--hidden", "8", "--no-progress", "--out", str(out)])
    monkeypatch.setattr(agents, "shipped_baseline", lambda game: out)
    agent = make_agent("baseline:sims=5", "callisto", seed=0)
    assert isinstance(agent, AZAgent) and agent.sims == 5 and agent.spec == "baseline:sims=5"
    assert make_agent("baseline", "callisto", seed=0).sims == 3  # the training's budget
    state = callisto_gap()
    assert _legal("callisto", state)[agent.act_one(None, _legal("callisto", state), state)]


# ---- examples/alphazero.py -----------------------------------------------------------------------------------
def test_alphazero_args_defaults_and_errors():
    az = load_script("alphazero")
    args = az.parse_args([])
    assert args.game == "callisto" and args.players == 2 and str(args.out) == "runs/callisto-az.pt"
    assert az.parse_args(["--game", "calimala"]).players == 3
    assert (args.mix, args.horizon, args.scale) == (0.0, 0, 0.0)  # Callisto's mcts rollouts: to the end
    cultivo = az.parse_args(["--game", "cultivo", "--mix", "1"])
    assert (cultivo.mix, cultivo.horizon, cultivo.scale) == (1.0, 8, 20.0)  # the game's mcts rollouts
    for bad in (["--players", "1"], ["--simulations", "0"], ["--game", "chess"], ["--hidden", "a"],
                ["--dirichlet-eps", "2"], ["--mix", "1.5"], ["--mix", "-0.1"], ["--horizon", "4"],
                ["--mix", "1", "--horizon", "-1"], ["--mix", "1", "--scale", "nan"]):
        with pytest.raises(SystemExit):
            az.parse_args(bad)


def test_alphazero_with_rollout_values_trains_and_its_agent_searches_as_it_was_trained(tmp_path, monkeypatch):
    """--mix: self-play searches with rollout leaf values (puct_search gets mix / horizon / scale),
    the config keeps them, and the az agent searches so unless its spec says otherwise."""
    pytest.importorskip("torch")
    import gamecore.search.puct as puct

    az = load_script("alphazero")
    seen = []
    real = puct.puct_search

    def spy(*a, **kw):
        seen.append((kw.get("mix"), kw.get("horizon"), kw.get("scale")))
        return real(*a, **kw)

    monkeypatch.setattr(puct, "puct_search", spy)
    out = tmp_path / "m.pt"
    az.main(["--game", "calcada", "--games-per-iteration", "2", "--simulations", "3", "--train-steps", "1",
             "--batch-size", "16", "--hidden", "8", "--iterations", "1", "--mix", "1", "--horizon", "2",
             "--scale", "5", "--no-progress", "--out", str(out)])
    assert seen and set(seen) == {(1.0, 2, 5.0)}
    monkeypatch.setattr(puct, "puct_search", real)
    agent = make_agent(f"az:{out}", "calcada", seed=0)
    assert agent.search_options == {"mix": 1.0, "horizon": 2, "scale": 5.0} and agent.spec == f"az:{out}"
    plain = make_agent(f"az:{out},mix=0", "calcada", seed=0)
    assert plain.search_options["mix"] == 0.0 and plain.spec == f"az:{out},mix=0"
    longer = make_agent(f"az:{out},horizon=6", "calcada", seed=0)
    assert longer.search_options == {"mix": 1.0, "horizon": 6, "scale": 5.0} and longer.spec == f"az:{out},horizon=6"


def test_alphazero_trains_saves_and_resumes_exactly(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    az = load_script("alphazero")
    common = ["--game", "callisto", "--games-per-iteration", "4", "--simulations", "4", "--train-steps", "3",
              "--batch-size", "32", "--hidden", "16", "--seed", "3", "--no-progress"]
    straight = az.main([*common, "--iterations", "2", "--out", str(tmp_path / "a.pt")])
    assert straight["iteration"] == 2 and len(straight["history"]) == 2
    az.main([*common, "--iterations", "1", "--out", str(tmp_path / "b.pt")])
    resumed = az.main([*common, "--iterations", "2", "--out", str(tmp_path / "b.pt"), "--resume"])
    assert [h["iteration"] for h in resumed["history"]] == [2]
    a = torch.load(tmp_path / "a.pt", weights_only=True)
    b = torch.load(tmp_path / "b.pt", weights_only=True)
    assert a["iteration"] == b["iteration"] == 2 and a["config"] == b["config"]
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    assert straight["history"][1]["policy_loss"] == resumed["history"][0]["policy_loss"]
    out = capsys.readouterr().out
    assert "iteration 2:" in out and "saved" in out
    agent = make_agent(f"az:{tmp_path / 'a.pt'}", "callisto", seed=0)
    state = callisto_gap()
    assert _legal("callisto", state)[agent.act_one(None, _legal("callisto", state), state)]


def test_alphazero_warm_start_imitates_the_teacher(tmp_path, capsys):
    """--warm-start greedy: the teacher's games give one-hot targets on legal decisions (greedy's
    own choices) and rank-reward values; the warm network, saved as iteration 0, agrees with the
    teacher on the positions it was trained on far more often than the untrained one."""
    torch = pytest.importorskip("torch")
    from gamecore.search import aznet

    az = load_script("alphazero")
    for bad in (["--warm-start", "nonsense"], ["--warm-start", "greedy", "--warm-start-games", "0"],
                ["--warm-start", "mcts:x"]):
        with pytest.raises(SystemExit):
            az.parse_args(bad)
    common = ["--game", "callisto", "--warm-start", "greedy", "--warm-start-games", "3", "--hidden", "64",
              "--seed", "2", "--no-progress"]
    args = az.parse_args([*common, "--out", str(tmp_path / "w.pt")])
    seed = az.teacher_seed(args)
    taught = az.teacher_play(args, seed)
    pi, masks = taught["pi"], taught["masks"]
    assert len(pi) == taught["decisions"] > 0 and np.all(pi.sum(axis=1) == 1)
    picked = pi.argmax(axis=1)
    assert np.all(masks[np.arange(len(pi)), picked])
    assert set(np.unique(taught["z"])) <= {-1.0, 0.0, 1.0}
    games = BatchedGames("callisto", 3, num_players=2)  # the teacher's first decisions, asked again
    games.reset(seed=seed)
    greedy = make_agent("greedy", "callisto", seed=seed)  # the teacher is seeded as its games
    again = greedy.act(games.observations, games.masks, games.states, games.current_players)
    assert np.array_equal(again, picked[:3])

    az.main([*common, "--iterations", "1", "--games-per-iteration", "2", "--simulations", "2",
             "--warm-start-steps", "300", "--batch-size", "64", "--snapshots", "--out", str(tmp_path / "w.pt")])
    assert "warm start: greedy played 3 games" in capsys.readouterr().out

    def agreement(net):
        with torch.no_grad():
            logits = net(aznet.encode_obs(taught["obs"]))[0].numpy()
        logits[masks == 0] = -np.inf
        return float(np.mean(logits.argmax(axis=1) == picked))

    warm = agreement(aznet.load_network(az.snapshot_path(tmp_path / "w.pt", 0))[0])
    cold_agreement = agreement(aznet.make_network(taught["obs"].shape[1], pi.shape[1], [64]))
    assert warm > 0.6 and warm > cold_agreement + 0.3, (warm, cold_agreement)


@pytest.mark.slow
def test_a_short_training_run_beats_its_first_checkpoint(tmp_path):
    """Callisto, 2 players: a few minutes of self-play; the last network, searching as much as the
    first (16 simulations), finishes ahead of the untrained one in most of 40 seat-rotated games."""
    pytest.importorskip("torch")
    from gamecore.tools.arena import play

    az = load_script("alphazero")
    out = tmp_path / "callisto-az.pt"
    az.main(["--iterations", "12", "--games-per-iteration", "16", "--simulations", "16", "--hidden", "128",
             "--train-steps", "50", "--batch-size", "128", "--out", str(out), "--snapshots", "--no-progress"])
    first = az.snapshot_path(out, 0)
    run = play("callisto", [f"az:{out}", f"az:{first}"], num_players=2, games=40, seed=7)
    ahead = sum(1.0 if r.keys[r.seating.index(0)] > r.keys[r.seating.index(1)] else
                0.5 if r.keys[r.seating.index(0)] == r.keys[r.seating.index(1)] else 0.0 for r in run.results)
    assert ahead / len(run.results) > 0.6, ahead
