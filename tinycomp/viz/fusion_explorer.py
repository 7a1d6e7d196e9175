"""Switch kinds of fusion off and on: the fusion graph and the bytes moved redraw.

``fusion_explorer(programs)`` puts a program menu and one checkbox per kind of fusion on
top of the real fusion pass. The library's rule (``why_not_fusable``) decides what *may*
fuse; each checkbox says whether one kind of fusion it allows is *taken*:

- ``into_elementwise``: an elementwise producer into an elementwise consumer;
- ``into_reductions``: an elementwise producer into a reduction (a sum, a max, a matmul);
- ``recompute``: a producer with fewer loop points than its consumer (a row statistic
  read by every element of the row, the transpose of ``k`` read by the matmul), which the
  fused kernel recomputes (or re-reads) at every point of its own loops.

At every change it:

1. parses a fresh copy of the program and fuses it with ``FusionPass`` under the rule
   "the library allows it, and its kind is switched on" (``fuse_and_record``);
2. counts the bytes every kernel moves (``program_bytes``), and draws a bar of them on an
   axis fixed for the program (0 to its unfused traffic), beside the bars of the unfused
   program and of all kinds switched on; the previous state is drawn as an outline, so a
   change shows as movement;
3. compares the kernels with the previous state and names what changed: pairs newly
   fused, pairs no longer fused, and the bytes gained or saved;
4. draws the fusion graph (``fusion_graph``) under the bars.

Nothing is printed: the picture and the label are updated, and the explorer's text is
their text twin.

>>> import tinycomp
>>> from tinycomp.frontend import TensorSpec, rmsnorm
>>> program = tinycomp.compile(rmsnorm, TensorSpec((4, 8)), TensorSpec((8,)),
...                            stop_after="generalized").ir("generalized")
>>> explorer = fusion_explorer({"rmsnorm": program}, renderer="text")
>>> explorer.label
'rmsnorm: 3 kernels, 480 B moved (unfused: 8 kernels, 1.062 KiB)'
>>> explorer.set(into_reductions=False)
>>> print(explorer.label.replace("; ", "\\n"))
rmsnorm: 4 kernels, 736 B moved (unfused: 8 kernels, 1.062 KiB)
+256 B: %mul no longer fused into %sum
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass

import ipywidgets

from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.ir import parse
from tinycomp.ir.operation import Operation
from tinycomp.passes.fusion import why_not_fusable
from tinycomp.perf.kernel_cost import program_bytes
from tinycomp.viz.fusion_graph import FusionRule, format_bytes, fuse_and_record, fusion_graph
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE
from tinycomp.viz.widgets import Explorer

__all__ = ["KINDS", "fusion_explorer", "restricted_rule"]

KINDS = {
    "into_elementwise": "fuse into elementwise ops",
    "into_reductions": "fuse into reductions and matmuls",
    "recompute": "recompute a smaller producer per element",
}
"""The kinds of fusion the checkboxes switch, with their descriptions."""

BAR_WIDTH = 420  # pixels of the whole axis
BAR_LEFT = 110  # pixels left of the axis, for the bar names
ROW = 22  # pixels per bar
HEADER = 24 + 3 * ROW + 10  # title, three bars, a gap
CURRENT = PALETTE[0]
FIXED = "#b0b7bf"


def restricted_rule(into_elementwise: bool, into_reductions: bool, recompute: bool) -> FusionRule:
    """The library's rule, refusing in addition the kinds of fusion switched off.

    >>> rule = restricted_rule(True, False, True)
    >>> rule.__name__
    'rule'
    """

    def rule(producer: Operation, consumer: GenericOp, index: int) -> str | None:
        reason = why_not_fusable(producer, consumer, index)
        if reason is not None:
            return reason
        if "reduction" in consumer.iterator_types():
            if not into_reductions:
                return "switched off: fuse into reductions and matmuls"
        elif not into_elementwise:
            return "switched off: fuse into elementwise ops"
        if not recompute and _points(producer) < _points(consumer):
            return "switched off: recompute a smaller producer per element"
        return None

    return rule


@dataclass(frozen=True)
class _State:
    """One fused version of a program: its kernels (name -> ops) and bytes moved."""

    program: str
    kernels: dict[str, tuple[str, ...]]
    bytes: int


def fusion_explorer(
    programs: Mapping[str, Operation | str],
    *,
    caption: str | None = "fusion rules",
    renderer: str = "auto",
) -> Explorer:
    """A program menu and one checkbox per kind of fusion (``KINDS``), redrawing the fusion
    graph and the bytes moved (see the module docstring). ``programs`` maps names to
    modules (or their MLIR text) with static shapes, generalized so that their linalg ops
    are generics."""
    if not programs:
        raise ValueError("expected at least one program to explore, got none")
    texts = {name: p if isinstance(p, str) else str(p) for name, p in programs.items()}
    baselines = {name: (_fused(text, _NONE), _fused(text, _ALL)) for name, text in texts.items()}
    controls: dict[str, ipywidgets.ValueWidget] = {
        "program": ipywidgets.Dropdown(options=list(texts), value=next(iter(texts))),
    }
    for kind, description in KINDS.items():
        wide = ipywidgets.Layout(width="auto")  # the whole description, not cut at 300px
        controls[kind] = ipywidgets.Checkbox(value=True, description=description, layout=wide)
    previous: list[_State] = []  # the state drawn last, to name what changed

    def draw(program: str, **switches: bool) -> tuple[Picture, str]:
        rule = restricted_rule(**switches)
        state = _fused(texts[program], rule, program)
        unfused, everything = baselines[program]
        before = previous[-1] if previous and previous[-1].program == program else None
        previous[:] = [state]
        change = _describe_change(before, state)
        label = (
            f"{program}: {_kernels(state)}, {format_bytes(state.bytes)} moved "
            f"(unfused: {_kernels(unfused)}, {format_bytes(unfused.bytes)})"
        )
        if change:
            label += f"; {change}"
        graph = fusion_graph(parse(texts[program]), rule=rule, renderer=renderer)
        bars = [("unfused", unfused.bytes), ("all kinds on", everything.bytes)]
        header = _bars(program, bars, state.bytes, before.bytes if before else None)
        text = "\n".join([*_bars_text(bars, state.bytes), graph.text])
        return Picture(text=text, svg=_stack(header, graph.svg)), label

    return Explorer(draw, controls, caption=caption)


def _no_more(producer: Operation, consumer: GenericOp, index: int) -> str | None:
    return "nothing fuses"


_ALL = why_not_fusable
_NONE = _no_more


def _fused(text: str, rule: FusionRule, program: str = "") -> _State:
    """Step 1: fuse a fresh copy of ``text`` with ``rule``; its kernels and bytes."""
    module = parse(text)
    record = fuse_and_record(module, rule)
    return _State(program, dict(record.kernels), program_bytes(module))


def _points(op: Operation) -> int:
    """The number of points of a linalg op's loop nest (0 when a size is dynamic)."""
    sizes = op.static_loop_sizes() if hasattr(op, "static_loop_sizes") else [None]
    total = 1
    for size in sizes:
        if size is None:
            return 0
        total *= size
    return total


