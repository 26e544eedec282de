"""Cultivo's payment search, its fast paths against their definitions.

:func:`cultivo_env.rules.outcomes.backward_fill` adds the labels before a colour: every label after
minus every step of the colour, kept within the bounds of what the colours before can have done.
With many (label, step) pairs it shifts bitmaps instead of inserting pair by pair
(:func:`~cultivo_env.rules.outcomes.backward_shifted`); both must give the set that the pair-by-pair
definition below gives, on random labels and steps of both sizes, for a plain colour and for yellow.
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
    cnt, table, prv = O.backward_fill(back, np.int64(back.size), np.int64(c), np.int64(bu_in), dl, np.int64(dl.size),
                          np.int64(MAX_PLAYERS), np.int64(b["nst"]), b["rec_lt"], b["st_lt"], b["barge_lt"],
                          b["fld_lt"], b["cart_lt"], table, prv, np.int64(0))
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
