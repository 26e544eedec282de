"""A learned leaf value for the greedy turn lookahead: the ``vgreedy`` agent and its training data.

The greedy agent (:mod:`gamecore.search.mcts`) values each position its one-turn lookahead reaches by the
score margin as it stands. That misses what the next few decisions will bring: a payment
half-made, a district one tile short, the opponent's reply. :class:`ValueNet` is a small MLP
(one ReLU layer) on a seat's int8 observation that estimates the change of that seat's margin over
the next ``horizon`` decisions of play, learned from self-play (:func:`collect`,
:func:`targets`, :func:`fit`; ``examples/value_greedy.py`` runs the loop). The ``vgreedy`` agent
is the greedy search with ``weight`` times that estimate added to the margin of every leaf where
the game goes on; with ``weight=0`` it is exactly ``greedy``, so whatever it gains over greedy,
the learned value gains.

A model file is an ``.npz``: ``w1t`` (D, H), ``b1`` (H,), ``w2`` (H,), ``b2`` (1,) in margin points
for raw int8 inputs (the training's input scaling folded in), and ``meta``, a JSON string (game,
players, horizon, weight, how it was trained). ``H`` 0 is a linear model (``w2`` then has D
entries).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gamecore.kernel.games import get_game
from gamecore.kernel.header import H_NPLAYERS
from gamecore.kernel.jit import jit
from gamecore.kernel.protocol import GameSpec
from gamecore.search.mcts import margin

__all__ = ["ValueNet", "collect", "targets", "fit", "TARGET_SCALE", "MAX_MAGNITUDE", "MAX_VALUE_ELEMENTS",
           "MAX_VALUE_BYTES", "MAX_META_CHARS"]

#: the largest magnitude :meth:`ValueNet.load` accepts in a model's arrays (the shipped ones stay
#: below 5; a search adding up such values stays far from overflow)
MAX_MAGNITUDE = 1e6

#: the most numbers :meth:`ValueNet.load` reads from a model file: 2**24 (16.8 million; 128 MiB as
#: the float64 the search uses). The shipped models hold 56 thousand; a 4096-wide hidden layer on
#: the largest observation of the shipped games (3,300 inputs), 13.5 million.
MAX_VALUE_ELEMENTS = 2**24
#: the most uncompressed bytes :meth:`ValueNet.load` reads from a model file (float64 arrays of
#: :data:`MAX_VALUE_ELEMENTS` numbers and the meta)
MAX_VALUE_BYTES = 8 * MAX_VALUE_ELEMENTS + 2**20
#: the longest ``meta`` JSON text :meth:`ValueNet.load` reads (the shipped ones: about 100 characters)
MAX_META_CHARS = 2**16

#: targets are divided by this in training (margin points per network unit) and the output
#: layer multiplied back, so the saved model speaks margin points
TARGET_SCALE = 10.0


@dataclass
class ValueNet:
    """A saved leaf value (see the module docstring). ``weight``: the default weight of its
    estimate in the search (the one it was evaluated with)."""

    w1t: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    meta: dict = field(default_factory=dict)  # str keys; a plain annotation for the API reference

    @property
    def game(self) -> str:
        return str(self.meta["game"])

    @property
    def players(self) -> int:
        return int(self.meta["players"])

    @property
    def weight(self) -> float:
        return float(self.meta.get("weight", 1.0))

    @property
    def inputs(self) -> int:
        return int(self.w1t.shape[0]) if self.b1.shape[0] else int(self.w2.shape[0])

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:  # a file object: np.savez would append .npz to another suffix
            np.savez(f, w1t=self.w1t.astype(np.float32), b1=self.b1.astype(np.float32),
                     w2=self.w2.astype(np.float32), b2=self.b2.astype(np.float32),
                     meta=np.array(json.dumps(self.meta, sort_keys=True)))
        return path

    @classmethod
    def load(cls, path: str | Path) -> ValueNet:
        """The model saved at ``path``, every value checked: FileNotFoundError for a missing file,
        one ValueError naming the file and what is wrong with it for an empty, truncated or foreign
        file, pickled objects (never read), more than :data:`MAX_VALUE_ELEMENTS` numbers or
        :data:`MAX_VALUE_BYTES` bytes (checked on the file's directory and the arrays' headers, before
        any array is read), missing keys, arrays that are not finite numbers of consistent shapes
        (checked before any is converted), magnitudes beyond :data:`MAX_MAGNITUDE`, or a ``meta``
        longer than :data:`MAX_META_CHARS`, nested too deep, or whose game, players or weight is
        malformed (the weight as the ``weight=`` option is checked)."""
        from gamecore.kernel.games import GAMES
        from gamecore.search.mcts import check_real
        from gamecore.search.model_io import read_npz

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"vgreedy: no value model at {path}")
        d = read_npz(path, "vgreedy", max_bytes=MAX_VALUE_BYTES, max_elements=MAX_VALUE_ELEMENTS)
        missing = {"w1t", "b1", "w2", "b2", "meta"} - set(d)
        if missing:
            raise ValueError(f"vgreedy: {path} is not a value model (missing {', '.join(sorted(missing))})")
        raw = {k: d[k] for k in ("w1t", "b1", "w2", "b2")}
        for k, a in raw.items():
            if a.dtype.kind not in "fiu":
                raise ValueError(f"vgreedy: {path} holds malformed weights: {k} is of dtype {a.dtype}, not numbers")
        w1t, b1, w2, b2 = raw.values()
        h = b1.shape[0] if b1.ndim == 1 else -1
        shapes_ok = (b1.ndim == 1 and w1t.ndim == 2 and w2.ndim == 1 and b2.shape == (1,)
                     and (w1t.shape[1] == h and w2.shape == (h,) and w1t.shape[0] >= 1 if h
                          else w1t.size == 0 and w2.shape[0] >= 1))
        if not shapes_ok:  # before any array is converted (or scanned)
            raise ValueError(f"vgreedy: {path} holds malformed weights: shapes w1t {w1t.shape}, b1 {b1.shape}, "
                             f"w2 {w2.shape}, b2 {b2.shape} do not fit one network")
        arrays = {}
        for k, a in raw.items():  # scanned in place (no temporary of the array's size but isfinite's booleans)
            if a.dtype.kind == "f" and not bool(np.isfinite(a).all()):
                raise ValueError(f"vgreedy: {path} holds malformed weights: {k} is not finite (NaN or infinity)")
            top = max(abs(float(a.min())), abs(float(a.max()))) if a.size else 0.0
            if top > MAX_MAGNITUDE:
                raise ValueError(f"vgreedy: {path} holds malformed weights: {k} reaches {top:.3g}, beyond "
                                 f"{MAX_MAGNITUDE:g}")
            arrays[k] = np.ascontiguousarray(a, dtype=np.float64)
        w1t, b1, w2, b2 = (arrays[k] for k in ("w1t", "b1", "w2", "b2"))
        if d["meta"].dtype.kind != "U" or d["meta"].shape != ():
            raise ValueError(f"vgreedy: {path} is not a value model (its meta is not a JSON string)")
        if d["meta"].dtype.itemsize > 4 * MAX_META_CHARS:
            raise ValueError(f"vgreedy: {path} is not a value model (its meta is longer than {MAX_META_CHARS:,} "
                             "characters)")
        try:
            meta = json.loads(str(d["meta"]))
        except ValueError:
            raise ValueError(f"vgreedy: {path} is not a value model (its meta is not JSON)") from None
        except RecursionError:
            raise ValueError(f"vgreedy: {path} is not a value model (its meta nests too deep to read)") from None
        if not isinstance(meta, dict):
            raise ValueError(f"vgreedy: {path} is not a value model (its meta is not a JSON object)")
        for key in ("game", "players"):
            if key not in meta:
                raise ValueError(f"vgreedy: {path} does not say its {key}")
        if not isinstance(meta["game"], str) or meta["game"] not in GAMES:
            named = meta["game"] if type(meta["game"]) in (str, int, float) else type(meta["game"]).__name__
            raise ValueError(f"vgreedy: {path} names no game of this library ({str(named)[:40]!r})")
        players = meta["players"]
        spec = get_game(meta["game"])
        if isinstance(players, bool) or not isinstance(players, int) or players not in spec.player_counts:
            named = players if type(players) in (int, float, str) else f"a {type(players).__name__} of"
            raise ValueError(f"vgreedy: {path} was trained for {str(named)[:20]} players, not a player count of "
                             f"{spec.name}")
        if "weight" in meta:
            try:
                check_real("weight", meta["weight"])
            except (TypeError, ValueError) as exc:
                raise ValueError(f"vgreedy: {path} holds a malformed weight: {exc}") from None
        return cls(w1t, b1, w2, b2, meta=meta)

    def kernel_arg(self, game: GameSpec, weight: float | None = None) -> tuple:
        """The ``net`` argument of the greedy kernel (:func:`gamecore.search.mcts.build_greedy`)."""
        shape = game.obs_shape(game.make_params(self.players))
        if int(np.prod(shape)) != self.inputs:
            raise ValueError(f"vgreedy: the model reads {self.inputs} inputs, the {game.name} observation of "
                             f"{self.players} players has {int(np.prod(shape))}")
        w = self.weight if weight is None else float(weight)
        w1t = self.w1t if self.b1.shape[0] else np.zeros((0, 0))
        return (w1t, self.b1, self.w2, self.b2, np.zeros(self.inputs, dtype=np.int8), w)


_VIEWS: dict[str, Any] = {}


def _seat_views(game: GameSpec):
    """A kernel writing every seat's flat observation (the kernels write observations flat; the
    shape is a view) and margin of each state (built once per game)."""
    K = game.kernels
    if K.__name__ not in _VIEWS:
        @jit
        def seat_views(states, obs, margins):
            n = states[0, H_NPLAYERS]
            sc = np.zeros(n)
            for i in range(states.shape[0]):
                K.scores(states[i], sc)
                for q in range(n):
                    K.observe(states[i], q, obs[i, q])
                    margins[i, q] = margin(sc, n, q)

        _VIEWS[K.__name__] = seat_views
    return _VIEWS[K.__name__]


def collect(game: str | GameSpec, agent: Any, games: int, seed: int, num_players: int | None = None,
            parallel: int = 32, progress: Any = None) -> dict[str, np.ndarray]:
    """Self-play of ``agent`` (an :class:`gamecore.search.agents.Agent` deciding for every seat) on the
    batched path until ``games`` games have finished. Every decision of every game, in order, one
    row per decision: ``obs`` (rows, n, D) int8 every seat's observation, ``margin`` (rows, n) every
    seat's margin as the scores stand, ``final`` (rows, n) its margin at the end of that game,
    ``game`` (rows,) the game's index. Games still running when the count is reached are dropped."""
    from gamecore.envs.batched import BatchedGames

    spec = get_game(game)
    batch = BatchedGames(spec, parallel, seed=seed, num_players=num_players)
    batch.reset()
    n, d = batch.num_players, int(np.prod(batch.obs_shape))
    views = _seat_views(spec)
    obs = np.zeros((parallel, n, d), dtype=np.int8)
    margins = np.zeros((parallel, n))
    running: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(parallel)]
    out_obs, out_margin, out_final, out_game = [], [], [], []
    sc = np.zeros(n)
    done = 0
    while done < games:
        views(batch.states, obs, margins)
        for i in range(parallel):
            running[i].append((obs[i].copy(), margins[i].copy()))
        seats = batch.current_players.copy()
        actions = agent.act(batch.observations, batch.masks.astype(bool),
                            batch.states.copy() if agent.needs_state else None, seats)
        batch.step(actions)
        for i in np.flatnonzero(batch.dones):
            if done < games:
                spec.kernels.scores(batch.final_states[i], sc)
                final = np.array([margin(sc, n, q) for q in range(n)])
                for o, m in running[i]:
                    out_obs.append(o)
                    out_margin.append(m)
                    out_final.append(final)
                    out_game.append(done)
                done += 1
                if progress is not None:
                    progress(done, games)
            running[i] = []
    return {"obs": np.array(out_obs, dtype=np.int8).reshape(-1, n, d), "margin": np.array(out_margin),
            "final": np.array(out_final), "game": np.array(out_game, dtype=np.int64)}


