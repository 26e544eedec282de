"""Calimala rules: validation of a state (``check_state``). Part of :mod:`calimala_env.rules`; the
rules as implemented: ``docs/rules/calimala.md``.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    ACT_I,
    ACT_N,
    ACT_OWNER,
    ACT_TIMES,
    ART,
    ART_SLOTS,
    ART_USED,
    ARTWORK,
    BUILD,
    CARD_COUNT,
    CHURCH_SLOTS,
    CITY,
    CITY_SLOTS,
    CITY_USED,
    CLOTH,
    COL_OUT,
    COLOURED,
    CONTRIB,
    CONTRIB_USED,
    CONTRIBUTE,
    COUNCIL,
    COUNCIL_ART,
    CUBES,
    DEAL_EACH,
    DEAL_OUT,
    DEAL_UP,
    DEALT,
    DECK,
    DECK_N,
    DISC_COLOURED,
    DISC_WHITE,
    DISCARD,
    END_TRIGGERED,
    EXEC_CARD,
    EXEC_KIND,
    EXEC_USED,
    FACE_UP,
    HAND,
    HOUSE,
    KEPT,
    KNOWN,
    LAYOUT,
    MAX_DEALT,
    MAX_HOUSES,
    MAX_PLAYERS,
    MAX_SHIPS,
    MAX_STACK,
    MAX_WORKSHOPS,
    NEXT_SEAT,
    NUM_BUILDINGS,
    NUM_CARDS,
    NUM_CELLS,
    NUM_CHURCHES,
    NUM_CITIES,
    NUM_PHASES,
    NUM_RES,
    NUM_SCORING_CARDS,
    NUM_SEATS,
    NUM_SPACES,
    NUM_START,
    NUM_TILES,
    NUM_TRADE,
    NUM_TYPES,
    OBLIG,
    OUT_CARD,
    P_LAYOUT,
    P_PLAYERS,
    P_START,
    PENDING,
    PH_ACTIVATE,
    PH_ARTWORK,
    PH_BUILD,
    PH_KEEP,
    PH_PLACE,
    PH_PROMOTE,
    PH_SHIP,
    PH_START,
    PH_TRANSPORT,
    PLACED,
    RESERVE,
    SEAT,
    SEAT_BASE,
    SEAT_EMPTY,
    SEAT_NONE,
    SEATS,
    SETUP_I,
    SHIP,
    SHIPS,
    SPACE,
    STACK,
    STACK_N,
    START,
    START_LEFT,
    START_TYPES,
    TILES,
    TRANSPORT,
    TURNS,
    VP,
    WAREHOUSE_CAP,
    WH,
    WHITE,
    WHITE_BASE,
    WHITE_OUT,
    WORKSHOP_CAP,
    WORKSHOPS,
)
from calimala_env.rules.accessors import P, cloth_total, discs_left
from calimala_env.rules.mat import V_PFREE, VLEN, can_do, can_transport_to, fill_mat, v_cloth
from calimala_env.rules.turn import promote_option
from gamecore.kernel.header import H_CURRENT, H_DONE, H_OWNER, H_PHASE, H_TERMINAL
from gamecore.kernel.jit import jit
from gamecore.kernel.kernels import check_header


# =================================================================================================
# validation
# =================================================================================================
@jit
def _bad(i: int) -> int:
    return i + 1


@jit
def _check_layout(state: np.ndarray, params: np.ndarray) -> int:
    """The layout: a permutation of the 9 actions (the given one, if given); the seat tiles: distinct."""
    seen = np.zeros(NUM_TYPES, dtype=np.int64)
    for c in range(NUM_CELLS):
        t = state[LAYOUT + c]
        if t < 0 or t >= NUM_TYPES or seen[t]:
            return _bad(LAYOUT + c)
        if params[P_LAYOUT] >= 0 and t != params[P_LAYOUT + c]:
            return _bad(LAYOUT + c)
        seen[t] = 1
    tiles = np.zeros(NUM_TILES, dtype=np.int64)
    for k in range(NUM_SEATS):
        t = state[TILES + k]
        if t < 0 or t >= NUM_TILES or tiles[t]:
            return _bad(TILES + k)
        tiles[t] = 1
    return 0


@jit
def _check_council_seats(state: np.ndarray, n: int, seats: np.ndarray) -> int:
    """The council seats taken so far (the end triggered once all are), each seat's count of them
    (into ``seats``), and the council artworks in order."""
    ns = state[NEXT_SEAT]
    if ns < 0 or ns > NUM_SEATS:
        return _bad(NEXT_SEAT)
    if state[END_TRIGGERED] != (1 if ns == NUM_SEATS else 0):
        return _bad(END_TRIGGERED)
    for k in range(NUM_SEATS):
        sv = state[SEAT + k]
        if k < ns:
            if sv != SEAT_EMPTY and (sv < SEAT_BASE or sv >= SEAT_BASE + n):
                return _bad(SEAT + k)
            if sv >= SEAT_BASE:
                seats[sv - SEAT_BASE] += 1
        elif sv != SEAT_NONE:
            return _bad(SEAT + k)
    for p in range(MAX_PLAYERS):
        if state[SEATS + p] != seats[p]:
            return _bad(SEATS + p)
    gap = False
    for i in range(ART_SLOTS[COUNCIL]):
        o = state[COUNCIL_ART + i]
        if o < 0 or o > n or (gap and o != 0):
            return _bad(COUNCIL_ART + i)
        if o == 0:
            gap = True
    return 0


@jit
def _check_placed_cubes(state: np.ndarray, n: int, p: int) -> int:
    """Seat ``p``'s artworks (the council's as the council artworks say), church contributions,
    city cubes and trading houses in range (none for a seat not playing)."""
    live = p < n
    for b in range(NUM_BUILDINGS):
        x = state[ART + P * b + p]
        if x < 0 or x > ART_SLOTS[b] or (not live and x != 0):
            return _bad(ART + P * b + p)
    council = 0
    for i in range(ART_SLOTS[COUNCIL]):
        if state[COUNCIL_ART + i] == p + 1:
            council += 1
    if state[ART + P * COUNCIL + p] != council:
        return _bad(ART + P * COUNCIL + p)
    for b in range(NUM_CHURCHES):
        for r in range(NUM_RES):
            x = state[CONTRIB + NUM_RES * P * b + P * r + p]
            if x < 0 or x > CHURCH_SLOTS[b, r] or (not live and x != 0):
                return _bad(CONTRIB + NUM_RES * P * b + P * r + p)
    for c in range(NUM_CITIES):
        x = state[CITY + P * c + p]
        if x < 0 or x > CITY_SLOTS or (not live and x != 0):
            return _bad(CITY + P * c + p)
    for t in range(NUM_TRADE):
        x = state[HOUSE + P * t + p]
        if x < 0 or x > 1 or (not live and x != 0):
            return _bad(HOUSE + P * t + p)
    return 0


@jit
def _check_supplies(state: np.ndarray, n: int, p: int) -> int:
    """Seat ``p``'s warehouse, workshops and their cloth, ships, counters and the number of its
    trading houses (all zero for a seat not playing)."""
    live = p < n
    for r in range(NUM_RES):
        x = state[WH + NUM_RES * p + r]
        if x < 0 or x > WAREHOUSE_CAP or (not live and x != 0):
            return _bad(WH + NUM_RES * p + r)
    ws = state[WORKSHOPS + p]
    if ws < (1 if live else 0) or ws > (MAX_WORKSHOPS if live else 0):
        return _bad(WORKSHOPS + p)
    for w in range(MAX_WORKSHOPS):
        x = state[CLOTH + MAX_WORKSHOPS * p + w]
        if x < 0 or x > (WORKSHOP_CAP if w < ws else 0):
            return _bad(CLOTH + MAX_WORKSHOPS * p + w)
    x = state[SHIPS + p]
    if x < 0 or x > (MAX_SHIPS if live else 0):
        return _bad(SHIPS + p)
    for slot in (RESERVE, COLOURED, WHITE, PLACED, COL_OUT, VP):
        x = state[slot + p]
        if x < 0 or x > (1000 if live else 0):
            return _bad(slot + p)
    houses = 0
    for t in range(NUM_TRADE):
        houses += state[HOUSE + P * t + p]
    if houses > MAX_HOUSES:
        return _bad(HOUSE + p)
    return 0


@jit
def _check_pieces(state: np.ndarray, n: int) -> int:
    """Every seat's pieces in range, seat by seat; then the city, church and artwork totals."""
    for p in range(MAX_PLAYERS):
        bad = _check_placed_cubes(state, n, p) or _check_supplies(state, n, p)
        if bad:
            return bad
    for c in range(NUM_CITIES):
        t = 0
        for q in range(n):
            t += state[CITY + P * c + q]
        if state[CITY_USED + c] != t or t > CITY_SLOTS:
            return _bad(CITY_USED + c)
    for b in range(NUM_CHURCHES):
        for r in range(NUM_RES):
            t = 0
            for q in range(n):
                t += state[CONTRIB + NUM_RES * P * b + P * r + q]
            if state[CONTRIB_USED + NUM_RES * b + r] != t or t > CHURCH_SLOTS[b, r]:
                return _bad(CONTRIB_USED + NUM_RES * b + r)
    for b in range(NUM_BUILDINGS):
        t = 0
        for q in range(n):
            t += state[ART + P * b + q]
        if state[ART_USED + b] != t or t > ART_SLOTS[b]:
            return _bad(ART_USED + b)
    return 0


