"""
# Calimala

Fabio Lopiano's worker-placement game (ADC Blackfire 2017) for 3-5 players, set in 14th-century
Florence: place a disc on a street of the city grid to take the actions of the two cells it
joins, together with the owners of the discs already there; produce and ship cloth, build, make
artworks and contribute to the churches under construction; every fourth disc on a street moves
to the city council and triggers a scoring. Hidden information: action cards in hand (the count
is public), the kept scoring card, the deck order. Rules as implemented, with every ruling on an
ambiguous case and every reconstructed value: `docs/rules/calimala.md`.

| Import             | `from calimala_env import env` (or `pettingzoo.make("aec", "calimala-v1")`)   |
|--------------------|-------------------------------------------------------------------------------|
| Actions            | Discrete                                                                      |
| Parallel API       | No                                                                            |
| Manual control     | No                                                                            |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 3..5 (default 3)            |
| Action shape       | Discrete({NUM_ACTIONS})                                                              |
| Observation shape  | {OBS_SHAPES}                                                  |
| Observation values | [0, 127] int8; [0, 1] float32 with `obs_encoding="scaled"`                     |
| Hidden information | yes: `resample(state, seat, seed)` redeals what a seat cannot see             |

## Options
`env(num_players=3, start_player=0, action_layout=None, reward_mode="rank", render_mode=None,
viewer="public", illegal="lose", obs_encoding="int8")`. `action_layout`: `None` (the 8 action
tiles shuffled onto the outer cells from the seed; the centre shows Contribute), `"first_game"` or
9 action names row by row (`a1 b1 c1 a2 ...`), each action once. `start_player` begins (it keeps
its scoring card first and takes its start card last).

## A game as decisions
Setup: every seat keeps one of its dealt scoring cards (`keep`, from the start seat clockwise),
then takes a start card (`start_card`, from the seat before the start seat, backwards). A turn:
the turn owner places a disc (`place`); then each activated disc's owner decides for it
(`activate`: take a pending street action, play a card, end the activation), with an action's own
choices as separate decisions (`ship`, `transport`, `build`, `artwork`, `contribute`); if a white
fourth disc must be exchanged and the owner has no coloured disc in reserve, the owner picks which
disc on another street moves to the council (`promote`). `H_OWNER` (the turn owner) stays the
placing player while the decider (`agent_selection`) moves to the owners of the lower discs. A
decision with a single legal option is applied automatically.

## Observation
A dict: `observation` (int8, flat) and `action_mask` (int8, 1 = legal; all zero for an agent that
is not deciding). Seat blocks are seat-relative: row `rel` of a per-seat block (and a `rel` index
of an owner one-hot) is seat `(me + rel) mod n`, so the observer's own mat comes first and one
policy can play every seat. Other seats' hands appear only as a count and the cards every seat
knows they hold (the start card each took face up in setup, until it plays a card of that action);
their dealt and kept scoring cards and the deck order never appear. Every seat sees who decides
and what: the kind of decision is the one-hot `PHASE`, the turn owner `OWNER`, the decider
`CURRENT`, the action being carried out `EXEC` (with `EXEC_CARD` and `EXEC_USED`, the decider's
choices so far within it), the activations of the turn `ACT` and what is still pending `PENDING`.

Orders used throughout: actions (and action cards) 0..8 = Wood, Brick, Marble, Weave, Ship,
Build, Artwork, Transport, Contribute; resources wood, brick, marble; cities Barcelona, Lisbon,
London (ports), Troyes, Bruges, Hamburg (trade cities, in that order wherever a block has 3 trade
city entries); churches Santa Maria del Fiore, San Miniato, Santa Croce, then Palazzo Vecchio (the
council) where a block covers the 4 buildings; scoring cards 0..9 and scoring tiles 0..14 as the
table names them; cells row by row a1 b1 c1 a2 b2 c2 a3 b3 c3; streets 0..11 as in the table
(horizontal ones first); decision kinds 0..9 = `phase_names`.

Offsets, shapes (C order: `12 x 4 x 7` means entry `[s, i, k]` is at offset `28 s + 7 i + k`
from the block's start) and the range of each block for each player count, generated from
`calimala_env.layout.OBS`; `GAME.obs_high_vector(params)` gives every entry's maximum and
`GAME.observation_views(obs, params)` hands back each block by name in its shape. Every range is
a bound the rules prove, so no entry clips in play: the VP are at most 65 / 70 / 70 at 3 / 4 / 5
players (3 from each of the 15 council tiles, 5 from each final card: a seat's share of a scoring
never exceeds the first place's points), the hand at most 45 cards. Only a position built by hand
that play cannot reach (`set_state` checks slots, not reachability) can hold more VP; the kernel
clips the VP and the hand count at 127, the int8 range, which play never reaches. `env(obs_encoding="scaled")` divides
every entry by its maximum: float32 in [0, 1] (`gamecore.envs.encoding`):

{OBS_TABLE}

Terminal observation (house convention): once the game is over no decision is pending, so
`PHASE`, `OWNER` and `CURRENT` are all zero, and so are the turn blocks (`SPACE`, `PENDING`,
`ACT`, `OBLIG`, `EXEC`, `EXEC_CARD`, `EXEC_USED`); everything else shows the final position (the
mats with the final VP after the final scoring cards, the board, the council with every seat
scored, `START`, `END`).

Left out of the observation (parts of `to_dict()` below that no entry shows), with the reason:
{LEAVES_OUT}

Everything else in `to_dict(viewer=seat)` is shown or follows from what is: `turns` (the seats'
`placed` summed, less 1 during a turn: from the first activation to the promote decision),
`terminal` and `done_players` (all seats end together) from `PHASE` being all zero,
`coloured_discs_out` (the coloured discs of the player count less those in reserve, on the
streets and on council seats), `white_discs_out` (likewise for all the white discs together),
`seat_order` from `SEAT_OWNER`, `scored` and `next_seat` from `NEXT_SEAT`, the free slots from
each building's and city's slots less the seats' cubes there, an activation's `times` (twice for
the placed disc if the top disc of `SPACE`'s street is white, else once), `placer_duty_open` from
`OBLIG`, the street actions from `LAYOUT`. The seat's own `dealt_scoring_cards` are a set
(`MY_DEALT`): their listing order in `to_dict` is the deal's, which has no meaning in the rules.

## Actions
| Range | Meaning | String |
|---|---|---|
{ACTION_TABLE}

`env.unwrapped.action_to_string(a)` / `string_to_action(text)` convert; `legal_action_strings()`
lists the legal ones. Masks offer exactly the legal choices: a street only if the placing player
can carry out one of its actions (playing cards first if need be; if no street allows that, any
street), a card only if its action can be carried out at least partly, and while the placing player
still owes an action that can be carried out, only decisions that keep it possible (no ending the
activation). No choice leads to a dead end.

## Rewards
At the end only. `reward_mode="rank"`: winner +1, last -1, linear in between; tied seats (equal
VP and equal seats + council artworks) share the average. `reward_mode="score"`: victory points.
An illegal action under `env()` ends the game with -1 for the mover.

## Termination
(a) When no seat has a disc left, the unscored council tiles are scored in order without seats;
(b) once all 15 tiles are scored, the round is finished (the game ends before the start seat would
place again; fourth discs leave the game unscored). A seat with no disc in reserve is skipped.
Then the final scoring cards (each seat's kept card, plus the face-up card with 3 or 4 players)
score 5/3/1. All seats terminate together.

## The game as a dict
`env.unwrapped.to_dict(viewer="public")` returns plain JSON types: `layout` (cell -> action),
`streets` (actions and discs bottom first, with owner and white flag), `council` (the 15 seats in
order with tile, scored flag and holder; `artworks_in_order`), `churches` (per resource and per
seat, artworks per seat, free slots), `cities` (cloth per seat), `city_free_slots`, `trade_houses`,
`deck_size`, `discard_pile`, `face_up_scoring_card`, `turn` (street, activations, pending actions,
whether the placing player still owes an action, the action being carried out) and `players` (per
seat: `vp`, `seats`, `seat_order`, `council_artworks`, `warehouses`, `workshops`,
`cloth_in_workshops`, `ships`, `trade_houses`, `cloth_in_cities`, `contributions` per church and
resource, `artworks` per building, cubes and discs in reserve, `hand_count`, `known_cards`). A
seat's own view adds its `hand`, `dealt_scoring_cards` and `kept_scoring_card`; `viewer="all"` adds
every seat's, the deck order (`deck_top_first`) and the scoring card put back unseen. Kept cards are
shown to all once the game is over. Renders use the same viewers (default: public).

## Global state
`env.state()` / `env.state_space` (PettingZoo's global state, for centralised critics): {GLOBAL_STATE}.
It is seat 0's observation less its own hand and scoring cards (seat blocks in absolute seat
order, since `rel` is the seat for observer 0: every seat's hand size and publicly known cards
stay), then one-hot `H_CURRENT` (the decider), `H_OWNER` and `H_PHASE`, the `H_DONE` bits and
`H_TERMINAL`: the same whoever decides, with no hand, no dealt or kept scoring card and no deck
order (kept cards revealed at the end are not added). `env.unwrapped.state(view="all")` (also
`env.state(view="all")` through `env()`'s wrapper) adds `MY_HAND_s`, `MY_DEALT_s`, `MY_KEPT_s` for
every seat s, for a critic given privileged information; still no deck order. Blocks:
`env.unwrapped.global_state_layout(view).table()`; the design: `gamecore.envs.global_state`.

## Version history
* v0: first release.
* v1: observation: the VP entries' maximum is the bound the rules prove, 65 / 70 / 70 at 3 / 4 / 5 players
  (was 127; the int8 entries are unchanged, `obs_encoding="scaled"` now divides VP by that bound);
  every block's shape, order and flags documented (`GAME.observation_views`), the terminal
  observation and what the observation leaves out stated.
"""

