"""Pictures of footprints, and an explorer to drag an iteration point or a tile around.

:func:`footprint_picture` draws one state: a small heatmap per operand, the touched
elements in blue and the footprint box outlined in red. An operand of rank above 2 is
drawn as a 2-D slice (the problem's ``planes``: for the NHWC input of a convolution,
the ``(h, w)`` plane), at the first index the tile touches in the other dimensions,
and the subplot's title says where the slice was taken.

:func:`indexing_map_explorer` puts sliders on it: one per loop to move an iteration
point (``mode="point"``), or one tile size per loop and a tile number (``mode="tile"``;
tiles are numbered row-major over the grid of tiles, the last loop fastest).

>>> explorer = indexing_map_explorer("matmul", mode="tile")
>>> explorer.set(tile=3)
>>> print(explorer)
explorer "indexing maps": tile_m=4, tile_n=4, tile_k=3, tile=3
label: tile 3 in 0..7 (a 2x2x2 grid): m 0:4, n 4:8, k 3:6
footprint of the tile m 0:4, n 4:8, k 3:6
  A  (m, n, k) -> (m, k)  A[0:4, 3:6]  (12 elements)
  B  (m, n, k) -> (k, n)  B[3:6, 4:8]  (12 elements)
  C  (m, n, k) -> (m, n)  C[0:4, 4:8]  (16 elements)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import ipywidgets
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from tinycomp.affine import AffineMap
from tinycomp.ir.operation import Operation
from tinycomp.viz.footprints import Footprints, OperandFootprint, tile_footprints
from tinycomp.viz.indexing_maps import IndexingMapError, IndexingProblem, indexing_problem
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style
from tinycomp.viz.widgets import Explorer

__all__ = ["draw_footprints", "footprint_picture", "indexing_map_explorer", "tile_grid", "tile_of"]

MapsLike = str | Mapping[str, AffineMap] | Operation | IndexingProblem
"""What the functions here accept as a problem (see ``indexing_problem``)."""

UNTOUCHED = "#eeeeee"
TOUCHED = PALETTE[0]  # blue
OUTLINE = PALETTE[3]  # vermillion
MODES = ("point", "tile")
LEGEND = "blue: elements touched    red box: the footprint"


def tile_grid(problem: IndexingProblem, tile_sizes: Sequence[int]) -> tuple[int, ...]:
    """How many tiles each loop is cut into (the last tile of a loop may be smaller).

    >>> tile_grid(indexing_problem("matmul"), [4, 3, 6])
    (2, 3, 1)
    """
    if len(tile_sizes) != len(problem.loop_sizes) or min(tile_sizes) < 1:
        raise IndexingMapError(
            f"expected {len(problem.loop_sizes)} positive tile sizes, got {list(tile_sizes)}"
        )
    return tuple(math.ceil(n / t) for n, t in zip(problem.loop_sizes, tile_sizes, strict=True))


def tile_of(
    problem: IndexingProblem, tile_sizes: Sequence[int], tile: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``(offsets, sizes)`` of tile number ``tile`` (row-major, the last loop fastest).

    >>> tile_of(indexing_problem("matmul"), [4, 3, 6], 5)
    ((4, 6, 0), (4, 2, 6))
    """
    grid = tile_grid(problem, tile_sizes)
    count = math.prod(grid)
    if not 0 <= tile < count:
        raise IndexingMapError(f"expected a tile number from 0 to {count - 1}, got {tile}")
    coordinates = np.unravel_index(tile, grid)
    offsets = tuple(int(c) * t for c, t in zip(coordinates, tile_sizes, strict=True))
    sizes = tuple(
        min(t, n - o) for t, n, o in zip(tile_sizes, problem.loop_sizes, offsets, strict=True)
    )
    return offsets, sizes


def footprint_picture(
    maps: MapsLike,
    loop_sizes: Sequence[int] | None = None,
    operand_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    point: Sequence[int] | None = None,
    tile_sizes: Sequence[int] | None = None,
    tile: int = 0,
    loop_names: Sequence[str] | None = None,
) -> Picture:
    """The footprint of one iteration ``point``, or else of tile number ``tile`` of size
    ``tile_sizes`` (the problem's default tile when not given). The first three
    arguments are those of :func:`~tinycomp.viz.indexing_maps.indexing_problem`.

    >>> print(footprint_picture("transpose", point=(1, 5)))
    footprint of the point i=1, j=5
      in   (i, j) -> (i, j)  in[1, 5]  (1 element)
      out  (i, j) -> (j, i)  out[5, 1]  (1 element)
    """
    problem = indexing_problem(maps, loop_sizes, operand_shapes, loop_names=loop_names)
    if point is not None:
        offsets, sizes = tuple(point), (1,) * len(problem.loop_sizes)
    else:
        chosen = problem.tile_sizes if tile_sizes is None else tuple(tile_sizes)
        offsets, sizes = tile_of(problem, chosen, tile)
    return draw_footprints(tile_footprints(problem, offsets, sizes))


