"""AlphaZero-style self-play: a batched PUCT search guided by a small policy / value network.

    python examples/alphazero.py                                   # Callisto, 2 players, a short run
    python examples/alphazero.py --game calcada --iterations 50 --simulations 64
    python examples/alphazero.py --game calcada --resume           # continue runs/calcada-az.pt

Every iteration plays ``--games-per-iteration`` games side by side on the batched path
(:class:`gamecore.envs.batched.BatchedGames`): at every step, the deciding seats of all unfinished games
are searched together by :func:`gamecore.search.puct.puct_search` (``--simulations`` per decision, the
leaf evaluations of all games in one torch call), Dirichlet noise at the roots, the first
``--temperature-moves`` decisions of each game sampled from the visit counts, the rest the most
visited. Each decision stores (observation of the decider, visit distribution, legal mask) and,
when its game ends, the decider's rank reward (+1 first .. -1 last) as the value target. The
network (:mod:`gamecore.search.aznet`: an MLP on the flat observation, ``sign(x) * log1p(|x|)`` scaled)
then trains ``--train-steps`` minibatches from the replay buffer (the last ``--buffer``
positions) on cross-entropy to the visit distribution (over the legal actions) plus the squared
error of the value.

``--warm-start greedy`` (any agent spec) first lets that agent play ``--warm-start-games`` games
in every seat and trains ``--warm-start-steps`` minibatches on them (its decisions as one-hot
policy targets, the rank reward as the value target: AlphaGo's supervised start); the warm
network is checkpointed as iteration 0 and its positions stay in the replay buffer (size
``--buffer`` to hold them: ~100 decisions per Calçada game).

After every ``--checkpoint-every`` iterations (and at the end) the checkpoint ``--out`` (default
``runs/<game>-az.pt``: weights, optimizer, iteration, config, the generators' states) is written,
with the replay buffer beside it (``<out>.buffer.npz``), so ``--resume`` continues exactly where
the run stopped; ``--snapshots`` also keeps ``<out stem>-it<k>.pt`` for every checkpoint (the
untrained network is iteration 0). ``--eval-games`` > 0 ends with an arena run of the last network
(``az:<out>``) against ``random``. The checkpoint plays in the arena as ``az:runs/<game>-az.pt``
(``,sims=64`` for another budget). Deterministic given ``--seed`` (one torch and numba thread).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from gamecore.kernel.games import GAMES  # noqa: E402
from gamecore.tools.cli import DefaultsHelpFormatter  # noqa: E402


# ---- command line ------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="AlphaZero-style self-play with a batched PUCT search and a small policy / value MLP.",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("--game", choices=sorted(GAMES), default="callisto", help="which game")
    p.add_argument("--players", type=int, default=None, help="number of seats (default: the game's smallest count)")
    p.add_argument("--iterations", type=int, default=10, help="self-play + training iterations (in all, with --resume)")
    p.add_argument("--simulations", type=int, default=32, help="PUCT simulations per decision")
    p.add_argument("--games-per-iteration", type=int, default=32, help="self-play games per iteration, side by side")
    p.add_argument("--seed", type=int, default=0, help="seed of games, searches and network")
    p.add_argument("--out", type=Path, default=None, help="checkpoint path (default runs/<game>-az.pt)")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint at --out")
    p.add_argument("--snapshots", action="store_true", help="also keep <out stem>-it<k>.pt at every checkpoint")
    p.add_argument("--checkpoint-every", type=int, default=1, help="iterations between checkpoints")
    p.add_argument("--hidden", type=str, default="256,256", help="hidden layer sizes, comma-separated")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--weight-decay", type=float, default=1e-4, help="Adam weight decay")
    p.add_argument("--batch-size", type=int, default=256, help="training minibatch size")
    p.add_argument("--train-steps", type=int, default=50, help="minibatches per iteration")
    p.add_argument("--buffer", type=int, default=20_000, help="replay buffer size, in positions")
    p.add_argument("--c-puct", type=float, default=1.25, help="PUCT exploration constant")
    p.add_argument("--mix", type=float, default=0.0,
                   help="weight of a random rollout's value in every leaf's value, as AlphaGo's lambda (0: the "
                        "network's value alone; 1: the rollout's alone); saved in the config, which the az agent "
                        "plays with unless given")
    p.add_argument("--horizon", type=int, default=None,
                   help="random decisions per rollout (0: to the end; default: the game's mcts horizon)")
    p.add_argument("--scale", type=float, default=None,
                   help="a rollout cut before the end is valued tanh(margin / scale) (default: the game's)")
    p.add_argument("--dirichlet-alpha", type=float, default=0.3, help="root noise concentration")
    p.add_argument("--dirichlet-eps", type=float, default=0.25, help="root noise share (0: none)")
    p.add_argument("--temperature-moves", type=int, default=10,
                   help="decisions per game sampled from the visit counts (then the most visited)")
    p.add_argument("--warm-start", type=str, default=None, metavar="AGENT",
                   help="before iteration 1, imitate this agent (e.g. greedy) in --warm-start-games games of it "
                        "against itself: its decisions as the policy target, the rank reward as the value's")
    p.add_argument("--warm-start-games", type=int, default=256, help="games the --warm-start agent plays")
    p.add_argument("--warm-start-steps", type=int, default=2000, help="minibatches trained on those games")
    p.add_argument("--eval-games", type=int, default=0, help="arena games against random at the end (0: none)")
    p.add_argument("--threads", type=int, default=1, help="torch and numba threads (0: library defaults)")
    p.add_argument("--no-progress", action="store_true", help="no progress report on stderr")
    args = p.parse_args(argv)
    from gamecore.kernel.games import get_game

    game = get_game(args.game)
    if args.players is None:
        args.players = game.default_players
    if not game.min_players <= args.players <= game.max_players:
        p.error(f"--players must be between {game.min_players} and {game.max_players} for {args.game}")
    for name in ("iterations", "simulations", "games_per_iteration", "checkpoint_every", "batch_size",
                 "train_steps", "buffer", "warm_start_games", "warm_start_steps"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    for name in ("temperature_moves", "eval_games", "threads", "seed"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be >= 0")
    if not (args.c_puct > 0 and args.dirichlet_alpha > 0 and 0 <= args.dirichlet_eps <= 1 and args.lr > 0
            and args.weight_decay >= 0):
        p.error("--c-puct, --dirichlet-alpha and --lr must be positive, --dirichlet-eps in [0, 1], "
                "--weight-decay >= 0")
    try:
        args.hidden = [int(x) for x in args.hidden.split(",") if x.strip()]
    except ValueError:
        p.error("--hidden must be comma-separated integers, e.g. 256,256")
    if not args.hidden or min(args.hidden) < 1:
        p.error("--hidden must name at least one positive layer size")
    if not 0.0 <= args.mix <= 1.0:
        p.error("--mix must be in [0, 1]")
    if args.mix == 0.0 and (args.horizon is not None or args.scale is not None):
        p.error("--horizon and --scale shape the rollouts of --mix > 0: give --mix too")
    from gamecore.search.mcts import check_horizon

    try:
        args.horizon, args.scale = check_horizon(game, args.horizon, args.scale)
    except (ValueError, TypeError) as e:
        p.error(f"--horizon / --scale: {e}")
    if args.warm_start is not None:
        from gamecore.search.agents import make_agent

        try:
            make_agent(args.warm_start, game)
        except (ValueError, TypeError) as e:
            p.error(f"--warm-start: {e}")
    if args.out is None:
        args.out = Path("runs") / f"{args.game}-az.pt"
    return args


# ---- replay buffer -----------------------------------------------------------------------------
class Replay:
    """The last ``capacity`` positions: observation (int8), visit distribution (sparse: at most
    ``width`` visited actions, -1 padded), legal mask (packed bits) and value target."""

    def __init__(self, capacity: int, obs_len: int, num_actions: int, width: int) -> None:
        self.capacity, self.num_actions, self.width = capacity, num_actions, width
        self.obs = np.zeros((capacity, obs_len), dtype=np.int8)
        self.pi_act = np.full((capacity, width), -1, dtype=np.int32)
        self.pi_p = np.zeros((capacity, width), dtype=np.float32)
        self.masks = np.zeros((capacity, (num_actions + 7) // 8), dtype=np.uint8)
        self.z = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.head = 0

    def add(self, obs: np.ndarray, pi: np.ndarray, masks: np.ndarray, z: np.ndarray) -> None:
        for k in range(len(obs)):
            j = self.head
            self.obs[j] = obs[k]
            acts = np.flatnonzero(pi[k])[: self.width]
            self.pi_act[j] = -1
            self.pi_act[j, : len(acts)] = acts
            self.pi_p[j] = 0
            self.pi_p[j, : len(acts)] = pi[k, acts]
            self.masks[j] = np.packbits(masks[k] != 0)
            self.z[j] = z[k]
            self.head = (self.head + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)

    def batch(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        pi = np.zeros((len(idx), self.num_actions), dtype=np.float32)
        rows, cols = np.nonzero(self.pi_act[idx] >= 0)
        pi[rows, self.pi_act[idx][rows, cols]] = self.pi_p[idx][rows, cols]
        masks = np.unpackbits(self.masks[idx], axis=1, count=self.num_actions).astype(bool)
        return self.obs[idx], pi, masks, self.z[idx]

    def state(self) -> dict[str, np.ndarray]:
        return {"obs": self.obs, "pi_act": self.pi_act, "pi_p": self.pi_p, "masks": self.masks, "z": self.z,
                "size": np.array(self.size), "head": np.array(self.head)}

    def load(self, saved: Any) -> None:
        names = ("obs", "pi_act", "pi_p", "masks", "z")
        if any(saved[k].shape != getattr(self, k).shape for k in names):
            raise ValueError("the saved replay buffer has other sizes than this run's (--buffer, --simulations)")
        size, head = (saved[k] for k in ("size", "head"))
        if any(a.shape != () or a.dtype.kind not in "iu" for a in (size, head)) or not (
                0 <= int(size) <= self.capacity and 0 <= int(head) < self.capacity):
            raise ValueError("the saved replay buffer's size or head is out of range")
        if not (np.all(np.isfinite(saved["pi_p"])) and np.all(np.isfinite(saved["z"]))):
            raise ValueError("the saved replay buffer holds non-finite targets")
        for name in names:
            getattr(self, name)[:] = saved[name]
        self.size, self.head = int(size), int(head)


# ---- self-play ---------------------------------------------------------------------------------
def play_recorded(args: argparse.Namespace, num_games: int, seed: int, choose: Any) -> dict[str, Any]:
    """Play ``num_games`` games side by side on the batched path, every decision of every unfinished
    game chosen by ``choose(games, rows, moves) -> (actions, policy targets)``; returns the positions
    (observation of the decider, policy target, legal mask, the decider's final rank reward as the
    value target) and counts."""
    from gamecore.envs.batched import BatchedGames

    g = num_games
    games = BatchedGames(args.game, g, num_players=args.players)
    games.reset(seed=seed)
    done = np.zeros(g, dtype=bool)
    moves = np.zeros(g, dtype=np.int64)
    rec_obs, rec_pi, rec_mask, rec_game, rec_seat = [], [], [], [], []
    z_game = np.zeros((g, args.players))
    while not done.all():
        rows = np.flatnonzero(~done)
        chosen, pi = choose(games, rows, moves[rows])
        rec_obs.append(games.observations[rows].reshape(len(rows), -1).copy())
        rec_pi.append(pi.astype(np.float32))
        rec_mask.append(games.masks[rows].copy())
        rec_game.append(rows)
        rec_seat.append(games.current_players[rows].copy())
        actions = np.zeros(g, dtype=np.int64)
        actions[rows] = chosen
        _, rewards, dones, _ = games.step(actions, active=~done)
        moves[rows] += 1
        finished = np.flatnonzero(dones)
        z_game[finished] = rewards[finished]
        done[finished] = True
    game_idx, seats = np.concatenate(rec_game), np.concatenate(rec_seat)
    return {"obs": np.concatenate(rec_obs), "pi": np.concatenate(rec_pi), "masks": np.concatenate(rec_mask),
            "z": z_game[game_idx, seats].astype(np.float32), "games": g, "decisions": int(moves.sum())}


def self_play(args: argparse.Namespace, evaluate: Any, rng: np.random.Generator, iteration: int) -> dict[str, Any]:
    """Play ``--games-per-iteration`` games side by side with the search (:func:`play_recorded`;
    the policy targets are the visit distributions)."""
    from gamecore.search.puct import puct_search

    def choose(games, rows, moves):
        res = puct_search(games.game, games.states[rows], evaluate, args.simulations,
                          rng.integers(0, 2**62, size=len(rows)), c_puct=args.c_puct,
                          dirichlet_alpha=args.dirichlet_alpha, dirichlet_eps=args.dirichlet_eps, mix=args.mix,
                          horizon=args.horizon, scale=args.scale)
        chosen = res.actions.copy()
        for k in np.flatnonzero(moves < args.temperature_moves):  # sample the opening decisions
            p = res.policy[k]
            chosen[k] = rng.choice(len(p), p=p / p.sum())
        return chosen, res.policy

    g = args.games_per_iteration
    return play_recorded(args, g, args.seed * 1_000_003 + iteration * g, choose)  # every iteration: new deals


def teacher_seed(args: argparse.Namespace) -> int:
    """The seed of the --warm-start games (apart from every self-play iteration's deals)."""
    return args.seed * 1_000_003 + 999_999_937


def teacher_play(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """``--warm-start-games`` games of the ``--warm-start`` agent in every seat (:func:`play_recorded`;
    the policy target is the agent's decision, one-hot)."""
    from gamecore.search.agents import make_agent

    agent = make_agent(args.warm_start, args.game, seed=seed)

    def choose(games, rows, moves):
        masks = games.masks[rows]
        chosen = agent.act(games.observations[rows], masks, games.states[rows], games.current_players[rows])
        pi = np.zeros(masks.shape, dtype=np.float32)
        pi[np.arange(len(rows)), chosen] = 1.0
        return chosen, pi

    return play_recorded(args, args.warm_start_games, seed, choose)


# ---- training ----------------------------------------------------------------------------------
def train_steps(args: argparse.Namespace, net: Any, optimizer: Any, replay: Replay,
                rng: np.random.Generator, steps: int | None = None) -> dict[str, float]:
    """``--train-steps`` minibatches: cross-entropy to the visit distribution over the legal
    actions plus the value's squared error; returns the mean losses."""
    import torch

    from gamecore.search.aznet import encode_obs

    steps = args.train_steps if steps is None else steps
    net.train()
    total_p = total_v = 0.0
    for _ in range(steps):
        idx = rng.integers(0, replay.size, size=min(args.batch_size, replay.size))
        obs, pi, masks, z = replay.batch(idx)
        logits, v = net(encode_obs(obs))
        logits = logits.masked_fill(~torch.from_numpy(masks), -1e9)
        loss_p = -(torch.from_numpy(pi) * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        loss_v = torch.mean((v - torch.from_numpy(z)) ** 2)
        optimizer.zero_grad()
        (loss_p + loss_v).backward()
        optimizer.step()
        total_p += loss_p.item()
        total_v += loss_v.item()
    return {"policy_loss": total_p / steps, "value_loss": total_v / steps}


# ---- checkpoints -------------------------------------------------------------------------------
def _config(args: argparse.Namespace, obs_len: int, num_actions: int) -> dict[str, Any]:
    from gamecore.search.aznet import ENCODING

    return {"game": args.game, "players": args.players, "obs_len": obs_len, "num_actions": num_actions,
            "hidden": list(args.hidden), "encoding": ENCODING, "simulations": args.simulations,
            "c_puct": args.c_puct, "mix": args.mix, "horizon": args.horizon, "scale": args.scale,
            "games_per_iteration": args.games_per_iteration, "seed": args.seed,
            "lr": args.lr, "weight_decay": args.weight_decay, "batch_size": args.batch_size,
            "train_steps": args.train_steps, "buffer": args.buffer, "dirichlet_alpha": args.dirichlet_alpha,
            "dirichlet_eps": args.dirichlet_eps, "temperature_moves": args.temperature_moves,
            "warm_start": args.warm_start, "warm_start_games": args.warm_start_games if args.warm_start else 0,
            "warm_start_steps": args.warm_start_steps if args.warm_start else 0}


def buffer_path(out: Path) -> Path:
    return out.with_name(out.name + ".buffer.npz")


def snapshot_path(out: Path, iteration: int) -> Path:
    return out.with_name(f"{out.stem}-it{iteration}{out.suffix}")


def _save(args, net, optimizer, iteration, config, rng, replay) -> None:
    import torch

    from gamecore.search.aznet import save_checkpoint

    states = {"numpy": rng.bit_generator.state, "torch": torch.get_rng_state()}
    save_checkpoint(args.out, net, optimizer, iteration, config, states)
    tmp = buffer_path(args.out).with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **replay.state())
    tmp.replace(buffer_path(args.out))
    if args.snapshots:
        save_checkpoint(snapshot_path(args.out, iteration), net, None, iteration, config, states)


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
    """Self-play and train as ``args`` (from :func:`parse_args`) say; returns a summary."""
    import torch

    from gamecore.kernel.games import get_game
    from gamecore.search import aznet
    from gamecore.search.model_io import read_npz
    from gamecore.tools.progress import Progress

    game = get_game(args.game)
    params = game.make_params(args.players)
    obs_len, num_actions = int(np.prod(game.obs_shape(params))), game.num_actions(params)
    config = _config(args, obs_len, num_actions)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    net = aznet.make_network(obs_len, num_actions, args.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    replay = Replay(args.buffer, obs_len, num_actions, args.simulations)
    start = 0
    if args.resume:
        try:  # weights_only: a crafted file is refused, never run
            ckpt = aznet.load_checkpoint(args.out)
        except (OSError, ValueError) as exc:
            raise SystemExit(f"--resume: {exc}") from None
        old = ckpt["config"]
        if any(old[k] != config[k] for k in aznet.NETWORK_KEYS):
            raise SystemExit(f"--resume: {args.out} holds a network for {old['game']} with {old['players']} players "
                             f"and layers {old['hidden']}, not this run's")
        try:
            net.load_state_dict(ckpt["model"])
            optimizer.load_state_dict(ckpt["optimizer"])
            rng.bit_generator.state = ckpt["rng"]["numpy"]
            torch.set_rng_state(ckpt["rng"]["torch"])
            start = int(ckpt["iteration"])
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise SystemExit(f"--resume: {args.out} is not a checkpoint this script wrote: its network, optimizer, "
                             f"generator or iteration entry is malformed ({str(exc)[:120]})") from None
        if buffer_path(args.out).is_file():
            try:
                replay.load(read_npz(buffer_path(args.out), "--resume"))
            except (KeyError, ValueError) as exc:
                raise SystemExit(f"--resume: {buffer_path(args.out)} is not this run's replay buffer "
                                 f"({str(exc)[:200]})") from None
        else:
            print(f"--resume: no replay buffer beside {args.out}; starting with an empty one")
    else:
        if args.warm_start is not None:
            t1 = time.perf_counter()
            taught = teacher_play(args, teacher_seed(args))
            # the buffer's width is --simulations; a one-hot target needs one column
            replay.add(taught["obs"], taught["pi"], taught["masks"], taught["z"])
            losses = train_steps(args, net, optimizer, replay, rng, steps=args.warm_start_steps)
            print(f"warm start: {args.warm_start} played {taught['games']} games ({taught['decisions']} decisions); "
                  f"{args.warm_start_steps} minibatches: policy loss {losses['policy_loss']:.3f}, value loss "
                  f"{losses['value_loss']:.3f} ({time.perf_counter() - t1:.1f} s)", flush=True)
        if args.snapshots or args.warm_start is not None:
            _save(args, net, optimizer, 0, config, rng, replay)
    print(f"{args.game}, {args.players} players: obs {obs_len}, {num_actions} actions; iterations {start + 1}.."
          f"{args.iterations} of {args.games_per_iteration} games, {args.simulations} simulations per decision")
    evaluate = aznet.make_evaluator(net)
    progress = None if args.no_progress else Progress(args.iterations, "iteration", label="alphazero")
    if progress is not None:
        progress.update(start)
    history = []
    t0 = time.perf_counter()
    for it in range(start + 1, args.iterations + 1):
        t1 = time.perf_counter()
        played = self_play(args, evaluate, rng, it)
        replay.add(played["obs"], played["pi"], played["masks"], played["z"])
        losses = train_steps(args, net, optimizer, replay, rng)
        row = {"iteration": it, "decisions": played["decisions"], "buffer": replay.size,
               "seconds": time.perf_counter() - t1, **losses}
        history.append(row)
        print(f"iteration {it}: {played['games']} games, {played['decisions']} decisions, buffer {replay.size}; "
              f"policy loss {losses['policy_loss']:.3f}, value loss {losses['value_loss']:.3f} "
              f"({row['seconds']:.1f} s)", flush=True)
        if it % args.checkpoint_every == 0 or it == args.iterations:
            _save(args, net, optimizer, it, config, rng, replay)
        if progress is not None:
            progress.update(it)
    if progress is not None:
        progress.close()
    if start >= args.iterations:
        print(f"{args.out} is already at iteration {start}")
    else:
        print(f"saved {args.out} (iteration {args.iterations}, {time.perf_counter() - t0:.0f} s)")
    result: dict[str, Any] = {"checkpoint": str(args.out), "history": history, "iteration": max(start,
                                                                                                args.iterations)}
    if args.eval_games:
        result["eval"] = evaluate_vs_random(args)
    return result


def evaluate_vs_random(args: argparse.Namespace) -> dict[str, float]:
    """The arena (seat-rotated) between ``az:<out>`` and ``random``: the az agent's win rate."""
    from gamecore.tools.arena import play

    spec = f"az:{args.out}"
    run = play(args.game, [spec, "random"], num_players=args.players, games=args.eval_games,
               seed=args.seed + 1_000_003)
    wins = [0.0, 0.0]
    seats = [0, 0]
    for r in run.results:
        best = max(r.keys)
        first = [q for q, k in enumerate(r.keys) if k == best]
        for q, agent in enumerate(r.seating):
            seats[agent] += 1
            if q in first:
                wins[agent] += 1.0 / len(first)
    rate = wins[0] / max(seats[0], 1)
    print(f"win rate vs random: {rate:.2f} ({len(run.results)} games, seats rotated; random's "
          f"{wins[1] / max(seats[1], 1):.2f})")
    return {"win_rate": rate, "games": len(run.results)}


if __name__ == "__main__":
    main()
