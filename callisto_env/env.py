"""
# Callisto

Reiner Knizia's polyomino placement game (2015 edition) for 2-4 players: fit your 13 tiles into a
shared square frame, each touching your own pillars or tiles; whatever you cannot place counts
against you.

| Import             | `from callisto_env import env` (or `pettingzoo.make("aec", "callisto-v0")`) |
|--------------------|------------------------------------------------------------------------|
| Actions            | Discrete                                                               |
| Parallel API       | No                                                                     |
| Manual control     | No                                                                     |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2..4                  |
| Action shape       | Discrete(35 * S * S): 3500 (2p), 5040 (3p), 6860 (4p)                   |
| Observation shape  | (S, S, 16n + 1) int8, S = 10 / 12 / 14 for 2 / 3 / 4 players             |
| Observation values | [0, 127] int8; [0, 1] float32 with `obs_encoding="scaled"`              |

## Options
`env(num_players=2, start_player=0, match=False, reward_mode="rank", render_mode=None,
viewer="public", illegal="lose", obs_encoding="int8")` (`raw_env` defaults to `illegal="raise"`; see `gamecore.aec`
for `viewer` and `illegal`). Rules as implemented: `docs/rules/callisto.md`.
`match=True` plays a match: as many games as players, game g started by seat
`(start_player + g) mod n`; the episode ends after the last game.

## Observation
A dict: `observation` (int8, shape (S, S, C)) and `action_mask` (int8, 1 = legal; all zero for an
agent that is not deciding). Plane groups are seat-relative: `rel = (seat - me) mod n`, so the
observer's own planes always come first and one policy can play every seat.

First plane of each group for each player count, and the range of its planes (generated from
`callisto_env.layout.OBS_PLANES`; `GAME.obs_high_vector(params)` gives every entry's maximum, the
planes' maxima at every cell). The kernel clips the summed match penalty at 127, the int8 range.
`env(obs_encoding="scaled")` divides every entry by its maximum: float32 in [0, 1]
(`gamecore.encoding`):

{OBS_TABLE}

Tile types t: D2, I3, V3, L4, T4, S4, O4, X5, T5, U5 (see `callisto_env.layout.TILES`).

## Actions
`a = o * S*S + cell` places orientation `o` (0..33, `callisto_env.layout.ORIENT_*`) with its anchor
square (first square in reading order) on `cell = row * S + col`; `a = 34 * S*S + cell` places a
pillar. `env.unwrapped.action_to_string(a)` gives e.g. `"T5 r90 c5"` or `"pillar a1"`, and
`string_to_action` inverts it. Turns 1 and 2 of every seat are opening pillars on the ring; after
that a seat places a tile or its third pillar. Seats with no opening pillar cell skip it; seats that
can do nothing are out (terminated, but stepped with `None` only when the game ends, so they still
get their reward).

## Rewards
At the end only. `reward_mode="rank"`: winner +1, last -1, linear in between; ties share the
average. In a single game a penalty tie goes to the seat that started later (so there are no shared
ranks); in a match ties on summed penalty share. `reward_mode="score"`: minus the penalty (minus the
summed penalty in a match). An illegal action under `env()` (`illegal="lose"`) ends the game with -1 for the mover.

## The game as a dict
`env.unwrapped.to_dict(player=None)` returns plain JSON types: `board` (S strings, `.` empty,
`g b r y` tile squares and `G B R Y` pillars of seats 0-3, row 1 first), `board_size`,
`current_player` (None once over), `start_player`, `terminal`, `done_players`, `match`,
`match_game`, `finished_game_penalties` (one list of per-seat penalties per finished game) and
`players`: per seat `colour`, `unplaced_tiles` ({tile: copies}), `pillars_placed`,
`opening_pillar_turns_used`, `third_pillar_available`, `out`, `penalty`, `match_penalty`.
Callisto has no hidden information, so every `player` sees the same dict (`viewer` names it).

## Global state
`env.state()` / `env.state_space` (PettingZoo's global state, for centralised critics): {GLOBAL_STATE}.
It is seat 0's observation planes, flattened (`state[:S*S*C].reshape(S, S, C)`: plane groups in
absolute seat order, since `rel` is the seat for observer 0), then one-hot `H_CURRENT` (the
decider), `H_OWNER` and `H_PHASE`, the `H_DONE` bits and `H_TERMINAL`: the same whoever decides.
Callisto hides nothing, so `state(view="all")` is the same vector. Blocks:
`env.unwrapped.global_state_layout().table()`; the design: `gamecore.global_state`.

## Version history
* v0: first release.
"""

from __future__ import annotations

from callisto_env import layout as L
from callisto_env.game import GAME
from gamecore.aec import BaseRawEnv, make_env_factory
from gamecore.global_state import describe
from gamecore.layout import table_by_count

__doc__ = (__doc__ or "").replace("{OBS_TABLE}", table_by_count(L.OBS_PLANES, markdown=True))

__doc__ = __doc__.replace("{GLOBAL_STATE}", describe(GAME))


class raw_env(BaseRawEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env)
    game = GAME


env = make_env_factory(raw_env)


env.__doc__ = f"{env.__doc__}\n{__doc__}"
