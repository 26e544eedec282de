"""Ray RLlib: the ``gamecore.envs.rllib`` adapter on every game and player count, RLlib's own env
check, the masked module (masks in every forward pass, no deprecated RLlib API), and
``examples/rllib_ppo.py`` training a few PPO iterations on each game in a local Ray, failing loudly
when an iteration samples nothing, and shipping its code to a two-node cluster through
``RAY_ADDRESS`` and ``--ship-code``; an env runner running shipped code loads the kernels the
warm-up compiled instead of compiling them again.

Runs in the RLlib virtual environment of ``.ci/run`` (``pip install -e ".[rllib]"``); skipped
where Ray is not installed.
"""

from __future__ import annotations

import json
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
from gamecore.envs.rllib import MaskedPPOTorchRLModule, RLlibEnv, action_masking_module_spec  # noqa: E402

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


def test_rllibs_own_pettingzoo_wrapper_does_not_fit_the_masked_module(game_name):
    """Why the adapter exists: RLlib's PettingZooEnv passes the AEC dict on, whose keys and dtype
    are not the ones the masked module (and RLlib's action-masking example) reads."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    wrapped = PettingZooEnv(game_module(game_name).env())
    space = wrapped.observation_spaces["player_0"]
    assert "observations" not in space.spaces and space["observation"].dtype == np.int8
    with pytest.raises(KeyError):
        MaskedPPOTorchRLModule(observation_space=space, action_space=wrapped.action_spaces["player_0"],
                               model_config=_full_model_config())


def _full_model_config(**kwargs):
    """RLlib's default model config with ``kwargs``: what an algorithm hands a module it builds."""
    import dataclasses

    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    return dataclasses.asdict(DefaultModelConfig(**kwargs))


def test_masked_module_masks_every_forward_pass():
    import torch
    from ray.rllib.core.columns import Columns

    env = RLlibEnv({"game": "calcada", "num_players": 3})
    spec = action_masking_module_spec(_full_model_config(fcnet_hiddens=[16], head_fcnet_hiddens=[]))
    spec.observation_space, spec.action_space = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    module = spec.build()
    assert isinstance(module, MaskedPPOTorchRLModule) and module.observation_space == spec.observation_space
    obs, _ = env.reset(seed=3)
    (o,) = obs.values()
    mask = torch.as_tensor(np.stack([o["action_mask"], np.zeros_like(o["action_mask"])]))
    batch = {Columns.OBS: {"observations": torch.as_tensor(np.stack([o["observations"]] * 2)), "action_mask": mask}}
    lowest = torch.finfo(torch.float32).min
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        assert torch.all(logits[mask == 0] == lowest) and torch.all(logits[mask > 0] > lowest), forward
        assert torch.isfinite(torch.distributions.Categorical(logits=logits).entropy()).all()  # all-zero row too
    assert set(batch[Columns.OBS]) == {"observations", "action_mask"}, "the caller's batch is not changed"
    values = module.compute_values(dict(batch))
    assert values.shape == (2,) and torch.isfinite(values).all()
    with pytest.raises(ValueError, match="action_mask"):
        module.forward_inference({Columns.OBS: batch[Columns.OBS]["observations"]})


# A subprocess, so that every RLlib module this run imports is imported (and logs its deprecation)
# afresh, whatever the tests before it imported. RLlib logs deprecations through its logger
# (`ray._common.deprecation`), not Python's warnings, so both are recorded.
_DEPRECATION_PROBE = """
import json, logging, warnings
import ray  # configures Ray's loggers (which do not propagate to the root logger)
records, seen = [], set()
class Record(logging.Handler):
    def emit(self, r):
        if id(r) not in seen and "deprecat" in r.getMessage().lower():
            seen.add(id(r))
            records.append({"msg": r.getMessage(), "path": r.pathname})
for name in ("", "ray"):
    logging.getLogger(name).addHandler(Record())
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from ray.rllib.algorithms.ppo import PPOConfig
    from gamecore.envs.rllib import masked_ppo_config
    config = masked_ppo_config(PPOConfig(), {"game": "callisto"}, {"fcnet_hiddens": [16], "head_fcnet_hiddens": []})
    config = (config.env_runners(num_env_runners=0).learners(num_learners=0)
              .training(train_batch_size_per_learner=64, minibatch_size=64, num_epochs=1).debugging(log_level="WARN"))
    algo = config.build_algo()
    steps = algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]
    algo.stop()
    logged = len(records)
    ours = records[:] + [{"msg": str(w.message), "path": w.filename} for w in caught
                         if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning))]
    # the control: what the adapter built on before, RLlib's example module, is caught by this probe
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
print(json.dumps({"steps": steps, "ours": ours, "control": records[logged:]}))
"""


