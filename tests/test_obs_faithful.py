"""The observation is a faithful function of what the seat may know (issue 50).

For every game, player count and kind of decision: random games are played, positions are branched
on their legal actions, and every child is compared, for every seat, and so is the position where
the deciding seat decides next: over all the positions compared, two whose views
``GAME.to_dict(state, viewer=seat)`` differ must give that seat different observations. The only
parts of a view an observation may leave out are the ones a game lists in
``GameSpec.obs_leaves_out`` (with the reason, printed in its env docstring).

The named views (``GAME.observation_views``) are checked against the docstring's table: the same
blocks, in the same order, at the same offsets, in the documented shapes.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import GAME_NAMES, GAME_PLAYERS
from gamecore.kernel.games import get_game
from gamecore.kernel.protocol import H_CURRENT, H_TERMINAL

#: positions branched per decision kind and player count
POSITIONS_PER_KIND = 6
#: children compared per branched position (a random subset when there are more legal actions)
MAX_CHILDREN = 48
#: random games per player count at most (sampling stops earlier once every kind has its positions)
MAX_GAMES = 16


def _drop(view: dict, path: str) -> None:
    """Remove the dotted ``path`` from a nested dict/list view (a list applies the rest to each item)."""
    head, _, rest = path.partition(".")
    if isinstance(view, list):
        for item in view:
            _drop(item, path)
        return
    if not isinstance(view, dict) or head not in view:
        return
    if rest:
        _drop(view[head], rest)
    else:
        del view[head]


def seat_view(game, state: np.ndarray, seat: int) -> str:
    """The seat's view as one canonical string, without what the observation may leave out."""
    view = game.to_dict(state, viewer=seat)
    for path in game.obs_leaves_out:
        _drop(view, path)
    return json.dumps(view, sort_keys=True, default=str)


def next_decision_of(game, state: np.ndarray, seat: int, mask: np.ndarray) -> np.ndarray:
    """The position where ``seat`` decides next (or the end), the others taking their lowest legal
    action meanwhile."""
    kernels = game.kernels
    state = state.copy()
    while not state[H_TERMINAL] and int(state[H_CURRENT]) != seat:
        kernels.legal_mask(state, mask)
        kernels.apply(state, int(np.flatnonzero(mask)[0]))
    return state


def branch_and_compare(game, params, state: np.ndarray, legal: np.ndarray, rng: np.random.Generator,
                       seen: dict | None = None) -> list[str]:
    """Branch ``state`` on its legal actions; in every child, and where the deciding seat decides
    next, record every seat's (observation, view) in ``seen``: a second view under an observation
    already recorded is a collision, returned as a message."""
    kernels = game.kernels
    n = int(params[0])
    mover = int(state[H_CURRENT])
    obs = np.empty(int(np.prod(game.obs_shape(params))), dtype=np.int8)
    mask = np.zeros(game.num_actions(params), dtype=np.int8)
    if len(legal) > MAX_CHILDREN:
        legal = rng.choice(legal, MAX_CHILDREN, replace=False)
    seen = {} if seen is None else seen
    problems = []

    def record(position: np.ndarray, seat: int, how: str) -> None:
        kernels.observe(position, seat, obs)
        key = (seat, obs.tobytes())
        view = seat_view(game, position, seat)
        if key in seen and seen[key][0] != view:
            a, b = json.loads(seen[key][0]), json.loads(view)
            differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            problems.append(f"seat {seat} sees the same observation {seen[key][1]} and {how}; "
                            f"its views differ in {differ}")
        seen[key] = (view, how)

    for action in legal:
        child = state.copy()
        kernels.apply(child, int(action))
        how = f"after {game.phase_name(state)} {game.action_to_string(state, int(action))!r}"
        for seat in range(n):
            record(child, seat, how)
        record(next_decision_of(game, child, mover, mask), mover, how + " at its next decision")
    return problems


def faithfulness_problems(name: str, n: int, seed: int = 0) -> tuple[set[str], list[str]]:
    """(decision kinds branched, collisions found) over random games of ``name`` at ``n`` players."""
    game = get_game(name)
    kernels = game.kernels
    params = game.make_params(n)
    rng = np.random.default_rng(seed)
    mask = np.zeros(game.num_actions(params), dtype=np.int8)
    state = np.zeros(kernels.STATE_LEN, dtype=np.int64)
    branched: dict[str, int] = {}
    problems: list[str] = []
    seen: dict = {}  # every seat's observation -> the view it stood for, over all positions compared
    for g in range(MAX_GAMES):
        kernels.init(state, params, seed * 1000 + g)
        while not state[H_TERMINAL]:
            kernels.legal_mask(state, mask)
            legal = np.flatnonzero(mask)
            kind = game.phase_name(state)
            # branch the first positions of each kind met, then later ones with a small chance
            if branched.get(kind, 0) < POSITIONS_PER_KIND and (branched.get(kind, 0) == 0 or rng.random() < 0.2):
                branched[kind] = branched.get(kind, 0) + 1
                problems += branch_and_compare(game, params, state, legal, rng, seen)
            kernels.apply(state, int(legal[rng.integers(len(legal))]))
        if all(branched.get(k, 0) >= POSITIONS_PER_KIND for k in game.phase_names):
            break
    return set(branched), problems


