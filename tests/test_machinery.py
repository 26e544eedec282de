"""Regression tests of the shared machinery: bad input is refused clearly and changes nothing,
seeds never wrap, batches and vector envs survive pickling and failed steps.

Each test names the defect it pins down; all run on every game."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from conftest import GAME_NAMES, game_module, play_random, play_to_end, random_legal
from gamecore.envs.aec import IllegalActionError
from gamecore.envs.batched import BatchedGames, batch_bytes
from gamecore.kernel.protocol import H_CURRENT, H_DECISIONS, H_DONE, H_OWNER, H_PHASE, H_TERMINAL, MAX_COUNTER


def spec(name):
    return game_module(name).GAME


# ---- player counts ---------------------------------------------------------------------------------
def test_every_constructor_defaults_to_the_games_smallest_player_count(game_name):
    mod = game_module(game_name)
    low = mod.GAME.min_players
    assert mod.raw_env().num_players == low
    env = mod.env()
    env.reset(seed=0)
    assert len(env.possible_agents) == low
    assert BatchedGames(game_name, 2).num_players == low


def test_player_counts_outside_the_games_limits_are_rejected(game_name):
    g = spec(game_name)
    for n in (g.min_players - 1, g.max_players + 1, 0):
        with pytest.raises(ValueError, match="num_players must be between"):
            game_module(game_name).raw_env(num_players=n)
        with pytest.raises(ValueError, match="num_players must be between"):
            BatchedGames(game_name, 2, num_players=n)


def test_unknown_option_error_lists_every_accepted_option(game_name):
    with pytest.raises(TypeError, match="unknown option") as err:
        game_module(game_name).raw_env(colour="red")
    for opt in ("num_players", "reward_mode", "render_mode", "viewer", "illegal", *spec(game_name).option_defaults):
        assert opt in str(err.value)


# ---- batched: active ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "active, err, msg",
    [
        (1, ValueError, "shape"),
        (np.ones(2, np.int8), ValueError, "shape"),  # (N-1,)
        (np.ones((3, 1), np.int8), ValueError, "shape"),
        (np.ones(4, np.int8), ValueError, "shape"),  # (N+1,)
        (np.array([1, 256, 1]), ValueError, "0/1"),
        (np.array([1, 2, 0]), ValueError, "0/1"),
        (np.array([0.5, 1.0, 1.0]), TypeError, "bool or 0/1"),
        (np.array([np.nan, 1.0, 1.0]), TypeError, "bool or 0/1"),
        (np.array([1, -1, 1]), ValueError, "0/1"),
    ],
)
def test_batched_step_validates_active_before_any_kernel_sees_it(game_name, active, err, msg):
    b = BatchedGames(game_name, 3, seed=0)
    b.reset()
    before = b.states.copy()
    actions = np.array([int(np.flatnonzero(m)[0]) for m in b.masks])
    with pytest.raises(err, match=msg):
        b.step(actions, active=active)
    assert np.array_equal(b.states, before)


def test_batched_step_with_active_steps_exactly_the_active_games(game_name):
    b = BatchedGames(game_name, 3, seed=0)
    b.reset()
    before = b.states.copy()
    actions = np.array([int(np.flatnonzero(m)[0]) for m in b.masks])
    b.step(actions, active=np.array([True, False, True]))
    assert np.array_equal(b.states[1], before[1])
    assert not np.array_equal(b.states[0], before[0]) and not np.array_equal(b.states[2], before[2])
    # inactive games may carry any action, even an illegal one: it is never looked at
    actions = np.array([int(np.flatnonzero(m)[0]) for m in b.masks])
    actions[1] = 10**12
    b.step(actions, active=np.array([1, 0, 1], dtype=np.uint8))


@pytest.mark.parametrize("value", [2**64 - 1, 2**63, 2**70, -(2**63)])
def test_overflowing_batched_actions_are_reported_with_the_value_passed(game_name, value):
    b = BatchedGames(game_name, 2, seed=0)
    b.reset()
    before = b.states.copy()
    legal = int(np.flatnonzero(b.masks[0])[0])
    dtype = np.uint64 if value >= 2**63 and value < 2**64 else (object if value >= 2**64 else np.int64)
    actions = np.array([legal, value], dtype=dtype)
    with pytest.raises(ValueError, match=rf"game 1: action {value} is out of range"):
        b.step(actions)
    assert np.array_equal(b.states, before)


def test_batched_bool_actions_are_refused(game_name):
    b = BatchedGames(game_name, 2, seed=0)
    b.reset()
    with pytest.raises(TypeError, match="integers"):
        b.step(np.array([True, False]))


def test_batched_step_before_reset_is_a_clear_error(game_name):
    b = BatchedGames(game_name, 2, seed=0)
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before step\(\)"):
        b.step(np.zeros(2, dtype=np.int64))


def test_a_batch_too_large_for_memory_is_refused_up_front_naming_the_bytes(game_name):
    g = spec(game_name)
    n = g.max_players
    params = g.make_params(num_players=n)
    huge = 10**9
    need = batch_bytes(g, params, huge)
    with pytest.raises(MemoryError, match=f"{need:,} bytes"):
        BatchedGames(game_name, huge, num_players=n)


# ---- batched: random_rollout -----------------------------------------------------------------------
@pytest.mark.slow
def test_random_rollout_seeds_through_the_shared_seeding_and_keeps_the_batch_usable(game_name):
    b = BatchedGames(game_name, 4, seed=0)
    b.reset()
    states = b.states.copy()
    d0 = b.random_rollout(2, seed=0)
    assert d0 == b.random_rollout(2, seed=0)  # deterministic
    assert d0 != b.random_rollout(2, seed=1)  # and a function of the seed
    assert np.array_equal(b.states, states)  # the batch's own games are untouched ...
    actions = np.array([int(np.flatnonzero(m)[0]) for m in b.masks])
    b.step(actions)  # ... and it steps on without another reset()


def test_random_rollout_slot_0_with_seed_0_does_not_always_pick_the_first_legal_action(game_name):
    """Seed 0 used to give slot 0 a zero xorshift state, which picks action 0 of the mask forever."""
    from gamecore.kernel.batch_kernels import build
    from gamecore.kernel.rng import rng_pick_legal, rng_seed_array

    rng = np.zeros(1, dtype=np.int64)
    rng_seed_array(rng, np.zeros(1, dtype=np.int64), -1)
    assert rng[0] != 0
    mask = np.ones(50, dtype=np.int8)
    picks = {rng_pick_legal(mask, 50, rng, 0) for _ in range(200)}
    assert len(picks) > 20
    assert build(spec(game_name).kernels)  # the factory builds the rollout for every game


@pytest.mark.parametrize("threads", [1, 2])
def test_reset_step_forfeit_and_rollout_share_one_compiled_batch_kernel(game_name, threads):
    """The batch's reset, step, forfeit and random rollout run one kernel, compiled for one
    signature: a wrapper passing another dtype or layout would compile (and cache) a second copy.
    One thread runs its serial copy, more its parallel one (``Threaded``); the other copy is not
    compiled for it."""
    import numba

    from gamecore.kernel.batch_kernels import build

    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("one numba thread on this machine")
    b = BatchedGames(game_name, 3, seed=5, num_threads=threads)
    reset, step, rollout, _ = build(b.game.kernels)
    assert reset.kernel is step.kernel is rollout.kernel
    used = step.kernel.serial if threads == 1 else step.kernel.parallel
    other = step.kernel.parallel if threads == 1 else step.kernel.serial
    before = len(other.signatures)
    b.reset()
    b.step(b.random_actions())
    b.step(b.random_actions(), active=np.array([True, False, True]))
    b.forfeit([1])
    assert b.random_rollout(1) > 0
    assert len(used.signatures) == 1, used.signatures
    assert len(other.signatures) == before


# ---- batched: random_actions and legal_counts ---------------------------------------------------------
def test_legal_counts_are_the_number_of_legal_actions_in_each_mask(game_name):
    b = BatchedGames(game_name, 16, seed=3)
    b.reset()
    for _ in range(40):
        assert np.array_equal(b.legal_counts, b.masks.astype(np.int64).sum(axis=1))
        b.step(b.random_actions())


def test_random_actions_are_legal_seeded_and_independent_of_the_thread_count(game_name):
    runs = []
    for threads in (1, 2):
        b = BatchedGames(game_name, 128, seed=11, num_threads=threads)
        b.reset()
        picks = []
        for _ in range(30):
            a = b.random_actions()
            assert a.dtype == np.int64 and a.shape == (128,)
            assert np.all(b.masks[np.arange(128), a] == 1)
            picks.append(a)
            b.step(a)
        runs.append((np.array(picks), b.states.copy()))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    b.reset(seed=12)
    assert not np.array_equal(b.random_actions(), runs[0][0][0])  # a function of the seed


def test_random_actions_reach_every_legal_action_uniformly():
    """A 3,500-entry mask (Callisto) exercises the block skipping of the pick: every legal action
    of the opening position comes up, with frequencies a uniform pick gives."""
    b = BatchedGames("callisto", 1, seed=0)
    b.reset()
    legal = np.flatnonzero(b.masks[0])
    counts = dict.fromkeys(legal.tolist(), 0)
    draws = 200 * len(legal)
    for _ in range(draws):
        counts[int(b.random_actions()[0])] += 1  # no step: the same mask every time
    values = np.array(list(counts.values()))
    assert set(counts) == set(legal.tolist()) and values.min() > 0
    chi2 = float(((values - 200.0) ** 2 / 200.0).sum())
    assert chi2 < len(legal) + 6 * np.sqrt(2 * len(legal))  # far inside a chi-square's spread


def test_random_actions_before_reset_is_a_clear_error(game_name):
    with pytest.raises(RuntimeError, match="reset"):
        BatchedGames(game_name, 2).random_actions()


def test_pick_legal_returns_the_kth_legal_action_of_a_plain_scan():
    from gamecore.kernel.rng import rng_below, rng_pick_legal, rng_seed_array

    gen = np.random.default_rng(5)
    for size in (1, 63, 64, 65, 128, 200, 3500):
        for density in (0.1, 0.9):
            mask = (gen.random(size) < density).astype(np.int8)
            mask[gen.integers(size)] = 1
            legal = np.flatnonzero(mask)
            # a row of bytes (the vector path), bools, wider ints and a strided view (the loop)
            for layout in (mask, mask.astype(bool), mask.astype(np.int64), np.repeat(mask, 2)[::2]):
                for seed in range(20):
                    rng = np.zeros(1, dtype=np.int64)
                    rng_seed_array(rng, np.array([seed], dtype=np.int64), -1)
                    twin = rng.copy()
                    k = rng_below(twin, 0, len(legal))
                    assert rng_pick_legal(layout, len(legal), rng, 0) == legal[k]
    assert rng_pick_legal(np.zeros(10, dtype=np.int8), 0, rng, 0) == -1


def test_random_opponent_picks_legal_actions_and_replays_from_its_seed():
    from gamecore.envs.batched import RandomOpponent

    masks = np.zeros((5, 300), dtype=bool)
    masks[np.arange(5), [0, 64, 128, 299, 7]] = True
    masks[2, 200:] = True
    a, b = RandomOpponent(3), RandomOpponent(3)
    for _ in range(20):
        picks = a(None, masks)
        assert np.array_equal(picks, b(None, masks)) and np.all(masks[np.arange(5), picks])
    assert np.array_equal(a(None, masks.astype(np.int8))[[0, 1, 3]], [0, 64, 299])
    assert a(None, np.zeros((1, 4), dtype=bool))[0] == -1
    with pytest.raises(ValueError, match="2-D"):
        a(None, masks[0])
    assert np.all(masks[np.arange(5), RandomOpponent(2**70)(None, masks)])  # any seed numpy takes
    with pytest.raises(ValueError):
        RandomOpponent(-1)


# ---- seeds -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [-1, 2**63, 10**100, -(2**70)])
def test_seeds_outside_0_to_2_63_are_refused_instead_of_wrapping(game_name, seed):
    env = game_module(game_name).raw_env()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)
    with pytest.raises(ValueError, match="seed"):
        BatchedGames(game_name, 2, seed=seed)


@pytest.mark.parametrize("seed", [1.5, "3", True])
def test_seeds_must_be_ints(game_name, seed):
    with pytest.raises(TypeError, match="seed"):
        game_module(game_name).raw_env().reset(seed=seed)


def test_small_seeds_never_collide(game_name):
    states = set()
    for seed in range(64):
        env = game_module(game_name).raw_env()
        env.reset(seed=seed)
        states.add(env.get_state().tobytes())
    has_chance = game_name != "callisto"
    assert len(states) == (64 if has_chance else len(states))


def test_a_batch_whose_streams_would_pass_2_63_is_refused(game_name):
    with pytest.raises(ValueError, match="seed"):
        BatchedGames(game_name, 4, seed=2**63 - 2)
    BatchedGames(game_name, 4, seed=2**63 - 4).reset()


# ---- raw env: calls out of order ------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.observe("player_0"),
        lambda e: e.action_to_string(0),
        lambda e: e.to_dict(),
        lambda e: e.step(0),
        lambda e: e.last(),
        lambda e: e.legal_actions(),
        lambda e: e.get_state(),
    ],
)
def test_calls_before_reset_raise_a_clear_error(game_name, call):
    env = game_module(game_name).raw_env()
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before"):
        call(env)


def test_step_and_last_after_the_game_is_over_raise_a_clear_error(game_name):
    env = game_module(game_name).raw_env()
    env.reset(seed=0)
    play_random(env, np.random.default_rng(0))
    assert env.agents == []
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(None)
    with pytest.raises(RuntimeError, match="game is over"):
        env.last()


@pytest.mark.parametrize("bad", [1.7, -0.5, float("nan"), "1", None, True, 10**30])
def test_action_to_string_refuses_what_is_not_an_action(game_name, bad):
    env = game_module(game_name).raw_env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.action_to_string(bad)


def test_action_to_string_accepts_integral_numbers(game_name):
    env = game_module(game_name).raw_env()
    env.reset(seed=0)
    a = env.legal_actions()[0]
    assert env.action_to_string(np.int16(a)) == env.action_to_string(float(a)) == env.action_to_string(a)


def test_a_huge_string_is_not_echoed_back_whole(game_name):
    env = game_module(game_name).raw_env()
    env.reset(seed=0)
    text = "x" * 10_000_000
    with pytest.raises(ValueError) as err:
        env.string_to_action(text)
    assert len(str(err.value)) < 2000
    with pytest.raises(ValueError) as err:
        game_module(game_name).raw_env(reward_mode=text)
    assert len(str(err.value)) < 2000


# ---- illegal = raise | lose ---------------------------------------------------------------------------
def test_illegal_lose_ends_the_game_with_minus_one_for_the_mover_and_the_loop_finishes(game_name):
    env = game_module(game_name).env()  # env() defaults to illegal="lose"
    env.reset(seed=0)
    mover = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    total = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        total[agent] = reward
        assert term
        env.step(None)
    assert total[mover] == -1.0
    assert all(v == 0.0 for a, v in total.items() if a != mover)


def test_illegal_raise_changes_nothing(game_name):
    env = game_module(game_name).env(illegal="raise")
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(illegal)
    assert np.array_equal(env.unwrapped.get_state(), before)
    with pytest.raises(ValueError, match="illegal must be one of"):
        game_module(game_name).env(illegal="ignore")


def test_out_of_range_actions_raise_under_either_illegal_mode(game_name):
    for mode in ("raise", "lose"):
        env = game_module(game_name).env(illegal=mode)
        env.reset(seed=0)
        with pytest.raises(IllegalActionError, match="out of range"):
            env.step(10**9)


# ---- set_state accepts only positions the game can continue from ----------------------------------
def _mid_game(name, n=None, steps=12, seed=0):
    env = game_module(name).raw_env(num_players=n)
    env.reset(seed=seed)
    play_random(env, np.random.default_rng(seed), max_steps=steps)
    return env


def _refused(env, bad):
    good = env.get_state()
    with pytest.raises(ValueError, match="malformed"):
        env.set_state(bad)
    assert np.array_equal(env.get_state(), good)


def test_set_state_refuses_counters_that_would_overflow(game_name):
    env = _mid_game(game_name)
    bad = env.get_state()
    bad[H_DECISIONS] = 2**63 - 1
    _refused(env, bad)
    bad[H_DECISIONS] = MAX_COUNTER + 1
    _refused(env, bad)


def test_set_state_refuses_a_header_that_does_not_add_up(game_name):
    env = _mid_game(game_name)
    g = env.get_state()
    for slot, value in [(H_OWNER, -1), (H_OWNER, env.num_players), (H_PHASE, -1), (H_PHASE, 99),
                        (H_DONE, 1 << int(g[H_CURRENT]))]:
        bad = g.copy()
        bad[slot] = value
        _refused(env, bad)


def test_set_state_refuses_a_running_game_whose_decider_has_no_legal_action():
    import callisto_env

    env = callisto_env.raw_env()
    env.reset(seed=0)
    full = "\n".join(["GBGBGBGBGB" if r % 2 == 0 else "BGBGBGBGBG" for r in range(10)])
    from callisto_env.game import state_from_ascii

    with pytest.raises(ValueError, match="malformed|no legal action"):
        env.set_state(state_from_ascii(full, 2))


def test_callisto_set_state_refuses_states_it_cannot_reach():
    import callisto_env
    from callisto_env import layout as L

    env = _mid_game("callisto")
    g = env.get_state()
    cases = {
        "match differs from the env's option": (L.MATCH, 1),
        "negative turn counter": (L.TURNS, -1),
        "turn counter near overflow": (L.TURNS, 2**63 - 1),
        "done bit without the seat being out": (H_DONE, 1 << (1 - int(g[H_CURRENT]))),
        "start seat not the option's": (L.START, 1 - int(g[L.START])),
    }
    for _why, (slot, value) in cases.items():
        bad = g.copy()
        bad[slot] = value
        with pytest.raises(ValueError, match="malformed"):
            env.set_state(bad)
    # three pillars while the opening is still running
    opening = callisto_env.raw_env()
    opening.reset(seed=0)
    opening.step(opening.legal_actions()[0])
    bad = opening.get_state()
    bad[L.PILLARS + 0] = 3
    with pytest.raises(ValueError, match="malformed"):
        opening.set_state(bad)
    # a seat that is out, but its done bit is not set, in a single game
    bad = g.copy()
    other = 1 - int(g[H_CURRENT])
    bad[L.OUT + other] = 1
    with pytest.raises(ValueError, match="malformed"):
        env.set_state(bad)


def test_calcada_set_state_refuses_a_declared_number_before_the_declare():
    from calcada_env import layout as L

    env = _mid_game("calcada", steps=0)
    assert env.state_array[L.PHASE] == L.PHASE_DECLARE
    bad = env.get_state()
    bad[L.DECL_NUM] = 7
    _refused(env, bad)
    bad = env.get_state()
    bad[L.DECL_COL] = 3
    _refused(env, bad)
    bad = env.get_state()
    bad[L.STACK_KNOWN] = bad[L.STACK_N] + 1
    _refused(env, bad)


def test_random_corruption_is_refused_or_harmless_never_a_crash(game_name):
    env = _mid_game(game_name)
    good = env.get_state()
    rng = np.random.default_rng(0)
    for _ in range(300):
        bad = good.copy()
        bad[rng.integers(len(bad))] = rng.choice([-(2**40), -7, -1, 1, 2, 99, 2**40, 2**62])
        try:
            env.set_state(bad)
        except ValueError:
            assert np.array_equal(env.get_state(), good)
            continue
        # accepted: the game continues legally from it
        for _ in range(5):
            if env.state_array[H_TERMINAL]:
                break
            env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
        env.set_state(good)


# ---- pickling and copying ------------------------------------------------------------------------------
def test_batched_games_pickle_and_deepcopy_and_continue_identically(game_name):
    b = BatchedGames(game_name, 3, seed=5)
    b.reset()
    copies = [pickle.loads(pickle.dumps(b)), copy.deepcopy(b)]
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = np.array([random_legal(m, rng) for m in b.masks])
        b.step(actions)
        for c in copies:
            c.step(actions)
            assert np.array_equal(c.states, b.states)


# ---- SB3 vector env -------------------------------------------------------------------------------------
@pytest.fixture
def sb3():
    # a fixture, not a module-level importorskip: that skipped every test of this file without SB3
    return pytest.importorskip("gamecore.envs.sb3", reason="needs the train extra")


def _trajectory(venv, steps=40):
    obs = venv.reset()
    out = [obs.copy()]
    rng = np.random.default_rng(1)
    for _ in range(steps):
        actions = np.array([random_legal(m, rng) for m in venv.action_masks()])
        obs, rew, dones, _ = venv.step(actions)
        out.append(obs.copy())
        out.append(rew.copy())
    return out


def test_selfplay_vecenv_with_a_seed_is_reproducible_with_the_default_opponent(game_name, sb3):
    a = _trajectory(sb3.SelfPlayVecEnv(game_name, num_envs=3, seed=11))
    b = _trajectory(sb3.SelfPlayVecEnv(game_name, num_envs=3, seed=11))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    venv = sb3.SelfPlayVecEnv(game_name, num_envs=3, seed=11)
    again = zip(_trajectory(venv), _trajectory(venv), strict=True)  # a seeded reset replays
    assert all(np.array_equal(x, y) for x, y in again)


@pytest.mark.parametrize("failure", ["raises", "illegal"])
def test_selfplay_vecenv_step_is_all_or_nothing(game_name, failure, sb3):
    venv = sb3.SelfPlayVecEnv(game_name, num_envs=3, seed=0)
    venv.reset()
    g = venv.games

    def bad_opponent(obs, masks):
        if failure == "raises":
            raise RuntimeError("opponent crashed")
        return np.array([int(np.flatnonzero(m == 0)[0]) for m in masks])

    venv.set_opponent(bad_opponent)
    for _ in range(300):  # the learner acts until some game needs an opponent's move
        before = [g.states.copy(), g.masks.copy(), g.current_players.copy(), venv._seats.copy()]
        actions = np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])
        try:
            venv.step(actions)
        except (RuntimeError, ValueError) as exc:
            assert "opponent crashed" in str(exc) or "not legal" in str(exc)
            break
    else:
        pytest.fail("the opponent was never asked to move")
    after = [g.states, g.masks, g.current_players, venv._seats]
    assert all(np.array_equal(x, y) for x, y in zip(before, after, strict=True))
    venv.set_opponent("random")
    venv.step(actions)  # the learner's actions are still legal for the learner's seat


def test_selfplay_vecenv_pickles_and_deepcopies(game_name, sb3):
    venv = sb3.SelfPlayVecEnv(game_name, num_envs=2, seed=3)
    venv.reset()
    for c in (pickle.loads(pickle.dumps(venv)), copy.deepcopy(venv)):
        assert np.array_equal(c.games.states, venv.games.states)
        actions = np.array([int(np.flatnonzero(m)[0]) for m in c.action_masks()])
        c.step(actions)


def test_finished_game_leaves_every_seat_done():
    env = _mid_game(GAME_NAMES[0])
    play_to_end(env, np.random.default_rng(0))
    assert env.state_array[H_DONE] == (1 << env.num_players) - 1


# ---- threads -----------------------------------------------------------------------------------------
def test_results_do_not_depend_on_the_thread_count(game_name):
    runs = []
    for threads in (1, 2, "auto"):
        b = BatchedGames(game_name, 128, seed=4, num_threads=threads)
        b.reset()
        rng = np.random.default_rng(0)
        for _ in range(30):
            b.step(np.array([random_legal(m, rng) for m in b.masks]))
        runs.append(b.states.copy())
    assert all(np.array_equal(runs[0], r) for r in runs[1:])


def test_one_thread_is_the_default():
    assert BatchedGames("callisto", 1024).threads.candidates == [1]
    assert BatchedGames("callisto", 1024, num_threads="auto").threads.candidates[0] == 1


def test_one_thread_is_the_default_of_the_sb3_vec_env():
    pytest.importorskip("stable_baselines3")
    from gamecore.envs.sb3 import SelfPlayVecEnv

    assert SelfPlayVecEnv("callisto", num_envs=1024).games.threads.candidates == [1]


def test_auto_threads_tries_one_and_all_and_keeps_the_faster():
    from gamecore.envs.batched import ThreadChooser

    chooser = ThreadChooser("auto", 1024)
    assert chooser.candidates == [1, 2] or chooser.candidates == [1]
    if chooser.candidates == [1]:
        pytest.skip("one CPU")
    slow_with = {1: 0.0, 2: 0.02}  # pretend two threads are slow (cores busy)
    import time as _time

    for _ in range(chooser.EXPLORE * 2):
        chooser.run(lambda threads: _time.sleep(slow_with[threads]))  # kernels get the count first
    assert chooser.best == 1
    # the total time of a block decides, not its fastest call: two threads with one lucky fast
    # call (beside a busy process) still lose to one thread that is steadily faster
    chooser = ThreadChooser("auto", 1024)
    times = {1: [0.004] * chooser.EXPLORE, 2: [0.0, 0.0] + [0.01] * (chooser.EXPLORE - 2)}
    for _ in range(chooser.EXPLORE * 2):
        chooser.run(lambda threads: _time.sleep(times[threads].pop(0)))
    assert chooser.best == 1
    assert ThreadChooser("auto", 64).candidates == [1]  # too few games to share
    with pytest.raises(ValueError, match="num_threads"):
        BatchedGames("callisto", 4, num_threads=0)
    with pytest.raises(ValueError, match="num_threads"):
        BatchedGames("callisto", 4, num_threads="many")


def test_the_wrapped_env_pickles_and_copies(game_name):
    env = game_module(game_name).env()
    env.reset(seed=2)
    env.step(env.unwrapped.legal_actions()[0])
    for other in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert other.agent_selection == env.agent_selection
        assert np.array_equal(other.unwrapped.get_state(), env.unwrapped.get_state())
    with pytest.raises(AttributeError, match="before reset"):
        game_module(game_name).env().agent_selection  # noqa: B018


# ---- scratch arrays on the stack (gamecore.kernel.scratch) ------------------------------------------------
def test_stack_scratch_arrays_behave_as_c_contiguous_arrays_of_their_shape_and_dtype():
    import numba

    from gamecore.kernel.scratch import stack_empty

    @numba.njit
    def helper(v):
        total = 0
        for i in range(v.shape[0]):
            total += v[i]
        return total

    @numba.njit
    def fill(k):
        a = stack_empty(7, np.int64)
        b = stack_empty((3, 4), np.int8)
        c = stack_empty(5, np.bool_)
        for i in range(7):
            a[i] = i * k
        for i in range(3):
            for j in range(4):
                b[i, j] = 4 * i + j
        c[:] = True
        row = b[2]  # a view passed on and reduced
        return helper(a), row.sum(), b.strides, a.shape, b.shape, c.sum(), a.itemsize

    assert fill(2) == (42, 38, (4, 1), (7,), (3, 4), 5, 8)

    @numba.njit
    def many(reps):  # a fresh scratch array per iteration, each filled before it is read
        total = 0
        for r in range(reps):
            v = stack_empty(29, np.int64)
            v[:] = r
            total += helper(v)
        return total

    assert many(100_000) == 29 * sum(range(100_000))


def test_stack_scratch_shapes_must_be_known_when_the_kernel_compiles_and_small():
    import numba

    from gamecore.kernel.scratch import MAX_STACK_BYTES, stack_empty

    @numba.njit
    def dynamic(n):
        return stack_empty(n, np.int64).shape[0]

    with pytest.raises(numba.core.errors.TypingError, match="stack_empty"):
        dynamic(3)

    @numba.njit
    def huge():
        return stack_empty(MAX_STACK_BYTES, np.int64).shape[0]

    with pytest.raises(numba.core.errors.TypingError, match="more than"):
        huge()


def test_one_illegal_action_error_class_serves_every_path():
    """The AEC env, the single-agent env and the OpenSpiel adapter raise the same
    ``IllegalActionError``: catching it from one path catches it from every path (there were two
    classes of that name, and catching one missed the other)."""
    pytest.importorskip("pyspiel")
    import gamecore.envs.aec
    import gamecore.envs.openspiel
    import gamecore.envs.single_agent
    from gamecore.kernel.options import IllegalActionError

    assert gamecore.envs.aec.IllegalActionError is gamecore.envs.openspiel.IllegalActionError is IllegalActionError
    assert gamecore.envs.single_agent.IllegalActionError is IllegalActionError
    import pyspiel

    state = pyspiel.load_game(gamecore.envs.openspiel.SHORT_NAMES["calcada"]).new_initial_state()
    illegal = next(a for a in range(state.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(gamecore.envs.aec.IllegalActionError):
        state.apply_action(illegal)


def test_the_warm_up_stamp_names_the_cpu_numba_compiles_for():
    """numba keys cached machine code by CPU name and features: a cache directory warmed on one kind
    of CPU is cold for another, so the warm-up's "cached" stamp must differ with them (as numba
    reads them: ``generic`` without ``NUMBA_CPU_FEATURES`` means no features)."""
    from gamecore.tools.warmup import _stamp

    host = _stamp("callisto", ("aec",), {})
    assert host == _stamp("callisto", ("aec",), {})
    generic = _stamp("callisto", ("aec",), {"NUMBA_CPU_NAME": "generic"})
    assert generic != host
    assert generic == _stamp("callisto", ("aec",), {"NUMBA_CPU_NAME": "generic", "NUMBA_CPU_FEATURES": ""})
    assert _stamp("callisto", ("aec",), {"NUMBA_CPU_NAME": "generic", "NUMBA_CPU_FEATURES": "+avx2"}) != generic