@jit
def _check_stacks(state: np.ndarray, n: int, on: np.ndarray) -> int:
    """The disc stacks: heights in range, discs of the seats playing below each height (counted into
    ``on``: seat ``p``'s coloured discs ``on[p]``, the white discs ``on[MAX_PLAYERS]``), and a full
    stack only at the space of a turn in progress."""
    for s in range(NUM_SPACES):
        h = state[STACK_N + s]
        if h < 0 or h > MAX_STACK:
            return _bad(STACK_N + s)
        for i in range(MAX_STACK):
            d = state[STACK + MAX_STACK * s + i]
            if i >= h:
                if d != 0:
                    return _bad(STACK + MAX_STACK * s + i)
                continue
            if d >= 1 and d <= n:
                on[d - 1] += 1
            elif d >= WHITE_BASE and d < WHITE_BASE + n:
                on[MAX_PLAYERS] += 1
            else:
                return _bad(STACK + MAX_STACK * s + i)
    for s in range(NUM_SPACES):
        if state[STACK_N + s] == MAX_STACK:
            ph = state[H_PHASE]
            if state[H_TERMINAL] or ph < PH_ACTIVATE or ph > PH_PROMOTE or s != state[SPACE]:
                return _bad(STACK_N + s)
    return 0


@jit
def _check_cubes_and_discs(state: np.ndarray, n: int, seats: np.ndarray, on: np.ndarray) -> int:
    """Every seat's cubes all accounted for, and its discs (``seats``: council seats taken, ``on``:
    discs on the stacks, as :func:`_check_stacks` counts them); the white discs likewise."""
    white_total = state[WHITE_OUT] + on[MAX_PLAYERS]
    if state[WHITE_OUT] < 0:
        return _bad(WHITE_OUT)
    for p in range(n):
        used = state[RESERVE + p]
        for r in range(NUM_RES):
            used += state[WH + NUM_RES * p + r]
        used += cloth_total(state, p)
        for c in range(NUM_CITIES):
            used += state[CITY + P * c + p]
        for b in range(NUM_CHURCHES):
            for r in range(NUM_RES):
                used += state[CONTRIB + NUM_RES * P * b + P * r + p]
        for b in range(NUM_BUILDINGS):
            used += state[ART + P * b + p]
        if used != CUBES:
            return _bad(RESERVE + p)
        if state[COLOURED + p] + on[p] + seats[p] + state[COL_OUT + p] != DISC_COLOURED[n]:
            return _bad(COLOURED + p)
        white_total += state[WHITE + p]
    if white_total != n * DISC_WHITE[n]:
        return _bad(WHITE_OUT)
    return 0


