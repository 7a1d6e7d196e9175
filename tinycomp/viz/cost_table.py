"""The FLOPs and bytes of every kernel of a program, as a table: text and picture.

``kernel_rows(module)`` counts every linalg op of a module with chapter 04's count
(``tinycomp.perf.kernel_cost``) and names it as the printer names its result;
``cost_table_text`` and ``cost_table_svg`` show the rows, one line per kernel and a
total, with each kernel's share of the bytes as a bar on a fixed axis from 0 to 100%.
Given the state before, the picture draws the numbers that changed in orange and the old
share as a dashed outline, so a change shows as movement. ``stack`` puts the table above
another picture (the kernel graph).

>>> from tinycomp.frontend import TensorSpec, softmax, trace
>>> state = CostState({"rows": 2, "cols": 4}, "traced",
...                   kernel_rows(trace(softmax, TensorSpec((2, 4)))), "")
>>> cost_table_text(state).splitlines()[2].split()  # kernel, share, FLOPs, bytes, FLOP/B, loops
['%max', '=', 'linalg.generic', '15%', '8', '48', 'B', '0.167', 'd0=2', 'd1=4']
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.perf.kernel_cost import kernel_cost
from tinycomp.viz.bytes_chart import format_bytes

__all__ = ["CostState", "KernelRow", "cost_table_svg", "cost_table_text", "kernel_rows", "stack"]

CHANGED = "#b35900"
"""Orange: a number that changed since the state before (4.9:1 on white)."""
BAR = "#0072b2"
"""Blue: a kernel's share of the bytes."""
FONT = 'font-family="DejaVu Sans Mono, monospace" font-size="12"'
CHAR = 7.3  # advance of one 12px DejaVu Sans Mono character
ROW = 18
BAR_WIDTH = 160
NUMBERS = (("FLOPs", 9), ("bytes", 10), ("FLOP/B", 6))
"""The right-aligned number columns after the bar: heading, width in characters."""


@dataclass(frozen=True)
class KernelRow:
    """One kernel of the table: what it is, its loops, and its cost."""

    kernel: str
    loops: str
    flops: int
    bytes: int

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else 0.0


@dataclass(frozen=True)
class CostState:
    """What one setting of the controls shows."""

    sizes: dict[str, int]
    stage: str
    rows: tuple[KernelRow, ...]
    ir: str

    @property
    def flops(self) -> int:
        return sum(row.flops for row in self.rows)

    @property
    def bytes(self) -> int:
        return sum(row.bytes for row in self.rows)


def kernel_rows(module: Operation) -> tuple[KernelRow, ...]:
    """One row per linalg op of ``module``, named as the printer names its result.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> rows = kernel_rows(trace(lambda a, b: a @ b, TensorSpec((2, 3)), TensorSpec((3, 4))))
    >>> [(row.kernel, row.loops, row.flops, row.bytes) for row in rows]
    [('%1 = linalg.fill', 'd0=2 d1=4', 0, 32), ('%matmul = linalg.matmul', 'm=2 n=4 k=3', 48, 136)]
    """
    names = SSANames(naming_root(module), use_asm_names=True)
    rows = []
    for op in module.walk():
        if not isinstance(op, StructuredOp):
            continue
        cost = kernel_cost(op)
        result = op.results[0] if op.results else op.outputs[0]
        loops = " ".join(
            f"{op.loop_name(position)}={size}"
            for position, size in enumerate(op.static_loop_sizes())
        )
        rows.append(KernelRow(f"{names.value_name(result)} = {op.name}", loops,
                              int(cost.flops), int(cost.bytes)))  # fmt: skip
    return tuple(rows)


def _numbers(row: KernelRow) -> tuple[str, str, str]:
    return str(row.flops), format_bytes(row.bytes), f"{row.intensity:.3g}"


def _share(row: KernelRow, total: int) -> float:
    return row.bytes / total if total else 0.0


def cost_table_text(state: CostState) -> str:
    """The table as text: one line per kernel, then the total, in the picture's columns."""
    total = KernelRow("total", "", state.flops, state.bytes)
    width = max(len(row.kernel) for row in (*state.rows, total))
    header = [f"{'kernel':<{width}}", "share"] + [f"{name:>{w}}" for name, w in NUMBERS]
    lines = ["  ".join([*header, "loops"])]
    for row in (*state.rows, total):
        cells = [f"{row.kernel:<{width}}", f"{_share(row, state.bytes):>5.0%}"]
        cells += [f"{cell:>{w}}" for cell, (_, w) in zip(_numbers(row), NUMBERS, strict=True)]
        lines.append("  ".join([*cells, row.loops]).rstrip())
    return "\n".join(lines)


