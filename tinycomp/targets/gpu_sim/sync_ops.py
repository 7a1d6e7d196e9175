"""Where a thread is, and the block-wide and warp-wide barriers.

**Ids** (``gpu.thread_id``, ``block_id``, ``block_dim``, ``grid_dim``, ``lane_id``,
``subgroup_id``) cost nothing at run time: they are set once per chunk, as a uniform
int wherever the chunk allows (a block dimension of 1, one block in the chunk, the
dimensions themselves) and as a ``(T,)`` array otherwise.

**``gpu.barrier``** must be reached by every *live* thread of a block (one that has not
returned); a block where some live threads arrive and others do not is *barrier
divergence*, reported with the first thread that did not arrive. A barrier orders all
earlier shared-memory accesses of the block before all later ones, so it clears the
block's race shadow.

**``nvvm.bar.warp.sync %mask``** (``__syncwarp``) needs every lane of the mask; it
orders the accesses of the lanes of one warp (the warp's epoch moves on).

>>> sorted(ID_OPS)
['gpu.block_dim', 'gpu.block_id', 'gpu.grid_dim', 'gpu.lane_id', 'gpu.subgroup_id', 'gpu.thread_id']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.dialects.gpu.enums import enum_value
from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.context import ChunkState, Contribution
from tinycomp.targets.gpu_sim.lanes import ChunkLanes, Mask
from tinycomp.targets.gpu_sim.warp_ops import check_members, member_bits

__all__ = ["ID_OPS", "SYNC_COMPILERS", "id_axis", "id_value"]

OpFn = Callable[[ChunkState, Mask], None]
ID_OPS = frozenset(
    ["gpu.thread_id", "gpu.block_id", "gpu.block_dim", "gpu.grid_dim", "gpu.lane_id",
     "gpu.subgroup_id"]
)  # fmt: skip
AXES = {"x": 0, "y": 1, "z": 2}


def _dimension(op: Operation) -> int:
    text = enum_value(op.attributes.get("dimension"), "gpu", "dim") or "x"
    return AXES[text]


def id_axis(op: Operation) -> int | None:
    """The dimension an id op reads (0, 1, 2), or ``None`` for ``lane_id`` and
    ``subgroup_id``.

    >>> from tinycomp.dialects.gpu.ids import ThreadIdOp
    >>> id_axis(ThreadIdOp.build("y"))
    1
    """
    return None if op.name in ("gpu.lane_id", "gpu.subgroup_id") else _dimension(op)


def id_value(op: Operation, lanes: ChunkLanes, axis: int | None = None) -> Any:
    """The value of an id op in this chunk: a uniform int where it can be (``axis``: its
    dimension, when already read from the op).

    >>> from tinycomp.targets.gpu_sim.launch_config import LaunchConfig
    >>> from tinycomp.dialects.gpu.ids import ThreadIdOp
    >>> lanes = ChunkLanes(LaunchConfig.create(1, (32, 1)), np.arange(1))
    >>> id_value(ThreadIdOp.build("y"), lanes), id_value(ThreadIdOp.build("x"), lanes)[:3].tolist()
    (0, [0, 1, 2])
    """
    config = lanes.config
    name = op.name
    if name == "gpu.lane_id":
        return lanes.lane
    if name == "gpu.subgroup_id":
        return lanes.warp_in_block if config.warps_per_block > 1 else 0
    if axis is None:
        axis = _dimension(op)
    if name == "gpu.block_dim":
        return config.block[axis]
    if name == "gpu.grid_dim":
        return config.grid[axis]
    if name == "gpu.thread_id":
        return lanes.thread[axis] if config.block[axis] > 1 else 0
    coords = lanes.block_xyz[axis]
    if len(coords) == 1 or bool((coords == coords[0]).all()):
        return int(coords[0])
    return lanes.block_coord(axis)


def _barrier_contribution(m: Mask) -> Contribution:
    contribution = m.cache.get("barrier")
    if contribution is None:
        contribution = Contribution([("barriers", (m.lanes_per_block > 0).astype(np.int64))])
        m.cache["barrier"] = contribution
    return contribution


def compile_barrier(c: Any, op: Operation) -> OpFn:
    """``gpu.barrier``."""
    sanitize = c.run.sanitize

    def run(st: ChunkState, m: Mask) -> None:
        lanes = st.lanes
        if m.arr is not None and (sanitize or st.buffers):
            live = lanes.valid if st.exited is None else lanes.valid & ~st.exited
            missing = (live & ~m.arr).reshape(lanes.blocks, -1)
            arrived = m.lanes_per_block
            divergent = missing.any(1) & (arrived > 0)
            if sanitize and divergent.any():
                block = int(np.argmax(divergent))
                lane = block * lanes.lanes_per_block + int(np.argmax(missing[block]))
                live_count = int(live.reshape(lanes.blocks, -1)[block].sum())
                raise st.run.error(
                    "barrier-divergence",
                    op,
                    f"barrier divergence: {int(arrived[block])} of the block's {live_count} "
                    "live threads reached this gpu.barrier, and this thread did not (it is on "
                    "another path and has not returned)",
                    lanes,
                    lane,
                )
            blocks = arrived > 0
        else:
            blocks = None
        st.tally(_barrier_contribution(m))
        for storage in st.buffers:
            if storage.shadow is not None:
                storage.shadow.clear(blocks)

    return run


def compile_warp_sync(c: Any, op: Operation) -> OpFn:
    """``nvvm.bar.warp.sync %mask : i32``."""
    mask = c.slot(op.operands[0])

    def run(st: ChunkState, m: Mask) -> None:
        members = member_bits(st.v[mask], m, st.lanes.total)
        check_members(st, m, op, members)
        st.warp_epoch = st.warp_epoch + m.warp_any  # a new array: deferred reads keep theirs
        contribution = m.cache.get("warp_sync")
        if contribution is None:
            contribution = Contribution([("warp_syncs", m.warps_per_block)])
            m.cache["warp_sync"] = contribution
        st.tally(contribution)

    return run


SYNC_COMPILERS = {"gpu.barrier": compile_barrier, "nvvm.bar.warp.sync": compile_warp_sync}
"""Op name -> compiler of its closure."""
