"""``python -m gamecore`` (or the console script ``tabletop-rl``): arena, play, record, replay, the
README tables and the warm-up.

    python -m gamecore arena GAME --players 2 --agents random greedy mcts:200 ppo:runs/x.zip --games 400
    python -m gamecore play GAME --vs mcts:400                    # you are player_0
    python -m gamecore play GAME --players 3 --human 0 2 --vs greedy
    python -m gamecore record GAME --agents mcts:200 greedy --seed 3 --out game.json
    python -m gamecore replay game.json --out game.gif            # or game.png: a strip of frames
    python -m gamecore tables --games 96 --readme README.md       # the arena tables of the README

Agent specs are those of :func:`gamecore.search.agents.make_agent`; ``GAME`` is the name of any
game in ``gamecore.kernel.games.GAMES``. ``--help`` is plain text: a description, the
examples above, every agent kind of :data:`gamecore.search.agents.AGENT_KINDS`, and each option's
default shown once (:class:`DefaultsHelpFormatter`, which the example scripts use too).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import re
import stat
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from gamecore.kernel.games import GAMES, get_game
from gamecore.kernel.options import one_line, short_repr
from gamecore.kernel.protocol import GameSpec
from gamecore.kernel.rng import check_seed
from gamecore.tools.replay import MAX_GIF_MS

if TYPE_CHECKING:
    from gamecore.search.agents import Agent
    from gamecore.tools.replay import GameRecord


MAX_GAMES = 10**9  # --games: far past any run, short of overflowing the schedule's arrays

#: the first lines of ``--help`` (plain text: the module docstring is reST)
DESCRIPTION = "The tabletop-rl games from the command line: arena, play, record, replay and the README tables."

#: a help text that states its option's default itself: "(default: ...)", "(default 50000)", "...; default: ..."
STATES_DEFAULT = re.compile(r"(?:^|[(;,]\s*)default\b|%\(default\)", re.IGNORECASE)


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """argparse's help with each option's default appended, ``(default: X)``, where the help text
    does not state the default itself. ``argparse.ArgumentDefaultsHelpFormatter`` appends it to
    every option: one whose help names its default prints two, one whose default is computed after
    parsing prints ``(default: None)``. Here nothing is appended for a default of None, an empty
    one, or a flag (off unless given); a list default is shown as it is typed (``mcts:400``)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        empty = default is None or default is argparse.SUPPRESS or (isinstance(default, (str, list, tuple))
                                                                     and not default)
        if (STATES_DEFAULT.search(text) or action.nargs == 0 or empty
                or not (action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE))):
            return action.help
        shown = " ".join(map(str, default)) if isinstance(default, (list, tuple)) else str(default)
        return f"{text} (default: {shown.replace('%', '%%')})"


