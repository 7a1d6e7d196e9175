"""Warp votes and reductions with PTX semantics: ``nvvm.vote.sync``,
``nvvm.redux.sync``, ``nvvm.elect.sync`` and ``gpu.subgroup_reduce``.

Each combines the lanes of a member mask (the i32 operand; for ``gpu.subgroup_reduce``
the active lanes) warp by warp: ``ballot`` sets bit ``l`` for lane ``l``'s predicate,
``any``/``all``/``uni`` vote over the members, ``redux.sync`` reduces an i32 (``add``
wraps; ``umin``/``umax`` read the bits unsigned) or an f32 (``fmin``/``fmax``), and
``elect.sync`` is true on the lowest active member. Every member must execute the op
(``warp_ops.check_members``).

>>> sorted(VOTE_COMPILERS)
['gpu.subgroup_reduce', 'nvvm.elect.sync', 'nvvm.redux.sync', 'nvvm.vote.sync']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.dialects.gpu.enums import enum_value
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.context import ChunkState
from tinycomp.targets.gpu_sim.lanes import Mask
from tinycomp.targets.gpu_sim.warp_ops import BITS, WARP, active_bits, check_members, member_bits

__all__ = ["VOTE_COMPILERS"]

OpFn = Callable[[ChunkState, Mask], None]


def compile_vote(c: Any, op: Operation) -> OpFn:
    """``nvvm.vote.sync  ballot|any|all|uni %mask, %pred``."""
    kind = enum_value(op.attributes.get("kind"), "nvvm", "vote_sync_kind") or ""
    mask, predicate = (c.slot(x) for x in op.operands)
    result = c.slot(op.results[0])

    def run(st: ChunkState, m: Mask) -> None:
        total = st.lanes.total
        members = member_bits(st.v[mask], m, total)
        check_members(st, m, op, members)
        pred = np.broadcast_to(np.asarray(st.v[predicate], bool), (total,))
        yes = np.repeat((pred.reshape(-1, WARP) * BITS).sum(1, dtype=np.uint64), WARP) & members
        if kind == "ballot":
            st.v[result] = yes.astype(np.int64).astype(np.uint32).view(np.int32)
        elif kind == "any":
            st.v[result] = yes != 0
        elif kind == "all":
            st.v[result] = yes == members
        else:
            st.v[result] = (yes == members) | (yes == 0)

    return run


REDUX: dict[str, tuple[Callable[..., Any], Any]] = {
    "add": (np.sum, 0), "and": (np.bitwise_and.reduce, -1), "or": (np.bitwise_or.reduce, 0),
    "xor": (np.bitwise_xor.reduce, 0), "min": (np.min, 2**31 - 1), "max": (np.max, -(2**31)),
    "umin": (np.min, 2**32 - 1), "umax": (np.max, 0), "fmin": (np.fmin.reduce, np.inf),
    "fmax": (np.fmax.reduce, -np.inf),
}  # fmt: skip


def _redux_values(kind: str, x: np.ndarray) -> np.ndarray:
    if kind in ("umin", "umax"):
        return x.astype(np.int64) & 0xFFFFFFFF
    return x.astype(np.float32) if kind in ("fmin", "fmax") else x.astype(np.int64)


def compile_redux(c: Any, op: Operation) -> OpFn:
    """``%s = nvvm.redux.sync  add %x, %mask : i32 -> i32`` over the member lanes."""
    kind = enum_value(op.attributes.get("kind"), "nvvm", "redux_kind") or ""
    reduce, identity = REDUX[kind]
    value, mask = (c.slot(x) for x in op.operands)
    result = c.slot(op.results[0])
    is_float = kind in ("fmin", "fmax")

    def run(st: ChunkState, m: Mask) -> None:
        total = st.lanes.total
        members = member_bits(st.v[mask], m, total)
        check_members(st, m, op, members)
        x = _redux_values(kind, np.broadcast_to(np.asarray(st.v[value]), (total,)))
        member = ((members >> (st.lanes.lane.astype(np.uint64))) & np.uint64(1)) == 1
        rows = np.where(member, x, identity).reshape(-1, WARP)
        per_warp = reduce(rows, axis=1)
        out = np.repeat(per_warp, WARP)
        if is_float:
            st.v[result] = out.astype(np.float32)
        else:  # back to i32 bits (add wraps)
            st.v[result] = (out.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)

    return run


def compile_elect(c: Any, op: Operation) -> OpFn:
    """``%one = nvvm.elect.sync -> i1``: true on the lowest active lane of the mask."""
    mask = c.slot(op.operands[0]) if op.operands else None
    result = c.slot(op.results[0])

    def run(st: ChunkState, m: Mask) -> None:
        total = st.lanes.total
        bits = np.repeat(active_bits(m, total), WARP)
        if mask is not None:
            bits = bits & member_bits(st.v[mask], m, total)
        lowest = bits & (~bits + np.uint64(1))
        st.v[result] = (lowest >> st.lanes.lane.astype(np.uint64)) == 1

    return run


SUBGROUP: dict[str, tuple[Callable[..., Any], Any]] = {
    "add": (np.sum, 0), "mul": (np.prod, 1), "minnumf": (np.fmin.reduce, np.inf),
    "maxnumf": (np.fmax.reduce, -np.inf), "minimumf": (np.min, np.inf),
    "maximumf": (np.max, -np.inf), "minsi": (np.min, 2**62), "maxsi": (np.max, -(2**62)),
    "and": (np.bitwise_and.reduce, -1), "or": (np.bitwise_or.reduce, 0),
    "xor": (np.bitwise_xor.reduce, 0),
}  # fmt: skip


def compile_subgroup_reduce(c: Any, op: Operation) -> OpFn:
    """``gpu.subgroup_reduce  add %x [cluster(size = s)]`` over the active lanes."""
    kind = enum_value(op.attributes.get("op"), "gpu", "all_reduce_op") or ""
    if kind not in SUBGROUP:
        raise c.unsupported(op, f"the simulator does not reduce by '{kind}'")
    size_attr, stride_attr = op.attributes.get("cluster_size"), op.attributes.get("cluster_stride")
    size = size_attr.value if isinstance(size_attr, IntegerAttr) else WARP
    if isinstance(stride_attr, IntegerAttr) and stride_attr.value != 1:
        raise c.unsupported(op, "the simulator reduces clusters of stride 1 only")
    reduce, identity = SUBGROUP[kind]
    value, result = c.slot(op.operands[0]), c.slot(op.results[0])

    def run(st: ChunkState, m: Mask) -> None:
        x = np.broadcast_to(np.asarray(st.v[value]), (st.lanes.total,))
        dtype = x.dtype
        rows = x if m.arr is None else np.where(m.arr, x, np.asarray(identity).astype(dtype))
        per_cluster = reduce(rows.reshape(-1, size), axis=1).astype(dtype)
        st.v[result] = np.repeat(per_cluster, size)

    return run


VOTE_COMPILERS = {
    "nvvm.vote.sync": compile_vote,
    "nvvm.redux.sync": compile_redux,
    "nvvm.elect.sync": compile_elect,
    "gpu.subgroup_reduce": compile_subgroup_reduce,
}
"""Op name -> compiler of its closure."""
