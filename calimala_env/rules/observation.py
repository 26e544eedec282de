"""Calimala rules: the observation (``observe``) and resampling what a seat cannot see
(``resample``). Part of :mod:`calimala_env.rules`; the rules as implemented:
``docs/rules/calimala.md``.
"""

from __future__ import annotations

import numpy as np

from calimala_env.layout import (
    ACT_I,
    ACT_N,
    ACT_OWNER,
    ART,
    ART_SLOTS,
    CITY,
    CLOTH,
    COLOURED,
    CONTRIB,
    COUNCIL,
    COUNCIL_ART,
    DEALT,
    DECK,
    DECK_N,
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
    MAX_STACK,
    MAX_WORKSHOPS,
    NEXT_SEAT,
    NUM_BUILDINGS,
    NUM_CARDS,
    NUM_CELLS,
    NUM_CHURCHES,
    NUM_CITIES,
    NUM_RES,
    NUM_SCORING_CARDS,
    NUM_SEATS,
    NUM_SPACES,
    NUM_START,
    NUM_TILES,
    NUM_TRADE,
    NUM_TYPES,
    O_ACT,
    O_COUNCIL_ART,
    O_CURRENT,
    O_DECK_N,
    O_DISCARD,
    O_END,
    O_EXEC,
    O_EXEC_CARD,
    O_EXEC_USED,
    O_FACE_UP,
    O_LAYOUT,
    O_MY_DEALT,
    O_MY_HAND,
    O_MY_KEPT,
    O_NEXT_SEAT,
    O_OBLIG,
    O_OWNER,
    O_PENDING,
    O_PHASE,
    O_SEAT_OWNER,
    O_SEATS,
    O_SPACE,
    O_STACK_N,
    O_STACKS,
    O_START,
    O_START_LEFT,
    O_TILES,
    OBLIG,
    OBS_DISC,
    OBS_OFF,
    OBS_SEAT,
    OS_ART,
    OS_CITIES,
    OS_CLOTH,
    OS_COLOURED,
    OS_CONTRIB,
    OS_HAND_COUNT,
    OS_HOUSES,
    OS_KNOWN,
    OS_PLACED,
    OS_RESERVE,
    OS_SEATS,
    OS_SHIPS,
    OS_VP,
    OS_WH,
    OS_WHITE,
    OS_WORKSHOPS,
    OUT_CARD,
    PENDING,
    PH_ACTIVATE,
    PH_CONTRIBUTE,
    PH_SHIP,
    PH_TRANSPORT,
    PLACED,
    RESERVE,
    SEAT,
    SEAT_BASE,
    SEAT_EMPTY,
    SEATS,
    SHIPS,
    SPACE,
    STACK,
    STACK_N,
    START,
    START_LEFT,
    TILES,
    VP,
    WH,
    WHITE,
    WHITE_BASE,
    WORKSHOPS,
)
from calimala_env.rules.accessors import P, hand_count, pending_goal, placer_duty, space_type
from calimala_env.rules.mat import VLEN, achievable, fill_mat
from gamecore.kernel.header import H_CURRENT, H_NPLAYERS, H_OWNER, H_PHASE, H_RNG, H_TERMINAL
from gamecore.kernel.jit import jit
from gamecore.kernel.kernels import clip8, rel_seat
from gamecore.kernel.rng import rng_seed, rng_shuffle


