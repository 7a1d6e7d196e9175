"""Warp-wide ops with PTX semantics: ``nvvm.shfl.sync``, ``gpu.shuffle``,
``nvvm.vote.sync``, ``nvvm.redux.sync``, ``nvvm.elect.sync`` and
``gpu.subgroup_reduce``, on the ``(warps, 32)`` view of the lanes.

**Shuffles.** The clamp operand ``c`` of ``shfl.sync`` holds the segment mask in bits
8-12 and the clamp value in bits 0-4; lane ``l`` reads lane ``j``::

    max_lane = (l & segmask) | (c & 0x1f & ~segmask)     min_lane = l & segmask
    up: j = l - b, valid j >= max_lane       down: j = l + b, valid j <= max_lane
    bfly: j = l ^ b, valid j <= max_lane     idx: j = min_lane | (b & ~segmask), valid j <= max_lane

An invalid source keeps the lane's own value. ``gpu.shuffle`` with ``width`` is the same
with segments of ``width`` lanes and the active lanes as its member mask.

**Sanitizer.** Every lane of a member mask must execute the op (a lane that does not
would make a real warp wait forever, or read an undefined value), and a shuffle must
not read a lane outside the member mask.

>>> source_lanes("down", np.arange(32), 16, shuffle_clamp("down", 32))[0][:4].tolist()
[16, 17, 18, 19]
>>> j, valid = source_lanes("bfly", np.arange(32), 1, shuffle_clamp("bfly", 16))
>>> j[:4].tolist(), bool(valid.all())
([1, 0, 3, 2], True)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.dialects.gpu.enums import enum_value
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.context import ChunkState
from tinycomp.targets.gpu_sim.lanes import Mask

__all__ = [
    "WARP",
    "WARP_COMPILERS",
    "active_bits",
    "check_members",
    "member_bits",
    "shuffle_clamp",
    "source_lanes",
]

OpFn = Callable[[ChunkState, Mask], None]
WARP = 32
FULL = 0xFFFFFFFF
BITS = np.uint64(1) << np.arange(WARP, dtype=np.uint64)


def shuffle_clamp(kind: str, width: int) -> int:
    """The ``c`` operand PTX expects for segments of ``width`` lanes.

    >>> shuffle_clamp("down", 16), shuffle_clamp("up", 16)
    (4127, 4096)
    """
    return ((WARP - width) << 8) | (0 if kind == "up" else 0x1F)


def source_lanes(kind: str, lane: np.ndarray, b: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(j, valid)``: the lane each lane reads, PTX's rule (``j`` is the lane itself
    where the source is not valid)."""
    b = np.asarray(b, np.int64) & 0x1F
    c = np.asarray(c, np.int64)
    segmask = (c >> 8) & 0x1F
    max_lane = (lane & segmask) | (c & 0x1F & ~segmask)
    if kind == "up":
        j = lane - b
        valid = j >= max_lane
    elif kind == "down":
        j = lane + b
        valid = j <= max_lane
    elif kind == "bfly":
        j = lane ^ b
        valid = j <= max_lane
    else:
        j = (lane & segmask) | (b & ~segmask)
        valid = j <= max_lane
    return np.where(valid, j, lane), np.broadcast_to(valid, lane.shape)


def active_bits(m: Mask, total: int) -> np.ndarray:
    """Per warp, the ``uint64`` whose bit ``l`` says lane ``l`` is active."""
    arr = np.ones(total, bool) if m.arr is None else m.arr
    return (arr.reshape(-1, WARP) * BITS).sum(1, dtype=np.uint64)


def member_bits(mask_value: Any, m: Mask, total: int) -> np.ndarray:
    """Per lane, its member mask as ``uint64`` (32 bits)."""
    bits = np.asarray(mask_value).astype(np.int64) & 0xFFFFFFFF
    return np.broadcast_to(bits.astype(np.uint64), (total,))


def _full(mask_value: Any) -> bool:
    """Whether a member mask is the uniform ``0xffffffff``."""
    return type(mask_value) is not np.ndarray and int(mask_value) & FULL == FULL


