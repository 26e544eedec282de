"""Calçada rules as numba kernels on the state array (layout and action encoding in
:mod:`calcada_env.layout`).

A turn is several decisions of the same seat::

    PHASE 0   bonus moves (any number)  ->  declare (or, if nothing can be declared, move only)
    PHASE 1   display swaps (any number) ->  place a tile of the declared colour (turn ends)

Every rule of ``docs/rules/calcada.md`` has a function here named after it: ``declared_number``,
``square_ok``, ``declare_ok``, ``refill_display``, ``swap_display``, ``place_tile``,
``score_district``, ``leave_scoreboard``, ``end_turn``, ``motif_group_points``,
``final_scoring``.
"""

from __future__ import annotations

import sys

import numpy as np

from calcada_env.layout import (
    A_BONUS_MOVE,
    A_DECLARE,
    A_MOVE_ONLY,
    A_PLACE,
    A_SWAP,
    ANY_SQUARE_NUMBER,
    BOARD,
    BOARD_W,
    BONUS,
    BONUS_FOR_SYMBOL,
    CAR,
    CAROUSEL_STONES_PER_COLOUR,
    DECL_COL,
    DECL_NUM,
    DISPLAY,
    DISPLAY_SIZE,
    DISTRICT_SIZE,
    DISTRICT_SQUARES,
    END_AFTER_RETIRED,
    END_TRIGGERED,
    GROUP_POINTS,
    KIND_BONUS,
    KIND_COPIES,
    LEAVE_BONUS_POINTS,
    MAX_GROUP,
    MAX_KNOWN,
    MAX_PLAYERS,
    NUM_COLOURS,
    NUM_DISTRICTS,
    NUM_KINDS,
    NUM_MOTIFS,
    NUM_ROWS,
    NUM_SPACES,
    NUM_SQUARES,
    O_BOARDS,
    O_BONUS_TILES,
    O_CAROUSEL,
    O_CURRENT,
    O_DECL_COL,
    O_DECL_NUM,
    O_DISPLAYS,
    O_DISTRICTS,
    O_END,
    O_KNOWN_KINDS,
    O_KNOWN_ORDER,
    O_MULTIPLIERS,
    O_NUMBERS,
    O_PHASE,
    O_POINTS,
    O_ROUND_PLACED,
    O_SB_ROWS,
    O_STACK_SIZES,
    O_START,
    O_TURNS,
    OBS_OFF,
    OBS_SEAT,
    OBS_SQUARE,
    P_PLAYERS,
    P_SIDE,
    P_START,
    PHASE,
    PHASE_DECLARE,
    PHASE_PLACE,
    POINTS,
    ROUND_PLACED,
    SB_ROW,
    SCORE_ROWS,
    SIDE,
    SQ_DISTRICT,
    SQ_DISTRICT_MASK,
    SQ_NUMBER,
    SQ_NUMBER_MASK,
    STACK,
    STACK_KNOWN,
    STACK_N,
    START,
    STARTING_BONUS,
    STATE_LEN,
    TILES_PER_COLOUR,
    TURNS,
)
from gamecore.kernel.bits import lowest_bit, popcount, store_u64
from gamecore.kernel.header import H_CURRENT, H_DONE, H_NPLAYERS, H_OWNER, H_RNG, H_TERMINAL
from gamecore.kernel.jit import jit
from gamecore.kernel.kernels import check_header, clip8, count_decision, plain_apply_legal, rel_seat
from gamecore.kernel.rng import rng_below, rng_seed, rng_shuffle
from gamecore.kernel.scratch import stack_empty

STATE_LEN = STATE_LEN  # re-exported: part of the kernel interface
#: ``apply_legal`` is ``apply`` then ``legal_mask`` here (see ``gamecore.kernel.protocol``)
APPLY_LEGAL_FUSED = False
apply_legal = plain_apply_legal(sys.modules[__name__])


# ---- small helpers -----------------------------------------------------------------------------
@jit
def tile_colour(v: int) -> int:
    """Colour of a non-empty board value."""
    return (v - 1) // NUM_KINDS


@jit
def tile_kind(v: int) -> int:
    """Kind (0..4 motif, 5 bonus symbol) of a non-empty board value."""
    return (v - 1) % NUM_KINDS


@jit
def retired(state: np.ndarray, colour: int) -> bool:
    """The colour's scoreboard cobblestone has left the scoreboard."""
    return state[SB_ROW + colour] >= NUM_ROWS[state[H_NPLAYERS]]


@jit
def multiplier(state: np.ndarray, colour: int) -> int:
    """Current scoreboard multiplier of the colour (0 once retired)."""
    if retired(state, colour):
        return 0
    return SCORE_ROWS[state[H_NPLAYERS], state[SB_ROW + colour]]


