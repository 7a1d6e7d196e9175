"""The checks compute-sanitizer makes, on whole chunks of lanes at once: bounds
(memcheck), reads of never-written shared and local memory (initcheck), and races on
shared memory (racecheck).

Every check looks at the active lanes only and reports the first offending one (the
lowest block, warp and lane), with the index it used and the array's shape.

**Races.** A ``RaceShadow`` keeps, per shared element since the last ``gpu.barrier``,
the thread that last wrote it and up to two threads that read it, with the line of the
access and the warp's ``syncwarp`` epoch at the time. An access by thread ``t`` races
with an earlier one by thread ``o`` unless they are the same thread, or lanes of one
warp that are ordered: always without independent thread scheduling (lanes run in
lockstep), and with it only if the warp passed a ``syncwarp`` in between. Reads never
race with reads; two lanes of one store writing one element race with each other.
A barrier clears the shadow.

>>> from tinycomp.targets.gpu_sim.launch_config import LaunchConfig
>>> from tinycomp.targets.gpu_sim.lanes import ChunkLanes
>>> lanes = ChunkLanes(LaunchConfig.create(1, 64), np.arange(1))
>>> shadow = RaceShadow(64, lanes)
>>> words = lanes.thread_linear % 32          # warps 0 and 1 touch the same 32 words
>>> shadow.first_conflict(words, None, write=True, epoch=np.zeros(2, np.int64), its=True)
(32, 0, 'write', 0)
"""

from __future__ import annotations

import numpy as np

from tinycomp.targets.gpu_sim.errors import format_index, format_shape
from tinycomp.targets.gpu_sim.lanes import ChunkLanes

__all__ = ["RaceShadow", "first_lane", "out_of_bounds", "unravel"]

WARP = 32
SPACE_NAMES = {"global": "__global__", "shared": "__shared__", "local": "__local__"}


def first_lane(bad: np.ndarray) -> int | None:
    """The lowest lane where ``bad`` holds, or ``None``.

    >>> first_lane(np.array([False, True, True])), first_lane(np.zeros(2, bool))
    (1, None)
    """
    lane = int(np.argmax(bad))
    return lane if bad[lane] else None


def unravel(offset: int, shape: tuple[int, ...]) -> list[int]:
    """The index of a row-major element offset.

    >>> unravel(37, (4, 16))
    [2, 5]
    """
    return [int(i) for i in np.unravel_index(int(offset), shape)] if shape else []


def lane_index(indices: list[object], lane: int) -> list[int]:
    """The index one lane used (uniform entries are plain ints)."""
    return [int(i[lane]) if isinstance(i, np.ndarray) else int(i) for i in indices]  # type: ignore[arg-type, index, call-overload]


def out_of_bounds(
    indices: list[object], shape: tuple[int, ...], arr: np.ndarray | None, total: int
) -> tuple[int, int] | None:
    """``(lane, dimension)`` of the first active lane whose index is outside ``shape``.

    >>> out_of_bounds([np.array([1, 5]), 2], (4, 3), None, 2)
    (1, 0)
    """
    bad_lanes: np.ndarray | None = None
    first_dim: dict[int, int] = {}
    for dim, (index, size) in enumerate(zip(indices, shape, strict=True)):
        if isinstance(index, np.ndarray):
            if index.min() >= 0 and index.max() < size:
                continue
            bad = (index < 0) | (index >= size)
        elif 0 <= int(index) < size:  # type: ignore[call-overload]
            continue
        else:
            bad = np.ones(total, bool)
        if arr is not None:
            bad = bad & arr
        lane = first_lane(bad)
        if lane is not None:
            first_dim.setdefault(lane, dim)
            bad_lanes = bad if bad_lanes is None else bad_lanes | bad
    if bad_lanes is None:
        return None
    lane = first_lane(bad_lanes)
    if lane is None:
        return None
    dims = [d for d, index in enumerate(indices) if not _inside(index, lane, shape[d])]
    return lane, dims[0]


def _inside(index: object, lane: int, size: int) -> bool:
    value = int(index[lane]) if isinstance(index, np.ndarray) else int(index)  # type: ignore[call-overload]
    return 0 <= value < size


def bounds_message(
    space: str, access: str, nbytes: int, name: str, index: list[int], dim: int,
    shape: tuple[int, ...],
) -> str:  # fmt: skip
    """``Invalid __global__ read of size 4 bytes at A[5, 17]: ...``.

    >>> bounds_message("shared", "write", 4, "tile", [5, 17], 1, (16, 16))  # doctest: +ELLIPSIS
    'Invalid __shared__ write of size 4 bytes at tile[5, 17]: index 17 of dimension 1 is outside...'
    """
    return (
        f"Invalid {SPACE_NAMES[space]} {access} of size {nbytes} bytes at {name}"
        f"{format_index(index)}: index {index[dim]} of dimension {dim} is outside the shape "
        f"{format_shape(shape)}"
    )


