"""Checks of what a caller hands the library: the keyword options of every constructor that is
not the AEC env, how an error echoes a bad value, and the one error an illegal action raises.

The AEC env lists its own keywords in :meth:`gamecore.kernel.protocol.GameSpec.known_options`; the batched
games, the SB3
``VecEnv``, the single-agent Gymnasium env and the RLlib env each take a different set around the
game's options, so each names its own, and an unknown keyword is refused with the list of exactly
what *that* constructor accepts. :func:`short_repr` is how every option error echoes a value: a
value passed by mistake may be huge (a list of a million seeds), and the error shows its start.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # gamecore.kernel.protocol imports short_repr from here
    from gamecore.kernel.protocol import GameSpec

#: characters of a bad value an error message echoes (the rest is counted, not shown)
SHOWN = 60


def short_repr(value: Any) -> str:
    """``repr(value)``, cut to its first :data:`SHOWN` characters (and the length) when longer."""
    text = repr(value)
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}... ({len(text)} characters)"


def one_line(exc: BaseException | str, limit: int = 300) -> str:
    """An error (or a text) on one line, its whitespace runs folded to single spaces and cut to
    ``limit`` characters: how the command line and the loaders quote an error they pass on."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


class IllegalActionError(ValueError):
    """An action that is out of range or not legal where it is applied: the one class every path
    raises (the AEC env, the single-agent env, the OpenSpiel adapter), so catching it catches all."""


def check_options(game: GameSpec, options: Mapping[str, Any], accepted: Iterable[str], where: str) -> None:
    """Raise TypeError if ``options`` holds a keyword that is neither ``num_players``, one of the
    game's own options nor in ``accepted`` (the constructor's other keywords)."""
    own = list(accepted)
    known = ["num_players", *game.option_defaults, *(k for k in own if k not in game.option_defaults)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"{game.name}: {where}: unknown option(s) {', '.join(map(short_repr, unknown))}; "
            f"known options: {', '.join(known)}"
        )


__all__ = ["SHOWN", "IllegalActionError", "check_options", "one_line", "short_repr"]
