"""
# Calçada

Konstantinos Karagiannis and Vangelis Bagiartakis' tile-laying game (Piatnik 2024) for 2-4 players:
declare a cobblestone on the carousel (its colour and how many stones share its space), take a tile
of that colour and lay it on the square of your 5x5 Calçada board showing that number; complete
one-colour districts for points, connect motifs for more at the end. Rules as implemented:
`docs/rules/calcada.md`.

| Import             | `from calcada_env import env` (or `pettingzoo.make("aec", "calcada-v0")`)  |
|--------------------|------------------------------------------------------------------------|
| Actions            | Discrete                                                               |
| Parallel API       | No                                                                     |
| Manual control     | No                                                                     |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2..4                  |
| Action shape       | Discrete(170)                                                          |
| Observation shape  | (279n + 315,) int8: 873 (2p), 1152 (3p), 1431 (4p)                     |
| Observation values | [0, 127] int8; [0, 1] float32 with `obs_encoding="scaled"`              |

## Options
`env(num_players=2, start_player=0, board_side="A", reward_mode="rank", render_mode=None,
viewer="public", illegal="lose", obs_encoding="int8")` (`raw_env` defaults to `illegal="raise"`; see `gamecore.aec`
for `viewer` and `illegal`).
`board_side` is `"A"` (8 districts) or `"B"` (9 districts); all players use the same side.

## Observation
A dict: `observation` (int8, flat) and `action_mask` (int8, 1 = legal; all zero for an agent that
is not deciding). Seat blocks are seat-relative: block `rel` shows seat `(me + rel) mod n`, so the
observer's own board always comes first and one policy can play every seat. Face-down stacks
appear by size and known bottom only (the tiles everybody saw go under in a display swap), never
by order.

Offsets and the range of each block for each player count (generated from
`calcada_env.layout.OBS`; `GAME.obs_high_vector(params)` gives every entry's maximum). The kernel
clips the bonus tiles and the points at 127 (the int8 range), which neither can reach.
`env(obs_encoding="scaled")` divides every entry by its maximum: float32 in [0, 1]
(`gamecore.encoding`).

{OBS_TABLE}

## Actions
A turn is several decisions by the same seat: any number of bonus moves, then a declare; then
any number of display swaps, then a placement, which ends the turn.

| Action                     | String                                   |
|----------------------------|------------------------------------------|
| `0 + 5 s + c` (0..29)      | `"bonus move red on space 3"`            |
| `30 + 5 s + c` (30..59)    | `"declare blue on space 2 (number 4)"`   |
| `60 + 5 s + c` (60..89)    | `"move blue on space 2 without placing"` |
| `90 + c` (90..94)          | `"swap display yellow"`                  |
| `95 + 25 j + sq` (95..169) | `"take slot 2 (blue kiosk) to r3c4"`     |

* bonus move: spend 1 bonus tile, move one cobblestone of colour c on space s one space clockwise
  (only before the declare);
* declare: the declared number is the stones on space s before moving; that cobblestone moves
  one space clockwise;
* move without placing: only when no cobblestone can be declared; move it, place nothing, the
  turn ends;
* swap display: spend 1 bonus tile, the display of colour c goes under its stack and 3 new tiles
  are revealed (only after the declare);
* take: the tile in display slot j of the declared colour goes on square sq = 5 row + col
  (`r<row>c<col>`, 1-based); the turn ends.

Spaces and slots are 1-based in strings. `env.unwrapped.action_to_string(a)` /
`string_to_action(text)` convert, `legal_action_strings()` lists the legal ones.

Rulings on open cases (`docs/rules/calcada.md` plus these choices): a cobblestone can be
declared only if its colour is on the scoreboard, its display is not empty and a legal square
exists; if none can, the declare actions are replaced by the move-only actions. A display swap is
legal only for a colour still on the scoreboard whose stack is not empty. A display is refilled
only when its last tile is taken (the other slots stay empty until then).

## Rewards
At the end only. `reward_mode="rank"`: winner +1, last -1, linear in between; tied seats share the
average (ties share the victory). `reward_mode="score"`: final points (play + final scoring).
An illegal action under `env()` (`illegal="lose"`) ends the game with -1 for the mover.

## Termination
When the second colour leaves the scoreboard the round is finished (the game ends before the start
seat would move again). The game also ends after a whole round (start seat to the seat before it)
in which nobody placed a tile. All seats terminate together.

## The game as a dict
`env.unwrapped.to_dict(player=None)` returns plain JSON types: `board_side`, `board_layout`,
`carousel` (per space, the colours of its cobblestones), `colours` (per colour: `scoreboard_row`,
`on_scoreboard`, `multiplier`, `display`, `stack_size`), `current_player`, `start_player`,
`phase`, `declared_colour`, `declared_number`, `end_triggered`, `placed_this_round`, `turns`,
`decisions`, `terminal`, `done_players` and `players` (per seat `board`, `bonus_tiles`, `points`,
`final_scoring`). Tiles are written colour letter + motif letter (`*` = bonus symbol). Only the
all-seeing view (`player=None`) adds each stack's order (`stack_top_first`); a seat's view never
does.

## Global state
`env.state()` / `env.state_space` (PettingZoo's global state, for centralised critics): {GLOBAL_STATE}.
It is seat 0's observation (seat blocks in absolute seat order, since `rel` is the seat for
observer 0), then one-hot `H_CURRENT` (the decider), `H_OWNER` and `H_PHASE`, the `H_DONE` bits and
`H_TERMINAL`: the same whoever decides. The stacks show only by size, never their order;
`state(view="all")` is the same vector. Blocks: `env.unwrapped.global_state_layout().table()`; the
design: `gamecore.global_state`.

## Version history
* v0: first release.
"""

from __future__ import annotations

from calcada_env import layout as L
from calcada_env.game import GAME
from gamecore.aec import BaseRawEnv, make_env_factory
from gamecore.global_state import describe
from gamecore.layout import table_by_count

__doc__ = (__doc__ or "").replace("{OBS_TABLE}", table_by_count(L.OBS, markdown=True))

__doc__ = __doc__.replace("{GLOBAL_STATE}", describe(GAME))


class raw_env(BaseRawEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env)
    game = GAME


env = make_env_factory(raw_env)


env.__doc__ = f"{env.__doc__}\n{__doc__}"
