"""One warp's global access drawn against memory: lanes on top, 32-byte sectors below.

``sectors_picture(event)`` draws the 32 lanes of a warp as a row of boxes and, under
them, the memory the request touched: every 128-byte line that holds some lane's bytes,
cut into its four 32-byte sectors (lines that are not touched are left out, and a gap
marks the jump). A line runs from each active lane to its address; the sectors the
request has to move are shaded. The caption says how many sectors moved against the
ideal (``tinycomp.viz.gpu_access.sector_usage``): contiguous f32 moves 4, a stride of 32
elements 32, a load shifted by one element 5.

The text twin lists, per sector, its bytes, its line and the lanes whose bytes it holds.

>>> from tinycomp.viz.gpu_access import warp_access
>>> event = warp_access([4 * lane for lane in range(32)], 4, array="%x", line=7)
>>> print(sectors_picture(event).text)
global load of %x (memref.load, line 7): 32 active lanes, 4 bytes each
4 sectors (ideal 4): 100% efficient; 1 line of 128 B
  sector  bytes    line  lanes
  0       0..31    0     0-7
  1       32..63   0     8-15
  2       64..95   0     16-23
  3       96..127  0     24-31
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from tinycomp.targets.gpu_sim.trace import TraceEvent
from tinycomp.viz.bytes_chart import text_table
from tinycomp.viz.gpu_access import SectorUsage, lane_ranges, sector_usage, warp_access
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style

__all__ = ["describe_access", "sectors_picture", "sectors_text", "warp_access"]

MOVED = PALETTE[0]  # blue: a sector the request moves
LANE_FILL, IDLE_FILL = "#dcebf5", "#eeeeee"  # an active lane, an inactive one
WIRE = "#777777"
LANE_Y, LANE_H = 4.2, 0.8  # the row of lanes (data units: one lane is one unit wide)
MEMORY_Y, MEMORY_H = 1.0, 0.9  # the memory strip
WIDTH = 32.0  # both rows span 0..32


def describe_access(event: TraceEvent) -> str:
    """What the request is, for titles and text twins.

    >>> describe_access(warp_access([0], 4, array="%x", line=7))
    'global load of %x (memref.load, line 7)'
    """
    verb = "store" if event.kind.startswith("st") else "load"
    if event.kind.startswith("atomic"):
        verb = "atomic"
    where = event.op_name + ("" if event.line is None else f", line {event.line}")
    return f"{event.space or 'global'} {verb} of {event.array or 'memory'} ({where})"


def sectors_text(event: TraceEvent, usage: SectorUsage | None = None) -> str:
    """The text twin of ``sectors_picture`` (module docstring)."""
    usage = usage or sector_usage(event)
    lines = len(usage.lines)
    heading = (
        f"{describe_access(event)}: {event.active_lanes} active lanes, "
        f"{event.element_bytes} bytes each"
    )
    summary = f"{usage.caption}; {lines} line{'' if lines == 1 else 's'} of {usage.line_bytes} B"
    per_line = usage.line_bytes // usage.sector_bytes
    rows = []
    for sector, lanes in usage.sectors.items():
        start = sector * usage.sector_bytes
        bytes_ = f"{start}..{start + usage.sector_bytes - 1}"
        rows.append([str(sector), bytes_, str(sector // per_line), lane_ranges(lanes)])
    table = text_table(["sector", "bytes", "line", "lanes"], rows) if rows else ["  no lane active"]
    return "\n".join([heading, summary, *table])


class _MemoryLayout:
    """Where each touched line sits across the strip: lines in runs of consecutive ones,
    a gap between runs, all of them together ``WIDTH`` wide."""

    def __init__(self, usage: SectorUsage) -> None:
        self.line_bytes = usage.line_bytes
        self.lines = list(usage.lines) or [0]
        runs = 1 + sum(b != a + 1 for a, b in zip(self.lines, self.lines[1:], strict=False))
        self.gap = min(1.2, 0.3 * WIDTH / max(runs, 1)) if runs > 1 else 0.0
        self.line_width = (WIDTH - self.gap * (runs - 1)) / len(self.lines)
        self.left: dict[int, float] = {}
        x = 0.0
        for number, line in enumerate(self.lines):
            if number and line != self.lines[number - 1] + 1:
                x += self.gap
            self.left[line] = x
            x += self.line_width

    def x(self, address: float) -> float:
        """The x of a byte address (within a touched line)."""
        line = int(address // self.line_bytes)
        return self.left[line] + (address % self.line_bytes) / self.line_bytes * self.line_width


def sectors_picture(event: TraceEvent, sector_bytes: int = 32, line_bytes: int = 128) -> Picture:
    """Lanes against sectors for one global request (module docstring).

    >>> from tinycomp.viz.gpu_access import warp_access
    >>> shifted = warp_access([4 * lane + 4 for lane in range(32)], 4)
    >>> sectors_picture(shifted).text.splitlines()[1]
    '5 sectors (ideal 4): 80% efficient; 2 lines of 128 B'
    """
    usage = sector_usage(event, sector_bytes, line_bytes)
    layout = _MemoryLayout(usage)
    per_line = line_bytes // sector_bytes
    with house_style():
        fig = Figure(figsize=(10.0, 4.4))
        ax = fig.add_axes((0.03, 0.14, 0.94, 0.68))
        for lane in range(32):
            active = bool(event.active[lane])
            fill = LANE_FILL if active else IDLE_FILL
            edge = "#555555" if active else "#bbbbbb"
            ax.add_patch(Rectangle((lane + 0.06, LANE_Y), 0.88, LANE_H, facecolor=fill,
                                   edgecolor=edge, lw=0.8))  # fmt: skip
            ax.text(lane + 0.5, LANE_Y + LANE_H / 2, str(lane), ha="center", va="center",
                    fontsize=9, color="black" if active else "#999999")  # fmt: skip
        ax.text(0, LANE_Y + LANE_H + 0.25, "lanes of the warp", fontsize=10, va="bottom")
        for line in layout.lines:
            for part in range(per_line):
                sector = line * per_line + part
                x = layout.x(sector * sector_bytes)
                moved = sector in usage.sectors
                ax.add_patch(Rectangle((x, MEMORY_Y), layout.line_width / per_line, MEMORY_H,
                                       facecolor=MOVED if moved else "white",
                                       alpha=0.85 if moved else 1.0, edgecolor="#999999",
                                       lw=0.6))  # fmt: skip
            ax.add_patch(Rectangle((layout.left[line], MEMORY_Y), layout.line_width, MEMORY_H,
                                   fill=False, edgecolor="black", lw=1.4))  # fmt: skip
        for lane, address in enumerate(event.byte_addresses):
            if event.active[lane] and address >= 0:
                target = layout.x(float(address) + min(event.element_bytes, line_bytes) / 2 - 0.5)
                ax.plot([lane + 0.5, target], [LANE_Y, MEMORY_Y + MEMORY_H], color=WIRE, lw=0.8)
        _label_lines(ax, layout)
        ax.set_xlim(-0.2, WIDTH + 0.2)
        ax.set_ylim(0.0, LANE_Y + LANE_H + 0.9)
        ax.axis("off")
        fig.text(0.5, 0.97, f"{describe_access(event)}: which 32-byte sectors must move?",
                 ha="center", va="top", fontsize=12)  # fmt: skip
        fig.text(0.5, 0.90, usage.caption, ha="center", va="top", fontsize=12,
                 fontweight="bold")  # fmt: skip
        handles = [
            Patch(facecolor=MOVED, alpha=0.85, edgecolor="#999999", label="sector moved (32 B)"),
            Patch(facecolor="white", edgecolor="#999999", label="sector not needed"),
            Patch(fill=False, edgecolor="black", lw=1.4, label="128 B line (4 sectors)"),
        ]
        fig.legend(handles=handles, loc="lower center", ncols=3, fontsize=10)
    return figure_to_picture(fig, sectors_text(event, usage))


def _label_lines(ax, layout: _MemoryLayout) -> None:
    """Each line's first byte under it, skipping labels that would run into the last one."""
    last_right = -np.inf
    for line in layout.lines:
        x = layout.left[line]
        label = str(line * layout.line_bytes)
        width = 0.3 * len(label) + 0.3  # data units at 9 pt (one lane is about 0.28 in)
        if x < last_right:
            continue
        ax.text(x, MEMORY_Y - 0.15, label, ha="left", va="top", fontsize=9, color="#444444")
        last_right = x + width
    ax.text(0, MEMORY_Y - 0.65, "memory: only the 128 B lines the warp touches, each "
            "labelled with its first byte", ha="left", va="top", fontsize=10)  # fmt: skip
