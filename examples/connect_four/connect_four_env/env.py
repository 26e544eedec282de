"""
# Connect Four

Two players take turns dropping pieces into a 7-column, 6-row grid; four in a row wins.

| Import             | `from connect_four_env import env` (or `pettingzoo.make("aec", "connect_four-v1")`) |
|--------------------|-------------------------------------------------------------------------------|
| Actions            | Discrete(7)                                                                   |
| Parallel API       | No                                                                            |
| Manual control     | No                                                                            |
| Agents             | `agents = ['player_0', 'player_1']`                                           |
| Action shape       | Discrete(7)                                                                   |
| Observation shape  | (86,) int8                                                                    |
| Observation values | [0, 1] int8; float32 with `obs_encoding="scaled"`                             |

## Options
`env(num_players=2, reward_mode="rank", render_mode=None, viewer="public", illegal="lose",
obs_encoding="int8")` (`raw_env` defaults to `illegal="raise"`; see `gamecore.envs.aec`). Rules as
implemented: `connect_four_env/README.md`.

## Observation
A dict: `observation` (int8, flat) and `action_mask` (int8, 1 = legal; all zero for the seat that
is not deciding). Seat-relative: `rel = (seat - observer) mod 2`, the observer's pieces first
(`GAME.observation_views(obs, params)` names the blocks):

{OBS_TABLE}

Once the game is over `TO_MOVE` is all zero and `BOARD` shows the final position.

## Actions
`a = c` drops a piece into column `c` (0..6, `a`..`g` left to right); a full column is not legal.
`env.unwrapped.action_to_string(a)` gives the column letter, `string_to_action` inverts it.

## Rewards
At the end only. `reward_mode="rank"`: the winner +1, the loser -1, 0 each in a draw.
`reward_mode="score"`: the same numbers (the game's score: 1 win, -1 loss, 0 draw). An illegal
action under `env()` (`illegal="lose"`) ends the game with -1 for the mover.

## The game as a dict
`env.unwrapped.to_dict()`: `board` (6 strings, the top row first, `.` empty, `X` seat 0, `O` seat
1), `heights`, `moves`, `current_player` (None once over), `terminal`, `winner` (a seat or None),
`draw`, `done_players`, `viewer`. Nothing is hidden, so every viewer sees the same dict.

## Global state
`env.state()` / `env.state_space` (PettingZoo's global state, for centralised critics):
{GLOBAL_STATE}. It is seat 0's observation, then one-hot `H_CURRENT`, `H_OWNER`, `H_PHASE`, the
`H_DONE` bits and `H_TERMINAL`; blocks: `env.unwrapped.global_state_layout().table()`.

## Version history
* v1: first release.
"""

from __future__ import annotations

from gamecore.envs.aec import BaseRawEnv, make_env_factory
from gamecore.envs.global_state import describe

from connect_four_env import layout as L
from connect_four_env.game import GAME

__doc__ = (__doc__ or "").replace("{OBS_TABLE}", L.OBS.table()).replace("{GLOBAL_STATE}", describe(GAME))


class raw_env(BaseRawEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env)
    game = GAME


env = make_env_factory(raw_env)

env.__doc__ = f"{env.__doc__}\n{__doc__}"
