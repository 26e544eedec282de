"""The conformance suite, written once and run on every game and player count."""

from __future__ import annotations

import copy
import functools
import json
import pickle
import re

import numpy as np
import pettingzoo
import pytest
from fuzz_games import Fuzzer
from pettingzoo.test import api_test, render_test, seed_test

from conftest import GAME_PLAYERS, game_module, play_random, random_legal
from gamecore.envs.aec import IllegalActionError
from gamecore.envs.batched import BatchedGames
from gamecore.kernel.protocol import H_RNG, H_TERMINAL, VIEW_ALL, VIEW_PUBLIC


def low(name: str) -> int:
    """The game's smallest player count (the tests below that need one count use it)."""
    return game_module(name).GAME.min_players


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_pettingzoo_api(name, n):
    api_test(game_module(name).env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_pettingzoo_seed(name, n):
    seed_test(functools.partial(game_module(name).env, num_players=n), num_cycles=300)


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_pettingzoo_render(name, n):
    render_test(functools.partial(game_module(name).env, num_players=n))


def test_registered_with_pettingzoo_make(game_name):
    mod = game_module(game_name)
    n = mod.GAME.max_players
    env = pettingzoo.make("aec", mod.GAME.env_id, num_players=n)
    env.reset(seed=1)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    assert isinstance(env.unwrapped, mod.raw_env)


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_spaces_dtypes_and_masks(name, n):
    env = game_module(name).raw_env(num_players=n)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(40):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        for agent in env.agents:
            obs = env.observe(agent)
            space = env.observation_space(agent)
            assert obs["observation"].dtype == np.int8 and obs["action_mask"].dtype == np.int8
            assert space.contains(obs), agent
            if agent != env.agent_selection:
                assert not obs["action_mask"].any(), "only the deciding agent has legal actions"
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    assert all(type(v) is bool for v in env.terminations.values())


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_clone_get_state_and_pickle_round_trips_mid_game(name, n):
    env = game_module(name).raw_env(num_players=n)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    play_random(env, rng, max_steps=15)
    saved = env.get_state()
    clones = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    restored = game_module(name).raw_env(num_players=n)
    restored.reset(seed=999)
    restored.set_state(saved)
    for other in clones + [restored]:
        assert np.array_equal(other.get_state(), saved)
    # every copy continues identically, chance included
    trail = []
    for e in [env] + clones + [restored]:
        r = np.random.default_rng(5)
        steps = []
        while e.agents and not e.state_array[H_TERMINAL] and len(steps) < 200:
            a = random_legal(e.observe(e.agent_selection)["action_mask"], r)
            e.step(a)
            steps.append((a, e.get_state().tobytes()))
        trail.append(steps)
    assert all(t == trail[0] for t in trail[1:])


def test_reset_with_same_seed_gives_same_game_and_unseeded_resets_continue_the_stream(game_name):
    mod = game_module(game_name)
    a, b = mod.raw_env(num_players=3), mod.raw_env(num_players=3)
    a.reset(seed=42)
    b.reset(seed=42)
    assert np.array_equal(a.get_state(), b.get_state())
    a.reset()
    b.reset()
    assert np.array_equal(a.get_state(), b.get_state())


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_apply_legal_is_apply_then_legal_mask(name, n):
    """``apply_legal``, the one kernel call per decision of the AEC step, the batched step and the
    rollouts, reaches the state, mask and count of ``apply`` then ``legal_mask``, through a whole
    random game (the AEC and batched paths both use it, so comparing them cannot show this). The
    per-step check is the random-play fuzz's (``tests/fuzz_games.py``)."""
    fuzzer = Fuzzer(name, n, 5)
    K = fuzzer.K
    state = np.zeros(K.STATE_LEN, dtype=np.int64)
    K.init(state, fuzzer.params, 5)
    steps = 0
    while not state[H_TERMINAL]:
        legal = fuzzer.legal(state)
        fuzzer.apply_legal_check(state, int(legal[fuzzer.rng.integers(len(legal))]), f"step {steps}")
        steps += 1
    assert len(fuzzer.legal(state)) == 0


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_batched_equals_sequential(name, n):
    """Batched game i == a sequential env seeded seed + i, step by step, through the end of a game
    and the automatic restart of the next one in every slot."""
    mod = game_module(name)
    N, seed = 2, 100
    batch = BatchedGames(name, N, seed=seed, num_players=n)
    obs, masks = batch.reset()
    envs = [mod.raw_env(num_players=n) for _ in range(N)]
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    rngs = [np.random.default_rng(i) for i in range(N)]
    finished = np.zeros(N, dtype=int)
    steps = 0
    while finished.min() < 1 or steps < 20:
        steps += 1
        assert steps < 20_000, "a game did not end"
        actions = np.zeros(N, dtype=np.int64)
        for i, e in enumerate(envs):
            agent = e.agent_selection
            o = e.observe(agent)
            assert batch.current_players[i] == e.agent_name_mapping[agent]
            assert np.array_equal(o["observation"], obs[i])
            assert np.array_equal(o["action_mask"], masks[i])
            actions[i] = random_legal(masks[i], rngs[i])
            e.step(int(actions[i]))
        obs, rewards, dones, masks = batch.step(actions)
        for i, e in enumerate(envs):
            if e.state_array[H_TERMINAL]:
                assert dones[i]
                assert np.array_equal(batch.final_states[i], e.get_state())
                assert [e.rewards[a] for a in e.possible_agents] == pytest.approx(list(rewards[i]))
                finished[i] += 1
                while e.agents:
                    e.step(None)
                e.reset()
            else:
                assert not dones[i]
            assert np.array_equal(batch.states[i], e.get_state())


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_rank_rewards_follow_the_scores_and_score_mode_pays_the_game_scores(name, n):
    """The same games played in rank mode and in score mode: score mode pays each seat its final
    score (the ``scores`` kernel); rank mode sums to zero, lies in [-1, 1], gives +1 to a sole
    winner and never ranks a lower score above a higher one."""
    mod = game_module(name)
    for seed in range(3):
        ranked = mod.raw_env(num_players=n, reward_mode="rank")
        scored = mod.raw_env(num_players=n, reward_mode="score")
        ranked.reset(seed=seed)
        scored.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = [dict.fromkeys(ranked.possible_agents, 0.0), dict.fromkeys(ranked.possible_agents, 0.0)]
        while ranked.agents:
            agent = ranked.agent_selection
            assert scored.agent_selection == agent
            action = None
            if not ranked.terminations[agent]:
                action = random_legal(ranked.observe(agent)["action_mask"], rng)
            for e, tot in zip((ranked, scored), totals, strict=True):
                if action is None:
                    tot[agent] += e._cumulative_rewards[agent]
                e.step(action)
        rank, score = totals
        expected = np.zeros(n)
        mod.GAME.kernels.scores(scored.state_array, expected)
        assert [score[a] for a in ranked.possible_agents] == pytest.approx(list(expected))
        values = [rank[a] for a in ranked.possible_agents]
        assert sum(values) == pytest.approx(0.0)
        assert all(-1.0 <= v <= 1.0 for v in values)
        keys = np.zeros(n)
        mod.GAME.kernels.rank_keys(ranked.state_array, keys)
        if (keys == keys.max()).sum() == 1:
            assert max(values) == 1.0
        for p in range(n):
            for q in range(n):
                if expected[p] > expected[q]:
                    assert values[p] >= values[q], (p, q, values, list(expected))


def test_to_dict_is_json_serialisable(game_name):
    """Every view is plain JSON: it survives a JSON round trip unchanged (string keys, no tuples),
    at every decision of a game (actions in progress included)."""
    env = game_module(game_name).raw_env(num_players=3)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(400):
        for viewer in ("public", "all", 0, 1, 2, "player_1"):
            view = env.to_dict(viewer)
            assert json.loads(json.dumps(view)) == view, (viewer, view.get("phase"))
        if not env.agents:
            break
        play_random(env, rng, max_steps=1)


def test_action_strings_are_unique_and_invert(game_name):
    env = game_module(game_name).raw_env(num_players=low(game_name))
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(10):
        if env.state_array[H_TERMINAL]:
            break
        legal = env.legal_actions()
        names = [env.action_to_string(a) for a in legal]
        assert len(set(names)) == len(names)
        for a in legal[:50]:
            assert env.string_to_action(env.action_to_string(a)) == a
        env.step(int(rng.choice(legal)))


# ---- bad input --------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [-1, 10**9, 2.5, "x", None, True])
def test_raw_env_rejects_bad_actions_without_changing_anything(game_name, bad):
    env = game_module(game_name).raw_env(num_players=low(game_name))
    env.reset(seed=0)
    before = env.get_state()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert np.array_equal(env.get_state(), before)


@pytest.mark.parametrize("kind", ["timedelta", "datetime", "timedelta array", "bool array", "bytes"])
def test_raw_env_rejects_a_legal_action_number_given_as_a_time_or_a_flag(game_name, kind):
    """np.timedelta64(5) == 5 and int() takes it: it still is no action."""
    env = game_module(game_name).raw_env(num_players=low(game_name))
    env.reset(seed=0)
    a = env.legal_actions()[-1]
    bad = {"timedelta": np.timedelta64(a), "datetime": np.datetime64(a, "s"), "timedelta array": np.array(a, "m8[s]"),
           "bool array": np.array(True), "bytes": str(a).encode()}[kind]
    before = env.get_state()
    with pytest.raises(IllegalActionError, match="integer action"):
        env.step(bad)
    assert np.array_equal(env.get_state(), before)


def test_raw_env_names_a_masked_out_action_and_the_player(game_name):
    env = game_module(game_name).raw_env(num_players=low(game_name))
    env.reset(seed=0)
    before = env.get_state()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"{env.agent_selection}.*{re.escape(env.action_to_string(illegal))}"):
        env.step(illegal)
    assert np.array_equal(env.get_state(), before)


