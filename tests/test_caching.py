"""Compiled kernels are cached across processes, never stale, and importing works where nothing
can be written.

These run fresh interpreters (numba's cache is per process) against private cache directories, on
a copy of the project's packages where a test edits sources."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GAME_NAMES
from conftest import OUR_GAMES as GAMES
from gamecore.kernel import jit as gjit

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

PROBE = r"""
import json, sys, warnings
warnings.simplefilter("always")
caught = []
warnings.showwarning = lambda m, c, *a, **k: caught.append(f"{c.__name__}: {m}")
import numpy as np
from gamecore.envs.batched import BatchedGames
from gamecore.kernel.batch_kernels import build
name = sys.argv[1]
b = BatchedGames(name, 4, seed=0)
obs, masks = b.reset()
reset = build(b.game.kernels)[0].kernel.serial  # one thread: the serial copy
stats = {"hits": sum(reset.stats.cache_hits.values()), "misses": sum(reset.stats.cache_misses.values())}
from gamecore.kernel.protocol import H_NPLAYERS
print(json.dumps({"stats": stats, "state0": [int(x) for x in b.states[0]], "warnings": caught,
                  "obs_sum": int(obs.sum())}))
"""


def run_probe(game: str, cache_dir: Path | None, cwd: Path = ROOT, prelude: str = "") -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env["PYTHONPATH"] = str(cwd)
    proc = subprocess.run([sys.executable, "-c", prelude + PROBE, game], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "stderr": proc.stderr}


def notices(probe: dict) -> list[str]:
    return [ln for ln in probe["stderr"].splitlines() if ln.startswith("tabletop-rl-envs: compiling")]


def _normal(notice: str) -> str:
    """A notice with its seconds as N and without the busy machine's rescaled estimate."""
    return re.sub(r"~\d+ s", "~N s", re.sub(r", perhaps ~\d+ s at this machine's load \([^)]*\)", "", notice))


def test_the_cache_stamps_are_installed():
    """If numba's caching internals move, this fails in CI instead of kernels going stale quietly."""
    from numba.core import caching

    assert gjit.CACHE_STAMPED
    names = [cls.__name__ for cls in caching.CacheImpl._locator_classes]
    assert names[0].startswith("Stamped") and names[-1] == "TempDirLocator"


def test_every_module_with_kernels_is_a_kernel_source():
    """Cache stamps cover exactly the kernel sources: a jitted function anywhere else would escape
    them, so its edits could leave stale machine code behind."""
    sources = set(gjit.kernel_sources())
    assert {ROOT / "cultivo_env" / "rules" / "travel.py", ROOT / "calimala_env" / "rules" / "mat.py"} <= sources
    for pkg in ("gamecore", *GAMES.values()):
        for path in sorted((ROOT / pkg).rglob("*.py")):  # subpackages too (Cultivo's and Calimala's rules/)
            text = path.read_text()
            if any(d in text for d in ("@jit", "@ijit", "@pjit", "njit(", "@intrinsic")):  # intrinsics inline
                assert path in sources or path.name == "jit.py", f"{path.relative_to(ROOT)} holds kernels"


def test_kernels_of_a_rules_package_are_stamped_too():
    """Cultivo's and Calimala's rules are packages (``<game>_env/rules/*.py``): their kernels get the
    stamped locators, and the digest of their game covers every module of the package."""
    from calimala_env.rules import accessors
    from cultivo_env.rules import travel

    for module, kernel in ((travel, travel.travel_search), (accessors, accessors.recount_board)):
        path = Path(module.__file__)
        assert gjit._project_package(str(path)) == module.__name__.partition(".")[0]
        assert type(kernel._cache._impl.locator).__name__.startswith("Stamped")
        assert set(path.parent.glob("*.py")) <= set(gjit.kernel_sources(module.__name__.partition(".")[0]))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_second_process_loads_every_batched_kernel_from_the_cache(name):
    """On the cache the suite itself uses (its kernels are compiled there once, before the workers
    start): the first probe may compile what is missing, the second loads everything. That a cold
    cache starts with misses and then serves hits is shown on a private cache by the next test."""
    shared = os.environ.get("NUMBA_CACHE_DIR")
    first = run_probe(name, Path(shared) if shared else None)
    second = run_probe(name, Path(shared) if shared else None)
    assert second["stats"] == {"hits": 1, "misses": 0}
    assert second["state0"] == first["state0"]


