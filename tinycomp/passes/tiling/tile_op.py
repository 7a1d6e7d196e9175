"""Tile one linalg op on tensors: MLIR's ``scf::tileUsingSCF`` (TilingInterface).

A linalg op is a loop nest as data; tiling splits some of its loops in two: an outer
loop over tiles (a real ``scf.for``) and an inner loop inside one tile, which stays
implicit, as the same linalg op applied to slices. ``tile_linalg_op(matmul, [4, 8])``
on ``C[10x16] += A[10x8] * B[8x16]`` gives::

    %r = scf.for %m = %c0 to %c10 step %c4 iter_args(%arg3 = %C) -> (tensor<10x16xf32>) {
      %0 = scf.for %n = %c0 to %c16 step %c8 iter_args(%arg5 = %arg3) -> (...) {
        %rows = affine.min affine_map<(d0) -> (-d0 + 10, 4)>(%m)     // last tile: 2 rows
        %a = tensor.extract_slice %A[%m, 0] [%rows, 8] [1, 1] : ... to tensor<?x8xf32>
        %b = tensor.extract_slice %B[0, %n] [8, 8] [1, 1] : ... to tensor<8x8xf32>
        %c = tensor.extract_slice %arg5[%m, %n] [%rows, 8] [1, 1] : ... to tensor<?x8xf32>
        %t = linalg.generic {same maps, same iterator types} ins(%a, %b) outs(%c) {same payload}
        %u = tensor.insert_slice %t into %arg5[%m, %n] [%rows, 8] [1, 1] : ...
        scf.yield %u : tensor<10x16xf32>
      }
      scf.yield %0 : tensor<10x16xf32>
    }

The algorithm (``tile_linalg_op``):

1. Decide (``legality.py``): check the tile sizes (bad ones raise ``PassError``), and
   leave the op untouched, with the reason, when it cannot be tiled.
2. Generalize a named op (``linalg.matmul`` -> ``linalg.generic``), so one code path
   handles every op through its indexing maps. (MLIR keeps the named op; the tiled op
   computes the same.)
3. Trip counts: static sizes from the types, ``tensor.dim`` for dynamic ones.
4. Build the ``scf.for`` nest over the tiled loops, carrying the outputs as iter_args
   (``loop_nest.py``); it gives each loop's tile offset and size.
5. ``build_tiled_op`` (MLIR's ``getTiledImplementation``): one ``tensor.extract_slice``
   per tensor operand, of the window its indexing map touches (``slices.py``; outputs
   are sliced from the iter_args), then the op itself on the slices, with a copy of the
   payload. A ``linalg.index`` in the payload counts inside the tile, so it gets the
   tile's offset added back (``affine.apply``), as MLIR's ``offsetIndices`` does.
6. ``tensor.insert_slice`` each result tile into its iter_arg, at the output's window;
   ``scf.yield`` the updated tensors up the nest.
7. The outermost loop's results replace the op's results; the op is erased.

**Reductions keep their meaning.** Tiling a reduction loop (matmul's ``k``) makes its
``scf.for`` *sequential*: every ``k`` tile extracts the same output window from the
iter_arg, which already holds the sums of the earlier ``k`` tiles, and the tiled op adds
to it, because a linalg op accumulates into its ``outs``
(``C[m, n] = C[m, n] + A[m, k] * B[k, n]``). So the loop computes the same sum, just in
chunks. Its iterations depend on each other, so such a loop must not be bound to
parallel hardware (``binding.py`` refuses); ``reduction.py`` shows the other way to tile a
reduction, with partial results that make the loop parallel.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @main(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>,
...                              %c: tensor<10x16xf32>) -> tensor<10x16xf32> {
...   %mm = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>)
...                       outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
...   return %mm : tensor<10x16xf32> }''')
>>> matmul = m.body.first_op.entry_block.first_op
>>> result = tile_linalg_op(matmul, [4, 8])
>>> result.tiled, result.tile_counts, result.total_tiles
(True, (3, 2, 1), 6)
>>> result.footprints
{'ins0 %a': (4, 8), 'ins1 %b': (8, 8), 'outs0 %c': (4, 8)}
>>> [op.name for op in result.loops[1].body.ops]   # doctest: +NORMALIZE_WHITESPACE
['affine.min', 'tensor.extract_slice', 'tensor.extract_slice', 'tensor.extract_slice',
 'linalg.generic', 'tensor.insert_slice', 'scf.yield']
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap, dim
from tinycomp.dialects.affine.apply import AffineApplyOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.dialects.tensor.slices import ExtractSliceOp, InsertSliceOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.errors import VerifyError
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import DYNAMIC, RankedTensorType
from tinycomp.ir.values import Value
from tinycomp.passes.tiling.index_values import IndexBuilder, MixedIndex
from tinycomp.passes.tiling.legality import describe_op, tiling_decision
from tinycomp.passes.tiling.loop_nest import build_tile_loop_nest
from tinycomp.passes.tiling.result import TilingResult
from tinycomp.passes.tiling.slices import LoopTile, OperandSlice, footprint_shape, operand_slice
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["build_tiled_op", "new_result", "tile_linalg_op", "trip_counts"]


def tile_linalg_op(
    op: Operation, tile_sizes: Sequence[int], rewriter: PatternRewriter | None = None
) -> TilingResult:
    """Tile ``op`` by ``tile_sizes`` (one per loop, 0 = untiled, missing = 0) into an
    ``scf.for`` nest (steps 1-7 of the module docstring). When the op cannot be tiled,
    the IR is unchanged and ``result.reason`` says why."""
    sizes, reason = tiling_decision(op, tile_sizes)  # step 1
    result = new_result(op, sizes)
    if reason is not None:
        result.reason = reason
        return result
    assert isinstance(op, StructuredOp)
    rewriter = rewriter or PatternRewriter()
    rewriter.set_current_op(op)
    generic = op if isinstance(op, GenericOp) else op.generalize()  # step 2
    maker = IndexBuilder(outside=rewriter, inside=rewriter)
    counts = trip_counts(op, maker)  # step 3
    names = [op.loop_name(p) for p in range(op.num_loops)]
    nest = build_tile_loop_nest(maker, counts, sizes, list(op.outputs), names)  # step 4
    tiled, windows = build_tiled_op(generic, nest.tiles, nest.iter_args, maker)  # step 5
    updated = [
        insert_tile(tile, into, window, maker.inside)  # step 6
        for tile, into, window in zip(tiled.results, nest.iter_args, windows, strict=True)
    ]
    replacements = nest.finish(updated)
    for old, new in zip(op.results, replacements, strict=True):
        new.name_hint = old.name_hint
        tiled.results[old.index].name_hint = old.name_hint
    rewriter.replace_op(op, replacements)  # step 7
    if generic is not op:
        generic.drop_all_references()  # the detached generic twin
    result.loops = list(nest.loops)
    result.tiled_ops = [tiled]
    result.replacements = replacements
    return result


def trip_counts(op: StructuredOp, maker: IndexBuilder) -> list[MixedIndex]:
    """Each loop's trip count: an ``int``, or ``tensor.dim`` of the operand that sizes it."""
    counts: list[MixedIndex] = []
    static = op.static_loop_sizes()
    for size, (operand, position) in zip(static, op.loop_dim_sources(), strict=True):
        counts.append(size if size is not DYNAMIC else maker.dim(op.operands[operand], position))
    return counts


