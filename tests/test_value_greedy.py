"""The vgreedy agent: greedy's lookahead with a learned leaf value (gamecore.search.value_net)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from gamecore.envs.batched import BatchedGames
from gamecore.kernel.games import get_game
from gamecore.kernel.protocol import H_CURRENT, H_TERMINAL
from gamecore.search.agents import GreedyAgent, ValueGreedyAgent, make_agent, parse_spec
from gamecore.search.mcts import margin
from gamecore.search.value_net import ValueNet, collect, targets

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "value_greedy.py"


def random_net(game: str, players: int, hidden: int, seed: int = 0, weight: float = 1.0) -> ValueNet:
    g = get_game(game)
    d = int(np.prod(g.obs_shape(g.make_params(players))))
    rng = np.random.default_rng(seed)
    if hidden:
        return ValueNet(rng.normal(0, 0.3, (d, hidden)), rng.normal(0, 0.3, hidden), rng.normal(0, 1.0, hidden),
                        np.array([0.7]), {"game": g.name, "players": players, "weight": weight})
    return ValueNet(np.zeros((0, 0)), np.zeros(0), rng.normal(0, 0.3, d), np.array([0.7]),
                    {"game": g.name, "players": players, "weight": weight})


def mid_game_states(game: str, players: int, count: int, steps: int, seed: int) -> np.ndarray:
    games = BatchedGames(game, count, seed=seed, num_players=players)
    games.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        games.step(np.array([rng.choice(np.flatnonzero(m)) for m in games.masks]))
    return games.states[~games.dones].copy()


def saved(tmp_path, net: ValueNet, name: str = "v.npz") -> Path:
    return net.save(tmp_path / name)


@pytest.mark.parametrize("game", ["callisto", "calcada"])
def test_weight_zero_is_the_greedy_search_decision_for_decision(tmp_path, game):
    path = saved(tmp_path, random_net(game, 2, 16))
    states = mid_game_states(game, 2, 6, 9, seed=3)
    plain = GreedyAgent(game, seed=11).values(states)
    valued = ValueGreedyAgent(game, path, seed=11, weight=0).values(states)
    np.testing.assert_array_equal(plain[0], valued[0])
    np.testing.assert_array_equal(plain[1], valued[1])
    other = ValueGreedyAgent(game, path, seed=11).values(states)  # the model's own weight, 1: it matters
    assert not np.array_equal(plain[1], other[1])


@pytest.mark.parametrize("hidden", [0, 8])
def test_every_leaf_is_valued_by_its_margin_plus_the_weighted_model(tmp_path, hidden):
    """Callisto, depth 1: each decision's value is the margin after it plus weight x the MLP (in
    numpy here) of the searching seat's observation after it (the game hides nothing at 2 players)."""
    g = get_game("callisto")
    path = saved(tmp_path, random_net("callisto", 2, hidden, seed=5))
    net = ValueNet.load(path)  # the weights as stored (float32)
    state = mid_game_states("callisto", 2, 1, 6, seed=7)[0]
    me = int(state[H_CURRENT])
    _, values = ValueGreedyAgent("callisto", path, seed=0, weight=0.5, depth=1).values(state[None])
    mask = np.zeros(g.num_actions(g.make_params(2)), dtype=np.int8)
    g.kernels.legal_mask(state, mask)
    obs = np.zeros(int(np.prod(g.obs_shape(g.make_params(2)))), dtype=np.int8)  # kernels write it flat
    sc = np.zeros(2)
    checked = 0
    for a in np.flatnonzero(mask):
        s = state.copy()
        g.kernels.apply(s, int(a))
        assert s[H_TERMINAL] == 0
        g.kernels.scores(s, sc)
        g.kernels.observe(s, me, obs)
        x = obs.astype(np.float64)
        est = (np.maximum(x @ net.w1t + net.b1, 0) @ net.w2 if hidden else x @ net.w2) + net.b2[0]
        assert values[0, a] == pytest.approx(margin(sc, 2, me) + 0.5 * est, rel=1e-9, abs=1e-9)
        checked += 1
    assert checked == int(mask.sum()) > 1
    assert np.all(np.isneginf(values[0][mask == 0]))


