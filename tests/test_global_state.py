"""The global state (``env.state()``, ``state_space``, ``BatchedGames.global_states``) is public,
seat-absolute, complete and exact, for every game at every player count.

Positions come from a few seeded random games per game and count (an evenly spaced sample of each
game's decisions for the per-position checks; every decision for the ones that compare consecutive
positions). For each position:

* nothing hidden shows: ``state()`` is unchanged after ``resample(copy, p, seed)`` for every seat
  ``p`` and a few seeds (resample redeals whatever ``p`` cannot see), and two positions with the
  same public ``to_dict`` view have the same state;
* everything public shows: whenever a decision changes the public ``to_dict`` view or the public
  part of any seat's observation, the state changes too;
* it is seat-absolute: its decider / turn-owner blocks name the seats themselves;
* ``state_space.contains`` it, dtype and shape exact; ``view="all"`` adds exactly each seat's
  private observation blocks;
* the batched ``global_states()`` equals, row by row, ``state()`` of sequential envs seeded
  ``seed + i`` playing the same decisions.
"""

from __future__ import annotations

import copy
import functools
import json
import pickle
import warnings

import numpy as np
import pytest
from gymnasium import spaces

from conftest import GAME_NAMES, GAME_PLAYERS, game_module, play_to_end, random_legal
from gamecore.envs.batched import BatchedGames
from gamecore.envs.global_state import HEADER_BLOCKS, global_state_view
from gamecore.kernel.protocol import H_CURRENT, H_OWNER, H_TERMINAL, VIEW_PUBLIC

SEEDS = (11, 12)  # the random games played per game and count
RESAMPLE_SEEDS = (1, 2)
SAMPLED = 60  # positions sampled per game and count for the per-position checks


def _public_dict(game, state: np.ndarray) -> str:
    d = game.to_dict(state, VIEW_PUBLIC)
    d.pop("viewer", None)
    return json.dumps(d, sort_keys=True)


@functools.cache
def _games(name: str, n: int) -> tuple[tuple[np.ndarray, ...], ...]:
    """The kernel states of every position of a few seeded random games (decision by decision,
    the terminal position last)."""
    raw = game_module(name).raw_env(num_players=n)
    out = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        raw.reset(seed=seed)
        states = [raw.get_state()]
        while not raw.state_array[H_TERMINAL]:
            raw.step(random_legal(raw.observe(raw.agent_selection)["action_mask"], rng))
            states.append(raw.get_state())
        out.append(tuple(states))
    return tuple(out)


def _sample(name: str, n: int) -> list[np.ndarray]:
    states = [s for g in _games(name, n) for s in g]
    if len(states) <= SAMPLED:
        return states
    pick = np.linspace(0, len(states) - 1, SAMPLED).round().astype(int)
    return [states[i] for i in pick]


def _obs(game, params, state: np.ndarray, seat: int) -> np.ndarray:
    obs = np.zeros(int(np.prod(game.obs_shape(params))), dtype=np.int8)
    game.kernels.observe(state, seat, obs)
    return obs


def _public_obs(game, params, state: np.ndarray, seat: int) -> np.ndarray:
    """The public entries of ``seat``'s observation (its private blocks removed)."""
    obs = _obs(game, params, state, seat)
    lay = game.obs_layout(params)
    if lay is None:
        return obs
    keep = [np.arange(b.offset, b.end) for b in lay.blocks if b.name not in game.private_obs_blocks]
    return obs[np.concatenate(keep)]


