"""Rules for the vector dialect: a vector is a numpy array of its shape.

``vector<8xf32>`` runs as an ``np.ndarray`` of shape ``(8,)`` and dtype ``float32``, so
``arith``/``math`` rules, which are elementwise, already run vector code lane by lane.
This table adds the ops that need the dialect:

==================  ==========================================================
op                  semantics
==================  ==========================================================
load / store        the box of lanes starting at the indices, in the memref's
                    last dimensions; every lane must be in bounds (an error,
                    not unspecified values as MLIR allows) and, for a load,
                    initialised
broadcast           ``np.broadcast_to`` (a fresh copy)
fma                 ``a * b + c`` per lane, as ``math.fma`` (computed in f64)
reduction           the kind's ``arith`` op applied lane by lane *in order*,
                    ``((acc op v0) op v1) ...``: the ordered reduction, so a
                    float sum is exactly the scalar loop's sum
extract / insert    indexing with the position
==================  ==========================================================

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp import interpret
>>> m = parse('''
... func.func @sum8(%x: memref<10xf32>, %i: index) -> f32 {
...   %zero = arith.constant 0.0 : f32
...   %v = vector.load %x[%i] : memref<10xf32>, vector<8xf32>
...   %s = vector.reduction <add>, %v, %zero : vector<8xf32> into f32
...   return %s : f32
... }''')
>>> x = np.arange(10, dtype=np.float32)
>>> float(interpret(m, x, 2, entry="sum8"))
44.0
>>> interpret(m, x, 3, entry="sum8")
Traceback (most recent call last):
...
tinycomp.interp.errors.InterpreterError: 'vector.load' at line 4: reads lanes [3 .. 10] \
of %x (shape 10), out of bounds in dimension 0: a vector of 8 lanes starting at 3 ends \
at 10, expected <= 9
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.dialects.common.mixed_indices import DYNAMIC_INDEX
from tinycomp.dialects.vector.reduction import combiner_op
from tinycomp.interp.errors import describe_value, format_shape, op_error
from tinycomp.interp.memory import MemRefValue, check_live, check_writable
from tinycomp.interp.numerics import as_value, dtype_of, round_float
from tinycomp.interp.rules.arith import RULES as ARITH_RULES
from tinycomp.interp.rules.common import int_list
from tinycomp.interp.rules.math import FLOAT_FUNCTIONS
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import VectorType

__all__ = ["RULES", "lane_positions"]


def lane_positions(
    op: Operation, memref: MemRefValue, index: Sequence[int], shape: Sequence[int], what: str
) -> np.ndarray:
    """Buffer positions of the lanes of a ``shape`` vector whose lane 0 is at ``index``
    (the vector covers the last ``len(shape)`` dimensions), after checking that every
    lane is inside the memref.

    >>> from tinycomp.interp.memory import allocate
    >>> m = allocate(np.dtype(np.float32), (3, 8), "memref.alloc")
    >>> lane_positions(Operation.create("test.op"), m, (1, 2), (4,), "%m")
    array([10, 11, 12, 13])
    """
    check_live(op, memref, what)
    if len(index) != memref.rank:
        raise op_error(op, f"expected {memref.rank} indices for {what}, got {len(index)}")
    first_covered = memref.rank - len(shape)
    extents = [1] * first_covered + list(shape)
    for axis, (start, size, extent) in enumerate(zip(index, memref.sizes, extents, strict=True)):
        last = int(start) + extent - 1
        if int(start) >= 0 and last < size:
            continue
        if extent == 1:
            raise op_error(
                op,
                f"index {list(index)} is out of bounds for {what} (shape "
                f"{format_shape(memref.sizes)}): expected 0 <= index < {size} in dimension "
                f"{axis}, got {int(start)}",
            )
        lanes = ", ".join(
            f"{int(i)} .. {int(i) + e - 1}" if e > 1 else str(int(i))
            for i, e in zip(index, extents, strict=True)
        )
        raise op_error(
            op,
            f"reads lanes [{lanes}] of {what} (shape {format_shape(memref.sizes)}), out of "
            f"bounds in dimension {axis}: a vector of {extent} lanes starting at {int(start)} "
            f"ends at {last}, expected <= {size - 1}",
        )
    positions = np.asarray(memref.linear_index(index), dtype=np.int64)
    for axis, extent in enumerate(shape):
        stride = memref.strides[first_covered + axis]
        offsets = np.arange(extent, dtype=np.int64) * stride
        positions = np.add.outer(positions, offsets)
    return positions.reshape(tuple(shape))


def run_load(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``vector.load %m[%i, %j]``: a fresh array of the vector's shape."""
    memref, *index = operands
    shape = op.results[0].type.shape
    what = describe_value(op.operands[0])
    positions = lane_positions(op, memref, [int(i) for i in index], shape, what)
    initialized = memref.buffer.initialized[positions]
    if not initialized.all():
        lane = tuple(int(i) for i in np.argwhere(~initialized)[0])
        raise op_error(
            op,
            f"reads lane {list(lane)} of {what} at index {[int(i) for i in index]}, which was "
            f"never written (the memory of {memref.buffer.origin} is uninitialised)",
        )
    return [memref.buffer.data[positions].copy()]


