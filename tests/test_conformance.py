"""The conformance suite: every check of the kit (:mod:`gamecore.testing`) on every game at the
player counts the kit plans for it (every count the game supports; the checks of
``testing.ONCE`` at the game's default count), one test per (check, game, count), ids such as
``test_conformance[pettingzoo_api-calimala-4p]``. The checks themselves, and what each asserts, are
in the kit; a check that needs knowledge of one game lives in that game's own tests."""

from __future__ import annotations

from unittest import SkipTest

import pytest

from conftest import GAME_NAMES
from gamecore import testing
from gamecore.kernel.games import get_game

#: checks left to the long lane (``-m slow``): pyspiel's C++ random_sim_test takes seconds on the longer
#: games, and tests/test_openspiel.py runs it on the shorter ones in the default lane already
SLOW = {"openspiel_random_sim"}

# check-major, as the suite ran when each check was a test function of its own: the cases of one
# check sit together, every game and count in turn
CASES = [pytest.param(check, name, n, id=f"{check}-{name}-{n}p", marks=[pytest.mark.slow] if check in SLOW else [])
         for check in testing.CHECKS for name in GAME_NAMES for c, n in testing.plan(name) if c == check]


@pytest.mark.parametrize("check,name,n", CASES)
def test_conformance(check, name, n):
    testing.CHECKS[check](name, n)


# ---- the kit itself --------------------------------------------------------------------------------
def test_the_plan_runs_every_check_at_every_count_and_the_once_checks_at_the_default_count(game_name):
    spec = get_game(game_name)
    plan = testing.plan(game_name)
    assert [c for c, _ in plan] == [c for c in testing.CHECKS for _ in
                                    ((0,) if c in testing.ONCE else spec.player_counts)]
    assert {n for c, n in plan if c in testing.ONCE} == {spec.default_players}
    assert sorted(n for c, n in plan if c == "pettingzoo_api") == list(spec.player_counts)
    top = spec.max_players
    assert {n for _, n in testing.plan(spec, top)} == {top}  # a GameSpec and one count
    quick = testing.plan(game_name, quick=True)
    assert {n for _, n in quick} == {spec.default_players}
    assert [c for c, _ in quick] == [c for c in testing.CHECKS if c not in testing.HEAVY]
    with pytest.raises(ValueError, match="players"):
        testing.plan(game_name, top + 1)


def test_check_game_runs_the_plan_leaves_skipped_checks_out_and_stops_at_a_failure(monkeypatch):
    calls = []

    def passes(game, n):
        calls.append((game.name, n))

    def skips(game, n):
        raise SkipTest("not here")

    def fails(game, n):
        raise AssertionError(f"{game.name} {n}p: broken")

    spec = get_game(GAME_NAMES[0])
    checks = {"first": passes, "skipped": skips, "last": passes}
    monkeypatch.setattr(testing, "CHECKS", checks)
    monkeypatch.setattr(testing, "ONCE", frozenset({"last"}))
    monkeypatch.setattr(testing, "HEAVY", frozenset({"skipped"}))
    counts = spec.player_counts
    assert testing.check_game(GAME_NAMES[0]) == [f"first[{n}]" for n in counts] + [f"last[{spec.default_players}]"]
    assert calls == [(spec.name, n) for n in counts] + [(spec.name, spec.default_players)]
    assert testing.check_game(spec, counts[-1], quick=True) == [f"first[{counts[-1]}]", f"last[{counts[-1]}]"]
    checks["last"] = fails
    with pytest.raises(AssertionError, match=f"{spec.name} {spec.default_players}p: broken"):
        testing.check_game(spec, quick=True)
