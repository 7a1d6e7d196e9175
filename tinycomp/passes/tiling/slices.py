"""Operand slices from indexing maps: which part of each operand one tile touches.

A linalg op reads operand ``x`` at ``map(d0, ..., dn)``. When the loops run over one
tile (loop ``k`` from ``offset_k`` for ``size_k`` steps), the op touches a box of ``x``;
tiling cuts exactly that box out with ``tensor.extract_slice`` and runs the *same* op,
with the *same* indexing maps, on the slices. For that to be right, reading the slice at
``map(local)`` (``local_k = d_k - offset_k``, what the tiled op's loops count) must give
the element the big op read at ``map(d)``. Per result ``e`` of the map (one dimension of
the operand):

1. ``e`` uses no tiled loop (``d1`` when only ``d0`` is tiled, or a constant such as the
   ``0`` of a keep-dims reduction): take the whole dimension, offset 0. The tiled op's
   index is the big op's index.
2. ``e`` is an affine sum ``c + sum(a_k * d_k)`` with every ``a_k > 0`` and ``c >= 0``
   (``d0``, ``d1 * 2 + d4`` for a strided convolution, ``d0 + 1`` for a stencil):
   ``e(offset + local) = e_lin(offset) + e(local)``, where ``e_lin`` drops the constant.
   So the slice starts at ``e_lin(offset)``, and the tiled op, still reading at
   ``e(local)``, lands on the right element. The slice must reach the largest local
   index, ``e(size - 1)``, so its size is ``e(size - 1) + 1``. For ``d0`` this is just
   ``[offset_0, size_0]``; for ``oh * 2 + kh`` with ``oh`` tiled by 4 and 3 taps it is
   ``[2 * %oh, 4 * 2 - 2 + 3 = 9]``.
3. Anything else that uses a tiled loop (``d0 floordiv 2``, ``d0 mod 4``, ``8 - d0``)
   has no such slice: the tile's elements are not a box that shifts with the tile, so
   the op is left untiled, with this reason (``slice_problem``).

For projected permutations (matmul, elementwise ops, transposes, broadcasts, row
reductions) the slice is exactly the tile's footprint (``AffineMap.tile_footprint``);
for a strided convolution it is the footprint too, and its size is computed with an
``affine.apply`` when the tile size is dynamic, as in MLIR's ``computeSliceParameters``.

>>> from tinycomp.affine import parse_affine_map
>>> conv_rows = parse_affine_map("(oh, kh) -> (oh * 2 + kh)")
>>> print(slice_problem(conv_rows.results[0], tiled=[True, False]))
None
>>> slice_problem(parse_affine_map("(d0) -> (d0 floordiv 2)").results[0], tiled=[True])
"'d0 floordiv 2' uses tiled loop d0 but is not a sum of loops with positive coefficients"
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.affine import AffineDimExpr, AffineExpr, AffineMap
from tinycomp.affine.simplify import linearize
from tinycomp.ir.types import DYNAMIC, Shape
from tinycomp.ir.values import Value
from tinycomp.passes.tiling.index_values import IndexBuilder, MixedIndex

__all__ = ["LoopTile", "OperandSlice", "footprint_shape", "operand_slice", "slice_problem"]


@dataclass(frozen=True)
class LoopTile:
    """Where the current tile lies along one loop of the op.

    >>> LoopTile(offset=0, size=16, tiled=False)
    LoopTile(offset=0, size=16, tiled=False)
    """

    offset: MixedIndex
    """First iteration of the tile: the loop counter of a tiled loop, 0 otherwise."""
    size: MixedIndex
    """Iterations in the tile: the tile size, ``affine.min`` of a partial tile, or the
    whole loop when the loop is not tiled."""
    tiled: bool
    """Whether this loop is cut into tiles (a loop walks over them)."""


@dataclass(frozen=True)
class OperandSlice:
    """The ``[offsets] [sizes]`` window of one operand (strides are always 1)."""

    offsets: list[MixedIndex]
    sizes: list[MixedIndex]

    @property
    def shape(self) -> Shape:
        """The slice's type shape: static sizes, ``?`` for SSA sizes.

        >>> OperandSlice([0, 0], [4, 8]).shape
        (4, 8)
        """
        return tuple(s if isinstance(s, int) else DYNAMIC for s in self.sizes)


def slice_problem(expr: AffineExpr, tiled: Sequence[bool]) -> str | None:
    """Why map result ``expr`` has no slice per tile (case 3 above), or ``None``."""
    tiled_dims = [d for d in expr.used_dims() if tiled[d]]
    if not tiled_dims:
        return None
    form = linearize(expr)
    good = form.constant >= 0 and all(
        isinstance(term, AffineDimExpr) and coefficient > 0
        for term, coefficient in form.terms.items()
    )
    if good:
        return None
    return (
        f"'{expr}' uses tiled loop d{tiled_dims[0]} but is not a sum of loops with "
        "positive coefficients"
    )


def operand_slice(
    operand: Value, indexing_map: AffineMap, tiles: Sequence[LoopTile], maker: IndexBuilder
) -> OperandSlice:
    """The window of ``operand`` (indexed through ``indexing_map``) that the tile
    ``tiles`` touches (cases 1 and 2 above; call ``slice_problem`` first).

    >>> from tinycomp.affine import parse_affine_map
    >>> from tinycomp.ir import Block, Builder, RankedTensorType, f32
    >>> block = Block([RankedTensorType((1, 9, 9, 3), f32)])
    >>> maker = IndexBuilder(Builder.at_end(block), Builder.at_end(block))
    >>> conv_input = parse_affine_map("(n, oh, kh, c) -> (n, oh * 2 + kh, c)")
    >>> tiles = [LoopTile(0, 1, False), LoopTile(2, 3, True), LoopTile(0, 3, False),
    ...          LoopTile(0, 3, False)]
    >>> operand_slice(block.arguments[0], conv_input, tiles, maker)  # rows 4..10
    OperandSlice(offsets=[0, 4, 0], sizes=[1, 7, 9])
    """
    tiled = [tile.tiled for tile in tiles]
    offsets: list[MixedIndex] = []
    sizes: list[MixedIndex] = []
    for position, expr in enumerate(indexing_map.results):
        if not any(tiled[d] for d in expr.used_dims()):  # case 1: the whole dimension
            offsets.append(0)
            sizes.append(maker.dim(operand, position))
            continue
        form = linearize(expr)  # case 2: c + sum(a_k * d_k)
        offset_terms: list[tuple[int, MixedIndex]] = []
        size_terms: list[tuple[int, MixedIndex]] = []
        for term, coefficient in form.terms.items():
            assert isinstance(term, AffineDimExpr), slice_problem(expr, tiled)
            tile = tiles[term.position]
            offset_terms.append((coefficient, tile.offset))
            size_terms.append((coefficient, tile.size))
        offsets.append(maker.linear(offset_terms))
        # e(size - 1) + 1 = c + sum(a_k * size_k) - sum(a_k) + 1
        last = form.constant - sum(a for a, _ in size_terms) + 1
        sizes.append(maker.linear(size_terms, last))
    return OperandSlice(offsets, sizes)


def footprint_shape(
    indexing_map: AffineMap, tile_sizes: Sequence[int | None]
) -> tuple[int | None, ...]:
    """The shape of the box a full tile touches (``AffineMap.tile_footprint`` of the
    first tile); ``None`` where a size is not known at compile time.

    >>> from tinycomp.affine import parse_affine_map
    >>> footprint_shape(parse_affine_map("(m, n, k) -> (m, k)"), [32, 64, 128])
    (32, 128)
    >>> footprint_shape(parse_affine_map("(oh, kh) -> (oh * 2 + kh)"), [4, 3])
    (9,)
    """
    if any(size is None for size in tile_sizes):
        known = [size if size is not None else 1 for size in tile_sizes]
        exact = indexing_map.tile_footprint([0] * len(known), known).sizes
        unknown = {d for d, size in enumerate(tile_sizes) if size is None}
        return tuple(
            None if set(expr.used_dims()) & unknown else extent
            for expr, extent in zip(indexing_map.results, exact, strict=True)
        )
    return indexing_map.tile_footprint([0] * len(tile_sizes), list(tile_sizes)).sizes
