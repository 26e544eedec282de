"""The scratch buffers' offsets come from :class:`gamecore.kernel.layout.Layout` (issue 47): Cultivo's
travel workspace (``payment.WS``), travel counts (``outcomes.TC``), small array (``outcomes.SM``)
and its deltas_fill scratch (``outcomes.DW``), and Calimala's mat vector (``mat.MAT``).

numba freezes module-level ints into the kernels, so the compiled code stays the same only if every
offset keeps the value it had when it was typed by hand: those values are written out here as
literals. The layouts never overlap two blocks; the only aliases are ``SM_R``, ``SM_X``, ``SM_XM``
and ``SM_TQ``, the parts of the ``DWORK`` block, documented as such."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from calimala_env import game as calimala_game
from calimala_env import layout as CL
from calimala_env.rules import mat
from cultivo_env.layout import MAX_FIELDS, MAX_PLAYERS, NUM_COLOURS
from cultivo_env.rules import outcomes, payment, travel
from gamecore.kernel.layout import Layout

#: the values the constants had when they were typed by hand (before issue 47)
PAYMENT = {
    "WS_H": 0, "WS_SCAL": 6, "WS_STL": 12, "WS_COWN": 18, "WS_BOWN": 24, "WS_E": 30, "WS_F": 36, "WS_P": 42,
    "WS_P0": 48, "WS_GP": 54, "WS_GSP": 60, "WS_DPW": 66, "DPW_LEN": 530, "WS_TBL": 596, "TBL_LEN": 4096,
    "CACHE_SLOTS": 1024, "CACHE_MAX": 768, "DP_MEMO": 256, "WS_KEYS": 4692, "MEMO_NFE": 5716, "MEMO_NIN": 5717,
    "MEMO_FE": 5718, "MEMO_IN": 5974, "CACHE_N": 6230, "WS_VALS": 6231, "WS_LAB": 7255,
    # sizes that were in travel.py (WS_LABELS, WS_FIELD_ROWS: counts, not offsets) and the length
    "WS_LABELS": 1024, "WS_FIELD_ROWS": 6, "WS_LEN": 11651,
}
OUTCOMES = {
    "TC_Q": 6, "TC_M": 30, "TC_W": 31, "TC_LEN": 32, "DW_RESUME": 16, "DW_COUNT": 17, "DWORK_LEN": 18,
    "SM_TC": 0, "SM_H": 32, "SM_SCAL": 38, "SM_STL": 44, "SM_COWN": 50, "SM_BOWN": 56, "SM_DFIX": 62,
    "SM_RFIX": 68, "SM_DWORK": 92, "SM_R": 92, "SM_X": 96, "SM_XM": 100, "SM_TQ": 104, "SM_ST_LT": 110,
    "SM_REC_LT": 117, "SM_FLD_LT": 145, "SM_CART_LT": 152, "SM_BARGE_LT": 159, "SM_ST_GE": 166,
    "SM_REC_GE": 173, "SM_FLD_GE": 201, "SM_CART_GE": 208, "SMALL_LEN": 215,
}
MAT = {
    "V_HAND": 0, "V_WH": 9, "V_RES": 12, "V_CLOTH": 13, "V_WS": 16, "V_SHIPS": 17, "V_HOUSE": 18, "V_TFREE": 21,
    "V_PFREE": 24, "V_CFREE": 25, "V_AFREE": 28, "VLEN": 29,
}
#: the workspace constants travel.py imports from payment.py
TRAVEL = ("WS_H", "WS_SCAL", "WS_STL", "WS_COWN", "WS_BOWN", "WS_E", "WS_F", "WS_P", "WS_P0", "WS_GP", "WS_GSP",
          "WS_KEYS", "WS_VALS", "WS_LAB", "WS_FIELD_ROWS", "WS_LEN", "MEMO_NFE", "MEMO_NIN", "MEMO_FE", "MEMO_IN",
          "CACHE_N", "CACHE_SLOTS", "CACHE_MAX", "DP_MEMO")


@pytest.mark.parametrize(("module", "values"), [(payment, PAYMENT), (outcomes, OUTCOMES), (mat, MAT)],
                         ids=["payment", "outcomes", "mat"])
def test_every_constant_keeps_its_value(module, values):
    got = {name: getattr(module, name) for name in values}
    assert got == values
    assert all(type(v) is int for v in got.values())  # plain ints: numba freezes them as constants


def test_travel_sees_the_same_values():
    for name in TRAVEL:
        assert getattr(travel, name) == PAYMENT[name], name
    for name, value in MAT.items():
        assert getattr(mat, name) == value


def _disjoint(lay: Layout) -> None:
    """The blocks of ``lay`` in order, none overlapping the next, all inside its size, no gaps."""
    lay.check()
    end = lay.start
    for b in lay.blocks:
        assert b.offset == end, f"{lay.title}: {b.name} at {b.offset}, the block before ends at {end}"
        end = b.end
    assert end == lay.size


def _offsets(module, prefix: str, skip: tuple[str, ...] = ()) -> dict[str, int]:
    return {k: v for k, v in vars(module).items()
            if k.startswith(prefix) and isinstance(v, int) and k not in skip and not k.endswith("_LEN")}


def test_the_travel_workspace_is_one_layout():
    ws = payment.WS
    _disjoint(ws)
    assert ws.size == payment.WS_LEN
    named = {**_offsets(payment, "WS_", ("WS_LABELS", "WS_FIELD_ROWS")), **_offsets(payment, "MEMO_"),
             "CACHE_N": payment.CACHE_N}
    # every offset constant is the offset of its own block
    blocks = {b.offset: b for b in ws.blocks}
    assert all(v in blocks for v in named.values())
    assert len(set(named.values())) == len(named)  # no two constants share a slot
    assert ws["DPW"].size == payment.DPW_LEN and ws["TBL"].size == payment.TBL_LEN
    assert ws["KEYS"].size == ws["VALS"].size == payment.CACHE_SLOTS
    assert ws["MEMO_FE"].size == ws["MEMO_IN"].size == payment.DP_MEMO
    assert ws["LAB"].size == 4 * payment.WS_LABELS
    assert ws["FIELD_ROWS"].size == payment.WS_FIELD_ROWS * MAX_FIELDS
    # write_context writes goods, scales, stalls, cart and barge owners as 5 rows from WS_H
    assert [ws.offset(k) for k in ("H", "SCAL", "STL", "COWN", "BOWN")] == [payment.WS_H + NUM_COLOURS * k
                                                                              for k in range(5)]


def test_the_small_array_and_its_aliases():
    _disjoint(outcomes.TC)
    _disjoint(outcomes.DW)
    sm = outcomes.SM
    _disjoint(sm)
    assert outcomes.TC.size == outcomes.TC_LEN and outcomes.DW.size == outcomes.DWORK_LEN
    assert sm.size == outcomes.SMALL_LEN and sm["TC"].size == outcomes.TC_LEN
    assert sm["DWORK"].size == outcomes.DWORK_LEN
    aliases = {"SM_R": "R", "SM_X": "X", "SM_XM": "XM", "SM_TQ": "TQ"}
    dwork = sm["DWORK"]
    for const, part in aliases.items():
        value = getattr(outcomes, const)
        assert value == dwork.offset + outcomes.DW.offset(part)
        assert dwork.offset <= value and value + outcomes.DW[part].size <= dwork.end  # inside DWORK
    assert outcomes.SM_R == outcomes.SM_DWORK  # the one alias of a block's own offset
    # every other SM_* constant is the offset of its own block, no two the same
    own = _offsets(outcomes, "SM_", tuple(aliases))
    assert sorted(own.values()) == [b.offset for b in sm.blocks]
    # the kernels clear the first 4 * MAX_PLAYERS of DWORK (R, X, XM, TQ) for a fresh enumeration
    assert outcomes.DW_RESUME == 4 * MAX_PLAYERS == sum(outcomes.DW[p].size for p in aliases.values())
    assert outcomes.TC.offset("E") == 0  # tc[c]: the fields without a foreign worker
    assert [sm.offset(k) for k in ("H", "SCAL", "STL", "COWN", "BOWN")] == [outcomes.SM_H + NUM_COLOURS * k
                                                                              for k in range(5)]


def test_the_mat_vector_is_one_layout():
    _disjoint(mat.MAT)
    assert mat.MAT.size == mat.VLEN
    assert sorted(_offsets(mat, "V_").values()) == [b.offset for b in mat.MAT.blocks]


def test_the_layout_tables_are_in_the_docstrings():
    for module, lay in ((payment, payment.WS), (outcomes, outcomes.SM), (outcomes, outcomes.TC),
                        (outcomes, outcomes.DW), (mat, mat.MAT)):
        assert lay.table() in (module.__doc__ or "")
        assert "_TABLE}" not in (module.__doc__ or "")  # every placeholder filled


def test_calimala_game_indexes_as_the_state_layout_says():
    """calimala_env.game's slots (_at / _block) are the ones the old hand-written arithmetic gave."""
    at, block = calimala_game._at, calimala_game._block
    P = CL.MAX_PLAYERS
    old = {
        "STACK": (lambda s, i: CL.STACK + CL.MAX_STACK * s + i, (CL.NUM_SPACES, CL.MAX_STACK)),
        "ART": (lambda b, p: CL.ART + P * b + p, (CL.NUM_BUILDINGS, P)),
        "CONTRIB": (lambda b, r, p: CL.CONTRIB + 3 * P * b + P * r + p, (CL.NUM_CHURCHES, CL.NUM_RES, P)),
        "CITY": (lambda c, p: CL.CITY + P * c + p, (CL.NUM_CITIES, P)),
        "HOUSE": (lambda t, p: CL.HOUSE + P * t + p, (CL.NUM_TRADE, P)),
        "WH": (lambda p, r: CL.WH + 3 * p + r, (P, CL.NUM_RES)),
        "CLOTH": (lambda p, w: CL.CLOTH + 3 * p + w, (P, CL.MAX_WORKSHOPS)),
        "HAND": (lambda p, t: CL.HAND + CL.NUM_TYPES * p + t, (P, CL.NUM_TYPES)),
        "KNOWN": (lambda p, t: CL.KNOWN + CL.NUM_TYPES * p + t, (P, CL.NUM_TYPES)),
        "DEALT": (lambda p, j: CL.DEALT + 3 * p + j, (P, CL.MAX_DEALT)),
    }
    state = np.arange(CL.STATE_LEN, dtype=np.int64)
    for name, (slot, axes) in old.items():
        view = block(state, name)
        assert view.shape == axes
        slots = [at(name, *ix) for ix in itertools.product(*map(range, axes))]
        assert slots == [slot(*ix) for ix in itertools.product(*map(range, axes))], name
        assert slots == list(range(CL.ST[name].offset, CL.ST[name].end))  # C order, the whole block
        assert view.ravel().tolist() == slots
    with pytest.raises(ValueError):
        at("CONTRIB", 0, 0)  # one index per axis
