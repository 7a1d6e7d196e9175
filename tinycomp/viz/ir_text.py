"""IR shown as text: the one display object behind IR listings and IR diffs.

An :class:`IRText` is a :class:`~tinycomp.viz.Picture` whose notebook output is text:

- ``text/plain`` is the text twin (the IR itself for a listing, the unified diff for a
  diff), exactly what ``print`` shows and what nbval compares;
- ``text/html`` is the same lines with MLIR syntax colours (:mod:`~tinycomp.viz.mlir_lexer`),
  line numbers in a column of their own (so selecting the code copies only the code),
  and no wrapping inside a line: a long line scrolls sideways instead.

The HTML uses only inline styles, which JupyterLab keeps when it sanitizes the output of
an untrusted notebook, so a listing looks the same before and after the notebook is
trusted; ``tests/nbval_sanitize.cfg`` blanks it (it changes with Pygments versions).
The ``svg`` field draws the same rows in a monospace font, for explorers that show
pictures as images.

What is shown is a list of :class:`Pane` (one, or two side by side), each a list of
:class:`Line`: a ``kind`` (:data:`KINDS`), the line numbers and the text.

>>> shown = ir_text("%0 = arith.addf %a, %b : f32", [Pane((Line("code", "%0 = ...", (1,)),))])
>>> sorted(shown._repr_mimebundle_())
['text/html', 'text/plain']
>>> print(shown)
%0 = arith.addf %a, %b : f32
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from tinycomp.viz.mlir_lexer import MlirLexer, colour_of
from tinycomp.viz.picture import Picture

__all__ = ["KINDS", "IRText", "Line", "Pane", "ir_text"]

KINDS = {  # kind -> (background, style of the text)
    "code": (None, ""),
    "context": (None, ""),
    "highlight": ("#fff8c5", ""),
    "removed": ("#ffebe9", ""),
    "added": ("#dafbe1", ""),
    "blank": ("#f6f8fa", ""),
    "fold": ("#f6f8fa", "color:#57606a;font-style:italic"),
}
"""Every kind of line: ``code`` (a listing), ``highlight`` (a line picked out),
``context``/``removed``/``added`` (a diff), ``blank`` (no line facing the other
side), ``fold`` (a message standing for unchanged lines left out)."""
_HEADER_COLOURS = {"removed": "#82071e", "added": "#116329", "note": "#57606a", "title": None}

_BOX = (
    "overflow-x:auto;background-color:#ffffff;color:#1f2328;border:1px solid #d0d7de;"
    "border-radius:6px;margin:0.25em 0;padding:0;max-width:100%"
)
_HEADER = "padding:2px 8px;background-color:#f6f8fa;border-bottom:1px solid #d0d7de"
_TABLE = (
    "border-collapse:collapse;border:none;margin:0;table-layout:auto;width:auto;"
    "background-color:#ffffff"
)
_ROW = "background-color:#ffffff"  # inline, so JupyterLab's table-row hover colour stays off
_CELL = (
    "padding:4px 8px;border:none;vertical-align:top;text-align:left;white-space:pre;"
    "background-color:#ffffff"
)
_NUMBERS = "position:sticky;left:0;background-color:#ffffff;border-right:1px solid #d0d7de"
_PRE = (
    "margin:0;padding:0;border:none;background-color:transparent;color:inherit;"
    "white-space:pre;line-height:1.45;overflow:visible"
)
_LEXER = MlirLexer(stripnl=False, ensurenl=False)  # keeps leading spaces: the indentation
# Each row is an inline-block as wide as its column (so a band colours the whole row) and
# rows are separated by a newline: copied text has one line per row, and where a viewer
# strips the styles (a static notebook viewer) the rows still stand on lines of their own.
_ROW_BOX = "display:inline-block;width:100%;vertical-align:top"  # top: no baseline gaps
_ROW_BREAK = "\n"
_EMPTY = "min-height:1.45em"  # an empty box has no height; an empty line must keep one

# Geometry of the SVG drawing (SVG user units).
_FONT_SIZE = 12
_CHAR_WIDTH = 7.25  # advance of one character of a 12px monospace font
_ROW_HEIGHT = 16
_PADDING = 8


@dataclass(frozen=True)
class Line:
    """One row: its kind (:data:`KINDS`), the IR line (a message for a fold), the line
    numbers shown beside it (``None`` where a column has none) and, in a unified diff,
    the marker ``-``, ``+`` or a space.

    >>> Line("removed", "  %1 = arith.addf %a, %b : f32", (12, None), "-").numbers
    (12, None)
    """

    kind: str
    text: str
    numbers: tuple[int | None, ...] = ()
    marker: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"expected a line kind from {list(KINDS)}, got {self.kind!r}")


@dataclass(frozen=True)
class Pane:
    """Lines shown one under the other, under an optional ``heading`` (its label) drawn
    in the colour of ``heading_kind`` (``title``, ``removed``, ``added`` or ``note``).

    >>> len(Pane((Line("code", "return", (1,)),), heading="input").lines)
    1
    """

    lines: tuple[Line, ...]
    heading: str | None = None
    heading_kind: str = "title"


@dataclass(frozen=True, repr=False)
class IRText(Picture):
    """IR as text: the twin, an HTML rendering and an SVG drawing of the same lines.

    >>> shown = ir_text("return", [Pane((Line("code", "return", (1,)),))])
    >>> shown.text, "tinycomp-ir" in shown.html
    ('return', True)
    """

    html: str = field(default="")
    """The rendering a notebook shows: colours, line numbers, no wrapping."""

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        """The notebook display: the text twin and the HTML (no picture keys)."""
        return {"text/plain": self.text, "text/html": self.html}


def ir_text(
    text: str,
    panes: Sequence[Pane],
    title: str | None = None,
    notes: Sequence[tuple[str, str]] = (),
) -> IRText:
    """Build the :class:`IRText` that shows ``panes`` (side by side when there are two)
    with text twin ``text``, under ``title`` and ``notes`` (``(kind, text)`` header lines,
    kinds ``removed``, ``added``, ``note`` or ``title``).

    >>> shown = ir_text("a", [Pane((Line("code", "a", (1,)),))], title="one line")
    >>> shown.html.count("tinycomp-ir-title")
    1
    """
    header = ([("title", title)] if title is not None else []) + list(notes)
    return IRText(text=text, svg=_svg(panes, header), html=_html(panes, header))


# -- HTML --------------------------------------------------------------------------------
def _html(panes: Sequence[Pane], header: list[tuple[str, str]]) -> str:
    parts = ['<div class="tinycomp-ir" style="' + _BOX + '">']
    parts += [_header_html(kind, text) for kind, text in header]
    if len(panes) == 1:
        parts.append(_pane_html(panes[0]))
    else:
        width = f"{100 / len(panes):g}%"
        parts.append(
            f'<table style="{_TABLE};table-layout:fixed;width:100%"><tbody><tr style="{_ROW}">'
        )
        for pane in panes:
            scroller = f'<div style="overflow-x:auto">{_pane_html(pane)}</div>'
            parts.append(f'<td style="{_CELL};padding:0;width:{width}">{scroller}</td>')
        parts.append("</tr></tbody></table>")
    parts.append("</div>")
    return "".join(parts)


def _header_html(kind: str, text: str) -> str:
    colour = _HEADER_COLOURS[kind]
    style = _HEADER + (";font-weight:bold" if kind == "title" else "")
    style += "" if colour is None else f";color:{colour}"
    return f'<div class="tinycomp-ir-{kind}" style="{style}">{html.escape(text)}</div>'


def _pane_html(pane: Pane) -> str:
    parts = []
    if pane.heading is not None:
        parts.append(_header_html(pane.heading_kind, pane.heading))
    numbers = [_number_text(line.numbers, _number_width(pane.lines)) for line in pane.lines]
    has_numbers = any(number.strip() for number in numbers)
    parts.append(f'<table class="tinycomp-ir-lines" style="{_TABLE}"><tbody><tr style="{_ROW}">')
    if has_numbers:
        rows = [_number_row(line, number) for line, number in zip(pane.lines, numbers, strict=True)]
        parts.append(
            f'<td class="tinycomp-ir-numbers" style="{_CELL};{_NUMBERS};text-align:right">'
        )
        parts.append(f'<pre style="{_PRE}">{_ROW_BREAK.join(rows)}</pre></td>')
    code = [_code_row(line) for line in pane.lines]
    parts.append(f'<td class="tinycomp-ir-code" style="{_CELL}"><pre style="{_PRE}">')
    parts.append(_ROW_BREAK.join(code) + "</pre></td></tr></tbody></table>")
    return "".join(parts)


def _number_row(line: Line, number: str) -> str:
    """The line number(s) of one row, as a block ``<span>`` on the row's band."""
    style = (
        _band(line) + ";color:#8c959f" + (";font-weight:bold" if line.kind == "highlight" else "")
    )
    return f'<span style="{style}">{html.escape(number)}</span>'


