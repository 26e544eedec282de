"""Bad input to every agent's ``act()``, run by tests/test_agent_inputs.py in a subprocess.

    python tests/fuzz_agents.py GAME SEED

For the game at every player count, from a few positions of random games, every agent kind
(random, greedy, MCTS with a tiny budget, and a freshly built MaskablePPO policy when the train
extra is installed) is fed a fixed list of bad inputs: masks of the wrong shape, width, dtype or
values (and all-zero rows), states of the wrong dtype or shape or with a corrupted header slot (a
player count of 99, a decider out of range, a finished or impossible game ...), seats that are
not the decider (huge, negative, bools, floats), and, for ``act_one``, bad scalars. Each must
raise ValueError or TypeError and leave every input as it was; the valid input then still gives
a legal action. A crash (a kernel reading out of bounds) kills this process, which the test
reports. Prints ``agent fuzz ok GAME cases=N``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gamecore.kernel.games import GAMES  # noqa: E402
from gamecore.kernel.protocol import (  # noqa: E402
    H_CURRENT,
    H_DECISIONS,
    H_DONE,
    H_NPLAYERS,
    H_OWNER,
    H_PHASE,
    H_TERMINAL,
)
from gamecore.search.agents import GreedyAgent, MCTSAgent, RandomAgent, make_agent  # noqa: E402

POSITIONS = 3  # positions per player count
BIG = 2**40


def positions(game, n: int, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(state, legal mask) of ``POSITIONS`` running positions of random ``n``-player games."""
    K = game.kernels
    params = game.make_params(n)
    A = game.num_actions(params)
    found = 0
    while found < POSITIONS:
        state = np.zeros(K.STATE_LEN, dtype=np.int64)
        K.init(state, params, int(rng.integers(2**40)))
        mask = np.zeros(A, dtype=np.int8)
        for _ in range(int(rng.integers(0, 30))):
            if K.legal_mask(state, mask) == 0:
                break
            K.apply(state, int(rng.choice(np.flatnonzero(mask))))
        if state[H_TERMINAL] or K.legal_mask(state, mask) == 0:
            continue
        found += 1
        yield state, mask.copy()


def bad_masks(mask: np.ndarray) -> Iterator[tuple[str, Any]]:
    A = mask.shape[0]
    m = mask[None]
    yield "1-D mask", mask.copy()
    yield "3-D mask", m[None].copy()
    yield "narrow mask", m[:, : A - 1].copy()
    yield "wide mask", np.concatenate([m, np.ones((1, 1), np.int8)], axis=1)
    yield "empty mask", np.zeros((1, 0), np.int8)
    yield "float mask", m.astype(np.float64)
    yield "NaN mask", np.where(m > 0, np.nan, 0.0)
    yield "object mask", m.astype(object)
    yield "string mask", m.astype(str)
    yield "mask of 2", m * 2
    yield "mask of -1", -m.astype(np.int64)
    yield "all-zero mask", np.zeros_like(m)
    yield "all-zero bool mask", np.zeros(m.shape, dtype=bool)


def corrupt(state: np.ndarray, slot: int, value: int) -> np.ndarray:
    s = state.copy()
    s[slot] = value
    return s


def bad_states(state: np.ndarray, n: int) -> Iterator[tuple[str, Any]]:
    st = state[None]
    yield "float states", st.astype(np.float64)
    yield "float states + 0.5", st + 0.5
    yield "bool states", st.astype(bool)
    yield "object states", st.astype(object)
    yield "1-D states", state.copy()
    yield "short states", st[:, :-1].copy()
    yield "long states", np.concatenate([st, np.zeros((1, 1), np.int64)], axis=1)
    yield "two states for one mask", np.concatenate([st, st])
    big = st.astype(np.uint64)
    big[0, H_DECISIONS] = np.iinfo(np.uint64).max
    yield "uint64 states beyond int64", big
    for slot, values in (
        (H_NPLAYERS, (99, 0, 1, -1, BIG, 2**62)),
        (H_CURRENT, (n, -1, 99, BIG)),
        (H_OWNER, (n, -1, BIG)),
        (H_TERMINAL, (1, 2, -1)),
        (H_DONE, (-1, 1 << n, (1 << n) - 1)),
        (H_DECISIONS, (-1, 2**62)),
        (H_PHASE, (-1, 99, BIG)),
    ):
        for v in values:
            yield f"slot {slot} = {v}", corrupt(state, slot, v)[None]
    done = corrupt(state, H_TERMINAL, 1)
    done[H_DONE] = (1 << n) - 1
    yield "a finished game", done[None]


def bad_seats(state: np.ndarray, n: int, with_state: bool) -> Iterator[tuple[str, Any]]:
    cur = int(state[H_CURRENT])
    for v in (BIG, -1, -BIG, 99, 2**62):
        yield f"seat {v}", np.array([v], dtype=np.int64)
    yield "uint64 seat 2**64-1", np.array([np.iinfo(np.uint64).max], dtype=np.uint64)
    yield "bool seat", np.array([bool(cur)])
    yield "float seat", np.array([float(cur)])
    yield "NaN seat", np.array([np.nan])
    yield "object seat", np.array([cur], dtype=object)
    yield "two seats", np.array([cur, cur], dtype=np.int64)
    yield "2-D seats", np.array([[cur]], dtype=np.int64)
    if with_state:
        yield "a seat not deciding", np.array([(cur + 1) % n], dtype=np.int64)