@jit
def _in_setup(state: np.ndarray) -> bool:
    """The game is in its setup (keeping scoring cards, taking start cards)."""
    ph = state[H_PHASE]
    return state[H_TERMINAL] == 0 and (ph == PH_KEEP or ph == PH_START)


@jit
def _check_action_cards(state: np.ndarray, n: int) -> int:
    """The action cards: the hands, the deck, the discard and the start cards on the table (only
    during the setup) make the 45."""
    cnt = np.zeros(NUM_TYPES, dtype=np.int64)
    dn = state[DECK_N]
    if dn < 0 or dn > NUM_CARDS:
        return _bad(DECK_N)
    for i in range(NUM_CARDS):
        t = state[DECK + i]
        if i >= dn:
            if t != 0:
                return _bad(DECK + i)
            continue
        if t < 0 or t >= NUM_TYPES:
            return _bad(DECK + i)
        cnt[t] += 1
    for t in range(NUM_TYPES):
        x = state[DISCARD + t]
        if x < 0 or x > NUM_CARDS:
            return _bad(DISCARD + t)
        cnt[t] += x
    for p in range(MAX_PLAYERS):
        for t in range(NUM_TYPES):
            h = state[HAND + NUM_TYPES * p + t]
            k = state[KNOWN + NUM_TYPES * p + t]
            if h < 0 or h > NUM_CARDS or (p >= n and h != 0):
                return _bad(HAND + NUM_TYPES * p + t)
            if k < 0 or k > h:
                return _bad(KNOWN + NUM_TYPES * p + t)
            cnt[t] += h
    setup = _in_setup(state)
    for i in range(NUM_START):
        x = state[START_LEFT + i]
        if x < 0 or x > 1 or (x == 1 and not setup):
            return _bad(START_LEFT + i)
        cnt[START_TYPES[i]] += x
    for t in range(NUM_TYPES):
        if cnt[t] != CARD_COUNT[t]:
            return _bad(DISCARD + t)
    return 0


