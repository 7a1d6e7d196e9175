"""An IR listing: IR text with line numbers and MLIR colours, lines picked out on request.

``ir_listing(module)`` is what a chapter shows instead of ``print(module)``: the text
twin is exactly what ``print`` would show, and the notebook shows it without wrapping,
coloured, with the line numbers that parse errors and reports cite (line 1 is the first
line of the text, as the parser counts).

>>> listing = ir_listing("func.func @f(%x: f32) -> f32 {\\n  return %x : f32\\n}",
...                      title="identity", highlight=2)
>>> print(listing)
func.func @f(%x: f32) -> f32 {
  return %x : f32
}
>>> [line.kind for line in listing_lines(listing.text, highlight=2)]
['code', 'highlight', 'code']
"""

from __future__ import annotations

from collections.abc import Iterable

from tinycomp.ir.operation import Operation
from tinycomp.viz.ir_text import IRText, Line, Pane, ir_text

__all__ = ["Highlight", "ir_listing", "ir_source", "listing_lines"]

Highlight = int | str | Iterable[int | str] | None
"""Lines to pick out: a line number, a text that the line contains, or several of them."""


def ir_source(ir: str | Operation) -> str:
    """The text of ``ir``: a string as it is, an op or module as ``str(op)`` prints it.

    >>> import tinycomp
    >>> ir_source(tinycomp.parse("func.func @f() {\\n  return\\n}")).splitlines()[0]
    'module {'
    """
    if isinstance(ir, str):
        return ir
    if isinstance(ir, Operation):
        return str(ir)
    raise TypeError(f"expected IR text (a str) or an op such as a module, got {type(ir).__name__}")


def listing_lines(
    text: str, highlight: Highlight = None, lines: tuple[int, int] | None = None
) -> list[Line]:
    """The rows of a listing of ``text``: numbered from 1, ``highlight`` picked out,
    only lines ``first..last`` (inclusive, numbered as in the whole text) if ``lines``.

    >>> [(l.numbers, l.text) for l in listing_lines("a\\nb\\nc", lines=(2, 3))]
    [((2,), 'b'), ((3,), 'c')]
    """
    all_lines = text.split("\n")
    if len(all_lines) > 1 and all_lines[-1] == "":  # a final newline ends a line, adds none
        all_lines.pop()
    first, last = _checked_range(lines, len(all_lines))
    wanted_numbers, wanted_texts = _highlights(highlight, len(all_lines))
    rows = []
    for number in range(first, last + 1):
        line = all_lines[number - 1]
        picked = number in wanted_numbers or any(part in line for part in wanted_texts)
        rows.append(Line("highlight" if picked else "code", line, (number,)))
    return rows


def ir_listing(
    ir: str | Operation,
    title: str | None = None,
    *,
    highlight: Highlight = None,
    lines: tuple[int, int] | None = None,
) -> IRText:
    """Show ``ir`` (IR text, or an op or module) as a numbered, coloured listing.

    - ``title``: a heading above the listing (not part of the text twin);
    - ``highlight``: lines to pick out on a yellow band: line numbers (``3``), texts a
      line contains (``"linalg.generic"``), or a list of both;
    - ``lines``: ``(first, last)`` shows only those lines (1-based, inclusive), still
      numbered as in the whole text; the text twin is then those lines.

    The text twin is the text itself, as ``print`` shows it.

    >>> listing = ir_listing("%0 = arith.constant 1 : i32", title="one op")
    >>> listing.text
    '%0 = arith.constant 1 : i32'
    >>> sorted(listing._repr_mimebundle_())
    ['text/html', 'text/plain']
    """
    text = ir_source(ir)
    rows = listing_lines(text, highlight, lines)
    twin = text if lines is None else "\n".join(row.text for row in rows)
    return ir_text(twin, [Pane(tuple(rows))], title=title)


def _checked_range(lines: tuple[int, int] | None, count: int) -> tuple[int, int]:
    if lines is None:
        return 1, count
    first, last = lines
    if not 1 <= first <= last <= count:
        raise ValueError(
            f"expected lines=(first, last) with 1 <= first <= last <= {count} "
            f"(the text has {count} lines), got {lines!r}"
        )
    return first, last


def _highlights(highlight: Highlight, count: int) -> tuple[set[int], list[str]]:
    """The line numbers and the texts to pick out, after checking them."""
    if highlight is None:
        return set(), []
    items = [highlight] if isinstance(highlight, (int, str)) else list(highlight)
    numbers, texts = set(), []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise TypeError(
                f"expected highlight to hold line numbers or texts, got {type(item).__name__} "
                f"{item!r}"
            )
        if isinstance(item, str):
            texts.append(item)
        elif not 1 <= item <= count:
            raise ValueError(f"expected a line number from 1 to {count} to highlight, got {item}")
        else:
            numbers.add(item)
    return numbers, texts
