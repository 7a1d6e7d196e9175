"""``tile.load`` and ``tile.store`` by the threads of a block (step 4 of ``to_gpu.py``).

Each thread reads and writes the elements it holds, one ``memref.load`` /
``memref.store`` per register, under an ``scf.if`` on its mask (a masked-off load gives
``other``, or zero). Two refinements make the accesses those of a GPU:

- **Vector accesses.** When the thread holds ``size_per_thread`` consecutive elements
  and the offsets step by one (``contiguity.py``), the group is one ``vector.load`` /
  ``vector.store`` (a 128-bit access for four f32), as Triton emits ``ld.global.v4``:
  a warp then reads 512 consecutive bytes in one request. The vector path runs when the
  group starts at a multiple of its size (aligned) and the whole group is inside the
  mask; otherwise (a row's ragged end) the elements go one by one.
- **Replicas.** When the tile is smaller than the layout, several threads hold one
  element; a store is done by its first copy only, so each element is written once
  (a rank-0 tile, held by every thread, is stored by thread 0).

>>> import numpy as np
>>> from tinycomp.frontend.tile import kernel
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> from tinycomp.frontend.tile.to_gpu import lower_to_gpu
>>> @kernel
... def copy(x, y):
...     offsets = tl.arange(0, 128)
...     tm.store(y + offsets, tm.load(x + offsets))
>>> x = np.zeros(128, np.float32)
>>> names = [op.name for op in lower_to_gpu(copy.specialize(x, x), 1).walk()]
>>> names.count("vector.load"), names.count("memref.load")   # fast path, then fallback
(1, 4)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.binary import AndIOp, RemUIOp, SubIOp
from tinycomp.dialects.arith.cast import IndexCastOp
from tinycomp.dialects.arith.compare import CmpIOp
from tinycomp.dialects.memref.access import LoadOp, StoreOp
from tinycomp.dialects.scf import IfOp, YieldOp
from tinycomp.dialects.tile import LoadOp as TileLoadOp
from tinycomp.dialects.tile import StoreOp as TileStoreOp
from tinycomp.dialects.vector import ExtractOp, FromElementsOp
from tinycomp.dialects.vector import LoadOp as VectorLoadOp
from tinycomp.dialects.vector import StoreOp as VectorStoreOp
from tinycomp.frontend.tile.contiguity import unit_stride
from tinycomp.ir.builder import Builder
from tinycomp.ir.types import FloatType, Type, index
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.frontend.tile.to_gpu import TileLowering

__all__ = ["access_groups", "lower_load", "lower_store"]


def access_groups(lowering: TileLowering, op: TileLoadOp | TileStoreOp) -> list[list[int]]:
    """The thread's registers in the groups accessed together: ``size_per_thread``
    consecutive ones when the offsets step by one and nothing is replicated, else one
    by one (module docstring)."""
    shape = access_shape(lowering, op)
    count = lowering.registers(shape)
    if not shape:
        return [[0]]
    layout = lowering.layout(shape)
    last = len(shape) - 1
    width = layout.size_per_thread[last]
    if width == 1 or layout.replication(shape) > 1 or layout.order[0] != last:
        return [[register] for register in range(count)]
    if len(shape) == 1 and not unit_stride(op.offsets):
        return [[register] for register in range(count)]
    return [list(range(start, start + width)) for start in range(0, count, width)]


def checked_at_run_time(lowering: TileLowering, op: TileLoadOp | TileStoreOp) -> bool:
    """Whether a group's offsets are tested for stepping by one when the kernel runs:
    for tiles of rank 2, whose strides are arguments (``stride_ak``), where a 1-D tile's
    are proven at compile time (``contiguity.py``)."""
    return len(access_shape(lowering, op)) > 1


def access_shape(lowering: TileLowering, op: TileLoadOp | TileStoreOp) -> tuple[int, ...]:
    """The shape of the tile of addresses (``()`` for one address)."""
    return lowering.shape(op.offsets) or ()


def _indices(lowering: TileLowering, op: TileLoadOp | TileStoreOp) -> list[Value]:
    """The thread's offsets as ``index`` values."""
    offsets = lowering.registers_of(op.offsets, access_shape(lowering, op))
    return [lowering.insert(IndexCastOp.build(v, index)).result for v in offsets]


def _whole_group(
    lowering: TileLowering,
    offsets: list[Value],
    masks: list[Value] | None,
    consecutive: bool = False,
) -> Value:
    """The vector path's condition: the group starts at a multiple of its size, every
    element of it is inside the mask, and (``consecutive``) its offsets step by one."""
    start = lowering.insert(RemUIOp.build(offsets[0], lowering.constant(len(offsets)))).result
    condition = lowering.insert(CmpIOp.build("eq", start, lowering.constant(0))).result
    for step, offset in enumerate(offsets[1:] if consecutive else [], start=1):
        apart = lowering.insert(SubIOp.build(offset, offsets[0])).result
        same = lowering.insert(CmpIOp.build("eq", apart, lowering.constant(step))).result
        condition = lowering.insert(AndIOp.build(condition, same)).result
    for mask in masks or []:
        condition = lowering.insert(AndIOp.build(condition, mask)).result
    return condition


