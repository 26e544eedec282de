"""DQN against masked random players with Tianshou 2.0's multi-agent algorithm manager.

    pip install -e . "tianshou>=2.0"     # or: pip install -e ".[tianshou]"
    python examples/tianshou_dqn.py --game calcada --players 3 --epochs 5

The game's ``env()`` goes into Tianshou's own ``PettingZooEnv`` wrapper unchanged (it reads the
``{"observation", "action_mask"}`` dict and passes the mask on). One seat (``--learner-seat``) is a
``DQN`` over a ``DiscreteQLearningPolicy`` -- which never picks a masked-out action -- and every
other seat a ``MARLRandomDiscreteMaskedOffPolicyAlgorithm``; ``MultiAgentOffPolicyAlgorithm``
dispatches each decision to the algorithm of the seat that takes it. Training runs Tianshou's
off-policy trainer; every epoch it tests the learner against the random seats and the last line
printed is the learner's mean rank reward there (+1 first .. -1 last; random play averages 0).
Tianshou's progress bars are shown only on a terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from gamecore.kernel.games import GAMES, get_game  # noqa: E402
from gamecore.tools.cli import DefaultsHelpFormatter  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Tianshou DQN for one seat against masked random players.",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("--game", choices=sorted(GAMES), default="callisto", help="which game")
    p.add_argument("--players", type=int, default=None, help="number of seats (default: the game's default)")
    p.add_argument("--learner-seat", type=int, default=0, help="the seat DQN plays")
    p.add_argument("--epochs", type=int, default=3, help="trainer epochs")
    p.add_argument("--epoch-steps", type=int, default=1000, help="env steps per epoch")
    p.add_argument("--train-envs", type=int, default=4, help="games collected side by side")
    p.add_argument("--test-episodes", type=int, default=20, help="test games per epoch")
    p.add_argument("--batch-size", type=int, default=64, help="DQN minibatch size")
    p.add_argument("--buffer-size", type=int, default=20_000, help="replay buffer size")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--hidden", type=str, default="128,128", help="hidden layer sizes, comma-separated")
    p.add_argument("--seed", type=int, default=0, help="seed of games and network")
    args = p.parse_args(argv)
    game = get_game(args.game)
    if args.players is None:
        args.players = game.default_players
    if args.players not in game.player_counts:
        p.error(f"--players must be one of {list(game.player_counts)} for {args.game}")
    if not 0 <= args.learner_seat < args.players:
        p.error(f"--learner-seat must be a seat 0..{args.players - 1}")
    for name in ("epochs", "epoch_steps", "train_envs", "test_episodes", "batch_size", "buffer_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    args.hidden = [int(x) for x in args.hidden.split(",") if x.strip()]
    return args


def make_env(game: str, players: int):
    import importlib

    from tianshou.env.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(importlib.import_module(GAMES[game]).env(num_players=players))


def build(args: argparse.Namespace):
    """The multi-agent algorithm: DQN in the learner's seat, masked random players elsewhere."""
    from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.utils.net.common import Net

    env = make_env(args.game, args.players)
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=int(env.action_space.n), hidden_sizes=args.hidden)
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=args.lr),
        gamma=1.0,  # rewards only at the end of a short game
        n_step_return_horizon=1,
        target_update_freq=100,
    )
    algorithms = [
        learner if seat == args.learner_seat else MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
        for seat in range(args.players)
    ]
    return MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env), env.agents


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import logging

    import torch
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams

    # Tianshou warns on every collect that multi-agent returns (one column per seat) are 2-D
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    np.random.seed(args.seed)  # the masked random players draw from numpy's global generator
    torch.manual_seed(args.seed)
    train_envs = DummyVectorEnv([lambda: make_env(args.game, args.players) for _ in range(args.train_envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args.game, args.players) for _ in range(2)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1_000_003)
    algorithm, agents = build(args)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(args.buffer_size, len(train_envs)), exploration_noise=True
    )
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=False)
    train_collector.reset()
    train_collector.collect(n_step=args.batch_size * args.train_envs)
    seat = args.learner_seat
    print(
        f"{args.game}, {args.players} players: Tianshou DQN in seat {seat} against masked random players; "
        f"{args.epochs} epochs of {args.epoch_steps} steps",
        flush=True,
    )
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=10 * args.train_envs,
            test_step_num_episodes=args.test_episodes,
            batch_size=args.batch_size,
            update_step_num_gradient_steps_per_sample=0.1,
            multi_agent_return_reduction=lambda rews: rews[:, seat],
            test_in_training=False,
            show_progress=sys.stderr.isatty(),
            verbose=False,
        )
    )
    final = test_collector.collect(n_episode=args.test_episodes, reset_before_collect=True)
    rewards = np.asarray(final.returns)[:, seat]
    print(
        f"learner mean rank reward vs random: {rewards.mean():+.2f} over {len(rewards)} test games "
        f"(best epoch {result.best_reward:+.2f}; random play averages +0.00)",
        flush=True,
    )
    return {"result": result, "test_rewards": rewards, "agents": agents}


if __name__ == "__main__":
    main()
