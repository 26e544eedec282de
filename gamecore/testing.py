"""The conformance kit: the checks every game of this library passes, as plain functions that a
game's own test suite calls (as ``pettingzoo.test`` and pgx's ``api_test`` ship theirs). A new
game's suite runs them all with one test per check and player count::

    import pytest
    from gamecore import testing

    @pytest.mark.parametrize("check,n", testing.plan("my_game"), ids=testing.case_id)
    def test_conformance(check, n):
        testing.CHECKS[check]("my_game", n)

or all at once: ``testing.check_game("my_game")`` (a registered name or a ``GameSpec``). Each check
takes ``(game, num_players=None)`` (None: the game's default count), plays a few short seeded random
games and raises ``AssertionError`` with a message naming the game, the count and what failed. A
check that cannot run here (a toolkit that is not installed, a game that does not run on OpenSpiel)
raises ``unittest.SkipTest``, which pytest reports as a skip and :func:`check_game` leaves out. No
check needs pytest.

What the checks cover (:data:`CHECKS`, in order): PettingZoo's own ``api_test``, ``seed_test``,
``render_test``, ``state_test`` and ``pettingzoo.make``; spaces, dtypes and masks; ``apply_legal``
against ``apply`` then ``legal_mask``; the batched path against sequential envs; clone, pickle and
``set_state`` round trips; seeding; rank and score rewards; JSON views; action strings; refusal of
bad actions, player counts, options, states, calls out of order and batched input, each changing
nothing; the SB3 vector env feeding ``MaskablePPO``; ``resample`` keeping the seat's view and
depending only on it; the generator in no view; public renders; the global state; OpenSpiel (the
game against the env, and pyspiel's own ``random_sim_test``); the greedy and MCTS agents and a short
arena. What needs knowledge of one game (its rules, positions, strengths) stays in that game's tests.
"""

from __future__ import annotations

import copy
import functools
import json
import pickle
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any
from unittest import SkipTest

import numpy as np

from gamecore.kernel.games import GAMES, get_game
from gamecore.kernel.options import IllegalActionError
from gamecore.kernel.protocol import (
    H_CURRENT,
    H_DECISIONS,
    H_DONE,
    H_NPLAYERS,
    H_OWNER,
    H_PHASE,
    H_RNG,
    H_TERMINAL,
    MAX_COUNTER,
    VIEW_ALL,
    VIEW_PUBLIC,
    GameSpec,
)

__all__ = [
    "CHECKS", "HEAVY", "ONCE", "SkipTest", "case_id", "check_game", "plan", "play_random", "random_legal",
    "check_pettingzoo_api", "check_pettingzoo_seed", "check_pettingzoo_render", "check_pettingzoo_make",
    "check_spaces_and_masks", "check_apply_legal", "check_batched_equals_sequential", "check_clone_pickle_set_state",
    "check_reset_seeding", "check_rewards", "check_to_dict_json", "check_action_strings", "check_bad_actions",
    "check_bad_player_counts", "check_bad_options", "check_bad_states", "check_call_order", "check_batched_bad_input",
    "check_sb3_maskable_ppo", "check_resample_keeps_view", "check_resample_depends_only_on_view",
    "check_generator_in_no_view", "check_renders_public_by_default", "check_global_state", "check_openspiel",
    "check_openspiel_random_sim", "check_agents", "check_arena",
]

Game = str | GameSpec


# ---- helpers --------------------------------------------------------------------------------------
def _spec(game: Game) -> GameSpec:
    return get_game(game)


def _count(spec: GameSpec, num_players: int | None) -> int:
    n = spec.default_players if num_players is None else num_players
    if n not in spec.player_counts:
        raise ValueError(f"{spec.name} is played by {list(spec.player_counts)} players, not {n!r}")
    return int(n)


def _where(spec: GameSpec, n: int) -> str:
    return f"{spec.name} {n}p"


@functools.cache
def _package(spec: GameSpec):
    """The game's package: it exposes ``raw_env`` and ``env`` (``gamecore.kernel.games``)."""
    package = sys.modules.get(type(spec).__module__.partition(".")[0])
    raw = getattr(package, "raw_env", None)
    assert package is not None and raw is not None and hasattr(package, "env"), (
        f"{spec.name}: the package of its GameSpec ({type(spec).__module__}) must expose raw_env and env")
    assert raw.game is spec, f"{spec.name}: {package.__name__}.raw_env.game is not the spec under test"
    return package


def _raw_env(spec: GameSpec, n: int | None, **kwargs: Any):
    return _package(spec).raw_env(num_players=n, **kwargs)


def _env(spec: GameSpec, n: int | None, **kwargs: Any):
    return _package(spec).env(num_players=n, **kwargs)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action of an int8 mask."""
    legal = np.flatnonzero(mask)
    assert len(legal), "the deciding seat has no legal action"
    return int(legal[rng.integers(len(legal))])


def play_random(raw, rng: np.random.Generator, max_steps: int | None = None) -> int:
    """Step a raw env with random legal actions (None for dead agents); returns the steps taken."""
    steps = 0
    while raw.agents and (max_steps is None or steps < max_steps):
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
        else:
            raw.step(random_legal(raw.observe(agent)["action_mask"], rng))
        steps += 1
    return steps


def _masked_out(env, rng: np.random.Generator) -> int | None:
    """A masked-out action of the decider of ``env`` (raw or wrapped): where it stands, else after
    random legal decisions until there is one; None if the game ends first (a game whose every
    action is legal at every decision has none)."""
    for _ in range(100_000):
        if env.unwrapped.game_over:
            return None
        mask = env.observe(env.agent_selection)["action_mask"]
        out = np.flatnonzero(mask == 0)
        if len(out):
            return int(out[0])
        env.step(random_legal(mask, rng))
    return None


def _approx(actual: Any, expected: Any) -> bool:
    """``actual == pytest.approx(expected)``, element-wise: within 1e-6 of ``expected`` relatively
    or 1e-12 absolutely."""
    a = np.atleast_1d(np.asarray(actual, dtype=float))
    b = np.atleast_1d(np.asarray(expected, dtype=float))
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= np.maximum(1e-6 * np.abs(b), 1e-12)))


def _raises(expected: type[BaseException] | tuple[type[BaseException], ...], pattern: str | None,
            what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> BaseException:
    """``fn(*args, **kwargs)`` must raise ``expected`` with a message that ``re.search`` finds
    ``pattern`` in (as ``pytest.raises(expected, match=pattern)``); returns the exception."""
    names = " or ".join(e.__name__ for e in (expected if isinstance(expected, tuple) else (expected,)))
    try:
        fn(*args, **kwargs)
    except expected as exc:
        if pattern is not None and not re.search(pattern, str(exc)):
            raise AssertionError(f"{what}: {type(exc).__name__} {str(exc)[:500]!r} does not match {pattern!r}") from exc
        return exc
    except Exception as exc:
        raise AssertionError(f"{what}: expected {names}, got {type(exc).__name__}: {str(exc)[:500]}") from exc
    raise AssertionError(f"{what}: expected {names}, nothing was raised")


def _unchanged(before: np.ndarray, after: np.ndarray, what: str) -> None:
    assert np.array_equal(before, after), f"{what} changed the state"


def _observe(spec: GameSpec, state: np.ndarray, seat: int) -> np.ndarray:
    params = spec.make_params(num_players=int(state[H_NPLAYERS]))
    out = np.zeros(int(np.prod(spec.obs_shape(params))), np.int8)
    spec.kernels.observe(state, seat, out)
    return out


def _views(spec: GameSpec, state: np.ndarray, n: int) -> dict[str, Any]:
    return {
        "dicts": [json.dumps(spec.to_dict(state, p), sort_keys=True) for p in range(n)],
        "public": json.dumps(spec.to_dict(state, VIEW_PUBLIC), sort_keys=True),
        "ansi": spec.render_ansi(state, VIEW_PUBLIC),
    }


def _quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


# ---- PettingZoo -----------------------------------------------------------------------------------
def check_pettingzoo_api(game: Game, num_players: int | None = None) -> None:
    """PettingZoo's ``api_test`` on ``env()`` (300 cycles)."""
    from pettingzoo.test import api_test

    spec = _spec(game)
    n = _count(spec, num_players)
    _quietly(api_test, _env(spec, n), num_cycles=300)