class RaceShadow:
    """Who touched each shared element since the last barrier (per block of a chunk)."""

    def __init__(self, elements: int, lanes: ChunkLanes) -> None:
        self.lanes = lanes
        self.writer = np.full(elements, -1, np.int32)
        self.writer_epoch = np.zeros(elements, np.int32)
        self.writer_line = np.zeros(elements, np.int32)
        self.reader = np.full((2, elements), -1, np.int32)
        self.reader_epoch = np.zeros((2, elements), np.int32)
        self.reader_line = np.zeros((2, elements), np.int32)
        self.dirty = False
        """Whether any write happened since the shadow was last cleared."""
        self.has_readers = False
        """Whether any read was recorded since the shadow was last cleared."""
        self.scratch = np.zeros(elements, np.int64)
        self.pending: list[tuple[np.ndarray, int, np.ndarray | None, np.ndarray, int]] = []
        """Reads not yet recorded: while nothing was written they cannot race, and
        recording them is only needed once a write comes."""

    def clear(self, blocks: np.ndarray | None = None) -> None:
        """Forget every access of these blocks (all, for ``None``): a barrier orders them."""
        if blocks is None or bool(blocks.all()):
            self.pending.clear()
            self.dirty = self.has_readers = False
            self.writer.fill(-1)
            self.reader.fill(-1)
            return
        self._record_pending()
        self.writer.reshape(self.lanes.blocks, -1)[blocks] = -1
        self.reader.reshape(2, self.lanes.blocks, -1)[:, blocks] = -1

    def _record_pending(self) -> None:
        for offsets, shift, arr, epoch, line in self.pending:
            self._check_and_record(offsets + shift, arr, False, epoch, True, line)
        self.pending.clear()

    def _conflict(
        self, others: np.ndarray, epochs: np.ndarray, threads: np.ndarray, warps: np.ndarray,
        epoch: np.ndarray, its: bool,
    ) -> np.ndarray:  # fmt: skip
        same_warp = (others // WARP) == (threads // WARP)
        ordered = same_warp & (epoch[warps] > epochs) if its else same_warp
        return (others >= 0) & (others != threads) & ~ordered

    def first_conflict(
        self, words: np.ndarray, arr: np.ndarray | None, write: bool, epoch: np.ndarray,
        its: bool, line: int = 0,
    ) -> tuple[int, int, str, int] | None:  # fmt: skip
        """Check one access of element ``words`` (per lane) and record it. A race gives
        ``(lane, other thread in the block, the other access ('read'/'write'), its line)``."""
        if not write and not self.dirty:
            self.pending.append((words, 0, arr, epoch, line))
            return None
        was_dirty = self.dirty
        if write:
            self._record_pending()
            self.dirty = True
        return self._check_and_record(words, arr, write, epoch, its, line, was_dirty)

    def _check_and_record(
        self, words: np.ndarray, arr: np.ndarray | None, write: bool, epoch: np.ndarray,
        its: bool, line: int, check_writer: bool = True,
    ) -> tuple[int, int, str, int] | None:  # fmt: skip
        lanes = self.lanes
        threads, warps = lanes.thread_linear, lanes.warp_of_lane
        if arr is not None:
            words, threads, warps = words[arr], threads[arr], warps[arr]
        lane_ids = np.arange(lanes.total)[arr] if arr is not None else np.arange(lanes.total)
        found: list[tuple[int, int, str, int]] = []
        checks = (
            [(self.writer, self.writer_epoch, self.writer_line, "write")] if check_writer else []
        )
        if write and self.has_readers:
            checks += [
                (self.reader[k], self.reader_epoch[k], self.reader_line[k], "read") for k in (0, 1)
            ]
        for owners, epochs, lines, what in checks:
            bad = self._conflict(owners[words], epochs[words], threads, warps, epoch, its)
            hit = first_lane(bad)
            if hit is not None:
                word = words[hit]
                found.append((int(lane_ids[hit]), int(owners[word]), what, int(lines[word])))
        if write and len(words) > 1 and not bool((words[1:] > words[:-1]).all()):
            positions = np.arange(len(words))
            self.scratch[words] = positions  # of lanes writing one word, one wins
            winner = self.scratch[words]
            hit = first_lane(winner != positions)
            if hit is not None:  # lane ``hit`` and lane ``winner[hit]`` wrote one word
                second = int(winner[hit])
                found.append((int(lane_ids[second]), int(threads[hit]), "write", line))
        if found:
            return min(found)
        now = epoch[warps]
        if write:
            self.writer[words], self.writer_epoch[words], self.writer_line[words] = (
                threads,
                now,
                line,
            )
        else:
            self.has_readers = True
            previous = self.reader[0, words]
            moved = (previous >= 0) & (previous != threads)
            self.reader[1, words[moved]] = previous[moved]
            self.reader_epoch[1, words[moved]] = self.reader_epoch[0, words[moved]]
            self.reader_line[1, words[moved]] = self.reader_line[0, words[moved]]
            self.reader[0, words], self.reader_epoch[0, words] = threads, now
            self.reader_line[0, words] = line
            lost = self.reader[0, words] != threads
            self.reader[1, words[lost]] = threads[lost]
            self.reader_epoch[1, words[lost]] = now[lost]
            self.reader_line[1, words[lost]] = line
        return None
