"""The single-agent Gymnasium env (``gamecore.envs.single_agent``), on every game and player count:
Gymnasium's registry and checker, seats, opponents, masks, rewards and the illegal-action policy."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from conftest import GAME_NAMES, GAME_PLAYERS, game_module, opening_seat
from gamecore.envs.aec import IllegalActionError
from gamecore.envs.registration import gymnasium_id
from gamecore.envs.single_agent import SingleAgentEnv
from gamecore.kernel.games import game_package
from gamecore.kernel.protocol import H_CURRENT


def gym_id(name: str) -> str:
    return gymnasium_id(game_module(name).GAME.env_id)


def first_legal(obs, masks):
    return np.array([int(np.flatnonzero(m)[0]) for m in masks])


def play_episode(env, seed=None, pick=None):
    """Play one episode with ``pick(mask) -> action`` (first legal by default); returns rewards, infos."""
    obs, info = env.reset(seed=seed)
    rewards, infos = [], [info]
    while True:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        action = int(np.flatnonzero(mask)[0]) if pick is None else pick(mask)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        rewards.append(reward)
        infos.append(info)
        assert not truncated
        if terminated:
            return rewards, infos


def test_every_game_is_registered_with_gymnasium(game_name):
    gid = gym_id(game_name)
    assert gid == f"tabletop-rl-envs/{game_package(game_name).env_id.capitalize()}"
    assert gid in gym.registry
    env = gym.make(gid)
    assert isinstance(env.unwrapped, SingleAgentEnv) and env.unwrapped.game.name == game_name
    # the "module:id" form imports the game package first
    module = game_module(game_name).__name__
    assert isinstance(gym.make(f"{module}:{gid}").unwrapped, SingleAgentEnv)


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_gymnasium_check_env_passes(name, n, capsys):
    env = gym.make(gym_id(name), num_players=n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium's checker warns on anything dubious: fail on it
        check_env(env.unwrapped)  # renders every mode, "human" prints
    env.close()


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_spaces_masks_and_info(name, n):
    env = SingleAgentEnv(name, num_players=n)
    raw = game_module(name).raw_env(num_players=n)
    obs, info = env.reset(seed=4)
    assert env.observation_space.shape == (int(np.prod(raw.observation_space("player_0")["observation"].shape)),)
    assert env.observation_space.dtype == np.int8 and obs.dtype == np.int8
    assert env.action_space.n == raw.action_space("player_0").n
    assert info["action_mask"].dtype == np.int8 and info["learner_seat"] == 0
    # the mask is exactly the AEC env's mask of the learner's seat
    aec = env.unwrapped.aec
    assert int(aec.state_array[H_CURRENT]) == env.seat
    assert np.array_equal(env.action_masks(), aec.observe(aec.possible_agents[env.seat])["action_mask"] == 1)
    _, infos = play_episode(env)
    assert not infos[-1]["action_mask"].any() and not env.action_masks().any()  # nothing legal once over
    shaped = SingleAgentEnv(name, num_players=n, flatten=False)
    assert shaped.observation_space.shape == raw.observation_space("player_0")["observation"].shape
    assert shaped.reset(seed=4)[0].shape == shaped.observation_space.shape


def test_learner_seat_rotates_is_fixed_or_chosen_per_episode(game_name):
    n = game_module(game_name).GAME.max_players
    env = SingleAgentEnv(game_name, num_players=n)
    seats = []
    for k in range(n + 1):
        env.reset(seed=1 if k == 0 else None)
        seats.append(env.seat)
        assert int(env.unwrapped.aec.state_array[H_CURRENT]) == env.seat  # the learner decides first
    assert seats == [*range(n), 0]
    fixed = SingleAgentEnv(game_name, num_players=n, learner_seat=n - 1)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(3)} == {n - 1}
    assert env.reset(seed=2, options={"learner_seat": 1})[1]["learner_seat"] == 1
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv(game_name, learner_seat=n)
    with pytest.raises(ValueError, match="learner_seat"):
        env.reset(options={"learner_seat": -1})


def test_same_seed_same_episode_and_the_opponent_sees_its_own_seat(game_name):
    calls = []

    def opponent(obs, masks):
        calls.append((obs.shape, masks.shape, masks.dtype))
        return first_legal(obs, masks)

    env = SingleAgentEnv(game_name, opponent=opponent, learner_seat=1)
    obs_shape, n_actions = env.observation_space.shape, env.action_space.n
    a = play_episode(env, seed=9)
    b = play_episode(env, seed=9)
    assert a[0] == b[0]
    assert calls and set(calls) == {((1, *obs_shape), (1, n_actions), np.dtype(bool))}
    rnd = SingleAgentEnv(game_name)  # the named random opponent is seeded by reset(seed=...)
    rng = np.random.default_rng(0)
    first = play_episode(rnd, seed=5, pick=lambda m: int(rng.choice(np.flatnonzero(m))))
    rng = np.random.default_rng(0)
    again = play_episode(rnd, seed=5, pick=lambda m: int(rng.choice(np.flatnonzero(m))))
    assert first[0] == again[0] and len(first[1]) == len(again[1])


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_the_reward_is_the_learners_final_score(name, n):
    env = SingleAgentEnv(name, num_players=n, reward_mode="score", learner_seat=n - 1)
    rewards, _ = play_episode(env, seed=3)
    scores = np.zeros(n)
    env.unwrapped.game.kernels.scores(env.unwrapped.aec.state_array, scores)
    assert sum(rewards) == pytest.approx(scores[n - 1])
    assert all(r == 0 for r in rewards[:-1])


def test_illegal_lose_ends_the_game_with_minus_one_for_the_learner(game_name):
    env = SingleAgentEnv(game_name)  # illegal="lose" by default, as env()
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, _, info = env.step(bad)
    assert (reward, terminated, info["illegal_action"], info["forfeit_by"]) == (-1.0, True, True, 0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(bad)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="out of range"):  # outside the space: always raises
        env.step(env.action_space.n)


def test_illegal_raise_raises_and_changes_nothing(game_name):
    env = SingleAgentEnv(game_name, illegal="raise")
    obs, _ = env.reset(seed=0)
    state = env.unwrapped.aec.get_state()
    bad = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(bad)
    assert np.array_equal(env.unwrapped.aec.get_state(), state)
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # and play goes on


def test_an_illegal_opponent_move_forfeits_the_opponents_game(game_name):
    def cheat(obs, masks):
        return np.array([int(np.flatnonzero(~m)[0]) for m in masks])

    seat = opening_seat(game_name)  # the learner opens, so the opponent's forfeit is mid-game
    env = SingleAgentEnv(game_name, opponent=cheat, learner_seat=seat)
    rewards, infos = play_episode(env, seed=0)  # the learner's turn may take several decisions
    assert rewards[-1] == 0.0 and infos[-1]["forfeit_by"] not in (None, seat)
    assert "illegal_action" not in infos[-1]


def test_a_failing_opponent_leaves_the_game_as_it_was(game_name):
    def crash(obs, masks):
        raise RuntimeError("opponent crashed")

    env = SingleAgentEnv(game_name, opponent=crash, learner_seat=opening_seat(game_name))
    env.reset(seed=0)
    for _ in range(100):  # the learner acts until its turn passes to the opponent
        state = env.unwrapped.aec.get_state()
        try:
            env.step(int(np.flatnonzero(env.action_masks())[0]))
        except RuntimeError as exc:
            assert "opponent crashed" in str(exc)
            break
    else:
        pytest.fail("the opponent was never asked to move")
    assert np.array_equal(env.unwrapped.aec.get_state(), state)
    env.set_opponent("random")
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_bad_arguments_are_refused_with_every_accepted_keyword(game_name):
    with pytest.raises(TypeError, match="unknown option") as err:
        gym.make(gym_id(game_name), colour="red")
    message = str(err.value)
    for keyword in ("num_players", "learner_seat", "opponent", "illegal", "flatten", "reward_mode", "render_mode"):
        assert keyword in message
    for option in game_module(game_name).GAME.option_defaults:
        assert option in message
    with pytest.raises(ValueError, match="opponent"):
        SingleAgentEnv(game_name, opponent="grandmaster")
    with pytest.raises(ValueError, match="illegal"):
        SingleAgentEnv(game_name, illegal="ignore")
    with pytest.raises(TypeError, match="flatten"):
        SingleAgentEnv(game_name, flatten="yes")


def test_game_options_and_render_modes_pass_through():
    env = gym.make(gym_id(GAME_NAMES[0]), num_players=3, render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.unwrapped.num_players == 3
    text = env.unwrapped.action_to_string(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert isinstance(text, str) and text


def test_gymnasium_wrappers_do_not_forward_action_masks_but_get_wrapper_attr_does(game_name):
    env = gym.make(gym_id(game_name))
    env.reset(seed=0)
    with pytest.raises(AttributeError):
        env.action_masks()  # Gymnasium 1.x wrappers forward no attributes (docs/compatibility.md)
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), env.unwrapped.action_masks())


def test_every_constructor_lists_exactly_what_it_accepts(game_name):
    from gamecore.envs.batched import BatchedGames

    own = list(game_module(game_name).GAME.option_defaults)
    cases = {
        "env()": (lambda: game_module(game_name).env(colour="red"),
                  ["num_players", *own, "reward_mode", "render_mode", "viewer", "illegal"], []),
        "BatchedGames": (lambda: BatchedGames(game_name, 2, colour="red"),
                         ["num_players", *own, "num_envs", "seed", "reward_mode"], ["render_mode", "viewer"]),
        "SingleAgentEnv": (lambda: SingleAgentEnv(game_name, colour="red"),
                           ["num_players", *own, "learner_seat", "opponent", "reward_mode", "render_mode"], []),
    }
    for where, (build, listed, absent) in cases.items():
        with pytest.raises(TypeError, match="unknown option") as err:
            build()
        known = str(err.value).split("known options:")[1]
        for keyword in listed:
            assert keyword in known, (where, keyword)
        for keyword in absent:
            assert keyword not in known, (where, keyword)


def test_an_opponent_forfeiting_before_the_learner_moves_is_reported(game_name):
    def cheat(obs, masks):
        return np.array([int(np.flatnonzero(~m)[0]) for m in masks])

    opener = opening_seat(game_name)
    env = SingleAgentEnv(game_name, opponent=cheat, learner_seat=1 - opener)  # the opponent opens every game
    why = rf"before the learner \(seat {1 - opener}\) decided \(seat {opener} played a masked-out"
    with pytest.raises(RuntimeError, match=why):
        env.reset(seed=0)