def bad_one(state: np.ndarray, mask: np.ndarray) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    """``act_one`` calls with one bad argument."""
    cur = int(state[H_CURRENT])
    for seat in (True, np.bool_(False), 2**70, -1, BIG, float(cur), "0", np.nan):
        yield f"act_one seat {seat!r}", lambda agent, seat=seat: agent.act_one(None, mask.copy(), state.copy(), seat)
    yield "act_one 2-D mask", lambda agent: agent.act_one(None, mask[None].copy(), state.copy())
    yield "act_one 2-D state", lambda agent: agent.act_one(None, mask.copy(), state[None].copy())
    yield "act_one 0-D state", lambda agent: agent.act_one(None, mask.copy(), np.int64(3))


def snapshot(x: Any) -> Any:
    return x.copy() if isinstance(x, np.ndarray) else x


def same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and (
            a.tolist() == b.tolist() if a.dtype == object else np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    return a is b or a == b


class AgentFuzzer:
    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.game = importlib.import_module(GAMES[name]).GAME
        self.rng = np.random.default_rng(seed)
        self.cases = 0
        self.kinds: set[str] = set()

    def refused(self, where: str, call: Callable[..., Any], *args: Any) -> None:
        before = [snapshot(a) for a in args]
        try:
            out = call(*args)
        except (ValueError, TypeError):
            pass
        else:
            raise AssertionError(f"{where}: accepted, returned {out!r}")
        for a, b in zip(args, before, strict=True):
            assert same(a, b), f"{where}: changed its input"
        self.cases += 1

    def agents(self, n: int) -> list[tuple[str, Any, Any]]:
        """(kind, agent, obs) for the agent kinds; ``obs`` a valid observation for PPO, else None."""
        out: list[tuple[str, Any, Any]] = [("random", RandomAgent(self.name, seed=1), None),
                                           ("greedy", GreedyAgent(self.name, seed=2, depth=2, node_cap=200), None),
                                           ("mcts", MCTSAgent(self.name, seed=3, budget=4), None)]
        ppo = self.ppo(n)
        if ppo is not None:
            out.append(ppo)
        return out

    def ppo(self, n: int):
        try:
            import sb3_contrib  # noqa: F401
        except ImportError:
            return None
        import tempfile

        from sb3_contrib import MaskablePPO

        from gamecore.envs.sb3 import SelfPlayVecEnv

        venv = SelfPlayVecEnv(self.name, num_envs=1, seed=0, num_players=n)
        with tempfile.TemporaryDirectory() as tmp:
            MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=8, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [8]}).save(os.path.join(tmp, "m"))
            agent = make_agent(f"ppo:{os.path.join(tmp, 'm.zip')}", self.name, seed=0)
        return ("ppo", agent, venv)

    def obs_for(self, kind: str, extra: Any, state: np.ndarray) -> Any:
        if kind != "ppo":
            return None
        obs = np.zeros(int(np.prod(extra.observation_space.shape)), dtype=np.int8)
        self.game.kernels.observe(state, int(state[H_CURRENT]), obs)
        return obs.reshape(extra.observation_space.shape)[None]

    def run(self) -> int:
        for n in self.game.player_counts:
            agents = self.agents(n)
            self.kinds.update(kind for kind, _, _ in agents)
            for state, mask in positions(self.game, n, self.rng):
                for kind, agent, extra in agents:
                    where = f"{self.name} {n}p {kind}"
                    obs = self.obs_for(kind, extra, state)
                    st, m, seats = state[None].copy(), mask[None].copy(), state[H_CURRENT:H_CURRENT + 1].copy()
                    for what, bad in bad_masks(mask):
                        self.refused(f"{where} {what}", agent.act, obs, bad, st, seats)
                        if not agent.needs_state:
                            self.refused(f"{where} {what} (no state)", agent.act, obs, bad)
                    for what, bad in bad_states(state, n):
                        self.refused(f"{where} {what}", agent.act, obs, m, bad, None)
                        self.refused(f"{where} {what} with seats", agent.act, obs, m, bad, seats)
                    for what, bad in bad_seats(state, n, with_state=True):
                        self.refused(f"{where} {what}", agent.act, obs, m, st, bad)
                    if not agent.needs_state:
                        for what, bad in bad_seats(state, n, with_state=False):
                            self.refused(f"{where} {what} (no state)", agent.act, obs, m, None, bad)
                    else:
                        self.refused(f"{where} no states", agent.act, obs, m)
                    if kind == "ppo":
                        self.refused(f"{where} float obs", agent.act, obs.astype(np.float64), m, st, seats)
                        self.refused(f"{where} flat obs", agent.act, obs.reshape(1, -1)[:, :-1].copy(), m, st, seats)
                    else:
                        for what, call in bad_one(state, mask):
                            self.refused(f"{where} {what}", call, agent)
                    # the valid input still plays a legal action, and is left as it was
                    for args in ((obs, m, st, seats), (obs, m.astype(bool), st)):
                        before = (st.copy(), m.copy())
                        action = agent.act(*args)
                        assert action.shape == (1,) and action.dtype == np.int64, where
                        assert mask[int(action[0])], f"{where}: illegal action {int(action[0])}"
                        assert np.array_equal(st, before[0]) and np.array_equal(m, before[1]), where
                    if kind != "ppo":
                        assert mask[agent.act_one(None, mask, state if agent.needs_state else None)], where
        return self.cases


if __name__ == "__main__":
    name, seed = sys.argv[1], int(sys.argv[2])
    fuzzer = AgentFuzzer(name, seed)
    cases = fuzzer.run()
    print(f"agent fuzz ok {name} cases={cases} agents={','.join(sorted(fuzzer.kinds))} "
          f"boundscheck={os.environ.get('NUMBA_BOUNDSCHECK', '0')}")