def _zero(element: Type) -> float | int:
    return 0.0 if isinstance(element, FloatType) else 0


def _scalar_loads(
    lowering: TileLowering,
    buffer: Value,
    offsets: list[Value],
    masks: list[Value] | None,
    other: Value | None,
    element: Type,
) -> list[Value]:
    """One ``memref.load`` per element, each under an ``scf.if`` on its mask."""
    loaded = []
    for i, offset in enumerate(offsets):
        if masks is None:
            loaded.append(lowering.insert(LoadOp.build(buffer, [offset])).result)
            continue
        if other is None:
            other = lowering.insert(ConstantOp.build(_zero(element), element)).result
        guard = lowering.insert(IfOp.build(masks[i], [element]))
        then, otherwise = (region.blocks[0] for region in guard.regions)
        value = Builder.at_end(then).insert(LoadOp.build(buffer, [offset])).result
        then.append(YieldOp.build([value]))
        otherwise.append(YieldOp.build([other]))
        loaded.append(guard.results[0])
    return loaded


def lower_load(lowering: TileLowering, op: TileLoadOp) -> None:
    """The thread's registers of ``op``'s tile (module docstring)."""
    buffer = lowering.scalar(op.buffer)
    element = op.results[0].type.element_type
    masks = lowering.registers_of(op.mask, access_shape(lowering, op))
    other = lowering.scalar(op.other) if op.other is not None else None
    offsets = _indices(lowering, op)
    registers: list[Value] = []
    for group in access_groups(lowering, op):
        group_masks = [masks[r] for r in group] if masks is not None else None
        group_offsets = [offsets[r] for r in group]
        if len(group) == 1:
            registers += _scalar_loads(lowering, buffer, group_offsets, group_masks, other, element)
            continue
        condition = _whole_group(
            lowering, group_offsets, group_masks, checked_at_run_time(lowering, op)
        )
        guard = lowering.insert(IfOp.build(condition, [element] * len(group)))
        then, otherwise = (region.blocks[0] for region in guard.regions)
        inside = Builder.at_end(then)
        lanes = inside.insert(VectorLoadOp.build(buffer, [group_offsets[0]], len(group))).result
        parts = [inside.insert(ExtractOp.build(lanes, [i])).result for i in range(len(group))]
        then.append(YieldOp.build(parts))
        with lowering.building_at(Builder.at_end(otherwise)):
            one_by_one = _scalar_loads(lowering, buffer, group_offsets, group_masks, other, element)
            lowering.insert(YieldOp.build(one_by_one))
        registers += list(guard.results)
    lowering.tiles[op.results[0]] = registers


def _scalar_stores(
    lowering: TileLowering,
    op: TileStoreOp,
    group: list[int],
    offsets: list[Value],
    values: list[Value],
    masks: list[Value] | None,
) -> None:
    """One ``memref.store`` per register of ``group``, under its mask and only on the
    element's first copy."""
    buffer, shape = lowering.scalar(op.buffer), access_shape(lowering, op)
    for register in group:
        conditions = [lowering.first_copy(op, shape, register)]
        if masks is not None:
            conditions.append(masks[register])
        conditions = [c for c in conditions if c is not None]
        store = StoreOp.build(values[register], buffer, [offsets[register]])
        if not conditions:
            lowering.insert(store)
            continue
        condition = conditions[0]
        for more in conditions[1:]:
            condition = lowering.insert(AndIOp.build(condition, more)).result
        guard = lowering.insert(IfOp.build(condition))
        Builder.before(guard.regions[0].blocks[0].terminator).insert(store)


def lower_store(lowering: TileLowering, op: TileStoreOp) -> None:
    """The thread's elements of ``op``'s tile written (module docstring)."""
    buffer = lowering.scalar(op.buffer)
    shape = access_shape(lowering, op)
    masks = lowering.registers_of(op.mask, shape)
    values = lowering.registers_of(op.value, shape)
    offsets = _indices(lowering, op)
    for group in access_groups(lowering, op):
        if len(group) == 1:
            _scalar_stores(lowering, op, group, offsets, values, masks)
            continue
        group_masks = [masks[r] for r in group] if masks is not None else None
        condition = _whole_group(
            lowering, [offsets[r] for r in group], group_masks, checked_at_run_time(lowering, op)
        )
        guard = lowering.insert(IfOp.build(condition, with_else=True))
        then, otherwise = (region.blocks[0] for region in guard.regions)
        inside = Builder.before(then.terminator)
        packed = inside.insert(FromElementsOp.build([values[r] for r in group])).result
        inside.insert(VectorStoreOp.build(packed, buffer, [offsets[group[0]]]))
        with lowering.building_at(Builder.before(otherwise.terminator)):
            _scalar_stores(lowering, op, group, offsets, values, masks)
