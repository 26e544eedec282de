"""Calimala rules: the turn (``place_disc``, ``resolve_action``, ``end_activation``,
``promote_fourth_disc``, ``end_turn``) and the game end (``end_game``). Part of
:mod:`calimala_env.rules`; the rules as implemented: ``docs/rules/calimala.md``.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    ACT_I,
    ACT_N,
    ACT_OWNER,
    ACT_TIMES,
    ARTWORK,
    BUILD,
    COL_OUT,
    COLOURED,
    END_TRIGGERED,
    EXEC_CARD,
    EXEC_KIND,
    EXEC_USED,
    MARBLE,
    MAX_STACK,
    NEXT_SEAT,
    NUM_SEATS,
    NUM_SPACES,
    OBLIG,
    PENDING,
    PH_ACTIVATE,
    PH_ARTWORK,
    PH_BUILD,
    PH_CONTRIBUTE,
    PH_PLACE,
    PH_PROMOTE,
    PH_SHIP,
    PH_TRANSPORT,
    PLACED,
    SHIP,
    SPACE,
    STACK,
    STACK_N,
    START,
    TRANSPORT,
    TURNS,
    WEAVE,
    WHITE,
    WHITE_BASE,
    WHITE_OUT,
)
from calimala_env.rules.accessors import discs_left, space_type
from calimala_env.rules.actions import draw_card, gain_resource, play_card, weave
from calimala_env.rules.mat import VLEN, can_do, fill_mat
from calimala_env.rules.scoring import final_scoring, score_tile
from gamecore.kernel.header import H_CURRENT, H_DONE, H_NPLAYERS, H_OWNER, H_PHASE, H_TERMINAL
from gamecore.kernel.jit import ijit, jit
from gamecore.kernel.scratch import stack_empty


# =================================================================================================
# the turn
# =================================================================================================
@jit
def clear_turn(state: np.ndarray) -> None:
    state[SPACE] = 0
    state[ACT_N] = 0
    state[ACT_I] = 0
    for i in range(3):
        state[ACT_OWNER + i] = 0
        state[ACT_TIMES + i] = 0
    state[PENDING] = 0
    state[PENDING + 1] = 0
    state[OBLIG] = 0
    state[EXEC_KIND] = 0
    state[EXEC_CARD] = 0
    state[EXEC_USED] = 0


@ijit
def start_activation(state: np.ndarray, i: int) -> None:
    """Disc i of the activation list acts: each of the street's two actions ACT_TIMES times."""
    state[ACT_I] = i
    state[PENDING] = state[ACT_TIMES + i]
    state[PENDING + 1] = state[ACT_TIMES + i]
    state[OBLIG] = 1 if i == 0 else 0
    state[H_CURRENT] = state[ACT_OWNER + i]
    state[H_PHASE] = PH_ACTIVATE


@jit
def place_disc(state: np.ndarray, s: int, white: int) -> None:
    """Put an own disc on top of street s; the top disc (twice each action if white) and the 2nd
    and 3rd discs from the top, if coloured, will be activated in that order."""
    p = state[H_OWNER]
    h = state[STACK_N + s]
    if white:
        state[WHITE + p] -= 1
        state[STACK + MAX_STACK * s + h] = WHITE_BASE + p
    else:
        state[COLOURED + p] -= 1
        state[STACK + MAX_STACK * s + h] = 1 + p
    state[STACK_N + s] = h + 1
    state[PLACED + p] += 1
    state[SPACE] = s
    state[ACT_OWNER] = p
    state[ACT_TIMES] = 2 if white else 1
    k = 1
    for d in range(1, 3):
        i = h - d
        if i < 0:
            break
        disc = state[STACK + MAX_STACK * s + i]
        if disc < WHITE_BASE:
            state[ACT_OWNER + k] = disc - 1
            state[ACT_TIMES + k] = 1
            k += 1
    state[ACT_N] = k
    start_activation(state, np.int64(0))


