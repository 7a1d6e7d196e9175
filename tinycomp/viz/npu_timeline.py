"""An NPU run pipe by pipe: a Gantt chart of which pipe of which core ran what, when.

Every AI core runs its pipes (``S``, ``MTE2``, ``MTE1``, ``M``, ``FIX``, ``V``,
``MTE3``) side by side, each its own queue of instructions; a kernel is fast when loads,
compute and stores overlap, and slow where a pipe stands waiting on a flag.
``npu_timeline_picture`` draws a ``Timeline`` of the simulator in three steps:

1. the cores: all that ran something, or those named, at most ``max_cores`` of them
   (the title says when some are left out);
2. one row per pipe of a shown core that ran something, grouped by core, time in cycles
   across: every op a box coloured by its kind (``KIND_COLORS``), every flag a tick
   where it fired, every wait a hatched grey box, so the eye finds where a pipe stood
   still, which flag let it go, and which pipes overlapped;
3. the text twin: the run's cycles and microseconds, a table per shown core (each
   pipe's busy cycles, its utilisation of the whole run, its waiting cycles, its ops),
   and the ASCII strip of :mod:`~tinycomp.viz.npu_strip`, one row per pipe.

>>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
>>> timeline = Timeline(clock_ghz=1.0, spans=(
...     Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 756.0, line=4),
...     Span("AIV 0.0", "V", "wait_flag MTE2->V #0", "wait", 1.0, 756.0, line=5),
...     Span("AIV 0.0", "V", "vadd", "vector", 756.0, 1016.0, line=6),
... ))
>>> print(npu_timeline_text(timeline, columns=20))
NPU timeline: 1 core, 1016 cycles = 1.016 us at 1 GHz
AIV 0.0:
  pipe  busy cycles  utilisation  waiting cycles  ops
  MTE2  756          74.4%        0               1
  V     260          25.6%        755             1
pipes over time: 20 columns of 50.8 cycles (= dma, # vector, M cube, s scalar or flag, . wait)
  AIV 0.0  MTE2  |===============     |
           V     |...............#####|
                 0                 1016
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.transforms import blended_transform_factory

from tinycomp.targets.npu_sim.timeline import Span, Timeline
from tinycomp.viz.bytes_chart import text_table
from tinycomp.viz.npu_strip import STRIP_COLUMNS, strip_lines
from tinycomp.viz.palette import ink_for
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style

__all__ = ["KIND_COLORS", "WAIT_COLOR", "npu_timeline_picture", "npu_timeline_text"]

KIND_COLORS = {
    "dma": PALETTE[0],  # blue
    "vector": PALETTE[2],  # bluish green
    "cube": PALETTE[1],  # orange
    "scalar": PALETTE[4],  # reddish purple
    "flag": PALETTE[3],  # vermillion
}
"""The fill of each kind of op; waits are ``WAIT_COLOR``, hatched."""
WAIT_COLOR, WAIT_EDGE = "#eeeeee", "#888888"
GROUP_GAP = 0.6
"""Rows of space between two cores."""


def _shown(
    timeline: Timeline, cores: Sequence[str] | None, max_cores: int
) -> tuple[list[str], str]:
    """The cores to show, and a note saying which were left out ("" when none were)."""
    if max_cores < 1:
        raise ValueError(f"expected max_cores of at least 1, got {max_cores}")
    ran = timeline.cores
    asked = list(ran if cores is None else cores)
    unknown = [core for core in asked if core not in ran]
    if unknown:
        raise ValueError(f"expected cores that ran something {list(ran)}, got {unknown}")
    shown = asked[:max_cores]
    if len(shown) == len(ran):
        return shown, ""
    first = "the first " if cores is None else ""
    return shown, f"{first}{len(shown)} of {len(ran)} cores shown"


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.3g}%" if whole else "0%"


def _heading(timeline: Timeline, count: int, title: str | None) -> str:
    name = f' "{title}"' if title else ""
    cores = f"{count} core" + ("" if count == 1 else "s")
    micro = timeline.cycles / timeline.clock_ghz / 1000
    return (
        f"NPU timeline{name}: {cores}, {round(timeline.cycles)} cycles = {micro:.4g} us "
        f"at {timeline.clock_ghz:g} GHz"
    )


def npu_timeline_text(
    timeline: Timeline,
    *,
    cores: Sequence[str] | None = None,
    max_cores: int = 4,
    title: str | None = None,
    columns: int = STRIP_COLUMNS,
) -> str:
    """The text twin of ``npu_timeline_picture`` (module docstring), with a strip of
    ``columns`` characters a pipe.

    >>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
    >>> spans = [Span(f"AIV 0.{i}", "V", "vexp", "vector", 0.0, 64.0) for i in range(2)]
    >>> npu_timeline_text(Timeline(1.0, tuple(spans)), max_cores=1).splitlines()[:2]
    ['NPU timeline: 2 cores, 64 cycles = 0.064 us at 1 GHz', 'the first 1 of 2 cores shown']
    """
    shown, note = _shown(timeline, cores, max_cores)
    lines = [_heading(timeline, len(timeline.cores), title)]
    if note:
        lines.append(note)
    if not shown:
        return "\n".join([*lines, "nothing ran"])
    total = timeline.cycles
    for core in shown:
        rows = []
        for pipe in timeline.pipes(core):
            busy = timeline.busy_cycles(core, pipe)
            ops = sum(1 for span in timeline.on(core, pipe) if span.kind != "wait")
            waiting = round(timeline.waiting_cycles(core, pipe))
            rows.append([pipe, str(round(busy)), _percent(busy, total), str(waiting), str(ops)])
        headers = ["pipe", "busy cycles", "utilisation", "waiting cycles", "ops"]
        lines += [f"{core}:", *text_table(headers, rows)]
    return "\n".join(lines + strip_lines(timeline, shown, columns))


def _box(span: Span, y: float) -> Rectangle:
    if span.kind == "wait":
        return Rectangle((span.start, y + 0.22), span.cycles, 0.56, facecolor=WAIT_COLOR,
                         edgecolor=WAIT_EDGE, hatch="////", lw=0.5)  # fmt: skip
    if span.kind not in KIND_COLORS:
        raise ValueError(
            f"span {span.name!r} on {span.core} {span.pipe}: expected a kind in "
            f"{[*KIND_COLORS, 'wait']}, got {span.kind!r}"
        )
    return Rectangle((span.start, y + 0.1), span.cycles, 0.8, facecolor=KIND_COLORS[span.kind],
                     edgecolor="white", lw=0.5)  # fmt: skip


def npu_timeline_picture(
    timeline: Timeline,
    *,
    cores: Sequence[str] | None = None,
    max_cores: int = 4,
    title: str | None = None,
) -> Picture:
    """A Gantt chart of ``timeline``, one row per pipe of each shown core (module
    docstring); the text twin is ``npu_timeline_text``.

    >>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
    >>> mmad = Span("AIC 0", "M", "mmad", "cube", 0.0, 512.0)
    >>> picture = npu_timeline_picture(Timeline(1.0, (mmad,)), title="one mmad")
    >>> picture.text.splitlines()[0], picture.svg.startswith("<svg")
    ('NPU timeline "one mmad": 1 core, 512 cycles = 0.512 us at 1 GHz', True)
    """
    text = npu_timeline_text(timeline, cores=cores, max_cores=max_cores, title=title)
    shown, note = _shown(timeline, cores, max_cores)
    if not shown:
        return Picture.from_text(text, title=title)
    row_of: dict[tuple[str, str], float] = {}
    groups: list[tuple[str, float, float]] = []  # core, first row, one past its last
    y = 0.0
    for core in shown:
        first = y
        for pipe in timeline.pipes(core):
            row_of[core, pipe] = y
            y += 1.0
        groups.append((core, first, y))
        y += GROUP_GAP
    bottom_row = y - GROUP_GAP
    total = timeline.cycles
    height = 1.6 + bottom_row * 0.3
    width_in = 11.0 * 0.82
    kinds = {span.kind for span in timeline.spans if span.core in shown}
    with house_style():
        fig = Figure(figsize=(11.0, height))
        top, bottom = 0.5 / height, 0.95 / height
        ax = fig.add_axes((0.14, bottom, 0.82, 1 - top - bottom))
        for span in timeline.spans:
            if span.core not in shown:
                continue
            y = row_of[span.core, span.pipe]
            if span.kind == "flag":  # a flag takes no time: a tick where it fired
                ax.plot([span.start, span.start], [y + 0.1, y + 0.9], color=KIND_COLORS["flag"],
                        linewidth=1.0, solid_capstyle="butt")  # fmt: skip
                continue
            ax.add_patch(_box(span, y))
            fits = span.cycles / total * width_in >= 0.068 * len(span.name) + 0.08
            if span.kind != "wait" and fits:
                ink = ink_for(KIND_COLORS[span.kind])
                ax.text(span.start + span.cycles / 2, y + 0.5, span.name, ha="center",
                        va="center", fontsize=8, color=ink)  # fmt: skip
        labels = blended_transform_factory(ax.transAxes, ax.transData)
        for number, (core, first, last) in enumerate(groups):
            ax.text(-0.07, (first + last) / 2, core, transform=labels, ha="right",
                    va="center", fontsize=10, fontweight="bold")  # fmt: skip
            if number:
                ax.axhline(first - GROUP_GAP / 2, color="#bbbbbb", linewidth=0.8)
        ax.set_xlim(0, total)
        ax.set_ylim(bottom_row, 0)
        ax.grid(axis="y", visible=False)
        ax.set_yticks([y + 0.5 for y in row_of.values()], [pipe for _, pipe in row_of])
        ax.tick_params(axis="y", length=0, labelsize=9)
        ax.tick_params(axis="x", labelsize=9)
        micro = total / timeline.clock_ghz / 1000
        ax.set_xlabel(f"cycles at {timeline.clock_ghz:g} GHz ({round(total)} cycles = "
                      f"{micro:.4g} µs)", fontsize=10)  # fmt: skip
        ax.spines["left"].set_visible(False)
        heading = title or f"NPU timeline: {len(timeline.cores)} cores, {round(total)} cycles"
        fig.text(0.5, 1 - 0.1 / height, heading + (f" ({note})" if note else ""),
                 ha="center", va="top", fontsize=12)  # fmt: skip
        handles = [Patch(facecolor=c, label=k) for k, c in KIND_COLORS.items() if k in kinds]
        if "wait" in kinds:
            handles.append(Patch(facecolor=WAIT_COLOR, edgecolor=WAIT_EDGE, hatch="////",
                                 label="wait (the pipe stands still)"))  # fmt: skip
        fig.legend(handles=handles, loc="lower center", ncols=len(handles), fontsize=10)
    return figure_to_picture(fig, text)