def check_pettingzoo_seed(game: Game, num_players: int | None = None) -> None:
    """PettingZoo's ``seed_test``: two envs reset with one seed play the same game (300 cycles)."""
    from pettingzoo.test import seed_test

    spec = _spec(game)
    n = _count(spec, num_players)
    _quietly(seed_test, functools.partial(_package(spec).env, num_players=n), num_cycles=300)


def check_pettingzoo_render(game: Game, num_players: int | None = None) -> None:
    """PettingZoo's ``render_test`` in every render mode the env declares."""
    from pettingzoo.test import render_test

    spec = _spec(game)
    n = _count(spec, num_players)
    _quietly(render_test, functools.partial(_package(spec).env, num_players=n))


def check_pettingzoo_make(game: Game, num_players: int | None = None) -> None:
    """``pettingzoo.make("aec", env_id, num_players=n)`` gives the game's env with its n agents."""
    import pettingzoo

    from gamecore.envs import registration

    spec = _spec(game)
    n = _count(spec, num_players)
    if spec.name not in GAMES:
        raise SkipTest(f"{spec.name} is not in the registry of games (gamecore.kernel.games)")
    registration.register_all()  # a game added since gamecore.envs was imported
    env = pettingzoo.make("aec", spec.env_id, num_players=n)
    env.reset(seed=1)
    where = _where(spec, n)
    assert env.possible_agents == [f"player_{i}" for i in range(n)], f"{where}: {env.possible_agents}"
    assert isinstance(env.unwrapped, _package(spec).raw_env), f"{where}: make gave a {type(env.unwrapped)}"


# ---- the raw env ------------------------------------------------------------------------------------
def check_spaces_and_masks(game: Game, num_players: int | None = None) -> None:
    """Every seat's observation is int8 and inside its space; only the decider has legal actions;
    terminations are plain bools (40 decisions of a random game)."""
    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    env = _raw_env(spec, n)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for step in range(40):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        for agent in env.agents:
            obs = env.observe(agent)
            space = env.observation_space(agent)
            assert obs["observation"].dtype == np.int8 and obs["action_mask"].dtype == np.int8, \
                f"{where} step {step}: {agent}'s observation is not int8"
            assert space.contains(obs), f"{where} step {step}: {agent}'s observation is outside its space"
            if agent != env.agent_selection:
                assert not obs["action_mask"].any(), \
                    f"{where} step {step}: {agent} has legal actions but does not decide"
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    assert all(type(v) is bool for v in env.terminations.values()), f"{where}: terminations are not bools"


def check_apply_legal(game: Game, num_players: int | None = None) -> None:
    """``apply_legal`` (the one kernel call per decision of every path) reaches the state, mask and
    count of ``apply`` then ``legal_mask``, at every decision of a whole random game; the mask count
    is the number of legal actions, and none is left at the end."""
    spec = _spec(game)
    n = _count(spec, num_players)
    K = spec.kernels
    params = spec.make_params(num_players=n)
    A = spec.num_actions(params)
    rng = np.random.default_rng(5)

    def legal(st: np.ndarray, where: str) -> np.ndarray:
        mask = np.zeros(A, dtype=np.int8)
        count = K.legal_mask(st, mask)
        assert count == int(mask.sum()), f"{where}: legal_mask returned {count} for {int(mask.sum())} legal actions"
        return np.flatnonzero(mask)

    state = np.zeros(K.STATE_LEN, dtype=np.int64)
    K.init(state, params, 5)
    steps = 0
    while not state[H_TERMINAL]:
        where = f"{_where(spec, n)} step {steps}"
        actions = legal(state, where)
        assert len(actions), f"{where}: the decider has no legal action"
        action = int(actions[rng.integers(len(actions))])
        want_state = state.copy()
        K.apply(want_state, action)
        want = np.zeros(A, dtype=np.int8)
        want_count = K.legal_mask(want_state, want)
        mask = np.full(A, 7, dtype=np.int8)  # every entry must be written
        count = K.apply_legal(state, action, mask)
        assert np.array_equal(state, want_state), f"{where}: apply_legal reached another state than apply"
        assert count == want_count and np.array_equal(mask, want), f"{where}: apply_legal's mask is not legal_mask's"
        steps += 1
        assert steps < 100_000, f"{_where(spec, n)}: the game did not end"
    assert len(legal(state, f"{_where(spec, n)} end")) == 0, f"{_where(spec, n)}: legal actions after the end"


