"""The registry of games: which games there are, and each one's facts that the machinery needs
before (or without) importing its kernels.

A game is a package (``<game>_env``) that, first thing in its ``__init__``, calls
:func:`register_package` with its title, its PettingZoo id and its measured compile figures, and
that exposes ``GAME`` (its :class:`~gamecore.kernel.protocol.GameSpec`), ``env`` and ``raw_env``.
Everything else -- the CLI, the arena, the warm-up, OpenSpiel, PettingZoo's and Gymnasium's
registries, the compile notice, the kernel cache -- finds games here and names none.

Where games come from, in this order:

* **installed** games: the entry points of group :data:`ENTRY_POINT_GROUP` of every installed
  distribution, name -> package, as Gymnasium's third-party envs and pytest's plugins are found.
  This distribution declares its four in ``pyproject.toml``; a game shipped in a distribution of
  its own declares its one the same way and appears everywhere with no edit here::

      [project.entry-points."tabletop_rl_envs.games"]
      my_game = "my_game_env"

* **added** games: the packages named in the environment variable :data:`GAMES_VARIABLE`
  (comma-separated, importable from ``sys.path``), and those passed to :func:`add_game` in this
  process. This serves a game that is not installed (a checkout on ``PYTHONPATH``, the packages
  Ray ships to its workers, which carry no distribution metadata: :mod:`gamecore.envs.rllib` sets
  the variable in the workers' environment).

Importing a game package is cheap (its ``__init__`` registers and loads nothing else; ``GAME``,
``env`` and ``raw_env`` load on first use), so asking for a game's title or id never compiles or
loads a kernel.
"""

import importlib
import importlib.util
import os
import sys
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

from gamecore.kernel.options import short_repr

if TYPE_CHECKING:
    from gamecore.kernel.protocol import GameSpec

#: entry-point group of installed games: name = the game's name, value = its package
ENTRY_POINT_GROUP = "tabletop_rl_envs.games"
#: environment variable naming game packages to add (comma-separated)
GAMES_VARIABLE = "TABLETOP_RL_ENVS_GAMES"
#: the paths a game gives compile figures for (:attr:`GamePackage.compile_seconds`): "aec" the game's
#: own kernels (the AEC env and everything else that steps one game from Python), "batched" the
#: BatchedGames / VecEnv kernels on top of those (their one-thread copy), "threaded" their copy for
#: more than one thread, "mcts" / "greedy" / "puct" the search kernels of the MCTS agent, of the
#: greedy and value-greedy agents and of the batched PUCT search
COMPILE_PATHS = ("aec", "batched", "threaded", "mcts", "greedy", "puct")


@dataclass(frozen=True)
class GamePackage:
    """What a game package says about itself when it registers (:func:`register_package`)."""

    package: str  #: top-level package name, ``"facade_env"``
    name: str  #: the game's name, ``"facade"`` (its id without the version)
    title: str  #: as people write it, accents and all, ``"Façade"``
    env_id: str  #: PettingZoo id, ``"facade-v1"``: the version goes up whenever what an env returns changes
    #: the cold compile of each path (:data:`COMPILE_PATHS`) on an idle 2-core machine, in seconds
    #: (the compile notice's estimate; a path without a figure is announced without one)
    compile_seconds: dict[str, int] = field(default_factory=dict)
    #: how many kernels each path compiles then (what the notice's progress lines count against)
    compile_kernels: dict[str, int] = field(default_factory=dict)


_REGISTERED: dict[str, GamePackage] = {}  # package -> what it registered
_ADDED: list[str] = []  # packages passed to add_game, in order


def register_package(package: str, *, title: str, env_id: str, compile_seconds: dict[str, int] | None = None,
                     compile_kernels: dict[str, int] | None = None) -> GamePackage:
    """Register game package ``package`` (its ``__name__``): called first in the package's
    ``__init__``, before any of its kernels is defined, so that they are cached and announced as
    this game's. ``env_id`` is ``"<name>-v<N>"``; ``compile_seconds`` and ``compile_kernels`` map
    paths of :data:`COMPILE_PATHS` to the figures measured by ``benchmarks/notice_seconds.py``.
    Registering again replaces the figures."""
    if not isinstance(package, str) or not package.isidentifier():
        raise ValueError(f"register_package: {short_repr(package)} is not a top-level package name")
    name, _, version = str(env_id).rpartition("-")
    if not name or not version.startswith("v") or not version[1:].isdigit():
        raise ValueError(f"register_package: env_id {short_repr(env_id)} is not '<name>-v<N>'")
    if not name.isidentifier() or name != name.lower():
        raise ValueError(f"register_package: the game name {short_repr(name)} must be a lower-case identifier")
    for what, table in (("compile_seconds", compile_seconds), ("compile_kernels", compile_kernels)):
        unknown = sorted(set(table or {}) - set(COMPILE_PATHS))
        if unknown:
            raise ValueError(f"register_package: {what} names unknown paths {unknown}; paths: {list(COMPILE_PATHS)}")
    entry = GamePackage(package, name, str(title), str(env_id), dict(compile_seconds or {}),
                        dict(compile_kernels or {}))
    _REGISTERED[package] = entry
    return entry


def registered(package: str) -> GamePackage | None:
    """What ``package`` registered, if it has been imported (None otherwise)."""
    return _REGISTERED.get(package)


def _entry_points() -> dict[str, str]:
    found: dict[str, str] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.value.split(":")[0].strip())
    return found


_INSTALLED: dict[str, str] | None = None


def installed() -> dict[str, str]:
    """Installed games (entry points), name -> package, read once per process."""
    global _INSTALLED
    if _INSTALLED is None:
        _INSTALLED = _entry_points()
    return dict(_INSTALLED)


