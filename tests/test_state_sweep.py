"""The slot sweep of tests/slot_sweep.py for every game (issue 18): every slot of states from every
phase at every player count, set to a few bad values, is refused by ``check_state`` or plays on
safely to the end.

Runs in a subprocess under NUMBA_BOUNDSCHECK=1 (read when numba starts), so that an index out of
bounds is an IndexError the sweep reports rather than a crash, with the bounds-checked machine code
cached where tests/test_fuzz.py keeps it (compiled once per run and game: ``conftest.boundscheck_env``).
"""

from __future__ import annotations

import pytest

from conftest import GAME_NAMES, run_bounds_checked

#: states per phase and player count: Callisto has a single phase, so it takes more of them
STATES_PER_PHASE = {"callisto": 6, "calcada": 3, "calimala": 2, "cultivo": 1}


@pytest.mark.slow
@pytest.mark.boundscheck
@pytest.mark.parametrize("name", GAME_NAMES)
def test_corrupted_slots_are_refused_or_play_on_safely(name):
    run_bounds_checked("slot_sweep.py", [name, "18", str(STATES_PER_PHASE.get(name, 2))], name, f"sweep ok {name} ")
