"""Step through a bufferized program: which buffers are live at each op, and the peak.

``liveness_explorer(module)`` runs the real bufferization passes on a tensor program
(``bufferization_passes``: ``one-shot-bufferize``, ``buffer-reuse``,
``buffer-deallocation``) and puts two controls on top: ``stage``, the IR after which
pass, and ``op``, a program point (an op index, as the chapter's reports count them:
pre-order, from 1, deallocs not counted). At every change it shows

1. the bufferized IR as text, the op at that point marked, each op's index in a column
   beside the line numbers (``tinycomp.viz.ir_text``);
2. a chart: one row per buffer over the op indices, coloured while the buffer is
   *live* (allocated and still to be used; one colour per buffer, as in the liveness
   charts), grey while it is only *held* (allocated, dead, not yet freed), a line at
   the chosen op; under it the bytes held at every op, the peak marked;
3. a label with the op, the buffers live and held there, and the peak.

Every number comes from the library's liveness (``OpIndices``, ``buffer_liveness``) on
the IR each pass left. Nothing is printed: widgets are updated, and the explorer's
text is the text twin of the state.

>>> from tinycomp.frontend import TensorSpec, exp, trace
>>> module = trace(lambda x: exp(x) * 2.0 + 1.0, TensorSpec((4, 4)))
>>> explorer = liveness_explorer(module, reuse=False)
>>> explorer.set(stage="buffer-deallocation", op=5)
>>> print(*explorer.label.split("; "), sep="\\n")
op 5 of 8: 'linalg.generic' at line 12
live: %alloc, %alloc_0
held: 128 B
peak 128 B at op 4
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets
from matplotlib.figure import Figure

from tinycomp.ir import parse
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.passes.bufferize import bufferization_passes
from tinycomp.passes.bufferize.liveness import OpIndices, buffer_liveness
from tinycomp.passes.bufferize.memref_types import buffer_bytes
from tinycomp.passes.manager import PassManager
from tinycomp.viz.ir_text import Line, Pane, ir_text
from tinycomp.viz.palette import swatches
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import figure_to_picture, house_style
from tinycomp.viz.widgets import Explorer

__all__ = ["BufferState", "StageState", "liveness_explorer", "stage_states"]

HELD = "#d9d9d9"
"""A buffer that is held (allocated) but dead: grey, as in the liveness charts."""


@dataclass(frozen=True)
class BufferState:
    """One buffer of one stage, in op indices."""

    name: str
    bytes: int
    """Its size (0 when dynamic)."""
    live: tuple[int, int]
    held: tuple[int, int]


@dataclass(frozen=True)
class StageState:
    """The IR after one pass, and its buffers."""

    stage: str
    text: str
    """The module as printed (its lines are what the explorer shows)."""
    ops: tuple[tuple[str, int, int], ...]
    """Per op index ``1..last``: the op's name and its first and last line in ``text``."""
    buffers: tuple[BufferState, ...]

    @property
    def last(self) -> int:
        return len(self.ops)

    def held_bytes(self, index: int) -> int:
        return sum(b.bytes for b in self.buffers if b.held[0] <= index <= b.held[1])

    @property
    def peak(self) -> tuple[int, int]:
        """``(bytes, first op index holding them)``."""
        totals = [self.held_bytes(i) for i in range(1, self.last + 1)]
        best = max(totals, default=0)
        return best, (totals.index(best) + 1 if totals else 0)


def stage_states(program: Operation | str, reuse: bool = True, deallocate: bool = True):
    """Run the bufferization passes on a copy of ``program`` (a tensor module with one
    function), one at a time, and measure the IR after each.

    >>> from tinycomp.frontend import TensorSpec, softmax, trace
    >>> states = stage_states(trace(softmax, TensorSpec((2, 5))))
    >>> [(s.stage, len(s.buffers), s.peak[0]) for s in states]
    [('one-shot-bufferize', 4, 96), ('buffer-reuse', 3, 88), ('buffer-deallocation', 3, 88)]
    """
    module = parse(program if isinstance(program, str) else str(program))
    states = []
    for pass_ in bufferization_passes(reuse=reuse, deallocate=deallocate):
        PassManager([pass_]).run(module)
        states.append(_measure(pass_.name, str(module)))
    return states