#: decision kinds a player count cannot reach, by the rules (checked: the union over the counts is every kind)
UNREACHABLE = {("cultivo", 2): {"refill"}, ("cultivo", 3): {"refill"}}


@pytest.mark.parametrize(("name", "n"), GAME_PLAYERS)
def test_distinct_seat_views_give_distinct_observations(name, n):
    kinds, problems = faithfulness_problems(name, n)
    assert not problems, f"{len(problems)} collisions, e.g.\n" + "\n".join(problems[:5])
    game = get_game(name)
    missing = set(game.phase_names) - kinds - UNREACHABLE.get((name, n), set())
    assert not missing, f"{name} {n}p: no position of kind {sorted(missing)} was branched"


def test_the_check_catches_an_observation_that_forgets_a_pending_choice(monkeypatch):
    """The property fails on the case issue 50 found: Cultivo's observation with the flag of the
    worker chosen in ``move_worker`` blanked (as v0 had no such flag) gives the same observation
    whichever worker was chosen, and the check says so."""
    game = get_game("cultivo")
    kernels = game.kernels
    params = game.make_params(2)
    true_observe = kernels.observe
    mover = 4  # FIELD_FLAGS[:, 4]: the worker chosen to move (see cultivo_env.env)

    class Forgetful:
        def __getattr__(self, attr):
            return getattr(kernels, attr)

        @staticmethod
        def observe(state, seat, out):
            true_observe(state, seat, out)
            game.observation_views(out, params)["FIELD_FLAGS"][:, mover] = 0

    forgetful = Forgetful()
    state = np.zeros(kernels.STATE_LEN, dtype=np.int64)
    mask = np.zeros(game.num_actions(params), dtype=np.int8)
    rng = np.random.default_rng(0)
    kernels.init(state, params, 0)
    problems: list[str] = []
    checked = 0
    while not problems and not state[H_TERMINAL]:  # move_worker decisions with a choice of workers
        kernels.legal_mask(state, mask)
        legal = np.flatnonzero(mask)
        if game.phase_name(state) == "move_worker" and len(legal) > 1:
            checked += 1
            assert not branch_and_compare(game, params, state, legal, rng)
            with monkeypatch.context() as patch:
                patch.setattr(game, "kernels", forgetful)
                problems = branch_and_compare(game, params, state, legal, rng)
        kernels.apply(state, int(legal[rng.integers(len(legal))]))
    assert problems, f"no collision in {checked} move_worker positions"
    assert "differ in ['action']" in problems[0], problems[0]


@pytest.mark.parametrize(("name", "n"), GAME_PLAYERS)
def test_the_named_views_are_the_docstring_table(name, n):
    game = get_game(name)
    params = game.make_params(n)
    shape = game.obs_shape(params)
    obs = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    views = game.observation_views(obs, params)
    lay = game.obs_layout(params) or __import__(f"{name}_env.layout").layout.OBS_PLANES[n]
    assert list(views) == lay.names()
    flat = obs.reshape(-1, shape[-1]) if game.obs_layout(params) is None else obs.reshape(1, -1)
    for block in lay.blocks:
        view = views[block.name]
        assert np.shares_memory(view, obs)
        assert view.shape[view.ndim - len(block.axes):] == block.axes, block.name
        # the view holds exactly the block's entries, in C order
        expected = flat[:, block.offset : block.end].reshape(*view.shape)
        assert np.array_equal(view, expected), block.name
    env_doc = __import__(f"{name}_env.env").env.__doc__
    for block in lay.blocks:
        assert f"`{block.name}`" in env_doc, f"{block.name} is not in the env docstring's table"
    batch = np.stack([obs, obs])
    assert all(v.shape[0] == 2 for v in game.observation_views(batch, params).values())


@pytest.mark.parametrize("name", GAME_NAMES)
def test_terminal_observations_show_no_pending_decision(name):
    """Once a game is over no decision is pending: the kind of decision and the seat to move are
    all zero in every seat's observation (the house convention the env docstrings state)."""
    game = get_game(name)
    kernels = game.kernels
    params = game.make_params(game.default_players)
    state = np.zeros(kernels.STATE_LEN, dtype=np.int64)
    kernels.init(state, params, 3)
    mask = np.zeros(game.num_actions(params), dtype=np.int8)
    rng = np.random.default_rng(3)
    while not state[H_TERMINAL]:
        kernels.legal_mask(state, mask)
        legal = np.flatnonzero(mask)
        kernels.apply(state, int(legal[rng.integers(len(legal))]))
    obs = np.empty(game.obs_shape(params), dtype=np.int8)
    for seat in range(int(params[0])):
        kernels.observe(state, seat, obs.reshape(-1))
        views = game.observation_views(obs, params)
        pending = [k for k in game.obs_pending_blocks if np.any(views[k])]
        assert not pending, f"seat {seat}: {pending} not zero at the end"
    assert game.obs_pending_blocks, f"{name} names none of its blocks as the pending decision"
