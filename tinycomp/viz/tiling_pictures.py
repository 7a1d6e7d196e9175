"""One tile of a tiled linalg op: the slice it takes of every operand, as grids.

Tiling cuts an op's loops into tiles; one tile runs the same op on one *slice* of each
operand, the box that operand's indexing map reaches from the tile (chapter 06; the
rule is ``tinycomp.passes.tiling.slices``). ``tile_view`` computes, for one tile:

1. where the tile lies along each loop: tile ``c`` of a loop of ``N`` iterations cut
   by ``T`` starts at ``c * T`` and has ``min(T, N - c * T)`` iterations: the last one
   is *partial* when ``T`` does not divide ``N``; an untiled loop (``T = 0``) is whole;
2. every operand's slice, with the library's own ``operand_slice`` (so the picture
   shows exactly what ``tile_linalg_op`` extracts), and the footprint of a *full* tile
   (``footprint_shape``): what must fit in fast memory;
3. how many tiles each loop is cut into, and the bytes a full tile touches.

``tiling_picture`` draws it: each operand as a grid (an operand of rank above 2 as the
2-D plane of its two largest dimensions, or the (h, w) plane of a convolution), the
tile boundaries dashed where a dimension is indexed by one tiled loop, and the slice
shaded: blue, or orange where a partial tile cuts it short. The text twin lists the
same numbers.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @main(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>,
...                              %c: tensor<10x16xf32>) -> tensor<10x16xf32> {
...   %mm = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>)
...                       outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
...   return %mm : tensor<10x16xf32> }''')
>>> print(tile_view(m.body.first_op.entry_block.first_op, [4, 8, 0], tile=5))
tiling %mm = linalg.matmul by [4, 8, 0]
  loops (m, n, k) = (10, 16, 8): parallel, parallel, reduction
  tiles per loop [3, 2, 1] = 6 tiles; a full tile touches 512 bytes
tile 5 = (2, 1, 0): m 8:10 (partial: 2 of 4), n 8:16, k 0:8 (not tiled)
  operand  map                  slice [offsets] [sizes]  full tile  bytes
  %a       (m, n, k) -> (m, k)  [8, 0] [2, 8]            4x8          128
  %b       (m, n, k) -> (k, n)  [0, 8] [8, 8]            8x8          256
  %c       (m, n, k) -> (m, n)  [8, 8] [2, 8]            4x8          128
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from tinycomp.affine import AffineDimExpr
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder
from tinycomp.ir.dialects.linalg_base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.ir.type_helpers import bitwidth, element_type
from tinycomp.ir.types import DYNAMIC, ShapedType
from tinycomp.passes.tiling.index_values import IndexBuilder
from tinycomp.passes.tiling.legality import check_tile_sizes
from tinycomp.passes.tiling.slices import LoopTile, footprint_shape, operand_slice, slice_problem
from tinycomp.viz.indexing_maps import NAMED_OP_PLANES, rename_dims
from tinycomp.viz.picture import Picture
from tinycomp.viz.plots import PALETTE, figure_to_picture, house_style

__all__ = ["OperandTile", "TileView", "tile_view", "tiling_picture"]

FULL = PALETTE[0]  # blue
PARTIAL = PALETTE[1]  # orange
BACKGROUND = "#eeeeee"
BOUNDARY = "#777777"
LEGEND = (
    "blue: the tile's slice    orange: a slice cut short by a partial tile    "
    "dashed: tile boundaries"
)


@dataclass(frozen=True)
class OperandTile:
    """What one tile takes of one operand."""

    name: str
    """The operand as the printed IR names it: ``%a``."""
    map_text: str
    """Its indexing map with the op's loop names: ``(m, n, k) -> (m, k)``."""
    shape: tuple[int, ...]
    """The operand's shape."""
    offsets: tuple[int, ...]
    """Where this tile's slice starts, per dimension."""
    sizes: tuple[int, ...]
    """The slice's size per dimension (smaller than ``full_tile`` in a partial tile)."""
    full_tile: tuple[int, ...]
    """The footprint of a full tile: what the first tile takes."""
    element_bytes: int
    """Bytes per element."""
    boundaries: tuple[int | None, ...]
    """Per dimension: the tile size of the one tiled loop that indexes it alone (tile
    boundaries fall at its multiples), ``None`` otherwise."""
    plane: tuple[int | None, int | None]
    """The dimensions drawn down the rows and across the columns."""
    axis_labels: tuple[str, ...] = ()
    """Per dimension, the map result that indexes it, with loop names: ``oh * 2 + kh``."""

    @property
    def full_tile_bytes(self) -> int:
        """Bytes of the full tile's footprint."""
        return math.prod(self.full_tile) * self.element_bytes


