"""The kernel's memories: global arrays (the arguments), shared arrays (one per block of
the chunk) and local arrays (one per lane), each stored flat.

A ``BufferSpec`` is what the compiler knows of one memref: its space, shape, row-major
strides, dtype and, for shared memory, where it starts in the block's shared space (the
bank of a word depends on it). A ``BufferStorage`` holds a chunk's data for it:

* global: the simulator's copy of the argument, the same for every chunk;
* shared: ``blocks * size`` elements, block ``b`` at ``b * size``;
* local: ``lanes * size`` elements, lane ``t`` at ``t * size``.

Each lane's element offset is then ``lane_base + sum(index[d] * stride[d])``, with
``lane_base`` zero for global memory. With the sanitizer on, shared and local storage
keeps a ``written`` flag per element (reads of never-written elements are errors), and
shared storage the race shadow (``sanitizer.py``).

>>> spec = BufferSpec("tile", "shared", (16, 16), np.dtype(np.float32))
>>> spec.strides, spec.size, spec.element_bytes, spec.nbytes
((16, 1), 256, 4, 1024)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tinycomp.targets.gpu_sim.lanes import ChunkLanes

__all__ = ["BufferSpec", "BufferStorage", "row_major_strides"]


def row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a C-contiguous array.

    >>> row_major_strides((4, 8, 2))
    (16, 2, 1)
    """
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


@dataclass
class BufferSpec:
    """One memref the kernel accesses: an argument or an attribution."""

    name: str
    space: str
    """``global``, ``shared`` or ``local``."""
    shape: tuple[int, ...]
    dtype: np.dtype
    base_bytes: int = 0
    """Where a shared array starts in its block's shared memory."""
    index: int = 0
    """Its position in ``ChunkState.buffers``."""

    @property
    def strides(self) -> tuple[int, ...]:
        """Row-major element strides."""
        return row_major_strides(self.shape)

    @property
    def size(self) -> int:
        """Elements."""
        return math.prod(self.shape)

    @property
    def element_bytes(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of one copy (per block for shared, per lane for local)."""
        return self.size * self.element_bytes

    @property
    def sectors(self) -> int:
        """32-byte sectors of one copy."""
        return -(-self.nbytes // 32)


class BufferStorage:
    """A chunk's data for one ``BufferSpec``."""

    def __init__(
        self, spec: BufferSpec, lanes: ChunkLanes, sanitize: bool, data: np.ndarray | None = None
    ) -> None:
        self.spec = spec
        if spec.space == "global":
            assert data is not None
            self.data = data
            self.lane_base: np.ndarray | int = 0
            self.written = None
        else:
            copies = lanes.blocks if spec.space == "shared" else lanes.total
            self.data = np.zeros(copies * spec.size, spec.dtype)
            owner = lanes.block_of_lane if spec.space == "shared" else np.arange(lanes.total)
            self.lane_base = owner * spec.size
            self.written = np.zeros(copies * spec.size, bool) if sanitize else None
        self.fully_written = False
        """Set once every element was written (reads need no check from then on)."""
        self.shadow = None
        """The race shadow (shared memory with the sanitizer on)."""

    def local_offsets(self, flat: np.ndarray) -> np.ndarray:
        """Element offsets within the lane's own copy (flat offsets minus the lane base)."""
        return flat - self.lane_base
