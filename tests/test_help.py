"""Every command's ``--help`` (issue 49, item 6): ``python -m gamecore`` and each of its commands,
the ``tabletop-rl`` console script, ``python -m gamecore warmup`` and every script of
``examples/`` and ``benchmarks/`` with an argparse CLI. Each exits 0 and prints plain text (no
reStructuredText markup), every option with a help text, no default twice, no ``(default: None)``;
the arena's lists every agent kind the spec parser accepts.

Run in this process (the scripts' parsers, not subprocesses): a second or so in all."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gamecore.search.agents import AGENT_KINDS
from gamecore.tools import cli, warmup

ROOT = Path(__file__).resolve().parents[1]
#: the scripts with a command line: examples/*.py and benchmarks/*.py that build an ArgumentParser
SCRIPTS = sorted(p.relative_to(ROOT).as_posix() for folder in ("examples", "benchmarks")
                 for p in (ROOT / folder).glob("*.py") if "ArgumentParser(" in p.read_text(encoding="utf-8"))
REST = ("``", ":func:", ":mod:", ":class:", ":meth:", ":data:", ":attr:")
#: a help text stating a default: "(default: X)", "(default 50000)", "...; default: X"
DEFAULT = re.compile(r"(?:\(|[;,]\s)default\b", re.IGNORECASE)
ARG_SECTIONS = ("positional arguments:", "options:", "optional arguments:")


def _help(run: Callable[[list[str]], object], argv: list[str], capsys) -> str:
    """What ``run(argv + ["--help"])`` prints; it must exit (or return) 0."""
    code: object = 0
    try:
        returned = run([*argv, "--help"])
        code = returned if isinstance(returned, int) else 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    assert code == 0, f"{argv} --help exited {code}:\n{out}{err}"
    assert out.startswith("usage: "), out + err
    return out + err


def entries(text: str) -> dict[str, str]:
    """Each argument of a help text (its invocation, e.g. ``--games GAMES``) -> its help text
    ("" where it has none). Entries start 2 (a subcommand: 4) spaces in; their help continues on
    lines indented further, or after two spaces on the same line."""
    out: dict[str, str] = {}
    section = False
    current = None
    for line in text.splitlines():
        if not line.strip():
            section = False
            continue
        if not line.startswith(" "):
            section = line.strip() in ARG_SECTIONS
            continue
        if not section:
            continue
        indent = len(line) - len(line.lstrip())
        if indent in (2, 4):
            if indent == 4 and current is not None and not out[current]:
                del out[current]  # {a,b,c} above its subcommands, each listed with its help
            invocation, _, help_ = line.strip().partition("  ")
            current = invocation
            out[current] = help_.strip()
        elif current is not None:
            out[current] = f"{out[current]} {line.strip()}".strip()
    return out


def check(text: str, where: str) -> dict[str, str]:
    assert "unknown" not in text.lower(), f"{where}:\n{text}"
    markup = [m for m in REST if m in text]
    assert not markup, f"{where}: reST markup {markup} in:\n{text}"
    assert "(default: None)" not in text, f"{where}:\n{text}"
    found = entries(text)
    assert found, f"{where}: no arguments found in:\n{text}"
    for invocation, help_ in found.items():
        assert help_, f"{where}: {invocation} has no help text"
        assert len(DEFAULT.findall(help_)) <= 1, f"{where}: {invocation} states two defaults: {help_}"
    return found


def _subcommands(text: str) -> list[str]:
    usage = text.split("\n\n", 1)[0]
    m = re.search(r"\{([\w,-]+)\} \.\.\.", usage)
    return m.group(1).split(",") if m else []


def walk(run: Callable[[list[str]], object], where: str, capsys) -> dict[str, str]:
    """The help of ``run`` and of each of its subcommands, checked; {"": top, command: its help}."""
    top = _help(run, [], capsys)
    check(top, where)
    helps = {"": top}
    for command in _subcommands(top):
        helps[command] = _help(run, [command], capsys)
        check(helps[command], f"{where} {command}")
    return helps


def test_python_m_gamecore_help_for_every_command(capsys):
    helps = walk(cli.main, "python -m gamecore", capsys)
    assert set(helps) == {"", *cli.COMMANDS}
    assert helps[""].startswith("usage: python -m gamecore ")
    # arena: every agent kind the spec parser accepts (random, greedy, vgreedy:PATH, mcts:N, ppo:PATH,
    # baseline, az:PATH), in the --agents help itself
    agents = next(h for inv, h in entries(helps["arena"]).items() if inv.startswith("--agents"))
    for kind in AGENT_KINDS:
        assert re.search(rf"(?<![\w:]){kind}\b", agents), f"arena --help leaves out {kind}: {agents}"
    # tables: what --games counts, and every game ships a baseline (no "a game that ships no baseline")
    tables = entries(helps["tables"])
    games = next(h for inv, h in tables.items() if inv.startswith("--games"))
    assert "whole deals" in games and "every seating" in games, games
    assert "ships no baseline" not in helps["tables"]


def test_the_console_script_help_is_plain_text(capsys, monkeypatch):
    """``tabletop-rl --help``: the console script's entry point, in this process."""
    monkeypatch.setattr(sys, "argv", ["tabletop-rl", "--help"])
    text = _help(lambda argv: cli.console(), [], capsys)
    check(text, "tabletop-rl")
    assert text.startswith("usage: tabletop-rl ") and "python -m gamecore" not in text


def test_warmup_help(capsys):
    check(_help(warmup.main, [], capsys), "python -m gamecore warmup")


def _load(path: str, monkeypatch):
    name = "help_" + re.sub(r"\W", "_", path)
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # where its dataclasses look themselves up
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:  # a toolkit this venv lacks, imported at the top
        pytest.skip(f"{path}: {exc}")
    return module


@pytest.mark.parametrize("path", SCRIPTS)
def test_script_help(path, capsys, monkeypatch):
    module = _load(path, monkeypatch)
    run = getattr(module, "parse_args", None) or module.main
    walk(run, path, capsys)


def test_every_script_with_a_command_line_is_walked():
    assert {"examples/train.py", "examples/tianshou_dqn.py", "examples/torchrl_reinforce.py",
            "benchmarks/notice_seconds.py", "benchmarks/replay_timing.py"} <= set(SCRIPTS)