def build_tiled_op(
    generic: GenericOp,
    tiles: Sequence[LoopTile],
    outputs: Sequence[Value],
    maker: IndexBuilder,
    output_tiles: Sequence[LoopTile] | None = None,
) -> tuple[GenericOp, list[OperandSlice]]:
    """Step 5: slice every tensor operand for the tile ``tiles`` and build ``generic`` on
    the slices in ``maker.inside``. Outputs are sliced from ``outputs`` (the iter_args),
    at the windows of ``output_tiles`` when given (a partial reduction's accumulator).
    Returns the tiled op and the windows of its outputs (where to insert the results)."""
    operands: list[Value] = []
    windows: list[OperandSlice] = []
    maps = generic.indexing_maps()
    for position, (operand, indexing_map) in enumerate(zip(generic.operands, maps, strict=True)):
        is_output = position >= generic.num_inputs
        if not isinstance(operand.type, RankedTensorType):
            operands.append(operand)  # a scalar (linalg.fill's value) is used as it is
            continue
        window_tiles = output_tiles if (is_output and output_tiles is not None) else tiles
        window = operand_slice(operand, indexing_map, window_tiles, maker)
        source = outputs[position - generic.num_inputs] if is_output else operand
        operands.append(extract_tile(source, window, maker.inside))
        if is_output:
            windows.append(window)
    result_types = [
        RankedTensorType(window.shape, element_type(output.type))
        for window, output in zip(windows, generic.outputs, strict=True)
    ]
    attributes = dict(generic.attributes)
    tiled = GenericOp(operands, result_types, attributes, [generic.payload_region.clone()])
    maker.inside.insert(tiled)
    _offset_indices(tiled, tiles)
    return tiled, windows


