"""Atomics: ``memref.atomic_rmw`` (every kind) and ``memref.generic_atomic_rmw`` (a
compare-and-swap loop), applied in lane order so that results are deterministic.

The active lanes are taken in order (block, warp, lane 0 first). Lanes that hit the
same element are serialised by *rounds*: round ``r`` applies, at once, the ``r``-th lane
(in that order) of every element, so within a round all elements differ. Each lane's
returned old value is what the element held just before its own update, as the
sequential order gives it. An ``add`` whose old value nobody reads is one unbuffered
``np.add.at``, applied in lane order too.

>>> element = np.array([3, 1, 3, 3])
>>> rounds_of(element).tolist()
[0, 0, 1, 2]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.dialects.memref.atomic import ATOMIC_KINDS
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.context import ChunkState
from tinycomp.targets.gpu_sim.lanes import Mask
from tinycomp.targets.gpu_sim.memory_ops import make_plan

__all__ = ["ATOMIC_COMPILERS", "COMBINE", "rounds_of"]

OpFn = Callable[[ChunkState, Mask], None]


def _unsigned(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        kind = np.dtype(f"u{a.dtype.itemsize}")
        return f(a.view(kind), np.asarray(b, a.dtype).view(kind)).view(a.dtype)

    return combine


COMBINE: dict[str, Callable[[Any, Any], Any]] = {
    "addf": np.add, "addi": np.add, "mulf": np.multiply, "muli": np.multiply,
    "maximumf": np.maximum, "minimumf": np.minimum, "maxnumf": np.fmax, "minnumf": np.fmin,
    "maxs": np.maximum, "mins": np.minimum, "maxu": _unsigned(np.maximum),
    "minu": _unsigned(np.minimum), "andi": np.bitwise_and, "ori": np.bitwise_or,
    "xori": np.bitwise_xor, "assign": lambda old, new: np.broadcast_to(new, np.shape(old)),
}  # fmt: skip
"""``new element = COMBINE[kind](old element, value)``."""


def rounds_of(element: np.ndarray) -> np.ndarray:
    """For each lane, how many earlier lanes hit the same element."""
    order = np.argsort(element, kind="stable")
    ordered = element[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order)) - group_start
    return rank


def _atomic_lanes(st: ChunkState, m: Mask, plan: Any) -> tuple[np.ndarray, np.ndarray]:
    V, u = plan.locate(st, m)
    flat = V + u if u else V
    storage = st.buffers[plan.spec.index]
    if not plan.sanitize:  # unchecked: keep out-of-bounds lanes inside the buffer
        flat = np.clip(flat, 0, storage.data.size - 1)
    lanes = np.arange(st.lanes.total) if m.arr is None else np.flatnonzero(m.arr)
    if storage.written is not None:  # an atomic reads the element, then writes it
        if not storage.fully_written:
            plan.check_initialized(st, m, flat)
        storage.written[flat[lanes]] = True
    return flat, lanes


def compile_atomic_rmw(c: Any, op: Operation) -> OpFn:
    """``%old = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<?xf32>) -> f32``."""
    kind_attr = op.attributes.get("kind")
    kind = ATOMIC_KINDS[kind_attr.value] if isinstance(kind_attr, IntegerAttr) else ""
    if kind not in COMBINE:
        raise c.unsupported(op, f"expected an atomic kind ({', '.join(COMBINE)}), got {kind!r}")
    combine = COMBINE[kind]
    plan = make_plan(c, op, 1, 2, "atomic")
    value, result = c.slot(op.operands[0]), c.slot(op.results[0])
    old_unused = not op.results[0].has_uses
    dtype = plan.spec.dtype

    def run(st: ChunkState, m: Mask) -> None:
        flat, lanes = _atomic_lanes(st, m, plan)
        data = st.buffers[plan.spec.index].data
        x = st.v[value]
        x = x[lanes] if type(x) is np.ndarray else np.full(len(lanes), x, dtype)
        where = flat[lanes]
        if old_unused and kind in ("addf", "addi"):
            np.add.at(data, where, x)
            return
        old = np.zeros(st.lanes.total, dtype)
        rank = rounds_of(where)
        order = np.argsort(rank, kind="stable")
        bounds = np.searchsorted(rank[order], np.arange(int(rank.max(initial=-1)) + 2))
        for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
            pick = order[start:stop]
            at = where[pick]
            before = data[at]
            old[lanes[pick]] = before
            data[at] = combine(before, x[pick])
        st.v[result] = old

    return run


def compile_generic_atomic_rmw(c: Any, op: Operation) -> OpFn:
    """``%old = memref.generic_atomic_rmw %m[%i] { ^bb0(%cur): ... atomic_yield %new }``:
    the body runs once per round, for the lanes of that round."""
    plan = make_plan(c, op, 0, 1, "atomic")
    body_block = op.regions[0].blocks[0]
    current = c.slot(body_block.arguments[0])
    body = c.compile_block(body_block)
    yielded = c.slot(body_block.terminator.operands[0])
    result = c.slot(op.results[0])
    dtype = plan.spec.dtype

    def run(st: ChunkState, m: Mask) -> None:
        flat, lanes = _atomic_lanes(st, m, plan)
        data = st.buffers[plan.spec.index].data
        where = flat[lanes]
        old = np.zeros(st.lanes.total, dtype)
        rank = rounds_of(where)
        for r in range(int(rank.max(initial=-1)) + 1):
            pick = lanes[rank == r]
            at = flat[pick]
            current_values = np.zeros(st.lanes.total, dtype)
            current_values[pick] = data[at]
            old[pick] = data[at]
            selected = np.zeros(st.lanes.total, bool)
            selected[pick] = True
            st.v[current] = current_values
            body.run(st, Mask(selected, st.lanes))
            new = st.v[yielded]
            data[at] = new[pick] if type(new) is np.ndarray else new
        st.v[result] = old

    return run


ATOMIC_COMPILERS = {
    "memref.atomic_rmw": compile_atomic_rmw,
    "memref.generic_atomic_rmw": compile_generic_atomic_rmw,
}
"""Op name -> compiler of its closure."""
