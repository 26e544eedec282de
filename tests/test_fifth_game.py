"""gamecore is a platform: a fifth game, Connect Four, written from docs/adding_a_game.md as a package
of its own (examples/connect_four, not installed), runs on every path with no edit to gamecore.

The game is made known the two ways an uninstalled game is: in this process by
``gamecore.kernel.games.add_game`` (with ``examples/connect_four`` on ``sys.path``; undone after
the module, so the rest of the suite still sees four games), and in subprocesses by
``TABLETOP_RL_ENVS_GAMES=connect_four_env`` with ``examples/connect_four`` on ``PYTHONPATH``.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gamecore.kernel import games
from gamecore.kernel.protocol import H_CURRENT, H_TERMINAL

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "connect_four"
PACKAGE = "connect_four_env"
NAME = "connect_four"

# one worker runs them all, in order (the fixture adds the game to that worker's registry)
pytestmark = pytest.mark.xdist_group("fifth_game")


def subprocess_env(**extra: str) -> dict[str, str]:
    """This process's environment with the fifth game added: the package on PYTHONPATH, named in
    TABLETOP_RL_ENVS_GAMES."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLE), str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env[games.GAMES_VARIABLE] = ",".join(filter(None, [env.get(games.GAMES_VARIABLE), PACKAGE]))
    env.setdefault("TABLETOP_RL_COMPILE_NOTICE", "0")
    env.update(extra)
    return env


def run(args: list[str], timeout: int = 900, **extra: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=subprocess_env(**extra), capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"{args} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def cf():
    """The package, added to this process's registry (and PettingZoo's / Gymnasium's) for the module."""
    from gamecore.envs import registration

    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(EXAMPLE))
        mp.setattr(games, "_ADDED", list(games._ADDED))  # add_game's list, restored afterwards
        assert games.add_game(PACKAGE) == NAME
        registration.register_all()
        yield importlib.import_module(PACKAGE)


def at(cf, board: str):
    """A raw env in the position drawn by ``board`` (top row first)."""
    env = cf.raw_env()
    env.reset(seed=0)
    env.set_state(cf.state_from_ascii(board))
    return env


def drop(env, text: str) -> None:
    env.step(env.unwrapped.game.string_to_action(text, env.state_array))


