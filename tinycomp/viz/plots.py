"""Plots in one house style, returned as pictures with a data table as text twin.

Figures are made with ``matplotlib.figure.Figure`` directly, not through
``pyplot``: no global state, no GUI backend, no figure shown twice in a
notebook. The SVG is deterministic (fixed id salt, no date), so drawing the
same data twice gives the same bytes.

>>> pic = bar_chart(["naive", "tiled"], [1.5, 6.25], xlabel="kernel", ylabel="GFLOPS")
>>> print(pic.text)
bar chart
  kernel | GFLOPS
  -------+-------
  naive  |    1.5
  tiled  |   6.25
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from numbers import Integral, Real

import matplotlib
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

from tinycomp.viz.palette import ITEM_COLORS, OKABE_ITO, swatches
from tinycomp.viz.picture import Picture, tidy_svg

__all__ = [
    "HOUSE_STYLE",
    "PALETTE",
    "bar_chart",
    "figure_to_picture",
    "house_style",
    "line_chart",
    "new_figure",
]

PALETTE = OKABE_ITO
"""The Okabe-Ito colours: distinct for readers with any kind of colour blindness. A
picture with more series than colours takes them from ``tinycomp.viz.palette.swatches``,
so no two series look alike."""

LINE_STYLES = ("-", "--", ":", "-.")
"""One per round through the item colours: a line chart's 13th series is dashed."""

HOUSE_STYLE = {
    "font.family": "DejaVu Sans",  # ships with matplotlib, so every machine draws the same
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.prop_cycle": cycler(color=PALETTE),
    "axes.grid": True,
    "axes.axisbelow": True,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "figure.figsize": (6.0, 3.5),
    "svg.fonttype": "path",  # glyphs as paths: no font needed to view the SVG
    "svg.hashsalt": "tinycomp",  # fixed salt: the same figure gives the same element ids
}
"""The rcParams of the house style (see :func:`house_style`)."""

SCALES = {
    "linear": {"value": "linear"},
    "log": {"value": "log"},
    "log2": {"value": "log", "base": 2},
}


@contextmanager
def house_style() -> Iterator[None]:
    """Apply the house style to what is drawn inside the block.

    Styles are read when a figure, a line or a label is made, so draw inside
    the block too: ``with house_style(): fig, ax = new_figure(); ax.plot(...)``.

    >>> with house_style():
    ...     fig = Figure()
    >>> fig.get_size_inches().tolist()
    [6.0, 3.5]
    """
    with matplotlib.rc_context(HOUSE_STYLE):
        yield


def new_figure(figsize: tuple[float, float] | None = None) -> tuple[Figure, Axes]:
    """A figure with one set of axes, in the house style (see :func:`house_style`).

    >>> fig, ax = new_figure()
    >>> ax.plot([1, 2], [3, 4])[0].get_color() == PALETTE[0]
    True
    """
    with house_style():
        fig = Figure(figsize=figsize, layout="tight")
        ax = fig.add_subplot()
    return fig, ax


def figure_to_picture(fig: Figure, text: str) -> Picture:
    """Save ``fig`` as deterministic SVG and pair it with the text twin ``text``.

    The same figure built twice gives the same SVG, byte for byte.

    >>> def diagonal():
    ...     fig, ax = new_figure()
    ...     _ = ax.plot([0, 1], [0, 1])
    ...     return figure_to_picture(fig, "y = x")
    >>> diagonal().svg == diagonal().svg
    True
    """
    buffer = io.StringIO()
    with house_style():
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return Picture(text=text, svg=tidy_svg(buffer.getvalue()))


def bar_chart(
    labels: Sequence[object],
    values: Sequence[float],
    *,
    title: str | None = None,
    xlabel: str = "label",
    ylabel: str = "value",
    figsize: tuple[float, float] | None = None,
) -> Picture:
    """One bar per label; the text twin is the table of labels and values.

    >>> print(bar_chart([4, 8], [1.5, 3.0], title="GEMM", xlabel="tile", ylabel="GFLOPS"))
    bar chart "GEMM"
      tile | GFLOPS
      -----+-------
         4 |    1.5
         8 |      3
    """
    if len(labels) != len(values):
        raise ValueError(f"expected one value per label ({len(labels)}), got {len(values)}")
    with house_style():
        fig, ax = new_figure(figsize)
        ax.bar([str(label) for label in labels], values, color=PALETTE[0])
        ax.grid(axis="x", visible=False)
        _decorate(ax, title, xlabel, ylabel)
    rows = [[label, value] for label, value in zip(labels, values, strict=True)]
    text = [_heading("bar chart", title), *_table([xlabel, ylabel], rows)]
    return figure_to_picture(fig, "\n".join(text))


