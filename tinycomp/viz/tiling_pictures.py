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
BEFORE_NOTE = "the slice before the last change"


def tiling_picture(
    op: Operation | TileView,
    tile_sizes: Sequence[int] = (),
    tile: int | Sequence[int] = 0,
    *,
    previous: TileView | None = None,
) -> Picture:
    """Each operand of ``op`` as a grid with tile ``tile``'s slice shaded (see the module
    docstring). ``op`` may also be a ``TileView`` already computed. ``previous``, a view
    of the same op (another tile, other tile sizes), is outlined dotted on top: where
    the slices were before a change, so that the change shows as movement.

    The layout depends only on the operands' shapes, never on the tile: every grid keeps
    its place and its scale whatever tile is drawn.

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
    if not view.operands:
        return Picture.from_text(view.text)
    layout = _Layout(view)
    with house_style():
        fig = Figure(figsize=(layout.width, layout.height))
        for number, operand in enumerate(view.operands):
            ax = fig.add_axes(layout.rect(number))
            before = None if previous is None else previous.operands[number]
            _draw_operand(ax, operand, operand.sizes != operand.full_tile, layout.gaps, before)
        where = "partial tile" if view.is_partial else "tile"
        heading = f"{where} {view.number} of {view.total_tiles}: {view.describe_loops(True)}"
        fig.text(0.5, 1 - 0.12 / layout.height, heading, ha="center", va="top", fontsize=11)
        legend = LEGEND if previous is None else f"{LEGEND}    dotted: {BEFORE_NOTE}"
        fig.text(0.5, 0.1 / layout.height, legend, ha="center", va="bottom", fontsize=9,
                 color="#555555")  # fmt: skip
    return figure_to_picture(fig, view.text)


class _Layout:
    """Where each operand's grid goes, in inches: one row of grids, top-aligned, at one
    scale (``cell`` inches per element) chosen from the shapes alone."""

    HEADING = 0.45
    TITLE = 0.24  # per line of an operand's title
    TICKS = 0.5  # tick labels and the axis label under a grid
    LEGEND = 0.35
    GAP = 0.75  # between grids (room for the row tick labels)
    MARGIN = 0.55

    def __init__(self, view: TileView) -> None:
        self.shapes = [_drawn_shape(operand) for operand in view.operands]
        columns = [max(3, c) for _, c in self.shapes]
        rows = max(r for r, _ in self.shapes)
        self.cell = min(0.3, 2.6 / max(rows, *columns), 9.0 / sum(columns), 3.0 / rows)
        self.cell = max(self.cell, 0.04)
        self.gaps = self.cell >= 0.1
        self.columns = columns
        self.title_lines = max(3 if len(o.shape) > 2 else 2 for o in view.operands)
        self.top = self.HEADING + self.TITLE * self.title_lines
        self.width = 2 * self.MARGIN + sum(columns) * self.cell + self.GAP * (len(columns) - 1)
        self.height = self.top + rows * self.cell + self.TICKS + self.LEGEND

    def rect(self, number: int) -> list[float]:
        """``[left, bottom, width, height]`` of grid ``number``, as figure fractions."""
        left = self.MARGIN + sum(c * self.cell + self.GAP for c in self.columns[:number])
        width = self.columns[number] * self.cell
        height = self.shapes[number][0] * self.cell
        bottom = self.height - self.top - height
        return [left / self.width, bottom / self.height, width / self.width, height / self.height]


def _draw_operand(
    ax: Axes, operand: OperandTile, partial: bool, gaps: bool, before: OperandTile | None
) -> None:
    """One operand: grey cells, dashed tile boundaries, the slice shaded (orange when
    ``partial``: smaller than a full tile's), and ``before``'s slice outlined dotted."""
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
    if before is not None and (before.offsets, before.sizes) != (operand.offsets, operand.sizes):
        (was_row, was_rows), (was_col, was_cols) = (
            _range(before, row_axis),
            _range(before, column_axis),
        )
        ax.add_patch(
            Rectangle((was_col, was_row), was_cols, was_rows, fill=False, edgecolor="black",
                      linestyle=":", linewidth=2.0, zorder=4)
        )  # fmt: skip
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
