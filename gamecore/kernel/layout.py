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

An observation layout also gives every block its range: ``high`` is the largest value each entry
can take (one int for the whole block, or one per entry), from the rules and the kernel that writes
it, and ``range_doc`` says where that maximum comes from or where the kernel clips a value. The
table then has a ``Range`` column, and :meth:`Layout.high_vector` gives the per-entry maxima as one
int vector (what the scaled observation encoding, :mod:`gamecore.envs.encoding`, divides by)::

    OBS.add("CAROUSEL", 30, "cobblestones of colour c on space s", high=3,
            range_doc="0..3 (3 cobblestones of each colour)")
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
    #: largest value of each entry (``size`` ints), or None for a block without a documented range
    #: (state layouts)
    high: tuple[int, ...] | None = None
    #: how the range reads in the tables ("0..3 (3 cobblestones per colour)"); derived from ``high``
    #: when not given
    range_doc: str = ""
    #: the block's axes, C order (``(n, 14)``: entry ``14 * i + j`` is ``[i, j]``); ``(size,)`` when
    #: not given. :meth:`Layout.views` hands the block out in this shape and the tables print it.
    shape: tuple[int, ...] = ()

    @property
    def axes(self) -> tuple[int, ...]:
        """``shape``, or ``(size,)`` for a block declared without one."""
        return self.shape or (self.size,)

    def shape_text(self) -> str:
        """``"3 x 14"`` for a shaped block, the size for a flat one."""
        return " x ".join(str(a) for a in self.axes)

    @property
    def end(self) -> int:
        return self.offset + self.size

    def range_text(self) -> str:
        """The block's range as the tables show it: ``range_doc``, else ``0..high`` (``0..a / 0..b``
        over the entries when they differ), or ``""`` without a range."""
        if self.range_doc:
            return self.range_doc
        if self.high is None:
            return ""
        distinct = sorted(set(self.high))
        return " / ".join(f"0..{h}" for h in distinct) if distinct else "-"


