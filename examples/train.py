"""Train a MaskablePPO agent by self-play on one of the games, then measure it against random play.

    python examples/train.py                          # Callisto, 2 players, short default budget
    python examples/train.py --timesteps 1000000 --envs 16
    python examples/train.py --game calcada --players 3
    python examples/train.py --game calimala            # 3 players (the game's smallest count)
    python examples/train.py --game calcada --obs-encoding scaled   # observations scaled to [0, 1]

The learner is one seat per game (rotating over the seats from game to game) of a
:class:`gamecore.sb3.SelfPlayVecEnv`; the other seats are moved inside ``step`` by an opponent.
Training starts against the uniformly random opponent; every ``--opponent-update`` steps a frozen
copy of the current policy joins a small pool of snapshots, and at the start of every rollout the
opponent for that rollout is drawn: the ``greedy`` baseline agent with probability ``--greedy-prob``
(0 by default), else uniformly random with probability ``--random-prob``, else one of the snapshots
(sampling its moves, masked to legal actions).

``--obs-encoding scaled`` trains on the env's scaled observations (float32 in [0, 1], every entry
divided by its documented maximum: ``gamecore.encoding``) instead of the raw int8 counts; the saved
model remembers it (its observation space), and the arena's ``ppo:`` agent scales for it.

At the end the model is saved (``--out``, default ``runs/<game>_maskppo.zip``) and played greedily
over ``--eval-games`` games against the random player, the learner rotating seats; the last line
printed is the win rate next to the random-vs-random baseline measured on the same games.

Progress goes to stderr: a tqdm bar on a terminal, a plain line every tenth of the way when the
output is redirected (a log file gets at most ten lines). Needs the ``train`` extra
(stable-baselines3, sb3-contrib; tqdm for the bar).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from gamecore.games import GAMES  # noqa: E402

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (obs batch, bool masks) -> actions


# ---- command line ------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Self-play MaskablePPO training, then evaluation against a random player.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--game", choices=sorted(GAMES), default="callisto", help="which game")
    p.add_argument("--players", type=int, default=None, help="number of seats (default: the game's smallest count)")
    p.add_argument("--timesteps", type=int, default=80_000, help="learner decisions to train for")
    p.add_argument("--envs", type=int, default=16, help="games played side by side")
    p.add_argument("--seed", type=int, default=0, help="seed of games, opponents and network")
    p.add_argument("--eval-games", type=int, default=200, help="evaluation games against random")
    p.add_argument("--out", type=Path, default=None, help="model path (default runs/<game>_maskppo.zip)")
    p.add_argument(
        "--opponent-update",
        type=int,
        default=20_000,
        help="learner steps between snapshots of the policy added to the opponent pool (0: never, "
        "always play the random opponent)",
    )
    p.add_argument(
        "--random-prob",
        type=float,
        default=0.5,
        help="chance that a rollout is played against the random opponent once snapshots exist",
    )
    p.add_argument("--pool-size", type=int, default=5, help="most recent snapshots kept as opponents")
    p.add_argument(
        "--greedy-prob",
        type=float,
        default=0.0,
        help="chance that a rollout is played against the greedy agent (gamecore.agents) instead",
    )
    p.add_argument("--n-steps", type=int, default=128, help="PPO rollout length per env")
    p.add_argument("--batch-size", type=int, default=256, help="PPO minibatch size")
    p.add_argument("--n-epochs", type=int, default=4, help="PPO epochs per rollout")
    p.add_argument("--lr", type=float, default=5e-4, help="Adam learning rate")
    p.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    p.add_argument("--net-arch", type=str, default="64,64", help="hidden layer sizes, comma-separated")
    p.add_argument(
        "--obs-encoding",
        choices=("int8", "scaled"),
        default="int8",
        help="observations the network sees: the int8 counts, or float32 scaled to [0, 1] by each entry's "
        "documented maximum (gamecore.encoding)",
    )
    p.add_argument("--device", default="cpu", help="torch device")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch and numba threads (0: library defaults); one thread is fastest for the small "
        "batches here, and avoids two OpenMP pools spinning against each other on few cores",
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress report (default: a bar on a terminal, else a plain line every 10%%)",
    )
    p.add_argument("--verbose", type=int, default=0, help="SB3 verbosity (1: training tables)")
    args = p.parse_args(argv)
    from gamecore.games import get_game

    game = get_game(args.game)
    if args.players is None:
        args.players = game.default_players
    if not game.min_players <= args.players <= game.max_players:
        p.error(f"--players must be between {game.min_players} and {game.max_players} for {args.game}")
    for name in ("timesteps", "envs", "eval_games", "n_steps", "batch_size", "n_epochs", "pool_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    if args.opponent_update < 0:
        p.error("--opponent-update must be >= 0")
    if not 0.0 <= args.random_prob <= 1.0:
        p.error("--random-prob must be in [0, 1]")
    if not 0.0 <= args.greedy_prob <= 1.0:
        p.error("--greedy-prob must be in [0, 1]")
    try:
        args.net_arch = [int(x) for x in args.net_arch.split(",") if x.strip()]
    except ValueError:
        p.error("--net-arch must be comma-separated integers, e.g. 128,128")
    if args.out is None:
        args.out = Path("runs") / f"{args.game}_maskppo.zip"
    return args


# ---- opponents ---------------------------------------------------------------------------------
def policy_opponent(policy: Any, deterministic: bool = False) -> Policy:
    """A frozen policy as an opponent callable: masked predictions for a batch of observations."""

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = policy.predict(obs, action_masks=masks, deterministic=deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(len(obs))

    return act


def make_selfplay_callback(venv: Any, update_every: int, random_prob: float, pool_size: int, seed: int | None,
                           greedy_prob: float = 0.0):
    """SB3 callback: snapshot the policy every ``update_every`` steps into a pool, and pick the
    opponent (greedy with probability ``greedy_prob``, else random or a snapshot) at the start of
    every rollout."""
    from stable_baselines3.common.callbacks import BaseCallback

    from gamecore.sb3 import random_opponent

    class SelfPlayCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.rng = np.random.default_rng(seed)
            self.random = random_opponent(None if seed is None else seed + 1)
            self.pool: list[Policy] = []
            self.last_snapshot = 0
            self.rollouts_vs_random = 0
            self.rollouts_vs_snapshot = 0
            self.rollouts_vs_greedy = 0
            self.greedy = None
            if greedy_prob > 0:
                from gamecore.agents import GreedyAgent

                self.greedy = GreedyAgent(venv.games.game, seed=None if seed is None else seed + 2)

        def _snapshot(self) -> None:
            policy = self.model.policy
            kwargs = {**policy._get_constructor_parameters(), "ortho_init": False}  # weights loaded next
            frozen = type(policy)(**kwargs).to(policy.device)
            frozen.load_state_dict(policy.state_dict())
            frozen.set_training_mode(False)
            for param in frozen.parameters():
                param.requires_grad_(False)
            self.pool.append(policy_opponent(frozen, deterministic=False))
            del self.pool[:-pool_size]
            self.last_snapshot = self.num_timesteps

        def _on_rollout_start(self) -> None:
            if update_every and self.num_timesteps - self.last_snapshot >= update_every:
                self._snapshot()
            if self.greedy is not None and self.rng.random() < greedy_prob:
                venv.set_opponent(self.greedy)
                self.rollouts_vs_greedy += 1
            elif not self.pool or self.rng.random() < random_prob:
                venv.set_opponent(self.random)
                self.rollouts_vs_random += 1
            else:
                venv.set_opponent(self.pool[self.rng.integers(len(self.pool))])
                self.rollouts_vs_snapshot += 1

        def _on_step(self) -> bool:
            return True

    return SelfPlayCallback()


def make_progress_callback(total: int, stream: Any = None):
    """Progress for ``total`` steps (:class:`gamecore.progress.Progress`): a tqdm bar on a
    terminal; otherwise (a log file, a pipe, CI) a plain line at every tenth of the way, so a
    redirected log gets at most ten lines and no carriage-return noise. (SB3's own
    ``progress_bar=True`` also needs ``rich`` and always draws.)"""
    from stable_baselines3.common.callbacks import BaseCallback

    from gamecore.progress import Progress

    class ProgressCallback(BaseCallback):
        def _on_training_start(self) -> None:
            self.progress = Progress(total, "step", stream=stream)

        def _on_step(self) -> bool:
            if self.progress.bar is not None:
                self.progress.update(self.num_timesteps)
            return True

        def _on_rollout_end(self) -> None:
            self.progress.update(self.num_timesteps)

        def _on_training_end(self) -> None:
            self.progress.close()

    return ProgressCallback()


# ---- evaluation --------------------------------------------------------------------------------
def evaluate(
    game: str,
    players: int,
    act: Policy,
    num_games: int,
    seed: int,
    obs_encoding: str = "int8",
) -> dict[str, float]:
    """Play ``num_games`` games of ``act`` (as the learner, rotating seats) against the uniformly
    random opponent on the batched path; each game slot plays its share of games in seat order, so
    every seat is played equally often (up to the remainder).

    Returns ``win_rate`` (outright first place; a 2-player tie counts half), ``wins``, ``ties``
    (2 players only), ``losses``, ``mean_reward`` (rank reward, +1 first .. -1 last) and ``games``.
    """
    from gamecore.sb3 import SelfPlayVecEnv, random_opponent

    n_envs = min(math.ceil(num_games / players), 256)
    quota = np.full(n_envs, num_games // n_envs, dtype=np.int64)
    quota[: num_games % n_envs] += 1
    venv = SelfPlayVecEnv(game, num_envs=n_envs, seed=seed, opponent=random_opponent(seed + 1), num_players=players,
                          obs_encoding=obs_encoding)
    obs = venv.reset()
    played = np.zeros(n_envs, dtype=np.int64)
    rewards: list[float] = []
    while (played < quota).any():
        actions = act(obs, venv.action_masks())
        obs, rew, dones, _ = venv.step(actions)
        for i in np.flatnonzero(dones):
            if played[i] < quota[i]:
                rewards.append(float(rew[i]))
                played[i] += 1
    r = np.asarray(rewards)
    wins = int(np.sum(r > 1 - 1e-6))
    ties = int(np.sum(np.abs(r) < 1e-6)) if players == 2 else 0
    return {
        "games": len(r),
        "wins": wins,
        "ties": ties,
        "losses": len(r) - wins - ties,
        "win_rate": (wins + 0.5 * ties) / len(r),
        "mean_reward": float(r.mean()),
    }


def model_player(model: Any) -> Policy:
    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        return actions

    return act


# ---- main --------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.threads <= 0:
        return run(args)
    import numba
    import torch

    saved = torch.get_num_threads(), numba.get_num_threads()
    torch.set_num_threads(args.threads)
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    try:
        return run(args)
    finally:  # leave the process as it was when main() is called from other code
        torch.set_num_threads(saved[0])
        numba.set_num_threads(saved[1])


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Train, save and evaluate as ``args`` (from :func:`parse_args`) say."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import CallbackList

    from gamecore.sb3 import SelfPlayVecEnv, random_opponent

    torch.manual_seed(args.seed)
    venv = SelfPlayVecEnv(args.game, num_envs=args.envs, seed=args.seed, num_players=args.players,
                          obs_encoding=args.obs_encoding)
    rollout = args.n_steps * args.envs  # SB3 trains in whole rollouts of this many steps
    batch_size = min(args.batch_size, rollout)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.lr,
        gamma=1.0,  # rewards only at the end of a short game: no discounting
        gae_lambda=0.95,
        ent_coef=args.ent_coef,
        policy_kwargs={"net_arch": args.net_arch},
        seed=args.seed,
        device=args.device,
        verbose=args.verbose,
    )
    n = venv.games.num_players
    print(
        f"{args.game}, {n} players: obs {venv.observation_space.shape} {args.obs_encoding}, "
        f"{venv.action_space.n} actions; "
        f"training MaskablePPO for {args.timesteps} steps on {args.envs} envs"
    )
    selfplay = make_selfplay_callback(venv, args.opponent_update, args.random_prob, args.pool_size, args.seed,
                                      args.greedy_prob)
    callbacks = [selfplay]
    if not args.no_progress:
        callbacks.append(make_progress_callback(math.ceil(args.timesteps / rollout) * rollout))
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=CallbackList(callbacks))
    train_s = time.perf_counter() - t0
    print(
        f"trained {model.num_timesteps} steps in {train_s:.0f} s ({model.num_timesteps / train_s:.0f} steps/s); "
        f"rollouts vs random {selfplay.rollouts_vs_random}, vs snapshots {selfplay.rollouts_vs_snapshot}"
        + (f", vs greedy {selfplay.rollouts_vs_greedy}" if args.greedy_prob else "")
    )

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    saved = out if out.suffix == ".zip" else out.with_name(out.name + ".zip")
    print(f"saved {saved}")

    eval_seed = args.seed + 1_000_003  # games not seen in training
    t0 = time.perf_counter()
    result = evaluate(args.game, n, model_player(model), args.eval_games, eval_seed, args.obs_encoding)
    eval_s = time.perf_counter() - t0
    baseline = evaluate(args.game, n, random_opponent(eval_seed + 7), args.eval_games, eval_seed)
    tie_text = f", {result['ties']} ties" if n == 2 else ""
    print(
        f"evaluation ({eval_s:.1f} s): {result['wins']} wins{tie_text}, {result['losses']} losses; "
        f"mean rank reward {result['mean_reward']:+.3f} (random-vs-random {baseline['mean_reward']:+.3f})"
    )
    print(
        f"win rate vs random: {result['win_rate']:.2f} ({result['games']} games, learner rotating seats; "
        f"random-vs-random baseline {baseline['win_rate']:.2f})"
    )
    return {
        "model_path": str(saved),
        "train_seconds": train_s,
        "timesteps": model.num_timesteps,
        "eval": result,
        "baseline": baseline,
    }


if __name__ == "__main__":
    main()