@jit
def _check_scoring_cards(state: np.ndarray, n: int) -> int:
    """The 10 scoring cards: each once among those dealt, the face-up one and the one out."""
    sc = np.zeros(NUM_SCORING_CARDS, dtype=np.int64)
    for p in range(MAX_PLAYERS):
        for j in range(MAX_DEALT):
            c = state[DEALT + MAX_DEALT * p + j]
            want = p < n and j < DEAL_EACH[n]
            if (want and (c < 1 or c > NUM_SCORING_CARDS)) or (not want and c != 0):
                return _bad(DEALT + MAX_DEALT * p + j)
            if want:
                sc[c - 1] += 1
        kp = state[KEPT + p]
        if kp < 0 or kp > (DEAL_EACH[n] if p < n else 0):
            return _bad(KEPT + p)
    for slot, want in ((FACE_UP, DEAL_UP[n]), (OUT_CARD, DEAL_OUT[n])):
        c = state[slot]
        if (want and (c < 1 or c > NUM_SCORING_CARDS)) or (not want and c != 0):
            return _bad(slot)
        if want:
            sc[c - 1] += 1
    for c in range(NUM_SCORING_CARDS):
        if sc[c] != 1:
            return _bad(DEALT)
    return 0


@jit
def _check_setup(state: np.ndarray, n: int) -> int:
    """The setup's progress, and the seats that have kept their scoring cards by now."""
    si = state[SETUP_I]
    if si < 0 or si >= n or (si != 0 and not _in_setup(state)):
        return _bad(SETUP_I)
    keeping = state[H_TERMINAL] == 0 and state[H_PHASE] == PH_KEEP
    for p in range(n):
        chosen_by_now = not keeping or (p - state[START] + n) % n < si
        if (state[KEPT + p] > 0) != chosen_by_now:
            return _bad(KEPT + p)
    return 0