@ijit
def do_simple(state: np.ndarray, p: int, t: int) -> bool:
    """Carry out an action without choices (Wood, Brick, Marble, Weave); False for the others."""
    if t <= MARBLE:
        gain_resource(state, p, t)
        return True
    if t == WEAVE:
        weave(state, p)
        return True
    return False


@ijit
def begin_exec(state: np.ndarray, t: int) -> None:
    """An action with choices starts: its own decisions follow (EXEC_CARD says where it comes from)."""
    state[EXEC_KIND] = t
    state[EXEC_USED] = 0
    if t == SHIP:
        state[H_PHASE] = PH_SHIP
    elif t == TRANSPORT:
        state[H_PHASE] = PH_TRANSPORT
    elif t == BUILD:
        state[H_PHASE] = PH_BUILD
    elif t == ARTWORK:
        state[H_PHASE] = PH_ARTWORK
    else:
        state[H_PHASE] = PH_CONTRIBUTE


@jit
def end_exec(state: np.ndarray) -> None:
    state[EXEC_KIND] = 0
    state[EXEC_CARD] = 0
    state[EXEC_USED] = 0
    state[H_PHASE] = PH_ACTIVATE


@ijit
def resolve_action(state: np.ndarray, t: int) -> None:
    """Take one pending street action t: carry it out if it can be carried out at least partly (the
    placing player's duty is then done), else draw its card at once (it may be played now)."""
    p = state[H_CURRENT]
    s = state[SPACE]
    for k in range(2):
        if space_type(state, s, k) == t:
            state[PENDING + k] -= 1
            break
    v = stack_empty(VLEN, np.int64)
    fill_mat(state, p, v)
    if can_do(v, t):
        if state[ACT_I] == 0:
            state[OBLIG] = 0
        if not do_simple(state, p, t):
            state[EXEC_CARD] = 0
            begin_exec(state, t)
    else:
        draw_card(state, p)


@ijit
def play_action_card(state: np.ndarray, t: int) -> None:
    """Play a card of type t: its action is carried out once."""
    p = state[H_CURRENT]
    play_card(state, p, t)
    if not do_simple(state, p, t):
        state[EXEC_CARD] = 1
        begin_exec(state, t)


@ijit
def end_activation(state: np.ndarray) -> bool:
    """Every pending action is resolved: one that could be carried out is skipped (no card), one
    that cannot gives 1 card per time it was pending. Then the next activated disc acts; returns
    True when the turn's activations are over (the fourth disc comes next)."""
    p = state[H_CURRENT]
    s = state[SPACE]
    v = stack_empty(VLEN, np.int64)
    fill_mat(state, p, v)
    draws = 0
    for k in range(2):
        if state[PENDING + k] > 0 and not can_do(v, space_type(state, s, k)):
            draws += state[PENDING + k]
        state[PENDING + k] = 0
    for _ in range(draws):
        draw_card(state, p)
    if state[ACT_I] + 1 < state[ACT_N]:
        start_activation(state, state[ACT_I] + 1)
        return False
    state[OBLIG] = 0
    state[H_CURRENT] = state[H_OWNER]
    return True


@jit
def remove_from_stack(state: np.ndarray, s: int, i: int) -> int:
    """Take the i-th disc (from the bottom) out of street s; the discs above move down."""
    base = STACK + MAX_STACK * s
    h = state[STACK_N + s]
    disc = state[base + i]
    for j in range(i, h - 1):
        state[base + j] = state[base + j + 1]
    state[base + h - 1] = 0
    state[STACK_N + s] = h - 1
    return disc


@jit
def own_disc_elsewhere(state: np.ndarray, p: int, s: int, d: int) -> bool:
    """The disc d-th from the top of street s is a coloured disc of p (and s is not this turn's)."""
    if s == state[SPACE]:
        return False
    h = state[STACK_N + s]
    if d >= h:
        return False
    return state[STACK + MAX_STACK * s + h - 1 - d] == 1 + p