class _CommandsFormatter(DefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """The top-level help: the description and the examples as written."""


def _agent_forms() -> str:
    """Every agent kind :func:`gamecore.search.agents.parse_spec` accepts, as typed: ``random greedy
    vgreedy:PATH mcts:N ...`` (from :data:`gamecore.search.agents.AGENT_KINDS`, so the help lists them all)."""
    from gamecore.search.agents import AGENT_KINDS

    takes = {"mcts": "N", "ppo": "PATH", "az": "PATH", "vgreedy": "PATH"}
    return " ".join(f"{kind}:{takes[kind]}" if kind in takes else kind for kind in AGENT_KINDS)


class UsageError(ValueError):
    """A bad command-line argument: :func:`main` prints it as argparse does (the usage, one
    ``error:`` line) and exits with status 2."""


def _fail(flag: str, message: str) -> NoReturn:
    raise UsageError(f"{flag}: {message}")


def _options(pairs: list[str] | None, spec: GameSpec) -> dict[str, Any]:
    """``["board_side=B", "match=true"]`` -> game options (ints and booleans converted): the
    game's own options only (the seat count is ``--players``), each named once."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        key = key.strip()
        if not eq or not key:
            _fail("--option", f"takes key=value, got {short_repr(pair)}")
        if key == "num_players":
            _fail("--option", "the number of seats is --players, not an option")
        if key not in spec.option_defaults:
            known = ", ".join(spec.option_defaults) or "none"
            _fail("--option", f"{spec.name} has no option {short_repr(key)}; its options: {known}")
        if key in out:
            _fail("--option", f"{key} given twice")
        v: Any = value
        if value.lower() in ("true", "false"):
            v = value.lower() == "true"
        elif re.fullmatch(r"-?\d+", value):
            v = int(value)
        out[key] = v
    return out


def _players(spec: GameSpec, players: int | None, options: dict[str, Any]) -> int:
    """The seat count, with the options checked by the game (``--players`` or ``--option`` named)."""
    if players is not None and players not in spec.player_counts:
        _fail("--players", f"{spec.name} is played by {spec.min_players}..{spec.max_players} players, got {players}")
    try:
        params = spec.make_params(players, **options)
    except (TypeError, ValueError) as exc:
        _fail("--option", str(exc))
    return int(params[0])


def _seed(seed: int, flag: str = "--seed", span: int = 1) -> int:
    try:
        return check_seed(seed, span)
    except (TypeError, ValueError) as exc:
        _fail(flag, str(exc))


def _count(value: int, flag: str, low: int, high: int | None = None) -> int:
    if high is not None and not low <= value <= high:
        _fail(flag, f"must be {low}..{high:,}, got {value}")
    if value < low:
        _fail(flag, f"must be at least {low}, got {value}")
    return value


def _is_terminal(path: Path) -> bool:
    """Whether ``path`` is a terminal (``--json /dev/stdout`` in an interactive shell)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


def _output(path: Path, flag: str) -> Path:
    """A file to write, checked before any game is played (a long run must not lose its results
    at the end): not a directory, in a directory that exists and takes a new file, and, if it
    exists, writable (opened for appending, nothing written) and not a device other than
    /dev/null or a terminal (/dev/full would fail only at the end, a disk device lose the results)."""
    if path.is_dir():
        _fail(flag, f"{path} is a directory; name a file")
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = 0
    device = stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
    if device and not os.path.samefile(path, os.devnull) and not _is_terminal(path):
        _fail(flag, f"cannot write {path}: a device, not a file (name a file, or {os.devnull} to discard)")
    if not path.parent.is_dir():
        _fail(flag, f"no directory {path.parent} to write {path.name} in")
    if path.exists():
        try:  # O_NONBLOCK: a FIFO without a reader is refused, not waited on
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK))
        except OSError as exc:
            _fail(flag, f"cannot write {path}: {exc.strerror or exc}")
    else:
        _writable_dir(path.parent, flag)
    return path


