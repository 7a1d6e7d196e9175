"""Tile and fuse: tile a consumer, then compute its producers tile by tile inside the loop.

Tiling one op leaves its producers outside the loops: the whole intermediate tensor is
still computed (and, after bufferization, written to memory) before the first tile
runs. Fusing a producer *into* the tile loop computes only the piece the current tile
reads, right where it is read, so intermediate tensors shrink to tiles (registers,
shared memory, an NPU's unified buffer). This is MLIR's
``scf::tileConsumerAndFuseProducersUsingSCF`` (``transform.structured.fuse``). The
algorithm (``tile_and_fuse``):

1. Tile the consumer (``tile_linalg_op``). Its operands are now ``tensor.extract_slice``
   ops in the innermost loop body; put them on a worklist.
2. Take a slice. Find the value it slices: an input's slice reads a value from outside
   the loops; an output's slice reads an iter_arg, which we follow back through the
   loops' ``iter_args`` to the outermost loop's init (a *destination* operand).
3. Decide whether its producer fuses (``why_not_fusable``). It does when it is
   ``tensor.empty`` (only a shape: the tile gets its own ``tensor.empty``), or a linalg
   op on tensors that can be tiled and whose output map gives every parallel loop a
   position in the slice, so the slice's offsets and sizes say which producer tile is
   needed. A destination producer (``linalg.fill`` of a matmul's accumulator) fuses only
   when no tiled loop is a reduction: a ``k`` loop must find the previous ``k`` tile's
   partial sums in the iter_arg, not a freshly filled tile. ``tensor.empty`` as a
   destination stays outside, as in MLIR.
4. Replace the slice by the producer tiled to exactly that slice: the producer's loops
   that appear in its output map take the slice's offsets and sizes, its other loops
   (reductions) run whole; its operands are sliced in turn (``build_tiled_op``), and
   those slices go on the worklist (step 2): fusion is recursive, through a whole chain.
5. For a fused destination, the outermost loop now starts from the producer's own init
   (the ``tensor.empty`` under the fill): every tile overwrites its window, so the old
   initial value is never read.
6. Erase the original producers that have no users left. A producer whose result is
   also used elsewhere (returned, or read by another op) stays: the loop recomputes its
   tiles and the other users read the original. That is what MLIR does by default
   (recomputation); MLIR can instead yield the fused tiles out of the loop
   (``yieldReplacement``), which tinycomp does not.

A producer read through the *same* window twice in one tile (a residual connection
``x + f(x)`` reads ``x``'s tile both directly and through ``f``) is computed once: step 4
reuses the tile it already built for that (value, offsets, sizes), moving it (and what it
needs from the loop body) up to before the slice when it was built further down. Without
this a chain of n residual layers would compute the first layer's tile 2**n times.
Different windows of one producer (``exp`` feeding the row sum of a softmax through a
whole row and the division through the tile) are computed once per window, as in MLIR.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @main(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf32> {
...   %zero = arith.constant 0.0 : f32
...   %empty = tensor.empty() : tensor<8x8xf32>
...   %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
...   %mm = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>)
...                       outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
...   return %mm : tensor<8x8xf32> }''')
>>> result = tile_and_fuse(m.body.first_op.entry_block.ops[3], [4, 4])
>>> [op.name for op in m.body.first_op.entry_block.ops if op.name != "arith.constant"]
['tensor.empty', 'scf.for', 'func.return']
>>> [op.name for op in result.tiled_ops]
['linalg.generic', 'linalg.generic', 'tensor.empty']
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from tinycomp.affine import AffineDimExpr
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.dialects.tensor.slices import ExtractSliceOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import element_type, shape
from tinycomp.ir.values import BlockArgument, OpResult, Value
from tinycomp.passes.tiling.index_values import IndexBuilder
from tinycomp.passes.tiling.legality import describe_op, why_not_sliceable, why_not_tilable
from tinycomp.passes.tiling.result import TilingResult
from tinycomp.passes.tiling.slices import LoopTile
from tinycomp.passes.tiling.tile_op import build_tiled_op, tile_linalg_op, trip_counts
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["producer_tiles", "tile_and_fuse", "why_not_fusable"]


def tile_and_fuse(
    op: Operation, tile_sizes: Sequence[int], rewriter: PatternRewriter | None = None
) -> TilingResult:
    """Tile ``op`` and fuse its producers into the tile loops (steps 1-6 above).
    ``result.tiled_ops`` lists the tiled consumer, then every fused tile;
    ``result.notes`` says which producers stayed outside, and why."""
    rewriter = rewriter or PatternRewriter()
    result = tile_linalg_op(op, tile_sizes, rewriter)  # step 1
    if not result.tiled:
        return result
    outermost = result.loops[0]
    has_reduction_loop = "reduction" in result.loop_kinds
    maker = IndexBuilder(outside=Builder.before(outermost), inside=Builder.before(outermost))
    worklist = deque(_slices_feeding(result.tiled_ops[0]))
    fused_originals: list[Operation] = []
    built: dict[tuple, Value] = {}  # (value, offsets, sizes) -> its tile, built in step 4
    while worklist:
        slice_op = worklist.popleft()
        source, init_position = _sliced_value(slice_op.source, result.loops)  # step 2
        producer = source.defining_op()
        if producer is None:
            continue  # a function argument: nothing to fuse
        window = (source, tuple(slice_op.offsets), tuple(slice_op.sizes), init_position)
        earlier = built.get(window)
        if earlier is not None:  # the same tile, already computed: reuse it
            _hoist_before(earlier.defining_op(), slice_op)
            rewriter.replace_op(slice_op, [earlier])
            continue
        destination = init_position is not None
        reason = why_not_fusable(producer, slice_op, source, destination, has_reduction_loop)
        if reason is not None:  # step 3
            if not (destination and isinstance(producer, EmptyOp)):
                result.notes.append(f"{describe_op(producer)} not fused: {reason}")
            continue
        rewriter.set_current_op(slice_op)
        maker.inside = rewriter  # the producer's tile goes right before the slice
        fused = _fuse_into_slice(producer, source, slice_op, maker, rewriter)  # step 4
        if isinstance(source, OpResult):
            built[window] = fused.results[source.index]
        result.tiled_ops.append(fused)
        worklist.extend(_slices_feeding(fused))
        if init_position is not None and isinstance(producer, StructuredOp):  # step 5
            assert isinstance(source, OpResult)
            with rewriter.modify_op_in_place(outermost):
                outermost.set_operand(3 + init_position, producer.outputs[source.index])
        fused_originals.append(producer)
    _erase_unused(fused_originals, rewriter)  # step 6
    return result


def why_not_fusable(
    producer: Operation,
    slice_op: ExtractSliceOp,
    source: Value,
    destination: bool = False,
    has_reduction_loop: bool = False,
) -> str | None:
    """Why ``producer`` (of ``source``, which ``slice_op`` slices) cannot be computed
    tile by tile inside the loop (step 3), or ``None``."""
    if isinstance(producer, EmptyOp):
        return "tensor.empty as a loop init stays outside (as in MLIR)" if destination else None
    if not isinstance(producer, StructuredOp):
        return f"'{producer.name}' is not a linalg op or tensor.empty"
    if destination and has_reduction_loop:
        return (
            "it initializes the result of a tiled reduction loop, which must find the "
            "partial results of the previous tiles there: it runs once, before the loop"
        )
    reason = why_not_tilable(producer)
    if reason is not None:
        return reason
    if any(stride != 1 for stride in slice_op.strides):
        return "the slice has strides other than 1"
    if shape(slice_op.result.type) != slice_op.static_sizes:
        return "the slice drops unit dimensions (rank-reducing)"
    static_counts = list(producer.static_loop_sizes())  # None where dynamic: never 'whole'
    tiles = producer_tiles(producer, slice_op, source, static_counts)
    if isinstance(tiles, str):
        return tiles
    return why_not_sliceable(producer, [1 if tile.tiled else 0 for tile in tiles])


def producer_tiles(
    producer: StructuredOp, slice_op: ExtractSliceOp, source: Value, counts: list
) -> list[LoopTile] | str:
    """The tile of ``producer``'s loops that computes exactly ``slice_op``'s window of
    ``source`` (one of its results), or why there is none. ``counts`` are the
    producer's trip counts."""
    assert isinstance(source, OpResult)
    output_map = producer.indexing_maps()[producer.num_inputs + source.index]
    offsets, sizes = slice_op.offsets, slice_op.sizes
    tiles: list[LoopTile | None] = [None] * producer.num_loops
    for position, expr in enumerate(output_map.results):
        if isinstance(expr, AffineDimExpr):
            offset, size = offsets[position], sizes[position]
            count = counts[expr.position]
            whole = offset == 0 and (size is count or size == count)
            tiles[expr.position] = LoopTile(offset, size, tiled=not whole)
        elif offsets[position] != 0 or sizes[position] != shape(source.type)[position]:
            return f"the slice takes part of dimension {position}, which the producer writes whole"
    kinds = producer.iterator_types()
    for loop, tile in enumerate(tiles):
        if tile is None and kinds[loop] == "parallel":
            return f"parallel loop {producer.loop_name(loop)} does not index its result"
    return [
        tile if tile is not None else LoopTile(0, counts[loop], tiled=False)
        for loop, tile in enumerate(tiles)
    ]


