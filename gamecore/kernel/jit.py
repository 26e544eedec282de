"""The one place numba options are chosen, and how compiled kernels are cached.

Every kernel is compiled with ``cache=True`` so that a second process loads machine code instead
of compiling again. ``parallel=True`` is used only for the batched kernels (``pjit``), and only for
the copy that runs on more than one thread (:class:`gamecore.kernel.batch_kernels.Threaded`); the per-game
kernels stay serial so one game can be stepped cheaply from Python.

Cache correctness
-----------------
numba decides whether a cached kernel is stale from the kernel's *own* source file, so a batched
kernel keeps running old rules after a rules module changes. Project kernels are therefore stamped
with a digest of the **kernel sources** they may inline (:func:`kernel_sources`): a game's kernels
with gamecore's kernel modules plus that game's ``rules*.py`` / ``layout*.py`` / ``kernels*.py``
and the modules of its ``rules/`` package (a game whose rules are one module per rule area has one);
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
so. Under ``NUMBA_CACHE_DIR`` (and the other two) a project kernel's folder is named by its
package-relative directory and the digest of its package's kernel sources (``<game>_env/<16 hex
digits>``, ``<game>_env/rules/<...>``), not by a hash of the sources' absolute path as numba names
it (each version of the sources has a folder of its own: old versions' folders stay until the
directory is cleared), and each project package is found where it was imported from, not
beside ``gamecore``: so a copy of the sources elsewhere -- another install, or the packages Ray
ships with a job (``py_modules``: each in a folder of its own, a new one every session) -- loads
what ``python -m gamecore warmup`` compiled into the same ``NUMBA_CACHE_DIR`` (the stamp still
decides whether it is current).

Set ``NUMBA_BOUNDSCHECK=1`` to make every array access checked (the fuzz tests do); the unaligned
loads and stores of ``gamecore.kernel.bits``, which numba cannot check, then use their checked forms. A
bounds-checked kernel's cache stamp says so, so a cache directory shared with normal runs never
hands bounds-checked machine code to a normal process, or unchecked code to a bounds-checked one
(each replaces the other's instead; the fuzz tests keep theirs apart anyway).

Compile notice
--------------
The first time a process compiles a game's kernels (a cache miss: a fresh install, new sources or
a new numba), one line goes to stderr before numba starts, and more while it goes on, so that no
one waits in silence (the first line is one line)::

    tabletop-rl-envs: compiling <Game> kernels, once: ~53 s on an idle 2-core machine (numba; later
    runs load them from the cache)
    tabletop-rl-envs: still compiling <Game> kernels: 15 s so far, 38 of ~117 kernels

One line per game and path, each path compiled on its first use: the game's own kernels, the
batched ones (and their threaded copy), and each search agent's (MCTS, greedy, PUCT). The
estimate comes from the figures each game registered (:func:`compile_figures`), measured on an
idle 2-core machine (the compile runs on one core); where the load average says the machine is
busy, the line adds a rescaled guess
("perhaps ~110 s at this machine's load (4.1 on 2 cores)"). A compile that numba starts inside
another (a kernel compiles the kernels it calls) belongs to the outer one's line: where a batched
or search path compiles first, and the game's own kernels are not in the cache either, the line
says so and its estimate adds theirs. Where part of a path is in the cache already (an earlier
process used another part of it), the line names the kernel that compiles now instead
("compiling more <Game> kernels: apply_legal, once; the rest are in the cache").

While a path goes on compiling, a progress line follows every 15 s: the seconds spent so far and
the kernels compiled, out of about how many the path compiles (:func:`compile_figures`;
approximate), and a last line says when such a long compile ended. Loading from the cache prints
nothing. ``TABLETOP_RL_COMPILE_NOTICE=0`` silences all of it; ``python -m gamecore warmup``
compiles ahead. :func:`compile_seconds` is the time this process has spent compiling: the arena,
the progress lines of ``gamecore.tools.progress`` and the benchmarks leave it out of what they time.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import threading
import time
import types
import warnings
import weakref
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

from gamecore.kernel import games as _games  # noqa: E402

_ROOT = Path(__file__).resolve().parents[2]


def project_packages() -> tuple[str, ...]:
    """The packages whose kernels are the project's (cached under its stamped locators, counted by
    the compile notice): gamecore, every installed game (:func:`gamecore.kernel.games.installed`)
    and every game package registered in this process (an added one: a game not installed)."""
    return ("gamecore", *dict.fromkeys([*_games.installed().values(), *_games._REGISTERED]))


def _digest_packages() -> tuple[str, ...]:
    """The game packages whose kernel sources gamecore's digest covers: the installed games, a fixed
    list per installation, so that the digest of gamecore's factories (which inline every game's
    kernels) is the same in every process of an installation whatever it imports. A factory kernel
    over an added game (:data:`~gamecore.kernel.games.GAMES_VARIABLE`,
    :func:`~gamecore.kernel.games.add_game`) adds that game's digest to its own stamp instead
    (:func:`_closure_packages`), so adding a game never moves the installed games' cache."""
    return tuple(dict.fromkeys(_games.installed().values()))