def check_batched_equals_sequential(game: Game, num_players: int | None = None) -> None:
    """Batched game i is a sequential env seeded ``seed + i``, step by step (observations, masks,
    deciders, states, dones, final states, rewards), through the end of a game in every slot and
    the automatic restart of the next one."""
    from gamecore.envs.batched import BatchedGames

    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    N, seed = 2, 100
    batch = BatchedGames(spec, N, seed=seed, num_players=n)
    obs, masks = batch.reset()
    envs = [_raw_env(spec, n) for _ in range(N)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    rngs = [np.random.default_rng(i) for i in range(N)]
    finished = np.zeros(N, dtype=int)
    steps = 0
    while finished.min() < 1 or steps < 20:
        steps += 1
        assert steps < 20_000, f"{where}: a game did not end"
        actions = np.zeros(N, dtype=np.int64)
        for i, e in enumerate(envs):
            agent = e.agent_selection
            o = e.observe(agent)
            at = f"{where} step {steps} game {i}"
            assert batch.current_players[i] == e.agent_name_mapping[agent], f"{at}: another decider"
            assert np.array_equal(o["observation"], obs[i]), f"{at}: another observation"
            assert np.array_equal(o["action_mask"], masks[i]), f"{at}: another mask"
            actions[i] = random_legal(masks[i], rngs[i])
            e.step(int(actions[i]))
        obs, rewards, dones, masks = batch.step(actions)
        for i, e in enumerate(envs):
            at = f"{where} step {steps} game {i}"
            if e.state_array[H_TERMINAL]:
                assert dones[i], f"{at}: the env's game ended, the batch's did not"
                assert np.array_equal(batch.final_states[i], e.get_state()), f"{at}: another final state"
                got = [e.rewards[a] for a in e.possible_agents]
                assert _approx(got, rewards[i]), f"{at}: rewards {list(rewards[i])}, the env's {got}"
                finished[i] += 1
                while e.agents:
                    e.step(None)
                e.reset()
            else:
                assert not dones[i], f"{at}: the batch's game ended, the env's did not"
            assert np.array_equal(batch.states[i], e.get_state()), f"{at}: another state"


def check_clone_pickle_set_state(game: Game, num_players: int | None = None) -> None:
    """Mid-game, ``copy.deepcopy``, ``pickle`` and ``set_state(get_state())`` into a fresh env give
    the same state, and every copy continues identically, chance included; a pickled or copied
    ``BatchedGames`` continues as the original."""
    from gamecore.envs.batched import BatchedGames

    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    env = _raw_env(spec, n)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    play_random(env, rng, max_steps=15)
    saved = env.get_state()
    clones = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    restored = _raw_env(spec, n)
    restored.reset(seed=999)
    restored.set_state(saved)
    for name, other in zip(("deepcopy", "pickle", "set_state"), [*clones, restored], strict=True):
        assert np.array_equal(other.get_state(), saved), f"{where}: {name} gave another state"
    trail = []
    for e in [env, *clones, restored]:
        r = np.random.default_rng(5)
        steps: list[tuple[int, Any]] = []
        while e.agents and not e.state_array[H_TERMINAL] and len(steps) < 200:
            a = random_legal(e.observe(e.agent_selection)["action_mask"], r)
            e.step(a)
            steps.append((a, e.get_state().tobytes()))
        trail.append(steps)
    for name, t in zip(("deepcopy", "pickle", "set_state"), trail[1:], strict=True):
        assert t == trail[0], f"{where}: the {name} copy continued differently"
    b = BatchedGames(spec, 3, seed=5, num_players=n)
    b.reset()
    copies = [pickle.loads(pickle.dumps(b)), copy.deepcopy(b)]
    for step in range(20):
        actions = np.array([random_legal(m, rng) for m in b.masks])
        b.step(actions)
        for name, c in zip(("pickled", "deep-copied"), copies, strict=True):
            c.step(actions)
            assert np.array_equal(c.states, b.states), f"{where} step {step}: the {name} batch continued differently"


def check_reset_seeding(game: Game, num_players: int | None = None) -> None:
    """``reset(seed=s)`` gives the same game every time, and unseeded resets continue the stream."""
    spec = _spec(game)
    n = _count(spec, num_players)
    a, b = _raw_env(spec, n), _raw_env(spec, n)
    a.reset(seed=42)
    b.reset(seed=42)
    assert np.array_equal(a.get_state(), b.get_state()), f"{_where(spec, n)}: reset(seed=42) gave two games"
    a.reset()
    b.reset()
    assert np.array_equal(a.get_state(), b.get_state()), f"{_where(spec, n)}: the next game of stream 42 differs"


def check_rewards(game: Game, num_players: int | None = None) -> None:
    """The same games in rank and in score mode: score mode pays each seat its final score (the
    ``scores`` kernel); rank mode sums to zero, lies in [-1, 1], gives +1 to a sole winner (by
    ``rank_keys``) and never ranks a lower score above a higher one."""
    spec = _spec(game)
    n = _count(spec, num_players)
    K = spec.kernels
    for seed in range(3):
        where = f"{_where(spec, n)} seed {seed}"
        ranked = _raw_env(spec, n, reward_mode="rank")
        scored = _raw_env(spec, n, reward_mode="score")
        ranked.reset(seed=seed)
        scored.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = [dict.fromkeys(ranked.possible_agents, 0.0), dict.fromkeys(ranked.possible_agents, 0.0)]
        while ranked.agents:
            agent = ranked.agent_selection
            assert scored.agent_selection == agent, f"{where}: the reward mode changed the decider"
            action = None
            if not ranked.terminations[agent]:
                action = random_legal(ranked.observe(agent)["action_mask"], rng)
            for e, tot in zip((ranked, scored), totals, strict=True):
                if action is None:
                    tot[agent] += e._cumulative_rewards[agent]
                e.step(action)
        rank, score = totals
        expected = np.zeros(n)
        K.scores(scored.state_array, expected)
        paid = [score[a] for a in ranked.possible_agents]
        assert _approx(paid, expected), f"{where}: score mode paid {paid}, the final scores are {list(expected)}"
        values = [rank[a] for a in ranked.possible_agents]
        assert _approx(sum(values), 0.0), f"{where}: rank rewards {values} do not sum to zero"
        assert all(-1.0 <= v <= 1.0 for v in values), f"{where}: rank rewards {values} outside [-1, 1]"
        keys = np.zeros(n)
        K.rank_keys(ranked.state_array, keys)
        if (keys == keys.max()).sum() == 1:
            assert max(values) == 1.0, f"{where}: a sole winner got {max(values)}, not 1"
        for p in range(n):
            for q in range(n):
                if expected[p] > expected[q]:
                    assert values[p] >= values[q], f"{where}: seat {p} scored more than seat {q} but ranks lower " \
                                                   f"({values}, scores {list(expected)})"


def check_to_dict_json(game: Game, num_players: int | None = None) -> None:
    """Every view (public, all, each seat by number and by agent name) is plain JSON: it survives a
    JSON round trip unchanged (string keys, no tuples), at every decision of a game."""
    spec = _spec(game)
    n = _count(spec, num_players)
    env = _raw_env(spec, n)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for step in range(400):
        for viewer in ("public", "all", *range(n), "player_1"):
            view = env.to_dict(viewer)
            assert json.loads(json.dumps(view)) == view, \
                f"{_where(spec, n)} step {step}: the view of {viewer!r} is not plain JSON (phase {view.get('phase')})"
        if not env.agents:
            break
        play_random(env, rng, max_steps=1)


def check_action_strings(game: Game, num_players: int | None = None) -> None:
    """The legal actions' strings are unique and ``string_to_action`` inverts them (10 decisions)."""
    spec = _spec(game)
    n = _count(spec, num_players)
    env = _raw_env(spec, n)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for step in range(10):
        if env.state_array[H_TERMINAL]:
            break
        where = f"{_where(spec, n)} step {step}"
        legal = env.legal_actions()
        names = [env.action_to_string(a) for a in legal]
        assert len(set(names)) == len(names), f"{where}: two legal actions share a string"
        for a in legal[:50]:
            back = env.string_to_action(env.action_to_string(a))
            assert back == a, f"{where}: {env.action_to_string(a)!r} reads back as {back}, not {a}"
        env.step(int(rng.choice(legal)))


# ---- bad input ---------------------------------------------------------------------------------------
def check_bad_actions(game: Game, num_players: int | None = None) -> None:
    """``raw_env`` refuses what is no action (out of range, a float, a str, None, a bool, a time, a
    flag, bytes) and a masked-out action (naming the player and the action) with
    ``IllegalActionError``, changing nothing; ``env()``'s masked-out action ends the game with -1
    for the mover, 0 for the others, and the agent loop finishes; ``env(illegal="raise")`` raises
    and changes nothing; out of range raises under either mode."""
    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    env = _raw_env(spec, n)
    env.reset(seed=0)
    before = env.get_state()
    for bad in (-1, 10**9, 2.5, "x", None, True):
        _raises(IllegalActionError, None, f"{where}: step({bad!r})", env.step, bad)
        _unchanged(before, env.get_state(), f"{where}: step({bad!r})")
    a = env.legal_actions()[-1]
    kinds: tuple[tuple[str, Any], ...] = (
        ("timedelta", np.timedelta64(a)), ("datetime", np.datetime64(a, "s")),
        ("timedelta array", np.array(a, "m8[s]")), ("bool array", np.array(True)), ("bytes", str(a).encode()))
    for kind, bad in kinds:
        _raises(IllegalActionError, "integer action", f"{where}: a legal action number as a {kind}", env.step, bad)
        _unchanged(before, env.get_state(), f"{where}: a {kind} action")
    illegal = _masked_out(env, np.random.default_rng(0))
    if illegal is not None:
        agent = env.agent_selection
        before = env.get_state()
        _raises(IllegalActionError, rf"{agent}.*{re.escape(env.action_to_string(illegal))}",
                f"{where}: a masked-out action", env.step, illegal)
        _unchanged(before, env.get_state(), f"{where}: a masked-out action")

    wrapped = _env(spec, n)  # illegal="lose"
    wrapped.reset(seed=0)
    illegal = _masked_out(wrapped, np.random.default_rng(0))
    if illegal is not None:  # (None: every action is always legal, nothing can be masked out)
        mover = wrapped.agent_selection
        wrapped.step(illegal)
        assert all(wrapped.terminations.values()), f"{where}: a masked-out action under env() did not end the game"
        assert wrapped.rewards[mover] == -1, f"{where}: the mover of a masked-out action got {wrapped.rewards[mover]}"
        total = {}
        for agent in wrapped.agent_iter():
            _, reward, term, _, _ = wrapped.last()
            total[agent] = reward
            assert term, f"{where}: {agent} is not terminated after the forfeit"
            wrapped.step(None)
        assert total[mover] == -1.0 and all(v == 0.0 for ag, v in total.items() if ag != mover), \
            f"{where}: rewards after a forfeit {total}"

    strict = _env(spec, n, illegal="raise")
    strict.reset(seed=0)
    illegal = _masked_out(strict, np.random.default_rng(0))
    if illegal is not None:
        before = strict.unwrapped.get_state()
        _raises(IllegalActionError, "not legal", f"{where}: env(illegal='raise') given a masked-out action",
                strict.step, illegal)
        _unchanged(before, strict.unwrapped.get_state(), f"{where}: env(illegal='raise') given a masked-out action")
    for mode in ("raise", "lose"):
        e = _env(spec, n, illegal=mode)
        e.reset(seed=0)
        _raises(IllegalActionError, "out of range", f"{where}: illegal={mode!r}, action 10**9", e.step, 10**9)


def check_bad_player_counts(game: Game, num_players: int | None = None) -> None:
    """A player count that is zero, out of the game's range, a float, a str or a bool is refused
    naming ``num_players`` (``raw_env`` and ``BatchedGames``). It covers the game's limits, so
    ``num_players`` is not used."""
    from gamecore.envs.batched import BatchedGames

    spec = _spec(game)
    for which, n in (("zero", 0), ("below", spec.min_players - 1), ("above", spec.max_players + 1),
                     ("float", float(spec.min_players)), ("str", str(spec.min_players)), ("bool", True)):
        _raises((ValueError, TypeError), "num_players", f"{spec.name}: num_players={n!r} ({which})",
                _package(spec).raw_env, num_players=n)
    for n in sorted({0, spec.min_players - 1, spec.max_players + 1, 7} - set(spec.player_counts)):
        _raises(ValueError, "num_players must be between", f"{spec.name}: num_players={n}", _package(spec).raw_env,
                num_players=n)
        _raises(ValueError, "num_players", f"{spec.name}: BatchedGames(num_players={n})", BatchedGames, spec, 2,
                num_players=n)


def check_bad_options(game: Game, num_players: int | None = None) -> None:
    """Bad ``reward_mode``, ``render_mode``, ``viewer``, ``illegal`` and ``start_player`` (where the
    game has it) are refused naming the option; an unknown option's error lists every accepted one;
    a huge bad value is not echoed back whole."""
    spec = _spec(game)
    n = _count(spec, num_players)
    raw = _package(spec).raw_env
    where = _where(spec, n)
    _raises(ValueError, "reward_mode", f"{where}: reward_mode='win'", raw, num_players=n, reward_mode="win")
    _raises(ValueError, "render_mode", f"{where}: render_mode='video'", raw, num_players=n, render_mode="video")
    _raises(ValueError, "viewer", f"{where}: viewer='everybody'", raw, num_players=n, viewer="everybody")
    _raises(ValueError, "illegal must be one of", f"{where}: illegal='ignore'", _package(spec).env, num_players=n,
            illegal="ignore")
    if "start_player" in spec.option_defaults:
        _raises(ValueError, "start_player", f"{where}: start_player={n}", raw, num_players=n, start_player=n)
    err = _raises(TypeError, "unknown option", f"{where}: colour='red'", raw, num_players=n, colour="red")
    for opt in ("num_players", "reward_mode", "render_mode", "viewer", "illegal", *spec.option_defaults):
        assert opt in str(err), f"{where}: the unknown-option error does not list {opt!r}: {err}"
    text = "x" * 10_000_000
    err = _raises(ValueError, None, f"{where}: a huge reward_mode", raw, num_players=n, reward_mode=text)
    assert len(str(err)) < 2000, f"{where}: a huge bad value is echoed back ({len(str(err))} characters)"
    env = raw(num_players=n)
    env.reset(seed=0)
    err = _raises(ValueError, None, f"{where}: string_to_action of a huge string", env.string_to_action, text)
    assert len(str(err)) < 2000, f"{where}: a huge action string is echoed back ({len(str(err))} characters)"


def check_bad_states(game: Game, num_players: int | None = None) -> None:
    """``set_state`` refuses a wrong shape or dtype, another player count's state, counters that
    would overflow and a header that does not add up, changing nothing; random corruption of one
    slot is refused or harmless (play continues legally), never a crash."""
    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    env = _raw_env(spec, n)
    env.reset(seed=0)
    good = env.get_state()
    _raises(ValueError, "shape", f"{where}: set_state of a short array", env.set_state, good[:-1])
    _raises(TypeError, "integer", f"{where}: set_state of a float array", env.set_state, good.astype(np.float64))
    _unchanged(good, env.get_state(), f"{where}: a refused set_state")
    for m in spec.player_counts:
        if m != n:
            other = _raw_env(spec, m)
            other.reset(seed=0)
            _raises(ValueError, None, f"{where}: set_state of a {m}-player state", env.set_state, other.get_state())
            _unchanged(good, env.get_state(), f"{where}: a refused set_state")
    rng, play = np.random.default_rng(0), np.random.default_rng(1)
    for _ in range(200):  # random corruption is caught or harmless, never a crash
        bad = good.copy()
        slot = int(rng.integers(8, len(bad)))
        bad[slot] = rng.choice([-(2**40), -7, -1, 99, 2**40])
        try:
            env.set_state(bad)
        except ValueError:
            _unchanged(good, env.get_state(), f"{where}: a refused set_state (slot {slot} = {bad[slot]})")
            continue
        env.observe(env.agent_selection)
        for _ in range(5):  # accepted: the game continues legally from it
            if env.state_array[H_TERMINAL]:
                break
            env.step(random_legal(env.observe(env.agent_selection)["action_mask"], play))
        env.set_state(good)

    env.reset(seed=0)
    play_random(env, np.random.default_rng(0), max_steps=12)
    mid = env.get_state()
    cases = [(H_DECISIONS, 2**63 - 1), (H_DECISIONS, MAX_COUNTER + 1), (H_OWNER, -1), (H_OWNER, n), (H_PHASE, -1),
             (H_PHASE, max(99, len(spec.phase_names))), (H_DONE, 1 << int(mid[H_CURRENT]))]
    for slot, value in cases:
        bad = mid.copy()
        bad[slot] = value
        _raises(ValueError, "malformed", f"{where}: set_state with slot {slot} = {value}", env.set_state, bad)
        _unchanged(mid, env.get_state(), f"{where}: a refused set_state (slot {slot} = {value})")


def check_call_order(game: Game, num_players: int | None = None) -> None:
    """Calls before ``reset`` raise a clear RuntimeError; so do ``step`` and ``last`` once the game
    is over and every agent has been stepped with None."""
    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    env = _raw_env(spec, n)
    calls = {"observe": lambda: env.observe("player_0"), "action_to_string": lambda: env.action_to_string(0),
             "to_dict": lambda: env.to_dict(), "step": lambda: env.step(0), "last": lambda: env.last(),
             "legal_actions": lambda: env.legal_actions(), "get_state": lambda: env.get_state(),
             "state": lambda: env.state()}
    for name, call in calls.items():
        _raises(RuntimeError, r"reset\(\) must be called before", f"{where}: {name} before reset", call)
    env.reset(seed=0)
    play_random(env, np.random.default_rng(0))
    assert env.agents == [], f"{where}: agents left after the game: {env.agents}"
    _raises(RuntimeError, "game is over", f"{where}: step after the game", env.step, None)
    _raises(RuntimeError, "game is over", f"{where}: last after the game", env.last)


def check_batched_bad_input(game: Game, num_players: int | None = None) -> None:
    """``BatchedGames.step`` refuses actions of the wrong shape, masked out, out of range (any
    integer width), not integers or bools, and a bad ``active``, naming the game, changing nothing;
    a step before ``reset``, an empty batch and a bad player count are refused."""
    from gamecore.envs.batched import BatchedGames

    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    _raises(RuntimeError, r"reset\(\) must be called before step\(\)", f"{where}: step before reset",
            BatchedGames(spec, 2, seed=0, num_players=n).step, np.zeros(2, dtype=np.int64))
    b = BatchedGames(spec, 3, seed=0, num_players=n)
    b.reset()
    rng = np.random.default_rng(0)
    for _ in range(10_000):  # until game 1's decider has a masked-out action (at once, in most games)
        if not b.masks[1].all():
            break
        b.step(np.array([random_legal(m, rng) for m in b.masks]))
    before = b.states.copy()
    legal = [int(np.flatnonzero(m)[0]) for m in b.masks]
    masked = np.flatnonzero(b.masks[1] == 0)
    cases = [
        (np.array(legal[:2]), ValueError, "shape"),
        (np.array([legal[0], -1, legal[2]]), ValueError, "out of range"),
        (np.array([legal[0], 10**9, legal[2]]), ValueError, "out of range"),
        (np.array([legal[0], -1, legal[2]], dtype=np.int16), ValueError, "game 1.*out of range"),
        (np.array([legal[0], 2**64 - 1, legal[2]], dtype=np.uint64), ValueError,
         "game 1.*18446744073709551615.*out of range"),
        (np.array([0.5, 0.5, 0.5]), TypeError, "integers"),
        (np.array(["a", "b", "c"]), TypeError, "integers"),
        (np.array([True, False, True]), TypeError, "integers"),
    ]
    if len(masked):  # (none: every action of this game is always legal)
        illegal = [legal[0], int(masked[0]), legal[2]]
        cases[1:1] = [(np.array(illegal), ValueError, "game 1.*not legal for player_"),
                      (np.array(illegal, dtype=np.uint16), ValueError, "game 1.*not legal for player_")]
    for actions, err, msg in cases:
        _raises(err, msg, f"{where}: batched step({actions!r})", b.step, actions)
        _unchanged(before, b.states, f"{where}: a refused batched step({actions!r})")
    for active, err, msg in ((np.ones(2, np.int8), ValueError, "shape"), (np.array([1, 2, 0]), ValueError, "0/1"),
                             (np.array([0.5, 1.0, 1.0]), TypeError, "bool or 0/1")):
        _raises(err, msg, f"{where}: batched step with active={active!r}", b.step, np.array(legal), active=active)
        _unchanged(before, b.states, f"{where}: a refused batched step with active={active!r}")
    _raises(ValueError, None, f"{where}: BatchedGames of 0 games", BatchedGames, spec, 0)


def check_sb3_maskable_ppo(game: Game, num_players: int | None = None) -> None:
    """``SelfPlayVecEnv`` supports masking, has the shapes its spaces say, trains ``MaskablePPO``
    for 64 steps, and the learner only ever sees its own turns. Skipped without sb3-contrib."""
    try:
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    except ImportError:
        raise SkipTest("needs sb3-contrib (the train extra)") from None
    from gymnasium import spaces

    from gamecore.envs.sb3 import SelfPlayVecEnv

    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    venv = SelfPlayVecEnv(spec, num_envs=4, seed=0, num_players=n)
    assert is_masking_supported(venv), f"{where}: sb3-contrib does not see the vec env's masks"
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert isinstance(venv.action_space, spaces.Discrete), f"{where}: action space {venv.action_space}"
    n_actions = int(venv.action_space.n)
    obs_shape = tuple(venv.observation_space.shape or ())
    assert masks.shape == (4, n_actions) and masks.dtype == bool, f"{where}: masks {masks.shape}"
    assert obs.shape == (4, *obs_shape), f"{where}: observations {obs.shape}"
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    for step in range(30):  # the learner only ever sees its own turns
        seats = venv._seats.copy()
        assert np.array_equal(venv.games.current_players, seats), f"{where} step {step}: the learner does not decide"
        actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
        obs, _, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones):
            assert "terminal_observation" in infos[i], f"{where} step {step}: no terminal_observation"


