"""Drag the tile sizes: the tiled loop nest and the slices of one tile redraw.

``tiling_explorer(module)`` puts one slider per loop of the program's last linalg op
(its *root*, what the function returns), a tile-number slider and a "bind" checkbox on
top of the real tiling passes. At every change it:

1. parses a fresh copy of the program and runs ``linalg-tile-and-fuse`` (or
   ``linalg-tile`` with ``fuse=False``) with the slider values as tile sizes (0: that
   loop is not tiled) and, when "bind" is ticked, ``bind=units`` for the outermost
   tile loops;
2. reads the result back as a loop nest (``tiled_loop_summary``), with the pass
   report's remarks underneath: producers fused or left outside, loops bound, loops
   refused (a loop that carries a reduction cannot be bound);
3. draws the chosen tile's slice of every operand of the root (``tiling_picture``)
   under the loop nest; the label gives the tile count and the bytes a full tile
   touches.

The tile-number slider shrinks and grows with the grid of tiles. Nothing is printed:
the picture and the label are updated, and the explorer's text is their text twin.

>>> import numpy as np, tinycomp
>>> program = tinycomp.compile(lambda a, b: a @ b, np.ones((6, 4), np.float32),
...                            np.ones((4, 8), np.float32), stop_after="generalized")
>>> explorer = tiling_explorer(program.ir("generalized"), tile_sizes=(4, 4, 0))
>>> explorer.set(tile_d0=2, tile=5)
>>> explorer.label
'6 tiles (3x2x1); a full tile touches 128 bytes; tile 5: d0 4:6, d1 4:8'
>>> print(explorer.picture.text.splitlines()[2])
  %1 = for %d0 = 0 to 6 step 2 carrying %arg0 = %0:     # 3 tiles, bound to gpu.block.y
"""

from __future__ import annotations

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
from tinycomp.viz.tiling_pictures import tile_view, tiling_picture
from tinycomp.viz.widgets import Explorer

__all__ = ["tiling_explorer"]

DEFAULT_UNITS = ("gpu.block.y", "gpu.block.x")
"""The units the outermost tile loops are bound to when "bind" is ticked."""
WRAP = 96
"""Report remarks are wrapped at this width under the loop nest."""


def tiling_explorer(
    program: Operation | str,
    tile_sizes: Sequence[int] | None = None,
    *,
    units: Sequence[str] = DEFAULT_UNITS,
    bind: bool = True,
    fuse: bool = True,
    caption: str | None = "tiling",
) -> Explorer:
    """Sliders for the tile sizes of ``program``'s root op, redrawing its tiled loop nest
    and one tile's slices (see the module docstring). ``program`` is a module (or its
    MLIR text) with static shapes; ``tile_sizes`` are the starting values (default:
    half of each parallel loop, reductions untiled)."""
    text = program if isinstance(program, str) else str(program)
    module = parse(text)
    roots = tiling_roots(module)
    if not roots:
        raise ValueError("expected a program with a linalg op to tile, found none")
    root = roots[-1]
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

    def draw(tile: int, bind: bool, **sizes: int) -> tuple[Picture, str]:
        chosen_sizes = tuple(sizes[f"tile_{name}"] for name in names)
        nest, remarks = _tile_program(text, chosen_sizes, tuple(units) if bind else (), fuse)
        view = tile_view(root, chosen_sizes, tile)
        shown = nest if not remarks else nest + "\n" + "\n".join(remarks)
        counts = "x".join(str(c) for c in view.tile_counts)
        where = view.describe_loops(tiled_only=True) or "the whole op"
        label = (
            f"{view.total_tiles} tile{'s' if view.total_tiles != 1 else ''} ({counts}); "
            f"a full tile touches {view.full_tile_bytes} bytes; tile {view.number}: {where}"
        )
        return tiling_picture(view, loop_nest=shown), label

    controls = {**size_controls, "tile": tile_control, "bind": bind_control}
    return Explorer(draw, controls, caption=caption)


def _tile_program(
    text: str, tile_sizes: tuple[int, ...], units: tuple[str, ...], fuse: bool
) -> tuple[str, list[str]]:
    """Steps 1-2: tile a fresh copy; its loop nest and the report's remarks, wrapped."""
    module = parse(text)
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
