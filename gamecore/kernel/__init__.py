"""Numba kernels and what they read: jit options and the kernel cache, the kernel contract and the
``GameSpec``, layouts, the state header, the in-state RNG, batched kernels, rewards, and the
registry of games. Imports neither gymnasium nor pettingzoo."""
