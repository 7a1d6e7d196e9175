"""Pick a tensor program and its sizes: its IR, its kernels and their FLOPs and bytes redraw.

``program_explorer()`` puts a program menu (the kernel catalogue,
``tinycomp.testing.KERNELS``: softmax, layernorm, matmul, attention...) above one slider
per named size of the chosen program (``m``, ``k`` and ``n`` for a matmul, as the prose
names them) and a stage menu: the program as traced, or after
``linalg-generalize-named-ops``. At every change it:

1. traces the program at those sizes (tracing records ops and computes nothing, so any
   size is instant) and, for the stage ``generalized``, runs ``GeneralizePass``;
2. counts every kernel's FLOPs and bytes (``tinycomp.perf.kernel_costs``, chapter 04's
   count) and draws them as a table, with each kernel's share of the program's bytes as
   a bar on a fixed axis from 0 to 100%; the bar of the state before is drawn as a dashed
   outline, and the numbers that changed are drawn in orange;
3. draws the kernel graph (``kernel_graph``) under the table;
4. shows the IR as a listing (``ir_listing``) under the picture, the lines that changed
   since the state before on a yellow band;
5. sets the label to the totals and what changed (``k 32 -> 64: FLOPs x2, ...``).

Nothing is printed: the widgets are updated, and the explorer's text is the text twin of
the label, the table, the graph and the IR. In a notebook it shows as live widgets, with a
PNG still of the table and the graph for viewers that cannot run widgets.

>>> explorer = program_explorer("matmul", renderer="text")
>>> explorer.values
{'program': 'matmul', 'm': 16, 'k': 32, 'n': 8, 'stage': 'traced'}
>>> explorer.label
'matmul (m=16, k=32, n=8): 2 kernels, 8192 FLOPs, 4.5 KiB moved, 1.778 FLOP/B'
>>> explorer.set(k=64)
>>> explorer.label.split("; ")[1]
'k 32 -> 64: FLOPs x2, bytes +3 KiB'
>>> explorer.set(program="softmax")
>>> explorer.label
'softmax (rows=8, cols=32): 7 kernels, 1280 FLOPs, 8.25 KiB moved, 0.1515 FLOP/B'
"""

from __future__ import annotations

import difflib
import html
from collections.abc import Mapping
from typing import Any

import ipywidgets

from tinycomp.passes import GeneralizePass
from tinycomp.testing import KERNELS, Kernel
from tinycomp.viz.bytes_chart import format_bytes
from tinycomp.viz.cost_table import CostState, cost_table_svg, cost_table_text, kernel_rows, stack
from tinycomp.viz.ir_listing import ir_listing
from tinycomp.viz.ir_text import IRText
from tinycomp.viz.kernel_graph import kernel_graph
from tinycomp.viz.picture import Picture
from tinycomp.viz.widgets import Explorer

__all__ = ["STAGES", "ProgramExplorer", "changed_lines", "program_explorer", "size_options"]

STAGES = ("traced", "generalized")
"""The stage menu: the program as traced, or after ``linalg-generalize-named-ops``."""