def test_wrapped_env_illegal_move_ends_game_and_mover_loses(game_name):
    env = game_module(game_name).env(num_players=low(game_name))
    env.reset(seed=0)
    mover = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[mover] == -1


@pytest.mark.parametrize("which", ["zero", "below", "above", "float", "str", "bool"])
def test_wrong_player_count_is_rejected(game_name, which):
    game = game_module(game_name).GAME
    n = {"zero": 0, "below": game.min_players - 1, "above": game.max_players + 1, "float": float(game.min_players),
         "str": str(game.min_players), "bool": True}[which]
    with pytest.raises((ValueError, TypeError), match="num_players"):
        game_module(game_name).raw_env(num_players=n)


def test_bad_modes_are_rejected(game_name):
    mod = game_module(game_name)
    n = low(game_name)
    with pytest.raises(ValueError, match="reward_mode"):
        mod.raw_env(reward_mode="win")
    with pytest.raises(ValueError, match="render_mode"):
        mod.raw_env(render_mode="video")
    with pytest.raises(ValueError, match="viewer"):
        mod.raw_env(viewer="everybody")
    with pytest.raises(ValueError, match="start_player"):
        mod.raw_env(num_players=n, start_player=n)


def test_set_state_rejects_malformed_arrays(game_name):
    n = low(game_name)
    env = game_module(game_name).raw_env(num_players=n)
    env.reset(seed=0)
    good = env.get_state()
    with pytest.raises(ValueError, match="shape"):
        env.set_state(good[:-1])
    with pytest.raises(TypeError, match="integer"):
        env.set_state(good.astype(np.float64))
    other = game_module(game_name).raw_env(num_players=n + 1)
    other.reset(seed=0)
    with pytest.raises(ValueError):
        env.set_state(other.get_state())
    rng = np.random.default_rng(0)
    for _ in range(200):  # random corruption is caught or harmless, never a crash
        bad = good.copy()
        bad[rng.integers(8, len(bad))] = rng.choice([-(2**40), -7, -1, 99, 2**40])
        try:
            env.set_state(bad)
        except ValueError:
            assert np.array_equal(env.get_state(), good)
            continue
        env.observe(env.agent_selection)
        env.set_state(good)


