"""Shared test fixtures: the games under test and helpers to drive them.

Every game this distribution declares (the entry-point group ``tabletop_rl_envs.games`` of
``pyproject.toml``) is under test at every player count it supports (from the game's own limits);
a game installed beside it from a distribution of its own is that distribution's to test (the
conformance kit, ``gamecore.testing``, serves it). A game package that fails to import fails the
whole run here, at collection: it never drops out of the suite silently.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

import numpy as np
import pytest
import tomllib

from gamecore.kernel.games import GAMES
from gamecore.kernel.protocol import H_CURRENT
from gamecore.testing import play_random, random_legal  # noqa: F401  (the tests import them from here)

ROOT_DIR = Path(__file__).resolve().parent.parent
#: this distribution's games, name -> package, as its pyproject.toml declares them
OUR_GAMES: dict[str, str] = tomllib.loads((ROOT_DIR / "pyproject.toml").read_text())["project"]["entry-points"][
    "tabletop_rl_envs.games"]


def _import_all() -> dict[str, object]:
    modules = {}
    for name, package in OUR_GAMES.items():
        assert GAMES.get(name) == package, f"{name} is not in the registry: reinstall (pip install -e .)"
        modules[name] = importlib.import_module(package)  # an ImportError here fails the run
    return modules


MODULES = _import_all()
GAME_NAMES = list(OUR_GAMES)
GAME_PLAYERS = [(g, n) for g in GAME_NAMES for n in MODULES[g].GAME.player_counts]


def game_module(name: str):
    return MODULES[name]


def play_to_end(raw, rng: np.random.Generator, max_steps: int = 100_000) -> None:
    """Random legal decisions until the kernel state is terminal (dead agents not stepped)."""
    from gamecore.kernel.protocol import H_TERMINAL

    for _ in range(max_steps):
        if raw.state_array[H_TERMINAL]:
            return
        raw.step(random_legal(raw.observe(raw.agent_selection)["action_mask"], rng))
    raise AssertionError("game did not end")


def opening_seat(name: str) -> int:
    """The seat that takes the first decision of a fresh game at the default player count and
    options (Cultivo's setup opens with the seat before the start player)."""
    raw = game_module(name).raw_env()
    raw.reset(seed=0)
    return int(raw.state_array[H_CURRENT])


@pytest.fixture(params=GAME_NAMES)
def game_name(request) -> str:
    return request.param


# ---- running on every core ------------------------------------------------------------------------
# The suite runs under pytest-xdist (``-n auto`` in pyproject.toml). Before the workers start, the
# controller compiles every game's kernels into numba's cache, one subprocess per core
# (gamecore.tools.warmup), so that each worker loads them instead of compiling its own copy; a cache that
# is already warm costs a stamp check per game. The bounds-checked kernels of the fuzz tests are
# compiled the same way, once per run and game, by the first test that needs them
# (``boundscheck_env``).

_WARM: dict[str, float] = {}
ROOT = Path(__file__).resolve().parents[1]
#: where the bounds-checked kernels are cached (apart from the normal cache: numba's cache does not
#: tell bounds-checked machine code from unchecked)
BOUNDSCHECK_CACHE = Path(os.environ.get("FUZZ_CACHE_DIR", ROOT / ".numba-boundscheck-cache"))


def boundscheck_env(name: str, paths: tuple[str, ...] = ("aec",)) -> dict[str, str]:
    """The environment of a subprocess that runs ``name``'s kernels bounds-checked; the first call
    per run and game compiles them (under a lock, so a second worker waits instead of compiling
    them again), later ones find them cached."""
    import numba

    from gamecore.tools.warmup import warm_one

    cache = BOUNDSCHECK_CACHE / f"numba-{numba.__version__}"  # numba's cache holds one numba version
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(cache))
    warm_one(name, env, paths)
    return env


