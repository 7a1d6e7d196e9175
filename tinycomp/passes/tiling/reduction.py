"""Reduction tiling with partial results: MLIR's ``tileReductionUsingScf``.

Tiling a reduction loop the plain way (``tile_op.py``) keeps one accumulator per output
element: every ``k`` tile reads it, adds its chunk and writes it back, so the tile op
itself still reduces (a horizontal sum inside every tile). The *partial reduction*
strategy gives every position inside a reduction tile its own accumulator instead. For
row sums of ``x: 8x100`` with a reduction tile of 16::

    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<8x16xf32>                  // 16 partial sums per row
    %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x16xf32>) -> tensor<8x16xf32>
    %partials = scf.for %k = %c0 to %c100 step %c16 iter_args(%acc = %init) -> (...) {
      %size = affine.min affine_map<(d0) -> (-d0 + 100, 16)>(%k)
      %xs = tensor.extract_slice %x[0, %k] [8, %size] [1, 1]
      %as = tensor.extract_slice %acc[0, 0] [8, %size] [1, 1]   // slot j of tile k: x[:, k + j]
      %t = linalg.generic {... iterator_types = ["parallel", "parallel"]}  // elementwise now
          ins(%xs) outs(%as) { the same payload: %s = arith.addf %in, %out }
      %u = tensor.insert_slice %t into %acc[0, 0] [8, %size] [1, 1]
      scf.yield %u
    }
    %sum = linalg.generic {iterator_types = ["parallel", "reduction"]}   // 16 -> 1 per row
        ins(%partials : tensor<8x16xf32>) outs(%real_init : tensor<8xf32>) { arith.addf }

The loop body is now purely elementwise (every slot independent: a vector lane each),
and the one horizontal reduction happens once, at the end. The ``k`` loop still carries
the partials from one iteration to the next, so it stays a sequential loop (MLIR's
``tile_reduction_using_forall`` gives each tile its own slot row to run tiles in
parallel; tinycomp does not). The algorithm (``tile_reduction_with_partials``):

1. Check the op: tilable, at least one reduction loop tiled, one output, and a payload
   that reads its accumulator exactly once, in a *combiner* whose result it yields
   (``match_combiner``). The combiner's identity (``addf``: 0, ``mulf``: 1,
   ``maximumf``/``maxnumf``: -inf, ``minimumf``/``minnumf``: +inf, ``addi``: 0,
   ``muli``: 1) initializes the partials; an unknown combiner is refused with its name.
2. The partial tensor: the output's shape plus one dimension per tiled reduction loop,
   of the tile size; ``tensor.empty`` + ``linalg.fill`` with the identity.
3. The partial op: the original op with the partial tensor as output, its output map
   extended by the tiled reduction loops (``(d0, d1) -> (d0, d1)`` for row sums) and
   those loops now parallel. Tile it like any op (``tile_op.py``), except that the
   partial tensor's slot dimensions start at 0 in every tile (a slot is a position
   *within* a tile). A partial last tile leaves some slots at the identity.
4. The merge: a ``linalg.generic`` reducing the slot dimensions with the combiner, into
   the op's real output (so an init that is not the identity is still accumulated
   into). MLIR emits ``linalg.reduce`` here, the same computation.
5. The merge's result replaces the op.

Floating-point sums in a different order round differently: the partial result equals
the sequential one up to rounding (``max``/``min`` are exact).

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @main(%x: tensor<4x10xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
...   %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
...        affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
...       ins(%x : tensor<4x10xf32>) outs(%init : tensor<4xf32>) {
...   ^bb0(%in: f32, %out: f32):
...     %0 = arith.maximumf %in, %out : f32
...     linalg.yield %0 : f32
...   } -> tensor<4xf32>
...   return %s : tensor<4xf32> }''')
>>> result = tile_reduction_with_partials(m.body.first_op.entry_block.first_op, [0, 4])
>>> result.tiled, result.merge_op.iterator_types()
(True, ['parallel', 'reduction'])
>>> result.notes[0]
'partials tensor<4x4xf32> start at -inf, the identity of arith.maximumf'
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tinycomp.affine import AffineMap, dim
from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.linalg.named import FillOp
from tinycomp.dialects.linalg.syntax import (
    PARALLEL,
    REDUCTION,
    SEGMENT_SIZES,
    iterator_types_attr,
    segment_sizes_attr,
)
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.ir.attributes import AffineMapAttr, ArrayAttr
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import element_type, shape
from tinycomp.ir.types import DYNAMIC, RankedTensorType
from tinycomp.ir.values import Value
from tinycomp.passes.tiling.index_values import IndexBuilder
from tinycomp.passes.tiling.legality import tiling_decision
from tinycomp.passes.tiling.loop_nest import build_tile_loop_nest
from tinycomp.passes.tiling.result import TilingResult
from tinycomp.passes.tiling.slices import LoopTile
from tinycomp.passes.tiling.tile_op import build_tiled_op, insert_tile, new_result, trip_counts
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["REDUCTION_IDENTITIES", "match_combiner", "tile_reduction_with_partials"]

REDUCTION_IDENTITIES: dict[str, float | int] = {
    "arith.addf": 0.0,
    "arith.mulf": 1.0,
    "arith.maximumf": -math.inf,
    "arith.maxnumf": -math.inf,
    "arith.minimumf": math.inf,
    "arith.minnumf": math.inf,
    "arith.addi": 0,
    "arith.muli": 1,
}
"""The combiners tinycomp knows, with the value ``x`` that leaves ``combine(v, x) == v``."""


def match_combiner(op: StructuredOp) -> Operation | str:
    """The payload op that combines a new value into the accumulator (step 1), or the
    reason there is none.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: tensor<8xf32>, %i: tensor<f32>) -> tensor<f32> {
    ...   %s = linalg.reduce { arith.addf } ins(%x : tensor<8xf32>) outs(%i : tensor<f32>)
    ...        dimensions = [0]
    ...   return %s : tensor<f32> }''')
    >>> match_combiner(m.body.first_op.entry_block.first_op).name
    'arith.addf'
    """
    if op.num_outputs != 1:
        return f"partial reduction needs one output, the op has {op.num_outputs}"
    accumulator = op.body.arguments[op.num_inputs]
    users = accumulator.users
    if len(users) != 1:
        return f"the payload reads the accumulator {len(users)} times, not once in a combiner"
    combiner = users[0]
    terminator = op.body.terminator
    if terminator is None or combiner.results[:1] != terminator.operands[:1]:
        return f"the payload does not yield the result of '{combiner.name}', its combiner"
    if combiner.name not in REDUCTION_IDENTITIES:
        known = ", ".join(sorted(REDUCTION_IDENTITIES))
        return f"combiner '{combiner.name}' has no known identity (known: {known})"
    return combiner


def tile_reduction_with_partials(
    op: Operation, tile_sizes: Sequence[int], rewriter: PatternRewriter | None = None
) -> TilingResult:
    """Tile ``op``'s reduction loops with a partial accumulator (steps 1-5 above); the
    IR is unchanged, and ``result.reason`` says why, when that is not possible."""
    sizes, reason = tiling_decision(op, tile_sizes)  # step 1
    result = new_result(op, sizes)
    if reason is None:
        assert isinstance(op, StructuredOp)
        if not any(sizes[r] for r in op.reduction_dims()):
            reason = "no reduction loop is tiled (there is nothing to split into partials)"
        else:
            combiner = match_combiner(op)
            reason = combiner if isinstance(combiner, str) else None
    if reason is not None:
        result.reason = reason
        return result
    assert isinstance(op, StructuredOp) and isinstance(combiner, Operation)
    rewriter = rewriter or PatternRewriter()
    rewriter.set_current_op(op)
    generic = op if isinstance(op, GenericOp) else op.generalize()
    maker = IndexBuilder(outside=rewriter, inside=rewriter)
    counts = trip_counts(op, maker)
    slots = [r for r in op.reduction_dims() if sizes[r] > 0]
    output = op.outputs[0]

    slot_sizes = [_slot_size(sizes[r], counts[r]) for r in slots]
    partials = _identity_tensor(output, slot_sizes, combiner, maker)  # step 2
    template = _partial_op(generic, partials, slots)  # step 3
    names = [op.loop_name(p) for p in range(op.num_loops)]
    nest = build_tile_loop_nest(maker, counts, sizes, [partials], names)
    slot_tiles = [
        LoopTile(0, tile.size, True) if position in slots else tile
        for position, tile in enumerate(nest.tiles)
    ]
    tiled, windows = build_tiled_op(template, nest.tiles, nest.iter_args, maker, slot_tiles)
    updated = insert_tile(tiled.results[0], nest.iter_args[0], windows[0], maker.inside)
    [accumulated] = nest.finish([updated])
    template.drop_all_references()

    merge = _merge_op(accumulated, output, combiner)  # step 4
    rewriter.insert(merge)
    merge.results[0].name_hint = op.results[0].name_hint
    rewriter.replace_op(op, merge.results)  # step 5
    if generic is not op:
        generic.drop_all_references()
    partial_type = partials.type
    identity = REDUCTION_IDENTITIES[combiner.name]
    result.notes.append(
        f"partials {partial_type} start at {identity}, the identity of {combiner.name}"
    )
    result.loops, result.tiled_ops = list(nest.loops), [tiled]
    result.replacements, result.merge_op = list(merge.results), merge
    return result


def _slot_size(tile_size: int, trip_count) -> int:
    """Slots per tiled reduction loop: the tile size, or the whole loop if smaller."""
    return min(tile_size, trip_count) if isinstance(trip_count, int) else tile_size


def _identity_tensor(
    output: Value, slot_sizes: list[int], combiner: Operation, maker: IndexBuilder
) -> Value:
    """Step 2: ``linalg.fill`` of the identity into ``tensor.empty`` of the partial shape."""
    output_shape = shape(output.type)
    dynamic = [maker.dim(output, d) for d, size in enumerate(output_shape) if size is DYNAMIC]
    item = element_type(output.type)
    empty = maker.outside.insert(EmptyOp.build((*output_shape, *slot_sizes), item, dynamic))
    identity = maker.outside.insert(ConstantOp.build(REDUCTION_IDENTITIES[combiner.name], item))
    fill = maker.outside.insert(FillOp.build(identity.result, empty.result))
    fill.results[0].name_hint = "partials"
    return fill.results[0]


def _partial_op(generic: GenericOp, partials: Value, slots: list[int]) -> GenericOp:
    """Step 3: ``generic`` writing into ``partials``; slot loops become parallel."""
    maps = generic.indexing_maps()
    output_map = maps[-1]
    extended = AffineMap(output_map.num_dims, 0, [*output_map.results, *(dim(r) for r in slots)])
    kinds = [PARALLEL if p in slots else kind for p, kind in enumerate(generic.iterator_types())]
    attributes = {
        "indexing_maps": ArrayAttr([AffineMapAttr(m) for m in [*maps[:-1], extended]]),
        "iterator_types": iterator_types_attr(kinds),
        SEGMENT_SIZES: segment_sizes_attr(generic.num_inputs, 1),
    }
    operands = [*generic.inputs, partials]
    return GenericOp(operands, [partials.type], attributes, [generic.payload_region.clone()])


def _merge_op(partials: Value, output: Value, combiner: Operation) -> GenericOp:
    """Step 4: reduce the slot dimensions of ``partials`` into ``output``."""
    kept = len(shape(output.type))
    total = len(shape(partials.type))
    partial_map = AffineMap.identity(total)
    output_map = AffineMap(total, 0, [dim(d) for d in range(kept)])
    kinds = [PARALLEL] * kept + [REDUCTION] * (total - kept)

    def body(builder: Builder, arguments) -> list[Value]:
        partial, accumulator = arguments
        types = [accumulator.type]
        attributes = dict(combiner.attributes)
        merged = Operation.create(combiner.name, [partial, accumulator], types, attributes)
        return [builder.insert(merged).results[0]]

    assert isinstance(output.type, RankedTensorType)
    return GenericOp.build([partials], [output], [partial_map, output_map], kinds, body)