def _fuse_into_slice(
    producer: Operation,
    source: Value,
    slice_op: ExtractSliceOp,
    maker: IndexBuilder,
    rewriter: PatternRewriter,
) -> Operation:
    """Step 4: build the producer's tile before ``slice_op`` and replace the slice by it."""
    if isinstance(producer, EmptyOp):
        dynamic = [size for size in slice_op.sizes if isinstance(size, Value)]
        item = element_type(source.type)
        fused = maker.inside.insert(EmptyOp.build(slice_op.static_sizes, item, dynamic))
        replacement = fused.result
    else:
        assert isinstance(producer, StructuredOp)
        tiles = producer_tiles(producer, slice_op, source, trip_counts(producer, maker))
        assert not isinstance(tiles, str), tiles
        generic = producer if isinstance(producer, GenericOp) else producer.generalize()
        fused, _ = build_tiled_op(generic, tiles, list(producer.outputs), maker)
        if generic is not producer:
            generic.drop_all_references()
        assert isinstance(source, OpResult)
        replacement = fused.results[source.index]
    replacement.name_hint = source.name_hint
    rewriter.replace_op(slice_op, [replacement])  # checks the tile has the slice's type
    return fused


def _hoist_before(op: Operation, anchor: Operation) -> None:
    """Move ``op``, and every op of ``anchor``'s block it depends on that comes after
    ``anchor``, to just before ``anchor``, keeping their order (for a reused tile)."""
    block = anchor.parent
    position = {candidate: index for index, candidate in enumerate(block.ops)}
    if op.parent is not block or position[op] < position[anchor]:
        return
    needed: set[Operation] = set()
    stack = [op]
    while stack:
        current = stack.pop()
        if current in needed or current.parent is not block:
            continue
        if position[current] < position[anchor]:
            continue
        needed.add(current)
        for nested in current.walk():
            for operand in nested.operands:
                defining = operand.defining_op()
                while defining is not None and defining.parent is not block:
                    defining = defining.parent_op()  # a value from inside a region
                if defining is not None:
                    stack.append(defining)
    for moved in sorted(needed, key=position.__getitem__):
        moved.move_before(anchor)


def _sliced_value(value: Value, loops: list[Operation]) -> tuple[Value, int | None]:
    """Step 2: ``value``, or the outermost init behind an iter_arg of ``loops`` (with
    its position among the iter_args)."""
    position: int | None = None
    while isinstance(value, BlockArgument):
        loop = value.block.parent_op()
        if not (isinstance(loop, ForOp) and loop in loops) or value.index == 0:
            break
        position = value.index - 1
        value = loop.init_args[position]
    return value, position


def _slices_feeding(op: Operation) -> list[ExtractSliceOp]:
    """The ``tensor.extract_slice`` ops whose results ``op`` reads."""
    found = []
    for operand in op.operands:
        defining = operand.defining_op()
        if isinstance(defining, ExtractSliceOp) and defining not in found:
            found.append(defining)
    return found


def _erase_unused(producers: list[Operation], rewriter: PatternRewriter) -> None:
    """Step 6: erase fused producers left without users, until none is left."""
    changed = True
    while changed:
        changed = False
        for producer in producers:
            if producer.parent is not None and not any(r.has_uses for r in producer.results):
                rewriter.erase_op(producer)
                changed = True