def _writable_dir(path: Path, flag: str) -> Path:
    """A directory that takes a new file: one is made there and removed (permissions, a read-only
    file system, a full one: whatever would refuse the results at the end refuses them now)."""
    try:
        fd, probe = tempfile.mkstemp(dir=path, prefix=".tabletop-rl-", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        _fail(flag, f"cannot write in {path}: {exc.strerror or exc}")
    return path


def _input(path: Path, flag: str) -> Path:
    if path.is_dir():
        _fail(flag, f"{path} is a directory; name a file")
    if not path.is_file():
        _fail(flag, f"no file {path}")
    return path


def _agents(specs: list[str], spec: GameSpec, seeds: list[int], flag: str) -> list[Agent]:
    """The agents of the specs (bad specs, and agents their constructors refuse, name ``flag``)."""
    from gamecore.search.agents import make_agent

    out = []
    for text, seed in zip(specs, seeds, strict=True):
        try:
            out.append(make_agent(text, spec, seed=seed))
        except (TypeError, ValueError, OSError, MemoryError, ImportError) as exc:  # ppo without sb3-contrib
            message = one_line(exc)
            _fail(flag, message if text in message else f"{short_repr(text)}: {message}")
    return out


def _record(path: Path, flag: str) -> GameRecord:
    from gamecore.tools.replay import GameRecord

    _input(path, flag)
    try:
        return GameRecord.load(path)
    except ValueError as exc:
        _fail(flag, str(exc))


def _threads(k: int) -> None:
    import numba

    if k > 0:
        numba.set_num_threads(min(k, numba.config.NUMBA_NUM_THREADS))
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def _parser(prog: str = "python -m gamecore") -> argparse.ArgumentParser:
    examples = textwrap.indent(textwrap.dedent(__doc__.split("\n\n")[1]), "  ").replace("python -m gamecore", prog)
    agents = _agent_forms()
    epilog = (f"examples:\n{examples}\n  (GAME: {', '.join(sorted(GAMES))})\n\n"
              f"agents: {agents}\n  (N: simulations per decision; PATH: a saved model; options after a comma,"
              "\n  e.g. mcts:200,c=0.7 or baseline:sims=200)")
    p = argparse.ArgumentParser(prog=prog, description=DESCRIPTION, epilog=epilog, formatter_class=_CommandsFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    games = sorted(GAMES)
    fmt = {"formatter_class": DefaultsHelpFormatter}
    seats = "seats (default: the game's default count)"
    option = "a game option key=value, e.g. board_side=B (repeat for more)"
    seed = "seed of the deals and the agents"
    threads = "numba threads for the searches; 0 leaves numba's setting"

    a = sub.add_parser("arena", help="seat-rotated games between agents, a table and ratings", **fmt,
                       description="Seat-rotated games between agents: a table per agent, head to head, ratings.")
    a.add_argument("game", choices=games, help="the game")
    a.add_argument("--players", type=int, default=None, help=seats)
    a.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help=f"agent specs, a row of the table each: {agents} (N: simulations per decision; PATH: a "
                        "saved model; options after a comma, e.g. mcts:200,c=0.7 or baseline:sims=200)")
    a.add_argument("--games", type=int, default=400,
                   help="at least this many games, rounded up to whole deals: a deal is played once in every "
                        "seating of the agents (3 agents at 2 seats: 6 seatings)")
    a.add_argument("--seed", type=int, default=0, help=seed)
    a.add_argument("--parallel", type=int, default=64, help="games played side by side")
    a.add_argument("--threads", type=int, default=2, help=threads)
    a.add_argument("--option", action="append", metavar="KEY=VALUE", help=option)
    a.add_argument("--json", type=Path, default=None, help="write the summary and every game here")
    a.add_argument("--no-progress", action="store_true",
                   help="no progress on stderr (default: a bar on a terminal, else a line every 10%%)")

    pl = sub.add_parser("play", help="play in the terminal against agents", **fmt,
                        description="Play in the terminal against agents (type ? at your turn for the commands).")
    pl.add_argument("game", choices=games, help="the game")
    pl.add_argument("--players", type=int, default=None, help=seats)
    pl.add_argument("--vs", nargs="+", default=["mcts:400"], metavar="SPEC",
                    help="the opponents' agent spec, as arena takes it (one for all, or one per opponent seat)")
    pl.add_argument("--human", nargs="+", default=["0"], metavar="SEAT", help="people's seats, or 'all'")
    pl.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents")
    pl.add_argument("--hint", default=None, metavar="SPEC", help="agent giving hints (default: the first opponent)")
    pl.add_argument("--no-color", action="store_true", help="draw the board without colour (also: NO_COLOR set)")
    pl.add_argument("--load", type=Path, default=None, help="continue a saved game record")
    pl.add_argument("--save", type=Path, default=None, help="write the game record here at the end")
    pl.add_argument("--option", action="append", metavar="KEY=VALUE", help=option)

    r = sub.add_parser("record", help="play one game between agents and write its record", **fmt,
                       description="Play one game between agents and write its record (JSON; replay draws it).")
    r.add_argument("game", choices=games, help="the game")
    r.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="agent specs, as arena takes them: one per seat (or one for all)")
    r.add_argument("--players", type=int, default=None,
                   help="seats (default: one per --agents spec; with one spec, the game's default count)")
    r.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents")
    r.add_argument("--option", action="append", metavar="KEY=VALUE", help=option)
    r.add_argument("--out", type=Path, required=True, help="the record to write (JSON)")

    rp = sub.add_parser("replay", help="a game record as an animated GIF or a PNG strip", **fmt,
                        description="Draw a game record as an animated GIF or a PNG strip of frames.")
    rp.add_argument("record", type=Path, help="a game record (record --out, play --save)")
    rp.add_argument("--out", type=Path, required=True, help="*.gif (animation) or *.png (strip)")
    rp.add_argument("--every", type=int, default=1, help="draw every k-th decision (or turn)")
    rp.add_argument("--turns", action="store_true", help="a frame per turn instead of per decision")
    rp.add_argument("--viewer", default="public", help="public, all or a seat")
    rp.add_argument("--ms", type=int, default=600, help="milliseconds per GIF frame")
    rp.add_argument("--columns", type=int, default=4, help="strip: frames per row")
    rp.add_argument("--scale", type=float, default=0.5, help="strip: frame scale")

    sub.add_parser("warmup", help="compile the games' kernels ahead of use (python -m gamecore warmup --help)",
                   add_help=False)
    t = sub.add_parser("tables", help="the README arena tables: random, greedy, mcts, the trained agent, the baseline",
                       **fmt, description="The README arena tables: for every game, an arena at its default seat "
                                          "count between random, greedy, mcts, the shipped baseline and any "
                                          "trained model named.")
    t.add_argument("--games", type=int, default=96,
                   help="at least this many games per table, rounded up to whole deals: a deal is played once in "
                        "every seating of the table's agents (5 agents at 2 seats: 20 seatings, so --games 2 plays "
                        "20 games); each table's count is printed before it starts")
    t.add_argument("--mcts", type=int, nargs="*", default=[200],
                   help="MCTS budgets (simulations per decision); none with a bare --mcts")
    t.add_argument("--seed", type=int, default=0, help=seed)
    t.add_argument("--models", type=Path, default=None, metavar="DIR",
                   help="add DIR/<game>_maskppo.zip (a model examples/train.py saved) to each game's table where it "
                        "exists; without it no model is read but the shipped baseline and --extra ppo:PATH")
    t.add_argument("--extra", nargs="+", default=[], metavar="SPEC",
                   help="more agents for every table, e.g. baseline:sims=200 or ppo:PATH (a baseline spec is left "
                        "out where the shipped baseline cannot be loaded: it needs the train extra)")
    t.add_argument("--only", nargs="+", choices=games, default=None, metavar="GAME",
                   help=f"these games only ({', '.join(games)})")
    t.add_argument("--threads", type=int, default=2, help=threads)
    t.add_argument("--readme", type=Path, default=None, help="rewrite this file's arena section")
    t.add_argument("--json-dir", type=Path, default=None, help="write each game's arena JSON here")
    t.add_argument("--no-progress", action="store_true",
                   help="no progress on stderr (default: a bar on a terminal, else a line every 10%%)")
    for command, parser in sub.choices.items():
        parser.set_defaults(run=COMMANDS[command], parser=parser)
    return p


