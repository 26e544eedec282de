"""Every snippet of the README runs as written, in reasonable time.

Python blocks are run one by one, each in a fresh namespace (each block is self-contained), as
``__main__``; a block that imports an optional toolkit is skipped where that toolkit is not
installed and runs in the venv that has it (RLlib's in the RLlib venv of ``.ci/run``). Shell
blocks are checked command by command: extras exist, example scripts exist and accept the
arguments shown, the test command is the one ``.ci/run`` runs.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import sys
import time
from pathlib import Path

import pytest
import tomllib
from test_examples import load_script

from conftest import OUR_GAMES as GAMES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
OURS = {"gamecore", *GAMES.values()}
#: seconds a snippet may take (the training snippet used to run for 39 minutes)
LIMIT_S = 60


def blocks(language: str) -> list[tuple[str, int, str]]:
    """``(heading, line, code)`` of every fenced block in ``language``."""
    out, heading = [], "top"
    lines = README.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.strip() == f"```{language}":
            start = i + 1
            i += 1
            while lines[i].strip() != "```":
                i += 1
            out.append((heading, start + 1, "\n".join(lines[start:i])))
        i += 1
    return out


PYTHON = blocks("python")
BASH = blocks("bash")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def test_the_readme_has_the_snippets_this_file_checks():
    assert len(PYTHON) >= 6 and len(BASH) >= 4
    headings = {h for h, _, _ in PYTHON}
    assert {"Training", "Batched rollouts", "One seat as a Gymnasium env", "Scaling out with Ray RLlib"} <= headings


def _imported(code: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("heading,line,code", PYTHON, ids=[f"line{ln}-{_slug(h)}" for h, ln, _ in PYTHON])
def test_python_snippet_runs(heading, line, code):
    for module in sorted(_imported(code) - OURS - set(sys.stdlib_module_names)):
        pytest.importorskip(module, reason=f"the snippet under '{heading}' needs {module}")
    compiled = compile(code, f"README.md:{line}", "exec")
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compiled, {"__name__": "__main__"})
    elapsed = time.perf_counter() - t0
    assert elapsed < LIMIT_S, f"the snippet under '{heading}' took {elapsed:.0f} s"


def test_the_batched_snippet_defines_what_it_steps():
    (code,) = [c for h, _, c in PYTHON if h == "Batched rollouts"]
    assert "actions =" in code.split("games.step(actions)")[0]


def _commands() -> list[tuple[str, list[str]]]:
    out = []
    for heading, _, code in BASH:
        for line in code.splitlines():
            line = line.split("  #")[0].strip()
            if not line or line.startswith("#"):
                continue
            for cmd in line.split("&&"):
                out.append((heading, shlex.split(cmd)))
    return out


EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def _install_example_games() -> None:
    """Add each example game that ships as a distribution of its own (``examples/*/pyproject.toml``)
    to this process's registry, as installing it would."""
    import sys

    from gamecore.kernel.games import add_game

    for project in sorted(ROOT.glob("examples/*/pyproject.toml")):
        declared = tomllib.loads(project.read_text())["project"].get("entry-points", {})
        for package in declared.get("tabletop_rl_envs.games", {}).values():
            if str(project.parent) not in sys.path:
                sys.path.insert(0, str(project.parent))
            add_game(package)


@pytest.mark.parametrize("heading,argv", _commands(), ids=[" ".join(a)[:60] for _, a in _commands()])
def test_shell_commands_are_valid(heading, argv):
    env = [a for a in argv if re.fullmatch(r"[A-Z_]+=.*", a)]
    argv = argv[len(env):]
    if argv[:3] == ["pip", "install", "-e"] and argv[3].startswith("examples/"):
        # a game in a distribution of its own: it declares its package in the games' entry-point group
        project = tomllib.loads((ROOT / argv[3] / "pyproject.toml").read_text())["project"]
        assert project["entry-points"]["tabletop_rl_envs.games"], argv[3]
    elif argv[:3] == ["pip", "install", "-e"]:
        spec = argv[3]
        extras = re.fullmatch(r"\.(?:\[([a-z,]+)\])?", spec)
        assert extras, spec
        for extra in (extras.group(1) or "").split(","):
            assert not extra or extra in EXTRAS, f"no extra {extra!r} in pyproject.toml"
    elif argv[:3] == ["python", "-m", "gamecore"]:
        from gamecore.tools.cli import _parser

        _install_example_games()  # as the README's `pip install -e examples/<game>` before it does

        _parser().parse_args(argv[3:])  # SystemExit here: the README shows arguments the CLI refuses
    elif argv[:3] == ["python", "-m", "pytest"] and len(argv) > 4:
        # the long sweeps the test command leaves out, or everything: a selection by the marker
        # that pyproject.toml registers and leaves out by default; CI runs the long sweeps too
        assert argv[3:] in (["-q", "-m", "slow"], ["-q", "-m", ""]), argv
        ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
        assert any(m.startswith("slow:") for m in ini["markers"]) and "-m 'not slow'" in ini["addopts"]
        assert "python -m pytest -q -m slow" in (ROOT / ".ci" / "run").read_text()
    elif argv[:3] == ["python", "-m", "sphinx"]:
        # the API reference's build (run for real by tests/test_docs.py), into an ignored folder
        source, out = argv[-2:]
        assert "-W" in argv and (ROOT / source / "conf.py").is_file(), argv
        assert f"/{'/'.join(out.split('/')[:2])}/" in (ROOT / ".gitignore").read_text().splitlines(), out
    elif argv[:2] == ["python", "-m"]:
        assert argv[2:] == ["pytest", "-q"]
        assert "python -m pytest -q" in (ROOT / ".ci" / "run").read_text(), ".ci/run runs the README's test command"
    elif argv[0] == "python" and argv[1].startswith("examples/"):
        script = ROOT / argv[1]
        assert script.is_file(), argv[1]
        module = load_script(script.stem)
        module.parse_args(argv[2:])  # SystemExit here: the README shows arguments the script refuses
    elif argv[:3] == ["ray", "start", "--head"]:
        assert env == [] and "RAY_ADDRESS" in README  # run for real by tests/test_rllib.py
    else:
        pytest.fail(f"README command not checked by this test: {' '.join(argv)}")


def test_the_quick_start_says_how_to_get_the_cpu_build_of_torch_before_its_commands():
    """Copied as written on a CPU-only machine, the quick start must not pull a CUDA build: the
    CPU build comes first (PyTorch's CPU index, or the wheel on the project's machines), and
    .ci/run does the same before the README's install line."""
    section = README[README.index("## Quick start"):]
    before = section[: section.index("```bash")]
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in before
    assert "pip install torch==2.13.0" in before
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.index('"torch==2.13.0"') < ci.index('-e ".[dev,train]"')


def test_the_readme_lists_every_core_dependency_with_its_lower_bound():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    text = " ".join(README[README.index("The package needs Python"):].split()[:40])
    for dep in deps:
        name, bound = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", dep).groups()
        assert re.search(rf"{name} {re.escape(bound)}\+", text, re.IGNORECASE), (dep, text)
