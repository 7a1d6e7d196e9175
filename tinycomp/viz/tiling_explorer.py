"""Drag the tile sizes: the tiled loop nest and the slices of one tile redraw.

``tiling_explorer(module)`` puts one slider per loop of the program's last linalg op
(its *root*, what the function returns), a tile-number slider and a "bind" checkbox on
top of the real tiling passes. The loops carry the names the prose uses (``m, n, k``
for a matmul: ``loop_names``), in the sliders, the loop nest and the picture. At every
change it:

1. parses a fresh copy of the program, names the root's loops, and runs
   ``linalg-tile-and-fuse`` (or ``linalg-tile`` with ``fuse=False``) with the slider
   values as tile sizes (0: that loop is not tiled) and, when "bind" is ticked,
   ``bind=units`` for the outermost tile loops;
2. reads the result back as a loop nest (``tiled_loop_summary``), with the pass
   report's remarks underneath (producers fused or left outside, loops bound, loops
   refused), and shows it as text, in a monospace block of its own, with the lines
   that changed since the last state marked;
3. draws the chosen tile's slice of every operand of the root (``tiling_picture``),
   at a scale fixed by the shapes, with the slices of the previous state outlined
   dotted: a change shows as movement. The label gives the tile count, the bytes a
   full tile touches, and what changed.

The tile-number slider shrinks and grows with the grid of tiles. Nothing is printed:
widgets are updated, and the explorer's text is their text twin (the loop nest, then
the tile's numbers).

>>> import numpy as np, tinycomp
>>> program = tinycomp.compile(lambda a, b: a @ b, np.ones((6, 4), np.float32),
...                            np.ones((4, 8), np.float32), stop_after="generalized")
>>> explorer = tiling_explorer(program.ir("generalized"), tile_sizes=(4, 4, 0),
...                            loop_names=("m", "n", "k"))
>>> explorer.set(tile_m=2, tile=5)
>>> print(*explorer.label.split("; "), sep="\\n")
6 tiles (3x2x1)
a full tile touches 128 bytes
tile 5: m 4:6, n 4:8 (changed: tile m 4 -> 2, tile 0 -> 5)
>>> print(explorer.picture.text.splitlines()[2])
  %matmul = for %m = 0 to 6 step 2 carrying %arg0 = %0:  # 3 tiles, bound to gpu.block.y
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Sequence

import ipywidgets

from tinycomp.ir import parse
from tinycomp.ir.operation import Operation
from tinycomp.passes.tiling import TileAndFusePass, TilePass
from tinycomp.passes.tiling.passes import tiling_roots
from tinycomp.viz.picture import Picture
from tinycomp.viz.tiled_nest import tiled_loop_summary
from tinycomp.viz.tiling_pictures import TileView, tile_view, tiling_picture
from tinycomp.viz.widgets import Explorer

__all__ = ["tiling_explorer"]

DEFAULT_UNITS = ("gpu.block.y", "gpu.block.x")
"""The units the outermost tile loops are bound to when "bind" is ticked."""
WRAP = 96
"""Report remarks are wrapped at this width under the loop nest."""
NEST_STYLE = (
    "font-family: var(--jp-code-font-family, monospace); font-size: 13px; "
    "line-height: 1.4; white-space: pre; overflow-x: auto; margin: 4px 0; "
    "padding: 6px 8px; background: #f7f7f7; border-radius: 3px"
)
CHANGED_STYLE = "background: #ffe79a"
"""Lines of the loop nest that changed with the last move of a control."""


def tiling_explorer(
    program: Operation | str,
    tile_sizes: Sequence[int] | None = None,
    *,
    loop_names: Sequence[str] | None = None,
    units: Sequence[str] = DEFAULT_UNITS,
    bind: bool = True,
    fuse: bool = True,
    caption: str | None = "tiling",
) -> Explorer:
    """Sliders for the tile sizes of ``program``'s root op, redrawing its tiled loop nest
    and one tile's slices (see the module docstring). ``program`` is a module (or its
    MLIR text) with static shapes; ``tile_sizes`` are the starting values (default:
    half of each parallel loop, reductions untiled); ``loop_names`` name the root's
    loops (default: the op's own, ``m, n, k`` for ``linalg.matmul``, ``d0, d1...`` for
    a ``linalg.generic``)."""
    text = program if isinstance(program, str) else str(program)
    root = _root(parse(text), loop_names)
    loop_sizes = root.static_loop_sizes()
    names = [root.loop_name(p) for p in range(root.num_loops)]
    kinds = root.iterator_types()
    if tile_sizes is None:
        tile_sizes = [max(1, n // 2) if kind == "parallel" else 0 for n, kind in zip(
            loop_sizes, kinds, strict=True)]  # fmt: skip
    if len(tile_sizes) != len(loop_sizes):
        raise ValueError(
            f"expected {len(loop_sizes)} tile sizes (loops {', '.join(names)}), "
            f"got {list(tile_sizes)}"
        )
    size_controls = {
        f"tile_{name}": ipywidgets.IntSlider(
            value=min(start, n), min=0, max=n, description=f"tile {name}"
        )
        for name, n, start in zip(names, loop_sizes, tile_sizes, strict=True)
    }
    tile_control = ipywidgets.IntSlider(value=0, min=0, max=0, description="tile")
    bind_control = ipywidgets.Checkbox(value=bind, description="bind")
    nest_widget = ipywidgets.HTML()
    nest_widget.add_class("tinycomp-loop-nest")

    def chosen() -> tuple[int, ...]:
        return tuple(control.value for control in size_controls.values())

    def fit_tile_slider(change: dict | None = None) -> None:
        # Registered before the Explorer's own observer, so it runs first: when the
        # grid shrinks, the slider clamps its value before the picture is redrawn.
        counts = [1 if t == 0 else -(-n // t) for n, t in zip(loop_sizes, chosen(), strict=True)]
        tile_control.max = math.prod(counts) - 1

    fit_tile_slider()
    for control in size_controls.values():
        control.observe(fit_tile_slider, names="value")

    last: dict[str, object] = {}  # the previous state: its values, nest lines and view

    def draw(tile: int, bind: bool, **sizes: int) -> tuple[Picture, str]:
        chosen_sizes = tuple(sizes[f"tile_{name}"] for name in names)
        nest, remarks = _tile_program(text, names, chosen_sizes, tuple(units) if bind else (), fuse)
        view = tile_view(root, chosen_sizes, tile)
        lines = nest.split("\n") + remarks
        values = {**sizes, "tile": tile, "bind": bind}
        before = last.get("values")
        changed = _changes(before, values) if isinstance(before, dict) else []
        nest_widget.value = _nest_html(lines, last.get("lines"))
        previous = last.get("view") if changed else None
        assert previous is None or isinstance(previous, TileView)
        picture = tiling_picture(view, previous=previous)
        last.update(values=values, lines=lines, view=view)
        counts = "x".join(str(c) for c in view.tile_counts)
        where = view.describe_loops(tiled_only=True) or "the whole op"
        label = (
            f"{view.total_tiles} tile{'s' if view.total_tiles != 1 else ''} ({counts}); "
            f"a full tile touches {view.full_tile_bytes} bytes; tile {view.number}: {where}"
        )
        if changed:
            label += f" (changed: {', '.join(changed)})"
        return Picture(text="\n".join(lines) + "\n\n" + picture.text, svg=picture.svg), label

    controls = {**size_controls, "tile": tile_control, "bind": bind_control}
    explorer = Explorer(draw, controls, caption=caption)
    parts = list(explorer.widget.children)
    parts.insert(len(parts) - 1, nest_widget)  # the nest between the label and the picture
    explorer.widget.children = tuple(parts)
    return explorer


def _root(module: Operation, loop_names: Sequence[str] | None) -> Operation:
    """The program's last tilable linalg op, its loops named ``loop_names``."""
    roots = tiling_roots(module)
    if not roots:
        raise ValueError("expected a program with a linalg op to tile, found none")
    root = roots[-1]
    if loop_names is not None:
        if len(loop_names) != root.num_loops or len(set(loop_names)) != len(loop_names):
            raise ValueError(
                f"expected {root.num_loops} different loop names for '{root.name}', "
                f"got {list(loop_names)}"
            )
        root.loop_names = tuple(loop_names)  # this op only: its class keeps its own
    return root


