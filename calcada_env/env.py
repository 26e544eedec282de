"""
# Calçada

Konstantinos Karagiannis and Vangelis Bagiartakis' tile-laying game (Piatnik 2024) for 2-4 players:
declare a cobblestone on the carousel (its colour and how many stones share its space), take a tile
of that colour and lay it on the square of your 5x5 Calçada board showing that number; complete
one-colour districts for points, connect motifs for more at the end. Rules as implemented:
`docs/rules/calcada.md`.

| Import             | `from calcada_env import env` (or `pettingzoo.make("aec", "calcada-v1")`)  |
|--------------------|------------------------------------------------------------------------|
| Actions            | Discrete                                                               |
| Parallel API       | No                                                                     |
| Manual control     | No                                                                     |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2..4                  |
| Action shape       | Discrete(170)                                                          |
| Observation shape  | (279n + 887,) int8: 1445 (2p), 1724 (3p), 2003 (4p)                    |
| Observation values | [0, 127] int8; [0, 1] float32 with `obs_encoding="scaled"`              |

## Options
`env(num_players=2, start_player=0, board_side="A", reward_mode="rank", render_mode=None,
viewer="public", illegal="lose", obs_encoding="int8")` (`raw_env` defaults to `illegal="raise"`; see `gamecore.envs.aec`
for `viewer` and `illegal`).
`board_side` is `"A"` (8 districts) or `"B"` (9 districts); all players use the same side.

## Observation
A dict: `observation` (int8, flat) and `action_mask` (int8, 1 = legal; all zero for an agent that
is not deciding). Seat blocks are seat-relative: entry `[rel]` of a per-seat block shows seat
`(me + rel) mod n`, so the observer's own board always comes first and one policy can play every
seat. Everything in Calçada is public except the order of the face-down stacks, which nobody
knows: a stack appears by its size and its known bottom (the tiles everybody saw go under it in a
display swap: their kinds, and all of them in the order they will come out), never by the order
of the rest. Every seat sees the same entries, only rotated.

Orders used throughout: colours 0..4 = yellow (`y`), red (`r`), blue (`b`), green (`g`), purple
(`p`); kinds 0..5 = tram (`t`), plaza (`p`), kiosk (`k`), cafe (`c`), bench (`b`), bonus symbol
(`*`, no motif): a tile token in strings and `to_dict` is colour letter + kind letter (`"bk"` = blue
kiosk). A square is `sq = 5 row + col` (0-based, row 0 on top), `r<row+1>c<col+1>` in action
strings; a carousel space `s` (0..5) is `space s + 1` and a display slot `j` (0..2) `slot j + 1`.

Offsets, shapes (C order: `2 x 25 x 11` means entry `[i, j, k]` is at offset `275 i + 11 j + k`
from the block's start) and the range of each block for each player count, generated from
`calcada_env.layout.OBS`; `GAME.obs_high_vector(params)` gives every entry's maximum and
`GAME.observation_views(obs, params)` hands back each block by name in its shape. Every range is
a bound the rules prove, so no entry clips in play (counts above 127, the int8 range, cannot
occur; the turn count, which can pass 100, is split into hundreds and the rest). A position built
by hand that play cannot reach (`set_state` checks slots, not reachability) can hold more than a
range states: the entries then show the value, clipped to 127, and `KNOWN_ORDER` the 22 known
tiles nearest the top. `env(obs_encoding="scaled")` divides every entry by its maximum: float32
in [0, 1] (`gamecore.envs.encoding`).

{OBS_TABLE}

Terminal observation (house convention): once the game is over no decision is pending, so
`PHASE`, `DECL_NUM`, `DECL_COL` and `CURRENT` are all zero; everything else shows the final
position (boards, bonus tiles, points before final scoring, `END`, the last round's
`ROUND_PLACED`, `TURNS` a multiple of n).

Left out of the observation (parts of `to_dict()` below that no entry shows), with the reason:
{LEAVES_OUT}

Everything else in `to_dict(player=seat)` is shown or follows from what is: `board_layout` from
`NUMBERS` and `DISTRICTS` (and `board_side` from them: the sides differ), `on_scoreboard` from
`SB_ROWS`, `final_scoring` from the boards, districts and bonus tiles, `terminal` and
`done_players` from `PHASE` being all zero.

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
`on_scoreboard`, `multiplier`, `display`, `stack_size`, `stack_known_bottom`: the known bottom of
the stack, bottom first), `current_player`, `start_player`, `phase`, `declared_colour`,
`declared_number`, `end_triggered`, `placed_this_round`, `turns`, `decisions`, `terminal`,
`done_players` and `players` (per seat `board`, `bonus_tiles`, `points`, `final_scoring`). Tiles
are written colour letter + motif letter (`*` = bonus symbol). Only the all-seeing view
(`player=None`) adds each stack's order (`stack_top_first`); a seat's view never does.

## Global state
`env.state()` / `env.state_space` (PettingZoo's global state, for centralised critics): {GLOBAL_STATE}.
It is seat 0's observation (seat blocks in absolute seat order, since `rel` is the seat for
observer 0), then one-hot `H_CURRENT` (the decider), `H_OWNER` and `H_PHASE`, the `H_DONE` bits and
`H_TERMINAL`: the same whoever decides. The stacks show only by size and known bottom, never the
order of the rest;
`state(view="all")` is the same vector. Blocks: `env.unwrapped.global_state_layout().table()`; the
design: `gamecore.envs.global_state`.

## Version history
* v0: first release.
* v1: observation: the seat blocks split into `BOARDS` (n x 25 x 11), `BONUS_TILES` and `POINTS`
  (no clipping: proven bounds 52 and 85); new `TURNS` (the turn count, hundreds then the rest);
  `KNOWN_NEXT` (the next 3 known tiles) replaced by `KNOWN_ORDER` (the whole known bottom of each
  stack in order, 22 rows); `STACK_SIZES` ranges 0..22; once the game is over `PHASE`, `DECL_NUM`,
  `DECL_COL` and `CURRENT` are all zero; every block's shape is declared
  (`GAME.observation_views`). Sizes 873/1152/1431 -> 1445/1724/2003.
"""

from __future__ import annotations

from calcada_env import layout as L
from calcada_env.game import GAME
from gamecore.envs.aec import BaseRawEnv, make_env_factory
from gamecore.envs.global_state import describe
from gamecore.kernel.layout import table_by_count

__doc__ = (__doc__ or "").replace("{OBS_TABLE}", table_by_count(L.OBS, markdown=True))

__doc__ = __doc__.replace("{GLOBAL_STATE}", describe(GAME))
__doc__ = __doc__.replace("{LEAVES_OUT}", "\n".join(f"* `{k}`: {v}." for k, v in GAME.obs_leaves_out.items()))


class raw_env(BaseRawEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env)
    game = GAME


env = make_env_factory(raw_env)


env.__doc__ = f"{env.__doc__}\n{__doc__}"