def test_masked_ppo_config_trains_without_deprecated_rllib_api():
    """Building ``masked_ppo_config`` and one training iteration log no RLlib deprecation, except the one
    ``RLModule.__init__`` logs for every module, RLlib's default PPO module too (it builds an
    ``RLModuleConfig`` for backward compatibility). The probe's control: importing RLlib's example
    ``ActionMaskingTorchRLModule`` (the adapter's module before) logs a deprecation it catches."""
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-c", _DEPRECATION_PROBE], capture_output=True, text=True, env=env,
                         cwd=tempfile.gettempdir(), timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    probe = json.loads(run.stdout.strip().splitlines()[-1])
    assert probe["steps"] >= 64
    rllib_internal = [r for r in probe["ours"]
                      if r["path"].endswith("ray/rllib/core/rl_module/rl_module.py") and "RLModule(config=" in r["msg"]]
    assert [r for r in probe["ours"] if r not in rllib_internal] == []
    assert any("PPOTorchRLModule` has been deprecated" in r["msg"] for r in probe["control"]), probe["control"]


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", _node_ip_address="127.0.0.1")
    yield
    ray.shutdown()


#: env runners per game: the default game samples on two Ray actors (the env shipped to each); the
#: others in the driver (``--runners 0``), which trains each game's spaces and masks through the same
#: module in ~1 s instead of ~20 s of actor start-up per game
RUNNERS = {name: 2 if name == "callisto" else 0 for name in GAME_NAMES}