def test_targets_are_the_margin_change_over_the_horizon_within_one_game():
    data = {"margin": np.array([[0.0, 0.0], [2.0, -2.0], [5.0, -5.0], [1.0, -1.0], [3.0, -3.0]]),
            "final": np.array([[9.0, -9.0]] * 3 + [[4.0, -4.0]] * 2), "game": np.array([0, 0, 0, 1, 1])}
    np.testing.assert_array_equal(targets(data, 1)[:, 0], [2.0, 3.0, 4.0, 2.0, 1.0])  # the last of a game: its end
    np.testing.assert_array_equal(targets(data, 2)[:, 0], [5.0, 7.0, 4.0, 3.0, 1.0])
    np.testing.assert_array_equal(targets(data, 0)[:, 0], [9.0, 7.0, 4.0, 3.0, 1.0])  # 0: to the end
    np.testing.assert_array_equal(targets(data, 2)[:, 1], -targets(data, 2)[:, 0])


def test_collect_keeps_every_decision_of_every_finished_game_from_every_seat():
    g = get_game("callisto")
    data = collect("callisto", GreedyAgent("callisto", seed=1), 3, seed=4, parallel=2)
    rows = len(data["game"])
    assert data["obs"].shape == (rows, 2, int(np.prod(g.obs_shape(g.make_params(2)))))
    assert sorted(set(data["game"].tolist())) == [0, 1, 2] and np.all(np.diff(data["game"]) >= 0)
    first = np.flatnonzero(np.diff(data["game"], prepend=-1))  # each game's first decision: scores 0 : 0
    np.testing.assert_array_equal(data["margin"][first], 0.0)
    ends = np.r_[first[1:], rows] - 1
    np.testing.assert_array_equal(data["final"][ends], data["final"][first])  # one final margin per game
    np.testing.assert_array_equal(data["final"][:, 0], -data["final"][:, 1])


def test_fit_refuses_empty_data_and_bad_sizes():
    from gamecore.search.value_net import fit

    data = collect("callisto", GreedyAgent("callisto", seed=1), 1, seed=4, parallel=1)
    for kwargs, why in (({"epochs": 0}, "epochs"), ({"batch_size": 0}, "batch_size"), ({"hidden": -1}, "hidden")):
        with pytest.raises(ValueError, match=why):
            fit("callisto", [data], 2, **kwargs)
    with pytest.raises(ValueError, match="at least one dataset"):
        fit("callisto", [], 2)


def test_a_model_file_round_trips_and_bad_ones_are_refused(tmp_path):
    net = random_net("calcada", 2, 4, weight=0.5)
    back = ValueNet.load(saved(tmp_path, net))
    for a, b in ((net.w1t, back.w1t), (net.b1, back.b1), (net.w2, back.w2), (net.b2, back.b2)):
        np.testing.assert_allclose(a, b, rtol=1e-6)  # stored as float32
    assert back.meta == net.meta and back.weight == 0.5
    with pytest.raises(FileNotFoundError, match="no value model"):
        ValueNet.load(tmp_path / "none.npz")
    np.savez(tmp_path / "other.npz", w=np.zeros(3))
    with pytest.raises(ValueError, match="not a value model"):
        ValueNet.load(tmp_path / "other.npz")
    bad = random_net("calcada", 2, 4)
    bad.w2 = np.full(4, np.nan)
    with pytest.raises(ValueError, match="malformed"):
        ValueNet.load(saved(tmp_path, bad, "nan.npz"))
    bad = random_net("calcada", 2, 4)
    bad.w2 = np.zeros(5)  # 4 hidden units, 5 output weights
    with pytest.raises(ValueError, match="malformed"):
        ValueNet.load(saved(tmp_path, bad, "shape.npz"))


