"""Progress of a long run on stderr: a tqdm bar on a terminal, else a plain line per tenth.

A log file, a pipe or CI gets at most ten lines (no carriage-return noise); a terminal gets a
bar. The plain lines' rate leaves out the seconds numba spent compiling since the count started
(:func:`gamecore.kernel.jit.compile_seconds`): a cold cache's first steps do not drag it down.
``examples/train.py`` (steps) and ``python -m gamecore arena`` (games) report through it::

    progress = Progress(400, "game")
    for done in ...:
        progress.update(done)           # the count so far
    progress.close()
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class Progress:
    """Report ``done`` out of ``total`` ``unit``s to ``stream`` (stderr by default)."""

    def __init__(self, total: int, unit: str, stream: TextIO | None = None, label: str = "progress") -> None:
        self.total = max(int(total), 1)
        self.unit = unit
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.done = 0
        self.t0 = time.perf_counter()
        self.compiling0 = _compile_seconds()
        self.next_tenth = 1
        self.bar: Any = None
        if hasattr(self.stream, "isatty") and self.stream.isatty():
            try:
                from tqdm.auto import tqdm
            except ImportError:  # no tqdm: plain lines on the terminal too
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=self.total, unit=unit, dynamic_ncols=True, file=self.stream, desc=label)

    def update(self, done: int, total: int | None = None) -> None:
        """The count so far (not an increment), out of ``total`` when it is first known here; lines
        are printed when a tenth is passed."""
        if total is not None and int(total) != self.total:
            self.total = max(int(total), 1)
            if self.bar is not None:
                self.bar.total = self.total
                self.bar.refresh()
        done = min(int(done), self.total)
        if done <= self.done:
            return
        if self.bar is not None:
            self.bar.update(done - self.done)
        elif done * 10 >= self.next_tenth * self.total:
            busy = time.perf_counter() - self.t0 - (_compile_seconds() - self.compiling0)
            rate = done / max(busy, 1e-9)
            speed = f"{rate:.0f}" if rate >= 10 else f"{rate:.2f}"
            print(f"{self.label}: {done}/{self.total} {self.unit}s ({100 * done / self.total:.0f}%), "
                  f"{speed} {self.unit}s/s", file=self.stream, flush=True)
            self.next_tenth = done * 10 // self.total + 1
        self.done = done

    __call__ = update  # a Progress is also the ``progress(done, total)`` callback of arena.play

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _compile_seconds() -> float:
    from gamecore.kernel.jit import compile_seconds

    return compile_seconds()


__all__ = ["Progress"]