# ---- gamecore names no game ---------------------------------------------------------------------
def test_no_file_of_gamecore_names_the_fifth_game():
    pattern = re.compile(r"connect[_ ]four", re.IGNORECASE)
    bad = []
    for path in sorted((ROOT / "gamecore").rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        for k, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if pattern.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
    assert not bad, "gamecore names the fifth game:\n" + "\n".join(bad)


def test_the_game_is_found_by_add_game_and_by_the_variable(cf):
    assert games.GAMES[NAME] == PACKAGE and NAME in games.games()
    assert cf.GAME.name == NAME and cf.GAME.env_id == "connect_four-v1" and cf.GAME.display_name == "Connect Four"
    out = run(["-c", "from gamecore.kernel.games import GAMES; print(sorted(GAMES))"]).stdout
    assert NAME in out


def test_the_installed_distribution_is_found_by_its_entry_point(tmp_path):
    """examples/connect_four/pyproject.toml builds a wheel whose entry point (group
    tabletop_rl_envs.games) makes the game known with no variable: the wheel, unpacked onto
    PYTHONPATH, is what an install puts in site-packages. Built from a copy: the build leaves
    build/ and an egg-info behind."""
    import shutil
    from importlib.metadata import version

    # built without isolation, by this venv's setuptools: the example's build-system asks for 77+
    # (SPDX license strings), which a venv of the lowest supported versions may not have
    if int(version("setuptools").split(".")[0]) < 77:
        pytest.skip(f"needs setuptools>=77 in this venv to build the example's wheel, has {version('setuptools')}")
    source = tmp_path / "src"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__"))
    run(["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(source), "-w", str(tmp_path)])
    (wheel,) = tmp_path.glob("connect_four_env-*.whl")
    site = tmp_path / "site"
    shutil.unpack_archive(wheel, site, format="zip")
    code = "from gamecore.kernel.games import installed; print(installed())"
    env = {k: v for k, v in subprocess_env().items() if k != games.GAMES_VARIABLE}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"'{NAME}': '{PACKAGE}'" in proc.stdout


# ---- rules, in ASCII ----------------------------------------------------------------------------
VERTICAL = """
.......
.......
.......
X......
XO.....
XO.O...
"""

DIAGONAL = """
.......
.......
.......
..XO...
.XOO...
XOOXX..
"""

#: a full board without four in a row (21 pieces each)
FULL_DRAW = """
OXOXOXO
XOXOXOX
OXOXOXO
OXOXOXO
XOXOXOX
XOXOXOX
"""


def test_a_vertical_four_wins(cf):
    env = at(cf, VERTICAL)
    assert env.agent_selection == "player_0" and env.legal_action_strings() == list("abcdefg")
    drop(env, "a")
    assert env.state_array[H_TERMINAL] and env.to_dict()["winner"] == 0
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_a_diagonal_four_wins(cf):
    env = at(cf, DIAGONAL)
    drop(env, "c")  # lands on c4: no four yet
    drop(env, "e")
    assert not env.game_over
    env = at(cf, DIAGONAL)
    drop(env, "d")  # a1 b2 c3 d4
    assert env.to_dict()["winner"] == 0 and env.rewards["player_0"] == 1.0


def test_the_full_board_draws_and_the_legal_strings_of_a_nearly_full_board(cf):
    rows = FULL_DRAW.split()
    full = cf.state_from_ascii(FULL_DRAW)
    assert full[H_TERMINAL] and cf.GAME.to_dict(full)["draw"] and cf.GAME.legal_strings(full) == []
    one_left = "\n".join([". " + rows[0][1:], *rows[1:]])  # a6 empty: player_1 (O) to fill it
    state = cf.state_from_ascii(one_left)
    assert cf.GAME.legal_strings(state) == ["a"] and state[H_CURRENT] == 1
    two_left = "\n".join([".." + rows[0][2:], *rows[1:]])  # a6 and b6 empty: player_0 to move
    assert cf.GAME.legal_strings(cf.state_from_ascii(two_left)) == ["a", "b"]
    env = at(cf, one_left)
    drop(env, "a")
    assert env.to_dict()["draw"] and env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert np.array_equal(env.state_array[8:], full[8:])


def test_unreachable_boards_are_refused(cf):
    with pytest.raises(ValueError):
        cf.state_from_ascii(VERTICAL.replace("X......\n", "......X\n"))  # a floating piece
    with pytest.raises(ValueError):
        cf.state_from_ascii(".......\n" * 4 + "OOOO...\nXXXX...")  # both seats have four
    with pytest.raises(ValueError):
        cf.GAME.string_to_action("h")


# ---- every path ---------------------------------------------------------------------------------
def test_pettingzoo_aec_env_passes_api_test(cf):
    import pettingzoo
    from pettingzoo.test import api_test, seed_test

    api_test(cf.env(), num_cycles=300)
    seed_test(cf.env, num_cycles=100)
    env = pettingzoo.make("aec", "connect_four-v1", render_mode="rgb_array")
    env.reset(seed=1)
    assert env.unwrapped.render().ndim == 3 and isinstance(env.unwrapped, cf.raw_env)
    assert env.unwrapped.state().shape == env.unwrapped.state_space.shape


def test_batched_games_play_the_aec_env_games(cf):
    from gamecore.envs.batched import BatchedGames

    batch = BatchedGames(NAME, 4, seed=10)
    obs, masks = batch.reset()
    envs = [cf.raw_env() for _ in range(4)]
    for i, env in enumerate(envs):
        env.reset(seed=10 + i)
    finished = 0
    for _ in range(120):
        for i, env in enumerate(envs):
            mine = env.observe(env.agent_selection)
            assert np.array_equal(mine["observation"], batch.observations[i])
            assert np.array_equal(mine["action_mask"], batch.masks[i])
        actions = batch.random_actions()
        _, rewards, dones, _ = batch.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            if dones[i]:
                finished += 1
                assert env.game_over and list(rewards[i]) == [env.rewards[a] for a in env.possible_agents]
                env.reset()
    assert finished >= 4
    assert batch.random_rollout(2) > 0 and batch.global_states().shape[0] == 4


def test_selfplay_vecenv_trains_maskable_ppo(cf):
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from sb3_contrib import MaskablePPO

    from gamecore.envs.sb3 import SelfPlayVecEnv

    venv = SelfPlayVecEnv(NAME, num_envs=4, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]}).learn(64)
    assert model.num_timesteps >= 64
    venv.close()


def test_single_agent_gymnasium_env(cf):
    import gymnasium as gym

    from gamecore.envs.registration import gymnasium_id

    gym_id = gymnasium_id(cf.GAME.env_id)
    assert gym_id == "tabletop-rl-envs/Connect_four-v1"
    env = gym.make(gym_id, opponent="random")
    obs, info = env.reset(seed=3)
    assert obs.shape == env.observation_space.shape == (86,)
    rng = np.random.default_rng(0)
    for _ in range(3):
        done = False
        while not done:
            legal = np.flatnonzero(env.unwrapped.action_masks())
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            done = terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)
        env.reset()


