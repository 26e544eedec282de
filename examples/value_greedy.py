"""Learn a leaf value for the greedy turn lookahead from self-play (the ``vgreedy`` agent).

    python examples/value_greedy.py                                  # Cultivo, 2 players, a short run
    python examples/value_greedy.py --game cultivo --games 1500 --iterations 2 --horizon 8
    python -m gamecore arena cultivo --agents vgreedy:runs/cultivo_vgreedy.npz greedy --games 100

Approximate policy iteration in the style of TD-Gammon's afterstate values, on top of the greedy
search (:mod:`gamecore.search.value_net`):

1. the current agent (``greedy`` at first, then the ``vgreedy`` agent of the last model) plays
   ``--games`` games against itself on the batched path, and every decision is kept with every
   seat's observation and score margin;
2. a fresh MLP (one ReLU layer of ``--hidden`` units) learns, from every seat's view of every
   decision collected so far, how that seat's margin changes over the next ``--horizon``
   decisions (to the end of the game where it ends sooner): ``--epochs`` passes of minibatch Adam
   on the squared error, the last tenth of each iteration's games held out for the printed error;
3. the model is saved to ``--out`` (an ``.npz``: weights and what made them), for the ``vgreedy``
   agent: the greedy lookahead valuing every leaf by its margin plus ``--weight`` times the model.

``--eval-games`` > 0 ends with an arena run of ``vgreedy:<out>`` against ``greedy`` (its
``--eval-seed``). Deterministic given ``--seed`` with ``--threads 1``. Needs torch (the ``train``
extra). A model of a few hundred kB; the shipped baselines of Cultivo and Calçada are such models
(their ``baseline/README.md`` gives the commands and wall times).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from gamecore.kernel.games import GAMES  # noqa: E402
from gamecore.tools.cli import DefaultsHelpFormatter  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Learn a leaf value for the greedy lookahead from self-play.",
                                formatter_class=DefaultsHelpFormatter)
    p.add_argument("--game", choices=sorted(GAMES), default="cultivo", help="which game")
    p.add_argument("--players", type=int, default=None, help="number of seats (default: the game's default count)")
    p.add_argument("--iterations", type=int, default=1, help="collect + fit rounds (the first collects with greedy)")
    p.add_argument("--games", type=int, default=200, help="self-play games collected per iteration")
    p.add_argument("--horizon", type=int, default=8, help="decisions ahead whose margin change the model learns")
    p.add_argument("--hidden", type=int, default=64, help="hidden units (0: a linear model)")
    p.add_argument("--epochs", type=int, default=1, help="passes over the data per fit")
    p.add_argument("--weight", type=float, default=1.0, help="weight of the model's estimate in the search (saved)")
    p.add_argument("--collect-samples", type=int, default=1,
                   help="redeals the collecting agent averages (greedy's samples; the agents' default is 4 where "
                        "the game hides something)")
    p.add_argument("--parallel", type=int, default=32, help="games played side by side while collecting")
    p.add_argument("--threads", type=int, default=1, help="numba and torch threads")
    p.add_argument("--seed", type=int, default=0, help="seed of games, agents and network")
    p.add_argument("--out", type=Path, default=None, help="model path (default runs/<game>_vgreedy.npz)")
    p.add_argument("--eval-games", type=int, default=0, help="arena games of the final model against greedy")
    p.add_argument("--eval-seed", type=int, default=2, help="seed of the evaluation arena")
    p.add_argument("--no-progress", action="store_true", help="no progress lines while collecting")
    args = p.parse_args(argv)
    for name in ("iterations", "games", "epochs", "collect_samples", "parallel", "threads"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.horizon < 0 or args.hidden < 0 or args.eval_games < 0:
        p.error("--horizon, --hidden and --eval-games must not be negative")
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    import numba
    import torch

    from gamecore.kernel.games import get_game
    from gamecore.search.agents import GreedyAgent, ValueGreedyAgent
    from gamecore.search.value_net import collect, fit

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    torch.set_num_threads(args.threads)
    game = get_game(args.game)
    players = args.players or game.default_players
    game.make_params(players)  # a wrong count is refused here, before anything runs
    out = args.out or Path("runs") / f"{game.name}_vgreedy.npz"
    command = "python examples/value_greedy.py " + " ".join(sys.argv[1:] if argv is None else argv)
    t0 = time.perf_counter()
    datasets = []
    net = None
    for it in range(args.iterations):
        seed = args.seed + 1_000_003 * it
        if net is None:
            agent = GreedyAgent(game, seed=seed, samples=args.collect_samples)
        else:
            agent = ValueGreedyAgent(game, out, seed=seed, samples=args.collect_samples)

        def progress(done: int, total: int, it: int = it) -> None:
            if not args.no_progress and (done == total or done % max(1, total // 10) == 0):
                print(f"  iteration {it + 1}: {done}/{total} games ({time.perf_counter() - t0:.0f} s)", flush=True)

        tc = time.perf_counter()
        data = collect(game, agent, args.games, seed, num_players=players, parallel=args.parallel, progress=progress)
        datasets.append(data)
        print(f"iteration {it + 1}/{args.iterations}: {args.games} games with {agent.spec.split(':')[0]}, "
              f"{len(data['game']):,} decisions in {time.perf_counter() - tc:.0f} s", flush=True)
        net, stats = fit(game, datasets, args.horizon, hidden=args.hidden, epochs=args.epochs, seed=args.seed + it,
                         log=lambda line: print("  " + line, flush=True))
        net.meta.update({"weight": args.weight, "iterations": it + 1, "games": args.games * (it + 1),
                         "decisions": int(sum(len(d["game"]) for d in datasets)), "command": command,
                         "seconds": round(time.perf_counter() - t0, 1), "holdout_r2": round(stats["holdout_r2"], 4)})
        net.save(out)
        print(f"  saved {out} (held-out r2 {stats['holdout_r2']:.3f}, {time.perf_counter() - t0:.0f} s in all)",
              flush=True)
    result = {"out": str(out), "seconds": round(time.perf_counter() - t0, 1), **{k: net.meta[k] for k in (
        "decisions", "holdout_r2")}}
    if args.eval_games:
        from gamecore.tools.arena import head_to_head, play

        run = play(game, [f"vgreedy:{out}", "greedy"], num_players=players, games=args.eval_games,
                   seed=args.eval_seed)
        result["ahead_of_greedy"] = round(head_to_head(run)[0][1], 4)
        result["eval_games"] = len(run.results)
        print(f"vgreedy:{out} finished ahead of greedy in {result['ahead_of_greedy']:.2f} of {len(run.results)} "
              f"games (seed {args.eval_seed})", flush=True)
    print(json.dumps(result), flush=True)
    return result


if __name__ == "__main__":
    main()