def _code_row(line: Line) -> str:
    """One row of code (coloured) or a fold's message, as a block ``<span>``."""
    style = _band(line)
    if line.kind == "fold":
        body = html.escape(line.text)
        style += ";" + KINDS["fold"][1]
    else:
        body = html.escape(line.marker) + _coloured(line.text)
    if not body:
        style += ";" + _EMPTY
    return f'<span style="{style}">{body}</span>'


def _band(line: Line) -> str:
    """One row as wide as its column, with the background colour of the line's kind."""
    background = KINDS[line.kind][0]
    return _ROW_BOX + ("" if background is None else f";background-color:{background}")


def _coloured(text: str) -> str:
    """``text`` as HTML with one ``<span>`` per run of tokens of the same colour."""
    runs: list[tuple[str | None, str]] = []
    for kind, value in _LEXER.get_tokens(text):
        colour = None if not value.strip() else colour_of(kind)
        if runs and runs[-1][0] == colour:
            runs[-1] = (runs[-1][0], runs[-1][1] + value)
        else:
            runs.append((colour, value))
    return "".join(
        html.escape(value)
        if colour is None
        else f'<span style="color:{colour}">{html.escape(value)}</span>'
        for colour, value in runs
    )


def _number_width(lines: Sequence[Line]) -> int:
    return max((len(str(n)) for line in lines for n in line.numbers if n is not None), default=0)


