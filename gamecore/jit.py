"""The one place numba options are chosen.

Every kernel in the project is compiled with ``cache=True`` so that the second process to import a
game loads machine code from ``__pycache__`` instead of compiling again. ``parallel=True`` is used
only for the batched kernels (``pjit``); the per-game kernels stay serial so one game can be stepped
cheaply from Python.

numba decides whether a cached kernel is stale from the kernel's *own* source file only, so a
batched kernel in ``batched.py`` keeps running old code after ``rules.py`` changes. For this
project's files we therefore stamp every cached kernel with a digest of all the project's kernel
sources (:func:`project_digest`): editing any of them recompiles everything that may have inlined it.

Set ``NUMBA_BOUNDSCHECK=1`` to make every array access checked (the fuzz tests do).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numba

#: serial kernels: rules, observation, masks
jit = numba.njit(cache=True, nogil=True)
#: batched kernels, one game per ``prange`` iteration
pjit = numba.njit(cache=True, nogil=True, parallel=True)

_ROOT = Path(__file__).resolve().parent.parent
#: the packages whose kernels may call one another
PROJECT_PACKAGES = ("gamecore", "callisto_env", "calcada_env", "cultivo_env", "calimala_env")


def _project_files() -> list[Path]:
    files: list[Path] = []
    for pkg in PROJECT_PACKAGES:
        files.extend(sorted((_ROOT / pkg).glob("*.py")))
    return files


@functools.lru_cache(maxsize=1)
def project_digest() -> str:
    """SHA-256 over the source of every project module (computed once per process)."""
    h = hashlib.sha256()
    for path in _project_files():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _is_project_file(py_file: str) -> bool:
    try:
        rel = Path(py_file).resolve().relative_to(_ROOT)
    except (ValueError, OSError):
        return False
    return len(rel.parts) == 2 and rel.parts[0] in PROJECT_PACKAGES


def _install_project_locators() -> None:
    """Put digest-stamped versions of numba's file-backed cache locators first in its list."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba moved its internals; plain caching still works
        return
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if impl is None or getattr(impl, "_project_locators_installed", False):
        return
    bases = []
    for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"):
        base = getattr(caching, name, None) or getattr(caching, "_" + name, None)
        if base is not None:
            bases.append(base)

    def stamped(base):
        class ProjectStamped(base):
            def get_source_stamp(self):
                return (super().get_source_stamp(), project_digest())

            @classmethod
            def from_function(cls, py_func, py_file):
                if not _is_project_file(py_file):
                    return None
                return super().from_function(py_func, py_file)

        ProjectStamped.__name__ = f"Project{base.__name__.lstrip('_')}"
        return ProjectStamped

    impl._locator_classes = [stamped(b) for b in bases] + list(impl._locator_classes)
    impl._project_locators_installed = True


_install_project_locators()

__all__ = ["jit", "pjit", "numba", "project_digest"]
