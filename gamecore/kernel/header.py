"""The shared state header, its constants and the viewer codes (a kernel source: kernels read
these constants; documented in :mod:`gamecore.kernel.protocol`)."""

from __future__ import annotations

from gamecore.kernel.layout import Layout


def state_layout() -> Layout:
    """A state :class:`~gamecore.kernel.layout.Layout` with the shared header already allocated."""
    lay = Layout("state")
    lay.add("H_RNG", 1, "generator state (xorshift64*, see gamecore.kernel.rng); in no view")
    lay.add("H_NPLAYERS", 1, "number of seats")
    lay.add("H_CURRENT", 1, "seat that takes the next decision (the decider)")
    lay.add("H_TERMINAL", 1, "1 once the game (or match) is over")
    lay.add("H_DONE", 1, "bit p set once seat p takes no further decision")
    lay.add("H_DECISIONS", 1, "number of decisions applied so far")
    lay.add("H_OWNER", 1, "seat whose turn it is (may differ from the decider mid-turn)")
    lay.add("H_PHASE", 1, "kind of the pending decision (game-specific, see GameSpec.phase_names)")
    return lay


_HEADER = state_layout()
H_RNG = _HEADER.offset("H_RNG")
H_NPLAYERS = _HEADER.offset("H_NPLAYERS")
H_CURRENT = _HEADER.offset("H_CURRENT")
H_TERMINAL = _HEADER.offset("H_TERMINAL")
H_DONE = _HEADER.offset("H_DONE")
H_DECISIONS = _HEADER.offset("H_DECISIONS")
H_OWNER = _HEADER.offset("H_OWNER")
H_PHASE = _HEADER.offset("H_PHASE")
HEADER_LEN = _HEADER.size

#: largest value of ``H_DECISIONS`` (the count saturates there, see ``gamecore.kernel.kernels.count_decision``)
MAX_COUNTER = 1 << 40

#: viewers besides the seats 0..n-1
VIEW_PUBLIC = -1
VIEW_ALL = -2