def _copy_project(dst: Path) -> None:
    for pkg in ("gamecore", *GAMES.values()):
        shutil.copytree(ROOT / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__"))


def test_a_docstring_edit_recompiles_nothing_and_a_rules_edit_recompiles_what_uses_it(tmp_path):
    proj = tmp_path / "proj"
    _copy_project(proj)
    cache = tmp_path / "cache"
    base = run_probe("calcada", cache, cwd=proj)
    assert base["stats"]["misses"] >= 1
    # a cold start says once, before compiling, what it is doing and about how long it takes: the
    # batched kernels, with the game's own kernels that they call
    assert [_normal(ln) for ln in notices(base)] == [
        "tabletop-rl-envs: compiling Calçada batched kernels and the Calçada kernels they call, once: ~N s on an "
        "idle 2-core machine (numba; later runs load them from the cache)"]
    rules = proj / "calcada_env" / "rules.py"
    layout = proj / "calcada_env" / "layout.py"
    # a docstring (and comments) edited, lines shifted: every kernel still loads from the cache
    text = rules.read_text()
    rules.write_text(text.replace('"""Calçada rules as numba kernels', '"""Edited.\n\n\n# a comment\nCalçada rules as '
                                  'numba kernels', 1).replace('"""Take the top tile', '"""Edited: take the top tile'))
    assert rules.read_text() != text
    after_doc = run_probe("calcada", cache, cwd=proj)
    assert after_doc["stats"] == {"hits": 1, "misses": 0}
    assert notices(after_doc) == []  # loading from the cache is silent
    # a rule edited in the data the kernels read: the batched kernels recompile and play the new rule
    lay = layout.read_text()
    assert "STARTING_BONUS = 2" in lay
    layout.write_text(lay.replace("STARTING_BONUS = 2", "STARTING_BONUS = 3"))
    after_rule = run_probe("calcada", cache, cwd=proj)
    assert after_rule["stats"]["misses"] >= 1
    assert len(notices(after_rule)) == 1
    from calcada_env import layout as L

    assert base["state0"][L.BONUS] == 2 and after_rule["state0"][L.BONUS] == 3


PUCT_SNIPPET = """
import numpy as np
from gamecore.envs.batched import BatchedGames
from gamecore.search.puct import puct_search, uniform_evaluator
games = BatchedGames("calcada", num_envs=8, seed=0, num_players=2)
games.reset()
res = puct_search("calcada", games.states, uniform_evaluator, 16, seeds=np.arange(8))
"""
AGENTS_SNIPPET = """
import calcada_env
from gamecore.search.agents import aec_action, make_agent
env = calcada_env.env(num_players=2)
env.reset(seed=0)
for spec in ("mcts:4", "greedy"):
    env.step(aec_action(make_agent(spec, "calcada", seed=0), env))
"""
AEC_SNIPPET = """
import numpy as np
import calcada_env
env = calcada_env.env(num_players=2)
env.reset(seed=3)
for _ in range(40):
    if env.game_over:
        break
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
env.set_state(env.get_state())
"""


def _notices_of(code: str, cache: Path, cwd: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_") and k != "TABLETOP_RL_COMPILE_NOTICE"}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(cwd))
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return notices({"stderr": proc.stderr})


def test_a_later_process_names_what_it_compiles_that_an_earlier_one_did_not(tmp_path):
    """Issue 49: on one cold cache, the PUCT snippet, then an MCTS and a greedy decision, then the
    PUCT snippet again, then the AEC env. Each search agent's kernels compile on its first use, so
    the second process compiles some: its notices name those (MCTS, greedy) and repeat none of the
    first's; the third compiles nothing and says nothing; anything the AEC env still compiles is
    named as more of the game's kernels, not as the game's kernels all over again."""
    proj = tmp_path / "proj"  # a copy: sources edited under the test would recompile everything
    _copy_project(proj)
    cache = tmp_path / "cache"
    first = _notices_of(PUCT_SNIPPET, cache, proj)
    second = _notices_of(AGENTS_SNIPPET, cache, proj)
    third = _notices_of(PUCT_SNIPPET, cache, proj)
    fourth = _notices_of(AEC_SNIPPET, cache, proj)

    def what(notice: str) -> str:
        return notice.partition(", once")[0]

    assert what(first[0]) == "tabletop-rl-envs: compiling Calçada batched kernels and the Calçada kernels they call"
    assert "tabletop-rl-envs: compiling Calçada search kernels (PUCT)" in map(what, first)
    assert {what(n) for n in second} >= {"tabletop-rl-envs: compiling Calçada search kernels (MCTS)",
                                         "tabletop-rl-envs: compiling Calçada search kernels (greedy)"}
    assert not {what(n) for n in second} & {what(n) for n in first}, (first, second)
    assert third == []
    for notices_ in (first, second, fourth):
        for n in notices_:
            if "Calçada kernels" in what(n) and "batched" not in what(n):
                assert n.startswith("tabletop-rl-envs: compiling more Calçada kernels: "), n


READ_ONLY = r"""
import os, tempfile
_real = tempfile.TemporaryFile
def _no_writes(*args, dir=None, **kwargs):
    if dir is not None and not str(dir).startswith(os.environ.get("WRITABLE", "\0")):
        raise PermissionError(13, "read-only file system", dir)
    return _real(*args, dir=dir, **kwargs)
tempfile.TemporaryFile = _no_writes
"""


def test_import_works_where_no_cache_directory_is_writable(tmp_path):
    """A read-only install with a read-only home and temp dir: kernels compile uncached, with one
    clear warning, instead of the import failing with numba's 'no locator available'."""
    out = run_probe("callisto", None, prelude=READ_ONLY)
    uncached = [w for w in out["warnings"] if "no writable numba cache directory" in w]
    assert len(uncached) == 1, out["warnings"]
    assert "NUMBA_CACHE_DIR" in uncached[0]
    assert out["stats"] == {"hits": 0, "misses": 1}


def test_a_read_only_install_falls_back_to_a_cache_under_the_temp_dir(tmp_path):
    os.environ["WRITABLE"] = gjit._fallback_cache_dir()
    try:
        first = run_probe("callisto", None, prelude=READ_ONLY)
        second = run_probe("callisto", None, prelude=READ_ONLY)
    finally:
        del os.environ["WRITABLE"]
    assert not [w for w in first["warnings"] + second["warnings"] if "numba" in w]
    assert second["stats"] == {"hits": 1, "misses": 0}