class Layout:
    """Blocks of a flat array, handed out in order (no gaps unless :meth:`pad`, no overlaps)."""

    def __init__(self, title: str, start: int = 0) -> None:
        self.title = title
        self.start = int(start)
        self.size = int(start)
        self.blocks: list[Block] = []
        self._by_name: dict[str, Block] = {}

    def add(self, name: str, size: int, meaning: str, high: int | Iterable[int] | None = None,
            range_doc: str = "", shape: Iterable[int] | None = None) -> int:
        """Allocate ``size`` slots named ``name`` after the last block; return the offset.

        ``high``: the largest value of every entry (an int), or of each entry (``size`` ints);
        ``range_doc``: the range as the tables should state it (where the maximum comes from, where
        the kernel clips); ``shape``: the block's axes in C order (their product is ``size``), which
        the tables print and :meth:`views` uses."""
        if name in self._by_name:
            raise ValueError(f"{self.title}: block {name!r} allocated twice")
        if int(size) != size or size < 0:
            raise ValueError(f"{self.title}: block {name!r} has a bad size {size!r}")
        highs = None
        if high is not None:
            arr = np.asarray(high)
            if arr.dtype.kind not in "iu" or arr.ndim > 1:
                raise ValueError(f"{self.title}: block {name!r}: high must be an int or a sequence of ints")
            highs = tuple(int(h) for h in np.broadcast_to(arr, (int(size),))) if arr.ndim == 0 else \
                tuple(int(h) for h in arr)
            if len(highs) != int(size) or any(h < 0 for h in highs):
                raise ValueError(f"{self.title}: block {name!r}: high needs {int(size)} non-negative ints, "
                                 f"got {len(highs)}")
        axes: tuple[int, ...] = ()
        if shape is not None:
            axes = tuple(int(a) for a in shape)
            if any(a < 0 for a in axes) or int(np.prod(axes, dtype=np.int64)) != int(size):
                raise ValueError(f"{self.title}: block {name!r}: shape {axes} does not hold {int(size)} entries")
        block = Block(name, self.size, int(size), " ".join(meaning.split()), highs, " ".join(range_doc.split()),
                      axes)
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

    def views(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Every block of the flat array ``obs`` (its last axis is the layout; leading axes, a
        batch, are kept) as a named view in the block's shape, in layout order: ``views(obs)["BOARD"]``
        is ``obs[..., off:end].reshape(..., *shape)``. Views, not copies."""
        arr = np.asarray(obs)
        if arr.ndim == 0 or arr.shape[-1] != self.size:
            raise ValueError(f"{self.title}: an array whose last axis is {self.size} long is needed, "
                             f"got shape {arr.shape}")
        lead = arr.shape[:-1]
        return {b.name: arr[..., b.offset : b.end].reshape(*lead, *b.axes) for b in self.blocks}

    def check(self) -> None:
        """Blocks are disjoint, in order, and inside ``size`` (true by construction; kept as an
        executable statement of the invariant)."""
        end = self.start
        for b in self.blocks:
            assert b.offset >= end, f"{self.title}: {b.name} overlaps the block before it"
            end = b.end
        assert end <= self.size

    @property
    def has_ranges(self) -> bool:
        """True when every block has a documented maximum (an observation layout)."""
        return bool(self.blocks) and all(b.high is not None for b in self.blocks)

    def high_vector(self) -> np.ndarray:
        """The largest value of every entry, as an int64 vector of ``size`` (slots left by
        :meth:`pad` are 0); ValueError naming a block without a ``high``."""
        out = np.zeros(self.size, dtype=np.int64)
        for b in self.blocks:
            if b.high is None:
                raise ValueError(f"{self.title}: block {b.name!r} has no documented maximum (high)")
            out[b.offset : b.end] = b.high
        return out

    def table(self) -> str:
        """The layout as an RST table: ``Index | Name | Meaning`` (``Index | Name | Shape | Range |
        Meaning`` when the blocks have ranges: an observation layout)."""
        ranged = self.has_ranges
        rows = []
        for b in self.blocks:
            index = str(b.offset) if b.size == 1 else f"{b.offset}..{b.end - 1}"
            if b.size == 0:
                index = "-"
            rows.append((index, f"``{b.name}``", *((b.shape_text(), b.range_text()) if ranged else ()), b.meaning))
        return rst_table(("Index", "Name", *(("Shape", "Range") if ranged else ()), "Meaning"), rows)


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


def range_by_count(layouts: dict[int, Layout], name: str) -> str:
    """Block ``name``'s range over every count: one text when the counts agree, else each count's
    in count order, ``0..3 / 0..4 / 0..5`` (as the size column does)."""
    counts = sorted(layouts)
    texts = [layouts[n][name].range_text() for n in counts]
    if len(set(texts)) == 1:
        return texts[0]
    return " / ".join(texts)


def table_by_count(layouts: dict[int, Layout], markdown: bool = False) -> str:
    """All counts side by side: ``Name | offset for n = 2 | n = 3 | ... | Shape | Meaning``
    (the size column shows each count's size, or shape, when they differ: ``14 / 17 / 20`` or
    ``2 x 14 / 3 x 14``), with a ``Range`` column before the meaning when the blocks have ranges
    (:func:`range_by_count`); RST, or markdown for the env docstrings (which PettingZoo writes in
    markdown)."""
    counts = sorted(layouts)
    first = layouts[counts[0]]
    ranged = all(lay.has_ranges for lay in layouts.values())
    headers = ("Name", *[f"{n}p" for n in counts], "Shape", *(("Range",) if ranged else ()), "Meaning")
    rows = []
    for b in first.blocks:
        shapes = [layouts[n][b.name].shape_text() for n in counts]
        size = shapes[0] if len(set(shapes)) == 1 else " / ".join(shapes)
        rng = (range_by_count(layouts, b.name),) if ranged else ()
        rows.append((f"``{b.name}``", *[str(layouts[n].offset(b.name)) for n in counts], size, *rng, b.meaning))
    rows.append(("total", *[str(layouts[n].size) for n in counts], "", *(("",) if ranged else ()),
                 "observation length"))
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
