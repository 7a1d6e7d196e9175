"""A coloured diff of two IR texts: what a pass removed (red) and added (green).

The text twin is the unified diff (``difflib.unified_diff``, with ``context`` lines of
context around each change), so a test or nbval reads exactly what ``diff -u`` shows.
The SVG draws the same hunks as monospace rows, with line numbers: removed lines on a
red background, added lines on green, unchanged lines dimmed, and a marker such as
``... 14 unchanged lines ...`` where unchanged lines are left out. ``layout="side-by-side"``
puts the old text on the left and the new on the right instead.

The algorithm:

1. Split both texts into lines and let ``difflib.SequenceMatcher`` find the matching
   blocks, grouped into hunks with ``context`` unchanged lines around each change (the
   same grouping ``unified_diff`` uses, so picture and text twin show the same hunks).
2. Turn every hunk into rows: an ``@@`` header, then one row per line (unified) or one
   row per pair of lines (side by side: a replaced line faces its replacement).
3. Between hunks, and before the first and after the last, count the unchanged lines
   left out and add one marker row for them.
4. Draw the rows: a background rectangle where a row is coloured, then its text.

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
import html
from dataclasses import dataclass
from itertools import zip_longest

from tinycomp.viz.picture import Picture

__all__ = ["diff_counts", "ir_diff", "ir_listing", "unified_ir_diff"]

LAYOUTS = ("unified", "side-by-side")
FONT_SIZE = 12
CHAR_WIDTH = 7.25  # advance of one character of a 12px monospace font
ROW_HEIGHT = 16
PADDING = 8
LONGEST_LINE = 110  # characters drawn of one line (the text twin keeps all of them)
NUMBER_WIDTH = 4  # characters of a line-number column
UNIFIED_TEXT_COLUMN = 2 * (NUMBER_WIDTH + 1) + 2  # two line numbers, then "- " or "+ "
MARKERS = {"context": "  ", "removed": "- ", "added": "+ "}

# kind -> (background, text colour, extra SVG text attributes)
STYLES = {
    "header": (None, "#24292f", ' font-weight="bold"'),
    "hunk": ("#eaeef2", "#57606a", ""),
    "elided": (None, "#8c959f", ' font-style="italic"'),
    "context": (None, "#8c959f", ""),
    "plain": (None, "#24292f", ""),
    "removed": ("#ffebe9", "#82071e", ""),
    "added": ("#dafbe1", "#116329", ""),
    "number": (None, "#afb8c1", ""),
    "blank": ("#f6f8fa", "#24292f", ""),
}


@dataclass(frozen=True)
class _Span:
    """Text at ``column`` (in characters), on a coloured band ``width`` characters wide."""

    column: int
    width: int
    text: str
    kind: str


Row = list[_Span]


def unified_ir_diff(
    before: str,
    after: str,
    before_label: str = "before",
    after_label: str = "after",
    context: int = 3,
) -> str:
    """The unified diff of two IR texts; ``(no changes: N identical lines)`` if equal.

    >>> print(unified_ir_diff("a\\nb\\nc", "a\\nc\\nd", context=0))
    --- before
    +++ after
    @@ -2 +1,0 @@
    -b
    @@ -3,0 +3 @@
    +d
    """
    old, new = before.splitlines(), after.splitlines()
    lines = list(difflib.unified_diff(old, new, before_label, after_label, n=context, lineterm=""))
    if not lines:
        lines = [f"--- {before_label}", f"+++ {after_label}", f"(no changes: {_lines(len(old))})"]
    return "\n".join(lines)


def diff_counts(before: str, after: str) -> tuple[int, int]:
    """How many lines the change removes and adds: ``(removed, added)``.

    >>> diff_counts("a\\nb\\nc", "a\\nB\\nc\\nd")
    (1, 2)
    """
    removed = added = 0
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines())
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed, added = removed + i2 - i1, added + j2 - j1
    return removed, added


def ir_diff(
    before: str,
    after: str,
    before_label: str = "before",
    after_label: str = "after",
    *,
    context: int = 3,
    layout: str = "unified",
) -> Picture:
    """A coloured diff from ``before`` to ``after`` (the module docstring has an example).

    ``context`` is the number of unchanged lines shown around each change;
    ``layout`` is ``"unified"`` or ``"side-by-side"`` (the text twin is unified either way).

    >>> ir_diff("x", "y", layout="side-by-side").svg.count('fill="#ffebe9"')
    1
    """
    if layout not in LAYOUTS:
        raise ValueError(f"expected layout to be one of {LAYOUTS}, got {layout!r}")
    if context < 0:
        raise ValueError(f"expected context to be 0 or more lines, got {context}")
    old, new = before.splitlines(), after.splitlines()
    rows = _side_by_side_rows if layout == "side-by-side" else _unified_rows
    drawn = rows(old, new, before_label, after_label, context)
    text = unified_ir_diff(before, after, before_label, after_label, context)
    return Picture(text=text, svg=_draw(drawn, title=f"{before_label} -> {after_label}"))


def ir_listing(text: str, title: str | None = None) -> Picture:
    """IR text drawn with line numbers; the text twin is ``text`` itself.

    >>> pic = ir_listing("module {\\n}", title="input")
    >>> pic.text, pic.svg.count("<text ")
    ('module {\\n}', 5)
    """
    rows: list[Row] = []
    if title is not None:
        rows.append([_Span(0, 0, title, "header")])
    for number, line in enumerate(text.splitlines(), start=1):
        rows.append([_number(0, number), _Span(NUMBER_WIDTH + 1, 0, _clip(line), "plain")])
    return Picture(text=text, svg=_draw(rows, title=title or "IR"))


# -- steps 1 to 3: rows ----------------------------------------------------------------
def _hunks(old: list[str], new: list[str], context: int) -> list[list[tuple]]:
    """Step 1: the grouped opcodes, exactly as ``unified_diff`` groups them."""
    return list(difflib.SequenceMatcher(None, old, new).get_grouped_opcodes(context))


def _elided(count: int, width: int) -> list[Row]:
    """Step 3: one marker row for ``count`` unchanged lines left out (none for 0)."""
    if count <= 0:
        return []
    return [[_Span(0, width, f"... {_lines(count, 'unchanged line')} ...", "elided")]]


def _unified_rows(
    old: list[str], new: list[str], before_label: str, after_label: str, context: int
) -> list[Row]:
    width = UNIFIED_TEXT_COLUMN + min(LONGEST_LINE, max(map(len, old + new), default=0))
    rows: list[Row] = [
        [_Span(0, 0, f"--- {before_label}", "header")],
        [_Span(0, 0, f"+++ {after_label}", "header")],
    ]
    shown_until = 0  # old lines up to here are shown or counted as elided
    for hunk in _hunks(old, new, context):
        first, last = hunk[0], hunk[-1]
        rows += _elided(first[1] - shown_until, width)
        header = _hunk_header(first[1], last[2], first[3], last[4])
        rows.append([_Span(0, width, header, "hunk")])
        for tag, i1, i2, j1, j2 in hunk:  # step 2
            if tag == "equal":
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                    rows.append(_unified_row("context", i + 1, j + 1, old[i], width))
                continue
            rows += [_unified_row("removed", i + 1, None, old[i], width) for i in range(i1, i2)]
            rows += [_unified_row("added", None, j + 1, new[j], width) for j in range(j1, j2)]
        shown_until = last[2]
    if len(rows) == 2:  # no changes at all
        return rows + _elided(len(old), width)
    return rows + _elided(len(old) - shown_until, width)


def _unified_row(
    kind: str, old_number: int | None, new_number: int | None, line: str, width: int
) -> Row:
    """``  12    - %1 = arith.addf ...``: the line numbers, a marker and the line."""
    row = [] if kind == "context" else [_Span(0, width, "", kind)]  # the coloured band
    if old_number is not None:
        row.append(_number(0, old_number))
    if new_number is not None:
        row.append(_number(NUMBER_WIDTH + 1, new_number))
    text = MARKERS[kind] + _clip(line)
    row.append(
        _Span(UNIFIED_TEXT_COLUMN - 2, 0, text.rstrip() if kind == "context" else text, kind)
    )
    return row


def _side_by_side_rows(
    old: list[str], new: list[str], before_label: str, after_label: str, context: int
) -> list[Row]:
    pane = NUMBER_WIDTH + 3 + min(LONGEST_LINE // 2, max(map(len, old + new), default=0))
    right = pane + 2  # the right pane starts after a gap of two characters
    width = right + pane
    headers = [_Span(0, 0, f"--- {before_label}", "header")]
    headers.append(_Span(right, 0, f"+++ {after_label}", "header"))
    rows: list[Row] = [headers]
    shown_until = 0
    for hunk in _hunks(old, new, context):
        first, last = hunk[0], hunk[-1]
        rows += _elided(first[1] - shown_until, width)
        header = _hunk_header(first[1], last[2], first[3], last[4])
        rows.append([_Span(0, width, header, "hunk")])
        for tag, i1, i2, j1, j2 in hunk:  # step 2: pair the lines of each opcode
            kinds = ("context", "context") if tag == "equal" else ("removed", "added")
            pairs = zip_longest(range(i1, i2), range(j1, j2))
            for i, j in pairs:
                rows.append(_pane(0, pane, i, old, kinds[0]) + _pane(right, pane, j, new, kinds[1]))
        shown_until = last[2]
    if len(rows) == 1:
        return rows + _elided(len(old), width)
    return rows + _elided(len(old) - shown_until, width)


def _pane(start: int, width: int, index: int | None, lines: list[str], kind: str) -> Row:
    """One side of a side-by-side row: a line number and the line, or a blank band."""
    if index is None:
        return [_Span(start, width, "", "blank")]
    text = _clip(lines[index], width - NUMBER_WIDTH - 1)
    return [
        _Span(start, width, "", kind),
        _number(start, index + 1),
        _Span(start + NUMBER_WIDTH + 1, 0, text, kind),
    ]


def _hunk_header(i1: int, i2: int, j1: int, j2: int) -> str:
    """``@@ -3,4 +3,2 @@``, numbered as ``unified_diff`` numbers hunks."""
    return f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@"


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _clip(line: str, room: int = LONGEST_LINE) -> str:
    """``line``, cut to ``room`` characters with an ellipsis when it is longer."""
    return line if len(line) <= room else line[: room - 1] + "\u2026"


def _number(column: int, number: int) -> _Span:
    return _Span(column, 0, str(number).rjust(NUMBER_WIDTH), "number")


def _lines(count: int, noun: str = "identical line") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# -- step 4: drawing -------------------------------------------------------------------
def _draw(rows: list[Row], title: str) -> str:
    """Monospace rows as one ``<svg>`` element (deterministic: fixed sizes and order)."""
    ends = [span.column + max(span.width, len(span.text)) for row in rows for span in row]
    columns = max(ends, default=0)
    width = round(2 * PADDING + columns * CHAR_WIDTH)
    height = 2 * PADDING + len(rows) * ROW_HEIGHT
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{html.escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for number, row in enumerate(rows):
        top = PADDING + number * ROW_HEIGHT
        for span in row:
            background, color, extra = STYLES[span.kind]
            x = PADDING + span.column * CHAR_WIDTH
            if background is not None and span.width > 0:
                parts.append(
                    f'<rect x="{x:g}" y="{top}" width="{span.width * CHAR_WIDTH:g}" '
                    f'height="{ROW_HEIGHT}" fill="{background}"/>'
                )
            if span.text:
                parts.append(
                    f'<text x="{x:g}" y="{top + ROW_HEIGHT - 4}" font-family="monospace" '
                    f'font-size="{FONT_SIZE}" fill="{color}" style="white-space:pre"{extra}>'
                    f"{html.escape(span.text)}</text>"
                )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
