"""One tile of a tiled linalg op: the slice it takes of every operand, in numbers.

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

``tinycomp.viz.tiling_pictures`` draws a ``TileView`` as grids.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.affine import AffineDimExpr
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.ir.type_helpers import bitwidth, element_type
from tinycomp.ir.types import DYNAMIC, ShapedType
from tinycomp.passes.tiling.index_values import IndexBuilder
from tinycomp.passes.tiling.legality import check_tile_sizes
from tinycomp.passes.tiling.slices import LoopTile, footprint_shape, operand_slice, slice_problem
from tinycomp.viz.indexing_maps import NAMED_OP_PLANES, rename_dims

__all__ = ["OperandTile", "TileView", "format_sizes", "tile_view"]


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
                    format_sizes(operand.full_tile),
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


def _is_shaped(value) -> bool:
    return isinstance(value.type, ShapedType)


def _join(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def _list(values: Sequence[int]) -> str:
    return f"[{_join(values)}]"


def format_sizes(sizes: Sequence[int]) -> str:
    """``4x8`` (``scalar`` for no sizes), as the tables and titles write shapes."""
    return "x".join(str(s) for s in sizes) or "scalar"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
