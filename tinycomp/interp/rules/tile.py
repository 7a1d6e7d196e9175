"""Rules for the tile dialect: ``tile.load`` is a numpy gather, ``tile.store`` a masked
scatter, both on the flat buffer behind a ``memref<?xT>``.

Every lane whose mask is on must touch an element inside the buffer, and a load must
read elements that were written; anything else is an ``InterpreterError`` naming the
op, the lane, its offset and the buffer's size. Masked-off lanes touch nothing (their
offsets may point anywhere, as in Triton). When several active lanes of one store hit
the same element, the last lane in row-major order wins.

>>> import numpy as np
>>> from tinycomp.interp import interpret
>>> copy = '''
... func.func @main(%x: memref<?xf32>, %y: memref<?xf32>, %o: tensor<3xi32>,
...                 %m: tensor<3xi1>) {
...   %zero = arith.constant 0.0 : f32
...   %t = "tile.load"(%x, %o, %m, %zero)
...       : (memref<?xf32>, tensor<3xi32>, tensor<3xi1>, f32) -> tensor<3xf32>
...   "tile.store"(%y, %o, %t, %m)
...       : (memref<?xf32>, tensor<3xi32>, tensor<3xf32>, tensor<3xi1>) -> ()
...   return
... }'''
>>> x, y = np.array([1.0, 2.0, 3.0], np.float32), np.zeros(3, np.float32)
>>> offsets, mask = np.array([2, 0, 7], np.int32), np.array([True, True, False])
>>> _ = interpret(copy, x, y, offsets, mask)
>>> y
array([1., 0., 3.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.interp.errors import describe_value, format_index, op_error
from tinycomp.interp.memory import MemRefValue, check_live, check_writable
from tinycomp.interp.tensors import make_tensor, tensor_parts
from tinycomp.ir.operation import Operation

__all__ = ["RULES", "run_load", "run_store"]


def _positions(op: Operation, buffer: MemRefValue, offsets: Any, mask: Any) -> np.ndarray:
    """The buffer positions of the active lanes' elements, checked to be in bounds."""
    offsets_data, _ = tensor_parts(offsets)
    offsets_data = np.asarray(offsets_data, dtype=np.int64)
    active = np.ones(offsets_data.shape, bool) if mask is None else tensor_parts(mask)[0]
    size = buffer.sizes[0]
    outside = active & ((offsets_data < 0) | (offsets_data >= size))
    if outside.any():
        lane = tuple(int(i) for i in np.argwhere(outside)[0])
        raise op_error(
            op,
            f"lane {format_index(lane)} is active and has offset {int(offsets_data[lane])}, "
            f"outside {describe_value(op.operand(0))} of {size} elements (mask it off, or "
            "keep offsets in 0..size-1)",
        )
    return buffer.offset + np.where(active, offsets_data, 0) * buffer.strides[0]


def run_load(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tile.load``: ``result[i] = buffer[offsets[i]] if mask[i] else other``."""
    buffer, offsets = operands[0], operands[1]
    mask = operands[2] if len(operands) == 4 else None
    check_live(op, buffer, describe_value(op.operand(0)))
    positions = _positions(op, buffer, offsets, mask)
    active = np.ones(positions.shape, bool) if mask is None else tensor_parts(mask)[0]
    unwritten = active & ~buffer.buffer.initialized[positions]
    if unwritten.any():
        lane = tuple(int(i) for i in np.argwhere(unwritten)[0])
        raise op_error(
            op,
            f"lane {format_index(lane)} reads {describe_value(op.operand(0))} at offset "
            f"{int(tensor_parts(offsets)[0][lane])}, which was never written",
        )
    values = buffer.buffer.data[positions]
    if mask is not None:
        other = np.asarray(tensor_parts(operands[3])[0], dtype=values.dtype)
        values = np.where(active, values, other)
    return [make_tensor(np.array(values, dtype=buffer.dtype))]


def run_store(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``tile.store``: ``buffer[offsets[i]] = value[i]`` where ``mask[i]``."""
    buffer, offsets, value = operands[0], operands[1], operands[2]
    mask = operands[3] if len(operands) == 4 else None
    what = describe_value(op.operand(0))
    check_live(op, buffer, what)
    check_writable(op, buffer, what)
    positions = _positions(op, buffer, offsets, mask)
    data = tensor_parts(value)[0]
    active = np.ones(positions.shape, bool) if mask is None else tensor_parts(mask)[0]
    buffer.buffer.data[positions[active]] = data[active]
    buffer.buffer.initialized[positions[active]] = True
    return []


RULES = {"tile.load": run_load, "tile.store": run_store}
"""Op name -> rule for the tile dialect."""