def added_packages() -> list[str]:
    """Packages added by :data:`GAMES_VARIABLE` and :func:`add_game`, in order, without repeats."""
    named = [p.strip() for p in os.environ.get(GAMES_VARIABLE, "").split(",") if p.strip()]
    return list(dict.fromkeys([*named, *_ADDED]))


def add_game(package: str) -> str:
    """Add a game package that is not installed (importable from ``sys.path``) to this process's
    registry; returns the game's name. The package is imported (cheaply: see the module docstring)
    and must register itself."""
    if not isinstance(package, str) or not package.isidentifier():
        raise ValueError(f"add_game: {short_repr(package)} is not a top-level package name")
    entry = _load(package)
    if package not in _ADDED:
        _ADDED.append(package)
    return entry.name


def _load(package: str) -> GamePackage:
    if package not in _REGISTERED:
        importlib.import_module(package)
    entry = _REGISTERED.get(package)
    if entry is None:
        raise ValueError(f"package {package!r} does not register a game: its __init__ must call "
                         "gamecore.kernel.games.register_package first")
    return entry


def games() -> dict[str, str]:
    """Every game of this process, name -> package: the installed ones, then the added ones (whose
    names come from their registration, so adding one imports it). An added package that cannot be
    imported is left out here and fails where it is asked for by name."""
    out = installed()
    for package in added_packages():
        if package in out.values():
            continue
        try:
            out.setdefault(_load(package).name, package)
        except (ImportError, ValueError):
            continue
    return out


def shipped_runtime_env(env_vars: dict[str, str] | None = None) -> dict[str, Any]:
    """A Ray ``runtime_env`` that ships gamecore and every game package with a job (``py_modules``,
    each package's folder as this process imports it) and names the games to the workers, whose
    copies carry no distribution metadata to find them by (:data:`GAMES_VARIABLE`); ``env_vars``
    adds variables of the caller's (``NUMBA_CACHE_DIR``, say)."""
    packages = ["gamecore", *games().values()]
    folders = []
    for package in packages:
        spec = importlib.util.find_spec(package)
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        if not locations:
            raise ValueError(f"cannot ship package {package!r}: it is not a folder on sys.path")
        folders.append(locations[0])
    variables = {GAMES_VARIABLE: ",".join(packages[1:]), **(env_vars or {})}
    return {"py_modules": folders, "excludes": ["__pycache__"], "env_vars": variables}


class _Registry(Mapping[str, str]):
    """:func:`games` as a read-only mapping, read afresh at each use (``GAMES["<game>"]``,
    ``sorted(GAMES)``, ``name in GAMES``, ``GAMES.values()``)."""

    def __getitem__(self, name: str) -> str:
        return games()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(games())

    def __len__(self) -> int:
        return len(games())

    def __repr__(self) -> str:
        return f"GAMES({games()!r})"


#: every game of this process, name -> package (a live view of :func:`games`)
GAMES: Mapping[str, str] = _Registry()


def game_key(game: str) -> str:
    """``"Façade"``, ``"facade-v1"``, ``"tabletop-rl-envs/Facade-v1"``, ``"FACADE"`` ->
    ``"facade"``."""
    return str(game).lower().replace("ç", "c").split("/")[-1].rsplit("-v", 1)[0]


def game_package(game: str) -> GamePackage:
    """The registration of the game named ``game`` (any spelling :func:`game_key` reads), importing
    its package (cheaply) if need be."""
    key = game_key(game)
    known = games()
    if key not in known:
        raise ValueError(f"unknown game {short_repr(game)}; available: {', '.join(sorted(known)) or 'none'}")
    return _load(known[key])


def get_game(game: "str | GameSpec") -> "GameSpec":
    """The :class:`~gamecore.kernel.protocol.GameSpec` of a game named ``game`` (or ``game`` itself)."""
    from gamecore.kernel.protocol import GameSpec

    if isinstance(game, GameSpec):
        return game
    if not isinstance(game, str):
        raise TypeError(f"game must be a name or a GameSpec, got {type(game).__name__}")
    return importlib.import_module(game_package(game).package).GAME


def lazy_exports(package: str, exports: dict[str, str]) -> None:
    """Make each name of ``exports`` an attribute of game package ``package`` (its ``__name__``) that
    is loaded from its module on first use (``{"GAME": "<game>_env.game"}``), so that importing
    the package, or one of its kernel modules, imports neither the env machinery (gymnasium,
    pettingzoo) nor the game's spec. Called in the package's ``__init__``::

        lazy_exports(__name__, {"env": "<game>_env.env", "GAME": "<game>_env.game"})

    The names are properties of the package's module class, so they win over the submodule of the
    same name that importing sets (``<game>_env.env`` is the function ``env``, as an eager
    ``from <game>_env.env import env`` in ``__init__`` made it)."""
    module = sys.modules[package]

    def export(name: str, source: str) -> property:
        slot = f"_lazy_export_{name}"  # a value set on the package (a test's monkeypatch) wins

        def get(self):
            if slot in self.__dict__:
                return self.__dict__[slot]
            return getattr(importlib.import_module(source), name)

        def put(self, value) -> None:
            if isinstance(value, types.ModuleType) and value.__name__ == f"{package}.{name}":
                return  # the import system binding the submodule of the same name
            self.__dict__[slot] = value

        def drop(self) -> None:
            self.__dict__.pop(slot, None)

        return property(get, put, drop)

    props = {name: export(name, source) for name, source in exports.items()}
    module.__class__ = type(f"{package}_package", (types.ModuleType,), props)
