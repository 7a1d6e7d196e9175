"""An element that another thread holds, read through shared memory (Triton's
``convert_layout`` by way of shared memory, step 3 of ``to_gpu.py``).

A held tile is spread over the block by its layout; a reader that needs an element held
by another thread (``alpha[:, None]`` read beside a tile of another shape, a row's
maximum next to the row) cannot take it from a register. The lowering then stages the
whole tile in a ``workgroup`` buffer, once per scope:

1. ``gpu.barrier``: readers of an earlier staging into this buffer (the previous trip
   of a loop) are done;
2. each element's first copy writes it at its row-major position;
3. ``gpu.barrier``: every write is visible;

and every read after that is one ``memref.load`` at the element's position.

>>> import numpy as np
>>> from tinycomp.frontend.tile import kernel
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> from tinycomp.frontend.tile.to_gpu import lower_to_gpu
>>> @kernel
... def scale_rows(x, s):
...     rows, cols = tl.arange(0, 16), tl.arange(0, 16)
...     factor = tm.load(s + rows)
...     offsets = rows[:, None] * 16 + cols[None, :]
...     tm.store(x + offsets, tm.load(x + offsets) * factor[:, None])
>>> x, s = np.zeros(256, np.float32), np.zeros(16, np.float32)
>>> names = [op.name for op in lower_to_gpu(scale_rows.specialize(x, s), 4).walk()]
>>> names.count("gpu.barrier")
2
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinycomp.dialects.arith.binary import AddIOp, MulIOp
from tinycomp.dialects.gpu import BarrierOp
from tinycomp.dialects.memref.access import LoadOp, StoreOp
from tinycomp.dialects.scf import IfOp
from tinycomp.frontend.tile.gpu_points import Point, full_point
from tinycomp.ir.builder import Builder
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.frontend.tile.to_gpu import TileLowering

__all__ = ["linear_position", "read_elsewhere", "stage_in_shared"]


def linear_position(lowering: TileLowering, shape: tuple[int, ...], point: Point) -> Value:
    """The row-major position of ``point`` in a tile of ``shape``, as an ``index``."""
    position = None
    for dim, coordinate in enumerate(point):
        stride = 1
        for size in shape[dim + 1 :]:
            stride *= size
        term = lowering.coordinate(coordinate)
        if stride != 1:
            term = lowering.insert(MulIOp.build(term, lowering.constant(stride))).result
        position = (
            term if position is None else lowering.insert(AddIOp.build(position, term)).result
        )
    return position if position is not None else lowering.zero


def guarded(lowering: TileLowering, condition: Value | None, op) -> None:
    """Insert ``op`` under ``scf.if condition`` (or as it is when there is none)."""
    if condition is None:
        lowering.insert(op)
        return
    guard = lowering.insert(IfOp.build(condition))
    Builder.before(guard.regions[0].blocks[0].terminator).insert(op)


def stage_in_shared(lowering: TileLowering, value: Value) -> Value:
    """Steps 1-3 (module docstring): the buffer now holding the whole of ``value``."""
    shape = lowering.shape(value)
    size = 1
    for extent in shape:
        size *= extent
    buffer = lowering.shared_buffer(size, value.type.element_type)
    lowering.insert(BarrierOp.build())
    for register, element in enumerate(lowering.held(value)):
        position = linear_position(lowering, shape, full_point(shape, register))
        first = lowering.first_copy(None, shape, register)
        guarded(lowering, first, StoreOp.build(element, buffer, [position]))
    lowering.insert(BarrierOp.build())
    return buffer


def read_elsewhere(lowering: TileLowering, value: Value, point: Point) -> Value:
    """``value``'s element at ``point``, from its staging in shared memory (made on the
    first such read in scope)."""
    key = ("staged", value)
    if key not in lowering.memo:
        lowering.memo[key] = stage_in_shared(lowering, value)
    buffer = lowering.memo[key]
    read_key = ("read", value, point)
    if read_key not in lowering.memo:
        position = linear_position(lowering, lowering.shape(value), point)
        lowering.memo[read_key] = lowering.insert(LoadOp.build(buffer, [position])).result
    return lowering.memo[read_key]
