"""``python -m gamecore``: arena, play, record, replay and the README tables.

    python -m gamecore arena callisto --players 2 --agents random greedy mcts:200 ppo:runs/x.zip --games 400
    python -m gamecore play calcada --vs mcts:400                 # you are player_0
    python -m gamecore play callisto --players 3 --human 0 2 --vs greedy
    python -m gamecore record calcada --agents mcts:200 greedy --seed 3 --out game.json
    python -m gamecore replay game.json --out game.gif            # or game.png: a strip of frames
    python -m gamecore tables --games 96 --readme README.md       # the arena tables of the README

Agent specs are those of :func:`gamecore.agents.make_agent`; every game in
``gamecore.games.GAMES`` is accepted by name.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

from gamecore.games import GAMES, get_game


def _options(pairs: list[str] | None) -> dict[str, Any]:
    """``["board_side=B", "match=true"]`` -> game options (ints and booleans converted)."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq:
            raise SystemExit(f"--option takes key=value, got {pair!r}")
        v: Any = value
        if value.lower() in ("true", "false"):
            v = value.lower() == "true"
        elif re.fullmatch(r"-?\d+", value):
            v = int(value)
        out[key] = v
    return out


def _threads(k: int) -> None:
    import numba

    if k > 0:
        numba.set_num_threads(min(k, numba.config.NUMBA_NUM_THREADS))
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gamecore", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    games = sorted(GAMES)

    a = sub.add_parser("arena", help="seat-rotated games between agents, a table and ratings")
    a.add_argument("game", choices=games)
    a.add_argument("--players", type=int, default=None, help="seats (default: the game's default count)")
    a.add_argument("--agents", nargs="+", required=True, help="agent specs: random greedy mcts:200 ppo:PATH")
    a.add_argument("--games", type=int, default=400, help="at least this many games (whole deals)")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--parallel", type=int, default=64, help="games played side by side")
    a.add_argument("--threads", type=int, default=2, help="numba threads for the searches")
    a.add_argument("--option", action="append", help="game option key=value (e.g. board_side=B)")
    a.add_argument("--json", type=Path, default=None, help="write the summary and every game here")

    pl = sub.add_parser("play", help="play in the terminal against agents")
    pl.add_argument("game", choices=games)
    pl.add_argument("--players", type=int, default=None)
    pl.add_argument("--vs", nargs="+", default=["mcts:400"], help="the opponents' spec (one, or one per seat)")
    pl.add_argument("--human", nargs="+", default=["0"], help="people's seats, or 'all'")
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("--hint", default=None, help="agent giving hints (default: the first opponent)")
    pl.add_argument("--no-color", action="store_true")
    pl.add_argument("--load", type=Path, default=None, help="continue a saved game record")
    pl.add_argument("--save", type=Path, default=None, help="write the game record here at the end")
    pl.add_argument("--option", action="append")

    r = sub.add_parser("record", help="play one game between agents and write its record")
    r.add_argument("game", choices=games)
    r.add_argument("--agents", nargs="+", required=True, help="one spec per seat (or one for all)")
    r.add_argument("--players", type=int, default=None)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--option", action="append")
    r.add_argument("--out", type=Path, required=True)

    rp = sub.add_parser("replay", help="a game record as an animated GIF or a PNG strip")
    rp.add_argument("record", type=Path)
    rp.add_argument("--out", type=Path, required=True, help="*.gif (animation) or *.png (strip)")
    rp.add_argument("--every", type=int, default=1, help="draw every k-th decision (or turn)")
    rp.add_argument("--turns", action="store_true", help="a frame per turn instead of per decision")
    rp.add_argument("--viewer", default="public", help="public, all or a seat")
    rp.add_argument("--ms", type=int, default=600, help="milliseconds per GIF frame")
    rp.add_argument("--columns", type=int, default=4, help="strip: frames per row")
    rp.add_argument("--scale", type=float, default=0.5, help="strip: frame scale")

    t = sub.add_parser("tables", help="the README arena tables: random, greedy, mcts, the trained agent")
    t.add_argument("--games", type=int, default=96)
    t.add_argument("--mcts", type=int, nargs="*", default=[200],
                   help="MCTS budgets (simulations per decision); none with a bare --mcts")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--models", type=Path, default=Path("runs"), help="where <game>_maskppo.zip models are")
    t.add_argument("--only", nargs="+", choices=games, default=None, help="these games only")
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--readme", type=Path, default=None, help="rewrite this file's arena section")
    t.add_argument("--json-dir", type=Path, default=None, help="write each game's arena JSON here")
    return p