def cmd_arena(args: argparse.Namespace) -> dict[str, Any]:
    from gamecore.tools import arena
    from gamecore.tools.progress import Progress

    spec = get_game(args.game)
    seed = _seed(args.seed)
    _count(args.games, "--games", 1, MAX_GAMES)
    _count(args.parallel, "--parallel", 1)
    _count(args.threads, "--threads", 0)
    options = _options(args.option, spec)
    n = _players(spec, args.players, options)
    if args.json:
        _output(args.json, "--json")
    agents = _agents(args.agents, spec, [seed * 1009 + j + 1 for j in range(len(args.agents))], "--agents")
    names = [a.spec for a in agents]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        _fail("--agents", f"{', '.join(twice)} given twice (each agent is a row of the table)")
    seatings = len(arena.seat_schedule(len(agents), n))
    _, side = arena.deals_side_by_side(seatings, args.games, args.parallel)
    _seed(seed, span=side * seatings)  # the games of a batch take streams seed, seed + 1, ...
    _threads(args.threads)
    bar = None if args.no_progress else Progress(args.games, "game", label=f"arena {spec.name}")
    try:
        run = arena.play(spec.name, agents, n, games=args.games, seed=seed, parallel=args.parallel,
                         progress=bar, **options)
    finally:
        if bar is not None:
            bar.close()
    summary = arena.summarize(run)
    print(arena.format_table(summary))
    print(f"\n{summary['games']} games in {summary['seconds']:.0f} s")
    if args.json:
        arena.write_json(summary, run, args.json)
        print(f"wrote {args.json}")
    return summary


