"""Warp shuffles with PTX semantics, ``nvvm.shfl.sync`` and ``gpu.shuffle``, on the
``(warps, 32)`` view of the lanes, and the member-mask checks every warp op shares
(votes and reductions are in ``warp_votes.py``).

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
    found = (
        np.arange(warps * WARP) - np.tile(np.arange(WARP), warps) + j,
        np.tile(valid32, warps),
        j,
    )
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
        w = v[width]
        w = w.astype(np.int64) if type(w) is np.ndarray else int(w)
        members = np.repeat(active_bits(m, st.lanes.total), WARP)
        clamp = ((WARP - w) << 8) | (0 if kind == "up" else 0x1F)
        v[result], v[valid] = _shuffle(st, m, op, kind, v[value], v[offset], clamp, members)

    return run


WARP_COMPILERS = {"nvvm.shfl.sync": compile_shfl_sync, "gpu.shuffle": compile_gpu_shuffle}
"""Op name -> compiler of its closure."""