def _check_positions(name: str, n: int) -> None:
    mod = game_module(name)
    game = mod.GAME
    params = game.make_params(n)
    pub = global_state_view(game, params, "public")
    full = global_state_view(game, params, "all")
    env = mod.raw_env(num_players=n)
    env.reset(seed=0)
    private_n = full.size - pub.size
    moved_hidden = changed_private = 0
    by_view: dict[str, bytes] = {}
    for st in _sample(name, n):
        env.set_state(st)
        s = env.state()
        assert s.dtype == np.int8 and s.shape == env.state_space.shape == (pub.size,)
        assert env.state_space.contains(s)
        a = env.state(view="all")
        assert a.shape == (full.size,) and env.global_state_space("all").contains(a)
        # "all" = the public state's observation part, then each seat's private blocks, then the header
        np.testing.assert_array_equal(a[: pub.obs_part], s[: pub.obs_part])
        np.testing.assert_array_equal(a[full.obs_part:], s[pub.obs_part:])
        # seat-absolute: the header names the seats themselves
        lay = pub.layout
        cur = s[lay.offset("H_CURRENT"): lay.offset("H_CURRENT") + n]
        assert cur.sum() == (0 if st[H_TERMINAL] else 1)
        if not st[H_TERMINAL]:
            assert int(np.argmax(cur)) == int(st[H_CURRENT]) == env.agent_name_mapping[env.agent_selection]
        assert s[lay.offset("H_OWNER") + int(st[H_OWNER])] == 1
        for block, seat in (("CURRENT", H_CURRENT), ("OWNER", H_OWNER)):  # the observation's own, seat 0's = absolute
            if block in lay and not st[H_TERMINAL]:
                one_hot = s[lay.offset(block): lay.offset(block) + n]
                assert list(np.flatnonzero(one_hot)) == [int(st[seat])], block
        # nothing hidden: what resample redeals never shows
        view = _public_dict(game, st)
        for p in range(n):
            for seed in RESAMPLE_SEEDS:
                c = st.copy()
                game.kernels.resample(c, p, seed)
                moved_hidden += int(not np.array_equal(np.delete(c, 0), np.delete(st, 0)))  # slot 0: H_RNG
                assert _public_dict(game, c) == view
                np.testing.assert_array_equal(pub.of_state(game.kernels, c), s, err_msg=f"seat {p} seed {seed}")
                ca = full.of_state(game.kernels, c)
                lo, hi = full.bounds[p] if p else pub.obs_part, full.bounds[p + 1]
                np.testing.assert_array_equal(ca[lo:hi], a[lo:hi])  # seat p's own secrets: it saw them
                np.testing.assert_array_equal(ca[: pub.obs_part], s[: pub.obs_part])
                changed_private += int(not np.array_equal(ca, a))
        # equal public views give equal states
        assert by_view.setdefault(view, s.tobytes()) == s.tobytes()
    if game.hides_information(n):
        assert moved_hidden, "resample never redealt anything: the invariance above tests nothing"
    if private_n:
        assert changed_private, "resample never changed a private block: the 'all' view checks test nothing"
    else:
        assert full.size == pub.size


@pytest.mark.parametrize(("name", "n"), GAME_PLAYERS)
def test_state_is_public_seat_absolute_and_in_its_space(name, n):
    _check_positions(name, n)


@pytest.mark.parametrize(("name", "n"), GAME_PLAYERS)
def test_state_changes_whenever_something_public_changes(name, n):
    game = game_module(name).GAME
    params = game.make_params(n)
    pub = global_state_view(game, params, "public")
    decisions = unchanged = 0
    for states in _games(name, n):
        before = states[0]
        for after in states[1:]:
            decisions += 1
            s0, s1 = pub.of_state(game.kernels, before), pub.of_state(game.kernels, after)
            if np.array_equal(s0, s1):
                unchanged += 1
                assert _public_dict(game, before) == _public_dict(game, after)
                for seat in range(n):
                    np.testing.assert_array_equal(_public_obs(game, params, before, seat),
                                                  _public_obs(game, params, after, seat))
            before = after
    assert unchanged <= decisions // 20, f"{unchanged} of {decisions} decisions left the state as it was"


@pytest.mark.parametrize(("name", "n"), GAME_PLAYERS)
def test_every_seats_public_observation_is_in_the_state(name, n):
    """Each public entry of each seat's observation equals some entry of the global state at every
    position of the games played: whatever any seat's observation shows publicly (however it is
    rotated for that seat), the state holds too. Public here does not trust the game's
    ``private_obs_blocks``: an entry of seat s's observation is public unless another seat's
    resample changes it at some position (what s knows and another seat does not)."""
    game = game_module(name).GAME
    params = game.make_params(n)
    pub = global_state_view(game, params, "public")
    states = [s for g in _games(name, n) for s in g]
    columns = np.stack([pub.of_state(game.kernels, st) for st in states]).T  # (size, positions)
    have = {c.tobytes() for c in columns}
    for seat in range(n):
        obs = np.stack([_obs(game, params, st, seat) for st in states])
        secret = np.zeros(obs.shape[1], dtype=bool)
        for k, st in enumerate(states):
            for p in range(n):
                if p != seat:
                    c = st.copy()
                    game.kernels.resample(c, p, 5)
                    secret |= _obs(game, params, c, seat) != obs[k]
        missing = [j for j in np.flatnonzero(~secret) if obs[:, j].tobytes() not in have]
        assert not missing, f"seat {seat}: public observation entries {missing[:10]} are in no state entry"
        if game.private_obs_blocks and seat == 0:
            assert secret.any()