@pytest.mark.parametrize("name", GAME_NAMES)
def test_rllib_ppo_example_trains_each_game(name, local_ray, capsys):
    runners = RUNNERS[name]
    rllib_ppo = load_script("rllib_ppo")
    # each runner samples about twice a random game's length in all, so episodes end (Cultivo: ~640)
    raw = game_module(name).raw_env()
    raw.reset(seed=0)
    length = play_random(raw, np.random.default_rng(0))
    batch = max(200, 200 * -(-length // 100))
    smoke = SMOKE.replace("--batch-size 200", f"--batch-size {batch}").split()
    result = rllib_ppo.main(["--game", name, "--runners", str(runners), *smoke])
    out = capsys.readouterr().out
    last = result["last"]
    assert result["iterations"] == 2
    assert last["env_runners"]["num_env_steps_sampled_lifetime"] >= 400
    assert last["env_runners"]["num_episodes_lifetime"] >= 1
    assert np.isfinite(last["learners"]["shared"]["policy_loss"])
    assert result["eval"]["games"] == 4
    lines = out.strip().splitlines()
    assert re.match(rf"{name}, \d players: PPO with action masking, one shared policy, {runners} env runners", lines[0])
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


def test_rllib_ppo_example_sample_timeout_and_log_level():
    rllib_ppo = load_script("rllib_ppo")
    config = rllib_ppo.build_config(rllib_ppo.parse_args([]))  # 2000 steps, 2 runners: 1000 each
    assert config.sample_timeout_s == rllib_ppo.MIN_SAMPLE_TIMEOUT_S == 300 and config.log_level == "WARN"
    big = rllib_ppo.build_config(rllib_ppo.parse_args(["--batch-size", "40000", "--runners", "4"]))
    assert big.sample_timeout_s == 10_000 * rllib_ppo.SECONDS_PER_STEP == 500
    assert rllib_ppo.build_config(rllib_ppo.parse_args(["--sample-timeout", "0"])).sample_timeout_s is None
    assert rllib_ppo.sample_timeout_s(rllib_ppo.parse_args(["--sample-timeout", "45"])) == 45
    with pytest.raises(SystemExit):
        rllib_ppo.parse_args(["--sample-timeout", "-1"])


def test_rllib_ppo_example_checks_each_iteration_sampled_something():
    rllib_ppo = load_script("rllib_ppo")
    check, error = rllib_ppo.check_sampled, rllib_ppo.NothingSampledError
    assert check(1, {"env_runners": {"num_env_steps_sampled_lifetime": 200.0}}, 0.0, 300.0) == 200
    assert check(2, {"env_runners": {"num_env_steps_sampled_lifetime": 600.0}}, 200.0, 300.0) == 400
    # what RLlib returns when every sample() timed out: the lifetime count as it was, nan metrics
    stalled = {"env_runners": {"num_env_steps_sampled_lifetime": 600.0, "episode_len_mean": float("nan")}}
    with pytest.raises(error, match=r"iteration 3 sampled no env steps \(--sample-timeout 60 s\)"):
        check(3, stalled, 600.0, 60.0)
    for first in ({"env_runners": {}}, {}):  # nothing sampled yet: no count at all
        with pytest.raises(error, match=r"iteration 1 sampled no env steps \(no limit\)"):
            check(1, first, 0.0, None)


def test_rllib_ppo_example_stops_with_rllibs_warning_when_sampling_times_out(local_ray, capsys):
    """A sample timeout no env runner can meet: RLlib's warning is logged (not hidden by the example's
    log level) and the run stops after the first iteration instead of training on nothing."""
    import logging

    rllib_ppo = load_script("rllib_ppo")
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("ray.rllib").addHandler(handler)
    try:
        with pytest.raises(rllib_ppo.NothingSampledError, match=r"iteration 1 sampled no env steps \(--sample"):
            rllib_ppo.main(["--runners", "1", "--sample-timeout", "0.001", *SMOKE.split()])
    finally:
        logging.getLogger("ray.rllib").removeHandler(handler)
    assert any("No samples returned" in r.getMessage() for r in records), [r.getMessage() for r in records]
    assert re.search(r"^iteration 1: 0 env steps, 0 episodes, mean length nan", capsys.readouterr().out, re.M)


# A second driver on the module's Ray, from a directory outside the checkout (Ray puts the driver's
# directory first on its workers' path), shipping the packages with its job as ``--ship-code`` does:
# RLlib's env runner samples Callisto in a worker that imports them from Ray's copy.
_SHIPPED_PROBE = """
import json, sys
import ray
from gamecore.kernel.games import shipped_runtime_env
root, cache = sys.argv[1], sys.argv[2]
ray.init(address=sys.argv[3], logging_level="WARNING", runtime_env=shipped_runtime_env({"NUMBA_CACHE_DIR": cache}))

@ray.remote
def sample():
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    import callisto_env
    from gamecore.kernel import jit
    from gamecore.envs.rllib import masked_ppo_config
    config = masked_ppo_config(PPOConfig(), {"game": "callisto"}, {"fcnet_hiddens": [8], "head_fcnet_hiddens": []})
    MultiAgentEnvRunner(config=config.env_runners(num_env_runners=0)).sample(num_timesteps=100)
    kernels = [d for d in list(jit._DISPATCHERS) if d.py_func.__module__.startswith("callisto_env")]
    return {"file": callisto_env.__file__, "compile_seconds": jit.compile_seconds(),
            "hits": sum(sum(d.stats.cache_hits.values()) for d in kernels),
            "folders": sorted({d._cache.cache_path for d in kernels if d.stats.cache_hits})}

print(json.dumps(ray.get(sample.remote(), timeout=300)))
"""


def test_an_env_runner_with_shipped_code_loads_the_kernels_the_warm_up_compiled(local_ray, tmp_path):
    """Issue 49: an env runner that runs the packages Ray ships with a job (``py_modules``, as
    ``--ship-code`` does; Ray unpacks each in a folder of its own under the session directory) loads
    its kernels from the cache ``python -m gamecore warmup`` filled with the same ``NUMBA_CACHE_DIR``.
    It compiled all of Callisto's kernels again (34, ~5 s): numba names a cache folder by the sources'
    absolute path, and the project's stamped locators took a package to sit beside ``gamecore``."""
    from gamecore.tools.warmup import warm_one

    cache = os.path.abspath(os.environ.get("NUMBA_CACHE_DIR") or tmp_path / "cache")
    warm_one("callisto", {**os.environ, "NUMBA_CACHE_DIR": cache}, paths=("aec",))
    address = ray.get_runtime_context().gcs_address
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-c", _SHIPPED_PROBE, str(ROOT), cache, address], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert not Path(out["file"]).resolve().is_relative_to(ROOT), out  # Ray's copy ran, not the checkout
    assert out["compile_seconds"] == 0.0 and out["hits"] >= 1, (out, run.stderr[-3000:])
    from gamecore.kernel.jit import kernel_digest

    # filed by package and version, not by the path of the sources
    assert out["folders"] == [str(Path(cache, "callisto_env", kernel_digest("callisto_env")[:16]))], out


#: ports Ray's components take by default (dashboard, dashboard agent, client server, metrics, GCS):
#: a free port the OS hands out can be one of them, and ``ray start --port`` then refuses it ("is
#: trying to use a port number 52365 that is used by other components")
RAY_DEFAULT_PORTS = frozenset({6379, 8076, 8265, 10001, 44217, 44227, 52365})


def _free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in RAY_DEFAULT_PORTS:
            return port


def _start_node(ray_cli: str, args: list[str], env: dict[str, str], base: str, name: str) -> subprocess.Popen:
    """``ray start ... --block`` in a process group of its own (the node and every process it starts),
    its output in ``base/name.log``; returns once the node says it has started."""
    log = Path(base, f"{name}.log")
    with open(log, "w") as out:
        node = subprocess.Popen(
            [ray_cli, "start", "--block", "--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--disable-usage-stats",
             "--temp-dir", f"{base}/{name}", *args],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=base, start_new_session=True,
        )
    deadline = time.monotonic() + 180
    while "Ray runtime started" not in log.read_text() and node.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    if "Ray runtime started" not in log.read_text():
        _stop_node(node)
        pytest.fail(f"ray start {' '.join(args)} did not start:\n{log.read_text()[-3000:]}")
    return node


def _stop_node(node: subprocess.Popen) -> None:
    """SIGTERM to ``ray start`` alone (it stops its raylet, GCS and workers in order, in a second or two;
    SIGTERM to the whole group at once can leave the GCS waiting), then SIGKILL to whatever of its
    process group is left: this node's processes, nothing else."""
    node.terminate()
    try:
        node.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(node.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    node.wait(timeout=60)


@pytest.mark.slow
def test_rllib_ppo_example_ships_its_code_to_a_two_node_ray_cluster():
    """The README's cluster commands on one machine: ``ray start --head``, a second node joining it
    with ``ray start --address``, one CPU each, then ``RAY_ADDRESS=... rllib_ppo.py --ship-code`` with
    two env runners of one CPU each, so that one runs on each node.

    Both nodes run this venv's Python, which has the package installed; so that only shipped code can
    work there, the nodes start with a ``PYTHONPATH`` whose ``gamecore`` and game packages raise on
    import (ahead of the installed ones; Ray puts ``py_modules`` ahead of the node's ``PYTHONPATH``),
    and the driver runs from a directory outside the checkout (Ray adds the driver's directory to the
    workers' path); without ``--ship-code`` the env runners fail with the stand-ins' ImportError (checked
    by hand: another cluster run would double the test's time). What one machine cannot show: nodes
    without the package's dependencies, or with another Python. The cluster's token (Ray's token
    authentication) is the test's own, in ``RAY_AUTH_TOKEN``, not ``~/.ray/auth_token``."""
    import secrets

    from gamecore.kernel.games import GAMES

    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")
    assert ray_cli, "the ray command comes with ray[rllib]"
    port = _free_port()
    base = tempfile.mkdtemp(prefix="ray")  # short: Ray's socket paths must fit in 107 characters
    poison = Path(base, "p")
    for package in ("gamecore", *GAMES.values()):
        (poison / package).mkdir(parents=True)
        (poison / package / "__init__.py").write_text(
            f"raise ImportError('{package} imported from the node, not shipped with the job')\n")
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32), "RAY_USAGE_STATS_ENABLED": "0"}
    node_env = {**os.environ, **auth, "PYTHONPATH": str(poison)}
    blocked = subprocess.run([sys.executable, "-c", "import gamecore"], capture_output=True, text=True,
                             env=node_env, cwd=base)
    assert "not shipped with the job" in blocked.stderr, "the nodes' Python must not find the installed package"
    address = f"127.0.0.1:{port}"
    nodes = []
    try:
        nodes.append(_start_node(ray_cli, ["--head", "--port", str(port), "--include-dashboard", "false"],
                                 node_env, base, "head"))
        nodes.append(_start_node(ray_cli, ["--address", address], node_env, base, "node2"))
        smoke = SMOKE.replace("--iterations 2", "--iterations 1").replace("--eval-games 4", "--eval-games 0")
        cmd = [sys.executable, str(ROOT / "examples" / "rllib_ppo.py"), "--ship-code", "--runners", "2", *smoke.split()]
        run = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **auth, "RAY_ADDRESS": address},
                             cwd=base, timeout=300)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        assert f"2 env runners on {address} (2 CPUs)" in run.stdout, run.stdout
        steps = re.search(r"^iteration 1: (\d+) env steps", run.stdout, re.M)
        assert steps and int(steps.group(1)) >= 200, run.stdout
    finally:
        for node in reversed(nodes):
            _stop_node(node)
        shutil.rmtree(base, ignore_errors=True)