@jit
def display_count(state: np.ndarray, colour: int) -> int:
    k = 0
    for slot in range(DISPLAY_SIZE):
        if state[DISPLAY + DISPLAY_SIZE * colour + slot] != 0:
            k += 1
    return k


@jit
def stones_on_space(state: np.ndarray, space: int) -> int:
    total = 0
    for c in range(NUM_COLOURS):
        total += state[CAR + NUM_COLOURS * space + c]
    return total


@jit
def move_clockwise(state: np.ndarray, space: int, colour: int) -> None:
    """Move one cobblestone of ``colour`` from ``space`` to the next space clockwise."""
    state[CAR + NUM_COLOURS * space + colour] -= 1
    state[CAR + NUM_COLOURS * ((space + 1) % NUM_SPACES) + colour] += 1


# ---- the rules ----------------------------------------------------------------------------------
@jit
def declared_number(state: np.ndarray, space: int) -> int:
    """The number declared with a cobblestone on ``space``: the cobblestones on it *before* moving."""
    return stones_on_space(state, space)


@jit
def square_ok(state: np.ndarray, seat: int, sq: int, colour: int, number: int) -> bool:
    """A tile of ``colour`` may go on ``sq`` for declared ``number``: the square is empty, shows the
    number (any square when the number is 6 or more), and every tile already in its district has
    that colour."""
    base = BOARD + NUM_SQUARES * seat
    if state[base + sq] != 0:
        return False
    side = state[SIDE]
    if number < ANY_SQUARE_NUMBER and SQ_NUMBER[side, sq] != number:
        return False
    d = SQ_DISTRICT[side, sq]
    for k in range(DISTRICT_SIZE[side, d]):
        v = state[base + DISTRICT_SQUARES[side, d, k]]
        if v != 0 and tile_colour(v) != colour:
            return False
    return True