@pytest.mark.parametrize(("name", "n"), GAME_PLAYERS)
def test_batched_global_states_equal_the_aec_state_row_by_row(name, n):
    mod = game_module(name)
    num, seed, steps = 3, 40, 120
    games = BatchedGames(name, num, seed=seed, num_players=n)
    games.reset()
    envs = [mod.raw_env(num_players=n) for _ in range(num)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    ends = 0
    for _ in range(steps):
        for view in ("public", "all"):
            rows = games.global_states(view)
            assert rows.dtype == np.int8 and rows.shape == (num, *games.global_state_space(view).shape)
            for i, e in enumerate(envs):
                np.testing.assert_array_equal(games.states[i], e.state_array)
                np.testing.assert_array_equal(rows[i], e.state(view), err_msg=f"game {i} {view}")
        actions = games.random_actions()
        games.step(actions)
        for i, e in enumerate(envs):
            e.step(int(actions[i]))
            if e.state_array[H_TERMINAL]:
                e.reset()  # the next game of the stream, as the batch restarts it
                ends += 1
    assert games.global_state_layout().size == global_state_view(mod.GAME, games.params).size
    if name == "callisto":
        assert ends, "no game ended: the restarts were not compared"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_state_api(name):
    mod = game_module(name)
    game = mod.GAME
    with pytest.raises(RuntimeError, match="reset"):
        mod.raw_env().state()
    env = mod.env()  # through the order-enforcing wrapper
    assert env.state_space.shape == mod.raw_env().state_space.shape  # known before reset
    with pytest.raises(AssertionError, match="reset"):
        env.state()
    with pytest.raises(RuntimeError, match="reset"):
        BatchedGames(name, 2).global_states()
    env.reset(seed=3)
    raw = env.unwrapped
    assert isinstance(env.state_space, spaces.Box) and env.state_space.dtype == np.int8
    assert env.state_space is raw.global_state_space("public")
    np.testing.assert_array_equal(env.state(), raw.state())
    np.testing.assert_array_equal(env.state(view="all"), raw.state("all"))
    with pytest.raises(ValueError, match="view"):
        raw.state("seat")
    lay = raw.global_state_layout()
    assert lay.names()[-len(HEADER_BLOCKS):] == list(HEADER_BLOCKS)
    assert not set(lay.names()) & set(game.private_obs_blocks)
    assert lay.size == env.state_space.shape[0]
    high = env.state_space.high
    assert (env.state_space.low == 0).all() and set(np.unique(high)) <= {1, game.obs_high(raw.params)}
    for other in (copy.deepcopy(raw), pickle.loads(pickle.dumps(raw))):
        np.testing.assert_array_equal(other.state(), raw.state())
    if game.private_obs_blocks:
        assert raw.global_state_space("all").shape[0] > env.state_space.shape[0]
    assert "state()" in mod.env.__doc__


@pytest.mark.parametrize("name", GAME_NAMES)
def test_pettingzoo_state_test(name):
    from pettingzoo.test.state_test import test_state, test_state_space

    env = game_module(name).env()
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        test_state_space(env)
        test_state(env, 20)


@pytest.mark.parametrize(("name", "n"), GAME_PLAYERS)
def test_state_after_a_forfeit_shows_the_game_over(name, n):
    """``illegal="lose"`` ends the game outside the kernels (their state still has a decider); the
    env reports every seat terminated, and ``state()`` says the same in both views: no decider,
    every seat done, ``H_TERMINAL`` 1, as at a normal end, with the position (observation blocks,
    turn owner, pending decision) as it stood when the game ended."""
    mod = game_module(name)
    env = mod.env(num_players=n)  # illegal="lose"
    env.reset(seed=5)
    rng = np.random.default_rng(n)
    for _ in range(3):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    raw = env.unwrapped
    before = {view: env.state(view) for view in ("public", "all")}
    mover = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0]))
    assert all(env.terminations.values()) and env.rewards[mover] == -1 and raw.game_over
    assert not raw.state_array[H_TERMINAL]  # the kernels never saw the forfeit
    for view, was in before.items():
        gs = global_state_view(mod.GAME, raw.params, view)
        now = env.state(view)
        assert raw.global_state_space(view).contains(now)
        assert not now[gs.decider : gs.decider + n].any()
        assert now[gs.done : gs.done + n].tolist() == [1] * n
        assert now[gs.terminal] == 1
        header = np.zeros(gs.size, dtype=bool)
        header[gs.decider : gs.decider + n] = header[gs.done : gs.done + n] = header[gs.terminal] = True
        np.testing.assert_array_equal(now[~header], was[~header])  # the position, owner and phase as they were
    ended = mod.raw_env(num_players=n)  # a normal end has the same header
    ended.reset(seed=5)
    play_to_end(ended, rng)
    gs = global_state_view(mod.GAME, ended.params, "public")
    end = ended.state()
    assert not end[gs.decider : gs.decider + n].any() and end[gs.done : gs.done + n].all() and end[gs.terminal] == 1