def test_greedy_and_mcts_agents(cf):
    from gamecore.search.agents import aec_action, make_agent

    for spec in ("greedy", "mcts:64"):
        env = at(cf, VERTICAL)
        assert cf.GAME.action_to_string(env.state_array, aec_action(make_agent(spec, NAME, seed=0), env)) == "a"
    env = cf.raw_env()
    env.reset(seed=5)
    agents = [make_agent("greedy", NAME, seed=1), make_agent("mcts:32", NAME, seed=2)]
    while not env.game_over:
        env.step(aec_action(agents[env.agent_name_mapping[env.agent_selection]], env))
    assert sorted(env.rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_arena_cli():
    out = run(["-m", "gamecore", "arena", NAME, "--agents", "random", "greedy", "--games", "4", "--threads", "1",
               "--no-progress"]).stdout
    assert "greedy" in out and "random" in out


def test_record_then_replay_to_png(tmp_path):
    record = tmp_path / "game.json"
    strip = tmp_path / "game.png"
    run(["-m", "gamecore", "record", NAME, "--agents", "greedy", "random", "--seed", "3", "--out", str(record)])
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["game"] == NAME and data["actions"] and set(data["actions"]) <= set("abcdefg") and data["result"]
    run(["-m", "gamecore", "replay", str(record), "--out", str(strip)])
    from PIL import Image

    with Image.open(strip) as img:
        assert img.size[0] > 0 and img.size[1] > 0


OPENSPIEL = textwrap.dedent("""
    import numpy as np
    import pyspiel
    import gamecore.envs.openspiel as gos
    from open_spiel.python.algorithms import evaluate_bots, mcts
    from open_spiel.python.bots import uniform_random
    import connect_four_env as cf

    assert gos.SHORT_NAMES["connect_four"] == "tabletop_connect_four"
    game = pyspiel.load_game("tabletop_connect_four", {"seed": 11})
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert game.num_distinct_actions() == 7 and game.max_game_length() == 42
    env = cf.raw_env()
    env.reset(seed=11)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not env.game_over:
        assert state.legal_actions() == env.legal_actions()
        a = int(rng.choice(state.legal_actions()))
        assert state.action_to_string(state.current_player(), a) == env.action_to_string(a)
        state.apply_action(a)
        env.step(a)
    assert state.is_terminal() and state.returns() == [env.rewards[p] for p in env.possible_agents]
    copy = game.deserialize_state(state.serialize())
    assert np.array_equal(copy.state_array, state.state_array)
    r = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, r), random_state=r)
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, uniform_random.UniformRandomBot(1, r)], r)
    assert abs(sum(returns)) < 1e-9
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    print("openspiel ok")
""")


def test_openspiel():
    pytest.importorskip("pyspiel", reason="needs open_spiel (the dev extra)")
    assert "openspiel ok" in run(["-c", OPENSPIEL]).stdout


def test_warmup_cli():
    out = run(["-m", "gamecore", "warmup", NAME]).stdout
    assert re.search(r"connect_four: (cached|compiled in)", out), out


# ---- the conformance kit ------------------------------------------------------------------------
def test_conformance_kit(cf):
    """gamecore.testing.check_game: every check the four games pass, on the fifth game."""
    from gamecore import testing

    ran = testing.check_game(cf.GAME)
    # every check ran but those of a toolkit this venv lacks (they skip: sb3-contrib, open_spiel)
    optional = {"sb3_maskable_ppo", "openspiel", "openspiel_random_sim"}
    assert {name.partition("[")[0] for name in ran} >= set(testing.CHECKS) - optional