#: gamecore's modules that hold kernels or constants kernels read
GAMECORE_KERNEL_MODULES = (
    "kernel/jit.py", "kernel/header.py", "kernel/layout.py", "kernel/rng.py", "kernel/kernels.py",
    "kernel/rewards.py", "kernel/batch_kernels.py", "kernel/scratch.py", "kernel/bits.py", "search/mcts.py",
    "search/puct.py", "search/value_net.py",
)
#: a game package's modules that hold kernels or constants kernels read
GAME_KERNEL_PATTERNS = ("rules*.py", "rules/*.py", "layout*.py", "kernels*.py")

CACHE_STAMPED = False  # set once the stamped locators are installed
#: added to the cache stamp of every kernel compiled bounds-checked (nothing in a normal process)
_BOUNDSCHECK_STAMP = ("boundscheck",) if numba.config.BOUNDSCHECK else ()


@functools.lru_cache(maxsize=256)
def _find_package_dir(package: str, _sys_path: tuple[str, ...]) -> Path | None:
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    locations = list((spec.submodule_search_locations or []) if spec is not None else [])
    if locations:
        return Path(locations[0]).resolve()
    return (_ROOT / package) if (_ROOT / package).is_dir() else None


@functools.lru_cache(maxsize=64)
def _resolved(path: str) -> Path:
    return Path(path).resolve()


def _package_dir(package: str) -> Path | None:
    """The directory project package ``package`` is (or would be) imported from: beside ``gamecore``
    in a checkout or an install, but in a folder of its own where Ray ships each package
    (``runtime_env`` ``py_modules``)."""
    paths = getattr(sys.modules.get(package), "__path__", None)
    if paths:
        return _resolved(next(iter(paths)))
    return _find_package_dir(package, tuple(sys.path))


def kernel_sources(package: str | None = None) -> list[Path]:
    """The kernel source files a kernel of ``package`` may inline (None: every package's)."""
    core = _package_dir("gamecore")
    files = [core / m for m in GAMECORE_KERNEL_MODULES] if core is not None else []
    games = list(_digest_packages())
    if package is not None and package != "gamecore":
        games = [package]
    for pkg in games:
        folder = _package_dir(pkg)
        for pattern in GAME_KERNEL_PATTERNS if folder is not None else ():
            files.extend(sorted(folder.glob(pattern)))
    return [f for f in files if f.is_file()]


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


#: file of :func:`_normalised`'s memo: raw source digest -> normalised digest (JSON)
_MEMO_NAME = "tabletop-kernel-source-digests.json"
#: entries the memo keeps (the newest): a few versions of every kernel source
_MEMO_MAX = 1024
_memo: dict[str, str] | None = None