class ProgramExplorer:
    """A program menu over one :class:`~tinycomp.viz.Explorer` per program (its sliders
    are that program's sizes), the IR listing under them (see the module docstring).

    CSS classes let a browser test find the parts: ``tinycomp-program-explorer`` (the
    whole box), ``tinycomp-control-program`` (the menu), ``tinycomp-ir-listing`` (the IR);
    each program's explorer has the classes of :class:`~tinycomp.viz.Explorer`.
    """

    def __init__(
        self,
        kernels: Mapping[str, Kernel],
        program: str,
        caption: str | None,
        renderer: str,
    ) -> None:
        if program not in kernels:
            raise ValueError(f"expected a program among {sorted(kernels)}, got {program!r}")
        self.kernels = dict(kernels)
        self.caption = caption
        self.renderer = renderer
        self.menu = ipywidgets.Dropdown(options=list(self.kernels), value=program,
                                        description="program")  # fmt: skip
        self.menu.add_class("tinycomp-control")
        self.menu.add_class("tinycomp-control-program")
        self._ir = ipywidgets.HTML()
        self._ir.add_class("tinycomp-ir-listing")
        self._explorers: dict[str, Explorer] = {}
        self._states: dict[str, CostState] = {}
        self._listings: dict[str, IRText] = {}
        self._holder = ipywidgets.Box([self._explorer(program).widget])
        parts: list[ipywidgets.Widget] = []
        if caption is not None:
            parts.append(ipywidgets.HTML(f"<b>{html.escape(caption)}</b>"))
        self.widget = ipywidgets.VBox([*parts, self.menu, self._holder, self._ir])
        self.widget.add_class("tinycomp-program-explorer")
        self._show(program)
        self.menu.observe(self._on_menu, names="value")

    # -- what it shows -------------------------------------------------------------------
    @property
    def program(self) -> str:
        """The program chosen in the menu."""
        return str(self.menu.value)

    @property
    def explorer(self) -> Explorer:
        """The explorer of the chosen program: its sliders, label and picture."""
        return self._explorer(self.program)

    @property
    def values(self) -> dict[str, Any]:
        """The program, then the value of every control of its explorer."""
        return {"program": self.program, **self.explorer.values}

    @property
    def label(self) -> str:
        return self.explorer.label

    @property
    def picture(self) -> Picture:
        """The table and the kernel graph."""
        return self.explorer.picture

    @property
    def listing(self) -> IRText:
        """The IR of the current setting, as shown under the picture."""
        return self._listings[self.program]

    @property
    def text(self) -> str:
        """The text twin: the menu, the program's explorer (label, table, graph), the IR."""
        title = "explorer" if self.caption is None else f'explorer "{self.caption}"'
        return f"{title}: program={self.program!r}\n{self.explorer.text}\nIR:\n{self.listing.text}"

    def set(self, program: str | None = None, **values: Any) -> None:
        """Choose a program and set some of its controls, as a reader would."""
        if program is not None:
            if program not in self.kernels:
                raise ValueError(
                    f"expected a program among {sorted(self.kernels)}, got {program!r}"
                )
            self.menu.value = program  # the observer shows its explorer
        if values:
            self.explorer.set(**values)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        widget_bundle = self.widget._repr_mimebundle_
        bundle = {} if widget_bundle is None else dict(widget_bundle(**kwargs))
        bundle["text/plain"] = self.text
        picture = self.picture._repr_mimebundle_()  # a still for viewers without widgets
        if "image/png" in picture:
            bundle["image/png"] = picture["image/png"]
        return bundle

    def __repr__(self) -> str:
        return self.text

    # -- wiring --------------------------------------------------------------------------
    def _on_menu(self, change: dict) -> None:
        self._show(str(change["new"]))

    def _show(self, program: str) -> None:
        self._holder.children = [self._explorer(program).widget]
        self._ir.value = self._listings[program].html

    def _explorer(self, program: str) -> Explorer:
        """The explorer of ``program``, made the first time it is chosen."""
        if program not in self._explorers:
            kernel = self.kernels[program]
            controls: dict[str, ipywidgets.ValueWidget] = {
                name: ipywidgets.SelectionSlider(
                    options=size_options(*kernel.shape_ranges[name], default),
                    value=default,
                    description=name,
                )
                for name, default in kernel.default_shape.items()
            }
            controls["stage"] = ipywidgets.Dropdown(options=list(STAGES), value=STAGES[0])

            def draw(stage: str, **sizes: int) -> tuple[Picture, str]:
                return self._draw(program, stage, sizes)

            self._explorers[program] = Explorer(draw, controls)
        return self._explorers[program]

    def _draw(self, program: str, stage: str, sizes: dict[str, int]) -> tuple[Picture, str]:
        """Steps 1-5 for one setting of ``program``'s controls."""
        before = self._states.get(program)
        kernel = self.kernels[program]
        try:
            module = kernel.trace("f32", **sizes)
        except ValueError as problem:  # an impossible shape: keep showing the last one
            if before is None:
                raise
            return self._explorers[program].picture, f"not drawn: {problem}"
        if stage == "generalized":
            GeneralizePass().run(module)
        state = CostState(dict(sizes), stage, kernel_rows(module), str(module))
        self._states[program] = state
        changed = changed_lines(before.ir, state.ir) if before is not None else []
        self._listings[program] = ir_listing(state.ir, title=f"@main of {program}, {stage}",
                                             highlight=changed)  # fmt: skip
        if program == self.program:
            self._ir.value = self._listings[program].html
        graph = kernel_graph(module).picture(renderer=self.renderer)
        table_svg, height, width = cost_table_svg(state, before)
        text = cost_table_text(state) + "\n" + graph.text
        return Picture(text=text, svg=stack(table_svg, height, width, graph.svg)), label_of(
            program, state, before
        )


