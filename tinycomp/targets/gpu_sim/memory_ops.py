"""Loads and stores, compiled to closures: ``memref.load``/``memref.store``,
``vector.load``/``vector.store`` (contiguous along the last dimension) and
``memref.dim``.

A load gathers ``data[V + u]`` for the lanes (all of them when the mask is full, with
clipped indices under a mask: inactive lanes' values are never used); a store scatters
only the active lanes' values. Around that come the plan's checks and counters
(``memory_access.py``) and, with the sanitizer on, the written flags of shared and local
memory and the race shadow of shared memory.

>>> sorted(MEMORY_COMPILERS)
['memref.dim', 'memref.load', 'memref.store', 'vector.load', 'vector.store']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.ir.operation import Operation
from tinycomp.ir.types import VectorType
from tinycomp.targets.gpu_sim.context import ChunkState
from tinycomp.targets.gpu_sim.lanes import Mask
from tinycomp.targets.gpu_sim.memory_access import AccessPlan

__all__ = ["MEMORY_COMPILERS", "make_plan"]

OpFn = Callable[[ChunkState, Mask], None]


def make_plan(
    c: Any, op: Operation, memref_operand: int, first_index: int, access: str
) -> AccessPlan:
    """The access plan of ``op``, whose memref is operand ``memref_operand`` and whose
    indices start at operand ``first_index``."""
    spec = c.spec_of(op.operands[memref_operand])
    slots = [c.slot(v) for v in op.operands[first_index:]]
    value_type = op.results[0].type if access == "read" and op.results else op.operands[0].type
    width = value_type.shape[0] if isinstance(value_type, VectorType) else 1
    if len(slots) != len(spec.shape):
        raise c.unsupported(
            op, f"expected {len(spec.shape)} indices for {spec.name}, got {len(slots)}"
        )
    plan = AccessPlan(op, spec, slots, access, width, c.run)
    plan.in_registers = op in c.emitted.registers
    c.plans.append(plan)
    return plan


def _trace(st: ChunkState, m: Mask, plan: AccessPlan, flat: np.ndarray) -> None:
    trace = st.run.trace
    if trace is not None:
        local = st.buffers[plan.spec.index].local_offsets(flat)
        trace.access(
            st, m, plan.spec, plan.spec.base_bytes + local * plan.spec.element_bytes, plan.nbytes
        )


def compile_load(c: Any, op: Operation) -> OpFn:
    """``%x = memref.load %m[%i, %j]`` and ``vector.load``."""
    plan = make_plan(c, op, 0, 1, "read")
    result = c.slot(op.results[0])
    width, spec, sanitize = plan.width, plan.spec, plan.sanitize
    checked_space = spec.space != "global" and sanitize
    lanes_offsets = np.arange(width) if width > 1 else None

    def run(st: ChunkState, m: Mask) -> None:
        V, u = plan.locate(st, m)
        data = st.buffers[spec.index].data
        if checked_space:
            if not st.buffers[spec.index].fully_written:
                plan.check_initialized(st, m, V + u)
            if spec.space == "shared":
                plan.check_race(st, m, V, u, write=False)
        # inactive lanes may point anywhere: "wrap" keeps them inside the buffer (their
        # values are never used) and is numpy's fastest checked gather
        if lanes_offsets is not None:
            st.v[result] = data.take((V + u)[:, None] + lanes_offsets, mode="wrap")
        elif u >= 0:
            st.v[result] = data[u:].take(V, mode="wrap")
        else:
            st.v[result] = data.take(V + u, mode="wrap")
        if st.run.trace is not None:
            _trace(st, m, plan, V + u)

    return run


def compile_store(c: Any, op: Operation) -> OpFn:
    """``memref.store %x, %m[%i]`` and ``vector.store``."""
    plan = make_plan(c, op, 1, 2, "write")
    value = c.slot(op.operands[0])
    width, spec, sanitize = plan.width, plan.spec, plan.sanitize
    lanes_offsets = np.arange(width) if width > 1 else None

    def run(st: ChunkState, m: Mask) -> None:
        V, u = plan.locate(st, m)
        flat = V + u if u else V
        if sanitize and spec.space == "shared":
            plan.check_race(st, m, V, u, write=True)
        storage = st.buffers[spec.index]
        x = st.v[value]
        arr = m.arr
        if arr is not None:
            flat = flat[arr]
            if type(x) is np.ndarray:
                x = x[arr]
        if not sanitize:  # unchecked: keep out-of-bounds lanes inside the buffer
            flat = np.clip(flat, 0, storage.data.size - width)
        where = flat if lanes_offsets is None else flat[:, None] + lanes_offsets
        storage.data[where] = x
        if storage.written is not None:
            storage.written[where] = True
        if st.run.trace is not None:
            _trace(st, m, plan, V + u)

    return run


def compile_dim(c: Any, op: Operation) -> OpFn | None:
    """``memref.dim %m, %c``: a uniform int (the shapes are known when compiling)."""
    spec = c.spec_of(op.operands[0])
    dim_value = c.constant_of(op.operands[1])
    if dim_value is None or not 0 <= dim_value < len(spec.shape):
        raise c.unsupported(op, f"expected a constant dimension below {len(spec.shape)}")
    c.set_constant(op.results[0], int(spec.shape[dim_value]))
    return None


MEMORY_COMPILERS = {
    "memref.load": compile_load,
    "vector.load": compile_load,
    "memref.store": compile_store,
    "vector.store": compile_store,
    "memref.dim": compile_dim,
}
"""Op name -> compiler of its closure."""