def run_store(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``vector.store %v, %m[%i, %j]``."""
    value, memref, *index = operands
    shape = op.operands[0].type.shape
    what = describe_value(op.operands[1])
    positions = lane_positions(op, memref, [int(i) for i in index], shape, what)
    check_writable(op, memref, what)
    memref.buffer.data[positions] = np.asarray(value).reshape(shape)
    memref.buffer.initialized[positions] = True
    return []


def run_broadcast(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``vector.broadcast``: the source copied into every lane."""
    result_type = op.results[0].type
    lanes = np.broadcast_to(np.asarray(operands[0]), result_type.shape)
    return [np.array(lanes, dtype=dtype_of(result_type))]


def run_fma(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``vector.fma``: ``a * b + c`` lane by lane, as ``math.fma``."""
    wide = [np.asarray(x).astype(np.float64) for x in operands]
    fused = FLOAT_FUNCTIONS["math.fma"](*wide)
    return [round_float(fused, dtype_of(op.results[0].type))]


def run_reduction(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``vector.reduction <kind>``: the lanes combined in order, after ``acc`` if given."""
    vector = np.asarray(operands[0])
    vector_type = op.operands[0].type
    kind = str(op.attributes.get("kind", "")).removeprefix("#vector.kind<").removesuffix(">")
    combiner = combiner_op(kind, vector_type.element_type)
    if combiner is None:
        raise op_error(op, f"expected a combining kind for {vector_type}, got '{kind}'")
    combine = ARITH_RULES[combiner]
    lanes = list(vector.reshape(-1))
    acc = operands[1] if len(operands) > 1 else lanes.pop(0)
    for lane in lanes:
        (acc,) = combine(op, [acc, lane], interp)
    return [as_value(acc, dtype_of(op.results[0].type))]


def _position(op: Operation, dynamic: list[Any]) -> tuple[int, ...]:
    """The position, dynamic entries filled in, each checked against the vector."""
    static = int_list(op, "static_position")
    taken = iter(dynamic)
    position = [int(next(taken)) if entry == DYNAMIC_INDEX else entry for entry in static]
    vector_position = 1 if op.name == "vector.insert" else 0
    vector_type: VectorType = op.operands[vector_position].type
    for dimension, entry in enumerate(position):
        size = vector_type.shape[dimension]
        if not 0 <= entry < size:
            raise op_error(
                op,
                f"position {position} is out of bounds for {vector_type}: expected 0 <= "
                f"position < {size} in dimension {dimension}, got {entry}",
            )
    return tuple(position)


def run_extract(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``vector.extract %v[...]``: one lane, or a sub-vector (a copy)."""
    vector, *dynamic = operands
    found = np.asarray(vector)[_position(op, dynamic)]
    return [as_value(np.array(found), dtype_of(op.results[0].type))]


def run_insert(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``vector.insert %x, %v[...]``: a copy of ``v`` with that lane (or sub-vector) set."""
    value, vector, *dynamic = operands
    result = np.array(vector, dtype=dtype_of(op.results[0].type))
    result[_position(op, dynamic)] = value
    return [result]


RULES = {
    "vector.load": run_load,
    "vector.store": run_store,
    "vector.broadcast": run_broadcast,
    "vector.fma": run_fma,
    "vector.reduction": run_reduction,
    "vector.extract": run_extract,
    "vector.insert": run_insert,
}
"""Every vector op the interpreter runs."""