def draw_footprints(footprints: Footprints) -> Picture:
    """One heatmap per operand, side by side, with the text twin ``footprints.text``.

    1. For each operand, cut the 2-D slice to draw: the dimensions of its plane, the
       others fixed at the footprint's start.
    2. Size the figure so that cells are square and equally big in every subplot.
    3. In each subplot draw a grey background, the touched cells (merged into a few
       rectangles), white lines between cells when they are big enough, and the
       footprint's box outlined on top.

    >>> from tinycomp.viz.indexing_maps import indexing_problem
    >>> found = tile_footprints(indexing_problem("transpose"), (0, 0), (2, 2))
    >>> draw_footprints(found).text == found.text
    True
    """
    problem = footprints.problem
    views = [_plane_view(problem, f) for f in footprints.operands]
    columns = [max(3, view.mask.shape[1]) for view in views]
    rows = max(view.mask.shape[0] for view in views)
    # Inches per element: square cells, at most 0.3", the figure at most ~9.5" x 4.5".
    cell = min(0.3, 2.6 / max(rows, *columns), (9.0 - len(views)) / sum(columns), 3.0 / rows)
    width = sum(columns) * cell + 1.0 * len(views) + 0.3
    height = rows * cell + 1.7
    with house_style():
        fig = Figure(figsize=(width, height), layout="constrained")
        axes = fig.subplots(1, len(views), width_ratios=columns, squeeze=False)[0]
        for ax, footprint, view in zip(axes, footprints.operands, views, strict=True):
            _draw_operand(ax, problem, footprint, view, gaps=cell >= 0.1)
        fig.suptitle(footprints.heading, fontsize=11)
        fig.supxlabel(LEGEND, fontsize=8, color="#666666")
    return figure_to_picture(fig, footprints.text)


class _PlaneView(NamedTuple):
    """The 2-D slice of one operand that is drawn."""

    mask: np.ndarray
    """Touched elements, rows by columns."""
    rows: tuple[int, int]
    """The footprint's range down the rows, ``(lo, hi)``."""
    columns: tuple[int, int]
    """The footprint's range across the columns."""
    row_label: str
    column_label: str
    where: str
    """Where the slice is taken in the other dimensions: ``n=0, c=0``."""


def _plane_view(problem: IndexingProblem, footprint: OperandFootprint) -> _PlaneView:
    """The slice to draw: the plane's dimensions, the others at the footprint's start."""
    plane = problem.planes[footprint.name]
    labels = problem.axis_labels(footprint.name)
    drawn = [axis for axis in plane if axis is not None]
    index = tuple(
        slice(None) if axis in drawn else lo for axis, (lo, _) in enumerate(footprint.box)
    )
    mask = footprint.touched[index]
    if len(drawn) == 2 and drawn[0] > drawn[1]:
        mask = mask.T  # the plane lists (rows, columns); the slice keeps the operand's order
    shape = [1 if axis is None else footprint.touched.shape[axis] for axis in plane]
    fixed = [f"{labels[axis]}={index[axis]}" for axis in range(len(labels)) if axis not in drawn]
    ranges = [(0, 1) if axis is None else footprint.box[axis] for axis in plane]
    names = ["" if axis is None else labels[axis] for axis in plane]
    return _PlaneView(mask.reshape(shape), *ranges, *names, ", ".join(fixed))


def _draw_operand(
    ax: Axes,
    problem: IndexingProblem,
    footprint: OperandFootprint,
    view: _PlaneView,
    gaps: bool,
) -> None:
    """One heatmap: touched cells coloured, the footprint box outlined."""
    rows, columns = view.mask.shape
    ax.add_patch(Rectangle((0, 0), columns, rows, facecolor=UNTOUCHED, edgecolor="none"))
    cells = [Rectangle((a, top), b - a, end - top) for top, end, a, b in _blocks(view.mask)]
    ax.add_collection(PatchCollection(cells, facecolor=TOUCHED, edgecolor="none"))
    if gaps:  # white lines between the cells
        ax.hlines(np.arange(1, rows), 0, columns, colors="white", linewidth=0.8)
        ax.vlines(np.arange(1, columns), 0, rows, colors="white", linewidth=0.8)
    (row_lo, row_hi), (col_lo, col_hi) = view.rows, view.columns
    corner, width, height = (col_lo, row_lo), col_hi - col_lo, row_hi - row_lo
    style = {"edgecolor": OUTLINE, "linewidth": 2, "clip_on": False, "zorder": 3}
    ax.add_patch(Rectangle(corner, width, height, fill=False, **style))  # above the lines
    ax.set_xlim(0, columns)
    ax.set_ylim(rows, 0)  # row 0 at the top, as a matrix is written
    ax.set_aspect("equal")
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.tick_params(length=0, labelsize=8)
    sides = ((ax.xaxis, columns, view.column_label), (ax.yaxis, rows, view.row_label))
    for axis, size, label in sides:
        ticks = [int(t) for t in _ticks(size)] if label else []
        axis.set_ticks([t + 0.5 for t in ticks], [str(t) for t in ticks])
        axis.set_label_text(label, fontsize=9)
    shape = "x".join(str(size) for size in problem.operand_shapes[footprint.name]) or "scalar"
    where = f"\nat {view.where}" if view.where else ""
    ax.set_title(f"{footprint.name}  {shape}{where}", fontsize=10)


