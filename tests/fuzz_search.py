"""The search agents bounds-checked: every player count of one game, a few random positions each,
searched by greedy, greedy with a (random) learned leaf value, MCTS and the batched PUCT search
(network values, rollout values, half of each) on the batched path; every chosen action must be
legal. The batch is stepped on the batched kernels' serial copy and, beside it, on their parallel
copy (two threads): the same states, observations, global states and random rollouts. Run in a subprocess with
NUMBA_BOUNDSCHECK=1 (``tests/test_fuzz.py``), so an index out of bounds is an IndexError, not a
wrong value::

    NUMBA_BOUNDSCHECK=1 python tests/fuzz_search.py GAME SEED
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numba  # noqa: E402
import numpy as np  # noqa: E402

from gamecore.envs.batched import BatchedGames  # noqa: E402
from gamecore.kernel import bits  # noqa: E402
from gamecore.kernel.games import get_game  # noqa: E402
from gamecore.search.agents import GreedyAgent, MCTSAgent, ValueGreedyAgent  # noqa: E402
from gamecore.search.puct import puct_search, uniform_evaluator  # noqa: E402
from gamecore.search.value_net import ValueNet  # noqa: E402

#: (mix, horizon) of the PUCT searches: the network's values, rollouts to the game's horizon, half of
#: each with a short horizon, rollouts to the end
PUCT_CASES = ((0.0, None), (1.0, None), (0.5, 3), (1.0, 0))


def run(name: str, seed: int, rows: int = 4, steps: int = 30, every: int = 6) -> int:
    game = get_game(name)
    searches = 0
    tmp = tempfile.TemporaryDirectory()  # the random value models
    for n in game.player_counts:
        games = BatchedGames(name, rows, seed=seed + n, num_players=n)
        # the same games on the batched kernels' parallel copy (gamecore.kernel.batch_kernels.Threaded)
        threads = min(2, numba.config.NUMBA_NUM_THREADS)
        twin = BatchedGames(name, rows, seed=seed + n, num_players=n, num_threads=threads)
        obs, masks = games.reset()
        twin.reset()
        rng = np.random.default_rng(seed + n)
        d = int(np.prod(game.obs_shape(game.make_params(n))))
        w = np.random.default_rng(seed).normal(0.0, 0.5, (d, 8))
        net = ValueNet(w, np.zeros(8), np.ones(8), np.zeros(1), {"game": game.name, "players": n})
        path = net.save(Path(tmp.name) / f"v{n}.npz")
        agents = (GreedyAgent(name, seed=seed, depth=2, node_cap=200), MCTSAgent(name, seed=seed, budget=8),
                  ValueGreedyAgent(name, path, seed=seed, depth=2, node_cap=200))
        for k in range(steps):
            if k % every == 0:
                for mix, horizon in PUCT_CASES:
                    res = puct_search(name, games.states, uniform_evaluator, 16, np.arange(rows) + seed + k, mix=mix,
                                      horizon=horizon)
                    assert masks[np.arange(rows), res.actions].all(), f"{name} {n}p puct mix={mix}: illegal"
                    assert (res.visits.sum(axis=1) == 16).all(), f"{name} {n}p puct mix={mix}: visits"
                    searches += rows
                for agent in agents:
                    acts = agent.act(obs, masks, games.states, games.current_players)
                    assert masks[np.arange(rows), acts].all(), f"{name} {n}p {agent.spec}: illegal"
                    searches += rows
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, _, _, masks = games.step(acts)
            twin.step(acts)
        assert np.array_equal(games.states, twin.states) and np.array_equal(games.raw_observations,
                                                                             twin.raw_observations)
        assert np.array_equal(games.global_states("all"), twin.global_states("all"))
        assert games.random_rollout(1, seed=seed) == twin.random_rollout(1, seed=seed) > 0
    tmp.cleanup()
    return searches


if __name__ == "__main__":
    name, seed = sys.argv[1], int(sys.argv[2])
    searches = run(name, seed)
    print(f"search fuzz ok {name} searches={searches} boundscheck={os.environ.get('NUMBA_BOUNDSCHECK', '0')} "
          f"checked_stores={int(bits.CHECKED)}")