# board value v (0 empty, 1 + NUM_KINDS * colour + kind) -> its colour, NUM_COLOURS for an empty square
_VALUE_COLOUR = np.array([NUM_COLOURS] + [(v - 1) // NUM_KINDS for v in range(1, NUM_COLOURS * NUM_KINDS + 1)],
                         dtype=np.int64)
_VALUE_COLOUR.setflags(write=False)
_ALL_SQUARES = (1 << NUM_SQUARES) - 1
_COLOUR_SLOTS = NUM_COLOURS + 1


@jit
def open_squares(state: np.ndarray, seat: int, out: np.ndarray) -> None:
    """out[c]: bitmask of the seat's squares a tile of colour c may go on, whatever the number
    (empty, and every tile already in its district has colour c). One pass over the squares, no
    branch: ``held[c]`` collects the districts holding a tile of colour c (an empty square adds its
    district to the unused slot NUM_COLOURS); ``square_ok`` is the same rule for one square."""
    side = state[SIDE]
    base = BOARD + NUM_SQUARES * seat
    held = stack_empty(_COLOUR_SLOTS, np.int64)
    for c in range(_COLOUR_SLOTS):
        held[c] = 0
    empty = _ALL_SQUARES
    for sq in range(NUM_SQUARES):
        v = state[base + sq]
        held[_VALUE_COLOUR[v]] |= SQ_DISTRICT_MASK[side, sq]
        empty &= ~(min(v, 1) << sq)
    tiled = 0
    for c in range(NUM_COLOURS):
        tiled |= held[c]
    for c in range(NUM_COLOURS):
        out[c] = empty & (held[c] | ~tiled)


@jit
def number_squares(side: int, number: int) -> int:
    """Bitmask of the squares printed with ``number`` (every square for 6 or more)."""
    if number >= ANY_SQUARE_NUMBER:
        return (1 << NUM_SQUARES) - 1
    return SQ_NUMBER_MASK[side, number]


@jit
def any_square_ok(state: np.ndarray, seat: int, colour: int, number: int) -> bool:
    for sq in range(NUM_SQUARES):
        if square_ok(state, seat, sq, colour, number):
            return True
    return False


@jit
def declare_ok(state: np.ndarray, seat: int, space: int, colour: int) -> bool:
    """Ruling: a cobblestone may be declared when it is on ``space``, its colour is still on the
    scoreboard, its colour's display is not empty, and some square is legal for it."""
    if state[CAR + NUM_COLOURS * space + colour] == 0:
        return False
    if retired(state, colour) or display_count(state, colour) == 0:
        return False
    return any_square_ok(state, seat, colour, declared_number(state, space))


@jit
def swap_ok(state: np.ndarray, seat: int, colour: int) -> bool:
    """A display swap costs a bonus tile. Rulings: only for a colour still on the scoreboard and
    with a non-empty stack (otherwise the same tiles would come back)."""
    return state[BONUS + seat] > 0 and not retired(state, colour) and state[STACK_N + colour] > 0


@jit
def draw_tile(state: np.ndarray, colour: int) -> int:
    """Take the top tile of the colour's stack (the stack must not be empty); returns its kind."""
    n = state[STACK_N + colour] - 1
    kind = state[STACK + TILES_PER_COLOUR * colour + n]
    state[STACK + TILES_PER_COLOUR * colour + n] = 0
    state[STACK_N + colour] = n
    if state[STACK_KNOWN + colour] > n:
        state[STACK_KNOWN + colour] = n
    return kind


@jit
def refill_display(state: np.ndarray, colour: int) -> None:
    """Reveal up to 3 tiles from the stack into the empty display slots (fewer if the stack runs
    low). Called only when the display has just been emptied (or at setup / after a swap)."""
    for slot in range(DISPLAY_SIZE):
        if state[STACK_N + colour] == 0:
            return
        if state[DISPLAY + DISPLAY_SIZE * colour + slot] == 0:
            state[DISPLAY + DISPLAY_SIZE * colour + slot] = 1 + draw_tile(state, colour)


@jit
def swap_display(state: np.ndarray, colour: int) -> None:
    """Put the display's tiles (slot order) under the stack, then reveal 3 from the top. Everybody
    saw them go under, so the known bottom of the stack grows by as many tiles."""
    base = STACK + TILES_PER_COLOUR * colour
    m = display_count(state, colour)
    n = state[STACK_N + colour]
    for i in range(n - 1, -1, -1):
        state[base + i + m] = state[base + i]
    k = 0
    for slot in range(DISPLAY_SIZE):
        v = state[DISPLAY + DISPLAY_SIZE * colour + slot]
        if v != 0:
            state[base + k] = v - 1
            k += 1
            state[DISPLAY + DISPLAY_SIZE * colour + slot] = 0
    state[STACK_N + colour] = n + m
    state[STACK_KNOWN + colour] += m
    refill_display(state, colour)


@jit
def district_complete(state: np.ndarray, seat: int, d: int) -> bool:
    side = state[SIDE]
    for k in range(DISTRICT_SIZE[side, d]):
        if state[BOARD + NUM_SQUARES * seat + DISTRICT_SQUARES[side, d, k]] == 0:
            return False
    return True


@jit
def leave_scoreboard(state: np.ndarray, seat: int, colour: int) -> None:
    """The colour's cobblestone was on the bottom row: it leaves, the seat gains 2 points, and the
    colour is retired. The second colour to leave triggers the game end."""
    state[SB_ROW + colour] = NUM_ROWS[state[H_NPLAYERS]]
    state[POINTS + seat] += LEAVE_BONUS_POINTS
    gone = 0
    for c in range(NUM_COLOURS):
        if retired(state, c):
            gone += 1
    if gone >= END_AFTER_RETIRED:
        state[END_TRIGGERED] = 1


@jit
def score_district(state: np.ndarray, seat: int, d: int, colour: int) -> None:
    """A completed district scores tiles x the colour's multiplier; then the colour's scoreboard
    cobblestone moves one row down, leaving the scoreboard if it was on the bottom row."""
    state[POINTS + seat] += DISTRICT_SIZE[state[SIDE], d] * multiplier(state, colour)
    if state[SB_ROW + colour] == NUM_ROWS[state[H_NPLAYERS]] - 1:
        leave_scoreboard(state, seat, colour)
    else:
        state[SB_ROW + colour] += 1


@jit
def place_tile(state: np.ndarray, seat: int, slot: int, sq: int) -> None:
    """Take the tile in display ``slot`` of the declared colour, refill that display only if it is
    now empty, put the tile on ``sq``; a bonus symbol gives 2 bonus tiles; a completed district
    scores."""
    colour = state[DECL_COL]
    kind = state[DISPLAY + DISPLAY_SIZE * colour + slot] - 1
    state[DISPLAY + DISPLAY_SIZE * colour + slot] = 0
    if display_count(state, colour) == 0:
        refill_display(state, colour)
    state[BOARD + NUM_SQUARES * seat + sq] = 1 + colour * NUM_KINDS + kind
    if kind == KIND_BONUS:
        state[BONUS + seat] += BONUS_FOR_SYMBOL
    d = SQ_DISTRICT[state[SIDE], sq]
    if district_complete(state, seat, d):
        score_district(state, seat, d, colour)


@jit
def end_game(state: np.ndarray) -> None:
    n = state[H_NPLAYERS]
    state[H_TERMINAL] = 1
    state[H_DONE] = (1 << n) - 1
    state[H_CURRENT] = 0
    state[H_OWNER] = 0
    state[PHASE] = PHASE_DECLARE
    state[DECL_NUM] = 0
    state[DECL_COL] = 0


@jit
def end_turn(state: np.ndarray, placed: bool) -> None:
    """Pass the turn on. At the end of a round (the next seat is the start seat) the game ends if
    the end was triggered, or if nobody placed a tile during the whole round (ruling)."""
    n = state[H_NPLAYERS]
    if placed:
        state[ROUND_PLACED] = 1
    state[PHASE] = PHASE_DECLARE
    state[DECL_NUM] = 0
    state[DECL_COL] = 0
    state[TURNS] += 1
    nxt = (state[H_CURRENT] + 1) % n
    if nxt == state[START]:
        if state[END_TRIGGERED] == 1 or state[ROUND_PLACED] == 0:
            end_game(state)
            return
        state[ROUND_PLACED] = 0
    state[H_CURRENT] = nxt
    state[H_OWNER] = nxt


# ---- final scoring ------------------------------------------------------------------------------
@jit
def motif_group_points(size: int) -> int:
    """Points of a connected group of one motif: 2->1, 3->3, 4->5, 5->8, 6->11, 7->14, 8+->18."""
    if size > MAX_GROUP:
        size = MAX_GROUP
    return GROUP_POINTS[size]


@jit
def motif_points(state: np.ndarray, seat: int) -> int:
    """Sum over orthogonally connected groups of the same motif (any colour, any district)."""
    base = BOARD + NUM_SQUARES * seat
    seen = np.zeros(NUM_SQUARES, dtype=np.int8)
    queue = np.empty(NUM_SQUARES, dtype=np.int64)
    total = 0
    for start in range(NUM_SQUARES):
        v = state[base + start]
        if v == 0 or seen[start] or tile_kind(v) >= NUM_MOTIFS:
            continue
        motif = tile_kind(v)
        seen[start] = 1
        queue[0] = start
        head = 0
        tail = 1
        while head < tail:
            sq = queue[head]
            head += 1
            r = sq // BOARD_W
            c = sq % BOARD_W
            for k in range(4):
                rr = r + (-1 if k == 0 else (1 if k == 1 else 0))
                cc = c + (-1 if k == 2 else (1 if k == 3 else 0))
                if rr < 0 or rr >= BOARD_W or cc < 0 or cc >= BOARD_W:
                    continue
                q = rr * BOARD_W + cc
                w = state[base + q]
                if w != 0 and not seen[q] and tile_kind(w) == motif:
                    seen[q] = 1
                    queue[tail] = q
                    tail += 1
        total += motif_group_points(tail)
    return total


@jit
def incomplete_district_tiles(state: np.ndarray, seat: int) -> int:
    """Tiles in districts that are not full (a retired colour's district can never be completed,
    so it counts here)."""
    side = state[SIDE]
    total = 0
    for d in range(NUM_DISTRICTS[side]):
        if district_complete(state, seat, d):
            continue
        for q in range(NUM_SQUARES):
            if SQ_DISTRICT[side, q] == d and state[BOARD + NUM_SQUARES * seat + q] != 0:
                total += 1
    return total


@jit
def final_scoring(state: np.ndarray, seat: int) -> int:
    """Motif groups + 1 per tile in incomplete districts + 1 per 2 bonus tiles held."""
    return motif_points(state, seat) + incomplete_district_tiles(state, seat) + state[BONUS + seat] // 2


# ---- setup ----------------------------------------------------------------------------------------
@jit
def setup_carousel(state: np.ndarray) -> None:
    """15 cobblestones shuffled: 1 on a random space, 2 on the next clockwise, ... 5; one empty."""
    stones = np.empty(NUM_COLOURS * CAROUSEL_STONES_PER_COLOUR, dtype=np.int64)
    for i in range(stones.shape[0]):
        stones[i] = i // CAROUSEL_STONES_PER_COLOUR
    rng_shuffle(state, H_RNG, stones, 0, stones.shape[0])
    first = rng_below(state, H_RNG, NUM_SPACES)
    k = 0
    for j in range(NUM_SPACES - 1):
        space = (first + j) % NUM_SPACES
        for _ in range(j + 1):
            state[CAR + NUM_COLOURS * space + stones[k]] += 1
            k += 1


@jit
def setup_stacks(state: np.ndarray) -> None:
    """Each colour's 25 tiles shuffled face down; the top 3 form its display."""
    for c in range(NUM_COLOURS):
        base = STACK + TILES_PER_COLOUR * c
        i = 0
        for kind in range(NUM_KINDS):
            for _ in range(KIND_COPIES[kind]):
                state[base + i] = kind
                i += 1
        rng_shuffle(state, H_RNG, state, base, base + TILES_PER_COLOUR)
        state[STACK_N + c] = TILES_PER_COLOUR
        refill_display(state, c)


# ---- kernel interface ------------------------------------------------------------------------------
@jit
def init(state: np.ndarray, params: np.ndarray, seed: np.int64) -> None:
    for i in range(STATE_LEN):
        state[i] = 0
    n = params[P_PLAYERS]
    rng_seed(state, H_RNG, seed)
    state[H_NPLAYERS] = n
    state[SIDE] = params[P_SIDE]
    state[START] = params[P_START]
    state[H_CURRENT] = params[P_START]
    state[H_OWNER] = params[P_START]
    for c in range(NUM_COLOURS):
        state[SB_ROW + c] = 0
    setup_carousel(state)
    setup_stacks(state)
    for p in range(n):
        state[BONUS + p] = STARTING_BONUS


@jit
def set_bits(mask: np.ndarray, base: int, bits: int) -> None:
    """mask[base + i] = 1 for every set bit i of ``bits``."""
    w = np.uint64(bits)
    while w:
        mask[base + lowest_bit(w)] = 1
        w &= w - np.uint64(1)


@jit
def legal_mask(state: np.ndarray, mask: np.ndarray) -> int:
    for k in range(mask.shape[0]):
        mask[k] = 0
    if state[H_TERMINAL]:
        return 0
    seat = state[H_CURRENT]
    side = state[SIDE]
    open_ = stack_empty(NUM_COLOURS, np.int64)
    open_squares(state, seat, open_)
    rows = NUM_ROWS[state[H_NPLAYERS]]
    if state[PHASE] == PHASE_DECLARE:
        # declare_ok for every cobblestone at once, as bits NUM_COLOURS * space + c (the stone of
        # colour c on that space): ``stones`` where one lies, ``declarable`` where its colour is on
        # the scoreboard (``retired``), its display not empty (``display_count``) and a square is
        # open for it that shows the number of its space (``declared_number``)
        avail = 0
        for c in range(NUM_COLOURS):
            shown = 0
            for slot in range(DISPLAY_SIZE):
                shown |= state[DISPLAY + DISPLAY_SIZE * c + slot]
            if state[SB_ROW + c] < rows and shown != 0:
                avail |= 1 << c
        stones = 0
        declarable = 0
        for space in range(NUM_SPACES):
            number = 0
            row = 0
            for c in range(NUM_COLOURS):
                k = state[CAR + NUM_COLOURS * space + c]
                number += k
                row |= min(k, 1) << c
            stones |= row << (NUM_COLOURS * space)
            candidates = row & avail
            if candidates:
                squares = number_squares(side, number)
                for c in range(NUM_COLOURS):
                    if (candidates >> c) & 1 and open_[c] & squares:
                        declarable |= 1 << (NUM_COLOURS * space + c)
        on_carousel = popcount(np.uint64(stones))
        count = 0
        if state[BONUS + seat] > 0:
            set_bits(mask, A_BONUS_MOVE, stones)
            count += on_carousel
        if declarable:
            set_bits(mask, A_DECLARE, declarable)
            count += popcount(np.uint64(declarable))
        else:
            set_bits(mask, A_MOVE_ONLY, stones)
            count += on_carousel
        return count
    count = 0
    if state[BONUS + seat] > 0:  # swap_ok for every colour
        for c in range(NUM_COLOURS):
            if state[SB_ROW + c] < rows and state[STACK_N + c] > 0:
                mask[A_SWAP + c] = 1
                count += 1
    colour = state[DECL_COL]
    squares = open_[colour] & number_squares(side, state[DECL_NUM])
    per_slot = popcount(np.uint64(squares))
    for slot in range(DISPLAY_SIZE):
        if state[DISPLAY + DISPLAY_SIZE * colour + slot] != 0:
            set_bits(mask, A_PLACE + NUM_SQUARES * slot, squares)
            count += per_slot
    return count


@jit
def apply(state: np.ndarray, action: int) -> None:
    seat = state[H_CURRENT]
    count_decision(state)
    if action < A_DECLARE:
        i = action - A_BONUS_MOVE
        state[BONUS + seat] -= 1
        move_clockwise(state, i // NUM_COLOURS, i % NUM_COLOURS)
    elif action < A_MOVE_ONLY:
        i = action - A_DECLARE
        space = i // NUM_COLOURS
        state[DECL_NUM] = declared_number(state, space)
        state[DECL_COL] = i % NUM_COLOURS
        state[PHASE] = PHASE_PLACE
        move_clockwise(state, space, i % NUM_COLOURS)
    elif action < A_SWAP:
        i = action - A_MOVE_ONLY
        move_clockwise(state, i // NUM_COLOURS, i % NUM_COLOURS)
        end_turn(state, False)
    elif action < A_PLACE:
        state[BONUS + seat] -= 1
        swap_display(state, action - A_SWAP)
    else:
        i = action - A_PLACE
        place_tile(state, seat, i // NUM_SQUARES, i % NUM_SQUARES)
        end_turn(state, True)


@jit
def scores(state: np.ndarray, out: np.ndarray) -> None:
    """Points scored during play plus final scoring."""
    for p in range(state[H_NPLAYERS]):
        out[p] = float(state[POINTS + p] + final_scoring(state, p))


@jit
def rank_keys(state: np.ndarray, out: np.ndarray) -> None:
    """Most points first; ties share the victory (equal keys)."""
    scores(state, out)


# board value v (0 empty, 1 + NUM_KINDS * colour + kind) -> the OBS_SQUARE bytes of an observed square
# (its colour's and its kind's one-hot; all 0 for an empty square) as two overlapping little-endian
# words: bytes 0..7 and bytes 3..10, stored unaligned
_OBS_SQUARE_BYTES = np.zeros((NUM_COLOURS * NUM_KINDS + 1, OBS_SQUARE), dtype=np.uint8)
for _v in range(1, NUM_COLOURS * NUM_KINDS + 1):
    _OBS_SQUARE_BYTES[_v, tile_colour.py_func(_v)] = 1
    _OBS_SQUARE_BYTES[_v, NUM_COLOURS + tile_kind.py_func(_v)] = 1
_OBS_WORD_LO = np.array([int.from_bytes(r[0:8].tobytes(), "little") for r in _OBS_SQUARE_BYTES], dtype=np.uint64)
_OBS_WORD_HI = np.array([int.from_bytes(r[3:11].tobytes(), "little") for r in _OBS_SQUARE_BYTES], dtype=np.uint64)
# the printed numbers then the district ids of each side's squares (the NUMBERS and DISTRICTS blocks)
_OBS_SIDE = np.concatenate([SQ_NUMBER, SQ_DISTRICT], axis=1).astype(np.int8)
assert all(OBS_OFF[n, O_DISTRICTS] == OBS_OFF[n, O_NUMBERS] + NUM_SQUARES for n in range(2, MAX_PLAYERS + 1))
for _a in (_OBS_SQUARE_BYTES, _OBS_WORD_LO, _OBS_WORD_HI, _OBS_SIDE):
    _a.setflags(write=False)
_LITTLE_ENDIAN = np.little_endian


@jit
def observe(state: np.ndarray, player: int, out: np.ndarray) -> None:
    """Flat int8 vector laid out as ``layout.OBS``: the n boards (observer first, then the others
    in seat order after it), their bonus tiles and points, the public blocks, then the current seat
    and the start seat, relative and one-hot, and the known bottom of each stack. The order of a
    stack is never shown, only its size and its known bottom (the tiles everybody saw go under it
    in display swaps: their kinds, and all of them in the order they come out). Once the game is
    over no decision is pending: PHASE, DECL_NUM, DECL_COL and CURRENT are all 0."""
    n = state[H_NPLAYERS]
    side = state[SIDE]
    for k in range(out.shape[0]):
        out[k] = 0
    # each square's bytes in two word stores (a row of bytes, as every env passes), else byte by byte
    words = _LITTLE_ENDIAN and out.strides[0] == 1 and out.shape[0] >= OBS_OFF[n, O_BONUS_TILES]
    o_boards = OBS_OFF[n, O_BOARDS]
    o_bonus = OBS_OFF[n, O_BONUS_TILES]
    o_points = OBS_OFF[n, O_POINTS]
    for q in range(n):
        rel = rel_seat(q, player, n)
        base = o_boards + OBS_SEAT * rel
        for sq in range(NUM_SQUARES):
            v = state[BOARD + NUM_SQUARES * q + sq]
            at = base + OBS_SQUARE * sq
            if words:
                store_u64(out, at, _OBS_WORD_LO[v])
                store_u64(out, at + 3, _OBS_WORD_HI[v])
            else:
                for k in range(OBS_SQUARE):
                    out[at + k] = _OBS_SQUARE_BYTES[v, k]
        # play keeps both within their documented bounds (52, 85); clip8 only guards hand-built states
        out[o_bonus + rel] = clip8(state[BONUS + q])
        out[o_points + rel] = clip8(state[POINTS + q])
    o_numbers = OBS_OFF[n, O_NUMBERS]  # the DISTRICTS block follows it
    for k in range(2 * NUM_SQUARES):
        out[o_numbers + k] = _OBS_SIDE[side, k]
    o_carousel = OBS_OFF[n, O_CAROUSEL]
    for i in range(NUM_SPACES * NUM_COLOURS):
        out[o_carousel + i] = state[CAR + i]
    o_displays = OBS_OFF[n, O_DISPLAYS]
    for c in range(NUM_COLOURS):
        for slot in range(DISPLAY_SIZE):
            v = state[DISPLAY + DISPLAY_SIZE * c + slot]
            if v != 0:
                out[o_displays + NUM_KINDS * (DISPLAY_SIZE * c + slot) + v - 1] = 1
        out[OBS_OFF[n, O_STACK_SIZES] + c] = state[STACK_N + c]
        out[OBS_OFF[n, O_SB_ROWS] + c] = state[SB_ROW + c]
        out[OBS_OFF[n, O_MULTIPLIERS] + c] = multiplier(state, c)
    if not state[H_TERMINAL]:  # the pending decision: none once the game is over
        out[OBS_OFF[n, O_PHASE] + state[PHASE]] = 1
        out[OBS_OFF[n, O_DECL_NUM]] = state[DECL_NUM]
        if state[PHASE] == PHASE_PLACE:
            out[OBS_OFF[n, O_DECL_COL] + state[DECL_COL]] = 1
        out[OBS_OFF[n, O_CURRENT] + rel_seat(state[H_CURRENT], player, n)] = 1
    out[OBS_OFF[n, O_END]] = state[END_TRIGGERED]
    out[OBS_OFF[n, O_ROUND_PLACED]] = state[ROUND_PLACED]
    turns = state[TURNS]  # at most n (25 n + 1) <= 404 (check_state): hundreds, then the rest
    out[OBS_OFF[n, O_TURNS]] = turns // 100
    out[OBS_OFF[n, O_TURNS] + 1] = turns % 100
    out[OBS_OFF[n, O_START] + rel_seat(state[START], player, n)] = 1
    o_kinds = OBS_OFF[n, O_KNOWN_KINDS]
    o_order = OBS_OFF[n, O_KNOWN_ORDER]
    for c in range(NUM_COLOURS):  # the known bottom of each stack (public: it went under in a swap)
        base = STACK + TILES_PER_COLOUR * c
        known = state[STACK_KNOWN + c]
        for i in range(known):
            out[o_kinds + NUM_KINDS * c + state[base + i]] += 1
        # in the order they come out: j = 0 is the top of the known bottom (play keeps known <= 22)
        for j in range(min(known, MAX_KNOWN)):
            out[o_order + NUM_KINDS * (MAX_KNOWN * c + j) + state[base + known - 1 - j]] = 1


@jit
def resample(state: np.ndarray, player: int, seed: np.int64) -> None:
    """Reshuffle the unknown part of every face-down stack (all but its known bottom, which went
    under it in a display swap everybody saw) and reseed the generator. Everything else in
    Calçada is public, so no seat knows more than another. The unknown tiles are sorted by kind
    before the shuffle, so the redeal depends only on which tiles are unknown, not on their order."""
    rng_seed(state, H_RNG, seed)
    counts = np.zeros(NUM_KINDS, dtype=np.int64)
    for c in range(NUM_COLOURS):
        base = STACK + TILES_PER_COLOUR * c
        lo = base + state[STACK_KNOWN + c]
        hi = base + state[STACK_N + c]
        counts[:] = 0
        for i in range(lo, hi):
            counts[state[i]] += 1
        i = lo
        for kind in range(NUM_KINDS):
            for _ in range(counts[kind]):
                state[i] = kind
                i += 1
        rng_shuffle(state, H_RNG, state, lo, hi)


@jit
def _check_turn_slots(state: np.ndarray, params: np.ndarray, n: int) -> int:
    """The done bits, the decider, the options, the phase and its declared number and colour, the
    end and round flags, and the turn counter (turns go round from the start seat)."""
    if state[H_TERMINAL] == 0 and state[H_DONE] != 0:
        return H_DONE + 1
    if state[H_OWNER] != state[H_CURRENT]:
        return H_OWNER + 1
    if state[SIDE] != params[P_SIDE]:
        return SIDE + 1
    if state[START] != params[P_START]:
        return START + 1
    if state[PHASE] < 0 or state[PHASE] > 1:
        return PHASE + 1
    placing = state[PHASE] == PHASE_PLACE
    if state[DECL_NUM] < (1 if placing else 0) or state[DECL_NUM] > (
            NUM_COLOURS * CAROUSEL_STONES_PER_COLOUR if placing else 0):
        return DECL_NUM + 1
    if state[DECL_COL] < 0 or state[DECL_COL] >= (NUM_COLOURS if placing else 1):
        return DECL_COL + 1
    if state[END_TRIGGERED] < 0 or state[END_TRIGGERED] > 1:
        return END_TRIGGERED + 1
    if state[ROUND_PLACED] < 0 or state[ROUND_PLACED] > 1:
        return ROUND_PLACED + 1
    if state[TURNS] < 0:
        return TURNS + 1
    if state[H_TERMINAL] == 0:
        if state[H_CURRENT] != (state[START] + state[TURNS]) % n:
            return TURNS + 1
    elif state[TURNS] % n != 0:
        return TURNS + 1
    return 0


@jit
def _check_carousel(state: np.ndarray, n: int) -> int:
    """Per colour: the carousel's stones, the scoreboard row, the stack's size and known tiles."""
    rows = NUM_ROWS[n]
    for c in range(NUM_COLOURS):
        total = 0
        for space in range(NUM_SPACES):
            k = state[CAR + NUM_COLOURS * space + c]
            if k < 0 or k > CAROUSEL_STONES_PER_COLOUR:
                return CAR + NUM_COLOURS * space + c + 1
            total += k
        if total != CAROUSEL_STONES_PER_COLOUR:
            return CAR + c + 1
        if state[SB_ROW + c] < 0 or state[SB_ROW + c] > rows:
            return SB_ROW + c + 1
        if state[STACK_N + c] < 0 or state[STACK_N + c] > TILES_PER_COLOUR:
            return STACK_N + c + 1
        if state[STACK_KNOWN + c] < 0 or state[STACK_KNOWN + c] > state[STACK_N + c]:
            return STACK_KNOWN + c + 1
    return 0


@jit
def _check_stacks_and_display(state: np.ndarray, seen: np.ndarray) -> int:
    """The tiles of every stack and display in range; counts them into ``seen`` (colour, kind)."""
    for c in range(NUM_COLOURS):
        for i in range(TILES_PER_COLOUR):
            k = state[STACK + TILES_PER_COLOUR * c + i]
            if k < 0 or k >= NUM_KINDS or (i >= state[STACK_N + c] and k != 0):
                return STACK + TILES_PER_COLOUR * c + i + 1
            if i < state[STACK_N + c]:
                seen[c, k] += 1
        for slot in range(DISPLAY_SIZE):
            v = state[DISPLAY + DISPLAY_SIZE * c + slot]
            if v < 0 or v > NUM_KINDS:
                return DISPLAY + DISPLAY_SIZE * c + slot + 1
            if v != 0:
                seen[c, v - 1] += 1
    return 0


@jit
def _check_boards(state: np.ndarray, n: int, seen: np.ndarray) -> int:
    """Every seat's board tiles, bonus and points in range (none for a seat not playing); counts the
    board tiles into ``seen``."""
    for p in range(MAX_PLAYERS):
        for sq in range(NUM_SQUARES):
            v = state[BOARD + NUM_SQUARES * p + sq]
            if v < 0 or v > NUM_COLOURS * NUM_KINDS or (p >= n and v != 0):
                return BOARD + NUM_SQUARES * p + sq + 1
            if v != 0:
                seen[tile_colour(v), tile_kind(v)] += 1
        if state[BONUS + p] < 0 or state[BONUS + p] > 1_000_000 or (p >= n and state[BONUS + p] != 0):
            return BONUS + p + 1
        if state[POINTS + p] < 0 or state[POINTS + p] > 1_000_000 or (p >= n and state[POINTS + p] != 0):
            return POINTS + p + 1
    return 0


@jit
def _check_tiles(state: np.ndarray, n: int) -> int:
    """Every tile in range and in exactly one place: a stack, a display or a board."""
    seen = np.zeros((NUM_COLOURS, NUM_KINDS), dtype=np.int64)
    bad = _check_stacks_and_display(state, seen) or _check_boards(state, n, seen)
    if bad:
        return bad
    for c in range(NUM_COLOURS):
        for k in range(NUM_KINDS):
            if seen[c, k] != KIND_COPIES[k]:
                return STACK_N + c + 1
    return 0


@jit
def _check_rounds(state: np.ndarray, n: int) -> int:
    """A game ends after a round in which nobody placed a tile: the rounds completed (plus the
    current one, once somebody placed in it) are at most the tiles placed (one more for the round
    that ended the game), so the turn counter stays bounded."""
    placed = 0
    for i in range(n * NUM_SQUARES):
        if state[BOARD + i] != 0:
            placed += 1
    if state[TURNS] // n + (state[ROUND_PLACED] if state[H_TERMINAL] == 0 else -1) > placed:
        return TURNS + 1
    return 0


@jit
def _check_placement(state: np.ndarray) -> int:
    """A pending placement has a tile of the declared colour and a square it may go to."""
    if state[H_TERMINAL] == 0 and state[PHASE] == PHASE_PLACE:
        colour = state[DECL_COL]
        if display_count(state, colour) == 0 or retired(state, colour):
            return DECL_COL + 1
        if not any_square_ok(state, state[H_CURRENT], colour, state[DECL_NUM]):
            return DECL_NUM + 1
    return 0


@jit
def check_state(state: np.ndarray, params: np.ndarray) -> int:
    """0 if every slot is in range for ``params``, else (index of the first bad slot) + 1."""
    n = params[P_PLAYERS]
    return (check_header(state, n, 2) or _check_turn_slots(state, params, n) or _check_carousel(state, n)
            or _check_tiles(state, n) or _check_rounds(state, n) or _check_placement(state))