def _number_text(numbers: tuple[int | None, ...], width: int) -> str:
    """``" 12  14"``: each number right-aligned to ``width``, blanks where one is missing."""
    return " ".join(("" if n is None else str(n)).rjust(width) for n in numbers)


# -- SVG ---------------------------------------------------------------------------------
def _svg(panes: Sequence[Pane], header: list[tuple[str, str]]) -> str:
    """The same rows in a monospace font, panes side by side (deterministic)."""
    columns = []  # per pane: (start column, number width, width in characters)
    start = 0
    for pane in panes:
        numbers = (
            len(_number_text(pane.lines[0].numbers, _number_width(pane.lines))) if pane.lines else 0
        )
        longest = max((len(line.marker + line.text) for line in pane.lines), default=0)
        width = max(numbers + 1 + longest, len(pane.heading or ""))
        columns.append((start, numbers, width))
        start += width + 2
    total = max(start - 2, max((len(text) for _, text in header), default=0))
    rows = len(header) + max((len(p.lines) + (p.heading is not None) for p in panes), default=0)
    width, height = round(2 * _PADDING + total * _CHAR_WIDTH), 2 * _PADDING + rows * _ROW_HEIGHT
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for row, (kind, text) in enumerate(header):
        parts.append(_svg_text(0, row, text, _HEADER_COLOURS[kind] or "#1f2328", kind == "title"))
    for pane, (first, numbers, pane_width) in zip(panes, columns, strict=True):
        row = len(header)
        if pane.heading is not None:
            colour = _HEADER_COLOURS[pane.heading_kind] or "#1f2328"
            parts.append(_svg_text(first, row, pane.heading, colour, True))
            row += 1
        width_numbers = _number_width(pane.lines)
        for line in pane.lines:
            background, _ = KINDS[line.kind]
            if background is not None:
                x, y = _PADDING + first * _CHAR_WIDTH, _PADDING + row * _ROW_HEIGHT
                parts.append(
                    f'<rect x="{x:g}" y="{y}" width="{pane_width * _CHAR_WIDTH:g}" '
                    f'height="{_ROW_HEIGHT}" fill="{background}"/>'
                )
            number = _number_text(line.numbers, width_numbers)
            if number.strip():
                parts.append(_svg_text(first, row, number, "#8c959f"))
            colour = "#57606a" if line.kind == "fold" else "#1f2328"
            parts.append(_svg_text(first + numbers + 1, row, line.marker + line.text, colour))
            row += 1
    parts.append("</svg>")
    return "\n".join(part for part in parts if part) + "\n"


def _svg_text(column: int, row: int, text: str, colour: str, bold: bool = False) -> str:
    if not text:
        return ""
    x, y = _PADDING + column * _CHAR_WIDTH, _PADDING + (row + 1) * _ROW_HEIGHT - 4
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x:g}" y="{y}" font-family="monospace" font-size="{_FONT_SIZE}" '
        f'fill="{colour}" xml:space="preserve" style="white-space:pre"{weight}>'
        f"{html.escape(text)}</text>"
    )
