"""The loop nest that walks over the tiles: ``scf.for`` with ``iter_args``.

On tensors nothing is written in place, so a loop that fills a result tile by tile must
*carry* the result from one iteration to the next. That is what ``iter_args`` do: the
loop starts from the op's output tensor (its ``outs``), each iteration inserts its tile
(``tensor.insert_slice``) and yields the updated tensor, and the loop's result is the
tensor after the last tile. MLIR's ``scf::tileUsingSCF`` builds exactly this nest::

    %r = scf.for %i = %c0 to %c10 step %c4 iter_args(%acc = %init) -> (tensor<10x16xf32>) {
      %s = scf.for %j = %c0 to %c16 step %c8 iter_args(%acc2 = %acc) -> (tensor<10x16xf32>) {
        %rows = affine.min affine_map<(d0) -> (-d0 + 10, 4)>(%i)
        ...   // slices, the tiled op, tensor.insert_slice into %acc2
        scf.yield %updated : tensor<10x16xf32>
      }
      scf.yield %s : tensor<10x16xf32>
    }

The algorithm (``build_tile_loop_nest``):

1. Materialize the bounds before the nest: 0, each tiled loop's trip count (a constant,
   or a ``tensor.dim`` for a dynamic size) and its step, the tile size.
2. One ``scf.for`` per loop with a nonzero tile size, outermost = the op's first loop;
   the outermost carries the outputs, each inner loop carries its parent's iter_args.
3. In the innermost body, the size of the current tile along each tiled loop:

   * the tile size itself when it divides the trip count, or is 1 (every tile is full);
   * the trip count when the tile is at least that large (a single tile);
   * otherwise ``affine.min(N - %iv, T)``: the last tile is partial, the size is only
     known at run time, and the slices get dynamic shapes (``tensor<?x8xf32>``).
     MLIR writes the same ``affine.min`` (with ``N`` folded in when static).

   Untiled loops span the whole trip count at offset 0.
4. ``finish(yielded)`` ends the bodies with ``scf.yield``, innermost first: the
   innermost yields the updated tensors, each outer loop yields its inner loop's results.

>>> from tinycomp.ir import Block, Builder, RankedTensorType, f32
>>> block = Block([RankedTensorType((10, 16), f32)])
>>> maker = IndexBuilder(Builder.at_end(block), Builder.at_end(block))
>>> nest = build_tile_loop_nest(maker, [10, 16], [4, 8], list(block.arguments), ["i", "j"])
>>> nest.tiles[1].offset.name_hint, nest.tiles[1].size   # 8 divides 16: static size
('j', 8)
>>> nest.tiles[0].size.defining_op().name              # 4 does not divide 10
'affine.min'
>>> results = nest.finish(nest.iter_args)
>>> [op.name for op in block.ops]
['arith.constant', 'arith.constant', 'arith.constant', 'arith.constant', 'arith.constant', \
'scf.for']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.affine import AffineMap, dim, sym
from tinycomp.dialects.affine.apply import AffineMinOp
from tinycomp.dialects.scf.control import YieldOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.values import Value
from tinycomp.passes.tiling.index_values import IndexBuilder, MixedIndex
from tinycomp.passes.tiling.slices import LoopTile

__all__ = ["TileLoopNest", "build_tile_loop_nest", "bounded_tile_size"]


@dataclass
class TileLoopNest:
    """The loops built by ``build_tile_loop_nest`` and where the current tile lies."""

    loops: list[ForOp]
    """The ``scf.for`` loops, outermost first."""
    tiles: list[LoopTile]
    """Per loop of the op: the current tile's offset and size."""
    iter_args: list[Value]
    """The innermost loop's iter_args: the outputs as this iteration sees them."""
    maker: IndexBuilder
    """Index values: constants before the nest, arithmetic in the innermost body."""

    def finish(self, yielded: Sequence[Value]) -> list[Value]:
        """Step 4: end every body with ``scf.yield``; return the outermost results."""
        self.loops[-1].body.append(YieldOp.build(list(yielded)))
        for outer, inner in zip(reversed(self.loops[:-1]), reversed(self.loops[1:]), strict=True):
            outer.body.append(YieldOp.build(list(inner.results)))
        return list(self.loops[0].results)


def bounded_tile_size(
    iv: Value, trip_count: MixedIndex, tile_size: int, inside: Builder
) -> MixedIndex:
    """Step 3: the size of the tile starting at ``iv``.

    >>> from tinycomp.ir import Block, Builder, index
    >>> block = Block([index, index])
    >>> iv, n = block.arguments
    >>> bounded_tile_size(iv, 12, 4, Builder.at_end(block)), bounded_tile_size(iv, 3, 8, None)
    (4, 3)
    >>> str(bounded_tile_size(iv, n, 4, Builder.at_end(block)).defining_op().map)
    '(d0)[s0] -> (-d0 + s0, 4)'
    """
    if isinstance(trip_count, int):
        if tile_size == 1 or trip_count % tile_size == 0:
            return tile_size
        if tile_size >= trip_count:
            return trip_count
        size_map = AffineMap(1, 0, [trip_count - dim(0), tile_size])
        return inside.insert(AffineMinOp.build(size_map.simplify(), [iv])).result
    if tile_size == 1:
        return 1
    size_map = AffineMap(1, 1, [sym(0) - dim(0), tile_size])
    return inside.insert(AffineMinOp.build(size_map.simplify(), [iv, trip_count])).result


def build_tile_loop_nest(
    maker: IndexBuilder,
    trip_counts: Sequence[MixedIndex],
    tile_sizes: Sequence[int],
    inits: Sequence[Value],
    loop_names: Sequence[str],
) -> TileLoopNest:
    """Build the nest at ``maker.outside``'s insertion point (steps 1-3 above), which
    then moves to just before the nest. ``trip_counts`` has one entry per loop of the
    op (dynamic ones computed with ``maker`` beforehand)."""
    builder = maker.outside
    tiled = [position for position, size in enumerate(tile_sizes) if size > 0]
    zero = maker.constant(0)  # step 1
    bounds = {p: (maker.materialize(trip_counts[p]), maker.constant(tile_sizes[p])) for p in tiled}

    loops: list[ForOp] = []  # step 2
    carried = list(inits)
    for position in tiled:
        upper, step = bounds[position]
        loop = ForOp.build(zero, upper, step, carried)
        loop.induction_var.name_hint = loop_names[position]
        if loops:
            loops[-1].body.append(loop)
        else:
            builder.insert(loop)
            maker.outside = Builder.before(loop)  # later constants still dominate the nest
        loops.append(loop)
        carried = list(loop.region_iter_args)

    maker.inside = Builder.at_end(loops[-1].body)  # step 3
    tiles: list[LoopTile] = []
    for position, (count, tile_size) in enumerate(zip(trip_counts, tile_sizes, strict=True)):
        if tile_size == 0:
            tiles.append(LoopTile(0, count, tiled=False))
            continue
        iv = loops[tiled.index(position)].induction_var
        size = bounded_tile_size(iv, count, tile_size, maker.inside)
        tiles.append(LoopTile(iv, size, tiled=True))
    return TileLoopNest(loops, tiles, carried, maker)
