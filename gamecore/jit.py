"""The one place numba options are chosen.

Every kernel in the project is compiled with ``cache=True`` so that the second process to import a
game loads machine code from ``__pycache__`` instead of compiling again. ``parallel=True`` is used
only for the batched kernels (``pjit``); the per-game kernels stay serial so one game can be stepped
cheaply from Python.

Set ``NUMBA_BOUNDSCHECK=1`` to make every array access checked (the fuzz tests do).
"""

from __future__ import annotations

import numba

#: serial kernels: rules, observation, masks
jit = numba.njit(cache=True, nogil=True)
#: batched kernels, one game per ``prange`` iteration
pjit = numba.njit(cache=True, nogil=True, parallel=True)

__all__ = ["jit", "pjit", "numba"]