def extract_tile(source: Value, window: OperandSlice, builder: Builder) -> Value:
    """``tensor.extract_slice %source[offsets] [sizes] [1, ...]``."""
    return builder.insert(ExtractSliceOp.build(source, window.offsets, window.sizes)).result


def insert_tile(tile: Value, into: Value, window: OperandSlice, builder: Builder) -> Value:
    """``tensor.insert_slice %tile into %into[offsets] [sizes] [1, ...]``."""
    return builder.insert(InsertSliceOp.build(tile, into, window.offsets, window.sizes)).result


def _offset_indices(tiled: GenericOp, tiles: Sequence[LoopTile]) -> None:
    """``linalg.index d`` counts from 0 in the tile: add the tile's offset back."""
    for index_op in [op for op in tiled.body.walk() if isinstance(op, IndexOp)]:
        offset = tiles[index_op.dim].offset
        if isinstance(offset, int) and offset == 0:
            continue
        local = index_op.result
        users = list(local.uses)
        if isinstance(offset, int):  # a fused producer's tile may start at a constant
            shifted = AffineApplyOp.build(AffineMap(1, 0, [dim(0) + offset]), [local])
        else:
            shifted = AffineApplyOp.build(AffineMap(2, 0, [dim(0) + dim(1)]), [local, offset])
        Builder.after(index_op).insert(shifted)
        for use in users:
            use.user.set_operand(use.index, shifted.result)


def new_result(op: Operation, tile_sizes: Sequence[int]) -> TilingResult:
    """A ``TilingResult`` for ``op`` with the loop facts and footprints filled in (what
    the report shows even when the op is not tiled)."""
    result = TilingResult(describe_op(op), tile_sizes=tuple(tile_sizes))
    if not isinstance(op, StructuredOp):
        return result
    try:
        loop_sizes = op.static_loop_sizes()
        result.iterator_types = tuple(op.iterator_types())
    except (NotImplementedError, VerifyError):  # maps that cannot be read: see the reason
        return result
    result.loop_sizes = tuple(None if size is DYNAMIC else size for size in loop_sizes)
    if len(result.tile_sizes) != len(loop_sizes):
        return result
    full_tile = [
        size if tile == 0 else (tile if size is DYNAMIC else min(tile, size))
        for size, tile in zip(loop_sizes, result.tile_sizes, strict=True)
    ]
    for position, (operand, indexing_map) in enumerate(
        zip(op.operands, op.indexing_maps(), strict=True)
    ):
        if not isinstance(operand.type, RankedTensorType):
            continue
        is_output = position >= op.num_inputs
        label = f"outs{position - op.num_inputs}" if is_output else f"ins{position}"
        if operand.name_hint:
            label += f" %{operand.name_hint}"
        result.footprints[label] = footprint_shape(indexing_map, full_tile)
    return result
