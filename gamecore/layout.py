"""Named blocks of a flat array, allocated in order: state layouts and observation layouts.

A game's state is one int64 array and its observation one int8 array; both are sequences of named
blocks. Writing their offsets by hand (``BOARD = 16``) and keeping three copies of them in sync
(docstring, constants, kernel) is the bug this module removes: a :class:`Layout` hands out the
offsets in order, can never overlap two blocks, and writes the docstring table itself::

    ST = state_layout()                       # the shared header comes first
    SIDE = ST.add("SIDE", 1, "board side: 0 = A, 1 = B")
    BOARD = ST.add("BOARD", 4 * 25, "BOARD + 25 * seat + sq: 0 empty, else 1 + tile")
    STATE_LEN = ST.size
    __doc__ = __doc__.replace("{STATE_TABLE}", ST.table())

The returned offsets are plain ``int``: numba freezes module-level ints as compile-time constants,
so kernels pay nothing for them. An observation whose layout depends on the player count gets one
:class:`Layout` per count (:func:`per_count`), the kernel reads the offsets for its count from the
int64 table of :func:`offsets_table`, and :func:`table_by_count` documents all counts side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Block:
    name: str
    offset: int
    size: int
    meaning: str

    @property
    def end(self) -> int:
        return self.offset + self.size


class Layout:
    """Blocks of a flat array, handed out in order (no gaps unless :meth:`pad`, no overlaps)."""

    def __init__(self, title: str, start: int = 0) -> None:
        self.title = title
        self.start = int(start)
        self.size = int(start)
        self.blocks: list[Block] = []
        self._by_name: dict[str, Block] = {}

    def add(self, name: str, size: int, meaning: str) -> int:
        """Allocate ``size`` slots named ``name`` after the last block; return the offset."""
        if name in self._by_name:
            raise ValueError(f"{self.title}: block {name!r} allocated twice")
        if int(size) != size or size < 0:
            raise ValueError(f"{self.title}: block {name!r} has a bad size {size!r}")
        block = Block(name, self.size, int(size), " ".join(meaning.split()))
        self.blocks.append(block)
        self._by_name[name] = block
        self.size += int(size)
        return block.offset

    def pad(self, to: int) -> None:
        """Leave the slots up to ``to`` unused (e.g. to keep later offsets stable)."""
        if to < self.size:
            raise ValueError(f"{self.title}: cannot pad back from {self.size} to {to}")
        self.size = int(to)

    def __getitem__(self, name: str) -> Block:
        return self._by_name[name]

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def offset(self, name: str) -> int:
        return self._by_name[name].offset

    def names(self) -> list[str]:
        return [b.name for b in self.blocks]

    def check(self) -> None:
        """Blocks are disjoint, in order, and inside ``size`` (true by construction; kept as an
        executable statement of the invariant)."""
        end = self.start
        for b in self.blocks:
            assert b.offset >= end, f"{self.title}: {b.name} overlaps the block before it"
            end = b.end
        assert end <= self.size

    def table(self) -> str:
        """The layout as an RST table: ``Index | Name | Meaning``."""
        rows = []
        for b in self.blocks:
            index = str(b.offset) if b.size == 1 else f"{b.offset}..{b.end - 1}"
            if b.size == 0:
                index = "-"
            rows.append((index, f"``{b.name}``", b.meaning))
        return rst_table(("Index", "Name", "Meaning"), rows)


def per_count(build: Callable[[int], Layout], counts: Iterable[int]) -> dict[int, Layout]:
    """One layout per player count, e.g. ``OBS = per_count(obs_layout, range(2, 5))``."""
    return {int(n): build(int(n)) for n in counts}


def offsets_table(layouts: dict[int, Layout], names: Iterable[str]) -> np.ndarray:
    """``T[n, k]`` = offset of block ``names[k]`` for player count ``n`` (rows for other counts
    are 0); a read-only int64 array for kernels."""
    names = list(names)
    table = np.zeros((max(layouts) + 1, len(names)), dtype=np.int64)
    for n, lay in layouts.items():
        for k, name in enumerate(names):
            table[n, k] = lay.offset(name)
    table.setflags(write=False)
    return table


def table_by_count(layouts: dict[int, Layout], markdown: bool = False) -> str:
    """All counts side by side: ``Name | offset for n = 2 | n = 3 | ... | Size | Meaning``
    (the size column shows each count's size when they differ); RST, or markdown for the env
    docstrings (which PettingZoo writes in markdown)."""
    counts = sorted(layouts)
    first = layouts[counts[0]]
    headers = ("Name", *[f"{n}p" for n in counts], "Size", "Meaning")
    rows = []
    for b in first.blocks:
        sizes = sorted({layouts[n][b.name].size for n in counts})
        size = str(sizes[0]) if len(sizes) == 1 else " / ".join(str(layouts[n][b.name].size) for n in counts)
        rows.append((f"``{b.name}``", *[str(layouts[n].offset(b.name)) for n in counts], size, b.meaning))
    rows.append(("total", *[str(layouts[n].size) for n in counts], "", "observation length"))
    if markdown:
        return markdown_table(headers, [tuple(c.replace("``", "`") for c in r) for r in rows])
    return rst_table(headers, rows)


def rst_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    rule = "  ".join("=" * w for w in widths)

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([rule, line(headers), rule, *[line(r) for r in rows], rule])


def markdown_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)
