"""The lanes of one chunk of blocks, and active masks with their statistics.

A chunk of ``B`` blocks has ``T = B * lanes_per_block`` lanes, block after block, warp
after warp. ``ChunkLanes`` holds what each lane knows of itself (thread and block
coordinates, warp, lane) as ``(T,)`` arrays; a per-lane value is any ``(T,)`` (or
``(T, n)`` for a vector) array over those lanes.

A ``Mask`` says which lanes execute: ``arr`` is a ``(T,)`` bool array, or ``None`` when
every lane of the chunk runs (the fast path: nothing to merge). Its statistics (active
warps and lanes per block, which warps are active at all) are computed once, when first
asked, since the counters need them for every region the mask runs.

>>> from tinycomp.targets.gpu_sim.launch_config import LaunchConfig
>>> lanes = ChunkLanes(LaunchConfig.create(2, 48), np.array([0, 1]))
>>> lanes.total, lanes.full_mask.arr is None
(128, False)
>>> lanes.full_mask.warps_per_block.tolist(), lanes.full_mask.lanes_per_block.tolist()
([2, 2], [48, 48])
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tinycomp.targets.gpu_sim.errors import thread_text
from tinycomp.targets.gpu_sim.launch_config import LaunchConfig

__all__ = ["ChunkLanes", "Mask"]

WARP = 32


class Mask:
    """The lanes that execute (``arr``, or ``None``: all), with cached statistics."""

    __slots__ = ("_any", "_lanes", "_warp_any", "_warps", "arr", "cache", "chunk")

    def __init__(self, arr: np.ndarray | None, chunk: ChunkLanes) -> None:
        self.arr = arr
        self.chunk = chunk
        self.cache: dict[Any, Any] = {}
        self._warp_any: np.ndarray | None = None
        self._warps: np.ndarray | None = None
        self._lanes: np.ndarray | None = None
        self._any: bool | None = None

    @property
    def warp_any(self) -> np.ndarray:
        """Which warps have an active lane, ``(W,)`` bool."""
        if self._warp_any is None:
            if self.arr is None:
                self._warp_any = np.ones(self.chunk.warps, bool)
            else:
                self._warp_any = self.arr.reshape(-1, WARP).any(1)
        return self._warp_any

    @property
    def warps_per_block(self) -> np.ndarray:
        """Warps with an active lane, per block, ``(B,)`` int64."""
        if self._warps is None:
            per_block = self.chunk.warps_per_block
            self._warps = self.warp_any.reshape(-1, per_block).sum(1, dtype=np.int64)
        return self._warps

    @property
    def lanes_per_block(self) -> np.ndarray:
        """Active lanes per block, ``(B,)`` int64."""
        if self._lanes is None:
            arr = self.arr
            if arr is None:
                self._lanes = np.full(self.chunk.blocks, self.chunk.lanes_per_block, np.int64)
            else:
                self._lanes = arr.reshape(self.chunk.blocks, -1).sum(1, dtype=np.int64)
        return self._lanes

    @property
    def any(self) -> bool:
        """Whether any lane is active."""
        if self._any is None:
            self._any = self.arr is None or bool(self.arr.any())
        return self._any

    def bool_array(self) -> np.ndarray:
        """The mask as a ``(T,)`` bool array (all True when ``arr`` is ``None``)."""
        return np.ones(self.chunk.total, bool) if self.arr is None else self.arr

    def restrict(self, condition: np.ndarray) -> Mask:
        """The lanes of this mask where ``condition`` holds (this very mask, with its
        cached statistics, when that is all of them)."""
        if self.arr is None:
            return self if condition.all() else Mask(condition, self.chunk)
        narrowed = self.arr & condition
        return self if np.array_equal(narrowed, self.arr) else Mask(narrowed, self.chunk)

    def without(self, condition: np.ndarray) -> Mask:
        """The lanes of this mask where ``condition`` does not hold."""
        return self.restrict(~condition)


@functools.lru_cache(maxsize=16)
def _layout(config: LaunchConfig, blocks: int) -> dict[str, Any]:
    """The lane arrays that depend only on the block shape and the block count
    (shared by every chunk of that size; read-only)."""
    per_block = config.lanes_per_block
    lane_in_block = np.tile(np.arange(per_block, dtype=np.int64), blocks)
    bx, by, _ = config.block
    valid_thread = np.minimum(lane_in_block, config.threads_per_block - 1)
    arrays = {
        "thread_linear": lane_in_block,
        "block_of_lane": np.repeat(np.arange(blocks, dtype=np.int64), per_block),
        "lane": lane_in_block % WARP,
        "warp_in_block": lane_in_block // WARP,
        "warp_of_lane": np.arange(blocks * per_block, dtype=np.int64) // WARP,
        "valid": lane_in_block < config.threads_per_block,
        "thread_x": valid_thread % bx,
        "thread_y": (valid_thread // bx) % by,
        "thread_z": valid_thread // (bx * by),
    }
    for array in arrays.values():
        array.flags.writeable = False
    return arrays


class ChunkLanes:
    """What each lane of a chunk of blocks knows of itself."""

    def __init__(self, config: LaunchConfig, block_ids: np.ndarray) -> None:
        self.config = config
        self.block_ids = block_ids
        self.blocks = len(block_ids)
        self.lanes_per_block = config.lanes_per_block
        self.warps_per_block = config.warps_per_block
        self.threads_per_block = config.threads_per_block
        self.total = self.blocks * self.lanes_per_block
        self.warps = self.blocks * self.warps_per_block
        layout = _layout(config, self.blocks)
        self.thread_linear: np.ndarray = layout["thread_linear"]
        self.block_of_lane: np.ndarray = layout["block_of_lane"]
        self.lane: np.ndarray = layout["lane"]
        self.warp_in_block: np.ndarray = layout["warp_in_block"]
        self.warp_of_lane: np.ndarray = layout["warp_of_lane"]
        self.valid: np.ndarray = layout["valid"]
        self.thread = (layout["thread_x"], layout["thread_y"], layout["thread_z"])
        self.block_xyz = config.block_coordinates(block_ids)
        self._block_coord: dict[int, np.ndarray] = {}
        padded = config.threads_per_block != self.lanes_per_block
        self.full_mask = Mask(self.valid if padded else None, self)

    def block_coord(self, axis: int) -> np.ndarray:
        """One coordinate (0: x, 1: y, 2: z) of each lane's block, ``(T,)``."""
        found = self._block_coord.get(axis)
        if found is None:
            found = np.repeat(self.block_xyz[axis], self.lanes_per_block)
            self._block_coord[axis] = found
        return found

    def describe(self, lane_index: int) -> str:
        """``block (1, 0, 0), warp 2, lane 5 (thread (69, 0, 0))`` for one lane of the chunk."""
        block = tuple(int(c[lane_index // self.lanes_per_block]) for c in self.block_xyz)
        thread = tuple(int(c[lane_index]) for c in self.thread)
        return thread_text(
            block, int(self.warp_in_block[lane_index]), int(self.lane[lane_index]), thread
        )

    def thread_of(self, lane_index: int) -> tuple[int, int, int]:
        """The ``(x, y, z)`` thread index of one lane."""
        x, y, z = (int(c[lane_index]) for c in self.thread)
        return x, y, z
