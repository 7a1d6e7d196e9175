"""A reduction of a 1-D tile to a scalar, by the threads of a block together (step 5 of
``to_gpu.py``).

The tile is spread over the block, so its total is made in three stages, each from the
partials of the one before:

1. per thread: fold its own registers, from the combiner's identity; a register that
   holds a replica (a tile smaller than the layout) counts as the identity, so every
   element is counted once;
2. per warp: five butterfly shuffles (``gpu.shuffle xor`` by 16, 8, 4, 2, 1) leave the
   warp's total in every lane, with no memory and no barrier;
3. per block (more than one warp): lane 0 of each warp writes its total into the
   reduction's shared buffer (``workgroup`` memory, one entry per warp), a
   ``gpu.barrier``, and every thread reads all the entries and combines them, so every
   thread holds the result (a rank-0 tile). Inside a loop a second barrier keeps the
   next iteration's writes after this one's reads.

Finally the combiner folds in the reduction's initial value (``linalg.fill``'s).

>>> from tinycomp.ir import parse
>>> module = parse('''func.func @f(%x: tensor<8xf32>) -> tensor<f32> {
...   %zero = arith.constant 0.0 : f32
...   %e = tensor.empty() : tensor<f32>
...   %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
...   %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
...       iterator_types = ["reduction"]} ins(%x : tensor<8xf32>) outs(%init : tensor<f32>) {
...   ^bb0(%in: f32, %out: f32):
...     %s = arith.addf %in, %out : f32
...     linalg.yield %s : f32
...   } -> tensor<f32>
...   return %sum : tensor<f32> }''')
>>> sum_op = [op for op in module.walk() if is_reduction(op)][0]
>>> combiner_of(sum_op, ValueError).name
'arith.addf'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tinycomp.dialects.arith.binary import DivUIOp, RemUIOp
from tinycomp.dialects.arith.compare import CmpIOp, SelectOp
from tinycomp.dialects.gpu import BarrierOp, ShuffleOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.memref.access import LoadOp, StoreOp
from tinycomp.dialects.scf import IfOp
from tinycomp.frontend.tile.gpu_axis_reduction import lower_axis_reduction
from tinycomp.frontend.tile.layout import WARP_SIZE
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import RankedTensorType, i32
from tinycomp.ir.values import Value
from tinycomp.passes.tiling.reduction import REDUCTION_IDENTITIES

if TYPE_CHECKING:
    from tinycomp.frontend.tile.to_gpu import TileLowering

__all__ = ["combiner_of", "is_reduction", "lower_reduction"]

Combine = Callable[[Value, Value], Value]
"""Inserts ``combine(new, old)`` and gives its result."""


def is_reduction(op: Operation) -> bool:
    """Whether ``op`` is a ``linalg.generic`` with a reduction iterator (module docstring)."""
    return isinstance(op, GenericOp) and "reduction" in op.iterator_types()


def combiner_of(op: GenericOp, error: Callable[[Operation, str], Exception]) -> Operation:
    """The one combining op of a reduction of a 1-D tile to a scalar (module docstring);
    anything else raises ``error(op, what)``."""
    ops = list(op.body.ops)
    source, result = op.inputs[0].type, op.results[0].type
    ranks = (len(source.shape), len(result.shape)) if isinstance(source, RankedTensorType) else None
    if ranks not in ((1, 0), (2, 1)) or not isinstance(result, RankedTensorType):
        raise error(op, f"a reduction from {source} to {result} (only 1-D to a scalar, 2-D to 1-D)")
    if len(ops) != 2 or ops[0].name not in REDUCTION_IDENTITIES:
        known = ", ".join(sorted(REDUCTION_IDENTITIES))
        found = [o.name for o in ops]
        raise error(op, f"expected a payload of one combiner ({known}), got {found}")
    return ops[0]


def lower_reduction(lowering: TileLowering, op: GenericOp) -> None:
    """Steps 1-3 and the initial value (module docstring): ``op``'s result as a rank-0
    tile held by every thread."""
    source = op.inputs[0]
    combine = combiner_of(op, lowering.error)
    shape = lowering.shape(source)
    element = op.results[0].type.element_type
    identity = lowering.constant(REDUCTION_IDENTITIES[combine.name], element)

    def combined(new: Value, old: Value) -> Value:
        copy = combine.clone()
        copy.set_operands([new if v is op.body.arguments[0] else old for v in combine.operands])
        return lowering.insert(copy).results[0]

    if len(shape) == 2:
        lower_axis_reduction(lowering, op, combined)
        return
    init = lowering.value_at(op.outputs[0], ())
    partial = identity
    for register, value in enumerate(lowering.held(source)):
        first = lowering.first_copy(op, shape, register)
        if first is not None:
            value = lowering.insert(SelectOp.build(first, value, identity)).result
        partial = combined(value, partial)
    width = lowering.constant(WARP_SIZE, i32)
    distance = WARP_SIZE // 2
    while distance >= 1:
        shuffle = ShuffleOp.build("xor", partial, lowering.constant(distance, i32), width)
        partial = combined(lowering.insert(shuffle).results[0], partial)
        distance //= 2
    if lowering.num_warps > 1:
        partial = _across_warps(lowering, op, partial, combined)
    lowering.tiles[op.results[0]] = [combined(partial, init)]


def _across_warps(
    lowering: TileLowering, op: GenericOp, partial: Value, combined: Combine
) -> Value:
    """Step 3: the warps' totals through the reduction's shared buffer."""
    buffer = lowering.shared_buffer(lowering.num_warps, op.results[0].type.element_type)
    size = lowering.constant(WARP_SIZE)
    lane = lowering.insert(RemUIOp.build(lowering.tid, size)).result
    warp = lowering.insert(DivUIOp.build(lowering.tid, size)).result
    leader = lowering.insert(CmpIOp.build("eq", lane, lowering.constant(0))).result
    write = lowering.insert(IfOp.build(leader))
    Builder.before(write.regions[0].blocks[0].terminator).insert(
        StoreOp.build(partial, buffer, [warp])
    )
    lowering.insert(BarrierOp.build())
    total = lowering.insert(LoadOp.build(buffer, [lowering.constant(0)])).result
    for other in range(1, lowering.num_warps):
        theirs = lowering.insert(LoadOp.build(buffer, [lowering.constant(other)])).result
        total = combined(theirs, total)
    if op.parent_op() is not lowering.source:
        lowering.insert(BarrierOp.build())
    return total
