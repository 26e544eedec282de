"""Self-play REINFORCE with TorchRL 0.14: the game's AEC env in ``PettingZooWrapper(use_mask=True)``.

    pip install -e . "torchrl>=0.14"     # or: pip install -e ".[torchrl]"
    python examples/torchrl_reinforce.py --game callisto --players 3 --updates 20

TorchRL steps one agent at a time in an AEC env and says which with the ``("players", "mask")``
key; the legal actions of the deciding seat arrive as ``("players", "action_mask")``, which a
``MaskedCategorical`` distribution uses, so the policy never samples a masked-out action (the env is
built with ``illegal="raise"`` to prove it). All seats form one group, ``players``, so one network
plays every seat. Each update plays ``--games`` games by self-play and takes one REINFORCE step:
every decision's log-probability weighted by the final rank reward of the seat that took it. At
the end the policy plays ``--eval-games`` games in seat 0 against uniformly random seats; the last
line printed is its mean rank reward there (+1 first .. -1 last; random play averages 0).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from gamecore.kernel.games import GAMES, get_game  # noqa: E402
from gamecore.tools.cli import DefaultsHelpFormatter  # noqa: E402

GROUP = "players"
OBS = (GROUP, "observation", "observation")  # the AEC dict less its action mask, as TorchRL nests it


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="TorchRL self-play REINFORCE through PettingZooWrapper(use_mask=True).",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("--game", choices=sorted(GAMES), default="callisto", help="which game")
    p.add_argument("--players", type=int, default=None, help="number of seats (default: the game's default)")
    p.add_argument("--updates", type=int, default=10, help="REINFORCE updates")
    p.add_argument("--games", type=int, default=4, help="self-play games per update")
    p.add_argument("--eval-games", type=int, default=20, help="games against random seats at the end (0: none)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--hidden", type=int, default=128, help="hidden layer width")
    p.add_argument("--seed", type=int, default=0, help="seed of games and network")
    args = p.parse_args(argv)
    game = get_game(args.game)
    if args.players is None:
        args.players = game.default_players
    if args.players not in game.player_counts:
        p.error(f"--players must be one of {list(game.player_counts)} for {args.game}")
    if min(args.updates, args.games, args.hidden) < 1 or args.eval_games < 0:
        p.error("--updates, --games and --hidden must be positive, --eval-games >= 0")
    return args


def make_env(args: argparse.Namespace, seed: int):
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    aec = importlib.import_module(GAMES[args.game]).env(num_players=args.players, illegal="raise")
    return PettingZooWrapper(env=aec, use_mask=True, group_map={GROUP: list(aec.possible_agents)}, seed=seed)


def make_actor(env, hidden: int):
    """A shared MLP over each seat's observation, sampling through a MaskedCategorical."""
    import torch
    from tensordict.nn import TensorDictModule
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    obs_shape = env.observation_spec[OBS].shape[1:]  # (n_players, *obs): one seat's observation
    n_actions = env.full_action_spec[GROUP, "action"].space.n
    width = 1
    for d in obs_shape:
        width *= d

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mlp = torch.nn.Sequential(
                torch.nn.Linear(width, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, n_actions)
            )

        def forward(self, obs):
            return self.mlp(obs.flatten(-len(obs_shape)).float())

    module = TensorDictModule(Net(), in_keys=[OBS], out_keys=[(GROUP, "logits")])
    return ProbabilisticActor(
        module,
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "log_prob"),
    )


def reinforce_loss(rollout):
    """-(log-prob of each decision x final reward of the seat that took it), averaged."""
    acting = rollout[GROUP, "mask"]  # (T, n): who decided at each step
    final = rollout["next", GROUP, "reward"][-1, :, 0]  # (n,): rewards arrive on the last step only
    log_prob = rollout[GROUP, "log_prob"]  # (T, n)
    returns = final.expand_as(log_prob)
    return -(log_prob * returns)[acting].mean()


def mixed_policy(actor, learner_seat: int):
    """``actor`` in ``learner_seat``, uniformly random legal actions in every other seat."""
    import torch
    from torchrl.modules import MaskedCategorical

    def act(td):
        td = actor(td)
        mask = td[GROUP, "action_mask"]
        random = MaskedCategorical(logits=torch.zeros(mask.shape), mask=mask).sample()
        seats = torch.arange(mask.shape[0]) != learner_seat
        td[GROUP, "action"] = torch.where(seats, random, td[GROUP, "action"])
        return td

    return act


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import torch
    from torchrl.envs.utils import check_env_specs

    torch.manual_seed(args.seed)
    env = make_env(args, args.seed)
    check_env_specs(env)  # TorchRL's own check: specs match what the env returns
    actor = make_actor(env, args.hidden)
    optim = torch.optim.Adam(actor.parameters(), lr=args.lr)
    max_steps = 100_000
    print(
        f"{args.game}, {args.players} players: TorchRL PettingZooWrapper(use_mask=True), one masked policy for "
        f"every seat; {args.updates} updates of {args.games} self-play games",
        flush=True,
    )
    history = []
    for update in range(1, args.updates + 1):
        t0 = time.perf_counter()
        losses, lengths = [], []
        for _ in range(args.games):
            rollout = env.rollout(max_steps, policy=actor, break_when_any_done=True)
            assert rollout["next", "done"][-1].all(), "a game did not end"
            losses.append(reinforce_loss(rollout))
            lengths.append(rollout.batch_size[0])
        loss = torch.stack(losses).mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
        history.append({"loss": loss.item(), "mean_length": sum(lengths) / len(lengths)})
        print(
            f"update {update}: {args.games} games, mean length {history[-1]['mean_length']:.1f}, "
            f"loss {loss.item():+.3f}, {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
    out: dict[str, Any] = {"history": history}
    if args.eval_games:
        eval_env = make_env(args, args.seed + 1_000_003)
        policy = mixed_policy(actor, learner_seat=0)
        rewards = []
        with torch.no_grad():
            for _ in range(args.eval_games):
                rollout = eval_env.rollout(max_steps, policy=policy, break_when_any_done=True)
                rewards.append(float(rollout["next", GROUP, "reward"][-1, 0, 0]))
        out["eval_rewards"] = rewards
        print(
            f"seat-0 mean rank reward vs random: {sum(rewards) / len(rewards):+.2f} over {len(rewards)} games "
            "(random play averages +0.00)",
            flush=True,
        )
    return out


if __name__ == "__main__":
    main()