def run_bounds_checked(script: str, args: list[str], name: str, expect: str,
                       paths: tuple[str, ...] = ("aec",)) -> str:
    """Run ``tests/<script> <args>`` in a subprocess on ``name``'s bounds-checked kernels
    (:func:`boundscheck_env`; a kernel that indexed out of bounds raises there instead of crashing
    pytest) and check that it passed, printed ``expect`` and ran bounds-checked, with the checked
    forms of ``gamecore.kernel.bits``' unaligned loads and stores (``checked_stores=1``: numba's bounds
    checking does not see those); returns its stdout."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(Path(__file__).parent / script), *args],
                          env=boundscheck_env(name, paths), capture_output=True, text=True, timeout=3000)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-3000:]
    assert expect in proc.stdout and "boundscheck=1" in proc.stdout, proc.stdout[-2000:]
    assert "checked_stores=1" in proc.stdout, proc.stdout[-2000:]
    return proc.stdout


def interleaved(cases: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """(game, players) cases ordered so that consecutive ones are different games, the slowest to
    compile first: two workers that start them compile different games' kernels at once."""
    from gamecore.tools.warmup import longest_first

    order = longest_first(GAMES)

    def key(case):
        game, n = case
        return MODULES[game].GAME.player_counts.index(n), order.index(game)

    return sorted(cases, key=key)


#: modules whose tests take seconds to minutes each, run first (longest first) so that the short
#: tests fill the cores at the end instead of one long test running alone on one core
LONG_FIRST = ("test_fuzz.py", "test_state_sweep.py", "test_caching.py", "test_agents.py", "test_agent_inputs.py",
              "test_cultivo_reference.py", "test_machinery.py", "test_sb3_paths.py", "test_calimala_reference.py")


def pytest_collection_modifyitems(config, items):
    def rank(item):
        name = item.path.name
        return LONG_FIRST.index(name) if name in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: the order within a module is kept


def _distributed(config) -> bool:
    n = getattr(config.option, "numprocesses", None)
    return bool(n) and getattr(config.option, "dist", "no") != "no"


def pytest_sessionstart(session):
    config = session.config
    if hasattr(config, "workerinput") or not _distributed(config):
        return  # a worker, or a run in one process (kernels compile on first use)
    import time

    from gamecore.tools.warmup import warm

    t0 = time.perf_counter()
    _WARM.update(warm())
    _WARM["wall"] = time.perf_counter() - t0
    _WARM["done"] = time.time()


def _cache_files() -> list[Path]:
    """The index files of numba's cache of the project's kernels (where this run keeps them)."""
    from gamecore.kernel.jit import project_packages

    if os.environ.get("NUMBA_CACHE_DIR"):
        return list(Path(os.environ["NUMBA_CACHE_DIR"]).rglob("*.nbi"))
    return [f for pkg in project_packages() for f in (ROOT / pkg).glob("**/__pycache__/*.nbi")]


def _kernel_name(index: Path) -> str:
    """``calimala_env.rules.accessors.recount_board`` from the path of its cache index file (under
``NUMBA_CACHE_DIR``, whose folders name only the source's directory: ``rules.accessors.recount_board``)."""
    folder = index.parent
    if folder.name == "__pycache__":
        src = folder.parent
        package = ".".join(src.relative_to(ROOT).parts) if src.is_relative_to(ROOT) else src.name
    else:
        package = re.sub(r"_[0-9a-f]{40}$", "", folder.name)
    return f"{package}.{index.name.rsplit('-', 1)[0]}"


def pytest_terminal_summary(terminalreporter):
    if not _WARM:
        return
    wall, done = _WARM.pop("wall"), _WARM.pop("done")
    compiled = {g: s for g, s in _WARM.items() if s > 0}
    what = ", ".join(f"{g} {s:.0f} s" for g, s in compiled.items()) if compiled else "all cached"
    terminalreporter.write_line(f"kernels compiled before the workers started in {wall:.1f} s ({what})")
    # what the workers still compiled (a kernel specialisation the warm-up does not reach)
    later = sorted({_kernel_name(f) for f in _cache_files() if f.stat().st_mtime > done})
    terminalreporter.write_line(f"kernels the workers compiled after that: {len(later)}"
                                + (f" ({', '.join(later[:12])}{', ...' if len(later) > 12 else ''})" if later else ""))