# ---- hidden information: views, resampling, the generator ------------------------------------------
def check_resample_keeps_view(game: Game, num_players: int | None = None) -> None:
    """After ``resample(state, seat, seed)`` the seat's observation and ``to_dict`` and the public
    view are unchanged, the generator is reseeded, the game accepts the state and plays on from
    it; where the game hides something at this count, something hidden was redealt."""
    spec = _spec(game)
    n = _count(spec, num_players)
    K = spec.kernels
    env = _raw_env(spec, n)
    env.reset(seed=21)
    rng = np.random.default_rng(21)
    changed = 0
    for round_ in range(6):
        play_random(env, rng, max_steps=15)
        if env.state_array[H_TERMINAL]:
            env.reset()
            continue
        state = env.get_state()
        for p in range(n):
            where = f"{_where(spec, n)} round {round_} seat {p}"
            redealt = state.copy()
            K.resample(redealt, p, 1000 + 7 * round_ + p)
            assert np.array_equal(_observe(spec, redealt, p), _observe(spec, state, p)), \
                f"{where}: resample changed the seat's observation"
            assert spec.to_dict(redealt, p) == spec.to_dict(state, p), f"{where}: resample changed the seat's to_dict"
            assert spec.to_dict(redealt, VIEW_PUBLIC) == spec.to_dict(state, VIEW_PUBLIC), \
                f"{where}: resample changed the public view"
            assert redealt[H_RNG] != state[H_RNG], f"{where}: resample did not reseed the generator"
            hidden = redealt.copy()
            hidden[H_RNG] = state[H_RNG]
            changed += not np.array_equal(hidden, state)
            other = _raw_env(spec, n)
            other.set_state(redealt)  # a position the game accepts ...
            play_random(other, np.random.default_rng(p), max_steps=30)  # ... and plays on from
    if spec.hides_information(n):
        assert changed > 0, f"{_where(spec, n)}: resample never redealt anything hidden"