def _viewer(text: str, n: int) -> int:
    from gamecore.kernel.protocol import VIEW_ALL, VIEW_PUBLIC

    if text == "public":
        return VIEW_PUBLIC
    if text == "all":
        return VIEW_ALL
    if re.fullmatch(r"[0-9]+", text) and int(text) < n:
        return int(text)
    _fail("--viewer", f"must be public, all or a seat 0..{n - 1}, got {short_repr(text)}")


def cmd_play(args: argparse.Namespace) -> Any:
    from gamecore.tools.play import TerminalGame
    from gamecore.tools.replay import replay_env

    spec = get_game(args.game)
    seed = _seed(args.seed)
    options = _options(args.option, spec)
    record = None
    if args.load:
        record = _record(args.load, "--load")
        if record.game != spec.name:
            _fail("--load", f"{args.load} is a game of {record.game}, not {spec.name}")
        try:
            replay_env(record)
        except ValueError as exc:
            _fail("--load", f"{args.load}: {exc}")
        theirs = int(record.options["num_players"])
        if args.players is not None and args.players != theirs:
            _fail("--players", f"{args.players}, but {args.load} is a game of {theirs} players")
        for key, value in options.items():
            if record.options.get(key) != value:
                _fail("--option", f"{key}={value!r}, but {args.load} has {key}={record.options.get(key)!r}")
        options = {k: v for k, v in record.options.items() if k != "num_players"}
        seed = record.seed
        n = _players(spec, theirs, options)
    else:
        n = _players(spec, args.players, options)
    if args.human == ["all"]:
        humans = set(range(n))
    else:
        if not all(re.fullmatch(r"[0-9]+", h) for h in args.human):
            _fail("--human", f"takes seat numbers 0..{n - 1} or 'all', got {' '.join(args.human)}")
        humans = {int(h) for h in args.human}
        if not humans <= set(range(n)):
            _fail("--human", f"seats are 0..{n - 1}, got {' '.join(args.human)}")
    others = [s for s in range(n) if s not in humans]
    if len(args.vs) not in (1, len(others)):
        _fail("--vs", f"takes one spec or one per opponent seat ({len(others)}), got {len(args.vs)}")
    if args.save:
        _output(args.save, "--save")
    seats = []
    for s in range(n):
        seats.append("human" if s in humans else (args.vs[0] if len(args.vs) == 1 else args.vs[others.index(s)]))
    _threads(1)
    session = TerminalGame(spec.name, seats, seed=seed, options=options, hint=args.hint,
                           colour=False if args.no_color else None, save=str(args.save) if args.save else None)
    if record is not None:
        session.command(f"load {args.load}", 0, [])
    return session.run()


def cmd_record(args: argparse.Namespace) -> Any:
    from gamecore.search.agents import aec_action
    from gamecore.tools.replay import GameRecord, make_env, outcome

    spec = get_game(args.game)
    seed = _seed(args.seed)
    options = _options(args.option, spec)
    players = args.players
    if players is None and len(args.agents) > 1:  # one spec per seat
        players = len(args.agents)
        if players not in spec.player_counts:
            _fail("--agents", f"{players} specs, but {spec.name} is played by {spec.min_players}..{spec.max_players}")
    n = _players(spec, players, options)
    if len(args.agents) not in (1, n):
        _fail("--agents", f"takes one spec or one per seat ({n}), got {len(args.agents)}")
    _output(args.out, "--out")
    specs = args.agents * n if len(args.agents) == 1 else args.agents
    agents = _agents(specs, spec, [seed * 31 + k for k in range(n)], "--agents")
    _threads(1)
    env = make_env(spec.name, num_players=n, **options)
    env.reset(seed=seed)
    rec = GameRecord(spec.name, spec.params_to_options(env.params), seed, [],
                     {str(k): a.spec for k, a in enumerate(agents)})
    from gamecore.kernel.jit import compile_seconds

    t0, compiled = time.perf_counter(), compile_seconds()  # the timing leaves compiling out
    while not env.game_over:
        seat = env.agent_name_mapping[env.agent_selection]
        try:
            a = aec_action(agents[seat], env)
            if a not in env.legal_actions():
                raise ValueError(f"returned {a}, not a legal decision")
        except Exception as exc:  # the game so far is kept (no result: it is unfinished)
            try:
                rec.save(args.out)
                saved = f"the game so far is saved in {args.out}"
            except OSError as err:
                saved = f"and saving the game so far in {args.out} failed too ({one_line(err)})"
            raise ValueError(f"the agent of seat {seat} ({agents[seat].spec}) failed after {len(rec.actions)} "
                             f"decisions: {one_line(exc)}; {saved}") from exc
        rec.actions.append(env.action_to_string(a))
        env.step(a)
    rec.result = outcome(spec.name, env.state_array)
    rec.save(args.out)
    seconds = time.perf_counter() - t0 - (compile_seconds() - compiled)
    print(f"{spec.name}: {len(rec.actions)} decisions in {seconds:.1f} s; wrote {args.out}")
    res = rec.result
    for s in sorted(range(n), key=lambda q: res["ranks"][q]):
        print(f"  {res['ranks'][s]}. {spec.player_name(s):<10} {rec.seats[str(s)]:<14} score {res['scores'][s]}")
    names = ", ".join(f"{spec.player_name(s)} ({rec.seats[str(s)]})" for s in res["winners"])
    print(f"winner: {names}" if len(res["winners"]) == 1 else f"tied first: {names}")
    return rec