def line_chart(
    x: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    title: str | None = None,
    xlabel: str = "x",
    ylabel: str = "y",
    xscale: str = "linear",
    yscale: str = "linear",
    figsize: tuple[float, float] | None = None,
) -> Picture:
    """One line per named series over shared ``x``; scales: linear, log or log2.

    >>> pic = line_chart([1, 2, 4], {"naive": [1, 2, 2], "tiled": [1, 3, 6]}, xscale="log2")
    >>> print(pic.text)
    line chart (x: log2)
      x | naive | tiled
      --+-------+------
      1 |     1 |     1
      2 |     2 |     3
      4 |     2 |     6
    """
    for name, ys in series.items():
        if len(ys) != len(x):
            raise ValueError(f"expected series {name!r} to have {len(x)} points, got {len(ys)}")
    for axis, scale in (("xscale", xscale), ("yscale", yscale)):
        if scale not in SCALES:
            raise ValueError(f"expected {axis} to be one of {list(SCALES)}, got {scale!r}")
    with house_style():
        fig, ax = new_figure(figsize)
        for number, ((name, ys), swatch) in enumerate(
            zip(series.items(), swatches(len(series)), strict=True)
        ):
            style = LINE_STYLES[number // len(ITEM_COLORS) % len(LINE_STYLES)]
            ax.plot(x, ys, marker="o", markersize=4, label=name, color=swatch.color, ls=style)
        ax.set_xscale(**SCALES[xscale])
        ax.set_yscale(**SCALES[yscale])
        # On a log2 axis write 4, 8, 16 rather than 2^2, 2^3, 2^4.
        if xscale == "log2":
            ax.xaxis.set_major_formatter(ScalarFormatter())
        if yscale == "log2":
            ax.yaxis.set_major_formatter(ScalarFormatter())
        _decorate(ax, title, xlabel, ylabel)
        if len(series) > 1:
            ax.legend()
    rows = [[point, *(ys[i] for ys in series.values())] for i, point in enumerate(x)]
    scales = {"x": xscale, "y": yscale}
    unusual = {axis: scale for axis, scale in scales.items() if scale != "linear"}
    heading = _heading("line chart", title, unusual)
    text = [heading, *_table([xlabel, *series], rows)]
    return figure_to_picture(fig, "\n".join(text))


def _decorate(ax: Axes, title: str | None, xlabel: str, ylabel: str) -> None:
    if title is not None:
        ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def _heading(kind: str, title: str | None, scales: Mapping[str, str] | None = None) -> str:
    """``line chart "roofline" (x: log2)``: the kind, the title, any non-linear scale."""
    heading = kind if title is None else f"{kind} {json.dumps(title, ensure_ascii=False)}"
    if scales:
        heading += " (" + ", ".join(f"{axis}: {scale}" for axis, scale in scales.items()) + ")"
    return heading


def _format(value: object) -> str:
    """A table cell: integers exactly, other numbers to 4 significant digits."""
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return f"{float(value):.4g}"
    return str(value)


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """Lines of an aligned table: text columns to the left, numbers to the right."""
    cells = [[_format(value) for value in row] for row in rows]
    widths = [
        max([len(header), *(len(row[i]) for row in cells)]) for i, header in enumerate(headers)
    ]
    numeric = [all(isinstance(row[i], Real) for row in rows) for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        padded = []
        for value, width, right in zip(values, widths, numeric, strict=True):
            padded.append(value.rjust(width) if right else value.ljust(width))
        return "  " + " | ".join(padded).rstrip()

    rule = "  " + "-+-".join("-" * width for width in widths)
    return [line(headers), rule, *(line(row) for row in cells)]