def check_resample_depends_only_on_view(game: Game, num_players: int | None = None) -> None:
    """Two states a seat cannot tell apart (one a redeal of the other) resample to the same state
    under the same seed: a search that resamples first is never steered by hidden cards."""
    spec = _spec(game)
    n = _count(spec, num_players)
    K = spec.kernels
    env = _raw_env(spec, n)
    env.reset(seed=33)
    rng = np.random.default_rng(33)
    differed = 0
    for round_ in range(4):
        play_random(env, rng, max_steps=12)
        if env.state_array[H_TERMINAL]:
            env.reset()
            continue
        state = env.get_state()
        for p in range(n):
            twin = state.copy()
            K.resample(twin, p, 555 + round_)
            twin[H_RNG] = state[H_RNG]
            differed += not np.array_equal(twin, state)
            a, b = state.copy(), twin.copy()
            K.resample(a, p, 99 + p)
            K.resample(b, p, 99 + p)
            assert np.array_equal(a, b), \
                f"{_where(spec, n)} round {round_} seat {p}: the redeal depends on the hidden cards it replaces"
    if spec.hides_information(n):
        assert differed > 0, f"{_where(spec, n)}: the twins never differed in hidden information"


def check_generator_in_no_view(game: Game, num_players: int | None = None) -> None:
    """Another generator state changes no observation, no ``to_dict`` view and no public render."""
    spec = _spec(game)
    n = _count(spec, num_players)
    env = _raw_env(spec, n)
    env.reset(seed=3)
    play_random(env, np.random.default_rng(3), max_steps=25)
    state = env.get_state()
    other = state.copy()
    other[H_RNG] ^= 0x5DEECE66D
    assert _views(spec, state, n) == _views(spec, other, n), f"{_where(spec, n)}: the generator shows in a view"
    for p in range(n):
        assert np.array_equal(_observe(spec, state, p), _observe(spec, other, p)), \
            f"{_where(spec, n)}: the generator shows in seat {p}'s observation"


