"""Random play two ways: one game through the PettingZoo AEC loop, then many batched games.

    python examples/random_play.py                          # Callisto, 2 players
    python examples/random_play.py --game calcada --players 3 --seed 7
    python examples/random_play.py --game calimala           # 3 players
    python examples/random_play.py --batch-envs 1024 --batch-games 4

Part 1 is the standard PettingZoo agent loop: every live agent picks a uniformly random legal action
from its ``action_mask``; agents that are done step with ``None``. The board is printed (``ansi``
render mode) at the end, with each seat's final reward.

Part 2 plays many games at once with :class:`gamecore.envs.batched.BatchedGames`: first through the
Python-driven ``step`` API (random legal actions picked in numpy), then inside one jitted call
(``random_rollout``), and prints games per second for both.
"""

from __future__ import annotations

import argparse
import importlib
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


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Random legal play: one AEC game, then a batched rollout benchmark.",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("--game", choices=sorted(GAMES), default="callisto", help="which game")
    p.add_argument("--players", type=int, default=None, help="number of seats (default: the game's smallest count)")
    p.add_argument("--seed", type=int, default=0, help="seed of the game and of the random moves")
    p.add_argument("--show-moves", action="store_true", help="print every move of the AEC game")
    p.add_argument("--batch-envs", type=int, default=256, help="games side by side in the batched part")
    p.add_argument("--batch-games", type=int, default=4, help="games per slot in the batched part")
    p.add_argument("--no-batch", action="store_true", help="skip the batched part")
    args = p.parse_args(argv)
    from gamecore.kernel.games import get_game

    game = get_game(args.game)
    if args.players is None:
        args.players = game.default_players
    if not game.min_players <= args.players <= game.max_players:
        p.error(f"--players must be between {game.min_players} and {game.max_players} for {args.game}")
    if args.batch_envs < 1 or args.batch_games < 1:
        p.error("--batch-envs and --batch-games must be positive")
    return args


def play_aec(game: str, players: int, seed: int, show_moves: bool = False) -> dict[str, Any]:
    """One game of random legal moves through the AEC API; returns final rewards and move count."""
    module = importlib.import_module(GAMES[game])
    env = module.env(num_players=players, render_mode="ansi")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    final: dict[str, float] = {}
    moves = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = float(reward)  # the agent's reward since it last acted: its final one
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            if show_moves:
                print(f"{moves:4d} {agent}: {env.unwrapped.action_to_string(action)}")
            moves += 1
        env.step(action)
    board = env.render()
    env.close()
    return {"rewards": final, "moves": moves, "board": board}


def batched_python_loop(game: str, players: int, num_envs: int, games_per_env: int, seed: int) -> dict:
    """Random legal actions picked in numpy, one ``BatchedGames.step`` per decision."""
    from gamecore.envs.batched import BatchedGames, random_opponent

    g = BatchedGames(game, num_envs, seed=seed, num_players=players)
    pick = random_opponent(seed)
    g.reset()
    g.step(pick(g.observations, g.masks))  # warm-up / jit
    g.reset()
    finished = np.zeros(num_envs, dtype=np.int64)
    decisions = 0
    t0 = time.perf_counter()
    while (finished < games_per_env).any():
        actions = pick(g.observations, g.masks)
        g.step(actions)
        decisions += num_envs
        finished += g.dones
    dt = time.perf_counter() - t0
    games = int(finished.sum())
    return {"games": games, "decisions": decisions, "seconds": dt, "games_per_s": games / dt}


def batched_jitted(game: str, players: int, num_envs: int, games_per_env: int, seed: int) -> dict:
    """``BatchedGames.random_rollout``: whole random games inside one jitted call."""
    from gamecore.envs.batched import BatchedGames

    g = BatchedGames(game, num_envs, seed=seed, num_players=players)
    g.random_rollout(1, seed=seed)  # warm-up (first call may load or compile the kernel)
    t0 = time.perf_counter()
    decisions = g.random_rollout(games_per_env, seed=seed + 1)
    dt = time.perf_counter() - t0
    games = num_envs * games_per_env
    return {"games": games, "decisions": decisions, "seconds": dt, "games_per_s": games / dt}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    result = play_aec(args.game, args.players, args.seed, args.show_moves)
    print(result["board"])
    print(f"{args.game}, {args.players} players, seed {args.seed}: {result['moves']} moves")
    for agent, r in result["rewards"].items():
        print(f"  {agent}: reward {r:+.2f}")
    if args.no_batch:
        return result
    loop = batched_python_loop(args.game, args.players, args.batch_envs, args.batch_games, args.seed)
    print(
        f"batched step loop: {loop['games']} games ({loop['decisions']} decisions) in {loop['seconds']:.2f} s"
        f" = {loop['games_per_s']:.0f} games/s"
    )
    jit = batched_jitted(args.game, args.players, args.batch_envs, args.batch_games, args.seed)
    print(
        f"batched random_rollout: {jit['games']} games ({jit['decisions']} decisions) in {jit['seconds']:.2f} s"
        f" = {jit['games_per_s']:.0f} games/s"
    )
    result["batched_step"] = loop
    result["batched_rollout"] = jit
    return result


if __name__ == "__main__":
    main()
