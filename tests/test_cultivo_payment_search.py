"""Cultivo's payment search, its fast paths against their definitions.

:func:`cultivo_env.rules.outcomes.backward_fill` adds the labels before a colour: every label after
minus every step of the colour, kept within the bounds of what the colours before can have done.
With many (label, step) pairs it shifts bitmaps instead of inserting pair by pair
(:func:`~cultivo_env.rules.outcomes.backward_shifted`); both must give the set that the pair-by-pair
definition below gives, on random labels and steps of both sizes, for a plain colour and for yellow.
The sets these searches fill grow without redoing work: the shifted path moves its set into a
table big enough for its keys, and a colour's steps (:func:`~cultivo_env.rules.outcomes.deltas_into`)
resume their enumeration after the set grew, in the order of one uninterrupted enumeration; the
pending colour's amounts come from that enumeration filtered by the steps that join.
"""

from __future__ import annotations

import numpy as np
import pytest

from cultivo_env.layout import MAX_PLAYERS, NUM_COLOURS, YELLOW
from cultivo_env.rules import outcomes as O


def unpack_nibbles(word: int) -> list[int]:
    return [(word >> (4 * d)) & 15 for d in range(MAX_PLAYERS)]


def backward_reference(back, c, bu_in, dl, nst, rec_lt, st_lt, barge_lt, fld_lt, cart_lt) -> set[int]:
    """The labels before colour c, pair by pair, in plain Python (the definition)."""
    out = set()
    for lab in back:
        lab = int(lab)
        lbu = (lab // O.K_B) % O.K_BU
        if c == YELLOW and lbu != 0:
            continue
        lb = lab % O.K_B
        lfb = lab // (O.K_B * O.K_BU)
        for step in dl:
            dk = int(step) // int(O.K_TAG)
            db = dk % O.K_B
            bv, pos, ok = 0, 0, True
            for d, (a, b) in enumerate(zip(unpack_nibbles(lb), unpack_nibbles(db), strict=True)):
                x = a - b + 8
                if x < 8 - rec_lt[MAX_PLAYERS * c + d] or x > 8 + nst:
                    ok = False
                    break
                pos += max(x - 8, 0)
                bv |= x << (4 * d)
            if not ok or pos > st_lt[c]:
                continue
            fb = lfb - (dk // (O.K_B * O.K_BU) - 64)
            bu = bu_in if c == YELLOW else lbu - (dk // O.K_B) % O.K_BU
            if bu < 0 or bu > barge_lt[c] or fb > 64 + fld_lt[c] or fb < 64 - cart_lt[c]:
                continue
            out.add((fb * O.K_BU + bu) * O.K_B + bv)
    return out


def random_case(rng: np.random.Generator, nb: int, nd: int):
    """Distinct labels after (cart balance, barges used, stall balances) and distinct steps, in the
    ranges the search produces them."""
    labels = set()
    while len(labels) < nb:
        bv = sum(int(rng.integers(5, 12)) << (4 * d) for d in range(MAX_PLAYERS))
        labels.add((int(rng.integers(50, 80)) * O.K_BU + int(rng.integers(0, 4))) * O.K_B + bv)
    steps = set()
    while len(steps) < nd:
        dbv = sum(int(rng.integers(6, 11)) << (4 * d) for d in range(MAX_PLAYERS))
        dk = ((int(rng.integers(-8, 9)) + 64) * O.K_BU + int(rng.integers(0, 3))) * O.K_B + dbv
        steps.add(dk * int(O.K_TAG))
    bounds = {
        "nst": 3,
        "rec_lt": rng.integers(0, 4, size=(NUM_COLOURS + 1) * MAX_PLAYERS).astype(np.int64),
        "st_lt": rng.integers(1, 4, size=NUM_COLOURS + 1).astype(np.int64),
        "barge_lt": rng.integers(2, 4, size=NUM_COLOURS + 1).astype(np.int64),
        "fld_lt": rng.integers(4, 20, size=NUM_COLOURS + 1).astype(np.int64),
        "cart_lt": rng.integers(4, 20, size=NUM_COLOURS + 1).astype(np.int64),
    }
    return (np.array(sorted(labels), dtype=np.int64), np.array(sorted(steps), dtype=np.int64), bounds)


def kernel_set(back, c, bu_in, dl, b) -> set[int]:
    table, prv = O.new_table(np.int64(1 << 17))
    cnt, table, prv = O.backward_fill(back, np.int64(back.size), np.int64(c), np.int64(bu_in), dl,
                                      np.int64(dl.size), np.int64(MAX_PLAYERS), np.int64(b["nst"]), b["rec_lt"],
                                      b["st_lt"], b["barge_lt"], b["fld_lt"], b["cart_lt"], table, prv, np.int64(0))
    assert cnt >= 0, "the test's table is big enough"
    keys = prv[:cnt]
    assert len(set(keys.tolist())) == cnt, "every key once"
    return set(keys.tolist())


@pytest.mark.parametrize("nb, nd", [(20, 150), (300, 200)], ids=["pair by pair", "shifted bitmaps"])
@pytest.mark.parametrize("c, bu_in", [(2, 0), (YELLOW, 0), (YELLOW, 2), (YELLOW, 9)],
                         ids=["colour 2", "yellow, no barge before", "yellow, 2 barges before", "yellow, too many"])
def test_backward_fill_gives_the_labels_of_the_definition(nb, nd, c, bu_in):
    assert (nb * nd >= O.SHIFT_MIN_PAIRS) == (nb == 300), "the two sizes take the two paths"
    rng = np.random.default_rng(7 * nb + c + bu_in)
    reached = 0
    for _ in range(3):
        back, dl, b = random_case(rng, nb, nd)
        want = backward_reference(back, c, bu_in, dl, b["nst"], b["rec_lt"], b["st_lt"], b["barge_lt"], b["fld_lt"],
                                  b["cart_lt"])
        got = kernel_set(back, c, bu_in, dl, b)
        assert got == want
        reached += len(want)
    if bu_in <= 2:  # barge_lt is 2 or 3: yellow with 9 barges before reaches nothing
        assert reached, "the cases reach some labels (so the comparison says something)"


def test_backward_fill_keeps_labels_whose_cart_balance_leaves_the_bitmaps_pair_by_pair():
    """Bounds reaching past 0 .. 127 (cart_lt > 64) take the pair-by-pair path at any size."""
    rng = np.random.default_rng(3)
    back, dl, b = random_case(rng, 300, 200)
    b["cart_lt"][:] = 70
    want = backward_reference(back, 2, 0, dl, b["nst"], b["rec_lt"], b["st_lt"], b["barge_lt"], b["fld_lt"],
                              b["cart_lt"])
    assert kernel_set(back, 2, 0, dl, b) == want


@pytest.mark.parametrize("x", [1, 2, 3, 1 << 17, 1 << 63, (1 << 63) | 4, 0xFFFF_FFFF_FFFF_FFFF, 0x10])
def test_low_bit_index(x):
    assert O.low_bit_index(np.uint64(x)) == (x & -x).bit_length() - 1


@pytest.mark.parametrize("t", [0, 1, 5, 63, 64, 65, 127, 128, -1, -5, -63, -64, -65, -127, -128])
def test_shift128(t):
    v = 0x8000_0000_0000_0001_C000_0000_0000_0003
    lo, hi = O.shift128(np.uint64(v & (2**64 - 1)), np.uint64(v >> 64), t)
    want = (v << t if t >= 0 else v >> -t) & (2**128 - 1)
    assert (int(hi) << 64 | int(lo)) == want


@pytest.mark.parametrize("x", [0, 1, 3, 0xFF, 1 << 63, 0xFFFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0001])
def test_bit_count(x):
    assert O.bit_count(np.uint64(x)) == bin(x).count("1")


def test_backward_shifted_moves_a_small_set_into_a_table_big_enough_for_it():
    """With many pairs the keys are counted after the shifts and the set (with the key it held
    already) moves into a bigger table once: no -1, so the caller never redoes the shifts. Pair by
    pair, a table too small still answers -1 (the caller retries with a bigger one)."""
    rng = np.random.default_rng(11)
    back, dl, b = random_case(rng, 300, 200)
    args = (np.int64(MAX_PLAYERS), np.int64(b["nst"]), b["rec_lt"], b["st_lt"], b["barge_lt"], b["fld_lt"],
            b["cart_lt"])
    want = backward_reference(back, 2, 0, dl, b["nst"], *args[2:])
    assert len(want) > 8, "more keys than the small table holds"
    held = (1 * O.K_BU + 0) * O.K_B + 0x8888  # a key the search cannot reach (cart balance 1)
    assert held not in want
    table, prv = O.new_table(np.int64(16))
    O.set_add(table, prv, np.int64(0), np.int64(held))
    cnt, table, prv = O.backward_fill(back, np.int64(back.size), np.int64(2), np.int64(0), dl, np.int64(dl.size),
                                      *args, table, prv, np.int64(1))
    assert cnt == len(want) + 1 and table.shape[0] >= 2 * cnt
    assert set(prv[:cnt].tolist()) == want | {held}
    assert all(O.set_contains(table, np.int64(k)) for k in want | {held})
    small_back, small_dl, b = random_case(np.random.default_rng(5), 20, 150)
    args = (np.int64(MAX_PLAYERS), np.int64(b["nst"]), b["rec_lt"], b["st_lt"], b["barge_lt"], b["fld_lt"],
            b["cart_lt"])
    assert len(backward_reference(small_back, 2, 0, small_dl, b["nst"], *args[2:])) > 8
    table, prv = O.new_table(np.int64(16))
    cnt, _, _ = O.backward_fill(small_back, np.int64(small_back.size), np.int64(2), np.int64(0), small_dl,
                                np.int64(small_dl.size), *args, table, prv, np.int64(0))
    assert cnt == -1


def payment_inputs():
    """A colour (1) with 4 fields free of workers, one with each other seat's worker, 2 canals, the
    scales of colour 1, stalls of colours 0, 1 and 3, colour 1's cart owned by seat 2 and its barge
    by seat 1, payer seat 0 of 4, 5 goods of each colour; the pending colour is 0, so colour 1's
    steps are not filtered by amounts. Returns the arguments of ``colour_deltas`` (c, p, n, nst, G,
    bu_in, cfix, sub, the small array ``sm``)."""
    n = 4
    sm = np.zeros(O.SMALL_LEN, dtype=np.int64)
    sm[O.SM_TC + 1] = 4
    for rr in range(1, n):
        sm[O.SM_TC + O.TC_Q + MAX_PLAYERS * 1 + rr] = 1
    sm[O.SM_TC + O.TC_M] = 2
    sm[O.SM_H: O.SM_H + NUM_COLOURS] = 5
    sm[O.SM_SCAL + 1] = 1
    stl = [1, 1, 0, 1, 0, 0]
    sm[O.SM_STL: O.SM_STL + NUM_COLOURS] = stl
    sm[O.SM_COWN: O.SM_COWN + NUM_COLOURS] = -1
    sm[O.SM_COWN + 1] = 2
    sm[O.SM_BOWN: O.SM_BOWN + NUM_COLOURS] = -1
    sm[O.SM_BOWN + 1] = 1
    return (np.int64(1), np.int64(0), np.int64(n), np.int64(sum(stl)), np.int64(7), np.int64(0), np.int64(0),
            np.int64(0), sm)


def test_deltas_resume_after_growing_in_the_order_of_one_enumeration():
    """colour_deltas starts with room for 64 keys, grows and resumes: it gives the keys, in their
    order, that one enumeration into a table big enough from the start gives."""
    args = payment_inputs()
    keys, count = O.colour_deltas(*args)
    table, items = O.new_table(np.int64(1 << 16))
    big_count, _, big_items = O.deltas_into(*payment_inputs(), np.int64(O.TAGS_NONE), np.empty(0, dtype=np.int64),
                                            table, items, np.int64(0), np.int64(1 << 16))
    assert count > 4 * 64, "the set grew at least twice"
    assert count == big_count
    assert keys[:count].tolist() == big_items[:count].tolist()
    assert len(set(keys[:count].tolist())) == count
    assert all(k % int(O.K_TAG) == 0 for k in keys[:count].tolist()), "unfiltered: steps without tags"


def test_filtered_deltas_give_the_tags_of_the_steps_let_through():
    """With a filter, the enumeration adds the tags (amounts) of the steps whose delta key is in it,
    once each: every step has a tag; a filter of several steps gives the union of their tags; a
    delta key no step has gives none."""
    args = payment_inputs()
    keys, count = O.colour_deltas(*args)
    dks = sorted({int(k) // int(O.K_TAG) for k in keys[:count]})

    def tags(subset):
        filt, fkeys = O.new_table(O.table_size(np.int64(len(subset))))
        k = np.int64(0)
        for dk in subset:
            k = O.set_add(filt, fkeys, k, np.int64(dk))
        found, tuples = O.new_table(np.int64(16))
        nt, _, tuples = O.deltas_into(*args, np.int64(O.TAGS_FILTERED), filt, found, tuples, np.int64(0),
                                      np.int64(1 << 40))
        got = tuples[:nt].tolist()
        assert len(set(got)) == nt
        return set(got)

    picked = dks[:: max(1, len(dks) // 12)]
    single = {dk: tags([dk]) for dk in picked}
    assert all(single.values()), "every step has a tag"
    assert len({frozenset(t) for t in single.values()}) > 1, "the steps differ in their tags"
    assert tags(picked) == set().union(*single.values())
    assert tags([dks[-1] + 1]) == set()
    for t in tags(dks):
        assert 0 <= t < 1 << 32


@pytest.mark.parametrize("n", [2, 3, 4])
def test_both_ways_of_joining_give_the_same_outcomes_in_the_same_order(n):
    """The pending colour's outcomes come from its tagged steps, or, when those would need a table
    bigger than ``tagged_max``, from its distinct steps that join and a filtered enumeration. At
    every payment decision of random games the second way (``tagged_max`` 0) gives the tuples the
    first gives (no limit), in the same order (the order is kept in the state)."""
    from cultivo_env import layout as L
    from cultivo_env.game import GAME
    from gamecore.kernel.header import H_CURRENT, H_PHASE, H_TERMINAL

    K = GAME.kernels
    params = GAME.make_params(n)
    state = np.zeros(K.STATE_LEN, dtype=np.int64)
    mask = np.zeros(GAME.num_actions(params), dtype=np.int8)
    rng = np.random.default_rng(40 + n)
    compared = several = 0
    for g in range(2):
        K.init(state, params, 500 + 10 * n + g)
        while not state[H_TERMINAL]:
            count = K.legal_mask(state, mask)
            if state[H_PHASE] == L.PH_PAY:
                p = np.int64(state[H_CURRENT])
                got = []
                for tagged_max in (0, 1 << 40):
                    tuples, nt, _, _ = O.colour_outcomes_cached(state, p, np.empty(16, dtype=np.int64),
                                                                O.new_back_cache(), np.int64(tagged_max))
                    got.append(tuples[:nt].tolist())
                assert got[0] == got[1]
                compared += 1
                several += len(got[1]) > 1
            K.apply(state, int(np.flatnonzero(mask)[int(rng.integers(count))]))
    assert compared >= 20 and several >= 5, (compared, several)
