"""PettingZoo's own test utilities and SuperSuit's wrappers on every game: what works, and the
documented reasons for what does not (``docs/compatibility.md``), so the page stays true.

``api_test``, ``seed_test`` and ``render_test`` run on every game and player count in
``test_conformance.py``; the SuperSuit part runs where SuperSuit is installed (the toolkit venv of
``.ci/run``).
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, performance_benchmark
from pettingzoo.test import test_save_obs as save_obs_check  # renamed: pytest would collect it
from pettingzoo.utils.conversions import aec_to_parallel

from conftest import GAME_NAMES, game_module


def make(name: str):
    return game_module(name).env()


@pytest.mark.slow
def test_performance_benchmark_and_save_obs_run(game_name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # test_save_obs saves image observations into the working directory
    with contextlib.redirect_stdout(io.StringIO()) as out:
        performance_benchmark(make(game_name))
        save_obs_check(make(game_name))
    assert "turns per second" in out.getvalue().lower()


def test_turn_based_games_are_not_parallelizable(game_name):
    env = make(game_name)
    assert env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="not generally safe"):
        aec_to_parallel(env)
    assert not hasattr(game_module(game_name), "parallel_env")


# ---- SuperSuit ------------------------------------------------------------------------------------
@pytest.fixture
def ss():
    return pytest.importorskip("supersuit", reason="needs supersuit")


def _quiet_api_test(env):
    with contextlib.redirect_stdout(io.StringIO()):
        api_test(env, num_cycles=60)


@pytest.mark.parametrize("wrapper", ["clip_reward_v0", "reward_lambda_v0", "action_lambda_v1", "nan_noop_v0"])
def test_supersuit_reward_and_action_wrappers_pass_the_api_test(game_name, ss, wrapper):
    wrap = {
        "clip_reward_v0": lambda e: ss.clip_reward_v0(e, -1, 1),
        "reward_lambda_v0": lambda e: ss.reward_lambda_v0(e, lambda r: 2 * r),
        "action_lambda_v1": lambda e: ss.action_lambda_v1(e, lambda a, space: a, lambda space: space),
        "nan_noop_v0": lambda e: ss.nan_noop_v0(e, 0),
    }[wrapper]
    _quiet_api_test(wrap(make(game_name)))


def test_supersuit_observation_lambda_with_a_space_function_works_on_the_dict(game_name, ss):
    """The way to change observations with SuperSuit: keep the mask, say what the new space is."""

    def obs_fn(obs, space, agent=None):
        return {"observation": obs["observation"].astype(np.float32), "action_mask": obs["action_mask"]}

    def space_fn(space, agent=None):
        box = space["observation"]
        return spaces.Dict(
            {"observation": spaces.Box(0.0, 127.0, box.shape, np.float32), "action_mask": space["action_mask"]}
        )

    env = ss.observation_lambda_v0(make(game_name), obs_fn, space_fn)
    _quiet_api_test(env)
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["observation"].dtype == np.float32


@pytest.mark.parametrize("wrapper", ["sticky_actions_v0", "frame_skip_v0", "delay_observations_v0"])
def test_supersuit_repeating_and_delaying_wrappers_run_but_replay_stale_actions(game_name, ss, wrapper):
    """They pass the API test, but repeat an action (or show a mask) from an earlier decision, which
    may be masked out now: under env()'s illegal="lose" that forfeits. Not useful for these games."""
    wrap = {
        "sticky_actions_v0": lambda e: ss.sticky_actions_v0(e, 0.25),
        "frame_skip_v0": lambda e: ss.frame_skip_v0(e, 2),
        "delay_observations_v0": lambda e: ss.delay_observations_v0(e, 1),
    }[wrapper]
    _quiet_api_test(wrap(make(game_name)))


BOX_ONLY = {
    "flatten_v0": (lambda ss, e: ss.flatten_v0(e), AttributeError, "low"),
    "dtype_v0": (lambda ss, e: ss.dtype_v0(e, np.float32), AttributeError, "low"),
    "normalize_obs_v0": (lambda ss, e: ss.normalize_obs_v0(e), AttributeError, "low"),
    "color_reduction_v0": (lambda ss, e: ss.color_reduction_v0(e), AttributeError, "low"),
    "observation_lambda_v0 without a space function": (
        lambda ss, e: ss.observation_lambda_v0(e, lambda o, s: o), AttributeError, "low"),
    "frame_stack_v1": (lambda ss, e: ss.frame_stack_v1(e, 2), AssertionError, "Box and Discrete"),
    "resize_v1": (lambda ss, e: ss.resize_v1(e, 5, 5), TypeError, "len"),
    "reshape_v0": (lambda ss, e: ss.reshape_v0(e, (3300,)), AssertionError, "shape"),
    "max_observation_v0": (lambda ss, e: ss.max_observation_v0(e, 2), TypeError, "isinf"),
    "pad_observations_v0": (lambda ss, e: ss.pad_observations_v0(e), AssertionError, "Discrete and Box"),
    "agent_indicator_v0": (lambda ss, e: ss.agent_indicator_v0(e), AssertionError, "Box or Discrete"),
}


@pytest.mark.parametrize("wrapper", list(BOX_ONLY))
def test_supersuit_box_only_observation_wrappers_refuse_the_dict_observation(ss, wrapper):
    build, error, text = BOX_ONLY[wrapper]
    with pytest.raises(error, match=text):
        _quiet_api_test(build(ss, make(GAME_NAMES[0])))


def test_supersuit_parallel_only_wrappers_need_a_parallel_env(ss):
    env = make(GAME_NAMES[0])
    with pytest.raises(AssertionError):
        ss.black_death_v3(env)
    with pytest.raises(AssertionError, match="ParallelEnv"):
        ss.pettingzoo_env_to_vec_env_v1(env)


def test_supersuit_vectorize_aec_env_steps_games_side_by_side(game_name, ss):
    vec = ss.vectorize_aec_env_v0(make(game_name), 2)
    vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs = vec.observe(vec.agent_selection)  # an object array of the envs' observation dicts
        assert obs.dtype == object and len(obs) == 2
        vec.step([int(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else 0
                  for o in obs])
    assert all(not any(e.infos[a].get("illegal_action") for a in e.agents) for e in vec.envs)
