"""The buffer liveness chart: one bar per buffer over the op indices, and the peak.

``liveness_chart(*timelines)`` draws one panel per ``MemoryTimeline``
(``tinycomp.viz.memory_timeline``): a horizontal bar per buffer (light: *held*, from
its allocation to its deallocation; solid: *live*, to its last use; its size at the
right), and under it the bytes held at every op index with the peak marked (dashed:
the bytes live, what freeing every buffer at its last use would hold). Panels stacked
on one x axis compare two states of one program, such as before and after
``buffer-reuse``; the memory axes share one scale.

Colour means one thing: **which buffer**. Each buffer keeps its colour in every panel
(``buffer_swatches``: by name, in the order buffers first appear), so ``%alloc_3`` moving
into ``%alloc``'s memory after reuse is the same colour in both panels; no two buffers
share a swatch (past the palette's colours, hatchings tell them apart); a name written
on a bar is black or white, whichever contrasts more with it. Everything that is not a
buffer is grey or black: the held bars and the memory curves.

The text twin lists the same numbers, with a row of characters per buffer when the
function is short: ``#`` live, ``-`` held but dead, ``.`` not held.

>>> from tinycomp.ir import parse
>>> from tinycomp.viz.memory_timeline import memory_timeline
>>> m = parse('''func.func @f(%v: f32, %out: memref<4xf32>) {
...   %a = memref.alloc() : memref<4xf32>
...   linalg.fill ins(%v : f32) outs(%a : memref<4xf32>)
...   %b = memref.alloc() : memref<4xf32>
...   memref.copy %a, %b : memref<4xf32> to memref<4xf32>
...   memref.copy %b, %out : memref<4xf32> to memref<4xf32>
...   return
... }''')
>>> print(liveness_chart(memory_timeline(m, "as written")).text)
buffer liveness (x: op index)
as written: 2 buffers, peak 32 B at op 3 (live at most 32 B)
  buffer  bytes  live  held  123456
  %a         16  1..4  1..6  ####--
  %b         16  3..5  3..6  ..###-
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.viz.bytes_chart import format_bytes
from tinycomp.viz.memory_timeline import BufferLifetime, MemoryTimeline
from tinycomp.viz.palette import Swatch, swatches
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import figure_to_picture, house_style

__all__ = ["buffer_swatches", "liveness_chart"]

HELD_FILL, HELD_EDGE = "#e4e4e4", "#9a9a9a"  # a buffer's memory while it is held
HELD_LINE, LIVE_LINE = "#555555", "#000000"  # the bytes held (solid), live (dashed)

_GANTT_LIMIT = 80
"""The longest function (in op indices) whose text twin gets a character per op."""


# -- the text twin -----------------------------------------------------------------------------
def _gantt(row: BufferLifetime, last: int) -> str:
    marks = []
    for index in range(1, last + 1):
        if row.is_live_at(index):
            marks.append("#")
        elif row.is_held_at(index):
            marks.append("-")
        else:
            marks.append(".")
    return "".join(marks)


def _ruler(last: int) -> str:
    return "".join(str(index % 10) for index in range(1, last + 1))


def _row_count(timeline: MemoryTimeline) -> str:
    """``12 buffers``, or ``4 buffers holding 12`` when some rows are shared."""
    count = len(timeline.buffers)
    holders = sum(len(b.live) for b in timeline.buffers)
    text = f"{count} buffer" + ("" if count == 1 else "s")
    return text + (f" holding {holders}" if holders != count else "")


def _timeline_text(timeline: MemoryTimeline) -> list[str]:
    """The heading of one timeline and its table (one row per buffer)."""
    if not timeline.buffers:
        return [f"{timeline.label}: no buffers, peak 0 B"]
    most_live = format_bytes(max(timeline.live_bytes(), default=0))
    heading = (
        f"{timeline.label}: {_row_count(timeline)}, peak {format_bytes(timeline.peak)} "
        f"at op {timeline.peak_at} (live at most {most_live})"
    )
    shared = any(len(b.live) > 1 for b in timeline.buffers)
    gantt = timeline.last <= _GANTT_LIMIT
    headers = ["buffer", "bytes", "live", "held"] + (["holders"] if shared else [])
    headers += [_ruler(timeline.last)] if gantt else []
    rows = []
    for b in timeline.buffers:
        size = "?" if b.bytes is None else str(b.bytes)
        live = ", ".join(f"{start}..{end}" for _, start, end in b.live)
        cells = [b.name, size, live, f"{b.held[0]}..{b.held[1]}"]
        cells += [", ".join(b.holders)] if shared else []
        cells += [_gantt(b, timeline.last)] if gantt else []
        rows.append(cells)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = [heading]
    for cells in [headers, *rows]:
        padded = [
            cell.rjust(width) if column == 1 else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        lines.append(("  " + "  ".join(padded)).rstrip())
    return lines


def _chart_text(timelines: Sequence[MemoryTimeline], title: str | None) -> str:
    heading = "buffer liveness" + (f' "{title}"' if title else "") + " (x: op index)"
    lines = [heading]
    for timeline in timelines:
        lines += _timeline_text(timeline)
    if len(timelines) > 1:
        peaks = ", ".join(f"{t.label} {format_bytes(t.peak)}" for t in timelines)
        lines.append(f"peak: {peaks}")
    return "\n".join(lines)


# -- the drawing ---------------------------------------------------------------------------------
def buffer_swatches(timelines: Sequence[MemoryTimeline]) -> dict[str, Swatch]:
    """One swatch per buffer of all ``timelines``, by name, in the order the buffers first
    appear (every holder of a shared slot counts); no two are equal.

    >>> from tinycomp.passes.bufferize import LiveInterval
    >>> from tinycomp.viz.memory_timeline import slot_timeline
    >>> a, b = LiveInterval("%a", 1, 2, 64), LiveInterval("%b", 3, 4, 64)
    >>> before = slot_timeline([a, b], [0, 1], "before", 5)
    >>> after = slot_timeline([a, b], [0, 0], "after", 5)
    >>> colors = buffer_swatches([before, after])
    >>> list(colors), colors["%b"] != colors["%a"]
    (['%a', '%b'], True)
    """
    names = [name for t in timelines for row in t.buffers for name in row.holders]
    names = list(dict.fromkeys(names))
    return dict(zip(names, swatches(len(names)), strict=True))


def _unit(largest: int) -> tuple[str, int]:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if largest >= size:
            return unit, size
    return "B", 1


def _bar(ax, row: int, start: int, end: int, **style) -> None:
    """A bar over op indices ``start..end`` (each index one unit wide)."""
    ax.barh(row, end - start + 1, left=start - 0.5, height=0.7, **style)


def _draw_bars(
    ax, timeline: MemoryTimeline, points_per_op: float, colors: dict[str, Swatch]
) -> None:
    """One row per buffer: held (light grey), live (in the holder's colour, its name on it
    when it fits), the size at the right."""
    for row, lifetime in enumerate(timeline.buffers):
        _bar(ax, row, *lifetime.held, color=HELD_FILL, edgecolor=HELD_EDGE, linewidth=0.6)
        for holder, start, end in lifetime.live:
            swatch = colors[holder]
            edge = "white" if not swatch.hatch else swatch.ink
            style = {"color": swatch.color, "edgecolor": edge, "hatch": swatch.hatch or None}
            _bar(ax, row, start, end, linewidth=0.8, **style)
            fits = (end - start + 1) * points_per_op >= len(holder) * 4.6 + 4
            if len(lifetime.live) > 1 and fits:
                middle = (start + end) / 2
                box = {"boxstyle": "square,pad=0.1", "color": swatch.color, "linewidth": 0}
                ax.text(middle, row, holder, ha="center", va="center", fontsize=7.5,
                        color=swatch.ink, bbox=box if swatch.hatch else None)  # fmt: skip
        size = "?" if lifetime.bytes is None else format_bytes(lifetime.bytes)
        ax.text(lifetime.held[1] + 0.7, row, size, va="center", fontsize=8, color="#444444")
    ax.set_yticks(range(len(timeline.buffers)), [b.name for b in timeline.buffers], fontsize=8)
    ax.set_ylim(len(timeline.buffers) - 0.4, -0.6)
    ax.grid(axis="y", visible=False)
    peak = format_bytes(timeline.peak)
    ax.set_title(f"{timeline.label}: {_row_count(timeline)}, peak {peak}", loc="left", fontsize=10)


def _draw_memory(ax, timeline: MemoryTimeline, unit: str, size: int) -> None:
    """Bytes held per op index (filled steps), bytes live (dashed), the peak marked."""
    edges = [index + 0.5 for index in range(timeline.last + 1)]  # op i spans i-0.5..i+0.5
    held = [value / size for value in timeline.held_bytes()]
    live = [value / size for value in timeline.live_bytes()]
    ax.stairs(held, edges, fill=True, color=HELD_FILL, linewidth=0)
    ax.stairs(held, edges, color=HELD_LINE, linewidth=1.4, label="held")
    ax.stairs(
        live,
        edges,
        color=LIVE_LINE,
        linewidth=1.1,
        linestyle="--",
        label="live (freed at last use)",
    )
    peak = timeline.peak / size
    ax.plot([timeline.peak_at], [peak], marker="o", color=LIVE_LINE, markersize=5)
    right = timeline.peak_at > 0.6 * timeline.last
    ax.annotate(
        f"peak {format_bytes(timeline.peak)} at op {timeline.peak_at}",
        (timeline.peak_at, peak),
        xytext=(0, 5),
        textcoords="offset points",
        fontsize=8,
        ha="right" if right else "left",
        va="bottom",
    )
    ax.set_ylabel(f"held ({unit})", fontsize=9)


def liveness_chart(*timelines: MemoryTimeline, title: str | None = None) -> Picture:
    """One panel per timeline (module docstring); memory axes share one scale, so the
    peaks compare at a glance. The text twin is the table of every panel.

    >>> from tinycomp.passes.bufferize import LiveInterval
    >>> from tinycomp.viz.memory_timeline import slot_timeline
    >>> buffers = [LiveInterval("%a", 1, 2, 64), LiveInterval("%b", 3, 4, 64)]
    >>> chart = liveness_chart(slot_timeline(buffers, [0, 0], "one slot", 5))
    >>> print(chart.text)
    buffer liveness (x: op index)
    one slot: 1 buffer holding 2, peak 64 B at op 1 (live at most 64 B)
      buffer  bytes  live        held  holders  12345
      slot 0     64  1..2, 3..4  1..4  %a, %b   ####.
    """
    if not timelines:
        raise ValueError("liveness_chart needs at least one MemoryTimeline")
    from matplotlib.figure import Figure

    last = max(t.last for t in timelines)
    unit, size = _unit(max(t.peak for t in timelines))
    ratios = []
    for timeline in timelines:
        ratios += [max(len(timeline.buffers), 1) * 0.3 + 0.5, 1.2]
    width = 7.5
    points_per_op = width * 72 * 0.82 / (last + 4)
    colors = buffer_swatches(timelines)
    with house_style():
        fig = Figure(figsize=(width, sum(ratios) + 0.6), layout="constrained")
        axes = fig.subplots(len(ratios), 1, sharex=True, height_ratios=ratios)
        memory_axes = axes[1::2]
        for number, timeline in enumerate(timelines):
            _draw_bars(axes[2 * number], timeline, points_per_op, colors)
            _draw_memory(memory_axes[number], timeline, unit, size)
        top = max(t.peak for t in timelines) / size
        for ax in memory_axes:
            ax.set_ylim(0, top * 1.45 if top else 1)
        axes[-1].set_xlim(0.5, last + 3.5)
        axes[-1].set_xlabel("op index (position in the function)")
        axes[-1].xaxis.get_major_locator().set_params(integer=True)
        handles, labels = memory_axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=8)
        if title is not None:
            fig.suptitle(title, fontsize=12)
    return figure_to_picture(fig, _chart_text(timelines, title))