def _memo_path() -> Path:
    """Where the memo lives: ``NUMBA_CACHE_DIR`` where set, else gamecore's ``__pycache__`` (as
    numba's in-tree cache), else the per-user temp directory."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if cache:
        return Path(cache) / _MEMO_NAME
    here = Path(__file__).resolve().parents[1] / "__pycache__"
    if os.access(here if here.is_dir() else here.parent, os.W_OK):
        return here / _MEMO_NAME
    return Path(_fallback_cache_dir()) / _MEMO_NAME


def _load_memo() -> dict[str, str]:
    global _memo
    if _memo is None:
        _memo = {}
        try:
            raw = json.loads(_memo_path().read_text(encoding="utf-8"))
            if isinstance(raw, dict):
                _memo = {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str) and len(v) == 64}
        except (OSError, ValueError):
            pass
    return _memo


def _save_memo() -> None:
    memo = _load_memo()
    items = list(memo.items())[-_MEMO_MAX:]
    path = _memo_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(dict(items)), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


@functools.cache
def _normalised(path: str, mtime_ns: int, size: int) -> str:
    """SHA-256 of a module's code without docstrings, comments or layout (its syntax tree). Parsing
    is most of what importing a game costs once its kernels are cached, so the result is kept on
    disk under the digest of the file's bytes (:func:`_memo_path`): an unchanged file is read and
    hashed, not parsed; a changed one has other bytes, so nothing stale can be found."""
    data = Path(path).read_bytes()
    key = hashlib.sha256(data).hexdigest()
    memo = _load_memo()
    if key not in memo:  # saved once per digest (:func:`_digest`), not once per file
        tree = _strip_docstrings(ast.parse(data.decode("utf-8")))
        memo[key] = hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).hexdigest()
    return memo[key]


def kernel_digest(package: str | None = None) -> str:
    """SHA-256 over the normalised kernel sources of ``package`` (None: all packages)."""
    files = []
    for path in kernel_sources(package):
        st = path.stat()
        files.append((str(path), st.st_mtime_ns, st.st_size))
    return _digest(tuple(files))


def _relative_name(path: Path) -> str:
    """``<game>_env/rules.py``: a kernel source's path from the folder that holds its package."""
    for pkg in project_packages():
        folder = _package_dir(pkg)
        if folder is not None and path.is_relative_to(folder):
            return Path(pkg, path.relative_to(folder)).as_posix()
    return path.name


@functools.cache
def _digest(files: tuple[tuple[str, int, int], ...]) -> str:
    """:func:`kernel_digest` of these (path, mtime, size), once per process: each kernel's cache
    locator asks for its package's digest when it is decorated (148 times in importing the largest game), and
    each asking hashed the same normalised sources again."""
    h = hashlib.sha256()
    known = len(_load_memo())
    for path, mtime_ns, size in files:
        h.update(_relative_name(Path(path)).encode())
        h.update(_normalised(path, mtime_ns, size).encode())
    if len(_load_memo()) != known:
        _save_memo()
    return h.hexdigest()


@functools.lru_cache(maxsize=1024)
def _project_package(py_file: str) -> str | None:
    try:
        path = Path(py_file).resolve()
    except OSError:
        return None
    for pkg in project_packages():  # a package's modules and its subpackages' modules
        folder = _package_dir(pkg)
        if folder is not None and folder in path.parents:
            return pkg
    return None


def _cache_subpath(py_file: str) -> str | None:
    """Where a project kernel's cache files go under ``NUMBA_CACHE_DIR`` (and the per-user and temp
    directories): its package-relative directory and the first 16 hex digits of its package's
    :func:`kernel_digest` (``<game>_env/rules/3f2a...``), the same wherever the sources are (numba
    names the folder by a hash of their absolute path), and a folder of its own for every version of
    the kernel sources: two versions sharing a cache directory (two Ray jobs, two checkouts) never
    replace each other's files, so neither can load the other's machine code."""
    pkg = _project_package(py_file)
    folder = _package_dir(pkg) if pkg is not None else None
    if folder is None:
        return None
    return os.path.join(pkg, *Path(py_file).resolve().parent.relative_to(folder).parts, kernel_digest(pkg)[:16])