@jit
def _check_turn_count(state: np.ndarray, n: int) -> int:
    """A turn is one placement (the turn in progress has made its own): the counters stay bounded
    ahead, since a seat places each disc it holds, and a white one again only when it comes back
    with a scored council seat."""
    placed = 0
    for p in range(n):
        placed += state[PLACED + p]
        if state[PLACED + p] + state[COLOURED + p] + state[WHITE + p] > \
                DISC_COLOURED[n] + DISC_WHITE[n] + state[NEXT_SEAT]:
            return _bad(PLACED + p)
    ph = state[H_PHASE]
    in_turn = state[H_TERMINAL] == 0 and ph >= PH_ACTIVATE and ph <= PH_PROMOTE
    if state[TURNS] != placed - (1 if in_turn else 0):
        return _bad(TURNS)
    return 0


@jit
def check_state(state: np.ndarray, params: np.ndarray) -> int:
    """0 if the state is a position of these params that play can continue from, else the index of
    the first bad slot + 1: every slot in range (everything used as an index first), the pieces
    accounted for (cubes, discs, ships, houses, workshops, all 45 action cards and the 10 scoring
    cards) and the turn context consistent with the phase."""
    n = params[P_PLAYERS]
    bad = check_header(state, n, NUM_PHASES)
    if bad:
        return bad
    if state[H_TERMINAL] == 0 and state[H_DONE] != 0:
        return _bad(H_DONE)
    if state[START] != params[P_START]:
        return _bad(START)
    seats = np.zeros(MAX_PLAYERS, dtype=np.int64)  # council seats taken by each seat
    on = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)  # discs on the stacks: each seat's coloured, then white
    return (_check_layout(state, params) or _check_council_seats(state, n, seats) or _check_pieces(state, n)
            or _check_stacks(state, n, on) or _check_cubes_and_discs(state, n, seats, on)
            or _check_action_cards(state, n) or _check_scoring_cards(state, n) or _check_setup(state, n)
            or _check_turn_count(state, n) or _check_turn(state, n))


@jit
def _check_turn_decider(state: np.ndarray, n: int) -> int:
    """Who decides in the setup (the seats in setup order) and in a placement (the turn's owner,
    with a disc left)."""
    ph = state[H_PHASE]
    running = state[H_TERMINAL] == 0
    if running and ph == PH_KEEP:
        if state[H_CURRENT] != (state[START] + state[SETUP_I]) % n:
            return _bad(H_CURRENT)
    if running and ph == PH_START:
        if state[H_CURRENT] != (state[START] + 2 * n - 1 - state[SETUP_I]) % n:
            return _bad(H_CURRENT)
    if running and (ph == PH_KEEP or ph == PH_START or ph == PH_PLACE or ph == PH_PROMOTE):
        if state[H_OWNER] != state[H_CURRENT]:
            return _bad(H_OWNER)
    if running and ph == PH_PLACE and discs_left(state, state[H_OWNER]) == 0:
        return _bad(H_OWNER)
    return 0


@jit
def _check_idle_turn(state: np.ndarray) -> int:
    """Outside a turn's actions, every slot of the turn context holds 0."""
    for slot in (SPACE, ACT_N, ACT_I, OBLIG, EXEC_KIND, EXEC_CARD, EXEC_USED, PENDING, PENDING + 1):
        if state[slot] != 0:
            return _bad(slot)
    for i in range(3):
        if state[ACT_OWNER + i] != 0 or state[ACT_TIMES + i] != 0:
            return _bad(ACT_OWNER + i)
    return 0


@jit
def _check_activation(state: np.ndarray, n: int) -> int:
    """The space activated (a stack on it) and the actions it gives: how many, the one pending, and
    each one's owner and times, the first the turn owner's."""
    s = state[SPACE]
    if s < 0 or s >= NUM_SPACES or state[STACK_N + s] < 1:
        return _bad(SPACE)
    an = state[ACT_N]
    if an < 1 or an > 3:
        return _bad(ACT_N)
    ai = state[ACT_I]
    if ai < 0 or ai >= an:
        return _bad(ACT_I)
    for i in range(3):
        o = state[ACT_OWNER + i]
        tm = state[ACT_TIMES + i]
        if i < an:
            if o < 0 or o >= n or tm < 1 or tm > (2 if i == 0 else 1):
                return _bad(ACT_OWNER + i)
        elif o != 0 or tm != 0:
            return _bad(ACT_OWNER + i)
    if state[ACT_OWNER] != state[H_OWNER]:
        return _bad(ACT_OWNER)
    return 0


