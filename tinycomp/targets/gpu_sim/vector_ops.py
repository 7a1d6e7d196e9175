"""Per-lane vectors (the DSL's ``float4``): ``vector.extract``, ``vector.insert``,
``vector.from_elements``, ``vector.broadcast`` and ``vector.fma``.

A vector value is a ``(T, n)`` array: lane ``t``'s vector is row ``t``. Arithmetic on
vectors is elementwise, so ``arith`` and ``math`` rules run on them unchanged; only
the ops that move elements between positions are written here.

>>> sorted(VECTOR_COMPILERS)
['vector.broadcast', 'vector.extract', 'vector.fma', 'vector.from_elements', 'vector.insert']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.interp.numerics import dtype_of
from tinycomp.interp.rules.common import int_list
from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.context import ChunkState
from tinycomp.targets.gpu_sim.lanes import Mask

__all__ = ["VECTOR_COMPILERS"]

OpFn = Callable[[ChunkState, Mask], None]


def _static_position(c: Any, op: Operation) -> int:
    position = int_list(op, "static_position", [])
    if len(position) != 1 or position[0] < 0:
        raise c.unsupported(op, f"expected one static position into a 1-D vector, got {position}")
    return position[0]


def compile_extract(c: Any, op: Operation) -> OpFn:
    """``%x = vector.extract %v[2] : f32 from vector<4xf32>``."""
    position = _static_position(c, op)
    source, result = c.slot(op.operands[0]), c.slot(op.results[0])

    def run(st: ChunkState, m: Mask) -> None:
        st.v[result] = st.v[source][:, position]

    return run


def compile_insert(c: Any, op: Operation) -> OpFn:
    """``%w = vector.insert %x, %v[2] : f32 into vector<4xf32>``."""
    position = _static_position(c, op)
    value, dest, result = c.slot(op.operands[0]), c.slot(op.operands[1]), c.slot(op.results[0])

    def run(st: ChunkState, m: Mask) -> None:
        copy = np.array(st.v[dest])
        copy[:, position] = st.v[value]
        st.v[result] = copy

    return run


def compile_from_elements(c: Any, op: Operation) -> OpFn:
    """``%v = vector.from_elements %a, %b, %c, %d : vector<4xf32>``."""
    parts = [c.slot(x) for x in op.operands]
    result = c.slot(op.results[0])
    dtype = dtype_of(op.results[0].type)

    def run(st: ChunkState, m: Mask) -> None:
        out = np.empty((st.lanes.total, len(parts)), dtype)
        for k, slot in enumerate(parts):
            out[:, k] = st.v[slot]
        st.v[result] = out

    return run


def compile_broadcast(c: Any, op: Operation) -> OpFn:
    """``%v = vector.broadcast %x : f32 to vector<4xf32>``."""
    source, result = c.slot(op.operands[0]), c.slot(op.results[0])
    width = op.results[0].type.shape[0]
    dtype = dtype_of(op.results[0].type)

    def run(st: ChunkState, m: Mask) -> None:
        x = st.v[source]
        column = x[:, None] if type(x) is np.ndarray and x.ndim == 1 else x
        st.v[result] = np.broadcast_to(np.asarray(column, dtype), (st.lanes.total, width))

    return run


def compile_vector_fma(c: Any, op: Operation) -> OpFn:
    """``vector.fma %a, %b, %c``: the product exact in f64, rounded once to the type."""
    a, b, d = (c.slot(x) for x in op.operands)
    result = c.slot(op.results[0])
    dtype = dtype_of(op.results[0].type)

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        st.v[result] = (np.multiply(v[a], v[b], dtype=np.float64) + v[d]).astype(dtype)

    return run


VECTOR_COMPILERS = {
    "vector.extract": compile_extract,
    "vector.insert": compile_insert,
    "vector.from_elements": compile_from_elements,
    "vector.broadcast": compile_broadcast,
    "vector.fma": compile_vector_fma,
}
"""Op name -> compiler of its closure."""
