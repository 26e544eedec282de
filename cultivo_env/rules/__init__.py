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

Every rule is a named function below: ``place_wheat``, ``apply_scales``, ``pay_feasible``,
``amount_values``, ``travel_search``, ``produce_amount``, ``can_build``, ``purchase_feasible``,
``refill_line``, ``end_turn``, ``goods_triples``, ``building_points``, ``final_score``.

The kernels live in one module per rule area (the sections the single ``rules.py`` had);
every name is re-exported here, so ``cultivo_env.rules`` is the kernel module it was as one file:

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
* ``step``: applying a decision (``apply``);
* ``observation``: ``observe`` and ``resample``;
* ``validation``: ``check_state``.
"""

from __future__ import annotations

import numpy as np

from cultivo_env.layout import (
    A_AMOUNT,
    A_COLOUR,
    A_EXCHANGE,
    A_FIELD,
    A_KIND,
    A_REFILL,
    A_SLOT,
    A_SPLIT,
    A_STALL,
    ACT,
    ACT_ACQUIRE,
    ACT_BUILD,
    ACT_MOVE,
    ACT_NONE,
    ACT_PLACE,
    ACT_PRODUCE,
    ACTIONS_LEFT,
    ACTIONS_PER_TURN,
    AGG,
    AGG_LEN,
    BARGE,
    BARREL,
    BUILD_EQUIP_VP,
    BUILD_FIELD,
    BUILD_GOODS,
    BUILD_WHEAT,
    BUILDING,
    BUILDINGS_TOTAL,
    BUILT,
    CART,
    CASTLE,
    CASTLE_PER_VILLAGE,
    END_BUILDINGS,
    END_MARKET_LEFT,
    END_TRIGGERED,
    EQ_COST,
    EQ_VP,
    EQUIP_LOC,
    EXTRA_ACTION_WORKER,
    FIELD_COLOUR,
    FIELDS_PER_VILLAGE,
    FINAL_ROUND,
    GOODS_S,
    LOC_MARKET,
    LOC_OUT,
    LOC_OWNED,
    LOC_STACK,
    MANOR,
    MANOR_PER_WORKER,
    MARKET,
    MARKET_COLOUR,
    MARKET_SLOTS,
    MARKET_W,
    MAX_AMOUNT,
    MAX_FIELDS,
    MAX_OBL,
    MAX_PAY_OUTCOMES,
    MAX_PLACES,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_STACK,
    MILL_PER_WORKER,
    MONASTERY,
    MONASTERY_MAX,
    MONASTERY_PER_WORKER,
    MOVER,
    NEIGH,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_EQUIP,
    NUM_FIELDS,
    NUM_PHASES,
    NUM_PLACES,
    NUM_TILES,
    NUM_TYPES,
    O_ACT,
    O_ACTIONS_LEFT,
    O_AMOUNT,
    O_END,
    O_FIELDS,
    O_MARKET,
    O_NEXT_VP,
    O_OWNER,
    O_PAY_SEATS,
    O_PAY_SUPPLY,
    O_PHASE,
    O_ROUND,
    O_SEATS,
    O_SLOT,
    O_SPLIT,
    O_STACK_N,
    O_STALL,
    O_START,
    OBL_CANAL_KIND,
    OBL_COLOUR,
    OBL_FIELD_KIND,
    OBL_KIND,
    OBL_N,
    OBL_OCC,
    OBL_WHERE,
    OBS_OFF,
    OBS_SEAT,
    P_MAX_ROUNDS,
    P_PLAYERS,
    P_RANDOM_VILLAGES,
    P_START,
    PATH,
    PATH_N,
    PATTERN,
    PAY_I,
    PAY_T,
    PAY_TN,
    PH_ACQUIRE,
    PH_ACTION,
    PH_BUILD,
    PH_EXCHANGE,
    PH_MOVE_TARGET,
    PH_MOVE_WORKER,
    PH_ORIGIN,
    PH_PAY,
    PH_PLACE_TARGET,
    PH_PRODUCE,
    PH_REFILL,
    PH_SPLIT,
    PH_STALL,
    PH_START,
    PH_STEP,
    PLACE_FLIP,
    PLACE_TILE,
    PLACE_WHEAT_ARR,
    REFILL,
    REFILL_CHOICE,
    ROUND,
    SCALES,
    SETUP_LEFT,
    SLOT,
    SPLIT,
    STACK,
    STACK_BY_COUNT,
    STACK_N,
    STALL,
    STALL_CHOICE,
    STALL_K,
    STALL_OPTIONS,
    START,
    STATE_LEN,
    SUPPLY,
    TARGET,
    TOOL,
    TOWER,
    TOWER_MAX,
    TOWER_PER_BUILDING,
    TURNS,
    VISITED,
    VP_TILE_ARR,
    VP_TILES_S,
    WORKER,
    WORKERS,
    WORKERS_ON_MAP,
    WORKSHOP,
    WORKSHOP_MAX,
    WORKSHOP_PER_TYPE,
    YELLOW,
)
from cultivo_env.rules.accessors import (
    bit,
    copy_range,
    equipment_value,
    goods,
    grow,
    owner,
    owns,
    pay_context,
    place_of,
    place_wheat,
    write_context,
)
from cultivo_env.rules.market import (
    agg_hash,
    apply_stall_choice,
    canon_dp,
    own_stalls,
    purchase_feasible,
    purchase_inits,
    same_agg,
    stage_options,
    stall_recipient,
)
from cultivo_env.rules.masks import (
    legal_mask,
    mask_action,
    mask_payment,
    mask_simple,
    mask_travel,
)
from cultivo_env.rules.observation import (
    observe,
    resample,
)
from cultivo_env.rules.outcomes import (
    K_B,
    K_B0,
    K_BU,
    K_TAG,
    TC_LEN,
    TC_M,
    TC_Q,
    TC_W,
    amount_trivial,
    amount_values,
    backward_fill,
    build_obligations,
    colour_deltas,
    colour_outcomes,
    colour_outcomes_cached,
    deltas_fill,
    deltas_into,
    forward_fill,
    group_steps,
    join_fill,
    join_ok,
    join_steps,
    keep_layer,
    keep_outcomes,
    kept_outcomes,
    label_plus,
    new_back_cache,
    new_table,
    set_add,
    set_amount,
    set_contains,
    set_full,
    set_hash,
    set_put,
    travel_counts,
)
from cultivo_env.rules.payment import (
    CACHE_MAX,
    CACHE_N,
    CACHE_SLOTS,
    DP_MEMO,
    DPW_LEN,
    MEMO_FE,
    MEMO_IN,
    MEMO_NFE,
    MEMO_NIN,
    NEG,
    TBL_LEN,
    WS_BOWN,
    WS_COWN,
    WS_DPW,
    WS_E,
    WS_F,
    WS_GP,
    WS_GSP,
    WS_H,
    WS_KEYS,
    WS_LAB,
    WS_P,
    WS_P0,
    WS_SCAL,
    WS_STL,
    WS_TBL,
    WS_VALS,
    affordable,
    apply_scales,
    pay_feasible,
    stall_score,
)
from cultivo_env.rules.scoring import (
    building_points,
    equipment_points,
    final_score,
    goods_triples,
    rank_keys,
    scores,
    tiebreak_goods,
)
from cultivo_env.rules.setup import (
    assign_colours,
    init,
    setup_equipment,
    setup_map,
)
from cultivo_env.rules.step import (
    apply,
    apply_decision,
    apply_legal,
    auto_advance,
    begin_stalls,
    finish_build,
    finish_payment,
    finish_place,
    finish_purchase,
    gain,
    next_amount,
    start_payment,
    step_to,
)
from cultivo_env.rules.travel import (
    S_CANAL,
    S_CANAL_MAX,
    S_FIELD_MAX,
    S_FOREIGN,
    S_GUARD,
    S_GUARD3,
    S_LANES,
    S_LOW3,
    SEARCH_FULL,
    WS_FIELD_ROWS,
    WS_LABELS,
    WS_LEN,
    bounds_feasible,
    cached_feasible,
    field_bits,
    free_neighbour_same_village,
    greedy_feasible,
    greedy_order,
    load_context,
    move_targets,
    nearest_open,
    new_ws,
    no_dearer,
    origin_ok,
    own_worker_fields,
    path_summary,
    place_targets,
    search_labels,
    step_ok,
    summary_canal,
    summary_feasible,
    summary_floor,
    summary_pass,
    travel_search,
    travel_wheat,
    ws_affordable,
)
from cultivo_env.rules.turn import (
    build_cost,
    can_build,
    check_end_trigger,
    clear_action,
    complete_action,
    end_game,
    end_turn,
    line_empty,
    market_count,
    produce_amount,
    refill_line,
)
from cultivo_env.rules.validation import (
    U_BUILD,
    U_MOVER,
    U_PATH,
    U_PAY,
    U_PURCHASE,
    U_REFILL,
    U_STALL,
    U_TARGET,
    check_idle_context,
    check_payment,
    check_stall_choices,
    check_state,
    check_turn_context,
    check_unused,
    phase_uses,
    unkept_outcomes,
)
from gamecore.header import H_CURRENT, H_DONE, H_NPLAYERS, H_OWNER, H_PHASE, H_RNG, H_TERMINAL
from gamecore.jit import jit
from gamecore.kernels import check_header, clip8, count_decision
from gamecore.rng import rng_below, rng_seed, rng_shuffle

STATE_LEN = STATE_LEN  # re-exported: part of the kernel interface
#: ``apply_legal`` keeps the mask of its forced-decision check (see ``gamecore.protocol``)
APPLY_LEGAL_FUSED = True