def _kernels(state: _State) -> str:
    count = len(state.kernels)
    return f"{count} kernel" if count == 1 else f"{count} kernels"


def _describe_change(before: _State | None, after: _State) -> str:
    """Step 3: ``+128 B: %mul no longer fused into %sum``; empty when nothing changed."""
    if before is None:
        return ""
    home_before = {op: kernel for kernel, ops in before.kernels.items() for op in ops}
    moves: dict[str, list[str]] = {}  # "now fused into %k" / "no longer fused into %k" -> ops
    for kernel, ops in after.kernels.items():
        for op in ops:
            old = home_before.get(op)
            if old == kernel:
                continue
            verb = (
                f"now fused into {kernel}"
                if kernel in before.kernels
                else f"no longer fused into {old}"
            )
            moves.setdefault(verb, []).append(op)
    if not moves:
        return ""
    changes = [f"{', '.join(ops)} {verb}" for verb, ops in moves.items()]
    delta = after.bytes - before.bytes
    sign = "+" if delta > 0 else "-" if delta < 0 else "±"
    return f"{sign}{format_bytes(abs(delta))}: " + "; ".join(changes)


def _bars_text(bars: list[tuple[str, int]], current: int) -> list[str]:
    rows = [*bars, ("these switches", current)]
    width = max(len(name) for name, _ in rows)
    return ["bytes moved"] + [f"  {name:<{width}}  {format_bytes(value)}" for name, value in rows]


