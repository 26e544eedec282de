"""Self-play PPO with Ray RLlib: one policy shared by every seat, masked by the env's action mask,
sampling spread over several env runners -- on a laptop or on a Ray cluster, same command.

    pip install -e ".[rllib]"                                     # in a clone of this repository
    python examples/rllib_ppo.py                                  # Callisto, 2 runners, local Ray
    python examples/rllib_ppo.py --game calcada --players 3 --runners 4 --iterations 50

    ray start --head                                              # or any running cluster:
    python examples/rllib_ppo.py --address auto --runners 8       # (RAY_ADDRESS works too)

Every seat of every game is an agent mapped to the one ``shared`` module
(``gamecore.envs.rllib.MaskedPPOTorchRLModule``: RLlib's default PPO network, masked-out actions' logits
set to the lowest float), so the policy plays against copies of itself. Each iteration prints one
plain line (env steps, episodes, mean episode length, losses, seconds); at the end the greedy policy
plays ``--eval-games`` games against uniformly random opponents, rotating seats, and the last line
printed is its win rate.

With ``--address`` (or ``RAY_ADDRESS``) Ray connects to that cluster instead of starting one. The
package is not on any package index: either install it on every node from a clone (``pip install
-e ".[rllib]"``) or from a wheel built in one (``pip wheel --no-deps -w dist .``, then ``pip install
"dist/tabletop_rl_envs-<version>-py3-none-any.whl[rllib]"`` on every node), or pass ``--ship-code``:
Ray then uploads ``gamecore`` and the game packages with the job (its ``py_modules``), and the nodes
need only ``ray[rllib]``, torch, numba, numpy, Gymnasium, PettingZoo and Pillow in the same Python.

RLlib waits ``--sample-timeout`` seconds for each env runner's share of a batch; by default 0.05 s per
env step of that share, at least 300 s (RLlib's own default, 60 s, runs out on a busy machine, and the
iteration then trains on nothing). An iteration that samples no env step at all stops the run with
an error (exit status 1) instead of printing ``nan`` losses. RLlib's warnings are shown.

Needs the ``rllib`` extra (``ray[rllib]``, which pins its own Gymnasium release).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from gamecore.kernel.games import GAMES, shipped_runtime_env  # noqa: E402
from gamecore.tools.cli import DefaultsHelpFormatter  # noqa: E402

#: the default sample timeout: this many seconds per env step an env runner samples per iteration ...
SECONDS_PER_STEP = 0.05
#: ... and at least this many (an env step with the module's forward pass takes about a millisecond)
MIN_SAMPLE_TIMEOUT_S = 300.0


class NothingSampledError(RuntimeError):
    """A training iteration in which no env runner returned a single env step."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Self-play PPO on RLlib with action masking, locally or on a Ray cluster.",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("--game", choices=sorted(GAMES), default="callisto", help="which game")
    p.add_argument("--players", type=int, default=None, help="number of seats (default: the game's default)")
    p.add_argument("--iterations", type=int, default=20, help="PPO training iterations")
    p.add_argument(
        "--runners", type=int, default=2, help="env runners (Ray actors sampling games; 0: sample in the driver)"
    )
    p.add_argument("--envs-per-runner", type=int, default=1, help="games each env runner steps side by side")
    p.add_argument(
        "--address",
        default=None,
        help="Ray cluster to connect to ('auto', 'ray://host:10001', host:port); default: $RAY_ADDRESS, else "
        "start Ray on this machine",
    )
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs for a Ray started here (default: all)")
    p.add_argument("--ship-code", action="store_true", help="send this package to the cluster with the job")
    p.add_argument("--batch-size", type=int, default=2000, help="env steps per training iteration")
    p.add_argument(
        "--sample-timeout",
        type=float,
        default=None,
        help="seconds RLlib waits for an env runner's share of the batch (0: no limit); default: "
        f"{SECONDS_PER_STEP} s per env step of that share, at least {MIN_SAMPLE_TIMEOUT_S:.0f} s",
    )
    p.add_argument("--minibatch-size", type=int, default=250, help="PPO minibatch size")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate")
    p.add_argument("--hidden", type=str, default="128,128", help="hidden layer sizes, comma-separated")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and the network")
    p.add_argument("--eval-games", type=int, default=100, help="games of the greedy policy against random (0: none)")
    p.add_argument("--checkpoint", type=Path, default=None, help="save the trained algorithm to this directory")
    args = p.parse_args(argv)
    for name in ("iterations", "batch_size", "minibatch_size", "epochs", "envs_per_runner"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    if args.runners < 0 or args.eval_games < 0:
        p.error("--runners and --eval-games must be >= 0")
    if args.sample_timeout is not None and not args.sample_timeout >= 0:
        p.error("--sample-timeout must be >= 0")
    if args.minibatch_size > args.batch_size:
        p.error("--minibatch-size must be <= --batch-size")
    try:
        args.hidden = [int(x) for x in args.hidden.split(",") if x.strip()]
    except ValueError:
        p.error("--hidden must be comma-separated integers, e.g. 128,128")
    from gamecore.kernel.games import get_game

    game = get_game(args.game)
    if args.players is None:
        args.players = game.default_players
    if args.players not in game.player_counts:
        p.error(f"--players must be one of {list(game.player_counts)} for {args.game}")
    args.address = args.address or os.environ.get("RAY_ADDRESS") or None
    return args


def start_ray(args: argparse.Namespace) -> bool:
    """Connect to ``--address`` or start Ray here; returns whether this call started the session."""
    import ray

    if ray.is_initialized():
        return False
    # the env runners' output (their warnings included) is printed here, prefixed with the actor
    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "WARNING"}
    if args.ship_code:  # gamecore and every game package, and the games' names for the workers' registry
        kwargs["runtime_env"] = shipped_runtime_env()
    if args.address:
        ray.init(address=args.address, **kwargs)
    else:
        ray.init(num_cpus=args.num_cpus, **kwargs)
    return True


