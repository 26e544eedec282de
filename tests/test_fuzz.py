"""Random-play fuzzing, hundreds of games per game and player count, with numba bounds checking.

Runs in a subprocess because NUMBA_BOUNDSCHECK is read when numba starts; one test per game and
player count, so that pytest-xdist spreads them over the cores. The bounds-checked machine code is
cached in a stable directory of its own (``.numba-boundscheck-cache/numba-<version>`` at the
repository root, or under ``FUZZ_CACHE_DIR``), apart from the normal cache, and compiled once per
run and game by the first test that needs it (``conftest.boundscheck_env``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GAME_PLAYERS, boundscheck_env, interleaved

HERE = Path(__file__).parent
GAMES_PER_PLAYER_COUNT = int(os.environ.get("FUZZ_GAMES", "200"))
pytestmark = [pytest.mark.slow, pytest.mark.boundscheck]


@pytest.mark.parametrize("name,players", interleaved(GAME_PLAYERS))
def test_random_play_fuzz_with_boundscheck(name, players):
    proc = subprocess.run(
        [sys.executable, str(HERE / "fuzz_games.py"), name, str(GAMES_PER_PLAYER_COUNT), "7", str(players)],
        env=boundscheck_env(name),
        capture_output=True,
        text=True,
        timeout=3000,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"fuzz ok {name} games={GAMES_PER_PLAYER_COUNT} " in proc.stdout
    assert "boundscheck=1" in proc.stdout