@jit
def _check_promote(state: np.ndarray) -> int:
    """A promotion: a full stack with a white disc at the bottom, the end not triggered, the owner
    out of coloured discs and with a promotion to choose; no action context."""
    s = state[SPACE]
    if state[STACK_N + s] != MAX_STACK or state[STACK + MAX_STACK * s] < WHITE_BASE or state[END_TRIGGERED] \
            or state[COLOURED + state[H_OWNER]] != 0:
        return _bad(H_PHASE)
    for slot in (OBLIG, EXEC_KIND, EXEC_CARD, EXEC_USED, PENDING, PENDING + 1):
        if state[slot] != 0:
            return _bad(slot)
    any_opt = False
    for s2 in range(NUM_SPACES):
        for d in range(3):
            if promote_option(state, state[H_OWNER], s2, d):
                any_opt = True
    if not any_opt:
        return _bad(H_PHASE)
    return 0


@jit
def _check_action(state: np.ndarray) -> int:
    """The action pending: its owner decides, the amounts pending and the obligation flag in range;
    no execution context while it is being activated."""
    ai = state[ACT_I]
    if state[H_CURRENT] != state[ACT_OWNER + ai]:
        return _bad(H_CURRENT)
    for k in range(2):
        x = state[PENDING + k]
        if x < 0 or x > state[ACT_TIMES + ai]:
            return _bad(PENDING + k)
    ob = state[OBLIG]
    if ob < 0 or ob > 1 or (ai > 0 and ob != 0):
        return _bad(OBLIG)
    if state[H_PHASE] == PH_ACTIVATE:
        for slot in (EXEC_KIND, EXEC_CARD, EXEC_USED):
            if state[slot] != 0:
                return _bad(slot)
    return 0


@jit
def _check_execution(state: np.ndarray) -> int:
    """An action being executed: the kind the phase executes, the card flag, and its progress
    (``EXEC_USED``), with something left to do."""
    ph = state[H_PHASE]
    kind = state[EXEC_KIND]
    want = SHIP if ph == PH_SHIP else (TRANSPORT if ph == PH_TRANSPORT else (
        BUILD if ph == PH_BUILD else (ARTWORK if ph == PH_ARTWORK else CONTRIBUTE)))
    if kind != want:
        return _bad(EXEC_KIND)
    if state[EXEC_CARD] < 0 or state[EXEC_CARD] > 1 or (state[EXEC_CARD] == 0 and state[OBLIG] != 0
                                                         and state[ACT_I] == 0):
        return _bad(EXEC_CARD)
    used = state[EXEC_USED]
    p = state[H_CURRENT]
    v = np.empty(VLEN, dtype=np.int64)
    fill_mat(state, p, v)
    if ph == PH_SHIP:
        if used < 0 or used >= state[SHIPS + p] or v_cloth(v) == 0 or v[V_PFREE] == 0:
            return _bad(EXEC_USED)
    elif ph == PH_TRANSPORT:
        if used < 0 or used >= (1 << NUM_TRADE):
            return _bad(EXEC_USED)
        left = False
        for t in range(NUM_TRADE):
            if not (used >> t) & 1 and can_transport_to(v, t):
                left = True
        if not left:
            return _bad(EXEC_USED)
    else:
        if used != 0:
            return _bad(EXEC_USED)
        if not can_do(v, kind):
            return _bad(EXEC_KIND)
    return 0


@jit
def _check_turn(state: np.ndarray, n: int) -> int:
    """The turn context agrees with the phase."""
    bad = _check_turn_decider(state, n)
    if bad:
        return bad
    ph = state[H_PHASE]
    if not (state[H_TERMINAL] == 0 and ph >= PH_ACTIVATE and ph <= PH_PROMOTE):
        return _check_idle_turn(state)
    bad = _check_activation(state, n)
    if bad:
        return bad
    if ph == PH_PROMOTE:
        return _check_promote(state)
    return _check_action(state) or (0 if ph == PH_ACTIVATE else _check_execution(state))
