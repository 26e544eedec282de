"""
# Cultivo

Rita Dorra, Stefan Dorra and Andreas Zimmermann's worker-placement game (Spielefaible 2025) for 2-4
players: place workers on the fields of Z-shaped villages, travel across the map (paying for
every field passed and every canal crossed, unless a cart or a barge helps), produce goods, buy
equipment at the market and raise six kinds of buildings that score at the end. The rules as
implemented, with every ruling on an open case and every reconstructed value: `docs/rules/cultivo.md`.

| Import             | `from cultivo_env import env` (or `pettingzoo.make("aec", "cultivo-v1")`)           |
|--------------------|-----------------------------------------------------------------------------------|
| Actions            | Discrete                                                                          |
| Parallel API       | No                                                                                |
| Manual control     | No                                                                                |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2..4                             |
| Action shape       | Discrete({NUM_ACTIONS})                                                           |
| Observation shape  | ({OBS_2},) int8 (2p), ({OBS_3},) (3p), ({OBS_4},) (4p)                             |
| Observation values | [0, 127] int8; [0, 1] float32 with `obs_encoding="scaled"`                         |

## Options
`env(num_players=2, start_player=0, random_villages=True, max_rounds=100, reward_mode="rank",
render_mode=None, viewer="public", illegal="lose", obs_encoding="int8")`. The map is the fixed
default map of the player count (6 / 8 / 10 villages); `random_villages=True` deals the village
tiles to its places, each turned one way or the other, from the seed (`False`: V1, V2, ... in
order, unturned). `max_rounds` is a safety cap that is not in the rules: the game ends, scored as
usual, after that many rounds (random play ends in about 40).

## Observation
A dict: `observation` (int8, flat) and `action_mask` (int8, 1 = legal; all zero for an agent that
is not deciding). Everything in Cultivo is public except the face-down stack, so every seat sees the
same facts, each from its own side: per-seat entries are seat-relative, `rel = (seat - me) mod n`
(0 = the observer, then the seats after it in turn order), so one policy plays every seat. The
face-down stack shows by its size only; which pieces are in it, or left the game at setup, is never
shown.

Blocks, their offset for each player count, their shape, range and meaning (generated from
`cultivo_env.layout.OBS`; `GAME.obs_high_vector(params)` gives every entry's maximum). A shape
`a x b` means entry `off + b * i + j` is `[i, j]` (C order; `a x b x c`: `off + b c i + c j + k`);
`GAME.observation_views(obs, params)` returns every block as a named view in its shape (a batch's
leading axes are kept). `env(obs_encoding="scaled")` divides every entry by its maximum: float32 in
[0, 1] (`gamecore.envs.encoding`).

{OBS_TABLE}

Orders. Fields `f = 5 * place + i`, `i = 0..4` along the place's Z (`cultivo_env.layout`: 30 / 40 /
50 fields at 2 / 3 / 4 players, so the field blocks are 30 / 40 / 50 rows); colours c: red,
orange, green, brown, blue, yellow (goods tomatoes, oranges, grapes, wood, olives, wheat);
equipment types t: cart, stall, barge, tool, barrel, scales (piece `6 t + c`); buildings by colour:
castle (red), manor (orange), tower (green), workshop (brown), monastery (blue), mill (yellow);
market rows and columns: red, orange, green, brown, blue (slot `5 row + col`); phases and action
kinds in the order of the `PHASE` and `ACT` rows above.

Counts. Strides by player count n = 2 / 3 / 4: `FIELD_WORKER` and `FIELD_BUILDING` `n f + rel`
(2 / 3 / 4), `FIELD_FLAGS` `6 f + k`, `FIELD_COLOUR` `6 f + c`, `GOODS` `18 rel + 3 c + k`,
`EQUIPMENT` `36 rel + 6 t + c`, `BUILT` `6 rel + c`, `PAY_SEATS` `12 rel + 2 c + k`,
`STALLS_DONE` `(8 + n) s + k` (10 / 11 / 12), `AMOUNT` `8 + n` entries (10 / 11 / 12). A count
that can pass 127 is two entries, hundreds then the rest (`v = 100 [0] + [1]`): `GOODS` (goods are
unlimited by the rules: above 12,799 of a colour its saturation flag `[rel, c, 2]` is 1 and the
entries show 127, 99; nothing else is ever clipped), `ROUND` (at most `max_rounds` <= 10,000),
`PAY_SUPPLY` and `PAY_SEATS` (a travel payment of a colour is below 200). `VP_TILES` is the sum of
the values of the tiles a seat took (not their number).

The action in progress. `PHASE` is the kind of the pending decision and `OWNER` the seat to move
(the turn owner takes every decision of its turn; in setup the seat placing its starting worker):
every seat sees both. Each choice made so far in the action is shown: the action (`ACT`); the
target of a Place / Move (`FIELD_FLAGS` target); the worker chosen to move (mover); the travel's
path in order (`PATH_STEP`: 1 the origin, 2 the next field, ...; the traveller stands on the
largest, flag position) and each canal it crossed (flag canal on the field reached across it);
during the `pay` decisions the passed fields (flag passed; their workers in `FIELD_WORKER` receive
goods), the amount being decided (`AMOUNT`) and the amounts decided so far (`PAY_SUPPLY`,
`PAY_SEATS`: a colour's total stands at the supply until what each player receives of it is
decided); for a purchase the slot (`SLOT`) and the split (`SPLIT`); for a building its field (flag
build); in the `stall` decisions the price being paid (`PAY_*`, before any stall), the stall
deciding now (`STALL`) and what each of the payer's stalls decided before it replaces
(`STALLS_DONE`). The refill choice's row and column are the emptied lines of `MARKET`.

Terminal observation: once the game is over no decision is pending: `PHASE`, `ACT`, `OWNER`, the
payment blocks (`PAY_*`, `AMOUNT`, `STALL`, `STALLS_DONE`, `SLOT`, `SPLIT`), the travel entries
(`PATH_STEP`, `FIELD_FLAGS`) and `ACTIONS_LEFT` are all zero; everything else shows the final
position (the map, goods, equipment, buildings, VP tiles, the market, `END`, `ROUND`, `START`).

Left out of the observation (parts of `to_dict()` below that no entry shows), with the reason:
{LEAVES_OUT}

## Actions
A turn is 2 actions (plus one for the 10th worker and one for each barrel bought); each action is
a short sequence of decisions by the turn owner, named by the observation's phase one-hot:
`action` (which action) -> Place: `place_target` -> `origin` -> `step`... -> `pay`... -> `exchange`
(8th / 9th worker); Move: `move_worker` -> `move_target` -> `step`... -> `pay`...; Produce:
`produce`; Acquire: `acquire` -> `split` -> `stall`... -> `refill` (a row and
a column emptied at once); Build: `build` -> `stall`.... The setup is one `start` decision per
seat (reverse seat order from the seat before the start player). A decision with a single option
is taken automatically and never shown.

{ACTION_TABLE}

* A travel is chosen step by step: `step` offers the fields beside the traveller not yet on the
  path (crossing a canal when the neighbour lies in another village) from which the target can
  still be reached and paid for; any simple path can be chosen.
* `pay` decides the travel's payment as its outcome, one amount at a time, colour by colour: the
  payer's total of the colour, then what each other player receives of it (the supply gets the
  rest). Each value offered is reached by some way of paying (goods: 2 of a passed field's colour
  to the supply, or 1 to the other player whose worker stands there and 1 to the supply, a canal 2
  wheat; or 1 good of a cart's / barge's colour to its owner, the supply if it is the payer's own;
  the scales; each market stall replacing one paid good), so two ways that leave every player
  with the same goods are one choice. Amounts that are 0 in every way are skipped.
* For purchases and buildings each of the payer's market stalls then may replace one paid good
  (`stall`); each outcome is offered once.
* Every option offered can be completed: the masks are exact (see `cultivo_env.rules`).

Strings (`env.unwrapped.action_to_string(a)`, `string_to_action(text)`,
`legal_action_strings()`) read like `"place on V3.2 (red)"`, `"step across a canal to V4.5"`,
`"pay 3 red"` (the payer's total of a colour in a travel payment), `"player_1 receives 1 red"`,
`"green stall: 1 green for 1 yellow (supply)"`, `"pay 3 red + 1 green"` (a purchase).
Fields are named by village tile and position on it, `V3.2`.

## Rewards
At the end only. `reward_mode="rank"`: winner +1, last -1, linear in between; ties (most VP, then
most goods left after the scored triples) share the average. `reward_mode="score"`: the final
score (goods triples, VP tiles, equipment VP, buildings). An illegal action under `env()` ends the
game with -1 for the mover.

## Termination
The end triggers when 4 or fewer pieces are left on the market or a player builds a 5th building;
the round is completed, then one more full round, so the seat before the start player takes the
last turn. (Or the `max_rounds` cap.) All seats terminate together.

## The game as a dict
`env.unwrapped.to_dict(viewer)` returns plain JSON types: `map` (`places` with the village tile on
each and whether it is turned; `fields`, each with `field`, `name`, `place`, `village`,
`tile_position`, `row`, `col`, `colour`, `good`, `worker`, `building` and `neighbours` with
`canal`; `ascii`), `market` (`row_colours`, `column_colours`, a 5 x 5 `grid` of piece names or
`None`, `pieces_left`), `stack_size`, `vp_tiles_left`, `buildings_built`, `players` (per seat
`goods`, `workers_on_map`, `worker_fields`, `equipment`, `buildings`, `vp_tiles`, `score` with its
parts and `tiebreak_goods`), `phase`, `current_player`, `turn_owner`, `start_player`, `round`,
`turns`, `actions_left`, `end_triggered`, `final_round`, `action` (the action in progress: target,
path, obligations, the amount being decided, the payment so far to the supply and to each player, stalls,
slot, split, build field), `decisions`, `terminal`, `done_players`. Everything is public and the
same for every viewer except `viewer="all"`, which adds `stack_top_first` and `out_of_game`.

## Global state
`env.state()` / `env.state_space` (PettingZoo's global state, for centralised critics): {GLOBAL_STATE}.
It is seat 0's observation (seat blocks in absolute seat order, since `rel` is the seat for
observer 0), then one-hot `H_CURRENT` (the decider), `H_OWNER` and `H_PHASE`, the `H_DONE` bits and
`H_TERMINAL`: the same whoever decides. The face-down stack shows only by size, never its order or
which pieces left the game; `state(view="all")` is the same vector. Blocks:
`env.unwrapped.global_state_layout().table()`; the design: `gamecore.envs.global_state`.

## Version history
* v0: first release.
* v1: observation: the pending choices are shown (the worker chosen to move, the field chosen to
  build on, the decisions of the stalls so far: `STALLS_DONE`), the travel's path in order
  (`PATH_STEP`) with the canals it crossed; goods as hundreds, the rest and a saturation flag (were
  clipped at 127), the rounds and the payment as hundreds and the rest; the field and seat blocks
  split into named, shaped blocks (`FIELD_*`, `GOODS`, `EQUIPMENT`, `WORKERS`, `BUILT`,
  `VP_TILES`; `GAME.observation_views`). {OBS_2} / {OBS_3} / {OBS_4} entries (was 910 / 1189 / 1508).
"""

