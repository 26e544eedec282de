"""Random-play fuzzing, hundreds of games per game and player count, with numba bounds checking.

Runs in a subprocess because NUMBA_BOUNDSCHECK is read when numba starts. The bounds-checked
machine code is cached in a stable directory of its own (``.numba-boundscheck-cache`` at the
repository root, or ``FUZZ_CACHE_DIR``), apart from the normal cache, so later runs load it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GAME_NAMES, game_module

HERE = Path(__file__).parent
GAMES_PER_PLAYER_COUNT = int(os.environ.get("FUZZ_GAMES", "300"))
CACHE = Path(os.environ.get("FUZZ_CACHE_DIR", HERE.parent / ".numba-boundscheck-cache"))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_play_fuzz_with_boundscheck(name):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(CACHE))
    proc = subprocess.run(
        [sys.executable, str(HERE / "fuzz_games.py"), name, str(GAMES_PER_PLAYER_COUNT), "7"],
        env=env,
        capture_output=True,
        text=True,
        timeout=3000,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    counts = len(game_module(name).GAME.player_counts)
    assert f"fuzz ok {name} games={counts * GAMES_PER_PLAYER_COUNT}" in proc.stdout
    assert "boundscheck=1" in proc.stdout