def check_renders_public_by_default(game: Game, num_players: int | None = None) -> None:
    """``render()`` and ``str(env)`` (ansi) and the rgb render show the public view unless the env
    is built with ``viewer="all"`` or a seat; ``to_dict`` names its viewer."""
    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    raw = _package(spec).raw_env
    st = None
    for viewer, code in (("public", VIEW_PUBLIC), ("all", VIEW_ALL), (1, 1), ("player_0", 0)):
        env = raw(num_players=n, render_mode="ansi", viewer=viewer) if viewer != "public" \
            else raw(num_players=n, render_mode="ansi")
        env.reset(seed=8)
        st = env.state_array
        assert env.render() == spec.render_ansi(st, code), f"{where}: render() for viewer {viewer!r}"
        assert str(env) == spec.render_ansi(st, code), f"{where}: str(env) for viewer {viewer!r}"
        rgb = raw(num_players=n, render_mode="rgb_array", viewer=viewer)
        rgb.reset(seed=8)
        assert np.array_equal(rgb.render(), spec.render_rgb(st, code)), f"{where}: rgb render for viewer {viewer!r}"
    assert st is not None
    assert spec.to_dict(st, VIEW_PUBLIC)["viewer"] == "public", f"{where}: the public view does not say so"
    assert spec.to_dict(st, VIEW_ALL)["viewer"] == "all", f"{where}: the full view does not say so"


