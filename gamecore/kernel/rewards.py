"""Terminal rewards shared by every game.

``rank``: the winner gets +1, the last -1, linear in between; tied seats share the average of the
rewards of the places they span. ``score``: each seat's final score in game terms (see each game's
``scores`` kernel).
"""

from __future__ import annotations

import numpy as np

from gamecore.kernel.jit import jit

REWARD_RANK = 0
REWARD_SCORE = 1
REWARD_MODES = {"rank": REWARD_RANK, "score": REWARD_SCORE}


@jit
def rank_rewards(keys: np.ndarray, n: int, out: np.ndarray) -> None:
    """Rank reward from per-seat keys (higher key = better place); ties share the average."""
    if n == 1:
        out[0] = 0.0
        return
    for p in range(n):
        better = 0
        equal = 0
        for q in range(n):
            if keys[q] > keys[p]:
                better += 1
            elif keys[q] == keys[p]:
                equal += 1
        # places better .. better+equal-1 (0 = first); reward of place k is 1 - 2k/(n-1)
        total = 0.0
        for k in range(better, better + equal):
            total += 1.0 - 2.0 * k / (n - 1)
        out[p] = total / equal