def _closure_packages(py_func) -> tuple[str, ...]:
    """The registered game packages outside gamecore's digest (added games, not installed:
    :func:`_digest_packages`) whose kernels
    or rules module a gamecore factory's kernel closes over, directly or through the other kernels
    and functions it closes over: its cache stamp adds their digests."""
    found: set[str] = set()
    covered = set(_digest_packages())
    seen: set[int] = set()
    todo = [py_func]
    while todo:
        func = todo.pop()
        if id(func) in seen:
            continue
        seen.add(id(func))
        for cell in getattr(func, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            for item in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(item, types.ModuleType):
                    module = item.__name__
                else:
                    inner = getattr(item, "py_func", item)
                    module = getattr(inner, "__module__", None) or ""
                    if callable(inner) and getattr(inner, "__closure__", None):
                        todo.append(inner)
                package = module.partition(".")[0]
                if package != "gamecore" and package not in covered and _games.registered(package) is not None:
                    found.add(package)
    return tuple(sorted(found))


def _code_digest(code: types.CodeType, h, doc: str | None = None) -> None:
    """Feed a code object's bytecode, names and constants (nested functions' too) to ``h``: what
    the function computes, without its line numbers (kept apart in ``co_linetable``) or docstring."""
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)).encode())
    for k, const in enumerate(code.co_consts):
        if isinstance(const, types.CodeType):
            _code_digest(const, h)
        elif not (k == 0 and doc is not None and const == doc):
            h.update(_stable_repr(const).encode())


def _stable_repr(const) -> str:
    """``repr`` of a code constant, the same in every process (a frozenset's order follows the
    string hash seed, so its items are sorted)."""
    if isinstance(const, frozenset):
        return "frozenset(" + repr(sorted(_stable_repr(c) for c in const)) + ")"
    if isinstance(const, tuple):
        return "(" + ", ".join(_stable_repr(c) for c in const) + ",)"
    return repr(const)


def _function_key(py_func) -> str:
    """Names a kernel's cache files by what its code computes (stable when lines move or its
    docstring changes), read from its code object: no source is parsed at import."""
    h = hashlib.sha256()
    code = getattr(py_func, "__code__", None)
    if code is None:
        return hashlib.sha256(repr(py_func).encode()).hexdigest()[:12]
    _code_digest(code, h, getattr(py_func, "__doc__", None))
    return h.hexdigest()[:12]


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
                self._tabletop_more = _closure_packages(py_func) if self._tabletop_package == "gamecore" else ()
                if self._tabletop_more:  # index files of their own: never replacing the installed games'
                    self._tabletop_key += "-" + "-".join(self._tabletop_more)

            def get_source_stamp(self):
                more = tuple(kernel_digest(p) for p in self._tabletop_more)
                return ("tabletop-rl-envs", kernel_digest(self._tabletop_package), *more) + _BOUNDSCHECK_STAMP

            def get_disambiguator(self):
                return self._tabletop_key

            @classmethod
            def get_suitable_cache_subpath(cls, py_file):
                return _cache_subpath(py_file) or super().get_suitable_cache_subpath(py_file)

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

#: The compile figures the notice quotes are each game's own (:class:`gamecore.kernel.games.GamePackage`
#: ``compile_seconds`` and ``compile_kernels``, given when the package registers): the cold compile of
#: each path on an idle 2-core machine and the kernels it compiles, measured by
#: ``benchmarks/notice_seconds.py`` (one empty cache per game, each path's first use timed in a fresh
#: process after the paths before it). The same compile varies by 20% or more from run to run on one
#: machine; it runs on one core, so a busy machine stretches it (the notice then says by about how
#: much, from the load average). A path a game gives no figure for is announced without an estimate.
#: the machine the figures were measured on, as the notice names it
COMPILE_MACHINE = "an idle 2-core machine"
_PATH_TITLES = {"aec": "kernels", "batched": "batched kernels", "threaded": "batched kernels (threaded copy)",
                "mcts": "search kernels (MCTS)", "greedy": "search kernels (greedy)", "puct": "search kernels (PUCT)"}
assert tuple(_PATH_TITLES) == _games.COMPILE_PATHS


def compile_figures(package: str) -> tuple[dict[str, int], dict[str, int]]:
    """(seconds, kernels) per path that game package ``package`` registered (empty if none)."""
    entry = _games.registered(package)
    return (dict(entry.compile_seconds), dict(entry.compile_kernels)) if entry is not None else ({}, {})


def _title(package: str) -> str:
    entry = _games.registered(package)
    return entry.title if entry is not None else package


#: seconds between two progress lines of a compile that goes on
_TICK_SECONDS = 15.0
#: every project kernel made in this process (:func:`_make`), for :func:`_path_cached`
_DISPATCHERS: weakref.WeakSet = weakref.WeakSet()