def _blocks(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The touched cells as rectangles ``(top row, end row, first column, end column)``:
    runs of cells along each row, merged with the same run in the rows below. A few
    rectangles keep the SVG small (and seamless) even for big operands."""
    finished = []
    open_blocks: dict[tuple[int, int], int] = {}  # (first column, end column) -> top row
    for row, cells in enumerate([*mask, np.zeros(mask.shape[1], dtype=bool)]):
        padded = np.concatenate(([False], cells, [False])).astype(np.int8)
        edges = np.flatnonzero(np.diff(padded))  # where runs start and end, alternately
        runs = set(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))
        for run in sorted(set(open_blocks) - runs):  # runs that stop in this row
            finished.append((open_blocks.pop(run), row, *run))
        for run in sorted(runs - set(open_blocks)):  # runs that start in this row
            open_blocks[run] = row
    return sorted(finished)


def _ticks(size: int) -> list[int]:
    """Every index up to 12, else a few round ones (multiples of 2, 4, 5, 8 or 10)."""
    if size <= 12:
        return list(range(size))
    locator = MaxNLocator(6, integer=True, steps=[1, 2, 4, 5, 8, 10])
    return [int(t) for t in locator.tick_values(0, size - 1) if 0 <= t < size]


def indexing_map_explorer(
    maps: MapsLike,
    loop_sizes: Sequence[int] | None = None,
    operand_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    mode: str = "point",
    loop_names: Sequence[str] | None = None,
    caption: str | None = "indexing maps",
) -> Explorer:
    """Sliders for an iteration point (``mode="point"``) or a tile (``mode="tile"``),
    redrawing :func:`footprint_picture`. The first three arguments are those of
    :func:`~tinycomp.viz.indexing_maps.indexing_problem`.

    In tile mode the tile-number slider shrinks when the tiles grow, so with
    :meth:`~tinycomp.viz.Explorer.set` give the tile sizes before the tile number.

    >>> explorer = indexing_map_explorer("reduction")
    >>> explorer.set(i=2, j=7)
    >>> explorer.label
    'point i=2, j=7'
    >>> explorer.picture.text.splitlines()[-1]
    '  out  (i, j) -> (i)     out[2]  (1 element)'
    """
    problem = indexing_problem(maps, loop_sizes, operand_shapes, loop_names=loop_names)
    if mode not in MODES:
        raise ValueError(f"expected mode to be one of {MODES}, got {mode!r}")
    if mode == "point":
        return _point_explorer(problem, caption)
    return _tile_explorer(problem, caption)


def _point_explorer(problem: IndexingProblem, caption: str | None) -> Explorer:
    controls = {
        name: ipywidgets.IntSlider(value=0, min=0, max=size - 1, description=name)
        for name, size in zip(problem.loop_names, problem.loop_sizes, strict=True)
    }

    def draw(**point: int) -> tuple[Picture, str]:
        offsets = tuple(point[name] for name in problem.loop_names)
        footprints = tile_footprints(problem, offsets, (1,) * len(offsets))
        return draw_footprints(footprints), footprints.heading.removeprefix("the ")

    return Explorer(draw, controls, caption=caption)


def _tile_explorer(problem: IndexingProblem, caption: str | None) -> Explorer:
    size_controls = {}
    loops = zip(problem.loop_names, problem.loop_sizes, problem.tile_sizes, strict=True)
    for name, size, tile in loops:
        slider = ipywidgets.IntSlider(value=tile, min=1, max=size, description=f"tile {name}")
        size_controls[f"tile_{name}"] = slider
    count = math.prod(tile_grid(problem, problem.tile_sizes))
    tile_control = ipywidgets.IntSlider(value=0, min=0, max=count - 1, description="tile")

    def tile_sizes() -> tuple[int, ...]:
        return tuple(control.value for control in size_controls.values())

    def fit_tile_slider(change: dict) -> None:
        # Registered before the Explorer's own observer, so it runs first: when the
        # grid shrinks, the slider clamps its value before the picture is redrawn.
        tile_control.max = math.prod(tile_grid(problem, tile_sizes())) - 1

    for control in size_controls.values():
        control.observe(fit_tile_slider, names="value")

    def draw(tile: int, **sizes: int) -> tuple[Picture, str]:
        chosen = tuple(sizes[f"tile_{name}"] for name in problem.loop_names)
        grid = tile_grid(problem, chosen)
        offsets, extents = tile_of(problem, chosen, tile)
        footprints = tile_footprints(problem, offsets, extents)
        where = footprints.heading.removeprefix("the tile ")
        grid_text = "x".join(str(count) for count in grid)
        label = f"tile {tile} in 0..{math.prod(grid) - 1} (a {grid_text} grid): {where}"
        return draw_footprints(footprints), label

    return Explorer(draw, {**size_controls, "tile": tile_control}, caption=caption)