def check_global_state(game: Game, num_players: int | None = None) -> None:
    """PettingZoo's ``state_test``; ``state()`` before reset raises; the wrapped env's ``state()`` is
    the raw env's in both views and lies in its int8 space; copies keep it; it is unchanged by every
    seat's ``resample`` and by the generator (nothing hidden shows); ``BatchedGames.global_states``
    gives the same rows."""
    from gymnasium import spaces
    from pettingzoo.test.state_test import test_state, test_state_space

    from gamecore.envs.batched import BatchedGames

    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    _raises(RuntimeError, "reset", f"{where}: raw state() before reset", _raw_env(spec, n).state)
    env = _env(spec, n)
    _raises(AssertionError, "reset", f"{where}: state() before reset", env.state)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        test_state_space(env)
        test_state(env, 20)
    env = _env(spec, n)
    env.reset(seed=3)
    raw = env.unwrapped
    assert isinstance(env.state_space, spaces.Box) and env.state_space.dtype == np.int8, f"{where}: state_space"
    assert env.state_space is raw.global_state_space("public"), f"{where}: state_space is not the public one"
    rng = np.random.default_rng(n)
    for step in range(3):
        for view in ("public", "all"):
            st = env.state(view)
            assert np.array_equal(st, raw.state(view)), f"{where}: the wrapped env's state({view!r}) is another"
            assert raw.global_state_space(view).contains(st), f"{where} step {step}: state({view!r}) outside its space"
            for other in (copy.deepcopy(raw), pickle.loads(pickle.dumps(raw))):
                assert np.array_equal(other.state(view), st), f"{where}: a copy has another state({view!r})"
        state = raw.get_state()
        public = raw.state()
        for p in range(n):
            redealt = state.copy()
            spec.kernels.resample(redealt, p, 77 + p)
            raw.set_state(redealt)
            assert np.array_equal(raw.state(), public), f"{where} step {step}: seat {p}'s resample changed state()"
        raw.set_state(state)
        views = {view: raw.state(view) for view in ("public", "all")}
        flipped = state.copy()
        flipped[H_RNG] ^= 0x5DEECE66D
        raw.set_state(flipped)
        for view, st in views.items():
            assert np.array_equal(raw.state(view), st), f"{where}: the generator shows in state({view!r})"
        raw.set_state(state)
        play_random(raw, rng, max_steps=7)
        if raw.game_over:
            break
    b = BatchedGames(spec, 2, seed=40, num_players=n)
    _raises(RuntimeError, "reset", f"{where}: global_states() before reset", b.global_states)
    b.reset()
    for i in range(2):
        e = _raw_env(spec, n)
        e.reset(seed=40 + i)
        for view in ("public", "all"):
            assert np.array_equal(b.global_states(view)[i], e.state(view)), \
                f"{where}: BatchedGames.global_states({view!r})[{i}] is not the env's state"


# ---- OpenSpiel ----------------------------------------------------------------------------------------
def _pyspiel_game(spec: GameSpec, n: int, **params: Any):
    try:
        import pyspiel
    except ImportError:
        raise SkipTest("needs open_spiel (the dev extra)") from None
    import gamecore.envs.openspiel as gos

    try:
        spec.max_game_length(spec.make_params(num_players=n))
    except NotImplementedError:
        raise SkipTest(f"{spec.name} does not run on OpenSpiel (no GameSpec.max_game_length)") from None
    gos.register_all()  # a game added to the registry since gamecore.envs.openspiel was imported
    if spec.name not in gos.GAME_CLASSES:
        raise SkipTest(f"{spec.name} is not a game of the registry (gamecore.kernel.games)")
    return pyspiel, pyspiel.load_game(gos.SHORT_NAMES[spec.name], {"players": n, **params})


def check_openspiel(game: Game, num_players: int | None = None) -> None:
    """The game as a pyspiel game (``gamecore.envs.openspiel``) plays a random game exactly as the
    env does: its type, sizes, first state, deciders, legal actions, action strings and returns.
    Skipped without open_spiel."""
    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    pyspiel, sgame = _pyspiel_game(spec, n, seed=11)
    info = pyspiel.GameType.Information
    expected = info.IMPERFECT_INFORMATION if spec.hides_information(n) else info.PERFECT_INFORMATION
    assert sgame.get_type().information == expected, f"{where}: OpenSpiel's information type"
    params = spec.make_params(n)
    assert sgame.num_players() == n, f"{where}: OpenSpiel's player count {sgame.num_players()}"
    assert sgame.num_distinct_actions() == spec.num_actions(params), f"{where}: OpenSpiel's action count"
    assert sgame.observation_tensor_shape() == list(spec.obs_shape(params)), f"{where}: OpenSpiel's tensor shape"
    env = _raw_env(spec, n)
    env.reset(seed=11)
    env.reset()  # the second game of stream 11 is the game's second new_initial_state()
    sgame.new_initial_state()
    state = sgame.new_initial_state()
    assert np.array_equal(state.state_array, env.state_array), f"{where}: OpenSpiel's game is not the env's"
    rng = np.random.default_rng(n)
    moves = 0
    while not env.game_over:
        at = f"{where} move {moves}"
        assert not state.is_terminal(), f"{at}: OpenSpiel's game ended first"
        assert state.current_player() == env.agent_name_mapping[env.agent_selection], f"{at}: another decider"
        legal = state.legal_actions()
        assert legal == env.legal_actions(), f"{at}: other legal actions"
        a = int(rng.choice(legal))
        assert state.action_to_string(state.current_player(), a) == env.action_to_string(a), f"{at}: action string"
        state.apply_action(a)
        env.step(a)
        moves += 1
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL, f"{where}: not terminal"
    assert state.legal_actions() == [], f"{where}: legal actions after the end"
    returns = [env.rewards[agent] for agent in env.possible_agents]
    assert state.returns() == returns, f"{where}: returns {state.returns()}, the env's {returns}"
    assert abs(sum(state.returns())) < 1e-9, f"{where}: returns {state.returns()} do not sum to zero"
    assert moves == len(state.history()) <= sgame.max_game_length(), f"{where}: {moves} moves, history, length bound"
    assert str(state), f"{where}: an empty str(state)"


def check_openspiel_random_sim(game: Game, num_players: int | None = None) -> None:
    """OpenSpiel's own C++ consistency check of a game, ``pyspiel.random_sim_test`` (one random
    game: clones, strings, tensors, returns; without serialization, which pyspiel cannot do for a
    Python game with its generator in the state). Skipped without open_spiel."""
    spec = _spec(game)
    n = _count(spec, num_players)
    pyspiel, sgame = _pyspiel_game(spec, n)
    pyspiel.random_sim_test(sgame, num_sims=1, serialize=False, verbose=False)