def _measure(stage: str, text: str) -> StageState:
    """The op indices, lines and buffers of ``text`` (parsed again, so that every op's
    location is its line in ``text``)."""
    module = parse(text)
    functions = [f for f in module.walk() if f.name == "func.func" and f.regions[0].blocks]
    if len(functions) != 1:
        raise ValueError(f"expected a program with one function, found {len(functions)}")
    function = functions[0]
    indices = OpIndices(function)
    lines = text.split("\n")
    ordered = sorted(indices.start, key=indices.start.get)
    ops = tuple((op.name, op.location.line, _last_line(op, lines)) for op in ordered)
    names = SSANames(module)
    buffers = []
    for alloc in [op for op in function.walk() if op.name == "memref.alloc"]:
        liveness = buffer_liveness(alloc)
        size = buffer_bytes(alloc.results[0].type) or 0
        live, held = indices.interval(liveness), indices.held(liveness)
        buffers.append(BufferState(names.value_name(alloc.results[0]), size, live, held))
    return StageState(stage, text, ops, tuple(buffers))


def _last_line(op: Operation, lines: list[str]) -> int:
    """The last line of ``op``: its first, or for a linalg op its payload's closing
    brace (a loop's body ops have lines of their own)."""
    first = op.location.line
    if not op.regions or op.name.split(".")[0] != "linalg":
        return first
    depth = 0
    for number in range(first, len(lines) + 1):
        depth += lines[number - 1].count("{") - lines[number - 1].count("}")
        if depth <= 0:
            return number
    return first


def liveness_explorer(
    program: Operation | str,
    *,
    reuse: bool = True,
    deallocate: bool = True,
    caption: str | None = "buffer liveness",
) -> Explorer:
    """A ``stage`` dropdown and an ``op`` slider over the bufferized ``program`` (see the
    module docstring); ``program`` is a tensor module with one function."""
    states = {state.stage: state for state in stage_states(program, reuse, deallocate)}
    stages = list(states)
    colours = {name: swatch.color for name, swatch in _swatches(states.values()).items()}
    stage_control = ipywidgets.Dropdown(options=stages, value=stages[0], description="stage")
    op_control = ipywidgets.IntSlider(value=1, min=1, max=states[stages[0]].last, description="op")
    listing = ipywidgets.HTML()
    listing.add_class("tinycomp-ir-listing")

    def fit_op_slider(change: dict | None = None) -> None:
        # Runs before the Explorer's own observer (registered first), so the slider is
        # clamped to the new stage's ops before the picture is redrawn.
        op_control.max = states[stage_control.value].last

    stage_control.observe(fit_op_slider, names="value")

    def draw(stage: str, op: int) -> tuple[Picture, str]:
        state = states[stage]
        listing.value = _listing(state, op).html
        return _chart(state, op, colours), _label(state, op)

    explorer = Explorer(draw, {"stage": stage_control, "op": op_control}, caption=caption)
    parts = list(explorer.widget.children)
    parts.insert(len(parts) - 1, listing)  # the IR between the label and the chart
    explorer.widget.children = tuple(parts)
    return explorer


def _swatches(states) -> dict:
    names = list(dict.fromkeys(b.name for state in states for b in state.buffers))
    return dict(zip(names, swatches(len(names)), strict=True))


def _at(state: StageState, index: int) -> tuple[list[BufferState], list[BufferState]]:
    """The buffers live at op ``index``, and those held there."""
    live = [b for b in state.buffers if b.live[0] <= index <= b.live[1]]
    held = [b for b in state.buffers if b.held[0] <= index <= b.held[1]]
    return live, held


