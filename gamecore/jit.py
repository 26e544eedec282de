"""The one place numba options are chosen, and how compiled kernels are cached.

Every kernel is compiled with ``cache=True`` so that a second process loads machine code instead
of compiling again. ``parallel=True`` is used only for the batched kernels (``pjit``), and only for
the copy that runs on more than one thread (:class:`gamecore.batch_kernels.Threaded`); the per-game
kernels stay serial so one game can be stepped cheaply from Python.

Cache correctness
-----------------
numba decides whether a cached kernel is stale from the kernel's *own* source file, so a batched
kernel keeps running old rules after a rules module changes. Project kernels are therefore stamped
with a digest of the **kernel sources** they may inline (:func:`kernel_sources`): a game's kernels
with gamecore's kernel modules plus that game's ``rules*.py`` / ``layout*.py`` / ``kernels*.py``
and the modules of its ``rules/`` package (Cultivo's and Calimala's rules are one module per rule area);
gamecore's kernels (the batched factory serves every game) with the kernel sources of all games.
The digest is taken over each module's syntax tree with docstrings removed (comments never reach
the tree), and cache files are named by the function's own normalised source instead of its line
number, so editing a docstring or a comment recompiles nothing, while editing any code a kernel
may see recompiles every kernel that may have inlined it.

If numba's caching internals move so that the stamp cannot be installed, caching of project
kernels is switched off with a warning (slow start-ups, never stale code); the test suite fails.

Where the cache lives
---------------------
``NUMBA_CACHE_DIR`` if set, else ``__pycache__`` beside the sources, else numba's per-user cache
directory, else ``<tempdir>/tabletop-rl-envs-numba-<uid>``. If none is writable (a read-only
install with a read-only home and temp dir), kernels compile without caching and one warning says
so.

Set ``NUMBA_BOUNDSCHECK=1`` to make every array access checked (the fuzz tests do).

Compile notice
--------------
The first time a process compiles a game's kernels (a cache miss: a fresh install, new sources or
a new numba), one line goes to stderr before numba starts, so that no one waits in silence::

    tabletop-rl-envs: compiling Cultivo kernels, once: ~53 s (numba; later runs load them from the cache)

One line per game and path (its own kernels, the batched ones, the search agents'), each with
its estimate from :data:`COMPILE_SECONDS` (approximate: cold compiles on a 2-core machine). Loading from
the cache prints nothing.
``TABLETOP_RL_COMPILE_NOTICE=0`` silences it; ``python -m gamecore.warmup`` compiles ahead.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import os
import tempfile
import warnings
from pathlib import Path

# How numba's OpenMP workers (GNU libgomp) wait for the next parallel kernel. libgomp's default
# spins 300,000 times (~9 ms here) after every kernel, stealing a core from every other process
# and from torch in this one; OMP_WAIT_POLICY=PASSIVE (no spinning) makes each launch wake the
# workers, ~150 us, which held 2 threads to 1.0-1.4x one thread at 1,024 games. A bounded spin of
# 10,000 (~0.3 ms) spans the Python between two batched calls: 2 threads reached 1.6-2.1x one on
# two quiet cores (benchmarks/README.md), and an idle worker goes to sleep within a fraction of a
# millisecond. Only the workers of a kernel run with more than one thread spin at all, and the
# batched default is one thread. Set only when the user has chosen neither variable; libgomp reads
# them when it loads, at the first parallel kernel launch.
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["GOMP_SPINCOUNT"] = "10000"

import numba  # noqa: E402
from numba.core import event as _numba_event  # noqa: E402

_ROOT = Path(__file__).resolve().parent.parent
#: the packages whose kernels may call one another
PROJECT_PACKAGES = ("gamecore", "callisto_env", "calcada_env", "cultivo_env", "calimala_env")
#: gamecore's modules that hold kernels or constants kernels read
GAMECORE_KERNEL_MODULES = (
    "jit.py", "header.py", "layout.py", "rng.py", "kernels.py", "rewards.py", "batch_kernels.py", "mcts.py",
    "puct.py", "scratch.py", "bits.py", "value_net.py",
)
#: a game package's modules that hold kernels or constants kernels read
GAME_KERNEL_PATTERNS = ("rules*.py", "rules/*.py", "layout*.py", "kernels*.py")

CACHE_STAMPED = False  # set once the stamped locators are installed


def kernel_sources(package: str | None = None) -> list[Path]:
    """The kernel source files a kernel of ``package`` may inline (None: every package's)."""
    files = [_ROOT / "gamecore" / m for m in GAMECORE_KERNEL_MODULES]
    games = [p for p in PROJECT_PACKAGES if p != "gamecore"]
    if package is not None and package != "gamecore":
        games = [package]
    for pkg in games:
        for pattern in GAME_KERNEL_PATTERNS:
            files.extend(sorted((_ROOT / pkg).glob(pattern)))
    return [f for f in files if f.is_file()]


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


@functools.cache
def _normalised(path: str, mtime_ns: int, size: int) -> bytes:
    """A module's code without docstrings, comments or layout (its syntax tree)."""
    source = Path(path).read_text(encoding="utf-8")
    return ast.dump(_strip_docstrings(ast.parse(source)), include_attributes=False).encode()


def kernel_digest(package: str | None = None) -> str:
    """SHA-256 over the normalised kernel sources of ``package`` (None: all packages)."""
    files = []
    for path in kernel_sources(package):
        st = path.stat()
        files.append((str(path), st.st_mtime_ns, st.st_size))
    return _digest(tuple(files))


@functools.cache
def _digest(files: tuple[tuple[str, int, int], ...]) -> str:
    """:func:`kernel_digest` of these (path, mtime, size), once per process: each kernel's cache
    locator asks for its package's digest when it is decorated (148 times in importing Cultivo), and
    each asking hashed the same normalised sources again."""
    h = hashlib.sha256()
    for path, mtime_ns, size in files:
        h.update(Path(path).relative_to(_ROOT).as_posix().encode())
        h.update(_normalised(path, mtime_ns, size))
    return h.hexdigest()


def _project_package(py_file: str) -> str | None:
    try:
        rel = Path(py_file).resolve().relative_to(_ROOT)
    except (ValueError, OSError):
        return None
    if len(rel.parts) >= 2 and rel.parts[0] in PROJECT_PACKAGES:  # a package's modules and its subpackages' modules
        return rel.parts[0]
    return None


def _function_key(py_func) -> str:
    """Names a kernel's cache files by its normalised source (stable when lines move)."""
    try:
        src = inspect.getsource(py_func)
        tree = _strip_docstrings(ast.parse(_dedent(src)))
        body = ast.dump(tree, include_attributes=False)
    except (OSError, TypeError, SyntaxError):
        body = py_func.__code__.co_code.hex()
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def _dedent(src: str) -> str:
    lines = src.splitlines()
    indent = min((len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()), default=0)
    return "\n".join(ln[indent:] for ln in lines)


def _fallback_cache_dir() -> str:
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return os.path.join(tempfile.gettempdir(), f"tabletop-rl-envs-numba-{uid}")


def _install_stamped_locators() -> bool:
    """Put digest-stamped versions of numba's file-backed cache locators first in its list, and a
    temp-dir locator last. Returns False (with a warning) if numba's internals moved."""
    global CACHE_STAMPED
    try:
        from numba.core import caching

        impl = caching.CacheImpl
        bases = [caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator]
        impl._locator_classes  # noqa: B018 - must exist
        for base in bases:
            base.get_source_stamp  # noqa: B018
            base.get_disambiguator  # noqa: B018
            base.from_function  # noqa: B018
    except (ImportError, AttributeError) as exc:
        warnings.warn(
            f"tabletop-rl-envs: numba {numba.__version__} moved its cache internals ({exc}); project kernels "
            "compile without caching so that no stale machine code can run",
            RuntimeWarning,
            stacklevel=3,
        )
        return False
    if getattr(impl, "_tabletop_stamped", False):
        CACHE_STAMPED = True
        return True

    def stamped(base):
        class Stamped(base):
            def __init__(self, py_func, py_file):
                super().__init__(py_func, py_file)
                self._tabletop_package = _project_package(py_file)
                self._tabletop_key = _function_key(py_func)

            def get_source_stamp(self):
                return ("tabletop-rl-envs", kernel_digest(self._tabletop_package))

            def get_disambiguator(self):
                return self._tabletop_key

            @classmethod
            def from_function(cls, py_func, py_file):
                if _project_package(py_file) is None:
                    return None
                return super().from_function(py_func, py_file)

        Stamped.__name__ = f"Stamped{base.__name__}"
        return Stamped

    class TempDirLocator(stamped(caching.UserProvidedCacheLocator)):
        """Last resort for a read-only install: a per-user directory under the temp dir."""

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(_fallback_cache_dir(), self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if _project_package(py_file) is None:
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self

    impl._locator_classes = [stamped(b) for b in bases] + list(impl._locator_classes) + [TempDirLocator]
    impl._tabletop_stamped = True
    CACHE_STAMPED = True
    return True


_STAMPED = _install_stamped_locators()

#: cold compile seconds on a 2-core machine, by game and path (the notice's estimate): "aec" the game's
#: own kernels (the AEC env and everything else that steps one game), "batched" the BatchedGames /
#: VecEnv kernels on top of those (their one-thread copy, the default), "search" the greedy / MCTS
#: agents' kernels on top of both. Measured by ``benchmarks/notice_seconds.py`` on 2026-12-06 (one
#: empty cache per game, each path's first use timed in a fresh process after the paths before it;
#: ``benchmarks/results/2026-12-06e-notice-seconds.md``). The same compile varies by 20% or more
#: from run to run on that machine.
COMPILE_SECONDS = {
    "callisto_env": {"aec": 6, "batched": 4, "search": 12},
    "calcada_env": {"aec": 8, "batched": 4, "search": 11},
    "calimala_env": {"aec": 19, "batched": 5, "search": 27},
    "cultivo_env": {"aec": 53, "batched": 9, "search": 34},
}
_GAME_TITLES = {"callisto_env": "Callisto", "calcada_env": "Calçada", "calimala_env": "Calimala",
                "cultivo_env": "Cultivo"}
_PATH_TITLES = {"aec": "", "batched": "batched ", "search": "search "}
_noticed: set[tuple[str, str]] = set()


def _kernel_origin(dispatcher) -> tuple[str, str] | None:
    """(game package, path) of a compiling kernel: a game's own module is its "aec" path; gamecore's
    factories (:mod:`gamecore.batch_kernels`, :mod:`gamecore.mcts`, :mod:`gamecore.puct`) close over
    the game module whose kernels they call. None for a kernel no game owns (small shared helpers)."""
    func = getattr(dispatcher, "py_func", None)
    module = (getattr(func, "__module__", "") or "") if func is not None else ""
    package = module.partition(".")[0]
    if package in _GAME_TITLES:
        return package, "aec"
    if package != "gamecore":
        return None
    for cell in getattr(func, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        name = (getattr(value, "__name__", "") or "").partition(".")[0]
        if name in _GAME_TITLES:
            searching = ("gamecore.mcts", "gamecore.agents", "gamecore.puct", "gamecore.value_net")
            return name, "search" if module in searching else "batched"
    return None


def compile_notice(package: str, path: str = "aec") -> str:
    """The line printed when the kernels of ``package`` on ``path`` start compiling in this process."""
    what = f"{_GAME_TITLES[package]} {_PATH_TITLES[path]}kernels"
    return (f"tabletop-rl-envs: compiling {what}, once: ~{COMPILE_SECONDS[package][path]} s "
            "(numba; later runs load them from the cache)")


class _CompileNotice(_numba_event.Listener):
    """Prints :func:`compile_notice` once per game, path and process when numba starts compiling
    one of its kernels (numba raises ``numba:compile`` only on a cache miss)."""

    def on_start(self, event) -> None:
        origin = _kernel_origin((event.data or {}).get("dispatcher"))
        if origin is None or origin in _noticed:
            return
        _noticed.add(origin)
        if os.environ.get("TABLETOP_RL_COMPILE_NOTICE", "1") != "0":
            import sys

            print(compile_notice(*origin), file=sys.stderr, flush=True)

    def on_end(self, event) -> None:
        pass


_numba_event.register("numba:compile", _CompileNotice())
_warned_uncached = False


def _make(options: dict):
    def decorate(func):
        global _warned_uncached
        if not _STAMPED:
            return numba.njit(cache=False, **options)(func)
        try:
            return numba.njit(cache=True, **options)(func)
        except RuntimeError as exc:  # no writable cache location at all
            if "no locator available" not in str(exc):
                raise
            if not _warned_uncached:
                _warned_uncached = True
                warnings.warn(
                    "tabletop-rl-envs: no writable numba cache directory (set NUMBA_CACHE_DIR to one); "
                    "kernels are compiled in every process",
                    RuntimeWarning,
                    stacklevel=2,
                )
            return numba.njit(cache=False, **options)(func)

    return decorate


#: Options of every project kernel besides ``cache``:
#:
#: * ``nogil``: a batched call can run beside other Python threads;
#: * ``error_model="numpy"``: an integer ``//`` or ``%`` by zero gives 0 and a float division gives
#:   inf / nan instead of raising ``ZeroDivisionError`` (Python's floor semantics for negative
#:   operands are kept). No kernel divides by zero (the denominators are player counts, sizes and
#:   validated options), so this only drops a zero test and an exception path from every division:
#:   Cultivo's rollouts +5-10% (its label arithmetic is all ``//`` and ``%``; benchmarks/README.md),
#:   the other games within noise;
#: * ``no_cfunc_wrapper``: no C-callable wrapper is compiled beside each kernel (numba needs one only
#:   to pass a kernel as a first-class function value, which no caller here does): 3-5% less cold
#:   compile. (The CPython wrapper cannot go the same way: a kernel compiled without it crashes the
#:   interpreter when called from Python.)
_KERNEL = {"nogil": True, "error_model": "numpy", "no_cfunc_wrapper": True}
#: serial kernels: rules, observation, masks
jit = _make(dict(_KERNEL))
#: the parallel copy of a batched kernel, one game per ``prange`` iteration (``batch_kernels.Threaded``)
pjit = _make({**_KERNEL, "parallel": True})
#: a kernel inlined (numba IR) into the kernels that call it, so that it is not a compiled function
#: of its own. numba compiles every kernel a kernel calls as a library of its own, optimises it once
#: more with all of its callees linked in, and emits its machine code, even where only the caller is
#: ever run: a thin kernel over a big call tree (a game's plain ``apply_legal``, Cultivo's
#: ``mask_payment`` or ``start_payment``) costs that tree's optimisation and machine code once more.
#: But an inlined body goes through numba's untyped passes and is typed again at every call site, so
#: which kernels pay was measured, not read off their size: Cultivo's ``mask_travel`` (46 lines, over
#: the travel search) paid, while its ``forward_fill``, ``join_steps`` or ``backward_shifted`` (27-96
#: lines, one call site each, little below them) made the cold compile slower (benchmarks/README.md,
#: 2026-12-06 (3)).
ijit = _make({**_KERNEL, "inline": "always"})

__all__ = ["jit", "pjit", "ijit", "numba", "kernel_digest", "kernel_sources", "CACHE_STAMPED", "COMPILE_SECONDS",
           "compile_notice"]