from __future__ import annotations

from cultivo_env import layout as L
from cultivo_env.game import GAME
from gamecore.envs.aec import BaseRawEnv, make_env_factory
from gamecore.envs.global_state import describe
from gamecore.kernel.layout import markdown_table, table_by_count


def _action_table() -> str:
    rows: list[tuple[str, ...]] = [(f"`{name}`", f"{start}..{start + size - 1}", meaning)
                                   for name, start, size, meaning in L.ACTION_TABLE]
    return markdown_table(("Block", "Actions", "Meaning (by phase)"), rows)


__doc__ = (
    (__doc__ or "")
    .replace("{OBS_TABLE}", table_by_count(L.OBS, markdown=True))
    .replace("{ACTION_TABLE}", _action_table())
    .replace("{NUM_ACTIONS}", str(L.NUM_ACTIONS))
    .replace("{OBS_2}", str(L.obs_len(2)))
    .replace("{OBS_3}", str(L.obs_len(3)))
    .replace("{OBS_4}", str(L.obs_len(4)))
)

__doc__ = __doc__.replace("{GLOBAL_STATE}", describe(GAME))
__doc__ = __doc__.replace("{LEAVES_OUT}", "\n".join(f"* `{k}`: {v}." for k, v in GAME.obs_leaves_out.items()))


class raw_env(BaseRawEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env)
    game = GAME


env = make_env_factory(raw_env)


env.__doc__ = f"{env.__doc__}\n{__doc__}"
