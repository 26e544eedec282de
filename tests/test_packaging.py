"""Packaging facts a user relies on: the declared lower bounds are the versions CI tests, the
optional extras exist for every toolkit the README names, and every package ships ``py.typed``."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tomllib

from conftest import OUR_GAMES as GAMES
from gamecore.kernel.games import game_package

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _lower_bounds(requirements: list[str]) -> dict[str, str]:
    bounds = {}
    for req in requirements:
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)(\[[^\]]*\])?>=([0-9.]+)", req.replace(" ", ""))
        assert m, f"declare a lower bound as name>=version: {req!r}"
        bounds[m.group(1).lower()] = m.group(3)
    return bounds


def test_the_minimum_versions_ci_installs_are_the_declared_lower_bounds():
    declared = _lower_bounds(PYPROJECT["project"]["dependencies"])
    pinned = {}
    for line in (ROOT / ".ci" / "min-versions.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pinned[name.lower()] = version
    assert set(pinned) == set(declared), "pin exactly the core dependencies"
    for name, version in declared.items():
        parts = version.split(".")
        assert pinned[name].split(".")[: len(parts)] == parts and set(pinned[name].split(".")[len(parts):]) <= {"0"}, (
            f"{name}: CI tests {pinned[name]} but pyproject.toml declares >={version}"
        )


def test_every_toolkit_has_an_extra():
    extras = PYPROJECT["project"]["optional-dependencies"]
    for extra in ("train", "rllib", "tianshou", "torchrl", "test", "dev"):
        assert extra in extras
    assert any(r.startswith("ray[rllib]") for r in extras["rllib"])


@pytest.mark.parametrize("package", ["gamecore", *GAMES.values()])
def test_every_package_is_typed(package):
    assert (ROOT / package / "py.typed").is_file(), f"{package}/py.typed marks the package as typed (PEP 561)"
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["*"]


@pytest.mark.slow
def test_the_wheel_ships_py_typed_for_every_package(tmp_path):
    from gamecore.search.agents import BASELINE_FILES

    # build isolation: pip fetches the build backend pyproject.toml asks for (a venv's own setuptools
    # may be too old, or lack the wheel command)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    # a deprecation warned by the build backend is a build that stops working on a named date
    warned = [line for line in (build.stdout + build.stderr).splitlines() if "deprecat" in line.lower()]
    assert not warned, warned
    (wheel,) = tmp_path.glob("tabletop_rl_envs-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in ["gamecore", *GAMES.values()]:
        assert f"{package}/py.typed" in names
        # every module, those of subpackages too (Cultivo's and Calimala's rules/ packages)
        modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / package).rglob("*.py")}
        assert modules <= names, sorted(modules - names)
        for model in BASELINE_FILES:  # the shipped baseline, and what it is
            if (ROOT / package / "baseline" / model).is_file():
                assert {f"{package}/baseline/{model}", f"{package}/baseline/README.md"} <= names
    assert {"callisto_env/baseline/maskppo.zip", "calcada_env/baseline/vgreedy.npz",
            "cultivo_env/baseline/vgreedy.npz"} <= names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[console_scripts]" in text and "tabletop-rl = gamecore.tools.cli:console" in text


def test_the_console_script_runs_the_cli_under_its_own_name():
    """``pip install`` puts ``tabletop-rl`` beside the interpreter (CI installs every venv that way);
    it is ``python -m gamecore`` under another name: same commands, its own name in the usage."""
    script = Path(sys.executable).with_name("tabletop-rl")
    assert script.is_file(), f"{script} missing: is the package installed in this venv (pip install -e .)?"
    assert PYPROJECT["project"]["scripts"] == {"tabletop-rl": "gamecore.tools.cli:console"}
    help_ = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert help_.returncode == 0, help_.stderr
    assert help_.stdout.startswith("usage: tabletop-rl ") and "arena" in help_.stdout and "record" in help_.stdout
    bad = subprocess.run([str(script), "arena", "no-such-game"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "usage: tabletop-rl arena" in bad.stderr and "Traceback" not in bad.stderr


REGISTRY_PROBE = r"""
import sys, gymnasium, pettingzoo
import {module}
from gamecore.kernel.games import GAMES
loaded = sorted(p for p in GAMES.values() if p + ".rules" in sys.modules or p + ".game" in sys.modules)
ids = sorted(k for k in pettingzoo.aec_registry if k.split("-")[0] in GAMES)
gym_ids = sorted(k for k in gymnasium.registry if k.startswith("tabletop-rl-envs/"))
print(loaded, ids, gym_ids)
"""


@pytest.mark.parametrize("module", ["gamecore.envs", "callisto_env.env", "cultivo_env.env"])
def test_importing_the_envs_or_any_game_env_registers_every_game_and_loads_no_other(module):
    out = subprocess.run([sys.executable, "-c", REGISTRY_PROBE.format(module=module)], capture_output=True,
                         text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    loaded, ids, gym_ids = (eval(part) for part in out.stdout.strip().replace("] [", "]|[").split("|"))
    # the other games' kernels and specs stay unloaded (their packages' light __init__ registered them)
    assert loaded == ([] if module == "gamecore.envs" else [module.partition(".")[0]])
    env_ids = [game_package(name).env_id for name in GAMES]
    assert ids == sorted(env_ids)
    assert gym_ids == sorted(f"tabletop-rl-envs/{i.capitalize()}" for i in env_ids)


def test_every_game_env_id_is_the_registered_one():
    from gamecore.envs.registration import env_id
    from gamecore.kernel.games import get_game

    for name in GAMES:
        assert get_game(name).env_id == env_id(name)


def test_a_game_registered_by_another_package_makes_its_env():
    probe = ("import callisto_env.env, gymnasium, pettingzoo\n"
             "e = pettingzoo.make('aec', 'calcada-v1'); e.reset(seed=0)\n"
             "g = gymnasium.make('tabletop-rl-envs/Calcada-v1'); g.reset(seed=0)\n"
             "print(type(e.unwrapped).__module__, g.unwrapped.game.name)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[0].startswith("calcada_env")