def cmd_replay(args: argparse.Namespace) -> Path:
    from gamecore.tools.replay import frames, write_gif, write_strip

    kind = args.out.suffix.lower()
    if kind not in (".gif", ".png"):
        _fail("--out", f"must end in .gif (an animation) or .png (a strip), got {args.out}")
    _output(args.out, "--out")
    _count(args.every, "--every", 1)
    _count(args.ms, "--ms", 1, MAX_GIF_MS)
    _count(args.columns, "--columns", 1)
    if not math.isfinite(args.scale) or args.scale <= 0:
        _fail("--scale", f"must be a number > 0, got {args.scale}")
    rec = _record(args.record, "record")
    viewer = _viewer(args.viewer, int(rec.options["num_players"]))
    try:
        images = frames(rec, viewer=viewer, every=args.every, turns=args.turns)
    except ValueError as exc:
        _fail("record", f"{args.record}: {exc}")
    try:
        if kind == ".gif":
            write_gif(images, args.out, ms_per_frame=args.ms)
        else:
            write_strip(images, args.out, columns=args.columns, scale=args.scale)
    except ValueError as exc:
        _fail("--scale" if kind == ".png" else "--ms", str(exc))
    print(f"{len(images)} frames -> {args.out} ({args.out.stat().st_size / 1024:.0f} KiB)")
    return args.out


BEGIN = "<!-- arena tables: begin (python -m gamecore tables; do not edit by hand) -->"
END = "<!-- arena tables: end -->"