def sample_timeout_s(args: argparse.Namespace) -> float | None:
    """RLlib's ``sample_timeout_s`` for ``args``: ``--sample-timeout`` (0: None, no limit), by default
    :data:`SECONDS_PER_STEP` per env step of one env runner's share of the batch, at least
    :data:`MIN_SAMPLE_TIMEOUT_S`."""
    if args.sample_timeout is not None:
        return float(args.sample_timeout) or None
    share = -(-args.batch_size // max(args.runners, 1))
    return max(MIN_SAMPLE_TIMEOUT_S, SECONDS_PER_STEP * share)


def build_config(args: argparse.Namespace):
    from ray.rllib.algorithms.ppo import PPOConfig

    from gamecore.envs.rllib import masked_ppo_config

    env_config = {"game": args.game, "num_players": args.players}
    model_config = {"fcnet_hiddens": args.hidden, "head_fcnet_hiddens": []}
    config = masked_ppo_config(PPOConfig(), env_config, model_config)
    return (
        config.env_runners(
            num_env_runners=args.runners,
            num_envs_per_env_runner=args.envs_per_runner,
            num_cpus_per_env_runner=1,
            sample_timeout_s=sample_timeout_s(args),
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=args.batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.epochs,
            lr=args.lr,
            gamma=1.0,  # rewards only at the end of a short game: no discounting
            lambda_=0.95,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed, log_level="WARN")  # RLlib's warnings, e.g. "No samples returned"
        .reporting(min_time_s_per_iteration=0)
    )


def build_algo(args: argparse.Namespace):
    return build_config(args).build_algo()


def sampled_env_steps(result: dict[str, Any], lifetime_before: float) -> int:
    """Env steps sampled in the iteration that returned ``result``: the growth of RLlib's lifetime
    count (``env_runners/num_env_steps_sampled_lifetime``), which an iteration that sampled nothing
    leaves unchanged (or absent, if no iteration has sampled yet)."""
    runners = result.get("env_runners") or {}
    return int(runners.get("num_env_steps_sampled_lifetime", lifetime_before) - lifetime_before)


def check_sampled(i: int, result: dict[str, Any], lifetime_before: float, timeout: float | None) -> int:
    """The env steps of iteration ``i``; raises :class:`NothingSampledError` if there were none."""
    steps = sampled_env_steps(result, lifetime_before)
    if steps <= 0:
        limit = "no limit" if timeout is None else f"--sample-timeout {timeout:g} s"
        raise NothingSampledError(
            f"iteration {i} sampled no env steps ({limit}): no env runner returned its batch in time, "
            "or none is healthy (see RLlib's warnings above); raise --sample-timeout, or give the env "
            "runners more CPUs"
        )
    return steps


def iteration_line(i: int, result: dict[str, Any], seconds: float) -> str:
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get("shared", {})
    steps = runners.get("num_env_steps_sampled_lifetime", 0)
    episodes = runners.get("num_episodes_lifetime", runners.get("num_episodes", 0))
    length = runners.get("episode_len_mean", float("nan"))
    parts = [f"iteration {i}: {int(steps)} env steps", f"{int(episodes)} episodes", f"mean length {length:.1f}"]
    for key in ("policy_loss", "vf_loss", "entropy"):
        if key in learner:
            parts.append(f"{key} {float(learner[key]):+.3f}")
    parts.append(f"{seconds:.1f} s")
    return ", ".join(parts)


def module_player(module: Any):
    """The trained module as a greedy opponent-style callable ``(obs, masks) -> actions``."""
    import torch
    from ray.rllib.core.columns import Columns

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(obs, dtype=torch.float32),
                "action_mask": torch.as_tensor(masks, dtype=torch.float32),
            }
        }
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        return np.argmax(np.where(masks, logits, -np.inf), axis=1)

    return act