def _kernel_origin(dispatcher) -> tuple[str, str] | None:
    """(game package, path) of a compiling kernel: a game's own module is its "aec" path; gamecore's
    factories (:mod:`gamecore.kernel.batch_kernels`, :mod:`gamecore.search.mcts`, :mod:`gamecore.search.puct`,
    :mod:`gamecore.search.value_net`) close over the game module whose kernels they call. None for a kernel
    no game owns (small shared helpers)."""
    func = getattr(dispatcher, "py_func", None)
    module = (getattr(func, "__module__", "") or "") if func is not None else ""
    package = module.partition(".")[0]
    if _games.registered(package) is not None:
        return package, "aec"
    if package != "gamecore":
        return None
    for cell in getattr(func, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        name = (getattr(value, "__name__", "") or "").partition(".")[0]
        if _games.registered(name) is not None:
            return name, _gamecore_path(module, func, dispatcher)
    return None


def _gamecore_path(module: str, func, dispatcher) -> str:
    """The path of a gamecore factory's kernel (see :data:`gamecore.kernel.games.COMPILE_PATHS`)."""
    if module == "gamecore.kernel.kernels":  # a game's plain apply_legal: what stepping one game calls
        return "aec"
    if module == "gamecore.search.puct":
        return "puct"
    if module == "gamecore.search.value_net":
        return "greedy"
    if module in ("gamecore.search.mcts", "gamecore.search.agents"):
        return "greedy" if "greedy" in getattr(func, "__name__", "") else "mcts"
    if (getattr(dispatcher, "targetoptions", None) or {}).get("parallel"):
        return "threaded"
    return "batched"


def _load() -> tuple[float, int] | None:
    """(1-minute load average, cores) of this machine, or None where the platform has no load average."""
    try:
        return os.getloadavg()[0], os.cpu_count() or 1
    except (AttributeError, OSError):
        return None


def _what(package: str, path: str) -> str:
    return f"{_title(package)} {_PATH_TITLES[path]}"


def compile_notice(package: str, path: str = "aec", *, with_own: bool = False, more: str = "",
                   load: tuple[float, int] | None | bool = True) -> str:
    """The line printed when the kernels of ``package`` on ``path`` start compiling in this process.

    ``with_own``: the game's own kernels are not in the cache either, so they compile inside these
    (the estimate adds theirs). ``more``: some kernels of the path are in the cache already (an
    earlier process compiled them); the line names the new ones instead of estimating the whole
    path again. ``load``: (load average, cores) to scale the estimate by, True to read this
    machine's, None for none."""
    what = _what(package, path)
    tail = "(numba; later runs load them from the cache)"
    if more:
        return f"tabletop-rl-envs: compiling more {what}: {more}, once; the rest are in the cache {tail}"
    known = compile_figures(package)[0]
    seconds = known.get(path)
    if with_own and path != "aec":
        seconds = None if seconds is None or "aec" not in known else seconds + known["aec"]
        what += f" and the {_title(package)} kernels they call"
    if seconds is None:
        return f"tabletop-rl-envs: compiling {what}, once {tail}"
    busy = ""
    if load is True:
        load = _load()
    if load:
        avg, cores = load
        factor = avg / max(cores, 1)  # the compile runs on one core: its share of one is about cores / load
        if factor >= 1.25:
            busy = f", perhaps ~{round(seconds * factor)} s at this machine's load ({avg:.1f} on {cores} cores)"
    return f"tabletop-rl-envs: compiling {what}, once: ~{seconds} s on {COMPILE_MACHINE}{busy} {tail}"


def _has_cached(dispatcher) -> bool:
    """Whether some compiled code of ``dispatcher`` is loaded in this process or in the cache for
    the current sources (for a closure: for its own closure variables, the game it was built for)."""
    if getattr(dispatcher, "overloads", None):
        return True
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    if cache_file is None:  # caching off
        return False
    try:
        index = cache_file._load_index()  # {} when missing or stale
        if not index:
            return False
        if getattr(dispatcher.py_func, "__closure__", None) is None:
            return True
        mine = cache._index_key(None, dispatcher.targetctx.codegen())
        return any(key[1:] == mine[1:] for key in index)
    except Exception:  # numba's caching internals moved: say nothing is cached
        return False


def _path_cached(origin: tuple[str, str]) -> bool:
    """Whether some kernel of ``origin`` (game, path) made in this process (the one compiling too: its
    other argument types) has compiled code in this process or in the cache."""
    return any(_kernel_origin(d) == origin and _has_cached(d) for d in list(_DISPATCHERS))


def _silenced() -> bool:
    return os.environ.get("TABLETOP_RL_COMPILE_NOTICE", "1") == "0"


def _say(line: str) -> None:
    if not _silenced():
        print(line, file=sys.stderr, flush=True)


class _CompileNotice(_numba_event.Listener):
    """Says on stderr what compiles, while it compiles (numba raises ``numba:compile`` only on a
    cache miss, so a warm cache is silent).

    Every compile numba starts while another is under way is part of that one (a kernel compiles
    the kernels it calls), so the compile a call from Python started decides the game and path
    (:func:`_kernel_origin`; for a compile no game owns, the first one inside it that a game owns).
    The first compile of a game and path in the process prints :func:`compile_notice`; while that
    game and path go on compiling, a thread prints a progress line every :data:`_TICK_SECONDS`
    (seconds spent, kernels compiled out of about how many), and the end of such a long compile
    says so. Also counts the seconds spent compiling (:func:`compile_seconds`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.stack: list[bool] = []  # for each compile under way, outermost first: a project kernel?
        self.origin: tuple[str, str] | None = None  # the game and path that the compiles under way belong to
        self.origin_depth = 0  # len(stack) when that started
        self.span_start = 0.0
        self.outer_start = 0.0
        self.seconds = 0.0  # every compile finished in this process (outermost ones)
        self.spent: dict[tuple[str, str], float] = {}  # seconds per game and path, finished spans
        self.kernels: dict[tuple[str, str], int] = {}  # project kernels compiled per game and path
        self.expected: dict[tuple[str, str], int | None] = {}
        self.noticed: set[tuple[str, str]] = set()
        self.ticked = False  # a progress line was printed during the span under way
        self.said = 0.0  # when the last line about the span under way was printed (or it started)
        self.thread: threading.Thread | None = None

    # -- numba's events (in the compiling thread, under numba's compiler lock) --
    def on_start(self, event) -> None:
        dispatcher = (event.data or {}).get("dispatcher")
        func = getattr(dispatcher, "py_func", None)
        project = (getattr(func, "__module__", "") or "").partition(".")[0] in project_packages()
        origin = _kernel_origin(dispatcher)
        now = time.perf_counter()
        with self.lock:
            if not self.stack:
                self.outer_start = now
            self.stack.append(project)
            if self.origin is not None or origin is None:
                return
            self.origin, self.origin_depth, self.span_start, self.ticked = origin, len(self.stack), now, False
            self.said = now
            first = origin not in self.noticed
            self.noticed.add(origin)
        if first:
            self._notice(origin, dispatcher)
        if not _silenced():
            self._progress_thread()

    def on_end(self, event) -> None:
        now = time.perf_counter()
        done = None
        with self.lock:
            if not self.stack:  # a listener registered mid-compile
                return
            depth = len(self.stack)
            project = self.stack.pop()
            origin = self.origin
            if origin is not None and project:
                self.kernels[origin] = self.kernels.get(origin, 0) + 1
            if origin is not None and depth == self.origin_depth:
                self.spent[origin] = self.spent.get(origin, 0.0) + now - self.span_start
                if self.ticked:
                    done = (origin, self.spent[origin], self.kernels.get(origin, 0))
                self.origin = None
            if not self.stack:
                self.seconds += now - self.outer_start
        if done is not None:
            _say(f"tabletop-rl-envs: compiled {_what(*done[0])}: {done[1]:.0f} s, {done[2]} kernels")

    # -- the notice and the progress lines --
    def _notice(self, origin: tuple[str, str], dispatcher) -> None:
        package, path = origin
        more = ""
        with_own = False
        if _path_cached(origin):
            name = getattr(getattr(dispatcher, "py_func", None), "__name__", "") or "?"
            more = name
        elif path != "aec":
            with_own = not _path_cached((package, "aec"))
        counts = compile_figures(package)[1]
        expected = None if more or path not in counts or (with_own and "aec" not in counts) else \
            counts[path] + (counts["aec"] if with_own else 0)
        with self.lock:
            self.expected[origin] = expected
        _say(compile_notice(package, path, with_own=with_own, more=more))

    def _progress_thread(self) -> None:
        """Start the progress thread unless it runs (it ends after an interval without compiling)."""
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                thread = threading.Thread(target=self._tick, name="tabletop-rl-compile-progress", daemon=True)
                try:
                    thread.start()
                except RuntimeError:  # no new thread at interpreter shutdown: compile without progress lines
                    return
                self.thread = thread

    def progress_line(self) -> str | None:
        """The progress line of the compile under way (None when no game's kernels are compiling)."""
        with self.lock:
            return self._progress_line(time.perf_counter())

    def _progress_line(self, now: float) -> str | None:
        origin = self.origin
        if origin is None:
            return None
        spent = self.spent.get(origin, 0.0) + now - self.span_start
        done = self.kernels.get(origin, 0)
        expected = self.expected.get(origin)
        count = f"{done} of ~{expected} kernels" if expected and done <= expected else f"{done} kernels"
        return f"tabletop-rl-envs: still compiling {_what(*origin)}: {spent:.0f} s so far, {count}"

    def _tick(self) -> None:
        """The progress thread: wakes a few times per interval (a sleep, no spinning), prints a line
        when a compile has gone on for an interval since the last line, and ends after an interval
        without any compile (the next compile of a game's kernels starts it again)."""
        idle_since = time.perf_counter()
        while True:
            time.sleep(min(1.0, _TICK_SECONDS / 4))
            now = time.perf_counter()
            with self.lock:
                if self.stack:
                    idle_since = now
                elif now - idle_since >= _TICK_SECONDS:
                    self.thread = None
                    return
                line = None
                if self.origin is not None and now - self.said >= _TICK_SECONDS:
                    line = self._progress_line(now)
                    self.said, self.ticked = now, True
            if line is not None:
                _say(line)

    def after_fork(self) -> None:
        """In a forked child: a fresh lock (the parent's may have been held by another thread), no
        progress thread and no compile under way."""
        self.lock = threading.Lock()
        self.thread = None
        self.stack, self.origin = [], None


_NOTICE = _CompileNotice()
_numba_event.register("numba:compile", _NOTICE)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_NOTICE.after_fork)


def compile_seconds() -> float:
    """Seconds this process has spent compiling numba kernels so far (compiles under way not
    included): a timing can subtract what it contains of them."""
    with _NOTICE.lock:
        return _NOTICE.seconds


_warned_uncached = False


def _make(options: dict):
    def decorate(func):
        global _warned_uncached
        if not _STAMPED:
            return _registered(numba.njit(cache=False, **options)(func))
        try:
            return _registered(numba.njit(cache=True, **options)(func))
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
            return _registered(numba.njit(cache=False, **options)(func))

    return decorate


def _registered(dispatcher):
    _DISPATCHERS.add(dispatcher)
    return dispatcher


#: Options of every project kernel besides ``cache``:
#:
#: * ``nogil``: a batched call can run beside other Python threads;
#: * ``error_model="numpy"``: an integer ``//`` or ``%`` by zero gives 0 and a float division gives
#:   inf / nan instead of raising ``ZeroDivisionError`` (Python's floor semantics for negative
#:   operands are kept). No kernel divides by zero (the denominators are player counts, sizes and
#:   validated options), so this only drops a zero test and an exception path from every division:
#:   +5-10% on the rollouts of a game whose label arithmetic is all ``//`` and ``%``
#:   (benchmarks/README.md), the other games within noise;
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
#: ever run: a thin kernel over a big call tree (a game's plain ``apply_legal``, or a mask over a
#: large search) costs that tree's optimisation and machine code once more.
#: But an inlined body goes through numba's untyped passes and is typed again at every call site, so
#: which kernels pay was measured, not read off their size: in one game a 46-line mask over a search
#: paid, while helpers of 27-96 lines (one call site each, little below them) made the cold compile
#: slower (benchmarks/README.md, 2026-12-06 (3)).
ijit = _make({**_KERNEL, "inline": "always"})

__all__ = ["jit", "pjit", "ijit", "numba", "kernel_digest", "kernel_sources", "CACHE_STAMPED", "compile_figures",
           "compile_notice", "compile_seconds", "project_packages"]
