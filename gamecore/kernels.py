"""Small numba kernels every game's rules module shares."""

from __future__ import annotations

import numpy as np

from gamecore.jit import jit
from gamecore.protocol import H_CURRENT, H_DECISIONS, H_DONE, H_NPLAYERS, H_TERMINAL


@jit
def check_header(state: np.ndarray, n: int) -> int:
    """``check_state`` for the shared header: 0 if sound, else the first bad slot + 1."""
    if state[H_NPLAYERS] != n:
        return H_NPLAYERS + 1
    if state[H_CURRENT] < 0 or state[H_CURRENT] >= n:
        return H_CURRENT + 1
    if state[H_TERMINAL] < 0 or state[H_TERMINAL] > 1:
        return H_TERMINAL + 1
    if state[H_DONE] < 0 or state[H_DONE] >= (1 << n):
        return H_DONE + 1
    if state[H_TERMINAL] == 1 and state[H_DONE] != (1 << n) - 1:
        return H_DONE + 1
    if state[H_DECISIONS] < 0:
        return H_DECISIONS + 1
    return 0
