"""Cultivo rules as numba kernels on the state array (layout, tables and the action encoding in
:mod:`cultivo_env.layout`; the rules as implemented in ``docs/rules/cultivo.md``).

A turn is a sequence of decisions of the turn owner, kept as a state machine in ``H_PHASE``::

    action ──place──> place_target ─> origin ─> step* ─> pay* ─> [exchange]
           ──move───> move_worker ─> move_target ─> step* ─> pay*
           ──produce> produce
           ──acquire> acquire ─> split ─> stall* ─> [refill]
           ──build──> build ─> stall*

``step`` chooses the next field of a travel (a canal crossing is part of the step); ``pay`` decides
one amount of the travel's payment: colour by colour, the payer's total of the colour, then what each
other player receives of it (the supply receives the rest). Means (goods, carts, barges and whose),
the scales and the market stalls are not decided one by one: :func:`amount_values` offers each value
that some way of paying reaches, so each outcome of a travel payment is exactly one choice. ``stall``
lets each of the payer's market stalls replace one paid good of a purchase or a building. A decision
with a single option is applied automatically.

Exactness: the mask offers only choices that can still be completed. A travel is feasible when some
walk (a simple path is a walk; a walk contains a simple path that passes a subset of its fields and
canals, and costs can only fall) from the traveller to the target can be paid; :func:`travel_search`
looks for one over (field, obligations) labels with Pareto pruning, and :func:`pay_feasible` decides
whether a set of obligations can be paid (an exact dynamic programme over the six colours).

Canonical payments (one choice per outcome): a travel's payment is chosen as its outcome
(:func:`amount_values`); purchase splits and the stall stage of purchases and buildings are
enumerated exactly (:func:`canon_dp`) and each distinct outcome is offered once, by the
lexicographically first way to reach it.

Every rule is a named function of a module below: ``place_wheat``, ``apply_scales``, ``pay_feasible``,
``amount_values``, ``travel_search``, ``produce_amount``, ``can_build``, ``purchase_feasible``,
``refill_line``, ``end_turn``, ``goods_triples``, ``building_points``, ``final_score``.

This package exports the kernel interface (:mod:`gamecore.kernel.protocol`) and nothing else; every
other name is imported from the module that defines it, one module per rule area:

* ``accessors``: small accessors of the state and shared array helpers;
* ``payment``: whether a set of obligations can be paid (``pay_feasible``), and the layout of the
  travel workspace the searches of one mask share (``WS_*``);
* ``travel``: the path search (``travel_search``) and the travel targets, steps and origins;
* ``outcomes``: a travel's obligations and its payment decided as its outcome (``amount_values``);
* ``market``: the stall stage and purchase splits (``canon_dp``, ``purchase_feasible``);
* ``turn``: building, production, refills and the end of an action, a turn and the game;
* ``scoring``: final scoring, ``scores`` and ``rank_keys``;
* ``setup``: setup and ``init``;
* ``masks``: ``legal_mask`` and the mask of each phase;
* ``step``: applying a decision (``apply``, and ``apply_legal`` with the next mask);
* ``observation``: ``observe`` and ``resample``;
* ``validation``: ``check_state``.
"""

from __future__ import annotations

from cultivo_env.layout import STATE_LEN
from cultivo_env.rules.masks import legal_mask
from cultivo_env.rules.observation import observe, resample
from cultivo_env.rules.scoring import rank_keys, scores
from cultivo_env.rules.setup import init
from cultivo_env.rules.step import apply, apply_legal
from cultivo_env.rules.validation import check_state

#: ``apply_legal`` keeps the mask of its forced-decision check (see ``gamecore.kernel.protocol``)
APPLY_LEGAL_FUSED = True

__all__ = ["APPLY_LEGAL_FUSED", "STATE_LEN", "apply", "apply_legal", "check_state", "init", "legal_mask", "observe",
           "rank_keys", "resample", "scores"]