def program_explorer(
    program: str = "matmul",
    *,
    kernels: Mapping[str, Kernel] = KERNELS,
    caption: str | None = "tensor programs",
    renderer: str = "auto",
) -> ProgramExplorer:
    """A program menu over ``kernels`` (default: the whole catalogue), starting at
    ``program``, with sliders for its sizes (see the module docstring)."""
    return ProgramExplorer(kernels, program, caption, renderer)


# -- step 1: the sliders -------------------------------------------------------------------
def size_options(low: int, high: int, default: int) -> list[int]:
    """The values a size slider offers: every size of the catalogue's tested range up to
    16, then powers of two up to four times the default (tracing is free at any size).

    >>> size_options(1, 32, 32)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 32, 64, 128]
    >>> size_options(1, 3, 3)
    [1, 2, 3]
    """
    top = max(high, 4 * default) if high > 4 else high
    values = {default, *range(low, min(high, 16) + 1)}
    values |= {2**p for p in range(12) if low <= 2**p <= top}
    return sorted(values)


# -- steps 4 and 5: what changed -----------------------------------------------------------
def changed_lines(before: str, after: str) -> list[int]:
    """The 1-based numbers of the lines of ``after`` that are new or changed.

    >>> changed_lines("a\\nb\\nc", "a\\nB\\nc\\nd")
    [2, 4]
    """
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines())
    lines: list[int] = []
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            lines += range(j1 + 1, j2 + 1)
    return lines


def _ratio(new: int, old: int) -> str:
    """``x2``, ``x0.5``; ``+1 KiB`` style is used for bytes, this for FLOPs."""
    if old == 0:
        return f"{old} -> {new}"
    return f"x{new / old:.3g}"


def _delta_bytes(new: int, old: int) -> str:
    sign = "+" if new > old else "-"
    return f"{sign}{format_bytes(abs(new - old))}"


def label_of(program: str, state: CostState, before: CostState | None) -> str:
    """``matmul (m=16, k=32, n=8): 2 kernels, 8192 FLOPs, ...; k 32 -> 64: FLOPs x2, ...``"""
    sizes = ", ".join(f"{name}={size}" for name, size in state.sizes.items())
    count = len(state.rows)
    intensity = state.flops / state.bytes if state.bytes else 0.0
    label = (
        f"{program} ({sizes}): {count} kernel{'s' if count != 1 else ''}, {state.flops} FLOPs, "
        f"{format_bytes(state.bytes)} moved, {intensity:.4g} FLOP/B"
    )
    if before is None:
        return label
    moved = [f"{name} {before.sizes[name]} -> {size}" for name, size in state.sizes.items()
             if before.sizes.get(name) != size]  # fmt: skip
    if state.stage != before.stage:
        moved.append(f"stage {before.stage} -> {state.stage}")
    changes = []
    if state.flops != before.flops:
        changes.append(f"FLOPs {_ratio(state.flops, before.flops)}")
    if state.bytes != before.bytes:
        changes.append(f"bytes {_delta_bytes(state.bytes, before.bytes)}")
    if len(state.rows) != len(before.rows):
        changes.append(f"kernels {len(before.rows)} -> {len(state.rows)}")
    if moved and changes:
        label += f"; {', '.join(moved)}: {', '.join(changes)}"
    elif moved:
        label += f"; {', '.join(moved)}: no change in the counts"
    return label
