"""Random-play fuzzing, thousands of games per game, with numba bounds checking switched on.

Runs in a subprocess because NUMBA_BOUNDSCHECK is read when numba starts; a private cache dir keeps
the bounds-checked machine code apart from the normal cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
GAMES_PER_PLAYER_COUNT = int(os.environ.get("FUZZ_GAMES", "700"))


def test_random_play_fuzz_with_boundscheck(game_name, tmp_path_factory):
    cache = tmp_path_factory.getbasetemp() / "numba-boundscheck-cache"
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(cache))
    proc = subprocess.run(
        [sys.executable, str(HERE / "fuzz_games.py"), game_name, str(GAMES_PER_PLAYER_COUNT), "7"],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"fuzz ok {game_name} games={3 * GAMES_PER_PLAYER_COUNT}" in proc.stdout
    assert "boundscheck=1" in proc.stdout
