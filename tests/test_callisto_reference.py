"""The Callisto legality kernel against an independent plain-Python reference
(tests/reference/callisto_reference.py, written from the rules page without reading the kernel)."""

from __future__ import annotations

import numpy as np
import pytest

import callisto_env
from callisto_env import layout as L
from callisto_env import notation, rules
from gamecore.kernel.protocol import H_CURRENT, H_TERMINAL
from reference import callisto_reference as ref


def reference_legal(state: np.ndarray) -> set[str]:
    seat = int(state[H_CURRENT])
    n = int(state[1])
    remaining = {
        name: int(state[L.REMAIN + L.NUM_TILE_TYPES * seat + t]) for t, name in enumerate(L.TILE_NAMES)
    }
    return ref.legal_action_strings(
        notation.board_rows(state),
        seat,
        n,
        int(state[L.PILLAR_TURNS + seat]),
        bool(state[L.THIRD + seat]),
        remaining,
    )


@pytest.mark.parametrize("n", [2, 3, 4])
def test_kernel_legal_moves_match_the_reference_on_random_positions(n):
    rng = np.random.default_rng(n)
    env = callisto_env.raw_env(num_players=n)
    positions = 0
    for game in range(12):
        env.reset(seed=game)
        while not env.state_array[H_TERMINAL]:
            if rng.random() < 0.35:
                assert set(env.legal_action_strings()) == reference_legal(env.state_array)
                positions += 1
            env.step(int(rng.choice(env.legal_actions())))
    assert positions > 50


def test_penalty_matches_the_reference():
    rng = np.random.default_rng(0)
    env = callisto_env.raw_env(num_players=4)
    for game in range(10):
        env.reset(seed=game)
        while not env.state_array[H_TERMINAL]:
            env.step(int(rng.choice(env.legal_actions())))
        d = env.to_dict()
        for p in d["players"]:
            assert p["penalty"] == ref.penalty(p["unplaced_tiles"])
            assert p["penalty"] == rules.penalty(env.state_array, p["seat"])
