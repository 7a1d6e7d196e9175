"""A diff of two IR texts, shown as text: what a pass removed (red) and added (green).

The text twin is a unified diff (as ``diff -u`` shows it, ``context`` unchanged lines
around each change), so a test or nbval reads exactly the change. The notebook shows
the same hunks as an :class:`~tinycomp.viz.ir_text.IRText`: coloured MLIR with line
numbers, never cut at any width (long lines scroll), either ``unified`` (one column,
removed lines above the added ones) or ``side-by-side`` (the old text on the left, the
new on the right, a replaced line facing its replacement). Unchanged lines outside the
context are folded into one row that says how many were left out.

Lines are compared up to alias names (:mod:`~tinycomp.viz.alias_names`): when a pass only
renumbers ``#map3`` to ``#map1``, the lines that use it are unchanged, and a header line
says which aliases were renamed.

1. Split both texts into lines; make the comparable form of each line (aliases spelled
   out) and let ``difflib.SequenceMatcher`` match those, grouped into hunks with
   ``context`` unchanged lines around each change (``unified_diff``'s grouping).
2. Turn every hunk into rows: unified, one row per line; side by side, one row per pair
   of lines (a blank where one side has no line).
3. Before, between and after the hunks, one fold row counts the unchanged lines left out.

>>> before = "%0 = arith.addf %a, %b : f32\\n%1 = arith.addf %a, %b : f32\\nreturn %1 : f32"
>>> after = "%0 = arith.addf %a, %b : f32\\nreturn %0 : f32"
>>> print(ir_diff(before, after, "input", "after cse"))
--- input
+++ after cse
@@ -1,3 +1,2 @@
 %0 = arith.addf %a, %b : f32
-%1 = arith.addf %a, %b : f32
-return %1 : f32
+return %0 : f32
"""

from __future__ import annotations

import difflib
from itertools import zip_longest

from tinycomp.ir.operation import Operation
from tinycomp.viz.alias_names import comparable_lines, renamed_aliases
from tinycomp.viz.ir_listing import ir_listing, ir_source
from tinycomp.viz.ir_text import IRText, Line, Pane, ir_text

__all__ = ["LAYOUTS", "diff_counts", "diff_panes", "ir_diff", "ir_listing", "unified_ir_diff"]

LAYOUTS = ("unified", "side-by-side")
"""The layouts of :func:`ir_diff`."""

Opcode = tuple[str, int, int, int, int]
"""One of ``SequenceMatcher``'s opcodes: ``(tag, i1, i2, j1, j2)``."""


def unified_ir_diff(
    before: str | Operation,
    after: str | Operation,
    before_label: str = "before",
    after_label: str = "after",
    context: int = 3,
) -> str:
    """The unified diff of two IR texts, compared up to alias names (a line under the
    header names the renamed aliases); ``(no changes: N identical lines)`` if equal.
    An unchanged line is shown as it reads after the change.

    >>> print(unified_ir_diff("a\\nb\\nc", "a\\nc\\nd", context=0))
    --- before
    +++ after
    @@ -2 +1,0 @@
    -b
    @@ -3,0 +3 @@
    +d
    """
    old, new = _lines(before), _lines(after)
    out = [f"--- {before_label}", f"+++ {after_label}"]
    note = _alias_note(old, new)
    out += [] if note is None else [f"({note})"]
    hunks = _hunks(old, new, context)
    if not hunks:
        return "\n".join(out + [f"({_no_changes(old, new)})"])
    for hunk in hunks:
        out.append(_hunk_header(hunk))
        for tag, i1, i2, j1, j2 in hunk:
            if tag == "equal":
                out += [" " + line for line in new[j1:j2]]
                continue
            out += ["-" + line for line in old[i1:i2]]
            out += ["+" + line for line in new[j1:j2]]
    return "\n".join(out)


def diff_counts(before: str | Operation, after: str | Operation) -> tuple[int, int]:
    """How many lines the change removes and adds, ``(removed, added)``, up to alias names.

    >>> diff_counts("a\\nb\\nc", "a\\nB\\nc\\nd")
    (1, 2)
    >>> old = "#map1 = affine_map<() -> ()>\\nuse #map1"
    >>> diff_counts(old, old.replace("#map1", "#map"))
    (0, 0)
    """
    removed = added = 0
    old, new = _lines(before), _lines(after)
    for tag, i1, i2, j1, j2 in _matcher(old, new).get_opcodes():
        if tag != "equal":
            removed, added = removed + i2 - i1, added + j2 - j1
    return removed, added


