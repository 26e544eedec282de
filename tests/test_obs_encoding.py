"""Observation ranges and the ``obs_encoding`` option.

* every entry's documented maximum (``GameSpec.obs_high_vector``, the ``Range`` column of the env
  docstrings) holds in random play: for every game and player count, a few random games never give
  any seat's observation an entry above its maximum or below 0 (this is the test that guards the
  ranges: a maximum set too small fails it, see ``test_the_range_check_catches_a_maximum_too_small``);
* ``obs_encoding="scaled"`` is the int8 observation divided by those maxima on every path (AEC,
  batched, SB3 VecEnv, single-agent; RLlib where ray is installed), and the spaces contain it;
* a bad ``obs_encoding`` is a clear error everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import GAME_NAMES, GAME_PLAYERS, game_module
from gamecore.envs.batched import BatchedGames
from gamecore.envs.encoding import OBS_ENCODINGS, ObsEncoder
from gamecore.envs.single_agent import SingleAgentEnv
from gamecore.kernel.games import get_game

#: random games per game and player count in the range test (each slot plays until its first game ends)
RANGE_GAMES = 3


def expected_scaled(game, params, obs: np.ndarray) -> np.ndarray:
    """int8 observations divided by the documented maxima, as float32 (C order)."""
    high = np.maximum(game.obs_high_vector(params), 1).astype(np.float32)
    flat = obs.reshape(*obs.shape[: obs.ndim - len(game.obs_shape(params))], -1)
    return (flat.astype(np.float32) / high).reshape(obs.shape)


def out_of_range(obs: np.ndarray, high: np.ndarray) -> int | None:
    """The first entry of a flat observation outside ``0..high``, or None."""
    bad = np.flatnonzero((obs < 0) | (obs > high))
    return int(bad[0]) if len(bad) else None


def block_of(game, params, entry: int) -> str:
    lay = game.obs_layout(params)
    if lay is None:  # Callisto's planes: the channel's group
        lay = game_module(game.name).layout.OBS_PLANES[int(params[0])]
        entry %= lay.size
    return next(b.name for b in lay.blocks if b.offset <= entry < b.end)


def random_play_observations(name: str, n: int, games: int = RANGE_GAMES, seed: int = 11):
    """Every seat's int8 observation of every position (finished ones included) of ``games``
    random games, as one (rows, obs_len) array, with the params."""
    batch = BatchedGames(name, games, seed=seed, num_players=n)
    kernels = batch.game.kernels
    batch.reset()
    obs_len = int(np.prod(batch.obs_shape))
    buf = np.empty(obs_len, dtype=np.int8)
    rows = []
    finished = np.zeros(games, dtype=bool)

    def observe_all(states):
        for state in states:
            for seat in range(n):
                kernels.observe(state, seat, buf)
                rows.append(buf.copy())

    while not finished.all():
        observe_all(batch.states[~finished])
        _, _, dones, _ = batch.step(batch.random_actions())
        observe_all(batch.final_states[dones & ~finished])
        finished |= dones
    return np.array(rows), batch.params


@pytest.mark.parametrize(("name", "n"), GAME_PLAYERS)
def test_random_play_stays_within_the_documented_maxima(name, n):
    obs, params = random_play_observations(name, n)
    game = get_game(name)
    high = game.obs_high_vector(params)
    assert high.shape == (obs.shape[1],) and high.dtype == np.int64
    assert high.min() >= 0 and high.max() <= game.obs_high(params)
    lo, hi = obs.min(axis=0), obs.max(axis=0)
    bad = np.flatnonzero((lo < 0) | (hi > high))
    if len(bad):
        i = int(bad[0])
        pytest.fail(f"{name} {n}p: entry {i} (block {block_of(game, params, i)}) took "
                    f"{int(lo[i])}..{int(hi[i])}, documented 0..{int(high[i])}")


def test_the_range_check_catches_a_maximum_too_small():
    """Lower one documented maximum below what play reaches: the check above must report it."""
    obs, params = random_play_observations("calcada", 2, games=1)
    game = get_game("calcada")
    high = game.obs_high_vector(params).copy()
    peak = obs.max(axis=0)
    assert all(out_of_range(row, high) is None for row in obs)
    i = int(np.argmax(peak))  # an entry that play drives above 0 ...
    assert peak[i] > 0
    high[i] = peak[i] - 1  # ... documented one too small
    assert any(out_of_range(row, high) == i for row in obs)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_maxima_depend_on_the_player_count_only_and_the_docstring_states_them(name):
    game = get_game(name)
    module = game_module(name)
    assert "Range" in module.env.__doc__
    other = {"callisto": {"match": True}, "calcada": {"board_side": "B"}, "calimala": {"action_layout": "first_game"},
             "cultivo": {"random_villages": False}}[name]
    for n in game.player_counts:
        a = game.obs_high_vector(game.make_params(n))
        b = game.obs_high_vector(game.make_params(n, **other))
        assert np.array_equal(a, b)
        lay = game.obs_layout(game.make_params(n))
        if lay is not None:
            assert lay.has_ranges and all(b.range_text() for b in lay.blocks)


def _step_pair(envs, rng):
    """Step the AEC envs of both encodings with one random legal action (None when dead)."""
    a, s = envs
    agent = a.agent_selection
    if a.terminations[agent] or a.truncations[agent]:
        action = None
    else:
        action = int(rng.choice(np.flatnonzero(a.observe(agent)["action_mask"])))
    a.step(action)
    s.step(action)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_scaled_aec_env_is_int8_over_the_maxima(name):
    module = game_module(name)
    int8, scaled = module.env(), module.env(obs_encoding="scaled")
    assert scaled.unwrapped.obs_encoding == "scaled" and int8.unwrapped.obs_encoding == "int8"
    game, params = scaled.unwrapped.game, scaled.unwrapped.params
    space = scaled.observation_space("player_0")["observation"]
    assert space.dtype == np.float32 and space.low.min() == 0.0 and space.high.max() == 1.0
    assert space.shape == int8.observation_space("player_0")["observation"].shape
    int8.reset(seed=3)
    scaled.reset(seed=3)
    rng = np.random.default_rng(0)
    for step in range(200):
        if not int8.agents:
            break
        if step % 10 == 0:
            for agent in int8.agents:
                o8, of = int8.observe(agent), scaled.observe(agent)
                assert of["observation"].dtype == np.float32
                np.testing.assert_array_equal(of["observation"], expected_scaled(game, params, o8["observation"]))
                np.testing.assert_array_equal(of["action_mask"], o8["action_mask"])
                assert scaled.observation_space(agent).contains(of)
        _step_pair((int8, scaled), rng)
    np.testing.assert_array_equal(int8.unwrapped.state(), scaled.unwrapped.state())  # the global state stays int8


@pytest.mark.parametrize("name", GAME_NAMES)
def test_scaled_batched_games_are_int8_over_the_maxima(name):
    int8 = BatchedGames(name, 3, seed=5)
    scaled = BatchedGames(name, 3, seed=5, obs_encoding="scaled")
    o8, _ = int8.reset()
    of, _ = scaled.reset()
    space = scaled.observation_space
    assert space.dtype == np.float32 and int8.observation_space.dtype == np.int8
    for step in range(60):
        assert of.dtype == np.float32 and of.shape == o8.shape
        np.testing.assert_array_equal(of, expected_scaled(scaled.game, scaled.params, o8))
        np.testing.assert_array_equal(scaled.raw_observations, o8)
        assert all(space.contains(row) for row in of)
        actions = int8.random_actions()
        if step == 30:  # a forfeit restarts games through another kernel
            int8.forfeit(np.array([1]))
            scaled.forfeit(np.array([1]))
        else:
            o8 = int8.step(actions)[0]
            of = scaled.step(actions)[0]
    of, o8 = scaled.observations, int8.observations
    np.testing.assert_array_equal(of, expected_scaled(scaled.game, scaled.params, o8))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_scaled_vec_env_is_int8_over_the_maxima(name):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from gamecore.envs.sb3 import SelfPlayVecEnv

    seen = []

    def watching(obs, masks):  # the opponent gets the env's encoding too
        seen.append(obs.dtype)
        return np.array([int(np.flatnonzero(m)[0]) for m in masks])

    int8 = SelfPlayVecEnv(name, num_envs=3, seed=2)
    scaled = SelfPlayVecEnv(name, num_envs=3, seed=2, obs_encoding="scaled")
    assert scaled.observation_space.dtype == np.float32 and scaled.observation_space.high.max() == 1.0
    game, params = scaled.games.game, scaled.games.params
    o8, of = int8.reset(), scaled.reset()
    rng = np.random.default_rng(1)
    for _ in range(150):
        np.testing.assert_array_equal(of, expected_scaled(game, params, o8))
        assert all(scaled.observation_space.contains(row) for row in of)
        masks = int8.action_masks()
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        o8, _, d8, i8 = int8.step(actions)
        of, _, df, i_f = scaled.step(actions)
        np.testing.assert_array_equal(d8, df)
        for i in np.flatnonzero(d8):
            t8, tf = i8[i]["terminal_observation"], i_f[i]["terminal_observation"]
            np.testing.assert_array_equal(tf, expected_scaled(game, params, t8))
            assert scaled.observation_space.contains(tf)
    scaled.set_opponent(watching)
    scaled.reset()
    for _ in range(40):  # until the opponent has moved (a turn can be several learner decisions)
        scaled.step(np.array([int(np.flatnonzero(m)[0]) for m in scaled.action_masks()]))
    assert seen and set(seen) == {np.dtype(np.float32)}


@pytest.mark.parametrize("name", GAME_NAMES)
def test_scaled_single_agent_env_is_int8_over_the_maxima(name):
    int8 = SingleAgentEnv(name, opponent="random")
    scaled = SingleAgentEnv(name, opponent="random", obs_encoding="scaled")
    game, params = scaled.game, scaled.aec.params
    assert scaled.observation_space.dtype == np.float32
    assert scaled.observation_space.shape == int8.observation_space.shape
    o8, _ = int8.reset(seed=4)
    of, _ = scaled.reset(seed=4)
    rng = np.random.default_rng(2)
    for _ in range(80):
        np.testing.assert_array_equal(of, expected_scaled(game, params, o8))
        assert scaled.observation_space.contains(of)
        action = int(rng.choice(np.flatnonzero(int8.action_masks())))
        o8, r8, t8, _, _ = int8.step(action)
        of, rf, tf, _, _ = scaled.step(action)
        assert (r8, t8) == (rf, tf)
        if t8:
            o8, _ = int8.reset()
            of, _ = scaled.reset()
    if name == "callisto":  # the planes keep their shape unflattened
        planes = SingleAgentEnv(name, flatten=False, obs_encoding="scaled")
        obs, _ = planes.reset(seed=0)
        assert obs.shape == game.obs_shape(params) and planes.observation_space.contains(obs)


def test_scaled_rllib_env_is_int8_over_the_maxima():
    pytest.importorskip("ray", reason="needs the rllib extra")
    from gamecore.envs.rllib import RLlibEnv

    for name in GAME_NAMES:
        int8 = RLlibEnv({"game": name})
        scaled = RLlibEnv({"game": name, "obs_encoding": "scaled"})
        game, params = scaled.game, scaled.aec.params
        o8, _ = int8.reset(seed=1)
        of, _ = scaled.reset(seed=1)
        ((agent, ob8),) = o8.items()
        obf = of[agent]
        flat = expected_scaled(game, params, ob8["observations"].astype(np.int8).reshape(game.obs_shape(params)))
        np.testing.assert_array_equal(obf["observations"], flat.reshape(-1))
        assert scaled.observation_spaces[agent].contains(obf)


def test_a_ppo_agent_trained_on_scaled_observations_is_fed_them_scaled(tmp_path):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from sb3_contrib import MaskablePPO

    from gamecore.envs.sb3 import SelfPlayVecEnv
    from gamecore.search.agents import PPOAgent

    venv = SelfPlayVecEnv("calcada", num_envs=2, seed=0, obs_encoding="scaled")
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, n_epochs=1, seed=0, device="cpu")
    model.learn(16)
    model.save(tmp_path / "m.zip")
    agent = PPOAgent("calcada", tmp_path / "m.zip")
    assert agent.scaled
    batch = BatchedGames("calcada", 4, seed=9)
    obs, masks = batch.reset()
    want, _ = model.predict(expected_scaled(batch.game, batch.params, obs), action_masks=masks.astype(bool),
                            deterministic=True)
    np.testing.assert_array_equal(agent.act(obs, masks.astype(bool)), want)  # int8 in: scaled first
    scaled_obs = expected_scaled(batch.game, batch.params, obs)
    np.testing.assert_array_equal(agent.act(scaled_obs, masks.astype(bool)), want)  # already scaled: as it is


BAD = ["float32", "Scaled", "", None, 8, ["scaled"], np.array(["int8"])]


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_a_bad_obs_encoding_is_a_clear_error_everywhere(bad):
    message = r"obs_encoding must be one of \['int8', 'scaled'\]"
    module = game_module("calcada")
    builders = [lambda: module.env(obs_encoding=bad), lambda: module.raw_env(obs_encoding=bad),
                lambda: BatchedGames("calcada", 2, obs_encoding=bad),
                lambda: SingleAgentEnv("calcada", obs_encoding=bad),
                lambda: ObsEncoder(module.GAME, module.GAME.make_params(2), bad)]
    try:
        from gamecore.envs.sb3 import SelfPlayVecEnv

        builders.append(lambda: SelfPlayVecEnv("calcada", num_envs=2, obs_encoding=bad))
    except ImportError:
        pass
    for build in builders:
        with pytest.raises(ValueError, match=message):
            build()
    assert OBS_ENCODINGS == ("int8", "scaled")


def test_obs_encoding_is_a_known_option_of_every_constructor():
    game = get_game("calcada")
    assert "obs_encoding" in game.known_options()
    with pytest.raises(TypeError, match="obs_encoding"):  # the unknown-option list names it
        BatchedGames("calcada", 2, colour="red")
    with pytest.raises(TypeError, match="obs_encoding"):
        SingleAgentEnv("calcada", colour="red")


def test_scaled_envs_pass_the_api_checkers():
    """PettingZoo's api_test, Gymnasium's and SB3's env checkers accept the scaled spaces."""
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    api_test(game_module("calcada").env(obs_encoding="scaled"), num_cycles=30)
    check_env(SingleAgentEnv("calcada", obs_encoding="scaled"), skip_render_check=True)
    try:
        from stable_baselines3.common.env_checker import check_env as sb3_check_env
    except ImportError:
        return
    sb3_check_env(SingleAgentEnv("calcada", obs_encoding="scaled"))