@dataclass(frozen=True)
class TileView:
    """One tile of an op cut by some tile sizes (see the module docstring)."""

    op: str
    """``%mm = linalg.matmul``."""
    loop_names: tuple[str, ...]
    loop_sizes: tuple[int, ...]
    iterator_types: tuple[str, ...]
    tile_sizes: tuple[int, ...]
    """One per loop, 0 for a loop that is not tiled."""
    coordinates: tuple[int, ...]
    """The tile's position in the grid of tiles, per loop."""
    offsets: tuple[int, ...]
    """The tile's first iteration, per loop."""
    sizes: tuple[int, ...]
    """The tile's iterations, per loop."""
    operands: tuple[OperandTile, ...]
    """One entry per tensor operand (scalars have no slice)."""

    @property
    def tile_counts(self) -> tuple[int, ...]:
        """Tiles along each loop (1 for a loop that is not tiled)."""
        return tuple(
            1 if tile == 0 else -(-size // tile)
            for size, tile in zip(self.loop_sizes, self.tile_sizes, strict=True)
        )

    @property
    def total_tiles(self) -> int:
        """How many tiles there are in all."""
        return math.prod(self.tile_counts)

    @property
    def number(self) -> int:
        """The tile's number, row-major over the grid (the last loop fastest)."""
        number = 0
        for coordinate, count in zip(self.coordinates, self.tile_counts, strict=True):
            number = number * count + coordinate
        return number

    @property
    def is_partial(self) -> bool:
        """Whether the tile is smaller than a full one along some loop."""
        return any(0 < size < tile for size, tile in zip(self.sizes, self.tile_sizes, strict=True))

    @property
    def full_tile_bytes(self) -> int:
        """Bytes of every operand's full-tile footprint, added up."""
        return sum(operand.full_tile_bytes for operand in self.operands)

    def describe_loops(self, tiled_only: bool = False) -> str:
        """``m 8:10 (partial: 2 of 4), n 8:16, k 0:8 (not tiled)``; with ``tiled_only``
        just the tiled loops."""
        parts = []
        for name, offset, size, tile in zip(
            self.loop_names, self.offsets, self.sizes, self.tile_sizes, strict=True
        ):
            if tiled_only and tile == 0:
                continue
            part = f"{name} {offset}:{offset + size}"
            if tile == 0:
                part += " (not tiled)"
            elif size < tile:
                part += f" (partial: {size} of {tile})"
            parts.append(part)
        return ", ".join(parts)

    @property
    def text(self) -> str:
        """The text twin (see the module docstring)."""
        loops = ", ".join(self.loop_names)
        sizes = ", ".join(str(size) for size in self.loop_sizes)
        tile = ", ".join(str(c) for c in self.coordinates)
        lines = [
            f"tiling {self.op} by {list(self.tile_sizes)}",
            f"  loops ({loops}) = ({sizes}): {', '.join(self.iterator_types)}",
            f"  tiles per loop {list(self.tile_counts)} = {_plural(self.total_tiles, 'tile')}; "
            f"a full tile touches {self.full_tile_bytes} bytes",
            f"tile {self.number} = ({tile}): {self.describe_loops()}",
        ]
        rows = [("operand", "map", "slice [offsets] [sizes]", "full tile", "bytes")]
        for operand in self.operands:
            window = f"{_list(operand.offsets)} {_list(operand.sizes)}"
            rows.append(
                (
                    operand.name,
                    operand.map_text,
                    window,
                    _shape(operand.full_tile),
                    str(operand.full_tile_bytes),
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row[:4], widths, strict=False)]
            lines.append("  " + "  ".join([*cells, row[4].rjust(widths[4])]))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text


def tile_view(op: Operation, tile_sizes: Sequence[int], tile: int | Sequence[int] = 0) -> TileView:
    """Tile ``tile`` (a number, row-major, or one coordinate per loop) of ``op`` cut by
    ``tile_sizes`` (steps 1-3 of the module docstring). ``op`` is a linalg op with
    static shapes; missing tile sizes are 0 (not tiled), as in ``tile_linalg_op``."""
    if not isinstance(op, StructuredOp):
        raise TypeError(f"expected a linalg op, got '{op.name}'")
    loop_sizes = tuple(op.static_loop_sizes())
    if DYNAMIC in loop_sizes or any(
        DYNAMIC in operand.type.shape for operand in op.operands if _is_shaped(operand)
    ):
        raise ValueError(f"expected static shapes to draw a tile of '{op.name}', got {loop_sizes}")
    sizes = check_tile_sizes(op, tile_sizes)
    maps = op.indexing_maps()
    tiled = [size > 0 for size in sizes]
    for position, indexing_map in enumerate(maps):
        for expr in indexing_map.results:
            problem = slice_problem(expr, tiled)
            if problem is not None:
                raise ValueError(f"operand #{position} has no slice per tile: {problem}")
    counts = [1 if t == 0 else -(-n // t) for n, t in zip(loop_sizes, sizes, strict=True)]
    coordinates = _coordinates(tile, counts)
    loop_tiles = []  # step 1
    for n, t, c in zip(loop_sizes, sizes, coordinates, strict=True):
        offset = c * t
        loop_tiles.append(LoopTile(offset, n if t == 0 else min(t, n - offset), t > 0))
    names = SSANames(naming_root(op), use_asm_names=True)
    loop_names = [op.loop_name(p) for p in range(op.num_loops)]
    full = [n if t == 0 else min(t, n) for n, t in zip(loop_sizes, sizes, strict=True)]
    maker = IndexBuilder(Builder.at_end(Block()), Builder.at_end(Block()))  # all ints: unused
    operands = []
    for operand, indexing_map in zip(op.operands, maps, strict=True):  # step 2
        if not _is_shaped(operand):
            continue
        window = operand_slice(operand, indexing_map, loop_tiles, maker)
        boundaries = tuple(
            sizes[e.position] if isinstance(e, AffineDimExpr) and tiled[e.position] else None
            for e in indexing_map.results
        )
        operands.append(
            OperandTile(
                name=names.value_name(operand),
                map_text=rename_dims(str(indexing_map), loop_names),
                shape=tuple(operand.type.shape),
                offsets=tuple(int(o) for o in window.offsets),
                sizes=tuple(int(s) for s in window.sizes),
                full_tile=tuple(int(s) for s in footprint_shape(indexing_map, full)),
                element_bytes=math.ceil(bitwidth(element_type(operand.type)) / 8),
                boundaries=boundaries,
                plane=_plane(op, len(operands), tuple(operand.type.shape)),
                axis_labels=tuple(rename_dims(str(e), loop_names) for e in indexing_map.results),
            )
        )
    result_names = ", ".join(names.value_name(r) for r in op.results)
    return TileView(
        op=f"{result_names} = {op.name}" if result_names else op.name,
        loop_names=tuple(loop_names),
        loop_sizes=loop_sizes,
        iterator_types=tuple(op.iterator_types()),
        tile_sizes=sizes,
        coordinates=coordinates,
        offsets=tuple(int(t.offset) for t in loop_tiles),
        sizes=tuple(int(t.size) for t in loop_tiles),
        operands=tuple(operands),
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
    title = f"{operand.name}  {_shape(operand.shape)}\n[{_join(operand.offsets)}] "
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


def _plane(op: StructuredOp, number: int, shape: tuple[int, ...]) -> tuple[int | None, int | None]:
    """The dimensions to draw: all of them up to rank 2 (a vector as one row), a named
    op's own choice (a convolution's (h, w)), else the two largest, in order."""
    known = NAMED_OP_PLANES.get(op.name)
    if known is not None and number < len(known):
        return known[number]
    if len(shape) == 0:
        return (None, None)
    if len(shape) == 1:
        return (None, 0)
    if len(shape) == 2:
        return (0, 1)
    largest = sorted(sorted(range(len(shape)), key=lambda axis: -shape[axis])[:2])
    return (largest[0], largest[1])


def _coordinates(tile: int | Sequence[int], counts: Sequence[int]) -> tuple[int, ...]:
    """The tile's grid position from its number (row-major) or its coordinates."""
    total = math.prod(counts)
    if isinstance(tile, int):
        if not 0 <= tile < total:
            raise ValueError(f"expected a tile number from 0 to {total - 1}, got {tile}")
        coordinates = []
        for count in reversed(counts):
            coordinates.append(tile % count)
            tile //= count
        return tuple(reversed(coordinates))
    coordinates = tuple(tile)
    if len(coordinates) != len(counts) or not all(
        0 <= c < n for c, n in zip(coordinates, counts, strict=True)
    ):
        raise ValueError(
            f"expected one tile coordinate per loop within the tiles per loop {list(counts)}, "
            f"got {list(coordinates)}"
        )
    return coordinates


def _ticks(size: int) -> list[int]:
    """Every index up to 12, else every multiple of a round step."""
    if size <= 12:
        return list(range(size))
    step = next(s for s in (2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100) if size / s <= 8)
    return list(range(0, size, step))


def _is_shaped(value) -> bool:
    return isinstance(value.type, ShapedType)


def _join(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def _list(values: Sequence[int]) -> str:
    return f"[{_join(values)}]"


def _shape(sizes: Sequence[int]) -> str:
    return "x".join(str(s) for s in sizes) or "scalar"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
