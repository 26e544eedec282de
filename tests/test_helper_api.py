"""Every game offers the same helpers under the same names and signatures: the package exports
``env``, ``raw_env``, ``GAME``, ``state_from_ascii`` and ``legal_strings`` (and nothing else), and
``state_from_ascii``, ``legal_strings``, ``notation.action_to_string`` / ``string_to_action``,
``render.rgb`` and ``GAME.to_dict`` take the same first parameters in every game (game-specific
extras come after them and are optional or keyword-only); the notation round-trips every legal
action."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest

from conftest import OUR_GAMES as GAMES
from gamecore.kernel.protocol import H_NPLAYERS, H_TERMINAL, VIEW_PUBLIC

EXPORTS = ("env", "raw_env", "GAME", "state_from_ascii", "legal_strings")

#: (module of the game package, attribute path) -> the parameters every game's helper starts with,
#: and the defaults of those that have one
SHARED: dict[tuple[str, str], tuple[tuple[str, ...], dict[str, object]]] = {
    ("game", "state_from_ascii"): (("text",), {}),
    ("game", "legal_strings"): (("state",), {}),
    ("notation", "action_to_string"): (("state", "action"), {}),
    ("notation", "string_to_action"): (("text", "state"), {}),
    ("render", "rgb"): (("state", "viewer", "scale"), {"viewer": VIEW_PUBLIC, "scale": 1.0}),
    ("game", "GAME.to_dict"): (("state", "viewer"), {"viewer": VIEW_PUBLIC}),
}

GAME_NAMES = list(GAMES)


def _package(name: str):
    return importlib.import_module(GAMES[name])


def _helper(name: str, module: str, path: str):
    obj = importlib.import_module(f"{GAMES[name]}.{module}")
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _type_checking_imports(package) -> set[str]:
    """The names the package's ``if TYPE_CHECKING:`` block imports."""
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom):
                    names.update(alias.asname or alias.name for alias in sub.names)
    return names


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_package_exports_exactly_the_shared_names(name):
    pkg = _package(name)
    assert sorted(pkg.__all__) == sorted(EXPORTS) and len(pkg.__all__) == len(set(pkg.__all__))
    lazy = {attr for attr, value in vars(type(pkg)).items() if isinstance(value, property)}
    assert lazy == set(EXPORTS)  # lazy_exports(__name__, {...})
    assert _type_checking_imports(pkg) == set(EXPORTS)
    game = importlib.import_module(f"{GAMES[name]}.game")
    assert pkg.GAME is game.GAME
    assert pkg.state_from_ascii is game.state_from_ascii and pkg.legal_strings is game.legal_strings
    assert callable(pkg.env) and isinstance(pkg.raw_env, type)


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("where", list(SHARED), ids=[f"{m}.{p}" for m, p in SHARED])
def test_helpers_share_names_and_first_parameters(name, where):
    first, defaults = SHARED[where]
    fn = _helper(name, *where)
    params = list(inspect.signature(fn).parameters.values())
    assert tuple(p.name for p in params[: len(first)]) == first, (where, [p.name for p in params])
    for p in params[: len(first)]:
        assert p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD), (where, p)
        if p.name in defaults:
            assert p.default == defaults[p.name], (where, p)
        elif where != ("game", "state_from_ascii"):  # Cultivo's map text may be left out
            assert p.default is p.empty, (where, p)
    for p in params[len(first):]:  # game-specific extras: optional or keyword-only, never required
        assert p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) or p.default is not p.empty, (where, p)


def _states(name: str, decisions: int = 6):
    """A fresh game at each player count, and the first ``decisions`` positions of a seeded random
    game at the smallest count."""
    spec = _package(name).GAME
    K = spec.kernels
    for n in spec.player_counts:
        params = spec.make_params(n)
        state = np.zeros(K.STATE_LEN, dtype=np.int64)
        K.init(state, params, 11 + n)
        yield state.copy()
        if n != spec.min_players:
            continue
        mask = np.zeros(spec.num_actions(params), dtype=np.int8)
        rng = np.random.default_rng(n)
        for _ in range(decisions):
            count = K.legal_mask(state, mask)
            if state[H_TERMINAL] or not count:
                break
            K.apply(state, int(np.flatnonzero(mask)[int(rng.integers(count))]))
            yield state.copy()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_notation_round_trips_every_legal_action_and_legal_strings_lists_them(name):
    pkg = _package(name)
    notation = importlib.import_module(f"{GAMES[name]}.notation")
    spec = pkg.GAME
    checked = 0
    for state in _states(name):
        before = state.copy()
        mask = _legal_mask(spec, state)
        legal = [int(a) for a in np.flatnonzero(mask)]
        assert legal
        strings = [notation.action_to_string(state, a) for a in legal]
        assert len(set(strings)) == len(strings), "two legal actions share a name"
        for a, text in zip(legal, strings, strict=True):
            assert notation.string_to_action(text, state) == a, text
            assert spec.action_to_string(state, a) == text
        assert pkg.legal_strings(state) == sorted(strings)
        assert np.array_equal(state, before)  # the helpers leave the state alone
        checked += len(legal)
    assert checked


def _legal_mask(spec, state: np.ndarray) -> np.ndarray:
    mask = np.zeros(spec.num_actions(spec.make_params(int(state[H_NPLAYERS]))), dtype=np.int8)
    spec.kernels.legal_mask(state, mask)
    return mask


@pytest.mark.parametrize("name", GAME_NAMES)
def test_rgb_takes_the_viewer_and_scales(name):
    render = importlib.import_module(f"{GAMES[name]}.render")
    spec = _package(name).GAME
    state = next(iter(_states(name)))
    plain = render.rgb(state)
    assert np.array_equal(plain, spec.render_rgb(state, VIEW_PUBLIC))
    assert np.array_equal(plain, render.rgb(state, VIEW_PUBLIC, 1.0))
    for viewer in range(spec.min_players):  # a seat as viewer: a picture of the same size
        assert render.rgb(state, viewer).shape == plain.shape
    big = render.rgb(state, VIEW_PUBLIC, scale=1.5)  # about 1.5 times as high and as wide
    for axis in (0, 1):
        assert 1.35 <= big.shape[axis] / plain.shape[axis] <= 1.65, (big.shape, plain.shape)