def _cell(x: float, y: float, text: str, old: str | None, bold: bool, anchor: str = "start") -> str:
    """One cell of the table: orange when ``old`` is known and differs."""
    colour = CHANGED if old is not None and old != text else "#1f2328"
    weight = ' font-weight="bold"' if bold else ""
    return (f'<text x="{x:.1f}" y="{y}" {FONT} fill="{colour}"{weight} '
            f'text-anchor="{anchor}">{html.escape(text)}</text>')  # fmt: skip


def cost_table_svg(state: CostState, before: CostState | None) -> tuple[str, float, float]:
    """The table drawn: its SVG elements, height and width. Columns: the kernel, its share
    of the bytes as a bar on a fixed 0-100% axis (where the kernel names end, so it stays
    put while the sizes change), the numbers, the loops. Cells that differ from the same
    kernel's cells in ``before`` are orange; the bar of ``before`` is a dashed outline."""
    old = {row.kernel: row for row in before.rows} if before is not None else {}
    previous_total = KernelRow("total", "", before.flops, before.bytes) if before else None
    total = KernelRow("total", "", state.flops, state.bytes)
    kernel_width = max(len(row.kernel) for row in (*state.rows, total))
    bar_left = 8 + (kernel_width + 2) * CHAR
    number_ends, x = [], bar_left + BAR_WIDTH + 2 * CHAR
    for _, width in NUMBERS:
        number_ends.append(x + width * CHAR)
        x += (width + 2) * CHAR
    loops_left = x
    bold = f'{FONT} font-weight="bold"'
    parts = [f'<text x="8" y="14" {bold}>kernel</text>',
             f'<text x="{bar_left:.1f}" y="14" {bold}>share of bytes (0-100%)</text>']  # fmt: skip
    for (name, _), end in zip(NUMBERS, number_ends, strict=True):
        parts.append(f'<text x="{end:.1f}" y="14" {bold} text-anchor="end">{name}</text>')
    parts.append(f'<text x="{loops_left:.1f}" y="14" {bold}>loops</text>')
    longest_loops = 5
    for number, row in enumerate((*state.rows, total), start=1):
        y = 14 + number * ROW
        was = previous_total if row is total else old.get(row.kernel)
        bold_row = row is total
        parts.append(_cell(8, y, row.kernel, None, bold_row))
        old_numbers = _numbers(was) if was is not None else (None, None, None)
        for text, old_text, end in zip(_numbers(row), old_numbers, number_ends, strict=True):
            parts.append(_cell(end, y, text, old_text, bold_row, "end"))
        old_loops = was.loops if was is not None else None
        parts.append(_cell(loops_left, y, row.loops, old_loops, bold_row))
        longest_loops = max(longest_loops, len(row.loops))
        if row is total:
            continue
        share = _share(row, state.bytes)
        parts.append(f'<rect x="{bar_left:.1f}" y="{y - 11}" width="{share * BAR_WIDTH:.1f}" '
                     f'height="13" fill="{BAR}"/>')  # fmt: skip
        if was is not None and before is not None:
            old_share = _share(was, before.bytes)
            if not math.isclose(old_share, share, abs_tol=1e-3):
                parts.append(
                    f'<rect x="{bar_left:.1f}" y="{y - 11}" width="{old_share * BAR_WIDTH:.1f}" '
                    'height="13" fill="none" stroke="#24292f" stroke-dasharray="4 2"/>'
                )
    rows = len(state.rows) + 1
    axis_y = 14 + (rows - 1) * ROW + 6
    parts.append(f'<line x1="{bar_left:.1f}" y1="{axis_y}" x2="{bar_left + BAR_WIDTH:.1f}" '
                 f'y2="{axis_y}" stroke="#57606a"/>')  # fmt: skip
    height = 14 + (rows + 1) * ROW
    return "\n".join(parts), height, loops_left + longest_loops * CHAR + 16


def stack(table_svg: str, table_height: float, table_width: float, graph_svg: str) -> str:
    """One SVG: the table on top, the graph's own SVG under it, centred."""
    opening = graph_svg[: graph_svg.index(">") + 1]
    sizes = {}
    for name in ("width", "height"):
        marker = f' {name}="'
        if marker in opening:
            value = opening.split(marker, 1)[1].split('"', 1)[0]
            number = float(value.rstrip("ptx"))
            sizes[name] = number * (4 / 3 if value.endswith("pt") else 1)
    graph_width, graph_height = sizes.get("width", 400.0), sizes.get("height", 300.0)
    inner = opening
    for name in ("width", "height"):
        marker = f' {name}="'
        if marker in inner:
            head, tail = inner.split(marker, 1)
            inner = head + tail.split('"', 1)[1]
    width = max(graph_width, table_width)
    left = (width - graph_width) / 2
    inner = inner[:-1] + (f' x="{left:.0f}" y="{table_height:.0f}" width="{graph_width:.0f}" '
                          f'height="{graph_height:.0f}">')  # fmt: skip
    height = table_height + graph_height
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}">\n'
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>\n{table_svg}\n'
        f"{inner}{graph_svg[len(opening) :]}</svg>\n"
    )