from __future__ import annotations

from calimala_env import layout as L
from calimala_env.game import GAME
from gamecore.envs.aec import BaseRawEnv, make_env_factory
from gamecore.envs.global_state import describe
from gamecore.kernel.layout import table_by_count

_EXAMPLES = {
    "KEEP": '"keep scoring card Lisbon"',
    "START": '"take start card Wood"',
    "PLACE": '"place white on street b2-b3"',
    "RESOLVE": '"take action Artwork" / "take action Ship: cannot, draw a card"',
    "CARD": '"play card Wood"',
    "END": '"end activation"',
    "SHIP": '"ship: cloth to Lisbon"',
    "TRANSPORT": '"transport: cloth to Troyes"',
    "STOP": '"stop shipping" / "stop transporting"',
    "BUILD": '"build ship" / "build workshop" / "build trade house in Bruges"',
    "ARTWORK": '"artwork: marble to Santa Croce"',
    "CONTRIB": '"contribute wood to San Miniato"',
    "PROMOTE": '"move own disc from street a1-b1 (2nd from top) to the council"',
}


def _action_table() -> str:
    rows = []
    for b in L.AC.blocks:
        span = str(b.offset) if b.size == 1 else f"{b.offset}..{b.end - 1}"
        rows.append(f"| {span} | {b.meaning.replace('``', '`')} | {_EXAMPLES[b.name]} |")
    return "\n".join(rows)


__doc__ = (
    (__doc__ or "")
    .replace("{NUM_ACTIONS}", str(L.NUM_ACTIONS))
    .replace("{OBS_SHAPES}", ", ".join(f"({L.obs_len(n)},) {n}p" for n in sorted(L.OBS)))
    .replace("{OBS_TABLE}", table_by_count(L.OBS, markdown=True))
    .replace("{ACTION_TABLE}", _action_table())
)

__doc__ = __doc__.replace("{GLOBAL_STATE}", describe(GAME))
__doc__ = __doc__.replace("{LEAVES_OUT}", "\n".join(f"* `{k}`: {v}." for k, v in GAME.obs_leaves_out.items()))


class raw_env(BaseRawEnv):  # noqa: N801  (PettingZoo's name for the unwrapped env)
    game = GAME


env = make_env_factory(raw_env)


env.__doc__ = f"{env.__doc__}\n{__doc__}"
