"""Calimala rules as numba kernels on the state array (layout, data and action encoding in
:mod:`calimala_env.layout`; the rules as implemented in ``docs/rules/calimala.md``).

A game is a sequence of decisions; ``H_PHASE`` names the kind of the pending one::

    keep (each seat, from the start seat)  ->  start_card (from the seat before the start seat, backwards)
    place  ->  activate  <->  ship / transport / build / artwork / contribute   (per activated disc)
           ->  [promote]  ->  place (next seat) ...

Feasibility is computed on a small *mat vector* of the deciding player (hand, warehouses, cloth,
ships, trade houses and the free slots of the board that matter to them): ``mat.fill_mat``. The same
vector drives the direct checks and the card-play search, so the two cannot disagree.

This package exports the kernel interface (:mod:`gamecore.kernel.protocol`) and nothing else; every
other name is imported from the module that defines it. The rule areas:

* ``accessors``: small accessors of the state (``space_type``, ``hand_count``, the free slots,
  ``placer_duty``, ``recount_board``);
* ``mat``: the mat vector (``fill_mat``), the feasibility of each action (``can_do``) and the card-play
  search (``achievable``);
* ``actions``: the actions on the state (``gain_resource``, ``weave``, ``ship_cloth``,
  ``transport_cloth``, ``build_*``, ``make_artwork``, ``contribute``) and the action cards
  (``draw_card``, ``play_card``, ``reshuffle_discard``);
* ``scoring``: scoring (``category_value``, ``tie_key``, ``award``, ``score_tile``, ``final_scoring``),
  ``scores`` and ``rank_keys``;
* ``turn``: the turn (``place_disc``, ``resolve_action``, ``end_activation``, ``promote_fourth_disc``,
  ``end_turn``) and the game end (``end_game``);
* ``setup``: ``init`` and the opening decisions;
* ``masks``: ``legal_mask``;
* ``step``: applying a decision (``apply``, and ``apply_legal`` with the next mask);
* ``observation``: ``observe`` and ``resample``;
* ``validation``: ``check_state``.
"""

from __future__ import annotations

from calimala_env.layout import STATE_LEN
from calimala_env.rules.masks import legal_mask
from calimala_env.rules.observation import observe, resample
from calimala_env.rules.scoring import rank_keys, scores
from calimala_env.rules.setup import init
from calimala_env.rules.step import apply, apply_legal
from calimala_env.rules.validation import check_state

#: ``apply_legal`` keeps the mask of its forced-decision check (see ``gamecore.kernel.protocol``)
APPLY_LEGAL_FUSED = True

__all__ = ["APPLY_LEGAL_FUSED", "STATE_LEN", "apply", "apply_legal", "check_state", "init", "legal_mask", "observe",
           "rank_keys", "resample", "scores"]
