"""gamecore is a platform: four layers, each importing only from itself and the layers below; the
kernel layer and every game's kernel modules import neither gymnasium nor pettingzoo; and no line of
gamecore names a game or imports one (every fact about a game lives in its package)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gamecore.kernel.games import GAMES, game_package

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "gamecore"
#: lowest first; a module of gamecore's top level (``__init__``, ``__main__``, ``testing``) is above all
LAYERS = ("kernel", "envs", "search", "tools")


def _layer(module: str) -> int:
    parts = module.split(".")
    if parts[0] != "gamecore" or len(parts) < 2 or parts[1] not in LAYERS:
        return len(LAYERS)
    return LAYERS.index(parts[1])


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in a file, function-level ones included."""
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package
                base = ".".join(module.split(".")[: -node.level] + ([base] if base else []))
            out += [(node.lineno, f"{base}.{a.name}" if _layer(f"{base}.{a.name}") < len(LAYERS) and base == "gamecore"
                     else base) for a in node.names]
    return out


def _core_modules() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py") if "__pycache__" not in p.parts)


def test_gamecore_is_four_layers_and_no_layer_imports_a_higher_one():
    assert sorted(p.name for p in CORE.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(LAYERS)
    bad = []
    for path in _core_modules():
        mine = _layer(".".join(path.relative_to(ROOT).with_suffix("").parts))
        for line, module in _imports(path):
            if module.startswith("gamecore.") and _layer(module) > mine:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, "\n".join(bad)


def _game_words() -> list[str]:
    words = set()
    for name in GAMES:
        entry = game_package(name)
        words |= {entry.name, entry.package, entry.title}
    return sorted(words)


def test_no_line_of_gamecore_names_a_game_or_imports_one():
    words = _game_words()
    pattern = re.compile("|".join(re.escape(w) for w in words) + "|calcada|calçada", re.IGNORECASE)
    bad = []
    for path in _core_modules():
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
        for line, module in _imports(path):
            if module.partition(".")[0] in GAMES.values():
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not bad, f"{len(bad)} lines:\n" + "\n".join(bad[:60])


KERNEL_PROBE = r"""
import importlib, sys
for m in {modules!r}:
    importlib.import_module(m)
print(sorted(k for k in ("gymnasium", "pettingzoo", "torch", "stable_baselines3") if k in sys.modules))
"""


@pytest.mark.parametrize("package", ["gamecore", *GAMES.values()])
def test_importing_kernel_modules_imports_neither_gymnasium_nor_pettingzoo(package):
    """protocol.py's rule: a kernel module runs without the env machinery (a process that only steps
    kernels, a Ray worker of the batched path, loads none of it)."""
    if package == "gamecore":
        modules = sorted(f"gamecore.kernel.{p.stem}" for p in (CORE / "kernel").glob("*.py") if p.stem != "__init__")
    else:
        folder = ROOT / package
        modules = [f"{package}.layout", *(f"{package}.{p.stem}" for p in folder.glob("rules*.py")),
                   *(f"{package}.rules.{p.stem}" for p in (folder / "rules").glob("*.py"))]
        modules = [m for m in modules if not m.endswith("__init__")] + [package]
    out = subprocess.run([sys.executable, "-c", KERNEL_PROBE.format(modules=modules)], capture_output=True,
                         text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "[]", (modules, out.stdout)


def test_a_game_package_exports_its_names_lazily_and_a_set_value_wins():
    """``lazy_exports``: ``<game>_env.env`` is the env function even once the submodule of the same
    name is imported, and a value set on the package (a test's monkeypatch) is what it gives until
    deleted."""
    import importlib

    name = sorted(GAMES)[0]
    package = importlib.import_module(GAMES[name])
    importlib.import_module(f"{package.__name__}.env")  # binds the submodule `env` on the package
    assert callable(package.env) and not isinstance(package.env, type(package))
    original = package.env
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(package, "env", "stand-in")
        assert package.env == "stand-in"
    assert package.env is original
