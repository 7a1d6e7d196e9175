"""Which 32-byte sectors of each global array each block touched, recorded cheaply.

An access's element offsets split into a per-lane part ``V`` (an array that is often
the very same object access after access, as in a loop over ``k`` reading
``A[row, k]``) and a uniform part ``u`` (a Python int). ``record`` only adds ``u`` to
the set kept for ``(V, mask)``; ``finish`` expands each record once: the distinct
``(block, V)`` pairs plus every ``u``, as sectors, deduplicated per block.

>>> from tinycomp.targets.gpu_sim.launch_config import LaunchConfig
>>> from tinycomp.targets.gpu_sim.lanes import ChunkLanes
>>> from tinycomp.targets.gpu_sim.memory import BufferSpec
>>> lanes = ChunkLanes(LaunchConfig.create(2, 32), np.arange(2))
>>> spec = BufferSpec("a", "global", (64,), np.dtype(np.float32))
>>> tracker = FootprintTracker(lanes)
>>> base = lanes.thread_linear % 8   # every block reads a[0:8] and a[u:u+8]
>>> tracker.record(spec, base, None, 0, 4); tracker.record(spec, base, None, 32, 4)
>>> per_block, sectors = tracker.finish()
>>> per_block.tolist(), {name: int(s.sum()) for name, s in sectors.items()}
([2, 2], {'a': 2})
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.targets.gpu_sim.lanes import ChunkLanes
from tinycomp.targets.gpu_sim.memory import BufferSpec

__all__ = ["FootprintTracker", "sorted_unique"]

PENDING_LIMIT = 1 << 22
"""Recorded per-lane elements kept before they are expanded (bounds the memory held)."""


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (no sort when they already are, as for most access
    patterns).

    >>> sorted_unique(np.array([1, 1, 2, 5])).tolist(), sorted_unique(np.array([3, 1, 3])).tolist()
    ([1, 2, 5], [1, 3])
    """
    if len(values) > 1 and not bool((values[1:] >= values[:-1]).all()):
        values = np.sort(values)
    if len(values) < 2:
        return values
    keep = np.empty(len(values), bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _runs(shifts: tuple[int, ...]) -> np.ndarray:
    """Sorted shifts as ``(first, last)`` rows of consecutive integers.

    >>> _runs((0, 1, 2, 5, 6)).tolist()
    [[0, 2], [5, 6]]
    """
    values = np.array(shifts, np.int64)
    breaks = np.flatnonzero(np.diff(values) != 1)
    firsts = values[np.concatenate([[0], breaks + 1])]
    lasts = values[np.concatenate([breaks, [len(values) - 1]])]
    return np.stack([firsts, lasts], axis=1)


class FootprintTracker:
    """Sectors touched per block and per global array, for one chunk."""

    def __init__(self, lanes: ChunkLanes) -> None:
        self.lanes = lanes
        self.records: dict[tuple[int, int, int, int], list[Any]] = {}
        self.pending = 0
        self.generation = 0
        """Moves on whenever the records are expanded (sets handed out are then stale)."""
        self.keys: dict[str, list[np.ndarray]] = {}
        self.specs: dict[str, BufferSpec] = {}
        self.memo: Any = None
        """The kept program's ``PatternMemo``, if any (sector keys found again)."""
        self.merged = False
        """Whether some sector keys were merged (they are then not the memo's arrays)."""

    def uniforms(
        self, spec: BufferSpec, offsets: np.ndarray, arr: np.ndarray | None, nbytes: int
    ) -> set[int]:
        """The set of uniform parts recorded for ``(offsets, arr)``: add to it directly
        (valid while ``generation`` stays the same)."""
        key = (spec.index, id(offsets), id(arr), nbytes)
        entry = self.records.get(key)
        if entry is None:
            entry = self.records[key] = [spec, offsets, arr, set(), nbytes]
            self.pending += len(offsets)
            if self.pending > PENDING_LIMIT:
                self._expand()
                entry = self.records[key] = [spec, offsets, arr, set(), nbytes]
        return entry[3]

    def record(
        self, spec: BufferSpec, offsets: np.ndarray, arr: np.ndarray | None, uniform: int,
        nbytes: int,
    ) -> None:  # fmt: skip
        """Lanes of ``arr`` accessed ``nbytes`` at element ``offsets + uniform``."""
        key = (spec.index, id(offsets), id(arr), nbytes)
        entry = self.records.get(key)
        if entry is None:
            self.records[key] = [spec, offsets, arr, {uniform}, nbytes]
            self.pending += len(offsets)
            if self.pending > PENDING_LIMIT:
                self._expand()
        else:
            entry[3].add(uniform)

    def _sector_keys(
        self, spec: BufferSpec, offsets: np.ndarray, arr: np.ndarray | None,
        shifts: tuple[int, ...], nbytes: int,
    ) -> np.ndarray:  # fmt: skip
        """``block * sectors + sector`` of one record (in any order, with repeats)."""
        block = self.lanes.block_of_lane
        size = spec.size
        values, owner = (offsets, block) if arr is None else (offsets[arr], block[arr])
        eb = spec.element_bytes
        if shifts != (0,) and nbytes == eb and all(s * eb % 32 == 0 for s in shifts):
            # whole-sector shifts: shift the distinct sectors instead of every element
            base = sorted_unique(owner * spec.sectors + ((values * eb) >> 5))
            steps = np.array([s * eb // 32 for s in shifts], np.int64)
            return (steps[:, None] + base).reshape(-1)
        if shifts != (0,):
            pairs = sorted_unique(owner * size + values)
            runs = _runs(shifts)
            if len(runs) * 4 <= len(shifts):  # consecutive shifts: one interval per run
                return self._interval_keys(spec, pairs, runs, nbytes)
            owner = pairs // size
            values = ((pairs - owner * size)[:, None] + np.array(shifts, np.int64)).reshape(-1)
            owner = np.repeat(owner, len(shifts))
        byte = values * spec.element_bytes if spec.element_bytes != 1 else values
        base = owner * spec.sectors
        keys = base + (byte >> 5)
        if nbytes > spec.element_bytes:
            keys = np.concatenate([keys, base + ((byte + nbytes - 1) >> 5)])
        if len(keys) > 1 and bool((keys[1:] >= keys[:-1]).all()):
            return sorted_unique(keys)  # already in order: dropping repeats is cheap
        return keys

    def _kept_keys(
        self, spec: BufferSpec, offsets: np.ndarray, arr: np.ndarray | None,
        shifts: tuple[int, ...], nbytes: int,
    ) -> np.ndarray:  # fmt: skip
        """``_sector_keys``, found in ``memo`` (an earlier launch's equal record) when
        there is one."""
        if self.memo is None:
            return self._sector_keys(spec, offsets, arr, shifts, nbytes)
        lanes = self.lanes
        key = ("footprint", spec.size, spec.element_bytes, nbytes, shifts, lanes.blocks,
               lanes.lanes_per_block)  # fmt: skip
        keys = self.memo.find(key, (offsets, arr))
        if keys is None:
            keys = self._sector_keys(spec, offsets, arr, shifts, nbytes)
            self.memo.keep(key, (offsets, arr), keys)
        return keys

    def _interval_keys(
        self, spec: BufferSpec, pairs: np.ndarray, runs: np.ndarray, nbytes: int
    ) -> np.ndarray:
        """The sectors of ``block * size + value`` pairs each shifted by every element of
        the runs ``[first, last]``: per pair and run, the interval of sectors between the
        first byte of the first shift and the last byte of the last."""
        size, eb = spec.size, spec.element_bytes
        owner = pairs // size
        values = pairs - owner * size
        lo = ((values[:, None] + runs[:, 0]) * eb) >> 5
        hi = ((values[:, None] + runs[:, 1]) * eb + (nbytes - 1)) >> 5
        base = (owner * spec.sectors)[:, None]
        starts, lengths = (base + lo).reshape(-1), (hi - lo + 1).reshape(-1)
        ends = np.cumsum(lengths)
        return np.repeat(starts - (ends - lengths), lengths) + np.arange(int(ends[-1]))

    def _expand(self) -> None:
        memo: dict[tuple[Any, ...], np.ndarray] = {}
        for spec, offsets, arr, uniforms, nbytes in self.records.values():
            shifts = tuple(sorted(uniforms))
            key = (id(offsets), id(arr), shifts, spec.size, spec.element_bytes, nbytes)
            keys = memo.get(key)
            if keys is None:
                keys = memo[key] = self._kept_keys(spec, offsets, arr, shifts, nbytes)
            parts = self.keys.setdefault(spec.name, [])
            parts.append(keys)
            if len(parts) > 64:
                parts[:] = [sorted_unique(np.concatenate(parts))]
                self.merged = True
            self.specs[spec.name] = spec
        self.records.clear()
        self.pending = 0
        self.generation += 1

    def finish(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Distinct sectors per block (all arrays together), and per array a bool per
        sector: touched by some block of the chunk."""
        self._expand()
        if self.memo is None or self.merged:
            return self._count()
        # every part is an array the memo holds: their identities name the result
        parts = [
            (name, self.specs[name].sectors, tuple(id(p) for p in found))
            for name, found in self.keys.items()
        ]
        key = ("finish", self.lanes.blocks, tuple(parts))
        held = tuple(p for found in self.keys.values() for p in found)
        kept = self.memo.find(key, ())
        if kept is None:
            kept = (held, *self._count())
            self.memo.keep(key, (), kept)
        self.keys.clear()
        _, per_block, touched = kept
        return per_block.copy(), {name: hit.copy() for name, hit in touched.items()}

    def _count(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        blocks = self.lanes.blocks
        per_block = np.zeros(blocks, np.int64)
        touched: dict[str, np.ndarray] = {}
        for name, parts in self.keys.items():
            sectors = self.specs[name].sectors
            found = sum(len(part) for part in parts)
            if blocks * sectors <= 4 * found:  # dense: a bitmap is cheaper than a sort
                bitmap = np.zeros(blocks * sectors, bool)
                for part in parts:
                    bitmap[part] = True
                rows = bitmap.reshape(blocks, sectors)
                per_block += rows.view(np.uint8).sum(1, dtype=np.int64)
                touched[name] = rows.any(0)
                continue
            keys = sorted_unique(np.concatenate(parts) if len(parts) > 1 else parts[0])
            per_block += np.bincount(keys // sectors, minlength=blocks)
            hit = np.zeros(sectors, bool)
            hit[keys % sectors] = True
            touched[name] = hit
        self.keys.clear()
        return per_block, touched
