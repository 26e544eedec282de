"""Stable-Baselines3 the way its users use it, on every game: ``check_env``, ``ActionMasker``,
``DummyVecEnv`` / ``SubprocVecEnv`` with MaskablePPO, plain PPO and DQN with ``illegal="lose"``,
and ``illegal=`` on the batched ``SelfPlayVecEnv``."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="needs the train extra")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from sb3_contrib.common.wrappers import ActionMasker  # noqa: E402
from stable_baselines3 import DQN, PPO  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv  # noqa: E402

from conftest import GAME_PLAYERS, game_module, opening_seat  # noqa: E402
from gamecore.envs.registration import gymnasium_id  # noqa: E402
from gamecore.envs.sb3 import SelfPlayVecEnv  # noqa: E402
from gamecore.envs.single_agent import SingleAgentEnv  # noqa: E402

SMALL = {"n_steps": 16, "batch_size": 16, "n_epochs": 1, "seed": 0, "device": "cpu",
         "policy_kwargs": {"net_arch": [16]}}


def gym_id(name: str) -> str:
    return gymnasium_id(game_module(name).GAME.env_id)


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_sb3_check_env_passes_without_warnings(name, n):
    env = gym.make(gym_id(name), num_players=n).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


def test_action_masker_and_dummy_vec_env_train_maskable_ppo(game_name):
    env = ActionMasker(gym.make(gym_id(game_name)), lambda e: e.unwrapped.action_masks())
    venv = DummyVecEnv([lambda: env])
    assert is_masking_supported(venv)
    model = MaskablePPO("MlpPolicy", venv, **SMALL).learn(32)
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
    assert get_action_masks(venv)[0, actions[0]]
    # without any wrapper too: MaskablePPO finds the env's own action_masks()
    plain = make_vec_env(gym_id(game_name), n_envs=2, seed=0)
    assert is_masking_supported(plain)
    MaskablePPO("MlpPolicy", plain, **SMALL).learn(32)


@pytest.mark.slow
def test_maskable_ppo_trains_in_subproc_vec_env(game_name):
    # worker processes start without this process's imports: the "module:id" form registers there
    # (gamecore.envs registers every game; a game package alone registers nothing)
    env_id = f"gamecore.envs:{gym_id(game_name)}"
    venv = make_vec_env(env_id, n_envs=2, seed=0, vec_env_cls=SubprocVecEnv)
    try:
        assert is_masking_supported(venv)
        model = MaskablePPO("MlpPolicy", venv, **SMALL).learn(64)
        assert model.num_timesteps >= 64
        masks = get_action_masks(venv)
        assert masks.shape == (2, venv.action_space.n) and masks.any(axis=1).all()
    finally:
        venv.close()


@pytest.mark.slow
def test_plain_ppo_and_dqn_learn_with_illegal_lose(game_name):
    """Unmasked algorithms sample masked-out actions: under illegal="lose" those end the game."""
    venv = make_vec_env(gym_id(game_name), n_envs=2, seed=0)
    PPO("MlpPolicy", venv, **SMALL).learn(64)
    env = gym.make(gym_id(game_name))
    DQN("MlpPolicy", env, learning_starts=16, buffer_size=200, seed=0, device="cpu",
        policy_kwargs={"net_arch": [16]}).learn(48)


def _forfeits(venv, steps=40, seed=0):
    """Step ``venv`` with uniformly random (unmasked) actions; returns the infos of finished games."""
    rng = np.random.default_rng(seed)
    venv.reset()
    done_infos = []
    for _ in range(steps):
        obs, rewards, dones, infos = venv.step(rng.integers(venv.action_space.n, size=venv.num_envs))
        done_infos += [(float(rewards[i]), infos[i]) for i in np.flatnonzero(dones)]
    return done_infos


def test_selfplay_vecenv_illegal_lose_forfeits_the_learner(game_name):
    venv = SelfPlayVecEnv(game_name, num_envs=4, seed=0, illegal="lose")
    finished = _forfeits(venv)
    assert finished, "random actions are almost always masked out"
    for reward, info in finished:
        assert info["illegal_action"] and reward == -1.0 and info["forfeit_by"] == info["learner_seat"]
        assert info["terminal_observation"].shape == venv.observation_space.shape
    # play goes on: after a forfeit every game has the learner deciding in a fresh game
    assert np.array_equal(venv.games.current_players, venv._seats)
    assert PPO("MlpPolicy", venv, **SMALL).learn(64).num_timesteps >= 64


def test_selfplay_vecenv_illegal_lose_forfeits_a_cheating_opponent(game_name):
    def cheat(obs, masks):
        return np.array([int(np.flatnonzero(~m)[0]) for m in masks])

    seat = opening_seat(game_name)  # the learner opens, so the opponent's forfeit is mid-game
    venv = SelfPlayVecEnv(game_name, num_envs=2, seed=0, illegal="lose", opponent=cheat, learner_seat=seat)
    obs = venv.reset()
    for _ in range(60):
        obs, rewards, dones, infos = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
        if dones.any():
            i = int(np.flatnonzero(dones)[0])
            assert rewards[i] == 0.0 and infos[i]["forfeit_by"] not in (None, seat) and "illegal_action" not in infos[i]
            break
    else:
        pytest.fail("the opponent never moved")


def test_selfplay_vecenv_illegal_raise_is_the_default_and_changes_nothing(game_name):
    venv = SelfPlayVecEnv(game_name, num_envs=2, seed=0)
    assert venv.illegal == "raise"
    venv.reset()
    before = venv.games.states.copy()
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in venv.action_masks()])
    with pytest.raises(ValueError, match="not legal"):
        venv.step(bad)
    assert np.array_equal(venv.games.states, before)
    lose = SelfPlayVecEnv(game_name, num_envs=2, seed=0, illegal="lose")
    lose.reset()
    with pytest.raises(ValueError, match="out of range"):  # outside the space: always raises
        lose.step(np.full(2, lose.action_space.n))
    with pytest.raises(ValueError, match="illegal"):
        SelfPlayVecEnv(game_name, illegal="ignore")


def test_vec_env_unknown_option_lists_what_it_accepts(game_name):
    with pytest.raises(TypeError, match="unknown option") as err:
        SelfPlayVecEnv(game_name, render_mode="ansi")
    message = str(err.value)
    assert "render_mode" not in message.split("known options:")[1]  # not offered where not accepted
    for keyword in ("num_players", "num_envs", "seed", "opponent", "learner_seat", "reward_mode", "illegal"):
        assert keyword in message


def test_single_agent_env_opponent_can_be_a_model_snapshot(game_name):
    """Self-play with a frozen policy: the same callables serve SelfPlayVecEnv and SingleAgentEnv."""
    env = SingleAgentEnv(game_name)
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: SingleAgentEnv(game_name)]), **SMALL)

    def snapshot(obs, masks):
        return model.predict(obs, action_masks=masks, deterministic=True)[0]

    env.set_opponent(snapshot)
    obs, info = env.reset(seed=0)
    for _ in range(5000):  # a Cultivo game is some 350 decisions per seat
        obs, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert "forfeit_by" not in info  # the masked snapshot never plays an illegal move
        if terminated:
            break
    else:
        pytest.fail("the game did not end")


def test_sb3_check_env_warns_about_an_unflattened_int8_image(game_name):
    env = SingleAgentEnv(game_name, flatten=False)
    if len(env.observation_space.shape) != 3:
        pytest.skip(f"{game_name}'s observation is not 3-D")
    with pytest.warns(UserWarning, match="uint8"):
        check_env(env)


def test_selfplay_vecenv_stops_an_opponent_that_forfeits_every_game_before_the_learner_moves(game_name):
    def cheat(obs, masks):
        return np.array([int(np.flatnonzero(~m)[0]) for m in masks])

    learner = 1 - opening_seat(game_name)
    venv = SelfPlayVecEnv(game_name, num_envs=2, seed=0, illegal="lose", opponent=cheat, learner_seat=learner)
    with pytest.raises(RuntimeError, match="forfeited .* games in a row"):
        venv.reset()  # the opponent opens every game: without the check this would loop forever


def test_margin_shaping_adds_the_change_of_the_learners_score_margin(game_name):
    """Each learner step's reward is the rank reward plus c x (its margin at its next decision, or at
    the game's end, less its margin at this one); the games themselves are those of the unshaped env
    with the same seed and actions."""
    c = 0.1
    shaped = SelfPlayVecEnv(game_name, num_envs=3, seed=3, margin_shaping=c)
    plain = SelfPlayVecEnv(game_name, num_envs=3, seed=3)
    shaped.reset()
    plain.reset()
    g = shaped.games
    scores = np.zeros(g.num_players)

    def margin(state, seat):
        g.game.kernels.scores(state, scores)
        return scores[seat] - max(scores[s] for s in range(g.num_players) if s != seat)

    def margins():
        return [margin(g.states[i], int(g.current_players[i])) for i in range(3)], g.current_players.copy()

    before, seats = margins()
    rng = np.random.default_rng(0)
    ended = np.zeros(3, dtype=bool)
    shaped_steps = 0
    for _ in range(3000):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in shaped.action_masks()])
        _, rewards, dones, _ = shaped.step(actions)
        _, plain_rewards, plain_dones, _ = plain.step(actions)
        assert np.array_equal(dones, plain_dones) and np.array_equal(g.states, plain.games.states)
        for i in range(3):
            if dones[i]:
                end = margin(g.final_states[i], int(seats[i]))
            else:
                end = margin(g.states[i], int(g.current_players[i]))
            assert rewards[i] == pytest.approx(plain_rewards[i] + c * (end - before[i]), abs=1e-5)
        shaped_steps += int((rewards != plain_rewards).sum())
        before, seats = margins()
        ended |= dones
        if ended.all():
            break
    assert ended.all() and shaped_steps > 0


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), "0.1", True, None])
def test_margin_shaping_refuses_what_is_not_a_finite_non_negative_number(bad):
    with pytest.raises(ValueError, match="margin_shaping"):
        SelfPlayVecEnv("calcada", num_envs=2, seed=0, margin_shaping=bad)