def _tile_program(
    text: str,
    names: Sequence[str],
    tile_sizes: tuple[int, ...],
    units: tuple[str, ...],
    fuse: bool,
) -> tuple[str, list[str]]:
    """Steps 1-2: tile a fresh copy; its loop nest and the report's remarks, wrapped."""
    module = parse(text)
    _root(module, names)
    units = units[: sum(1 for size in tile_sizes if size > 0)]
    if fuse:
        tiling: TilePass | TileAndFusePass = TileAndFusePass(tile_sizes, bind=units)
    else:
        tiling = TilePass(tile_sizes, bind=units)
    tiling.run(module)
    remarks = []
    for result in tiling.report.results:
        if result.reason is not None:
            remarks.append(f"# {result.op} not tiled: {result.reason}")
        remarks += [f"# {note}" for note in result.notes]  # bindings show in the nest
    wrapped = []
    for remark in remarks:
        wrapped += textwrap.wrap(remark, WRAP, subsequent_indent="#   ")
    return tiled_loop_summary(module), wrapped


def _changes(before: dict, after: dict) -> list[str]:
    """``tile m 4 -> 2``, ``bind on``: the controls that moved."""
    changed = []
    for name, value in after.items():
        old = before.get(name)
        if old == value:
            continue
        shown = name.replace("_", " ", 1)
        if isinstance(value, bool):
            changed.append(f"{shown} {'on' if value else 'off'}")
        else:
            changed.append(f"{shown} {old} -> {value}")
    return changed


def _nest_html(lines: list[str], before: object) -> str:
    """The loop nest as a ``<pre>`` block, lines not in the previous nest marked."""
    old = set(before) if isinstance(before, list) else None
    rows = []
    for line in lines:
        escaped = html.escape(line)
        if old is not None and line not in old:
            escaped = f'<span style="{CHANGED_STYLE}">{escaped}</span>'
        rows.append(escaped)
    return f'<pre style="{NEST_STYLE}">' + "\n".join(rows) + "</pre>"