def targets(data: dict[str, np.ndarray], horizon: int) -> np.ndarray:
    """(rows, n): each seat's margin ``horizon`` decisions later (its final margin where the game
    ends sooner) minus its margin now. ``horizon`` 0: the final margin minus the margin now."""
    margin_now, final, game = data["margin"], data["final"], data["game"]
    out = final - margin_now
    if horizon > 0:
        later = np.arange(len(game)) + horizon
        ok = later < len(game)
        ok[ok] = game[later[ok]] == game[ok]
        out[ok] = margin_now[later[ok]] - margin_now[ok]
    return out


def fit(game: str | GameSpec, datasets: list[dict[str, np.ndarray]], horizon: int, hidden: int = 64,
        epochs: int = 1, seed: int = 0, batch_size: int = 256, lr: float = 1e-3, holdout: float = 0.1,
        log: Any = print) -> tuple[ValueNet, dict[str, float]]:
    """Train the value on every seat's view of every decision of ``datasets`` (from
    :func:`collect`; the last ``holdout`` share of each set's games held out) to predict
    :func:`targets` with ``horizon``; mean squared error, Adam. Returns the model (``meta``: game,
    players, horizon, hidden) and ``{"holdout_mse", "holdout_r2", "rows"}`` (mse in margin points
    squared; r2 against predicting the training mean). Needs torch."""
    if not datasets or any(len(d["game"]) == 0 for d in datasets):
        raise ValueError("fit needs at least one dataset, each with at least one decision (collect's games >= 1)")
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"fit: {name} must be an int >= 1, got {value!r}")
    if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 0:
        raise ValueError(f"fit: hidden must be an int >= 0, got {hidden!r}")
    import torch

    spec = get_game(game)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = datasets[0]["obs"].shape[1]
    params = spec.make_params(n)
    high = spec.obs_high_vector(params).astype(np.float32).reshape(-1)
    high[high == 0] = 1.0
    xs, ys, held = [], [], []
    for data in datasets:
        y = targets(data, horizon)
        cut = data["game"].min() + int((1.0 - holdout) * (data["game"].max() + 1 - data["game"].min()))
        h = data["game"] >= cut
        for q in range(n):
            xs.append(data["obs"][:, q])
            ys.append(y[:, q])
            held.append(h)
    x = np.concatenate(xs)
    y = (np.concatenate(ys) / TARGET_SCALE).astype(np.float32)
    held_rows = np.flatnonzero(np.concatenate(held))
    train_rows = np.flatnonzero(~np.concatenate(held))
    d = x.shape[1]
    scale = torch.from_numpy(1.0 / high)
    layers = [torch.nn.Linear(d, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)] if hidden else [
        torch.nn.Linear(d, 1)]
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def inputs(rows: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(x[rows].astype(np.float32)) * scale

    def holdout_mse() -> float:
        if not len(held_rows):
            return float("nan")
        total = 0.0
        with torch.no_grad():
            for k in range(0, len(held_rows), 8192):
                r = held_rows[k:k + 8192]
                total += float(((model(inputs(r)).squeeze(1) - torch.from_numpy(y[r])) ** 2).sum())
        return total / len(held_rows)

    t0 = time.perf_counter()
    for epoch in range(epochs):
        order = rng.permutation(train_rows)
        for k in range(0, len(order), batch_size):
            r = order[k:k + batch_size]
            loss = ((model(inputs(r)).squeeze(1) - torch.from_numpy(y[r])) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        mse = holdout_mse()
        base = float(((y[held_rows] - y[train_rows].mean()) ** 2).mean()) if len(held_rows) else float("nan")
        log(f"epoch {epoch + 1}/{epochs}: held-out mse {mse * TARGET_SCALE**2:.2f} (the mean's "
            f"{base * TARGET_SCALE**2:.2f}), {time.perf_counter() - t0:.0f} s")
    weights = [p.detach().numpy().astype(np.float64) for p in model.parameters()]
    inv = (1.0 / high).astype(np.float64)
    if hidden:
        w1, b1, w2, b2 = weights
        net = ValueNet(np.ascontiguousarray((w1 * inv[None, :]).T), b1, w2.reshape(-1) * TARGET_SCALE,
                       b2.reshape(1) * TARGET_SCALE)
    else:
        w, b = weights
        net = ValueNet(np.zeros((0, 0)), np.zeros(0), w.reshape(-1) * inv * TARGET_SCALE, b.reshape(1) * TARGET_SCALE)
    net.meta = {"game": spec.name, "players": int(n), "horizon": int(horizon), "hidden": int(hidden)}
    stats = {"holdout_mse": mse * TARGET_SCALE**2, "holdout_r2": 1.0 - mse / base if base else float("nan"),
             "rows": float(len(train_rows))}
    return net, stats
