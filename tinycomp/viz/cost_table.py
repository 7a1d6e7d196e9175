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
>>> cost_table_text(state).splitlines()[2].split()  # kernel, loops, FLOPs, bytes, FLOP/B, share
['%max', '=', 'linalg.generic', 'd0=2', 'd1=4', '8', '48', 'B', '0.167', '15%']
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

from tinycomp.ir.dialects.linalg_base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.perf.kernel_cost import kernel_cost
from tinycomp.viz.fusion_graph import format_bytes

__all__ = ["CostState", "KernelRow", "cost_table_svg", "cost_table_text", "kernel_rows", "stack"]

CHANGED = "#b35900"
"""Orange: a number that changed since the state before (4.9:1 on white)."""
BAR = "#0072b2"
"""Blue: a kernel's share of the bytes."""
FONT = 'font-family="DejaVu Sans Mono, monospace" font-size="12"'
CHAR = 7.3  # advance of one 12px DejaVu Sans Mono character
ROW = 18
BAR_WIDTH = 200
COLUMNS = (("kernel", 34, "start"), ("loops", 34, "start"), ("FLOPs", 10, "end"),
           ("bytes", 11, "end"), ("FLOP/B", 8, "end"))  # fmt: skip
"""The table's columns: heading, width in characters, alignment."""


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


def _cells(row: KernelRow) -> tuple[str, ...]:
    return (row.kernel, row.loops, str(row.flops), format_bytes(row.bytes), f"{row.intensity:.3g}")


def cost_table_text(state: CostState) -> str:
    """The table as text: one line per kernel, then the total."""
    header = "  ".join(f"{name:<{width}}" if align == "start" else f"{name:>{width}}"
                       for name, width, align in COLUMNS)  # fmt: skip
    lines = [header.rstrip() + "  share of bytes"]
    total = KernelRow("total", "", state.flops, state.bytes)
    for row in (*state.rows, total):
        cells = []
        for (_, width, align), cell in zip(COLUMNS, _cells(row), strict=True):
            cells.append(f"{cell:<{width}}" if align == "start" else f"{cell:>{width}}")
        share = row.bytes / state.bytes if state.bytes else 0.0
        lines.append("  ".join(cells) + f"  {share:>5.0%}")
    return "\n".join(lines)


def cost_table_svg(state: CostState, before: CostState | None) -> tuple[str, float, float]:
    """The table drawn: its SVG elements, height and width. Cells that differ from the
    same kernel's cells in ``before`` are orange; the share bar of ``before`` is an
    outline."""
    old = {row.kernel: row for row in before.rows} if before is not None else {}
    old_total = before.bytes if before is not None else 0
    x_positions, x = [], 8.0
    for _, width, align in COLUMNS:
        x_positions.append(x + (width * CHAR if align == "end" else 0))
        x += (width + 2) * CHAR
    bar_left = x
    parts = []
    for (name, _, align), column_x in zip(COLUMNS, x_positions, strict=True):
        parts.append(f'<text x="{column_x:.1f}" y="14" {FONT} font-weight="bold" '
                     f'text-anchor="{align}">{name}</text>')  # fmt: skip
    parts.append(f'<text x="{bar_left:.1f}" y="14" {FONT} font-weight="bold">'
                 "share of bytes (0-100%)</text>")  # fmt: skip
    total = KernelRow("total", "", state.flops, state.bytes)
    previous_total = KernelRow("total", "", before.flops, before.bytes) if before else None
    for number, row in enumerate((*state.rows, total), start=1):
        y = 14 + number * ROW
        was = previous_total if row is total else old.get(row.kernel)
        for index, ((_, width, align), column_x, cell) in enumerate(
            zip(COLUMNS, x_positions, _cells(row), strict=True)
        ):
            moved = was is not None and _cells(was)[index] != cell
            colour = CHANGED if moved else "#1f2328"
            weight = ' font-weight="bold"' if row is total else ""
            shown = html.escape(cell if len(cell) <= width else cell[: width - 1] + "…")
            parts.append(f'<text x="{column_x:.1f}" y="{y}" {FONT} fill="{colour}"{weight} '
                         f'text-anchor="{align}">{shown}</text>')  # fmt: skip
        if row is total:
            continue
        share = row.bytes / state.bytes if state.bytes else 0.0
        parts.append(f'<rect x="{bar_left:.1f}" y="{y - 11}" width="{share * BAR_WIDTH:.1f}" '
                     f'height="13" fill="{BAR}"/>')  # fmt: skip
        if was is not None and old_total:
            old_share = was.bytes / old_total
            if not math.isclose(old_share, share, abs_tol=1e-3):
                parts.append(
                    f'<rect x="{bar_left:.1f}" y="{y - 11}" width="{old_share * BAR_WIDTH:.1f}" '
                    'height="13" fill="none" stroke="#24292f" stroke-dasharray="4 2"/>'
                )
    rows = len(state.rows) + 1
    axis_y = 14 + rows * ROW - ROW + 6
    parts.append(f'<line x1="{bar_left:.1f}" y1="{axis_y}" x2="{bar_left + BAR_WIDTH:.1f}" '
                 f'y2="{axis_y}" stroke="#57606a"/>')  # fmt: skip
    height = 14 + (rows + 1) * ROW
    return "\n".join(parts), height, bar_left + BAR_WIDTH + 16


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