def evaluate(args: argparse.Namespace, act, games: int) -> dict[str, float]:
    """Greedy ``act`` in seat ``k mod n`` of game k against uniformly random opponents."""
    from gamecore.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv(args.game, num_players=args.players, illegal="raise")
    returns = []
    obs, info = env.reset(seed=args.seed + 1_000_003)
    for _ in range(games):
        done = False
        reward = 0.0
        while not done:
            mask = info["action_mask"].astype(bool)
            obs, reward, done, _, info = env.step(int(act(obs[None], mask[None])[0]))
        returns.append(reward)
        obs, info = env.reset()
    r = np.asarray(returns)
    return {"games": len(r), "win_rate": float(np.mean(r > 1 - 1e-6)), "mean_reward": float(r.mean())}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    started = start_ray(args)
    import ray

    try:
        algo = build_algo(args)
        try:
            return train(args, algo, ray.cluster_resources().get("CPU", 0))
        finally:
            algo.stop()
    finally:
        if started:
            ray.shutdown()


def train(args: argparse.Namespace, algo: Any, cpus: float) -> dict[str, Any]:
    where = args.address or "a local Ray"
    print(
        f"{args.game}, {args.players} players: PPO with action masking, one shared policy, "
        f"{args.runners} env runners on {where} ({cpus:.0f} CPUs)",
        flush=True,
    )
    history = []
    lifetime = 0.0
    for i in range(1, args.iterations + 1):
        t0 = time.perf_counter()
        result = algo.train()
        line = iteration_line(i, result, time.perf_counter() - t0)
        history.append(result)
        print(line, flush=True)
        lifetime += check_sampled(i, result, lifetime, algo.config.sample_timeout_s)
    out: dict[str, Any] = {"iterations": len(history), "last": history[-1]}
    if args.checkpoint is not None:
        out["checkpoint"] = str(algo.save_to_path(str(args.checkpoint.resolve())))
        print(f"saved {out['checkpoint']}", flush=True)
    if args.eval_games:
        ev = evaluate(args, module_player(algo.get_module("shared")), args.eval_games)
        out["eval"] = ev
        print(
            f"win rate vs random: {ev['win_rate']:.2f} ({ev['games']} games, greedy shared policy, "
            f"rotating seats; mean rank reward {ev['mean_reward']:+.2f})",
            flush=True,
        )
    return out


if __name__ == "__main__":
    try:
        main()
    except NothingSampledError as exc:
        sys.exit(f"error: {exc}")