def cmd_arena(args: argparse.Namespace) -> dict[str, Any]:
    from gamecore import arena

    _threads(args.threads)
    run = arena.play(args.game, args.agents, args.players, games=args.games, seed=args.seed, parallel=args.parallel,
                     **_options(args.option))
    summary = arena.summarize(run)
    print(arena.format_table(summary))
    print(f"\n{summary['games']} games in {summary['seconds']:.0f} s")
    if args.json:
        arena.write_json(summary, run, args.json)
        print(f"wrote {args.json}")
    return summary


def _viewer(text: str, n: int) -> int:
    from gamecore.protocol import VIEW_ALL, VIEW_PUBLIC

    if text == "public":
        return VIEW_PUBLIC
    if text == "all":
        return VIEW_ALL
    if text.isdigit() and int(text) < n:
        return int(text)
    raise SystemExit(f"--viewer must be public, all or a seat 0..{n - 1}")


def cmd_play(args: argparse.Namespace) -> Any:
    from gamecore.play import TerminalGame
    from gamecore.replay import GameRecord

    spec = get_game(args.game)
    options = _options(args.option)
    record = GameRecord.load(args.load) if args.load else None
    n = args.players or (int(record.options["num_players"]) if record else spec.default_players)
    if args.human == ["all"]:
        humans = set(range(n))
    else:
        try:
            humans = {int(h) for h in args.human}
        except ValueError:
            raise SystemExit("--human takes seat numbers or 'all'") from None
    if not humans <= set(range(n)):
        raise SystemExit(f"--human seats must be 0..{n - 1}")
    others = [s for s in range(n) if s not in humans]
    if len(args.vs) not in (1, len(others)):
        raise SystemExit(f"--vs takes one spec or one per opponent seat ({len(others)})")
    seats = []
    for s in range(n):
        seats.append("human" if s in humans else (args.vs[0] if len(args.vs) == 1 else args.vs[others.index(s)]))
    _threads(1)
    session = TerminalGame(spec.name, seats, seed=record.seed if record else args.seed, options=options,
                           hint=args.hint, colour=False if args.no_color else None,
                           save=str(args.save) if args.save else None)
    if record is not None:
        session.command(f"load {args.load}", 0, [])
    return session.run()


def cmd_record(args: argparse.Namespace) -> Any:
    from gamecore.agents import aec_action, make_agent
    from gamecore.replay import GameRecord, make_env

    spec = get_game(args.game)
    n = args.players or (len(args.agents) if len(args.agents) > 1 else spec.default_players)
    if len(args.agents) not in (1, n):
        raise SystemExit(f"--agents takes one spec or one per seat ({n})")
    specs = args.agents * n if len(args.agents) == 1 else args.agents
    agents = [make_agent(s, spec, seed=args.seed * 31 + k) for k, s in enumerate(specs)]
    _threads(1)
    env = make_env(spec.name, num_players=n, **_options(args.option))
    env.reset(seed=args.seed)
    rec = GameRecord(spec.name, spec.params_to_options(env.params), args.seed, [],
                     {str(k): a.spec for k, a in enumerate(agents)})
    t0 = time.perf_counter()
    while not env.game_over:
        a = aec_action(agents[env.agent_name_mapping[env.agent_selection]], env)
        rec.actions.append(env.action_to_string(a))
        env.step(a)
    rec.save(args.out)
    print(f"{spec.name}: {len(rec.actions)} decisions in {time.perf_counter() - t0:.1f} s; wrote {args.out}")
    return rec


