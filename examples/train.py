"""Train a MaskablePPO agent by self-play on one of the games, then measure it against random play.

    python examples/train.py                          # Callisto, 2 players, short default budget
    python examples/train.py --timesteps 1000000 --envs 16
    python examples/train.py --game calcada --players 3
    python examples/train.py --game calimala            # 3 players (the game's smallest count)
    python examples/train.py --game calcada --obs-encoding scaled   # observations scaled to [0, 1]
    python examples/train.py --game calcada --imitate greedy --timesteps 0   # behaviour cloning only
    python examples/train.py --game calcada --margin-shaping 0.05   # dense score-margin reward

The learner is one seat per game (rotating over the seats from game to game) of a
:class:`gamecore.envs.sb3.SelfPlayVecEnv`; the other seats are moved inside ``step`` by an opponent.
Training starts against the uniformly random opponent; every ``--opponent-update`` steps a frozen
copy of the current policy joins a small pool of snapshots, and at the start of every rollout the
opponent for that rollout is drawn: the ``greedy`` baseline agent with probability ``--greedy-prob``
(0 by default), else uniformly random with probability ``--random-prob``, else one of the snapshots
(sampling its moves, masked to legal actions).

``--imitate SPEC`` first clones a teacher agent (any spec the arena takes: ``greedy``,
``mcts:50``, ``ppo:runs/x.zip``) into the network by behaviour cloning: the teacher plays every seat
of ``--imitate-envs`` games side by side on the batched path (one batched call of the agent per
step), ``--imitate-random`` of the moves (5% by default) being played at random instead for
coverage of positions off its path, though still labelled with the teacher's choice; every
decision of ``--imitate-decisions`` records the decider's observation (encoded as the training env
encodes it), legal mask, the teacher's action and the decider's final rank reward. The policy is
then fitted for ``--imitate-epochs`` passes of minibatch Adam (``--batch-size``, ``--lr``) on the
cross-entropy of its masked action distribution against the teacher's action plus half the
value head's squared error against the final reward, and PPO starts from there; the teacher
agreement on the held-out last tenth of the games is printed before and after the fit.
``--timesteps 0`` stops after the imitation (no PPO); ``--imitate-cache x.npz`` saves the collected
decisions, or loads them when they were collected with the same settings.

``--margin-shaping C`` adds C times the change of the learner's score margin (its score less the
best other seat's, as ``greedy`` measures it) between its decisions to the rank reward
(``SelfPlayVecEnv(margin_shaping=C)``).

``--init PATH`` starts from a saved model of the same game, players, encoding and network (its
weights, and its Adam state where the file kept one; the shipped baselines' was reset), so a recipe
that needs longer continues from its last checkpoint: ``--init callisto_env/baseline/maskppo.zip
--timesteps 1000000 --greedy-prob 0.5`` (with ``--game callisto``). The opponent pool starts empty again.

``--obs-encoding scaled`` trains on the env's scaled observations (float32 in [0, 1], every entry
divided by its documented maximum: ``gamecore.envs.encoding``) instead of the raw int8 counts; the saved
model remembers it (its observation space), and the arena's ``ppo:`` agent scales for it.

At the end the model is saved (``--out``, default ``runs/<game>_maskppo.zip``) with no pickle in it
(``gamecore.search.model_io.save_maskppo``: SB3's zip with the pickled blobs of its ``data`` entry
stripped; read it with the arena's ``ppo:`` agent or ``gamecore.search.model_io.load_maskppo``, which
never run code from a model file, not with ``MaskablePPO.load``) and played greedily
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

from gamecore.kernel.games import GAMES  # noqa: E402
from gamecore.tools.cli import DefaultsHelpFormatter  # noqa: E402

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (obs batch, bool masks) -> actions


# ---- command line ------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Self-play MaskablePPO training, then evaluation against a random player.",
        formatter_class=DefaultsHelpFormatter,
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
        help="chance that a rollout is played against the greedy agent (gamecore.search.agents) instead",
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
        "documented maximum (gamecore.envs.encoding)",
    )
    p.add_argument(
        "--margin-shaping",
        type=float,
        default=0.0,
        metavar="C",
        help="dense reward: C times the change of the learner's score margin over the best other seat "
        "between its decisions (gamecore.envs.sb3.SelfPlayVecEnv margin_shaping; 0: rank reward only)",
    )
    p.add_argument(
        "--imitate",
        metavar="SPEC",
        default=None,
        help="before PPO, clone this teacher agent (a spec as the arena takes it: greedy, mcts:50, "
        "ppo:runs/x.zip, ...) by behaviour cloning on games it plays in every seat",
    )
    p.add_argument("--imitate-decisions", type=int, default=None,
                   help="teacher decisions to collect for --imitate (default 50000)")
    p.add_argument("--imitate-epochs", type=int, default=None,
                   help="passes of minibatch SGD over them (default 10; minibatches of --batch-size, "
                   "learning rate --lr)")
    p.add_argument("--imitate-random", type=float, default=None,
                   help="share of the collection games' moves played at random instead of the teacher's "
                   "(still labelled with the teacher's action), for coverage of positions off the teacher's "
                   "path (default 0.05)")
    p.add_argument("--imitate-envs", type=int, default=None,
                   help="collection games played side by side, the teacher deciding for all in one call "
                   "(default 64)")
    p.add_argument("--imitate-cache", type=Path, default=None,
                   help="an .npz file for the collected decisions: loaded when it holds decisions collected "
                   "with the same teacher, game, players, budget, random share, games side by side and seed, "
                   "else collected and saved there (the observations are stored int8: any --obs-encoding)")
    p.add_argument("--init", type=Path, default=None, metavar="PATH",
                   help="start from the weights (and the Adam state, where it was kept) of a model saved by this "
                        "script for the same game, players, encoding and --net-arch, e.g. a shipped baseline: "
                        "a recipe that needs longer continues from its last checkpoint")
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
    from gamecore.kernel.games import get_game

    game = get_game(args.game)
    if args.players is None:
        args.players = game.default_players
    if not game.min_players <= args.players <= game.max_players:
        p.error(f"--players must be between {game.min_players} and {game.max_players} for {args.game}")
    for name in ("envs", "eval_games", "n_steps", "batch_size", "n_epochs", "pool_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    if args.timesteps < 0:
        p.error("--timesteps must be >= 0")
    if args.imitate is None:
        if args.timesteps == 0:
            p.error("--timesteps 0 (no PPO) only makes sense with --imitate SPEC")
        given = [n for n in ("decisions", "epochs", "random", "envs", "cache")
                 if getattr(args, f"imitate_{n}") is not None]
        if given:
            p.error(f"--imitate-{given[0]} needs --imitate SPEC (the teacher agent)")
    else:
        from gamecore.search.agents import make_agent

        try:
            make_agent(args.imitate, game, seed=0)
        except (ValueError, TypeError, FileNotFoundError) as exc:
            p.error(f"--imitate: {exc}")
        for name, default in (("decisions", 50_000), ("epochs", 10), ("envs", 64)):
            value = getattr(args, f"imitate_{name}")
            if value is None:
                setattr(args, f"imitate_{name}", default)
            elif value < 1:
                p.error(f"--imitate-{name} must be positive")
        if args.imitate_random is None:
            args.imitate_random = 0.05
        elif not 0.0 <= args.imitate_random < 1.0:
            p.error("--imitate-random must be in [0, 1)")
    if args.init is not None and not args.init.is_file():
        p.error(f"--init: no model at {args.init}")
    if args.opponent_update < 0:
        p.error("--opponent-update must be >= 0")
    if not 0.0 <= args.random_prob <= 1.0:
        p.error("--random-prob must be in [0, 1]")
    if not 0.0 <= args.greedy_prob <= 1.0:
        p.error("--greedy-prob must be in [0, 1]")
    if not (math.isfinite(args.margin_shaping) and args.margin_shaping >= 0):
        p.error("--margin-shaping must be a finite number >= 0")
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

    from gamecore.envs.sb3 import random_opponent

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
                from gamecore.search.agents import GreedyAgent

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
    """Progress for ``total`` steps (:class:`gamecore.tools.progress.Progress`): a tqdm bar on a
    terminal; otherwise (a log file, a pipe, CI) a plain line at every tenth of the way, so a
    redirected log gets at most ten lines and no carriage-return noise. (SB3's own
    ``progress_bar=True`` also needs ``rich`` and always draws.)"""
    from stable_baselines3.common.callbacks import BaseCallback

    from gamecore.tools.progress import Progress

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


# ---- imitation ---------------------------------------------------------------------------------
def collect_imitation(
    game: str,
    players: int,
    teacher: Any,
    decisions: int,
    seed: int,
    random_share: float = 0.0,
    envs: int = 64,
) -> dict[str, Any]:
    """Play games on the batched path (:class:`gamecore.envs.batched.BatchedGames`, ``rank`` reward as
    the training env) in which ``teacher`` (an agent of :mod:`gamecore.search.agents`) decides for every
    seat, until at least ``decisions`` decisions of finished games are recorded.

    For every decision it records the decider's int8 observation (``obs``; the training env's
    observation is ``venv.games.encoder(obs)``, the encoder the env itself applies, so a scaled
    env's observations are scaled exactly as in training), its legal mask (``masks``, bool), the teacher's action
    (``actions``), the decider's final rank reward (``returns``: what the value head of
    ``train.py``'s undiscounted env estimates) and the game it belongs to (``games``). With
    ``random_share`` > 0 that share of the decisions is *played* by a uniformly random legal move
    for state coverage (the positions a slightly wrong student reaches), but still *labelled* with
    the teacher's action. A ``greedy`` teacher breaks ties among its best decisions at random, so
    for it ``best`` also holds every decision's tied-best actions (bits packed along the actions).
    Decisions of games still running when the quota is reached are dropped,
    then the first ``decisions`` (in game order) are kept.
    """
    from gamecore.envs.batched import BatchedGames
    from gamecore.search.agents import GreedyAgent

    g = BatchedGames(game, num_envs=envs, seed=seed, num_players=players)
    g.reset()
    rng = np.random.default_rng(seed)
    n = g.num_players
    game_of_slot = np.arange(envs, dtype=np.int64)  # a running game id per slot
    next_game = envs
    chunks: dict[str, list[np.ndarray]] = {"obs": [], "masks": [], "actions": [], "seats": [], "games": [],
                                           "best": []}
    greedy = isinstance(teacher, GreedyAgent)
    finished: dict[int, np.ndarray] = {}  # game id -> the seats' rank rewards
    done_decisions = 0
    in_game = np.zeros(envs, dtype=np.int64)  # decisions recorded in each slot's running game
    t0 = time.perf_counter()
    while done_decisions < decisions:
        masks = g.masks.astype(bool)
        seats = g.current_players.copy()
        states = g.states if teacher.needs_state else None
        if greedy:  # the same search as act(), with every decision's value: its tied best decisions
            actions, values = teacher.values(g.states, seats, g.num_actions)
            top = values.max(axis=1, keepdims=True)
            chunks["best"].append(np.packbits(values >= top - 1e-9 * np.maximum(1.0, np.abs(top)), axis=1))
        else:
            actions = teacher.act(g.raw_observations, masks, states, seats)
        actions = np.asarray(actions, dtype=np.int64)
        chunks["obs"].append(g.raw_observations.reshape(envs, -1).copy())
        chunks["masks"].append(masks)
        chunks["actions"].append(actions)
        chunks["seats"].append(seats)
        chunks["games"].append(game_of_slot.copy())
        in_game += 1
        played = actions
        if random_share > 0:
            explore = rng.random(envs) < random_share
            if explore.any():
                played = np.where(explore, g.random_actions(), actions)
        g.step(played)
        for i in np.flatnonzero(g.dones):
            gid = int(game_of_slot[i])
            finished[gid] = g.rewards[i].copy()
            done_decisions += int(in_game[i])
            in_game[i] = 0
            game_of_slot[i] = next_game
            next_game += 1
    seconds = time.perf_counter() - t0
    games = np.concatenate(chunks["games"])
    keep = np.flatnonzero(np.isin(games, np.fromiter(finished, dtype=np.int64)))
    order = keep[np.argsort(games[keep], kind="stable")][:decisions]  # whole games first, in game order
    seats = np.concatenate(chunks["seats"])[order]
    games = games[order]
    rewards = np.stack([finished[int(gid)] for gid in games]) if len(games) else np.zeros((0, n))
    return {
        "obs": np.concatenate(chunks["obs"])[order],
        "masks": np.concatenate(chunks["masks"])[order],
        "actions": np.concatenate(chunks["actions"])[order],
        "returns": rewards[np.arange(len(games)), seats].astype(np.float32),
        "seats": seats,
        "games": games,
        "seconds": seconds,
        "decisions_played": int(sum(len(a) for a in chunks["actions"])),
        "best": np.concatenate(chunks["best"])[order] if greedy else None,
    }


_CACHED = ("obs", "masks", "actions", "returns", "seats", "games", "best")


def save_imitation_cache(path: Path, key: dict[str, Any], data: dict[str, Any]) -> None:
    """The collected decisions in an ``.npz`` with the settings that made them (``key``)."""
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: data[k] for k in _CACHED if data.get(k) is not None}
    meta = {"key": key, "seconds": data["seconds"], "decisions_played": data["decisions_played"]}
    with open(path, "wb") as fh:  # a file object: np.savez would append .npz to another suffix
        np.savez(fh, meta=np.array(json.dumps(meta)), **arrays)


def load_imitation_cache(path: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    """The decisions saved at ``path`` if they were collected with the same settings, else None."""
    import json

    from gamecore.search.model_io import read_npz

    if not path.is_file():
        return None
    z = read_npz(path, "--imitate-cache")  # numbers and text only, never a pickle
    try:
        meta = json.loads(str(z["meta"]))
        if meta["key"] != key:
            print(f"imitation: {path} holds other decisions ({meta['key']}); collecting afresh")
            return None
        data = {k: z.get(k) for k in _CACHED}
        data.update(seconds=float(meta["seconds"]), decisions_played=int(meta["decisions_played"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"--imitate-cache: {path} is not an imitation cache of this script "
                         f"({str(exc)[:80]})") from None
    return data


def _policy_inputs(policy: Any, data: dict[str, Any], rows: np.ndarray):
    """Tensors (obs as the env encodes them, float32 as SB3 feeds a Box; masks; actions; returns)
    of the decisions ``rows``."""
    import torch

    enc = data["encoder"](data["obs"][rows])
    obs = torch.as_tensor(np.asarray(enc, dtype=np.float32).reshape(len(rows), *policy.observation_space.shape),
                          device=policy.device)
    masks = torch.as_tensor(data["masks"][rows], device=policy.device)
    actions = torch.as_tensor(data["actions"][rows], device=policy.device)
    returns = torch.as_tensor(data["returns"][rows], device=policy.device)
    return obs, masks, actions, returns


def imitation_metrics(policy: Any, data: dict[str, Any], rows: np.ndarray, chunk: int = 4096) -> dict[str, float]:
    """On the decisions ``rows``: ``agreement`` (the share where the policy's most likely legal
    action, as ``predict(deterministic=True)`` plays it, is the teacher's), ``nll`` (mean negative
    log-likelihood of the teacher's action under the masked policy) and ``value_mse`` (of the
    value head against the decider's final reward); for a greedy teacher also ``agreement_tied``
    (the share where it is one of the teacher's tied best decisions)."""
    import torch

    agree = agree_best = nll = sq = 0.0
    policy.set_training_mode(False)
    with torch.no_grad():
        for start in range(0, len(rows), chunk):
            part = rows[start : start + chunk]
            obs, masks, actions, returns = _policy_inputs(policy, data, part)
            dist = policy.get_distribution(obs, action_masks=masks)
            mode = dist.mode()
            agree += float((mode == actions).sum())
            if data.get("best") is not None:
                best = np.unpackbits(data["best"][part], axis=1, count=masks.shape[1]).astype(bool)
                agree_best += float(best[np.arange(len(part)), mode.cpu().numpy()].sum())
            nll -= float(dist.log_prob(actions).sum())
            sq += float(((policy.predict_values(obs).flatten() - returns) ** 2).sum())
    k = max(len(rows), 1)
    out = {"agreement": agree / k, "nll": nll / k, "value_mse": sq / k}
    if data.get("best") is not None:
        out["agreement_tied"] = agree_best / k
    return out


def fit_imitation(policy: Any, data: dict[str, Any], rows: np.ndarray, epochs: int, batch_size: int, lr: float,
                  seed: int, vf_coef: float = 0.5, max_grad_norm: float = 0.5) -> list[float]:
    """Minibatch SGD (Adam, its own optimiser: PPO's is left as it was) of ``policy`` on the
    decisions ``rows``: cross-entropy of the masked action distribution (the policy's own
    ``MaskableCategorical``: illegal actions have no mass) against the teacher's action, plus
    ``vf_coef`` times the value head's squared error against the final reward. Gradients are
    clipped as PPO clips them. Returns the mean loss of each epoch."""
    import torch

    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    losses = []
    policy.set_training_mode(True)
    for _ in range(epochs):
        total = 0.0
        perm = rng.permutation(rows)
        for start in range(0, len(perm), batch_size):
            obs, masks, actions, returns = _policy_inputs(policy, data, perm[start : start + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
            loss = -log_prob.mean() + vf_coef * torch.nn.functional.mse_loss(values.flatten(), returns)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            opt.step()
            total += float(loss.detach()) * len(obs)
        losses.append(total / max(len(perm), 1))
    policy.set_training_mode(False)
    return losses


def held_out_rows(games: np.ndarray, share: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """(train rows, held-out rows): the decisions of the last ``share`` of the games (at least
    one, never all of them) are held out, so no held-out position shares a game with a training one;
    with a single game, every tenth decision."""
    ids = np.unique(games)
    if len(ids) < 2:
        held = np.zeros(len(games), dtype=bool)
        held[::10] = True
    else:
        k = min(max(1, round(share * len(ids))), len(ids) - 1)
        held = np.isin(games, ids[-k:])
    return np.flatnonzero(~held), np.flatnonzero(held)


def start_from(model: Any, path: Path, device: str, game: str) -> None:
    """Copy the policy weights and the optimizer state of the model of ``game`` saved at ``path`` into
    ``model`` (SystemExit naming the difference where the two networks do not match, or what is wrong
    with the file; it is read without unpickling anything: :func:`gamecore.search.model_io.load_maskppo`)."""
    from gamecore.search.model_io import load_maskppo

    try:  # reads no pickle: a crafted file is refused, never run
        src = load_maskppo(path, game, device=device, what="--init")
    except (OSError, ValueError) as exc:
        raise SystemExit(str(exc)) from None
    if src.observation_space != model.observation_space or src.action_space != model.action_space:
        raise SystemExit(f"--init: {path} was trained on observations {src.observation_space} and actions "
                         f"{src.action_space}, not this run's {model.observation_space} and {model.action_space}")
    mine, theirs = model.policy.state_dict(), src.policy.state_dict()
    if {k: tuple(v.shape) for k, v in mine.items()} != {k: tuple(v.shape) for k, v in theirs.items()}:
        raise SystemExit(f"--init: {path} has another network than this run's --net-arch")
    model.policy.load_state_dict(theirs)
    model.policy.optimizer.load_state_dict(src.policy.optimizer.state_dict())
    print(f"starting from {path} ({src.num_timesteps} decisions trained)")


def imitate(model: Any, args: argparse.Namespace, encoder: Any) -> dict[str, Any]:
    """Behaviour cloning of ``args.imitate`` into ``model.policy`` before PPO (see the module
    docstring): collect (or load ``--imitate-cache``), report the held-out agreement, fit, report
    it again. ``encoder``: the training env's :class:`gamecore.envs.encoding.ObsEncoder`, which turns
    the recorded int8 observations into the ones the env gives."""
    from gamecore.search.agents import make_agent

    teacher = make_agent(args.imitate, args.game, seed=args.seed + 3)
    key = {"game": args.game, "players": args.players, "teacher": teacher.spec, "decisions": args.imitate_decisions,
           "random": args.imitate_random, "envs": args.imitate_envs, "seed": args.seed}
    data = load_imitation_cache(args.imitate_cache, key) if args.imitate_cache is not None else None
    cached = data is not None
    if data is None:
        data = collect_imitation(args.game, args.players, teacher, args.imitate_decisions, args.seed + 2_000_003,
                                 random_share=args.imitate_random, envs=args.imitate_envs)
        if args.imitate_cache is not None:
            save_imitation_cache(args.imitate_cache, key, data)
    data["encoder"] = encoder
    n_games = len(np.unique(data["games"]))
    rate = data["decisions_played"] / max(data["seconds"], 1e-9)
    print(
        f"imitation: {len(data['actions'])} decisions of {n_games} games by {teacher.spec} "
        + (f"loaded from {args.imitate_cache} (collected " if cached else "")
        + f"in {data['seconds']:.1f} s ({rate:.0f} decisions/s on {args.imitate_envs} games side by side, "
        f"{data['decisions_played']} played, {args.imitate_random:.0%} of moves random)" + (")" if cached else "")
    )
    train_rows, test_rows = held_out_rows(data["games"])
    if data.get("best") is not None:
        popcount = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).sum(axis=1).astype(np.uint8)
        data["best_counts"] = popcount[data["best"]].sum(axis=1, dtype=np.int64)  # the pad bits are 0
    before = imitation_metrics(model.policy, data, test_rows)
    t0 = time.perf_counter()
    losses = fit_imitation(model.policy, data, train_rows, args.imitate_epochs, args.batch_size, args.lr,
                           seed=args.seed + 5)
    fit_s = time.perf_counter() - t0
    after = imitation_metrics(model.policy, data, test_rows)
    train_after = imitation_metrics(model.policy, data, train_rows[-len(test_rows):] if len(test_rows) else train_rows)
    print(
        f"imitation fit: {args.imitate_epochs} epochs over {len(train_rows)} decisions in {fit_s:.1f} s "
        f"(loss {losses[0]:.3f} -> {losses[-1]:.3f}); held-out {len(test_rows)} decisions: teacher agreement "
        f"{before['agreement']:.3f} -> {after['agreement']:.3f} (training decisions {train_after['agreement']:.3f}), "
        f"value MSE {before['value_mse']:.3f} -> {after['value_mse']:.3f}"
        + (f"; one of the teacher's tied best moves {before['agreement_tied']:.3f} -> {after['agreement_tied']:.3f} "
           f"(the teacher ties {data['best_counts'][test_rows].mean():.2f} moves on average)"
           if data.get("best") is not None else "")
    )
    return {
        "teacher": teacher.spec,
        "decisions": len(data["actions"]),
        "games": n_games,
        "collect_seconds": data["seconds"],
        "decisions_per_second": rate,
        "fit_seconds": fit_s,
        "losses": losses,
        "held_out": len(test_rows),
        "before": before,
        "after": after,
        "train_after": train_after,
    }


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
    from gamecore.envs.sb3 import SelfPlayVecEnv, random_opponent

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

    from gamecore.envs.sb3 import SelfPlayVecEnv, random_opponent
    from gamecore.search.model_io import save_maskppo

    torch.manual_seed(args.seed)
    venv = SelfPlayVecEnv(args.game, num_envs=args.envs, seed=args.seed, num_players=args.players,
                          obs_encoding=args.obs_encoding, margin_shaping=args.margin_shaping)
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
    if args.init is not None:
        start_from(model, args.init, args.device, args.game)
    imitation = imitate(model, args, venv.games.encoder) if args.imitate is not None else None
    t0 = time.perf_counter()
    if args.timesteps > 0:
        model.learn(total_timesteps=args.timesteps, callback=CallbackList(callbacks))
    train_s = time.perf_counter() - t0
    print(
        f"trained {model.num_timesteps} steps in {train_s:.0f} s ({model.num_timesteps / max(train_s, 1e-9):.0f} "
        "steps/s); "
        f"rollouts vs random {selfplay.rollouts_vs_random}, vs snapshots {selfplay.rollouts_vs_snapshot}"
        + (f", vs greedy {selfplay.rollouts_vs_greedy}" if args.greedy_prob else "")
    )

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    saved = save_maskppo(model, out)  # no pickle in the file: gamecore.search.model_io
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
        "imitation": imitation,
        "eval": result,
        "baseline": baseline,
    }


if __name__ == "__main__":
    main()