def _bars(program: str, bars: list[tuple[str, int]], current: int, before: int | None) -> str:
    """Step 2: three horizontal bars on an axis from 0 to the unfused traffic, with the
    previous value of the current bar as an outline."""
    scale = BAR_WIDTH / max(bars[0][1], 1)
    left = BAR_LEFT
    parts = [
        f'<text x="4" y="16" font-family="sans-serif" font-size="13" font-weight="bold">'
        f"bytes moved: {html.escape(program)}</text>"
    ]
    rows = [(name, value, FIXED) for name, value in bars] + [("these switches", current, CURRENT)]
    for number, (name, value, color) in enumerate(rows):
        y = 24 + number * ROW
        shown = format_bytes(value)
        if color == CURRENT and before is not None and before != value:
            sign = "+" if value > before else "-"
            shown += f" ({sign}{format_bytes(abs(value - before))})"
        parts.append(
            f'<text x="{left - 6}" y="{y + 14}" font-family="sans-serif" font-size="12" '
            f'text-anchor="end">{name}</text>'
        )
        parts.append(
            f'<rect x="{left}" y="{y + 3}" width="{value * scale:.1f}" height="{ROW - 6}" '
            f'fill="{color}"/>'
        )
        parts.append(
            f'<text x="{left + value * scale + 6:.1f}" y="{y + 14}" font-family="sans-serif" '
            f'font-size="12">{shown}</text>'
        )
    if before is not None and before != current:
        y = 24 + 2 * ROW
        parts.append(
            f'<rect x="{left}" y="{y + 3}" width="{before * scale:.1f}" height="{ROW - 6}" '
            f'fill="none" stroke="#24292f" stroke-dasharray="4 2"/>'
        )
    axis_y = 24 + 3 * ROW + 2
    parts.append(
        f'<line x1="{left}" y1="{axis_y}" x2="{left + BAR_WIDTH}" y2="{axis_y}" stroke="#57606a"/>'
    )
    return "\n".join(parts)


_SIZE = re.compile(r'\s(width|height)="([\d.]+)(pt|px)?"')


def _stack(header: str, graph_svg: str) -> str:
    """Step 4: one SVG with the bars on top and the graph's own SVG under them."""
    opening = graph_svg[: graph_svg.index(">") + 1]
    sizes = {}
    for name, number, unit in _SIZE.findall(opening):
        sizes[name] = float(number) * (4 / 3 if unit == "pt" else 1)
    graph_width, graph_height = sizes.get("width", 400.0), sizes.get("height", 300.0)
    inner = _SIZE.sub("", opening)[:-1]
    inner += f' x="0" y="{HEADER}" width="{graph_width:.0f}" height="{graph_height:.0f}">'
    width = max(graph_width, BAR_LEFT + BAR_WIDTH + 170)
    height = HEADER + graph_height
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}">\n'
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>\n{header}\n'
        f"{inner}{graph_svg[len(opening) :]}</svg>\n"
    )