# ---- agents and the arena -----------------------------------------------------------------------------
def check_agents(game: Game, num_players: int | None = None) -> None:
    """The random, greedy and MCTS agents take legal decisions on the AEC path (``aec_action``) and
    on the batched path (``act``, each agent for its rows); the search agents leave the state they
    are given untouched, repeat under a seed and are no plain ``(obs, masks)`` opponents."""
    from gamecore.envs.batched import BatchedGames
    from gamecore.search.agents import GreedyAgent, MCTSAgent, RandomAgent, aec_action

    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    agents = [RandomAgent(spec, seed=1), GreedyAgent(spec, seed=2), MCTSAgent(spec, seed=3, budget=8)]
    env = _env(spec, n, illegal="raise")
    env.reset(seed=4)
    for k in range(12):
        agent = agents[k % 3]
        action = aec_action(agent, env)
        if action is None or env.unwrapped.game_over:
            break
        assert env.unwrapped._legal_mask()[action], f"{where}: {agent.spec} took illegal action {action}"
        env.step(action)
    games = BatchedGames(spec, 6, seed=5, num_players=n)
    obs, masks = games.reset()
    for k in range(4):
        actions = np.zeros(6, dtype=np.int64)
        for j, agent in enumerate(agents):
            rows = np.arange(6) % 3 == (j + k) % 3
            actions[rows] = agent.act(obs[rows], masks[rows].astype(bool), games.states[rows],
                                      games.current_players[rows])
        assert masks[np.arange(6), actions].all(), f"{where}: an agent took an illegal action on the batched path"
        obs, _, _, masks = games.step(actions)
    _raises(TypeError, "searches the game state", f"{where}: a search agent called as an (obs, masks) opponent",
            agents[1], obs, masks)
    assert agents[0](obs, masks).shape == (6,), f"{where}: the random agent's decisions"

    raw = _raw_env(spec, n)
    raw.reset(seed=6)
    play_random(raw, np.random.default_rng(6), max_steps=9)
    state = raw.get_state()
    mask = raw.observe(raw.agent_selection)["action_mask"]
    for make in (lambda s: GreedyAgent(spec, seed=s), lambda s: MCTSAgent(spec, seed=s, budget=16)):
        before = state.copy()
        obs = raw.observe(raw.agent_selection)["observation"]
        first = make(11).act_one(obs, mask, state)
        name = make(11).spec
        assert np.array_equal(state, before), f"{where}: {name} changed the state it was given"
        assert make(11).act_one(obs, mask, state) == first, f"{where}: {name} does not repeat under a seed"
        assert mask[first], f"{where}: {name} took illegal action {first}"


def check_arena(game: Game, num_players: int | None = None) -> None:
    """A short arena (random against greedy) plays whole deals, every seating of every deal once,
    rank rewards summing to zero, and summarises and tabulates them."""
    from gamecore.tools import arena

    spec = _spec(game)
    n = _count(spec, num_players)
    where = _where(spec, n)
    run = arena.play(spec, ["random", "greedy"], n, games=1, seed=3, parallel=1)
    schedule = arena.seat_schedule(2, n)
    assert len(run.results) % len(schedule) == 0 and run.results, f"{where}: {len(run.results)} results"
    by_deal: dict[int, list] = {}
    for r in run.results:
        by_deal.setdefault(r.deal, []).append(r.seating)
        assert _approx(sum(r.rank_reward), 0.0), f"{where}: rank rewards {r.rank_reward} do not sum to zero"
    assert all(sorted(s) == sorted(schedule) for s in by_deal.values()), f"{where}: seatings per deal {by_deal}"
    summary = arena.summarize(run)
    rnd, greedy = summary["per_agent"]["random"], summary["per_agent"]["greedy"]
    assert rnd["seats_played"] == greedy["seats_played"] > 0, f"{where}: seats played {rnd}, {greedy}"
    for agent in (rnd, greedy):
        lo, hi = agent["win_rate_ci95"]
        assert lo <= agent["win_rate"] <= hi, f"{where}: a win rate outside its interval"
    table = arena.format_table(summary)
    assert "| `greedy` |" in table and "| `random` |" in table, f"{where}: the arena table\n{table}"


# ---- the kit ---------------------------------------------------------------------------------------
#: every check, by name, in the order :func:`check_game` runs them
CHECKS: dict[str, Callable[..., None]] = {
    "pettingzoo_api": check_pettingzoo_api,
    "pettingzoo_seed": check_pettingzoo_seed,
    "pettingzoo_render": check_pettingzoo_render,
    "pettingzoo_make": check_pettingzoo_make,
    "spaces_and_masks": check_spaces_and_masks,
    "apply_legal": check_apply_legal,
    "batched_equals_sequential": check_batched_equals_sequential,
    "clone_pickle_set_state": check_clone_pickle_set_state,
    "reset_seeding": check_reset_seeding,
    "rewards": check_rewards,
    "to_dict_json": check_to_dict_json,
    "action_strings": check_action_strings,
    "bad_actions": check_bad_actions,
    "bad_player_counts": check_bad_player_counts,
    "bad_options": check_bad_options,
    "bad_states": check_bad_states,
    "call_order": check_call_order,
    "batched_bad_input": check_batched_bad_input,
    "sb3_maskable_ppo": check_sb3_maskable_ppo,
    "resample_keeps_view": check_resample_keeps_view,
    "resample_depends_only_on_view": check_resample_depends_only_on_view,
    "generator_in_no_view": check_generator_in_no_view,
    "renders_public_by_default": check_renders_public_by_default,
    "global_state": check_global_state,
    "openspiel": check_openspiel,
    "openspiel_random_sim": check_openspiel_random_sim,
    "agents": check_agents,
    "arena": check_arena,
}

#: checks run at one player count per game (the default count, unless :func:`check_game` is given
#: one); the others run at every count the game supports
ONCE = frozenset({
    "action_strings", "bad_actions", "bad_player_counts", "bad_options", "bad_states", "call_order",
    "batched_bad_input", "sb3_maskable_ppo", "renders_public_by_default", "openspiel_random_sim", "agents", "arena",
})

#: checks that train or search (seconds each): left out by ``quick=True``
HEAVY = frozenset({"sb3_maskable_ppo", "openspiel_random_sim", "agents", "arena"})


def plan(game: Game, num_players: int | None = None, *, quick: bool = False) -> list[tuple[str, int]]:
    """The ``(check, player count)`` pairs :func:`check_game` runs, in order: every check of
    :data:`CHECKS` at every count the game supports (only ``num_players`` if given), those of
    :data:`ONCE` at one count. ``quick``: the default count only, and no :data:`HEAVY` check."""
    spec = _spec(game)
    if num_players is not None:
        counts: tuple[int, ...] = (_count(spec, num_players),)
    elif quick:
        counts = (spec.default_players,)
    else:
        counts = spec.player_counts
    once = counts[0] if num_players is not None else spec.default_players
    out = []
    for name in CHECKS:
        if quick and name in HEAVY:
            continue
        out += [(name, once)] if name in ONCE else [(name, n) for n in counts]
    return out


def case_id(value: Any) -> str:
    """A readable pytest id for the values of :func:`plan`'s pairs (``ids=testing.case_id``): the
    check's name, the player count as ``2p``."""
    return f"{value}p" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def check_game(game: Game, num_players: int | None = None, *, quick: bool = False) -> list[str]:
    """Run every check of the kit on ``game`` (a registered name or a ``GameSpec``) as :func:`plan`
    lists them; raises the first failure's ``AssertionError``. Returns what ran, as
    ``"check[count]"`` (``"pettingzoo_api[3]"``); a check that raised ``unittest.SkipTest`` is left
    out."""
    spec = _spec(game)
    ran = []
    for name, n in plan(spec, num_players, quick=quick):
        try:
            CHECKS[name](spec, n)
        except SkipTest:
            continue
        ran.append(f"{name}[{n}]")
    return ran
