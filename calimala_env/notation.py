"""Calimala notation: action <-> string, and the names people read.

Cells are named by column letter and row number (``a1`` top left, ``b2`` the centre, ``c3``
bottom right); a street by its two cells (``b2-b3``). Actions::

    "keep scoring card Lisbon"                 setup: keep a dealt scoring card ("keep a scoring
                                               card" for the other seats: public_action_string)
    "take start card Wood"                     setup: take a start card
    "place white on street b2-b3"              place a disc (coloured / white)
    "take action Artwork"                      carry out a pending street action
    "take action Ship: cannot, draw a card"    ... that cannot be carried out: draw its card
    "play card Wood"                           play an action card
    "end activation"                           end the activation
    "ship: cloth to Lisbon" / "stop shipping"
    "transport: cloth to Troyes" / "stop transporting"
    "build ship" / "build workshop" / "build trade house in Bruges"
    "artwork: marble to Santa Croce"
    "contribute wood to San Miniato"
    "move own disc from street a1-b1 (2nd from top) to the council"
"""

from __future__ import annotations

import numpy as np

from calimala_env import layout as L
from calimala_env.rules.accessors import space_type
from calimala_env.rules.mat import VLEN, can_do, fill_mat
from gamecore.kernel.protocol import H_CURRENT, H_PHASE, VIEW_ALL

ORDINALS = ("top", "2nd from top", "3rd from top")


def street_name(s: int) -> str:
    return L.STREET_NAMES[int(s)]


def parse_street(text: str) -> int:
    t = text.strip().lower()
    if t in L.STREET_NAMES:
        return L.STREET_NAMES.index(t)
    a, _, b = t.partition("-")
    rev = f"{b}-{a}"
    if rev in L.STREET_NAMES:
        return L.STREET_NAMES.index(rev)
    raise ValueError(f"bad street {text!r}: one of {', '.join(L.STREET_NAMES)}")


def street_actions(state: np.ndarray, s: int) -> tuple[str, str]:
    return (L.ACTION_NAMES[int(space_type(state, s, 0))], L.ACTION_NAMES[int(space_type(state, s, 1))])


def _feasible(state: np.ndarray, t: int) -> bool:
    v = np.empty(VLEN, dtype=np.int64)
    fill_mat(state, int(state[H_CURRENT]), v)
    return bool(can_do(v, t))


def action_to_string(state: np.ndarray, action: int) -> str:
    a = int(action)
    if not 0 <= a < L.NUM_ACTIONS:
        raise ValueError(f"action {a} out of range 0..{L.NUM_ACTIONS - 1}")
    if a < L.A_START:
        return f"keep scoring card {L.SCORING_CARD_NAMES[a - L.A_KEEP]}"
    if a < L.A_PLACE:
        return f"take start card {L.ACTION_NAMES[L.START_CARDS[a - L.A_START]]}"
    if a < L.A_RESOLVE:
        s, white = divmod(a - L.A_PLACE, 2)
        return f"place {'white' if white else 'coloured'} on street {street_name(s)}"
    if a < L.A_CARD:
        t = a - L.A_RESOLVE
        if state[H_PHASE] == L.PH_ACTIVATE and not _feasible(state, t):
            return f"take action {L.ACTION_NAMES[t]}: cannot, draw a card"
        return f"take action {L.ACTION_NAMES[t]}"
    if a < L.A_END:
        return f"play card {L.ACTION_NAMES[a - L.A_CARD]}"
    if a == L.A_END:
        return "end activation"
    if a < L.A_TRANSPORT:
        return f"ship: cloth to {L.CITY_NAMES[a - L.A_SHIP]}"
    if a < L.A_STOP:
        return f"transport: cloth to {L.CITY_NAMES[L.FIRST_TRADE + a - L.A_TRANSPORT]}"
    if a == L.A_STOP:
        if state[H_PHASE] == L.PH_TRANSPORT:
            return "stop transporting"
        return "stop shipping"
    if a < L.A_ARTWORK:
        kind = a - L.A_BUILD
        if kind == L.BUILD_SHIP:
            return "build ship"
        if kind == L.BUILD_WORKSHOP:
            return "build workshop"
        return f"build trade house in {L.CITY_NAMES[L.FIRST_TRADE + kind - L.BUILD_HOUSE]}"
    if a < L.A_CONTRIB:
        return f"artwork: marble to {L.BUILDING_NAMES[a - L.A_ARTWORK]}"
    if a < L.A_PROMOTE:
        r, b = divmod(a - L.A_CONTRIB, L.NUM_CHURCHES)
        return f"contribute {L.RESOURCE_NAMES[r]} to {L.BUILDING_NAMES[b]}"
    s, d = divmod(a - L.A_PROMOTE, 3)
    return f"move own disc from street {street_name(s)} ({ORDINALS[d]}) to the council"


def public_action_string(state: np.ndarray, action: int, viewer: int) -> str:
    """:func:`action_to_string` as ``viewer`` may know it: which dealt scoring card another seat
    keeps is secret (only the mover and VIEW_ALL see it); every other decision is public."""
    a = int(action)
    if L.A_KEEP <= a < L.A_START and viewer != VIEW_ALL and viewer != int(state[H_CURRENT]):
        return "keep a scoring card"
    return action_to_string(state, a)


def string_to_action(text: str, state: np.ndarray) -> int:
    """Inverse of :func:`action_to_string` in ``state``."""
    want = " ".join(str(text).split())
    for a in range(L.NUM_ACTIONS):
        if action_to_string(state, a) == want:
            return a
    raise ValueError(f"not a Calimala action here: {text!r}")


def card_names(counts) -> list[str]:
    """A hand (counts per type) as a sorted list of card names."""
    out: list[str] = []
    for t in range(L.NUM_TYPES):
        out += [L.ACTION_NAMES[t]] * int(counts[t])
    return out


def disc_token(d: int) -> str:
    """``"2"`` coloured disc of seat 2, ``"2w"`` white disc placed by seat 2."""
    d = int(d)
    if d >= L.WHITE_BASE:
        return f"{d - L.WHITE_BASE}w"
    return str(d - 1)


def stack_tokens(state: np.ndarray, s: int) -> list[str]:
    """Discs on street s, bottom first."""
    h = int(state[L.STACK_N + s])
    return [disc_token(state[L.STACK + L.MAX_STACK * s + i]) for i in range(h)]