def ir_diff(
    before: str | Operation,
    after: str | Operation,
    before_label: str = "before",
    after_label: str = "after",
    *,
    context: int = 3,
    layout: str = "unified",
) -> IRText:
    """The diff from ``before`` to ``after`` (IR texts or ops; the module docstring has an
    example). ``context`` is the number of unchanged lines shown around each change;
    ``layout`` is ``"unified"`` or ``"side-by-side"`` (the text twin is unified either way).

    >>> shown = ir_diff("x", "y", layout="side-by-side")
    >>> shown.text.splitlines()[-2:], shown.html.count("tinycomp-ir-lines")
    (['-x', '+y'], 2)
    """
    if layout not in LAYOUTS:
        raise ValueError(f"expected layout to be one of {LAYOUTS}, got {layout!r}")
    if context < 0:
        raise ValueError(f"expected context to be 0 or more lines, got {context}")
    old, new = _lines(before), _lines(after)
    twin = unified_ir_diff(before, after, before_label, after_label, context)
    panes = diff_panes(old, new, before_label, after_label, context, layout)
    note = _alias_note(old, new)
    notes = [] if note is None else [("note", note)]
    if layout == "unified":
        notes = [("removed", f"--- {before_label}"), ("added", f"+++ {after_label}"), *notes]
    return ir_text(twin, panes, notes=notes)


def diff_panes(
    old: list[str], new: list[str], before_label: str, after_label: str, context: int, layout: str
) -> list[Pane]:
    """Steps 2 and 3: the rows of the diff, one pane (unified) or two (side by side).

    >>> [line.text for line in diff_panes(["a", "b", "c", "d"], ["a", "b", "c", "D"],
    ...                                   "x", "y", 1, "unified")[0].lines]
    ['⋯ 2 unchanged lines', 'c', 'd', 'D']
    """
    left: list[Line] = []
    right: list[Line] = []
    shown_until = 0  # old lines before this one are shown or folded
    for hunk in _hunks(old, new, context):
        _fold(hunk[0][1] - shown_until, left, right, layout)
        for tag, i1, i2, j1, j2 in hunk:
            if layout == "unified":
                left += _unified_rows(tag, old, new, i1, i2, j1, j2)
            else:
                _side_by_side_rows(tag, old, new, i1, i2, j1, j2, left, right)
        shown_until = hunk[-1][2]
    if shown_until == 0 and not _hunks(old, new, context):  # no changes at all
        _fold(len(old), left, right, layout, _no_changes(old, new))
    else:
        _fold(len(old) - shown_until, left, right, layout)
    if layout == "unified":
        return [Pane(tuple(left))]
    return [
        Pane(tuple(left), f"--- {before_label}", "removed"),
        Pane(tuple(right), f"+++ {after_label}", "added"),
    ]


def _unified_rows(
    tag: str, old: list[str], new: list[str], i1: int, i2: int, j1: int, j2: int
) -> list[Line]:
    if tag == "equal":
        return [
            Line("context", new[j], (i + 1, j + 1), " ")
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
        ]
    removed = [Line("removed", old[i], (i + 1, None), "-") for i in range(i1, i2)]
    return removed + [Line("added", new[j], (None, j + 1), "+") for j in range(j1, j2)]


def _side_by_side_rows(
    tag: str,
    old: list[str],
    new: list[str],
    i1: int,
    i2: int,
    j1: int,
    j2: int,
    left: list[Line],
    right: list[Line],
) -> None:
    kinds = ("context", "context") if tag == "equal" else ("removed", "added")
    for i, j in zip_longest(range(i1, i2), range(j1, j2)):
        left.append(Line("blank", "", (None,)) if i is None else Line(kinds[0], old[i], (i + 1,)))
        right.append(Line("blank", "", (None,)) if j is None else Line(kinds[1], new[j], (j + 1,)))


def _fold(
    count: int, left: list[Line], right: list[Line], layout: str, message: str | None = None
) -> None:
    """Step 3: one fold row for ``count`` unchanged lines left out (none for 0)."""
    if count <= 0:
        return
    text = "\u22ef " + (message or f"{count} unchanged line" + ("" if count == 1 else "s"))
    if layout == "unified":
        left.append(Line("fold", text, (None, None)))
    else:
        left.append(Line("fold", text, (None,)))
        right.append(Line("fold", text, (None,)))


def _lines(ir: str | Operation) -> list[str]:
    return ir_source(ir).splitlines()


def _matcher(old: list[str], new: list[str]) -> difflib.SequenceMatcher:
    """Step 1: a matcher over the comparable lines (aliases spelled out)."""
    return difflib.SequenceMatcher(
        None, comparable_lines(old), comparable_lines(new), autojunk=False
    )


def _hunks(old: list[str], new: list[str], context: int) -> list[list[Opcode]]:
    return list(_matcher(old, new).get_grouped_opcodes(context))


def _alias_note(old: list[str], new: list[str]) -> str | None:
    renamed = renamed_aliases(old, new)
    if not renamed:
        return None
    pairs = ", ".join(f"{name} -> {new_name}" for name, new_name in renamed)
    return f"aliases renamed, not counted as changes: {pairs}"


def _no_changes(old: list[str], new: list[str]) -> str:
    count = f"no changes: {len(old)} identical line" + ("" if len(old) == 1 else "s")
    return count if old == new else count + " up to alias names"


def _hunk_header(hunk: list[Opcode]) -> str:
    """``@@ -3,4 +3,2 @@``, numbered as ``unified_diff`` numbers hunks."""
    first, last = hunk[0], hunk[-1]
    return f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"