def check_members(
    st: ChunkState, m: Mask, op: Operation, members: np.ndarray, full: bool = False
) -> None:
    """Raise if a member lane of an active lane is not active (nothing to check when the
    mask is full and every lane of the chunk is active)."""
    if not st.run.sanitize or (full and m.arr is None):
        return
    total = st.lanes.total
    active = active_bits(m, total)
    missing = members & ~np.repeat(active, WARP)
    bad = missing != 0
    if m.arr is not None:
        bad &= m.arr
    if bad.any():
        lane = int(np.argmax(bad))
        absent = int(missing[lane])
        first = (absent & -absent).bit_length() - 1
        raise st.run.error(
            "shuffle",
            op,
            f"lane {first} of the member mask {int(members[lane]):#010x} does not execute "
            f"this {op.name} (it is inactive or has exited); a warp would wait for it forever "
            "or read an undefined value",
            st.lanes,
            lane,
        )


def _sources(st: ChunkState, kind: str, offset: Any, clamp: Any) -> tuple[np.ndarray, ...]:
    """``(source lane in the chunk, valid, source lane in the warp)`` for every lane; for
    uniform operands computed on 32 lanes once per chunk and tiled."""
    lanes = st.lanes
    if type(offset) is np.ndarray or type(clamp) is np.ndarray:
        j, valid = source_lanes(kind, lanes.lane, offset, clamp)
        return lanes.warp_of_lane * WARP + j, valid, j
    return _uniform_sources(lanes.warps, kind, int(offset), int(clamp))


@functools.lru_cache(maxsize=64)
def _uniform_sources(warps: int, kind: str, offset: int, clamp: int) -> tuple[np.ndarray, ...]:
    j32, valid32 = source_lanes(kind, np.arange(WARP), offset, clamp)
    j = np.tile(j32, warps)
    found = (np.arange(warps * WARP) - np.tile(np.arange(WARP), warps) + j, np.tile(valid32, warps), j)
    for array in found:
        array.flags.writeable = False
    return found


def _shuffle(
    st: ChunkState, m: Mask, op: Operation, kind: str, value: Any, offset: Any, clamp: Any,
    members: np.ndarray, full: bool = False,
) -> tuple[Any, np.ndarray]:  # fmt: skip
    lanes = st.lanes
    check_members(st, m, op, members, full)
    source, valid, j = _sources(st, kind, offset, clamp)
    if st.run.sanitize and not full:
        outside = (members >> j.astype(np.uint64)) & np.uint64(1) == 0
        bad = outside if m.arr is None else outside & m.arr
        if bad.any():
            lane = int(np.argmax(bad))
            raise st.run.error(
                "shuffle",
                op,
                f"reads lane {int(j[lane])}, which is not in the member mask "
                f"{int(members[lane]):#010x} (its value is undefined)",
                lanes,
                lane,
            )
    result = value[source] if type(value) is np.ndarray else value
    return result, valid


def compile_shfl_sync(c: Any, op: Operation) -> OpFn:
    """``%r = nvvm.shfl.sync  down %mask, %x, %offset, %clamp : f32 -> f32``."""
    kind = enum_value(op.attributes.get("kind"), "nvvm", "shfl_kind") or ""
    mask, value, offset, clamp = (c.slot(x) for x in op.operands)
    result = c.slot(op.results[0])

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        members = member_bits(v[mask], m, st.lanes.total)
        full = _full(v[mask])
        st.v[result] = _shuffle(st, m, op, kind, v[value], v[offset], v[clamp], members, full)[0]

    return run


def compile_gpu_shuffle(c: Any, op: Operation) -> OpFn:
    """``%r, %ok = gpu.shuffle  xor %x, %offset, %width : f32``."""
    mode = enum_value(op.attributes.get("mode"), "gpu", "shuffle_mode") or ""
    kind = {"xor": "bfly"}.get(mode, mode)
    value, offset, width = (c.slot(x) for x in op.operands)
    result, valid = c.slot(op.results[0]), c.slot(op.results[1])

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        w = np.asarray(v[width], np.int64)
        members = np.repeat(active_bits(m, st.lanes.total), WARP)
        clamp = ((WARP - w) << 8) | (0 if kind == "up" else 0x1F)
        v[result], v[valid] = _shuffle(st, m, op, kind, v[value], v[offset], clamp, members)

    return run


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


WARP_COMPILERS = {
    "nvvm.shfl.sync": compile_shfl_sync,
    "gpu.shuffle": compile_gpu_shuffle,
    "nvvm.vote.sync": compile_vote,
    "nvvm.redux.sync": compile_redux,
    "nvvm.elect.sync": compile_elect,
    "gpu.subgroup_reduce": compile_subgroup_reduce,
}
"""Op name -> compiler of its closure."""