def test_batched_api_rejects_bad_input_without_changing_anything(game_name):
    b = BatchedGames(game_name, 3, seed=0, num_players=low(game_name))
    b.reset()
    before = b.states.copy()
    legal = [int(np.flatnonzero(m)[0]) for m in b.masks]
    illegal = int(np.flatnonzero(b.masks[1] == 0)[0])
    cases = [
        (np.array(legal[:2]), ValueError, "shape"),
        (np.array([legal[0], illegal, legal[2]]), ValueError, "game 1.*not legal for player_"),
        (np.array([legal[0], -1, legal[2]]), ValueError, "out of range"),
        (np.array([legal[0], 10**9, legal[2]]), ValueError, "out of range"),
        # other integer widths (the one-pass check reads them as int64)
        (np.array([legal[0], -1, legal[2]], dtype=np.int16), ValueError, "game 1.*out of range"),
        (np.array([legal[0], 2**64 - 1, legal[2]], dtype=np.uint64), ValueError,
         "game 1.*18446744073709551615.*out of range"),
        (np.array([legal[0], illegal, legal[2]], dtype=np.uint16), ValueError, "game 1.*not legal for player_"),
        (np.array([0.5, 0.5, 0.5]), TypeError, "integers"),
        (np.array(["a", "b", "c"]), TypeError, "integers"),
    ]
    for actions, err, msg in cases:
        with pytest.raises(err, match=msg):
            b.step(actions)
        assert np.array_equal(b.states, before)
    with pytest.raises(ValueError):
        BatchedGames(game_name, 0)
    with pytest.raises(ValueError, match="num_players"):
        BatchedGames(game_name, 2, num_players=7)


