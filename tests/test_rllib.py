"""Ray RLlib: the ``gamecore.rllib`` adapter on every game and player count, RLlib's own env
check, and ``examples/rllib_ppo.py`` training a few PPO iterations on each game, in a local Ray and
through ``RAY_ADDRESS`` on a cluster started with ``ray start --head``.

Runs in the RLlib virtual environment of ``.ci/run`` (``pip install -e ".[rllib]"``); skipped
where Ray is not installed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra")

import ray  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402
from test_examples import load_script  # noqa: E402

from conftest import GAME_NAMES, GAME_PLAYERS, game_module, play_random  # noqa: E402
from gamecore.rllib import RLlibEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMOKE = "--iterations 2 --batch-size 200 --minibatch-size 100 --epochs 1 --hidden 32 --eval-games 4"


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_rllib_env_check_and_a_random_game(name, n):
    env = RLlibEnv({"game": name, "num_players": n})
    check_multiagent_environments(env)  # steps a sampled, unmasked action: a forfeit, not a crash
    raw = game_module(name).raw_env(num_players=n)
    obs, infos = env.reset(seed=7)
    raw.reset(seed=7)
    rng = np.random.default_rng(7)
    while True:
        assert len(obs) == 1, "only the deciding agent is observed"
        (agent, o), = obs.items()
        assert agent == raw.agent_selection
        assert env.observation_spaces[agent].contains(o)
        assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.float32
        assert np.array_equal(o["action_mask"], raw.observe(agent)["action_mask"])
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
        raw.step(action)
        if terminateds["__all__"]:
            break
        assert rewards == {next(iter(obs)): 0.0}
    assert sorted(obs) == sorted(env.possible_agents) and all(terminateds[a] for a in env.possible_agents)
    assert rewards == {a: raw.rewards[a] for a in env.possible_agents}
    assert not truncateds["__all__"]


def test_rllib_env_illegal_action_and_options(game_name):
    env = RLlibEnv({"game": game_name})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    bad = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rewards, terminateds, _, infos = env.step({agent: bad})
    assert terminateds["__all__"] and rewards[agent] == -1.0 and infos[agent]["illegal_action"]
    strict = RLlibEnv({"game": game_name, "illegal": "raise"})
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="not legal"):
        strict.step({agent: bad})
    with pytest.raises(TypeError, match="unknown option.*flatten") as err:
        RLlibEnv({"game": game_name, "colour": "red"})
    assert "num_players" in str(err.value)
    shaped = RLlibEnv({"game": game_name, "flatten": False})
    raw_shape = game_module(game_name).raw_env().observation_space("player_0")["observation"].shape
    assert shaped.observation_spaces["player_0"]["observations"].shape == raw_shape


def test_rllibs_own_pettingzoo_wrapper_does_not_fit_its_action_masking_module(game_name):
    """Why the adapter exists: RLlib's PettingZooEnv passes the AEC dict on, whose keys and dtype
    are not the ones ActionMaskingTorchRLModule reads."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    wrapped = PettingZooEnv(game_module(game_name).env())
    space = wrapped.observation_spaces["player_0"]
    assert "observations" not in space.spaces and space["observation"].dtype == np.int8
    with pytest.raises(KeyError):
        ActionMaskingTorchRLModule(observation_space=space, action_space=wrapped.action_spaces["player_0"],
                                   model_config={})


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", _node_ip_address="127.0.0.1")
    yield
    ray.shutdown()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_rllib_ppo_example_trains_each_game(name, local_ray, capsys):
    rllib_ppo = load_script("rllib_ppo")
    # each runner samples about twice a random game's length in all, so episodes end (Cultivo: ~640)
    raw = game_module(name).raw_env()
    raw.reset(seed=0)
    length = play_random(raw, np.random.default_rng(0))
    batch = max(200, 200 * -(-length // 100))
    smoke = SMOKE.replace("--batch-size 200", f"--batch-size {batch}").split()
    result = rllib_ppo.main(["--game", name, "--runners", "2", *smoke])
    out = capsys.readouterr().out
    last = result["last"]
    assert result["iterations"] == 2
    assert last["env_runners"]["num_env_steps_sampled_lifetime"] >= 400
    assert last["env_runners"]["num_episodes_lifetime"] >= 1
    assert np.isfinite(last["learners"]["shared"]["policy_loss"])
    assert result["eval"]["games"] == 4
    lines = out.strip().splitlines()
    assert re.match(rf"{name}, \d players: PPO with action masking, one shared policy, 2 env runners", lines[0])
    assert re.match(r"iteration 2: \d+ env steps, \d+ episodes, mean length [\d.]+, policy_loss", lines[-2])
    assert re.fullmatch(r"win rate vs random: \d\.\d\d \(4 games, .*\)", lines[-1]), lines[-1]


def test_rllib_ppo_example_arguments():
    rllib_ppo = load_script("rllib_ppo")
    args = rllib_ppo.parse_args([])
    assert args.runners == 2 and args.game == "callisto" and args.players == 2
    os.environ["RAY_ADDRESS"] = "127.0.0.1:1"
    try:
        assert rllib_ppo.parse_args([]).address == "127.0.0.1:1"
    finally:
        del os.environ["RAY_ADDRESS"]
    with pytest.raises(SystemExit):
        rllib_ppo.parse_args(["--players", "9"])
    with pytest.raises(SystemExit):
        rllib_ppo.parse_args(["--minibatch-size", "500", "--batch-size", "100"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rllib_ppo_example_runs_on_a_ray_cluster_through_ray_address():
    """``ray start --head`` then the README's command with ``RAY_ADDRESS``: the job runs on the cluster."""
    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")
    assert ray_cli, "the ray command comes with ray[rllib]"
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ray")  # short: Ray's socket paths must fit in 107 characters
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(port),
         "--num-cpus", "2", "--include-dashboard", "false", "--temp-dir", temp],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    )
    try:
        env["RAY_ADDRESS"] = f"127.0.0.1:{port}"
        cmd = [sys.executable, str(ROOT / "examples" / "rllib_ppo.py"), "--runners", "1", *SMOKE.split()]
        for attempt in range(30):  # the head takes a few seconds to accept jobs
            run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
            if run.returncode == 0 or "ConnectionError" not in run.stderr or attempt == 29:
                break
            time.sleep(2)
        assert run.returncode == 0, run.stderr[-3000:]
        assert f"1 env runners on 127.0.0.1:{port}" in run.stdout
        assert re.search(r"^win rate vs random: ", run.stdout, re.M), run.stdout
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # the head and the processes it started, nothing else
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)
