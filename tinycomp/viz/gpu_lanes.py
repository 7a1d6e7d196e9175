"""The lanes of one warp over its instructions: which lanes ran each step.

``warp_lanes_picture(trace)`` draws a ``WarpTrace`` (``tinycomp.targets.gpu_sim.trace``)
as a grid: one row per warp instruction, top to bottom in issue order, labelled with
its op and source line; 32 columns, one per lane; a cell filled where the lane was
active, in the colour of the instruction's class (fp32, ld_global, branch...). A warp
that diverges runs both sides of a branch one after the other, each with part of its
lanes: the rows of an ``scf.if`` on ``lane < 16`` alternate between the left and the
right half. The caption gives the SIMT efficiency: active lanes over ``32 x`` steps.

The text twin has one line per step, the lanes as 32 characters (``#`` active, ``.``
not):

>>> import numpy as np
>>> from tinycomp.targets.gpu_sim.trace import TraceEvent, WarpTrace
>>> low = np.arange(32) < 16
>>> trace = WarpTrace("k", (0, 0, 0), 0, [
...     TraceEvent(0, "arith.cmpi", 4, "int", np.ones(32, bool)),
...     TraceEvent(1, "arith.addf", 5, "fp32", low),
...     TraceEvent(2, "arith.mulf", 7, "fp32", ~low)])
>>> print(warp_lanes_picture(trace).text)
warp 0 of block (0, 0, 0) in @k: 3 steps, SIMT efficiency 66.7%
  step  line  op          lanes 0-31                        active  class
  0     4     arith.cmpi  ################################  32      int
  1     5     arith.addf  ################................  16      fp32
  2     7     arith.mulf  ................################  16      fp32
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from tinycomp.targets.gpu_sim.counters import INSTRUCTION_CLASSES
from tinycomp.targets.gpu_sim.trace import TraceEvent, WarpTrace
from tinycomp.viz.bytes_chart import text_table
from tinycomp.viz.gpu_access import percent
from tinycomp.viz.palette import swatches
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import figure_to_picture, house_style

__all__ = ["class_colors", "lane_mask", "simt_efficiency", "warp_lanes_picture", "warp_lanes_text"]

WARP = 32
MAX_STEPS = 48
"""The most steps drawn (and listed); the rest are counted in a last line."""
IDLE = "#eeeeee"


def lane_mask(event: TraceEvent) -> str:
    """The active lanes as 32 characters, lane 0 first: ``#`` active, ``.`` not.

    >>> import numpy as np
    >>> lane_mask(TraceEvent(0, "gpu.barrier", None, "barrier", np.arange(32) % 2 == 0))
    '#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.'
    """
    return "".join("#" if lane else "." for lane in event.active[:WARP])


def simt_efficiency(trace: WarpTrace) -> float:
    """Active lanes over ``32 x`` steps (1.0 for a warp that never diverged or no steps).

    >>> import numpy as np
    >>> half = TraceEvent(0, "arith.addf", 1, "fp32", np.arange(32) < 16)
    >>> simt_efficiency(WarpTrace("k", (0, 0, 0), 0, [half]))
    0.5
    """
    if not trace.events:
        return 1.0
    return sum(event.active_lanes for event in trace.events) / (WARP * len(trace.events))


def class_colors(trace: WarpTrace) -> dict[str, str]:
    """One colour per instruction class that occurs in ``trace``, in the order of
    ``INSTRUCTION_CLASSES`` (so fp32 keeps its colour whatever else the trace holds);
    a class outside that list comes last.

    >>> import numpy as np
    >>> on = np.ones(32, bool)
    >>> trace = WarpTrace("k", (0, 0, 0), 0, [TraceEvent(0, "memref.load", 3, "ld_global", on),
    ...                                       TraceEvent(1, "arith.addf", 4, "fp32", on)])
    >>> class_colors(trace)
    {'fp32': '#0072B2', 'ld_global': '#E69F00'}
    """
    present = {event.kind for event in trace.events}
    order = [kind for kind in INSTRUCTION_CLASSES if kind in present]
    order += sorted(present - set(order))
    return {kind: swatch.color for kind, swatch in zip(order, swatches(len(order)), strict=True)}


def _where(trace: WarpTrace) -> str:
    return f"warp {trace.warp} of block {tuple(trace.block)} in @{trace.kernel}"


def warp_lanes_text(trace: WarpTrace, max_steps: int = MAX_STEPS) -> str:
    """The text twin of ``warp_lanes_picture`` (module docstring)."""
    shown = trace.events[:max_steps]
    steps = len(trace.events)
    heading = (
        f"{_where(trace)}: {steps} step{'' if steps == 1 else 's'}, "
        f"SIMT efficiency {percent(simt_efficiency(trace))}"
    )
    rows = [
        [
            str(event.step),
            "" if event.line is None else str(event.line),
            event.op_name,
            lane_mask(event),
            str(event.active_lanes),
            event.kind,
        ]
        for event in shown
    ]
    if not rows:
        return f"{heading}\n  no instructions"
    lines = [heading, *text_table(["step", "line", "op", "lanes 0-31", "active", "class"], rows)]
    if steps > len(shown):
        lines.append(f"  ... {steps - len(shown)} more steps not shown")
    return "\n".join(lines)


def _row_label(event: TraceEvent) -> str:
    return event.op_name if event.line is None else f"{event.op_name}  (line {event.line})"


def warp_lanes_picture(trace: WarpTrace, max_steps: int = MAX_STEPS) -> Picture:
    """The lanes of ``trace``'s warp over its first ``max_steps`` instructions (module
    docstring).

    >>> import numpy as np
    >>> step = TraceEvent(0, "gpu.thread_id", 2, "misc", np.ones(32, bool))
    >>> warp_lanes_picture(WarpTrace("k", (0, 0, 0), 1, [step])).text.splitlines()[0]
    'warp 1 of block (0, 0, 0) in @k: 1 step, SIMT efficiency 100%'
    """
    shown = trace.events[:max_steps]
    colors = class_colors(WarpTrace(trace.kernel, trace.block, trace.warp, shown))
    rows = max(len(shown), 1)
    row_height = 0.3
    height = 1.6 + rows * row_height + 0.3 * (1 + (len(colors) - 1) // 6)
    with house_style():
        fig = Figure(figsize=(11.0, height))
        top, bottom = 0.95 / height, (0.45 + 0.3 * (1 + (len(colors) - 1) // 6)) / height
        ax = fig.add_axes((0.25, bottom, 0.68, 1 - top - bottom))
        for row, event in enumerate(shown):
            fill = colors[event.kind]
            for lane in range(WARP):
                shade = fill if event.active[lane] else IDLE
                ax.add_patch(Rectangle((lane + 0.04, row + 0.08), 0.92, 0.84, facecolor=shade,
                                       edgecolor="none"))  # fmt: skip
            ax.text(WARP + 0.4, row + 0.5, f"{event.active_lanes}/32", va="center", fontsize=9,
                    color="#444444")  # fmt: skip
        ax.set_xlim(0, WARP)
        ax.set_ylim(rows, 0)  # the first instruction on top
        ax.grid(False)
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        lanes = list(range(0, WARP, 4)) + [WARP - 1]
        ax.set_xticks([lane + 0.5 for lane in lanes], [str(lane) for lane in lanes])
        ax.set_yticks([r + 0.5 for r in range(len(shown))], [_row_label(e) for e in shown])
        ax.tick_params(length=0, labelsize=9)
        ax.set_xlabel("lane", fontsize=10)
        for spine in ax.spines.values():
            spine.set_visible(False)
        steps = len(trace.events)
        more = f" (first {len(shown)} of {steps} steps)" if steps > len(shown) else ""
        fig.text(0.5, 1 - 0.1 / height, f"{_where(trace)}: which lanes ran each instruction?"
                 + more, ha="center", va="top", fontsize=12)  # fmt: skip
        fig.text(0.5, 1 - 0.4 / height, f"SIMT efficiency {percent(simt_efficiency(trace))}: "
                 "active lanes over 32 per step; grey: an idle lane", ha="center", va="top",
                 fontsize=11, fontweight="bold")  # fmt: skip
        handles = [Patch(facecolor=color, label=kind) for kind, color in colors.items()]
        if handles:
            fig.legend(handles=handles, loc="lower center", ncols=min(6, len(handles)),
                       fontsize=10, title="instruction class", title_fontsize=9)  # fmt: skip
    return figure_to_picture(fig, warp_lanes_text(trace, max_steps))