# =================================================================================================
# observation
# =================================================================================================
@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    """Seat ``player``'s view, laid out as ``layout.OBS``: seat blocks (the observer first), the
    observer's own hand and scoring cards, then the public board and the turn. Other seats' hands
    appear only as counts and publicly known cards; no kept card, deck order or generator.

    Every entry is written through an unsigned index: numba then leaves out its test for a negative
    index, 4 instructions a store (a bounds-checked build still checks every index)."""
    n = state[H_NPLAYERS]
    off = OBS_OFF[n]
    for i in range(out.shape[0]):
        out[i] = 0
    for q in range(n):
        rel = rel_seat(q, player, n)
        b = off[O_SEATS] + OBS_SEAT * rel
        for r in range(NUM_RES):
            out[np.uint64(b + OS_WH + r)] = state[WH + NUM_RES * q + r]
        for w in range(MAX_WORKSHOPS):
            out[np.uint64(b + OS_CLOTH + w)] = state[CLOTH + MAX_WORKSHOPS * q + w]
        out[np.uint64(b + OS_WORKSHOPS)] = state[WORKSHOPS + q]
        out[np.uint64(b + OS_SHIPS)] = state[SHIPS + q]
        for t in range(NUM_TRADE):
            out[np.uint64(b + OS_HOUSES + t)] = state[HOUSE + P * t + q]
        out[np.uint64(b + OS_RESERVE)] = state[RESERVE + q]
        out[np.uint64(b + OS_COLOURED)] = state[COLOURED + q]
        out[np.uint64(b + OS_WHITE)] = state[WHITE + q]
        out[np.uint64(b + OS_PLACED)] = state[PLACED + q]
        out[np.uint64(b + OS_HAND_COUNT)] = clip8(hand_count(state, q))
        for t in range(NUM_TYPES):
            out[np.uint64(b + OS_KNOWN + t)] = state[KNOWN + NUM_TYPES * q + t]
        out[np.uint64(b + OS_VP)] = clip8(state[VP + q])
        out[np.uint64(b + OS_SEATS)] = state[SEATS + q]
        for c in range(NUM_CITIES):
            out[np.uint64(b + OS_CITIES + c)] = state[CITY + P * c + q]
        for ch in range(NUM_CHURCHES):
            for r in range(NUM_RES):
                out[np.uint64(b + OS_CONTRIB + NUM_RES * ch + r)] = state[CONTRIB + NUM_RES * P * ch + P * r + q]
        for bb in range(NUM_BUILDINGS):
            out[np.uint64(b + OS_ART + bb)] = state[ART + P * bb + q]
    for t in range(NUM_TYPES):
        out[np.uint64(off[O_MY_HAND] + t)] = state[HAND + NUM_TYPES * player + t]
    for j in range(MAX_DEALT):
        c = state[DEALT + MAX_DEALT * player + j]
        if c > 0:
            out[np.uint64(off[O_MY_DEALT] + c - 1)] = 1
    if state[KEPT + player] > 0:
        out[np.uint64(off[O_MY_KEPT] + state[DEALT + MAX_DEALT * player + state[KEPT + player] - 1] - 1)] = 1
    if state[FACE_UP] > 0:
        out[np.uint64(off[O_FACE_UP] + state[FACE_UP] - 1)] = 1
    for c in range(NUM_CELLS):
        out[np.uint64(off[O_LAYOUT] + NUM_TYPES * c + state[LAYOUT + c])] = 1
    for s in range(NUM_SPACES):
        out[np.uint64(off[O_STACK_N] + s)] = state[STACK_N + s]
        for i in range(state[STACK_N + s]):
            d = state[STACK + MAX_STACK * s + i]
            b = off[O_STACKS] + MAX_STACK * OBS_DISC * s + OBS_DISC * i
            out[np.uint64(b)] = 1
            white = d >= WHITE_BASE
            out[np.uint64(b + 1)] = 1 if white else 0
            owner = d - WHITE_BASE if white else d - 1
            out[np.uint64(b + 2 + rel_seat(owner, player, n))] = 1
    for k in range(NUM_SEATS):
        out[np.uint64(off[O_TILES] + NUM_TILES * k + state[TILES + k])] = 1
        sv = state[SEAT + k]
        if sv == SEAT_EMPTY:
            out[np.uint64(off[O_SEAT_OWNER] + (1 + n) * k)] = 1
        elif sv >= SEAT_BASE:
            out[np.uint64(off[O_SEAT_OWNER] + (1 + n) * k + 1 + rel_seat(sv - SEAT_BASE, player, n))] = 1
    out[np.uint64(off[O_NEXT_SEAT] + state[NEXT_SEAT])] = 1
    for i in range(ART_SLOTS[COUNCIL]):
        o = state[COUNCIL_ART + i]
        if o > 0:
            out[np.uint64(off[O_COUNCIL_ART] + n * i + rel_seat(o - 1, player, n))] = 1
    for t in range(NUM_TYPES):
        out[np.uint64(off[O_DISCARD] + t)] = state[DISCARD + t]
    out[np.uint64(off[O_DECK_N])] = state[DECK_N]
    for i in range(NUM_START):
        out[np.uint64(off[O_START_LEFT] + i)] = state[START_LEFT + i]
    out[np.uint64(off[O_START] + rel_seat(state[START], player, n))] = 1
    out[np.uint64(off[O_END])] = state[END_TRIGGERED]
    if state[H_TERMINAL]:
        return
    out[np.uint64(off[O_PHASE] + state[H_PHASE])] = 1
    out[np.uint64(off[O_OWNER] + rel_seat(state[H_OWNER], player, n))] = 1
    out[np.uint64(off[O_CURRENT] + rel_seat(state[H_CURRENT], player, n))] = 1
    if state[ACT_N] > 0:
        s = state[SPACE]
        out[np.uint64(off[O_SPACE] + s)] = 1
        for k in range(2):
            out[np.uint64(off[O_PENDING] + space_type(state, s, k))] = state[PENDING + k]
        for i in range(state[ACT_N]):
            if i == state[ACT_I]:
                out[np.uint64(off[O_ACT] + (1 + n) * i)] = 1
            out[np.uint64(off[O_ACT] + (1 + n) * i + 1 + rel_seat(state[ACT_OWNER + i], player, n))] = 1
        out[np.uint64(off[O_OBLIG])] = state[OBLIG]
        ph = state[H_PHASE]
        if ph >= PH_SHIP and ph <= PH_CONTRIBUTE:
            out[np.uint64(off[O_EXEC] + state[EXEC_KIND])] = 1
            out[np.uint64(off[O_EXEC_CARD])] = state[EXEC_CARD]
            if ph == PH_SHIP:
                for i in range(state[EXEC_USED]):
                    out[np.uint64(off[O_EXEC_USED] + i)] = 1
            elif ph == PH_TRANSPORT:
                for t in range(NUM_TRADE):
                    out[np.uint64(off[O_EXEC_USED] + t)] = (state[EXEC_USED] >> t) & 1


