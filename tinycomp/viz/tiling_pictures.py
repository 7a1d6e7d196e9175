"""One tile of a tiled linalg op, drawn: the slice it takes of every operand, as grids.

``tile_view`` (``tinycomp.viz.tile_view``) computes, for one tile, every operand's slice,
the footprint of a full tile and the tile counts. ``tiling_picture`` draws it: each
operand as a grid (an operand of rank above 2 as the 2-D plane of its two largest
dimensions, or the (h, w) plane of a convolution), the tile boundaries dashed where a
dimension is indexed by one tiled loop, and the slice shaded: blue, or orange where a
partial tile cuts it short. The text twin lists the same numbers.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: tensor<6xf32>) -> tensor<6xf32> {
...   %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
...                        iterator_types = ["parallel"]}
...       outs(%x : tensor<6xf32>) {
...   ^bb0(%out: f32):
...     linalg.yield %out : f32
...   } -> tensor<6xf32>
...   return %r : tensor<6xf32> }''')
>>> print(tiling_picture(m.body.first_op.entry_block.first_op, [4], tile=1).text.splitlines()[0])
tiling %r = linalg.generic by [4]
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from tinycomp.ir.operation import Operation
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style
from tinycomp.viz.tile_view import OperandTile, TileView, format_sizes, tile_view

__all__ = ["OperandTile", "TileView", "tile_view", "tiling_picture"]

FULL = PALETTE[0]  # blue
PARTIAL = PALETTE[1]  # orange
BACKGROUND = "#eeeeee"
BOUNDARY = "#777777"
LEGEND = (
    "blue: the tile's slice    orange: a slice cut short by a partial tile    "
    "dashed: tile boundaries"
)


def tiling_picture(
    op: Operation | TileView,
    tile_sizes: Sequence[int] = (),
    tile: int | Sequence[int] = 0,
    *,
    loop_nest: str | None = None,
) -> Picture:
    """Each operand of ``op`` as a grid with tile ``tile``'s slice shaded (see the module
    docstring); ``loop_nest``, when given, is drawn above the grids (in monospace) and
    comes first in the text twin. ``op`` may also be a ``TileView`` already computed.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: tensor<6xf32>, %y: tensor<6xf32>) -> tensor<6xf32> {
    ...   %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
    ...        affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ...       ins(%x : tensor<6xf32>) outs(%y : tensor<6xf32>) {
    ...   ^bb0(%in: f32, %out: f32):
    ...     linalg.yield %in : f32
    ...   } -> tensor<6xf32>
    ...   return %r : tensor<6xf32> }''')
    >>> picture = tiling_picture(m.body.first_op.entry_block.first_op, [4], tile=1)
    >>> print(picture.text.splitlines()[3])
    tile 1 = (1): d0 4:6 (partial: 2 of 4)
    """
    view = op if isinstance(op, TileView) else tile_view(op, tile_sizes, tile)
    text = view.text if loop_nest is None else f"{loop_nest}\n\n{view.text}"
    if not view.operands:
        return Picture.from_text(text)
    shapes = [_drawn_shape(operand) for operand in view.operands]
    columns = [max(3, c) for _, c in shapes]
    rows = max(r for r, _ in shapes)
    cell = min(0.3, 2.6 / max(rows, *columns), (9.0 - len(shapes)) / sum(columns), 3.0 / rows)
    grid_width = sum(columns) * cell + 1.0 * len(shapes) + 0.3
    title_lines = max(3 if len(operand.shape) > 2 else 2 for operand in view.operands)
    grid_height = rows * cell + 1.3 + 0.2 * title_lines
    with house_style():
        if loop_nest is None:
            fig = Figure(figsize=(grid_width, grid_height), layout="constrained")
            grids = fig
        else:
            lines = loop_nest.split("\n")
            text_width = max(len(line) for line in lines) * 0.063 + 0.4
            text_height = len(lines) * 0.125 + 0.2
            width = max(grid_width, text_width)
            fig = Figure(figsize=(width, grid_height + text_height), layout="constrained")
            top, grids = fig.subfigures(2, 1, height_ratios=[text_height, grid_height])
            top.text(0.01, 0.98, loop_nest, family="monospace", fontsize=7.5, va="top")
        axes = grids.subplots(1, len(shapes), width_ratios=columns, squeeze=False)[0]
        for ax, operand in zip(axes, view.operands, strict=True):
            _draw_operand(ax, operand, operand.sizes != operand.full_tile, gaps=cell >= 0.1)
        where = "partial tile" if view.is_partial else "tile"
        heading = f"{where} {view.number} of {view.total_tiles}: {view.describe_loops(True)}"
        grids.suptitle(heading, fontsize=10)
        grids.supxlabel(LEGEND, fontsize=8, color="#666666")
    return figure_to_picture(fig, text)


def _draw_operand(ax: Axes, operand: OperandTile, partial: bool, gaps: bool) -> None:
    """One operand: grey cells, dashed tile boundaries, the slice shaded (orange when
    ``partial``: smaller than a full tile's)."""
    rows, columns = _drawn_shape(operand)
    row_axis, column_axis = operand.plane
    ax.add_patch(Rectangle((0, 0), columns, rows, facecolor=BACKGROUND, edgecolor="none"))
    if gaps:
        ax.hlines(range(1, rows), 0, columns, colors="white", linewidth=0.8)
        ax.vlines(range(1, columns), 0, rows, colors="white", linewidth=0.8)
    (row_lo, row_size), (col_lo, col_size) = _range(operand, row_axis), _range(operand, column_axis)
    colour = PARTIAL if partial else FULL
    box = Rectangle((col_lo, row_lo), col_size, row_size, facecolor=colour, alpha=0.85)
    ax.add_patch(box)
    ax.add_patch(
        Rectangle((col_lo, row_lo), col_size, row_size, fill=False, edgecolor="black", lw=1.2)
    )
    style = {"colors": BOUNDARY, "linestyles": "dashed", "linewidth": 1.2, "zorder": 3}
    if row_axis is not None and operand.boundaries[row_axis]:
        ax.hlines(range(operand.boundaries[row_axis], rows, operand.boundaries[row_axis]),
                  0, columns, **style)  # fmt: skip
    if column_axis is not None and operand.boundaries[column_axis]:
        ax.vlines(range(operand.boundaries[column_axis], columns, operand.boundaries[column_axis]),
                  0, rows, **style)  # fmt: skip
    ax.set_xlim(0, columns)
    ax.set_ylim(rows, 0)  # row 0 at the top, as a matrix is written
    ax.set_aspect("equal")
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.tick_params(length=0, labelsize=7)
    for axis, size, drawn in ((ax.xaxis, columns, column_axis), (ax.yaxis, rows, row_axis)):
        ticks = _ticks(size) if drawn is not None else []
        axis.set_ticks([t + 0.5 for t in ticks], [str(t) for t in ticks])
        axis.set_label_text("" if drawn is None else operand.axis_labels[drawn], fontsize=8)
    fixed = [
        f"{operand.axis_labels[axis]}={operand.offsets[axis]}"
        for axis in range(len(operand.shape))
        if axis not in operand.plane
    ]
    title = f"{operand.name}  {format_sizes(operand.shape)}\n[{_join(operand.offsets)}] "
    title += f"[{_join(operand.sizes)}]"
    if fixed:
        title += f"\nat {', '.join(fixed)}"
    ax.set_title(title, fontsize=9)


def _drawn_shape(operand: OperandTile) -> tuple[int, int]:
    """Rows and columns of the drawn plane (1 for a side with no dimension)."""
    return tuple(1 if axis is None else operand.shape[axis] for axis in operand.plane)


def _range(operand: OperandTile, axis: int | None) -> tuple[int, int]:
    """The slice's ``(start, size)`` along a drawn axis (the whole cell with none)."""
    if axis is None:
        return 0, 1
    return operand.offsets[axis], operand.sizes[axis]


def _ticks(size: int) -> list[int]:
    """Every index up to 12, else every multiple of a round step."""
    if size <= 12:
        return list(range(size))
    step = next(s for s in (2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100) if size / s <= 8)
    return list(range(0, size, step))


def _join(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)