def cmd_tables(args: argparse.Namespace) -> str:
    from gamecore.search.agents import parse_spec, shipped_baseline
    from gamecore.tools import arena
    from gamecore.tools.progress import Progress

    _count(args.games, "--games", 1, MAX_GAMES)
    for budget in args.mcts:
        _count(budget, "--mcts", 1)
    for flag, values in (("--mcts", args.mcts), ("--only", args.only or [])):
        twice = sorted({str(v) for v in values if values.count(v) > 1})
        if twice:
            _fail(flag, f"{', '.join(twice)} given twice")
    _seed(args.seed)
    _count(args.threads, "--threads", 0)
    for extra in args.extra:
        try:
            parse_spec(extra)
        except ValueError as exc:
            _fail("--extra", one_line(exc))
    listed = ["random", "greedy", "baseline", *(f"mcts:{b}" for b in args.mcts)]
    twice = sorted({a for a in args.extra if a in listed or args.extra.count(a) > 1})
    if twice:
        _fail("--extra", f"{', '.join(twice)} is in every table already or given twice")
    if args.readme:
        _output(_input(args.readme, "--readme"), "--readme")  # rewritten at the end: writable now
    if args.json_dir:
        if args.json_dir.exists() and not args.json_dir.is_dir():
            _fail("--json-dir", f"{args.json_dir} is a file; name a directory")
        try:
            args.json_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _fail("--json-dir", one_line(exc))
        for name in args.only or sorted(GAMES):  # each game's file, as it will be written
            _output(args.json_dir / f"arena_{get_game(name).name}.json", "--json-dir")
    _threads(args.threads)
    blocks = []
    for name in args.only or sorted(GAMES):
        spec = get_game(name)
        agents = ["random", "greedy", *(f"mcts:{b}" for b in args.mcts)]
        # a trained model enters only where the command line names it (--models DIR, --extra ppo:PATH):
        # nothing is read from the working directory unasked
        model = args.models / f"{spec.name}_maskppo.zip" if args.models is not None else None
        if model is not None and model.is_file():
            agents.append(f"ppo:{model.as_posix()}")
        shipped = shipped_baseline(spec.name)
        baseline = shipped is not None
        # a ppo baseline needs sb3-contrib (the train extra), an az one torch
        needs = "sb3_contrib" if baseline and shipped.suffix == ".zip" else "torch"
        can_load = baseline and importlib.util.find_spec(needs) is not None
        if can_load:
            agents.append("baseline")
        agents += [a for a in args.extra if can_load or parse_spec(a)[0] != "baseline"]
        n = spec.default_players
        seatings = len(arena.seat_schedule(len(agents), n))
        deals, _ = arena.deals_side_by_side(seatings, args.games, 1)
        total = deals * seatings
        rounded = "rounded up to " if total != args.games else ""
        print(f"{spec.name}, {n} players: {len(agents)} agents ({', '.join(agents)}), {seatings} seatings; "
              f"--games {args.games} plays {deals} deal{'s' * (deals != 1)} x {seatings} seatings = {total} games "
              f"({rounded}whole deals, each played once in every seating)", flush=True)
        bar = None if args.no_progress else Progress(total, "game", label=f"tables {spec.name}")
        try:
            run = arena.play(spec.name, agents, n, games=args.games, seed=args.seed, progress=bar)
        finally:
            if bar is not None:
                bar.close()
        summary = arena.summarize(run)
        table = arena.format_table(summary)
        if model is not None and not model.is_file():
            table += f"\n\n(no trained model at `{model.as_posix()}`: run `python examples/train.py --game {name}`)"
        if baseline and "baseline" not in agents:
            table += (f"\n\n(the shipped `baseline` left out: it needs {needs.replace('_', '-')}, the `train` "
                      "extra)")
        print(table + f"\n({summary['seconds']:.0f} s)\n", flush=True)
        blocks.append(table)
        if args.json_dir:
            arena.write_json(summary, run, args.json_dir / f"arena_{spec.name}.json")
    mcts = " ".join(["--mcts", *map(str, args.mcts)])
    extra = f" --extra {' '.join(args.extra)}" if args.extra else ""
    models = f" --models {args.models.as_posix()}" if args.models is not None else ""
    command = (f"python -m gamecore tables --games {args.games} {mcts} --seed {args.seed}{extra}"
               + (f" --only {' '.join(args.only)}" if args.only else "") + models
               + (f" --readme {args.readme}" if args.readme else ""))
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


def main(argv: list[str] | None = None, prog: str = "python -m gamecore") -> Any:
    """Run a command line; a bad argument ends it as argparse does: the usage, one ``error:``
    line on stderr, exit status 2 (no traceback)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["warmup"]:  # its own parser (gamecore.tools.warmup), which a subprocess runs too
        from gamecore.tools import warmup

        return warmup.main(argv[1:], prog=f"{prog} warmup")
    args = _parser(prog).parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, OSError, MemoryError) as exc:
        args.parser.error(one_line(exc))


def console() -> None:
    """The ``tabletop-rl`` console script (``[project.scripts]``): :func:`main` under that name."""
    main(prog="tabletop-rl")


def cmd_warmup(args: argparse.Namespace) -> int:
    """Only reached through ``main`` with options the warm-up's own parser reads (see :func:`main`)."""
    from gamecore.tools import warmup

    return warmup.main([])


COMMANDS = {"arena": cmd_arena, "play": cmd_play, "record": cmd_record, "replay": cmd_replay, "tables": cmd_tables,
            "warmup": cmd_warmup}

__all__ = ["main", "console", "UsageError", "DefaultsHelpFormatter"]
