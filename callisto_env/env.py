"""
# Callisto

Reiner Knizia's polyomino placement game (2015 edition) for 2-4 players: fit your 13 tiles into a
shared square frame, each touching your own pillars or tiles; whatever you cannot place counts
against you.

| Import             | `from callisto_env import env` (or `pettingzoo.make("aec", "callisto-v1")`) |
|--------------------|------------------------------------------------------------------------|
| Actions            | Discrete                                                               |
| Parallel API       | No                                                                     |
| Manual control     | No                                                                     |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2..4                  |
| Action shape       | Discrete(35 * S * S): 3500 (2p), 5040 (3p), 6860 (4p)                   |
| Observation shape  | (S, S, n*n + 18n + 3) int8: (10, 10, 43) / (12, 12, 66) / (14, 14, 91)   |
| Observation values | [0, 127] int8; [0, 1] float32 with `obs_encoding="scaled"`              |

## Options
`env(num_players=2, start_player=0, match=False, reward_mode="rank", render_mode=None,
viewer="public", illegal="lose", obs_encoding="int8")` (`raw_env` defaults to `illegal="raise"`; see `gamecore.envs.aec`
for `viewer` and `illegal`). Rules as implemented: `docs/rules/callisto.md`.
`match=True` plays a match: as many games as players, game g started by seat
`(start_player + g) mod n`; the episode ends after the last game.

## Observation
A dict: `observation` (int8, shape (S, S, C)) and `action_mask` (int8, 1 = legal; all zero for an
agent that is not deciding). Channel `k` of cell `(r, c)` (row r from the top, column c from the
left, as in `board` below) is plane `k`. Plane groups are seat-relative: `rel = (seat - me) mod n`, so
the observer's own planes always come first and one policy can play every seat. The board groups
(`TILES`, `PILLARS`) vary over the cells; every other plane is *constant*: the same value at every
cell.

First plane of each group for each player count, its shape, the range of its planes and its meaning
(generated from `callisto_env.layout.OBS_PLANES`; `GAME.obs_high_vector(params)` gives every entry's
maximum, the planes' maxima at every cell). Nothing is clipped: every value the rules can reach fits.
A shape `a x b` means plane `off + b * i + j` is entry `[i, j]`;
`GAME.observation_views(obs, params)` returns each group as a named view `obs[..., off:end]` with
its shape as trailing axes (`(S, S, n, 10)` for `REMAIN`; a batch's leading axes are kept).
`env(obs_encoding="scaled")` divides every entry by its maximum: float32 in [0, 1]
(`gamecore.envs.encoding`):

{OBS_TABLE}

Orders: seats by `rel` (0 = the observer, then the seats after it in turn order); tile types t in
`REMAIN`: D2, I3, V3, L4, T4, S4, O4, X5, T5, U5 (see `callisto_env.layout.TILES`); `MATCH_PEN`:
hundreds, then the rest (`v = 100 [rel, 0] + [rel, 1]`); `STARTED`: games g = 0, 1, ... by row, seats
`rel` by column.

The pending decision: `TO_MOVE` names the seat to move (every seat sees it); Callisto has one kind
of turn, and what it places follows from that seat's `OPENING` plane: above 0, an opening pillar on
the ring; 0, a tile or its third pillar (`THIRD`).

Terminal observation: once the episode is over (the last game of a match, or the single game),
`TO_MOVE` is all zero and `GAMES_LEFT` is 0, `GAMES` is the number of games played (n in a match, 1 in
a single game) and everything else shows the final position: the last game's board, unplaced tiles
and pillars, every seat `OUT`, `MATCH_PEN` the summed penalty of every game (the last included).
Between the games of a match the observation shows the next game's empty board, `GAMES` one higher.

Left out of the observation (parts of `to_dict()` below that no entry shows), with the reason:
{LEAVES_OUT}

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
`env.unwrapped.global_state_layout().table()`; the design: `gamecore.envs.global_state`.

## Version history
* v0: first release.
* v1: observation: new planes `TO_MOVE` (the seat to move, all 0 at the end), `STARTED` (which seat
  started each game), `MATCH`, `GAMES_LEFT`; `MATCH_PEN` split into hundreds and the rest (was clipped
  at 127); `GAMES` counts finished games (n / 1 at the end, was the last game's index); named views
  (`GAME.observation_views`). 43 / 66 / 91 planes (was 33 / 49 / 65).
"""

from __future__ import annotations

from callisto_env import layout as L
from callisto_env.game import GAME
from gamecore.envs.aec import BaseRawEnv, make_env_factory
from gamecore.envs.global_state import describe
from gamecore.kernel.layout import table_by_count

__doc__ = (__doc__ or "").replace("{OBS_TABLE}", table_by_count(L.OBS_PLANES, markdown=True))

__doc__ = __doc__.replace("{GLOBAL_STATE}", describe(GAME))
__doc__ = __doc__.replace("{LEAVES_OUT}", "\n".join(f"* `{k}`: {v}." for k, v in GAME.obs_leaves_out.items()))


class raw_env(BaseRawEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env)
    game = GAME


env = make_env_factory(raw_env)


env.__doc__ = f"{env.__doc__}\n{__doc__}"
