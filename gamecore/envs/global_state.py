"""The global state of a game for centralised critics: PettingZoo's ``state()`` / ``state_space``.

``env.state()`` (every game's AEC env) and ``BatchedGames.global_states()`` return one flat int8
vector per game that is

* **the same whoever decides**: it is a function of the position alone, with seats in absolute
  order (seat 0 first), never relative to the decider;
* **public**: everything the seats' observations show that every seat may know — the board, every
  seat's public holdings, whose turn it is and which decision is pending — and nothing any seat
  hides: no hand, no secret card kept face down, no order of a face-down deck or stack, never the
  generator.

Design
------
The vector is **seat 0's observation with the blocks that show only the observer's own secrets
removed, then a header read from the state's shared header**:

``OBSERVATION BLOCKS`` (every observation block of the game not in
:attr:`GameSpec.private_obs_blocks`, in the observation's order)
    An observation is seat-relative, ``rel = (seat - observer) mod n``; with observer 0,
    ``rel`` *is* the seat, so seat 0's observation is already in absolute seat order. Every
    game's observation shows every seat's public holdings in one seat block per seat, the same
    for every observer, so seat 0's observation less its private blocks holds what any seat's
    observation shows publicly. ``tests/test_global_state.py`` checks both halves along random
    games of every game and count: every entry of every seat's observation that no other seat's
    ``resample`` changes equals some entry of the global state at every position (nothing public
    is missing), the state is unchanged by every seat's ``resample`` and equal wherever the public
    ``to_dict`` view is (nothing hidden shows), and a decision that changes the public view
    changes the state. Reusing the observation kernels keeps one definition of what
    is visible: whatever an observation never shows (deck and stack order, the generator, who
    kept which card) cannot reach the global state either.
``H_CURRENT`` (n), ``H_OWNER`` (n), ``H_PHASE`` (one per phase name), ``H_DONE`` (n), ``H_TERMINAL`` (1)
    One-hot ``H_CURRENT`` (all zero once the game is over), one-hot ``H_OWNER``, one-hot
    ``H_PHASE``, bit p of ``H_DONE`` per seat, and ``H_TERMINAL``: whose turn and which decision is
    pending, in absolute seats (an observation shows them relative to the observer, and a game's
    observation may show no decider at all, since only the decider is meant to act on it). A game an
    AEC env ended by a forfeit (``illegal="lose"``) has the header of a game over too (no decider,
    every seat done, ``H_TERMINAL`` 1), though its kernel state never saw the forfeit.

Private blocks: those a game names in ``private_obs_blocks``, the blocks that show the observer's
own secrets (say, its hand, the scoring cards dealt to it and the one it kept); a game whose
observations show no secret names none (what it hides, such as the order of face-down stacks, no
observation shows). Each seat's public hand size and publicly known cards stay, in its seat block.
Presentation-only facts that no observation holds stay out too (say, which tile type covers a cell
and in which turn, or the kept scoring cards revealed once the game is over).

The alternative, every seat's observation side by side, holds the same public information n times
over (for a game with a large board, a 4-player state would be 51k entries instead of 12.8k); a
per-game public-view kernel would be a second definition of what is visible, to be kept in step
with the observations.

Values are the observation's (0 .. ``obs_high``) and 0/1 in the header; ``state_space`` is the
``Box`` with exactly those per-entry bounds, dtype int8, shape ``(size,)``.

``view="all"``: the full-information variant
--------------------------------------------
``env.state(view="all")`` (``env.unwrapped.state`` when another wrapper is in between) appends,
for every seat ``s = 0..n-1`` in turn, the private blocks of seat ``s``'s observation (blocks
named ``<BLOCK>_<s>``): what the seats know between them, for a critic trained with privileged
information. It still holds no deck or stack order and no generator, which no seat knows (they
are the game's future chance, not information). For a game without private blocks it equals the
public state. ``global_state_space("all")`` is its space. The default is always the public view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from gymnasium import spaces

from gamecore.kernel.header import H_CURRENT, H_DONE, H_OWNER, H_PHASE, H_TERMINAL
from gamecore.kernel.layout import Layout

if TYPE_CHECKING:
    from gamecore.kernel.protocol import GameSpec

#: the views :func:`global_state_view` offers
VIEWS = ("public", "all")
#: the header blocks, after the observation blocks
HEADER_BLOCKS = ("H_CURRENT", "H_OWNER", "H_PHASE", "H_DONE", "H_TERMINAL")


def check_view(view: object) -> str:
    if not isinstance(view, str) or view not in VIEWS:
        raise ValueError(f"view must be one of {list(VIEWS)}, got {view!r}")
    return view


class GlobalStateView:
    """How the global state of one game configuration (params) is built, for one view.

    ``layout`` names its blocks (``layout.table()`` documents them), ``size`` is its length,
    ``space`` its gymnasium ``Box``; ``index`` / ``bounds`` say which observation entries it takes:
    entries ``bounds[s]..bounds[s + 1] - 1`` are ``observe(state, s)[index[k]]``.
    """

    def __init__(self, game: GameSpec, params: np.ndarray, view: str = "public") -> None:
        self.view = check_view(view)
        n = int(params[0])
        self.num_players = n
        self.obs_len = int(np.prod(game.obs_shape(params)))
        obs_blocks = game.obs_layout(params)
        if obs_blocks is None:
            obs_blocks = Layout("observation")
            obs_blocks.add("OBSERVATION", self.obs_len,
                           f"seat 0's observation, shape {tuple(game.obs_shape(params))} flattened in C order")
        if obs_blocks.size != self.obs_len or obs_blocks.start != 0:
            raise ValueError(f"{game.name}: the observation layout covers {obs_blocks.size} entries, "
                             f"the observation has {self.obs_len}")
        private = set(game.private_obs_blocks)
        unknown = private - set(obs_blocks.names())
        if unknown:
            raise ValueError(f"{game.name}: private_obs_blocks names no observation block: {sorted(unknown)}")
        lay = Layout(f"global state ({view}), {n} players")
        index: list[np.ndarray] = []
        for b in obs_blocks.blocks:
            if b.name not in private:
                lay.add(b.name, b.size, f"seat 0's observation (rel = seat): {b.meaning}")
                index.append(np.arange(b.offset, b.end))
        # bounds[s + 1]: end of the entries taken from seat s's observation (seat 0: the public
        # blocks, then, in the "all" view, each seat's private blocks in seat order)
        bounds = [0]
        for s in range(n):
            if self.view == "all":
                for b in obs_blocks.blocks:
                    if b.name in private:
                        lay.add(f"{b.name}_{s}", b.size, f"seat {s}'s own (its observation's): {b.meaning}")
                        index.append(np.arange(b.offset, b.end))
            bounds.append(lay.size)
        self.obs_part = lay.size
        phases = len(game.phase_names)
        self.decider = lay.add("H_CURRENT", n, "one-hot: the seat deciding now (H_CURRENT); all zero once the game "
                               "is over")
        self.owner = lay.add("H_OWNER", n, "one-hot: the seat whose turn it is (H_OWNER)")
        self.phase = lay.add("H_PHASE", phases, f"one-hot: the kind of the pending decision (H_PHASE: "
                             f"{', '.join(game.phase_names)})")
        self.done = lay.add("H_DONE", n, "1 once seat takes no further decision (bit of H_DONE)")
        self.terminal = lay.add("H_TERMINAL", 1, "1 once the game is over (H_TERMINAL)")
        self.layout = lay
        self.size = lay.size
        self.index = np.ascontiguousarray(np.concatenate(index) if index else np.zeros(0, np.int64), dtype=np.int64)
        self.bounds = np.array(bounds, dtype=np.int64)
        assert self.bounds.shape == (n + 1,) and self.bounds[-1] == self.obs_part == len(self.index)
        high = np.ones(self.size, dtype=np.int8)
        high[: self.obs_part] = game.obs_high(params)
        self.space = spaces.Box(low=np.zeros(self.size, dtype=np.int8), high=high, dtype=np.int8)

    def write_header(self, states: np.ndarray, out: np.ndarray) -> None:
        """The header columns of ``out`` (rows, size) from the kernel states (rows, STATE_LEN)."""
        n = self.num_players
        rows = np.arange(states.shape[0])
        out[:, self.obs_part:] = 0
        live = states[:, H_TERMINAL] == 0
        out[rows[live], self.decider + states[live, H_CURRENT]] = 1
        out[rows, self.owner + states[:, H_OWNER]] = 1
        out[rows, self.phase + states[:, H_PHASE]] = 1
        out[:, self.done : self.done + n] = (states[:, H_DONE, None] >> np.arange(n)) & 1
        out[:, self.terminal] = states[:, H_TERMINAL] != 0

    def write_game_over(self, out: np.ndarray) -> None:
        """Mark the rows of ``out`` (size, or rows x size) as a game that is over although its kernel
        state runs on: a game ended outside the rules, by a forfeit (``illegal="lose"``). The header
        then reads as at a normal end: no decider, every seat done, ``H_TERMINAL`` 1; the position
        (observation blocks, turn owner, pending decision) stays as it stood."""
        n = self.num_players
        out[..., self.decider : self.decider + n] = 0
        out[..., self.done : self.done + n] = 1
        out[..., self.terminal] = 1

    def of_state(self, kernels, state: np.ndarray) -> np.ndarray:
        """The global state of one kernel state (the AEC path: one jitted observe per seat used)."""
        out = np.zeros((1, self.size), dtype=np.int8)
        obs = np.zeros(self.obs_len, dtype=np.int8)
        b = self.bounds
        for s in range(self.num_players):
            if b[s + 1] > b[s]:
                kernels.observe(state, s, obs)
                out[0, b[s] : b[s + 1]] = obs[self.index[b[s] : b[s + 1]]]
        self.write_header(state[None, :], out)
        return out[0]


_CACHE: dict[tuple, GlobalStateView] = {}


def global_state_view(game: GameSpec, params: np.ndarray, view: str = "public") -> GlobalStateView:
    """The (cached) :class:`GlobalStateView` of ``game`` with ``params`` for ``view``."""
    key = (game.name, tuple(int(x) for x in params), check_view(view))
    if key not in _CACHE:
        _CACHE[key] = GlobalStateView(game, params, view)
    return _CACHE[key]


def describe(game: GameSpec, view: str = "public") -> str:
    """One line per player count: the global state's length and the private blocks left out
    (for the env docstrings)."""
    sizes = ", ".join(
        f"{global_state_view(game, game.make_params(n), view).size} ({n}p)" for n in game.player_counts
    )
    private = ", ".join(f"`{b}`" for b in game.private_obs_blocks) or "none"
    return f"int8 vector of {sizes} entries; observation blocks left out as private: {private}"


__all__ = ["GlobalStateView", "HEADER_BLOCKS", "VIEWS", "check_view", "describe", "global_state_view"]