@jit
def promote_option(state: np.ndarray, p: int, s: int, d: int) -> bool:
    """Moving that disc is a choice of its own: it is p's coloured disc on another street and the
    disc right above it is not also p's (taking either of two such discs leaves the same stack)."""
    if not own_disc_elsewhere(state, p, s, d):
        return False
    return d == 0 or not own_disc_elsewhere(state, p, s, d - 1)


@jit
def promote_fourth_disc(state: np.ndarray) -> None:
    """After the activations: a 4-disc stack loses its bottom disc (never activated). It goes to the
    next council seat, whose tile is scored; after the end was triggered it leaves the game
    instead. A white 4th disc: the placing player puts an own coloured disc from reserve on the seat
    and takes the white one; without one in reserve, an own coloured disc from another street (a
    decision, ``promote`` phase: the choice waits in EXEC_USED as 1 + 3 street + depth) goes to the
    seat and the white disc on top of that street; without that either, the seat stays empty and
    the white disc leaves the game (ruling). Then the turn ends."""
    s = state[SPACE]
    if state[STACK_N + s] == MAX_STACK:
        disc = state[STACK + MAX_STACK * s]
        p = state[H_OWNER]
        choice = state[EXEC_USED] - 1 if state[H_PHASE] == PH_PROMOTE else -1
        if choice < 0 and not state[END_TRIGGERED] and disc >= WHITE_BASE and state[COLOURED + p] == 0:
            for s2 in range(NUM_SPACES):
                for d in range(3):
                    if promote_option(state, p, s2, d):
                        state[H_CURRENT] = p
                        state[H_PHASE] = PH_PROMOTE
                        return
        remove_from_stack(state, s, np.int64(0))
        who = -2  # nobody is seated: the end was triggered
        if state[END_TRIGGERED]:
            if disc >= WHITE_BASE:
                state[WHITE_OUT] += 1
            else:
                state[COL_OUT + disc - 1] += 1
        elif disc < WHITE_BASE:
            who = disc - 1
        elif state[COLOURED + p] > 0:
            state[COLOURED + p] -= 1
            state[WHITE + p] += 1
            who = p
        elif choice >= 0:
            s2 = choice // 3
            h = state[STACK_N + s2]
            remove_from_stack(state, s2, h - 1 - choice % 3)
            state[STACK + MAX_STACK * s2 + h - 1] = WHITE_BASE + p
            state[STACK_N + s2] = h
            who = p
        else:
            state[WHITE_OUT] += 1
            who = -1
        if who >= -1:
            score_tile(state, who)
    end_turn(state)


@ijit
def end_game(state: np.ndarray) -> None:
    """Tiles still unscored are scored in order without seats; then the final cards."""
    while state[NEXT_SEAT] < NUM_SEATS:
        score_tile(state, np.int64(-1))
    final_scoring(state)
    n = state[H_NPLAYERS]
    state[H_TERMINAL] = 1
    state[H_DONE] = (1 << n) - 1
    state[H_CURRENT] = 0
    state[H_OWNER] = 0
    state[H_PHASE] = PH_PLACE
    clear_turn(state)


@ijit
def end_turn(state: np.ndarray) -> None:
    """Pass the turn clockwise to the next seat with a disc in reserve. The game ends when nobody
    has a disc left, or, once all tiles are scored, when the round is complete (the start seat
    would be next)."""
    n = state[H_NPLAYERS]
    o = state[H_OWNER]
    state[TURNS] += 1
    clear_turn(state)
    nxt = -1
    for j in range(1, n + 1):
        q = (o + j) % n
        if q == state[START] and state[END_TRIGGERED]:
            break
        if discs_left(state, q) > 0:
            nxt = q
            break
    if nxt < 0:
        end_game(state)
        return
    state[H_OWNER] = nxt
    state[H_CURRENT] = nxt
    state[H_PHASE] = PH_PLACE