# =================================================================================================
# resampling what a seat cannot see
# =================================================================================================
@jit
def _duty_holder(state: np.ndarray) -> int:
    """The seat whose open duty depends on its hand (the placing player mid-activation), or -1."""
    if state[H_TERMINAL] or not placer_duty(state):
        return -1
    ph = state[H_PHASE]
    if ph == PH_ACTIVATE or (ph >= PH_SHIP and ph <= PH_CONTRIBUTE and state[EXEC_CARD] == 1):
        return state[H_CURRENT]
    return -1


@jit
def _duty_met(state: np.ndarray, p: int) -> bool:
    v = np.empty(VLEN, dtype=np.int64)
    fill_mat(state, p, v)
    return achievable(v, pending_goal(state))


@jit
def resample(state: np.ndarray, player: int, seed: np.int64) -> None:
    """Redeal what ``player`` cannot see, uniformly among the deals that agree with its view: the
    other seats' scoring cards with the card put back unseen (not the kept ones once the game is
    over: they are public then); the deck with the other seats' hand cards that are not publicly
    known (each hand keeps its size and its known cards). If the
    placing player (another seat) still owes an action, its placement says its hand makes one
    possible, so only such deals are taken (rejection sampling; after 200 misses the first such
    hand in a fixed order). The redeal depends only on what ``player`` sees and on the seed. Then
    the generator is reseeded."""
    rng_seed(state, H_RNG, seed)
    n = state[H_NPLAYERS]
    # scoring cards
    # (the kept ones are public once the game is over: they stay)
    over = state[H_TERMINAL] != 0
    pool = np.empty(NUM_SCORING_CARDS, dtype=np.int64)
    m = 0
    for p in range(n):
        if p == player:
            continue
        for j in range(MAX_DEALT):
            if state[DEALT + MAX_DEALT * p + j] > 0 and not (over and j == state[KEPT + p] - 1):
                pool[m] = state[DEALT + MAX_DEALT * p + j]
                m += 1
    if state[OUT_CARD] > 0:
        pool[m] = state[OUT_CARD]
        m += 1
    pool[:m] = np.sort(pool[:m])  # canonical: the state's order is hidden from the seat
    rng_shuffle(state, H_RNG, pool, np.int64(0), m)
    m = 0
    for p in range(n):
        if p == player:
            continue
        for j in range(MAX_DEALT):
            if state[DEALT + MAX_DEALT * p + j] > 0 and not (over and j == state[KEPT + p] - 1):
                state[DEALT + MAX_DEALT * p + j] = pool[m]
                m += 1
    if state[OUT_CARD] > 0:
        state[OUT_CARD] = pool[m]
    # action cards
    cards = np.empty(NUM_CARDS, dtype=np.int64)
    orig = np.empty(P * NUM_TYPES, dtype=np.int64)
    m = 0
    for i in range(state[DECK_N]):
        cards[m] = state[DECK + i]
        m += 1
    for p in range(n):
        for t in range(NUM_TYPES):
            orig[NUM_TYPES * p + t] = state[HAND + NUM_TYPES * p + t]
        if p == player:
            continue
        for t in range(NUM_TYPES):
            for _ in range(state[HAND + NUM_TYPES * p + t] - state[KNOWN + NUM_TYPES * p + t]):
                cards[m] = t
                m += 1
    # the pool's order is the state's, which the seat may not know: sort it so that the redeal
    # depends only on what the seat sees and on the seed
    cards[:m] = np.sort(cards[:m])
    holder = _duty_holder(state)
    # the placing player (another seat) has an open duty: its placement tells the seat that its hand
    # let it carry out one of the street's actions, so only such hands are dealt to it
    constrained = holder >= 0 and holder != player
    for _attempt in range(200):
        rng_shuffle(state, H_RNG, cards, np.int64(0), m)
        _deal(state, player, cards, m, orig)
        if not constrained or _duty_met(state, holder):
            return
    # such hands are rare here: the first one in a fixed order of the holder's possible hands,
    # the rest shuffled (still a function of the seat's view and the seed only)
    if _deal_first_duty_hand(state, player, holder, cards, m, orig):
        return
    rng_shuffle(state, H_RNG, cards, np.int64(0), m)  # no hand can do it: any deal
    _deal(state, player, cards, m, orig)