def test_the_vgreedy_spec_and_its_refusals(tmp_path):
    path = saved(tmp_path, random_net("calcada", 2, 4))
    assert parse_spec(f"vgreedy:{path},weight=0.5") == ("vgreedy", str(path), {"weight": 0.5})
    agent = make_agent(f"vgreedy:{path},weight=0.5", "calcada", seed=0)
    assert isinstance(agent, ValueGreedyAgent) and agent.needs_state and agent.spec == f"vgreedy:{path},weight=0.5"
    assert make_agent(f"vgreedy:{path},depth=2", "calcada").spec == f"vgreedy:{path},depth=2"
    for bad, why in (("vgreedy", "path of a value model"), (f"vgreedy:{path},lam=1", "unknown option"),
                     (f"vgreedy:{path},weight=nan", "finite number"), (f"vgreedy:{path},weight=-1", "0.."),
                     (f"vgreedy:{path},depth=0", "at least 1")):
        with pytest.raises(ValueError, match=why):
            make_agent(bad, "calcada")
    with pytest.raises(ValueError, match="trained on calcada, not callisto"):
        make_agent(f"vgreedy:{path}", "callisto")
    three = mid_game_states("calcada", 3, 1, 2, seed=1)
    mask = np.zeros(get_game("calcada").num_actions(get_game("calcada").make_params(3)), dtype=np.int8)
    get_game("calcada").kernels.legal_mask(three[0], mask)
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.act(None, mask[None].astype(bool), three, None)
    wide = random_net("calcada", 3, 4)
    wide.meta["players"] = 2  # a model whose inputs do not match the observation it would read
    with pytest.raises(ValueError, match="reads .* inputs"):
        make_agent(f"vgreedy:{saved(tmp_path, wide, 'wide.npz')}", "calcada")


def test_value_greedy_example_trains_saves_and_loads_a_model(tmp_path, capsys):
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("examples_value_greedy", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "cv.npz"
    result = module.main(["--game", "callisto", "--games", "4", "--iterations", "2", "--parallel", "4",
                          "--horizon", "4", "--hidden", "8", "--weight", "0.5", "--out", str(out), "--no-progress"])
    text = capsys.readouterr().out
    assert "iteration 1/2: 4 games with greedy" in text and "iteration 2/2: 4 games with vgreedy" in text
    net = ValueNet.load(out)
    assert net.meta["iterations"] == 2 and net.meta["games"] == 8 and net.weight == 0.5
    assert net.meta["decisions"] == result["decisions"] > 0 and net.meta["horizon"] == 4
    assert json.loads(text.strip().splitlines()[-1])["out"] == str(out)
    agent = make_agent(f"vgreedy:{out}", "callisto", seed=0)
    states = mid_game_states("callisto", 2, 2, 3, seed=0)
    masks = np.zeros((len(states), get_game("callisto").num_actions(get_game("callisto").make_params(2))), bool)
    for i, s in enumerate(states):
        m = masks[i].view(np.int8)
        get_game("callisto").kernels.legal_mask(s, m)
    assert masks[np.arange(len(states)), agent.act(None, masks, states, None)].all()
    with pytest.raises(SystemExit):
        module.parse_args(["--games", "0"])


def test_a_value_model_can_be_the_shipped_baseline_and_takes_vgreedy_options(tmp_path, monkeypatch):
    import gamecore.search.agents as agents

    path = saved(tmp_path, random_net("calcada", 2, 4, weight=0.5), "vgreedy.npz")
    monkeypatch.setattr(agents, "shipped_baseline", lambda game: path if get_game(game).name == "calcada" else None)
    agent = make_agent("baseline:weight=0,depth=2", "calcada", seed=0)
    assert isinstance(agent, ValueGreedyAgent) and agent.spec == "baseline:weight=0,depth=2"
    assert agent.net[5] == 0.0 and agent.depth == 2 and make_agent("baseline", "calcada").net[5] == 0.5
    with pytest.raises(ValueError, match="is a vgreedy value model: it takes weight, .*not mix, sims"):
        make_agent("baseline:sims=3,mix=1", "calcada")
    monkeypatch.setattr(agents, "shipped_baseline", lambda game: tmp_path / "maskppo.zip")
    with pytest.raises(ValueError, match="is a network: it takes sims, .*not depth"):
        make_agent("baseline:depth=2", "callisto")