def cmd_replay(args: argparse.Namespace) -> Path:
    from gamecore.replay import GameRecord, frames, write_gif, write_strip

    rec = GameRecord.load(args.record)
    viewer = _viewer(args.viewer, int(rec.options["num_players"]))
    images = frames(rec, viewer=viewer, every=args.every, turns=args.turns)
    if args.out.suffix.lower() == ".gif":
        write_gif(images, args.out, ms_per_frame=args.ms)
    elif args.out.suffix.lower() == ".png":
        write_strip(images, args.out, columns=args.columns, scale=args.scale)
    else:
        raise SystemExit("--out must end in .gif or .png")
    print(f"{len(images)} frames -> {args.out} ({args.out.stat().st_size / 1024:.0f} KiB)")
    return args.out


BEGIN = "<!-- arena tables: begin (python -m gamecore tables; do not edit by hand) -->"
END = "<!-- arena tables: end -->"


def cmd_tables(args: argparse.Namespace) -> str:
    from gamecore import arena

    _threads(args.threads)
    blocks = []
    for name in args.only or sorted(GAMES):
        spec = get_game(name)
        agents = ["random", "greedy", *(f"mcts:{b}" for b in args.mcts)]
        model = args.models / f"{spec.name}_maskppo.zip"
        if model.is_file():
            agents.append(f"ppo:{model.as_posix()}")
        run = arena.play(spec.name, agents, spec.default_players, games=args.games, seed=args.seed)
        summary = arena.summarize(run)
        table = arena.format_table(summary)
        if not model.is_file():
            table += f"\n\n(no trained model at `{model.as_posix()}`: run `python examples/train.py --game {name}`)"
        print(table + f"\n({summary['seconds']:.0f} s)\n", flush=True)
        blocks.append(table)
        if args.json_dir:
            args.json_dir.mkdir(parents=True, exist_ok=True)
            arena.write_json(summary, run, args.json_dir / f"arena_{spec.name}.json")
    mcts = " ".join(["--mcts", *map(str, args.mcts)])
    command = (f"python -m gamecore tables --games {args.games} {mcts} --seed {args.seed}"
               + (f" --only {' '.join(args.only)}" if args.only else "") + (f" --readme {args.readme}"
                                                                              if args.readme else ""))
    text = f"{BEGIN}\nProduced by `{command}`.\n\n" + "\n\n".join(blocks) + f"\n{END}"
    if args.readme:
        readme = args.readme.read_text(encoding="utf-8")
        if BEGIN in readme and END in readme:
            head, rest = readme.split(BEGIN, 1)
            old, tail = rest.split(END, 1)
            if args.only:  # the other games' tables, with the commands that produced them, stay
                text = _merge_tables(old, blocks, command)
            readme = head + text + tail
        else:
            readme = readme.rstrip("\n") + "\n\n" + text + "\n"
        args.readme.write_text(readme, encoding="utf-8")
        print(f"updated {args.readme}")
    return text


def _merge_tables(old: str, blocks: list[str], command: str) -> str:
    """The arena section with ``blocks`` replacing (or joining) their games' tables; each game's
    table keeps a line naming the command that produced it."""
    games: dict[str, str] = {}
    produced = re.search(r"Produced by `([^`]*)`", old)
    current = produced.group(1) if produced else ""
    for part in re.split(r"\n\n(?=\S+, \d+ players: )", old.strip()):
        line = re.search(r"Produced by `([^`]*)`", part)
        if line:
            current = line.group(1)
            part = part[line.end():].lstrip(". \n")
        name = part.split(",", 1)[0]
        if part and name in GAMES:
            games[name] = f"{part}\n\n(`{current}`)" if not part.rstrip().endswith("`)") else part
    for block in blocks:
        games[block.split(",", 1)[0]] = f"{block}\n\n(`{command}`)"
    return f"{BEGIN}\n" + "\n\n".join(games[g] for g in sorted(games)) + f"\n{END}"


def main(argv: list[str] | None = None) -> Any:
    args = _parser().parse_args(argv)
    command = {"arena": cmd_arena, "play": cmd_play, "record": cmd_record, "replay": cmd_replay,
               "tables": cmd_tables}[args.command]
    try:
        return command(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


__all__ = ["main"]