def test_sb3_vec_env_feeds_maskable_ppo(game_name):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from gamecore.envs.sb3 import SelfPlayVecEnv

    venv = SelfPlayVecEnv(game_name, num_envs=4, seed=0, num_players=low(game_name))
    assert is_masking_supported(venv)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (4, venv.action_space.n) and masks.dtype == bool
    assert obs.shape == (4, *venv.observation_space.shape)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    # the learner only ever sees its own turns
    for _ in range(30):
        seats = venv._seats.copy()
        assert np.array_equal(venv.games.current_players, seats)
        actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
        obs, rewards, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones):
            assert "terminal_observation" in infos[i]


# ---- hidden information: views, resampling, the generator ------------------------------------------
def _views(mod, state, n):
    g = mod.GAME
    return {
        "dicts": [json.dumps(g.to_dict(state, p), sort_keys=True) for p in range(n)],
        "public": json.dumps(g.to_dict(state, VIEW_PUBLIC), sort_keys=True),
        "ansi": g.render_ansi(state, VIEW_PUBLIC),
    }


def _obs(mod, state, p):
    env_obs = np.zeros(int(np.prod(mod.GAME.obs_shape(mod.GAME.make_params(num_players=int(state[1]))))), np.int8)
    mod.GAME.kernels.observe(state, p, env_obs)
    return env_obs


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_resample_keeps_what_the_seat_sees_and_play_continues_legally(name, n):
    mod = game_module(name)
    K = mod.GAME.kernels
    env = mod.raw_env(num_players=n)
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
            redealt = state.copy()
            K.resample(redealt, p, 1000 + 7 * round_ + p)
            assert np.array_equal(_obs(mod, redealt, p), _obs(mod, state, p)), f"seat {p}'s observation changed"
            assert mod.GAME.to_dict(redealt, p) == mod.GAME.to_dict(state, p), f"seat {p}'s to_dict changed"
            assert mod.GAME.to_dict(redealt, VIEW_PUBLIC) == mod.GAME.to_dict(state, VIEW_PUBLIC)
            assert redealt[H_RNG] != state[H_RNG], "resample reseeds the generator"
            hidden = redealt.copy()
            hidden[H_RNG] = state[H_RNG]
            changed += not np.array_equal(hidden, state)
            other = mod.raw_env(num_players=n)
            other.set_state(redealt)  # a position the game accepts ...
            play_random(other, np.random.default_rng(p), max_steps=30)  # ... and plays on from
    if mod.GAME.hides_information(n):
        assert changed > 0, "resample never redealt anything hidden"


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_resample_depends_only_on_what_the_seat_sees(name, n):
    """Two states a seat cannot tell apart (one a redeal of the other) resample to the same state
    under the same seed: a search that resamples first is never steered by hidden cards."""
    mod = game_module(name)
    K = mod.GAME.kernels
    env = mod.raw_env(num_players=n)
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
            assert np.array_equal(a, b), f"seat {p}: the redeal depends on the hidden cards it replaces"
    if mod.GAME.hides_information(n):
        assert differed > 0, "the twins never differed in hidden information"


@pytest.mark.parametrize("name,n", GAME_PLAYERS)
def test_the_generator_state_is_in_no_view(name, n):
    mod = game_module(name)
    env = mod.raw_env(num_players=n)
    env.reset(seed=3)
    play_random(env, np.random.default_rng(3), max_steps=25)
    state = env.get_state()
    other = state.copy()
    other[H_RNG] ^= 0x5DEECE66D
    assert _views(mod, state, n) == _views(mod, other, n)
    for p in range(n):
        assert np.array_equal(_obs(mod, state, p), _obs(mod, other, p))


def test_renders_show_the_public_view_unless_asked_otherwise(game_name):
    mod = game_module(game_name)
    st = None
    for viewer, code in (("public", VIEW_PUBLIC), ("all", VIEW_ALL), (1, 1), ("player_0", 0)):
        env = mod.raw_env(render_mode="ansi", viewer=viewer) if viewer != "public" else mod.raw_env(render_mode="ansi")
        env.reset(seed=8)
        st = env.state_array
        assert env.render() == mod.GAME.render_ansi(st, code)
        assert str(env) == mod.GAME.render_ansi(st, code)
        rgb = mod.raw_env(render_mode="rgb_array", viewer=viewer)
        rgb.reset(seed=8)
        assert np.array_equal(rgb.render(), mod.GAME.render_rgb(st, code))
    assert mod.GAME.to_dict(st, VIEW_PUBLIC)["viewer"] == "public"
    assert mod.GAME.to_dict(st, VIEW_ALL)["viewer"] == "all"
