"""Sphinx extension: render the game env modules' Markdown docstrings.

Every ``<game>_env/env.py`` docstring is written in Markdown, as PettingZoo's own environment
docs are (``# Title``, ``## Section``, pipe tables, ``*`` lists, single-backtick code), and its
tables are filled in at import time (:func:`gamecore.kernel.layout.table_by_count` with
``markdown=True``). The rest of the package writes reStructuredText. This extension converts that
small Markdown subset to reStructuredText in ``autodoc-process-docstring``, for those modules and
for their ``env`` factories (whose ``__doc__`` is the factory's docstring with the module
docstring appended: the page shows the module docstring once, so the copy is cut there).

Anything outside the subset (a fenced code block, a link, a heading deeper than ``##``) raises,
so that a docstring edit that needs more shows up as a failed build, never as a quietly garbled
page.
"""

from __future__ import annotations

import inspect
import re
import sys
from typing import Any

from sphinx.application import Sphinx

#: modules whose docstrings are Markdown
MARKDOWN_MODULE = re.compile(r"^(callisto|calcada|calimala|cultivo)_env\.env$")

_CODE = re.compile(r"(`+)([^`].*?)\1", re.S)  # a code span may go on over a line break
_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")
_LIST_ITEM = re.compile(r"^(\* |- |\d+\. )")
#: what starts an RST list, comment or block but a Markdown paragraph: ``(a) ...``, ``a) ...``, ``.. x``
_RST_START = re.compile(r"^(\s*)(\(?[A-Za-z#]{1,4}[.)]\s|\(\d+\)\s|\d+\)\s|\.\.)")


def _inline(text: str) -> str:
    """Markdown code spans (any number of backticks) -> RST inline literals."""
    if "](" in text:
        raise ValueError(f"Markdown link not supported in a docstring: {text!r}")
    out, pos = [], 0
    for m in _CODE.finditer(text):
        before, code = text[pos:m.start()], m.group(2).strip()
        out.append(before)
        if before and (before[-1].isalnum() or before[-1] in "\\"):
            out.append("\\ ")
        out.append(f"``{code}``")
        after = text[m.end():m.end() + 1]
        if after and (after.isalnum() or after in "(`"):
            out.append("\\ ")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _cells(line: str) -> list[str]:
    """The cells of a pipe-table row (a ``|`` inside a code span is not a separator)."""
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    cells, cur, in_code = [], [], False
    for ch in line:
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    cells.append("".join(cur).strip())
    return cells


def _table(rows: list[str]) -> list[str]:
    if len(rows) < 2 or not _TABLE_RULE.match(rows[1].strip()):
        raise ValueError(f"pipe table without a header rule: {rows[:2]!r}")
    body = [_cells(rows[0]), *(_cells(r) for r in rows[2:])]
    width = len(body[0])
    out = [".. list-table::", "   :header-rows: 1", ""]
    for cells in body:
        if len(cells) != width:
            raise ValueError(f"pipe table row with {len(cells)} cells, header has {width}: {cells!r}")
        for k, cell in enumerate(cells):
            out.append(("   * - " if k == 0 else "     - ") + _inline(cell))
    return [*out, ""]


def _inline_runs(lines: list[str]) -> list[str]:
    """Code spans converted on each run of lines outside the tables (a span can cross a line
    break, as in a paragraph); table rows are converted cell by cell later."""
    out: list[str] = []
    run: list[str] = []
    for line in [*lines, None]:
        if line is None or line.strip().startswith("|"):
            if run:
                out += _inline("\n".join(run)).split("\n")
                run = []
            if line is not None:
                out.append(line)
        else:
            run.append(line)
    return out


def markdown_to_rst(lines: list[str]) -> list[str]:
    """The Markdown subset of the env docstrings as reStructuredText lines."""
    lines = _inline_runs(lines)
    out: list[str] = []
    i = 0
    in_list = False
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            raise ValueError("fenced code blocks are not supported in the env docstrings")
        if stripped.startswith("#"):
            level = len(stripped) - len(stripped.lstrip("#"))
            if level > 2:
                raise ValueError(f"heading deeper than ## not supported: {stripped!r}")
            out += ["", f".. rubric:: {stripped[level:].strip()}", ""]
            in_list = False
        elif stripped.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(lines[i])
                i += 1
            out += ["", *_table(rows)]
            in_list = False
            continue
        elif _LIST_ITEM.match(line):
            if not in_list and out and out[-1].strip():
                out.append("")  # RST needs a blank line before a list
            in_list = True
            out.append(line)
        elif in_list and line.startswith("  ") and stripped:
            out.append(line)  # continuation of a list item
        else:
            if in_list and stripped:
                out.append("")  # a paragraph after a list
            in_list = in_list and not stripped
            out.append(_RST_START.sub(lambda m: m.group(1) + "\\" + m.group(2), line))
        i += 1
    return [*out, ""]


def _process(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    if what == "module" and MARKDOWN_MODULE.match(name):
        lines[:] = markdown_to_rst(lines)
    elif what == "function" and MARKDOWN_MODULE.match(name.rpartition(".")[0]):
        module_doc = (sys.modules[name.rpartition(".")[0]].__doc__ or "").strip().splitlines()
        text = "\n".join(lines)
        cut = text.find(module_doc[0]) if module_doc else -1
        own = inspect.cleandoc(text[:cut]).splitlines() if cut > 0 else lines[:]
        lines[:] = markdown_to_rst(own)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", _process)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
