"""Random-play fuzzing, 50-200 games per game and player count, and the search agents on random
positions of every game (``tests/fuzz_search.py``), with numba bounds checking.

Runs in a subprocess because NUMBA_BOUNDSCHECK is read when numba starts; one test per game and
player count, so that pytest-xdist spreads them over the cores. The bounds-checked machine code is
cached in a stable directory of its own (``.numba-boundscheck-cache/numba-<version>`` at the
repository root, or under ``FUZZ_CACHE_DIR``), apart from the normal cache, and compiled once per
run and game by the first test that needs it (``conftest.boundscheck_env``).
"""

from __future__ import annotations

import os

import pytest

from conftest import GAME_PLAYERS, interleaved, run_bounds_checked

#: random games per game and player count (FUZZ_GAMES=N sets every game's): a random Cultivo game is
#: 450-1,200 decisions (Callisto 27-56, Calçada 88-228, Calimala 300-375), so its 50 games (~40,000
#: decisions, ~25 s bounds-checked) are still the most decisions of any game
GAMES_PER_PLAYER_COUNT = {"cultivo": 50}
DEFAULT_GAMES = 200


def games_for(name: str) -> int:
    if "FUZZ_GAMES" in os.environ:
        return int(os.environ["FUZZ_GAMES"])
    return GAMES_PER_PLAYER_COUNT.get(name, DEFAULT_GAMES)


pytestmark = [pytest.mark.slow, pytest.mark.boundscheck]


@pytest.mark.parametrize("name,players", interleaved(GAME_PLAYERS))
def test_random_play_fuzz_with_boundscheck(name, players):
    games = games_for(name)
    run_bounds_checked("fuzz_games.py", [name, str(games), "7", str(players)], name, f"fuzz ok {name} games={games} ")


@pytest.mark.parametrize("name", [g for g in dict(interleaved(GAME_PLAYERS))])
def test_search_agents_with_boundscheck(name):
    """greedy, MCTS and the PUCT search (with and without rollouts) on random positions of every
    player count, bounds-checked (tests/fuzz_search.py)."""
    run_bounds_checked("fuzz_search.py", [name, "5"], name, f"search fuzz ok {name} ", ("aec", "batched", "agents"))