def _label(state: StageState, index: int) -> str:
    name, line, _ = state.ops[index - 1]
    live, held = _at(state, index)
    peak, peak_at = state.peak
    names = ", ".join(b.name for b in live) or "none"
    return (
        f"op {index} of {state.last}: '{name}' at line {line}; live: {names}; "
        f"held: {state.held_bytes(index)} B; peak {peak} B at op {peak_at}"
    )


def _listing(state: StageState, index: int):
    """The IR with op ``index`` marked and op indices beside the line numbers."""
    _, first, last = state.ops[index - 1]
    index_of = {line: number for number, (_, line, _) in enumerate(state.ops, start=1)}
    rows = []
    for number, text in enumerate(state.text.rstrip("\n").split("\n"), start=1):
        kind = "highlight" if first <= number <= last else "code"
        rows.append(Line(kind, text, (index_of.get(number), number)))
    return ir_text(state.text, [Pane(tuple(rows))], title=f"after {state.stage} (op, line)")


def _chart(state: StageState, index: int, colours: dict[str, str]) -> Picture:
    """Step 2 of the module docstring, with its text twin."""
    rows = len(state.buffers)
    with house_style():
        fig = Figure(figsize=(7.5, 1.4 + 0.32 * max(rows, 1) + 1.6))
        bars, memory = fig.subplots(
            2, 1, sharex=True, height_ratios=[max(rows, 1) * 0.32 + 0.3, 1.6]
        )
        for row, buffer in enumerate(state.buffers):
            y = rows - 1 - row
            start, end = buffer.held
            bars.barh(y, end - start + 1, left=start - 0.5, color=HELD, height=0.7)
            start, end = buffer.live
            bars.barh(y, end - start + 1, left=start - 0.5, color=colours[buffer.name],
                      height=0.7)  # fmt: skip
        bars.set_yticks(range(rows), [b.name for b in reversed(state.buffers)], fontsize=9)
        bars.axvline(index, color="black", linewidth=1.5)
        bars.set_title(f"after {state.stage}: op {index} of {state.last}", fontsize=11)
        held = [state.held_bytes(i) for i in range(1, state.last + 1)]
        memory.step(range(1, state.last + 1), held, where="mid", color="#555555")
        peak, peak_at = state.peak
        memory.axhline(peak, color="black", linestyle="--", linewidth=1)
        memory.text(state.last + 0.4, peak, f"peak {peak} B at op {peak_at}", ha="right",
                    va="bottom", fontsize=9)  # fmt: skip
        memory.plot([index], [state.held_bytes(index)], "o", color="black")
        memory.axvline(index, color="black", linewidth=1.5)
        memory.set_ylim(0, max(peak, 1) * 1.3)
        memory.set_xlim(0.5, state.last + 0.5)
        memory.set_xlabel("op index")
        memory.set_ylabel("bytes held", fontsize=9)
        fig.subplots_adjust(left=0.16, right=0.97, top=0.9, bottom=0.14, hspace=0.15)
    return figure_to_picture(fig, _text(state, index))


def _text(state: StageState, index: int) -> str:
    """The text twin: the op, then every buffer's ranges and what it is at that op."""
    name, line, _ = state.ops[index - 1]
    live, held = _at(state, index)
    peak, peak_at = state.peak
    lines = [
        f"after {state.stage}: op {index} of {state.last}, '{name}' at line {line}",
        f"  {state.text.split(chr(10))[line - 1].strip()}",
    ]
    width = max([len("buffer"), *(len(b.name) for b in state.buffers)])
    lines.append(f"  {'buffer':<{width}}  bytes  live    held    at op {index}")
    for buffer in state.buffers:
        where = "live" if buffer in live else "held, dead" if buffer in held else "-"
        live_range = f"{buffer.live[0]}..{buffer.live[1]}"
        held_range = f"{buffer.held[0]}..{buffer.held[1]}"
        lines.append(
            f"  {buffer.name:<{width}}  {buffer.bytes:>5}  {live_range:<6}  {held_range:<6}  "
            f"{where}"
        )
    lines.append(
        f"  held at op {index}: {state.held_bytes(index)} B; peak {peak} B at op {peak_at}"
    )
    return "\n".join(lines)
