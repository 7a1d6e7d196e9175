"""Rules for bufferization: the ops at the border between tensors and memrefs.

Bufferization replaces tensor values by memory. Until it is finished, IR mixes the two
worlds through these ops: ``to_tensor`` reads a memref's current contents as a tensor
value (a copy), ``to_buffer`` (formerly ``to_memref``) gives a tensor a memory of its
own, ``materialize_in_destination`` stores a tensor into a memref, ``alloc_tensor`` is
``tensor.empty`` (or a copy) in bufferization's words.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import interpret
>>> m = parse('''
... func.func @main(%m: memref<3xf32>) -> tensor<3xf32> {
...   %t = "bufferization.to_tensor"(%m) <{restrict}> : (memref<3xf32>) -> tensor<3xf32>
...   return %t : tensor<3xf32>
... }''')
>>> interpret(m, np.ones(3, np.float32))
array([1., 1., 1.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.interp.errors import describe_value
from tinycomp.interp.memory import MemRefValue, allocate, read_all, write_all
from tinycomp.interp.numerics import dtype_of
from tinycomp.interp.rules.common import segments
from tinycomp.interp.rules.tensor import result_shape
from tinycomp.interp.tensors import empty_tensor, make_tensor, tensor_parts
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation


def run_to_tensor(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``bufferization.to_tensor %m``: the memref's contents now, as a tensor value."""
    data, initialized = read_all(op, operands[0], describe_value(op.operand(0)))
    return [make_tensor(np.array(data), np.array(initialized))]


def memory_for_tensor(op: Operation, tensor: Any) -> MemRefValue:
    """New row-major memory holding ``tensor`` (its uninitialised elements stay so)."""
    data, initialized = tensor_parts(tensor)
    memory = allocate(data.dtype, data.shape, f"{op.name}{describe_location(op.location)}")
    write_all(op, memory, data, "the new buffer", mask=initialized)
    return memory


def run_to_buffer(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``bufferization.to_buffer %t``: memory holding the tensor (the program may not
    free it: it belongs to the tensor)."""
    memory = memory_for_tensor(op, operands[0])
    memory.buffer.owned = False
    return [memory]


def run_clone(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``bufferization.clone %m``: a new allocation with a copy of the contents."""
    data, initialized = read_all(op, operands[0], describe_value(op.operand(0)))
    memory = allocate(data.dtype, data.shape, f"{op.name}{describe_location(op.location)}")
    write_all(op, memory, data, "the clone", mask=initialized)
    return [memory]


def run_alloc_tensor(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``bufferization.alloc_tensor(%sizes) copy(%t)``: like ``tensor.empty``, or a copy."""
    dynamic_sizes, copy, _size_hint = segments(op, operands, 3)
    if copy:
        return [copy[0]]
    shape = result_shape(op, dynamic_sizes)
    return [empty_tensor(shape, dtype_of(op.results[0].type))]


def run_materialize_in_destination(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``materialize_in_destination %t in %dest``: for a tensor destination the result
    is ``%t``; for a memref destination ``%t`` is stored into it."""
    source, dest = operands
    if isinstance(dest, MemRefValue):
        data, initialized = tensor_parts(source)
        write_all(op, dest, data, describe_value(op.operand(1)), mask=initialized)
        return []
    return [source]


def run_dealloc_tensor(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``bufferization.dealloc_tensor``: nothing to do for a value."""
    return []


RULES = {
    "bufferization.to_tensor": run_to_tensor,
    "bufferization.to_buffer": run_to_buffer,
    "bufferization.to_memref": run_to_buffer,
    "bufferization.clone": run_clone,
    "bufferization.alloc_tensor": run_alloc_tensor,
    "bufferization.materialize_in_destination": run_materialize_in_destination,
    "bufferization.dealloc_tensor": run_dealloc_tensor,
}
"""Every bufferization op the interpreter runs."""

__all__ = ["RULES", "memory_for_tensor"]
