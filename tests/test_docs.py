"""The API reference (``docs/api``, Sphinx autodoc over the docstrings) builds without a warning,
compiles no kernel, and shows what it is there to show."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the docs extra (Sphinx) is not installed")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("apidocs")
    out, cache = tmp / "html", tmp / "numba-cache"
    # warnings are errors (-W), all of them reported (--keep-going); a fresh numba cache directory
    # shows whether importing the documented modules compiled a kernel (it would write there)
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
           "-d", str(tmp / "doctrees"), str(ROOT / "docs" / "api"), str(out)]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert result.returncode == 0, f"sphinx failed:\n{result.stdout}\n{result.stderr}"
    # numba's index and data files (gamecore.kernel.jit also keeps its source-digest memo there)
    compiled = [p.name for p in cache.rglob("*.nb[ic]")] if cache.exists() else []
    assert not compiled, f"building the docs compiled kernels: {compiled[:5]}"
    return out


@pytest.mark.slow
def test_api_reference_builds_without_warnings(site: Path) -> None:
    from callisto_env import layout as L

    callisto = (site / "games" / "callisto_env.html").read_text(encoding="utf-8")
    # the env module's Markdown docstring, with its observation table filled in at import time
    # and rendered as a table (not as pipe-separated text)
    assert "<table" in callisto and "|---" not in callisto
    for block in L.OBS_PLANES[2].names():
        assert f'<span class="pre">{block}</span>' in callisto, block
    assert "observation length" in callisto
    assert 'id="callisto_env.env.raw_env"' in callisto and 'id="callisto_env.env.env"' in callisto
    # the state table of gamecore.kernel.protocol (reStructuredText, generated at import time)
    protocol = (site / "gamecore" / "protocol.html").read_text(encoding="utf-8")
    assert 'id="gamecore.kernel.protocol.GameSpec"' in protocol and "H_DECISIONS" in protocol
    # a known function's docstring; a numba kernel documented from its Python function
    registration = (site / "gamecore" / "registration.html").read_text(encoding="utf-8")
    assert 'id="gamecore.envs.registration.gymnasium_id"' in registration
    assert "tabletop-rl-envs/" in registration and "gamecore.envs:" in registration
    batched = (site / "gamecore" / "batched.html").read_text(encoding="utf-8")
    assert 'id="gamecore.envs.batched.episode_seed"' in batched and "numba kernel" in batched
    # the RLlib adapter is documented without Ray (mocked)
    assert 'id="gamecore.envs.rllib.RLlibEnv"' in (site / "gamecore" / "rllib.html").read_text(encoding="utf-8")
    for game in ("calcada", "calimala", "cultivo"):
        assert f'id="{game}_env.env.raw_env"' in (site / "games" / f"{game}_env.html").read_text(encoding="utf-8")
