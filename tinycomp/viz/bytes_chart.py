"""Bytes moved, as text and as bars: ``format_bytes``, ``bytes_moved_chart``.

Fusion (chapter 05) and bufferization (chapter 07) are judged by the bytes a program
moves to and from memory. These helpers print a byte count the way the chapters do
(``96 B``, ``1.5 KiB``), draw the bytes of several programs under several settings as
grouped bars with a text twin, and lay out the twins' tables (``text_table``).

>>> format_bytes(3 << 20)
'3 MiB'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tinycomp.viz.palette import swatches
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import figure_to_picture, house_style, new_figure

__all__ = ["bytes_moved_chart", "format_bytes", "text_table"]


def format_bytes(count: int) -> str:
    """``128 B``, ``1.5 KiB``, ``2 MiB``.

    >>> format_bytes(96), format_bytes(1536), format_bytes(3 << 20)
    ('96 B', '1.5 KiB', '3 MiB')
    """
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.4g} {unit}"
    return f"{count} B"


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Left-aligned columns, two spaces apart, indented by two (the text twins' tables).

    >>> print("\\n".join(text_table(["kernel", "bytes"], [["%mul", "256 B"]])))
      kernel  bytes
      %mul    256 B
    """
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)]
        lines.append(("  " + "  ".join(cells)).rstrip())
    return lines


def bytes_moved_chart(
    bytes_by_program: Mapping[str, Mapping[str, int]], *, title: str | None = None
) -> Picture:
    """Grouped bars: for each program, bytes moved in each setting (``"unfused"``, ...),
    in KiB, or in MiB when some program moves 1 MiB or more. The text twin is the table.

    >>> print(bytes_moved_chart({"softmax": {"unfused": 2048, "fused": 1024}}).text)
    bytes moved (KiB)
      program  unfused  fused
      softmax  2        1
    """
    programs = list(bytes_by_program)
    settings = list(dict.fromkeys(s for row in bytes_by_program.values() for s in row))
    largest = max((v for row in bytes_by_program.values() for v in row.values()), default=0)
    unit, size = ("MiB", 1 << 20) if largest >= 1 << 20 else ("KiB", 1 << 10)
    width = 0.8 / max(len(settings), 1)
    with house_style():
        fig, ax = new_figure()
        for number, (setting, swatch) in enumerate(
            zip(settings, swatches(len(settings)), strict=True)
        ):
            values = [bytes_by_program[p].get(setting, 0) / size for p in programs]
            offset = (number - (len(settings) - 1) / 2) * width
            positions = [i + offset for i in range(len(programs))]
            style = {"color": swatch.color, "hatch": swatch.hatch or None, "edgecolor": "white"}
            ax.bar(positions, values, width=width, label=setting, **style)
        ax.set_xticks(range(len(programs)), programs)
        ax.grid(axis="x", visible=False)
        ax.set_ylabel(f"bytes moved ({unit})")
        if title is not None:
            ax.set_title(title)
        ax.legend()
    rows = [
        [p, *(f"{bytes_by_program[p].get(s, 0) / size:.4g}" for s in settings)] for p in programs
    ]
    heading = f"bytes moved ({unit})" + ("" if title is None else f": {title}")
    return figure_to_picture(fig, "\n".join([heading, *text_table(["program", *settings], rows)]))
