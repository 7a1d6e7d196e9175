"""A reduction of a 2-D tile along one axis, by the threads of a block together (step 5
of ``to_gpu.py``): ``tile.max(qk, 1)``, the row maxima of an attention tile.

The tile of shape ``S`` is held in its layout ``L``; reducing axis ``a`` keeps axis
``k``. The result, one element per index along ``k``, is made in four stages:

1. per thread: the registers that lie on one line along ``a`` (the same index along
   ``k`` in every thread, ``Coordinates.groups_along``) fold into one partial, from the
   combiner's identity; a replica along ``a`` (a tile narrower than ``L``) counts as the
   identity, so every element is counted once;
2. per warp: butterfly shuffles (``gpu.shuffle xor``) across the lanes that ``L``
   spreads along ``a`` (their lane numbers differ by multiples of ``L``'s lane stride
   along ``a``) leave each line's warp total in all of them;
3. one lane per line and warp (its position along ``a`` is 0) writes the total into a
   ``workgroup`` buffer of ``warps along a x S[k]`` entries, between two
   ``gpu.barrier`` (the first keeps a loop's previous readers ahead of these writes);
4. each thread reads, for every register of the result's own layout (that of a 1-D tile
   of ``S[k]`` elements), the warps' totals of its element and combines them with the
   reduction's initial value.

>>> import numpy as np
>>> from tinycomp.frontend.tile import kernel
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> from tinycomp.frontend.tile.to_gpu import lower_to_gpu
>>> @kernel
... def row_max(x, out):
...     rows, cols = tl.arange(0, 8), tl.arange(0, 32)
...     tm.store(out + rows, tl.max(tm.load(x + rows[:, None] * 32 + cols[None, :]), 1))
>>> x, out = np.zeros(256, np.float32), np.zeros(8, np.float32)
>>> names = [op.name for op in lower_to_gpu(row_max.specialize(x, out), 2).walk()]
>>> names.count("gpu.shuffle"), names.count("gpu.barrier")
(3, 2)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinycomp.dialects.arith.binary import AddIOp, AndIOp, DivUIOp, MulIOp, RemUIOp
from tinycomp.dialects.arith.compare import CmpIOp, SelectOp
from tinycomp.dialects.gpu import BarrierOp, ShuffleOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.memref.access import LoadOp, StoreOp
from tinycomp.frontend.tile.gpu_conversion import guarded
from tinycomp.frontend.tile.gpu_points import Along, full_point, lane_strides, warp_strides
from tinycomp.frontend.tile.layout import WARP_SIZE
from tinycomp.ir.types import i32
from tinycomp.ir.values import Value
from tinycomp.passes.tiling.reduction import REDUCTION_IDENTITIES

if TYPE_CHECKING:
    from collections.abc import Callable

    from tinycomp.frontend.tile.to_gpu import TileLowering

__all__ = ["lower_axis_reduction"]


def _position_along(lowering: TileLowering, who: Value, stride: int, count: int) -> Value:
    """``(who / stride) % count``: a lane's (or warp's) place along one dimension."""
    shifted = lowering.insert(DivUIOp.build(who, lowering.constant(stride))).result
    return lowering.insert(RemUIOp.build(shifted, lowering.constant(count))).result


def lower_axis_reduction(
    lowering: TileLowering, op: GenericOp, combined: Callable[[Value, Value], Value]
) -> None:
    """Stages 1-4 (module docstring): ``op``'s 1-D result, held in its layout."""
    source = op.inputs[0]
    shape = lowering.shape(source)
    axis = op.iterator_types().index("reduction")
    kept = 1 - axis
    element = op.results[0].type.element_type
    combine_name = next(iter(op.body.ops)).name
    identity = lowering.constant(REDUCTION_IDENTITIES[combine_name], element)
    layout = lowering.layout(shape)
    registers = lowering.held(source)
    lines = lowering.points.groups_along(shape, kept)
    partials = []
    for line in lines:  # stage 1
        partial = identity
        for register in line:
            value = registers[register]
            first = lowering.first_copy(op, shape, register, dims=[axis])
            if first is not None:
                value = lowering.insert(SelectOp.build(first, value, identity)).result
            partial = combined(value, partial)
        partials.append(partial)
    lane_stride, lanes = lane_strides(layout)[axis], layout.threads_per_warp[axis]
    width = lowering.constant(WARP_SIZE, i32)
    distance = lanes // 2
    while distance >= 1:  # stage 2
        for i, partial in enumerate(partials):
            offset = lowering.constant(distance * lane_stride, i32)
            shuffled = lowering.insert(ShuffleOp.build("xor", partial, offset, width)).results[0]
            partials[i] = combined(shuffled, partial)
        distance //= 2
    warps = layout.warps_per_block[axis]
    buffer = lowering.shared_buffer(warps * shape[kept], element)
    lane = lowering.insert(RemUIOp.build(lowering.tid, lowering.constant(WARP_SIZE))).result
    warp = lowering.insert(DivUIOp.build(lowering.tid, lowering.constant(WARP_SIZE))).result
    leader = lowering.insert(
        CmpIOp.build("eq", _position_along(lowering, lane, lane_stride, lanes), lowering.zero)
    ).result
    warp_place = _position_along(lowering, warp, warp_strides(layout)[axis], warps)
    row = lowering.insert(MulIOp.build(warp_place, lowering.constant(shape[kept]))).result
    lowering.insert(BarrierOp.build())
    for line, partial in zip(lines, partials, strict=True):  # stage 3
        coordinate = lowering.coordinate(Along(shape, line[0], kept))
        position = lowering.insert(AddIOp.build(row, coordinate)).result
        condition = leader
        first = lowering.first_copy(op, shape, line[0], dims=[kept])
        if first is not None:
            condition = lowering.insert(AndIOp.build(condition, first)).result
        guarded(lowering, condition, StoreOp.build(partial, buffer, [position]))
    lowering.insert(BarrierOp.build())
    result_shape = lowering.shape(op.results[0])
    results = []
    for register in range(lowering.registers(result_shape)):  # stage 4
        point = full_point(result_shape, register)
        coordinate = lowering.coordinate(point[0])
        total = None
        for w in range(warps):
            position = lowering.insert(
                AddIOp.build(coordinate, lowering.constant(w * shape[kept]))
            ).result
            theirs = lowering.insert(LoadOp.build(buffer, [position])).result
            total = theirs if total is None else combined(theirs, total)
        results.append(combined(total, lowering.value_at(op.outputs[0], point)))
    lowering.tiles[op.results[0]] = results