@jit
def _unknown_count(state: np.ndarray, orig: np.ndarray, p: int) -> int:
    u = 0
    for t in range(NUM_TYPES):
        u += orig[NUM_TYPES * p + t] - state[KNOWN + NUM_TYPES * p + t]
    return u


@jit
def _deal(state: np.ndarray, player: int, cards: np.ndarray, m: int, orig: np.ndarray) -> None:
    """Give every other seat its known cards plus as many cards from the front of ``cards`` as it
    held unknown ones (``orig``: the hands before the redeal); the rest of ``cards`` is the deck."""
    k = 0
    for p in range(state[H_NPLAYERS]):
        if p == player:
            continue
        unknown = _unknown_count(state, orig, p)
        for t in range(NUM_TYPES):
            state[HAND + NUM_TYPES * p + t] = state[KNOWN + NUM_TYPES * p + t]
        for _ in range(unknown):
            state[HAND + NUM_TYPES * p + cards[k]] += 1
            k += 1
    for i in range(state[DECK_N]):
        state[DECK + i] = cards[k + i]


@jit
def _deal_first_duty_hand(state: np.ndarray, player: int, holder: int, cards: np.ndarray, m: int,
                          orig: np.ndarray) -> bool:
    """Deal the duty holder the first of its possible hands (its known cards plus a multiset of the
    pool, in a fixed order) that lets it carry out an action, the rest of the pool shuffled to the
    others and the deck; False (nothing changed that matters) if no hand can."""
    avail = np.zeros(NUM_TYPES, dtype=np.int64)
    for i in range(m):
        avail[cards[i]] += 1
    u = _unknown_count(state, orig, holder)
    take = np.zeros(NUM_TYPES, dtype=np.int64)
    # odometer over the multisets of size u drawn from avail, first type fullest first
    left = u
    for t in range(NUM_TYPES):
        take[t] = min(avail[t], left)
        left -= take[t]
    if left > 0:
        return False
    while True:
        for t in range(NUM_TYPES):
            state[HAND + NUM_TYPES * holder + t] = state[KNOWN + NUM_TYPES * holder + t] + take[t]
        if _duty_met(state, holder):
            rest = np.empty(m, dtype=np.int64)
            r = 0
            spare = avail - take
            for t in range(NUM_TYPES):
                for _ in range(spare[t]):
                    rest[r] = t
                    r += 1
            rng_shuffle(state, H_RNG, rest, np.int64(0), r)
            k = 0
            for p in range(state[H_NPLAYERS]):
                if p == player or p == holder:
                    continue
                for t in range(NUM_TYPES):
                    state[HAND + NUM_TYPES * p + t] = state[KNOWN + NUM_TYPES * p + t]
                for _ in range(_unknown_count(state, orig, p)):
                    state[HAND + NUM_TYPES * p + rest[k]] += 1
                    k += 1
            for i in range(state[DECK_N]):
                state[DECK + i] = rest[k + i]
            return True
        # next multiset: move one card from the last type that can give one to a later type
        moved = False
        carry = 0
        for t in range(NUM_TYPES - 1, -1, -1):
            if take[t] > 0 and t < NUM_TYPES - 1:
                # can these cards (plus what was carried) be placed in the types after t?
                room = 0
                for q in range(t + 1, NUM_TYPES):
                    room += avail[q]
                if room >= carry + 1:
                    take[t] -= 1
                    left = carry + 1
                    for q in range(t + 1, NUM_TYPES):
                        take[q] = min(avail[q], left)
                        left -= take[q]
                    moved = True
                    break
            carry += take[t]
            take[t] = 0
        if not moved:
            return False
