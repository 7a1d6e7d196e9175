"""One memory instruction's plan: the element offsets its lanes use, the sanitizer's
checks, and its counters, each made as cheap as the access pattern allows.

1. *Offsets.* ``offset = lane_base + sum(index[d] * stride[d])`` splits into a per-lane
   part ``V`` (the indices that are arrays, plus the lane base of shared and local
   memory) and a uniform part ``u`` (the indices that are plain ints). ``V`` is cached:
   when the same index arrays come again (a loop reading ``A[row, k]`` over ``k``), no
   arithmetic is redone.
2. *Bounds.* Index arrays found entirely in bounds are remembered; uniform indices are
   compared in Python. Only an access that may be out of bounds looks at its mask, and
   then reports the first active lane outside.
3. *Counters.* Sectors or wavefronts depend on ``V``, the mask, and ``u`` modulo a
   period (an address shift by 32 bytes moves every lane by one sector, a shift by 128
   bytes every lane by one bank round), so they are computed once per such key and then
   tallied.
4. *Footprint.* Global accesses record ``(V, mask, u)`` for ``footprint.py``.

The plan remembers the pattern of its last execution: when the next one comes with the
same index arrays and mask (every iteration of a uniform loop), steps 1-4 cost a few
Python operations and no numpy call.

>>> AccessPlan.period("global", 4), AccessPlan.period("shared", 4)
(8, 32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.accounting import atomic_conflicts, global_sectors, shared_wavefronts
from tinycomp.targets.gpu_sim.context import ChunkState, Contribution, RunContext
from tinycomp.targets.gpu_sim.lanes import Mask
from tinycomp.targets.gpu_sim.memory import BufferSpec
from tinycomp.targets.gpu_sim.sanitizer import bounds_message, lane_index, out_of_bounds, unravel

__all__ = ["AccessPlan"]


class AccessPlan:
    """How one load, store or atomic op reaches its buffer."""

    def __init__(
        self, op: Operation, spec: BufferSpec, index_slots: list[int], access: str,
        vector_width: int, run: RunContext,
    ) -> None:  # fmt: skip
        self.op = op
        self.spec = spec
        self.index_slots = index_slots
        self.strides = spec.strides
        self.access = access
        self.width = vector_width
        self.nbytes = spec.element_bytes * vector_width
        self.run = run
        self.sanitize = run.sanitize
        limits = list(spec.shape)
        if vector_width > 1:
            limits[-1] = spec.shape[-1] - vector_width + 1
        self.limits = tuple(limits)
        self.dims = tuple(zip(index_slots, self.strides, limits, strict=True))
        self.offsets_key = ("V", spec.index if spec.space != "global" else -1)
        self.last: list[Any] | None = None
        """The last execution's chunk, mask, index array ids, ``V``, contributions by
        residue, footprint set, footprint generation, whether the index arrays are in
        bounds, the index arrays, the period of ``u`` and whether it was refined."""
        self.period_elements = self.period(spec.space, spec.element_bytes) or 1 << 62
        self.line = op.location.line if op.location is not None else 0
        self.in_registers = False
        """A private access ptxas keeps in registers (static indices): no local bytes."""

    @staticmethod
    def period(space: str, element_bytes: int) -> int:
        """The shift of ``u`` (in elements) that leaves the counters unchanged."""
        span = 32 if space == "global" else 128
        return max(1, span // element_bytes) if span % element_bytes == 0 else 0

    def locate(self, st: ChunkState, m: Mask) -> tuple[np.ndarray, int]:
        """``(V, u)`` for this execution, bounds checked and counted (steps 1 to 4).

        The pattern of the last execution is kept: when the same index arrays come
        again under the same mask (a uniform loop), only ``u`` is new, and the counters
        of its residue are tallied without building any key."""
        v = st.v
        u = 0
        inside = True
        ids = []
        for slot, stride, limit in self.dims:
            x = v[slot]
            if type(x) is np.ndarray:
                ids.append(id(x))
            else:
                u += x * stride
                if not 0 <= x < limit:
                    inside = False
        last = self.last
        footprint = st.footprint
        if (
            last is None or last[0] is not st or last[1] is not m or ids != last[2]
            or last[6] != footprint.generation
        ):  # fmt: skip
            V, in_bounds, arrays = self._offsets_entry(st)
            uniforms = None
            if self.spec.space == "global":
                uniforms = footprint.uniforms(self.spec, V, m.arr, self.nbytes)
            period = self.period_elements
            last = [st, m, ids, V, {}, uniforms, footprint.generation, in_bounds, arrays, period, 0]
            self.last = last
        if self.sanitize and not (inside and last[7]):
            self.check_bounds(st, m, [v[slot] for slot in self.index_slots])
        u = int(u)
        V, by_residue, uniforms = last[3], last[4], last[5]
        residue = u % last[9]
        contribution = by_residue.get(residue)
        if contribution is None:
            if by_residue and not last[10]:  # a second residue: look at the offsets closer
                last[9], last[10] = self._period_of(st, V), 1
                residue = u % last[9]
                contribution = by_residue.get(residue)
            if contribution is None:
                contribution = self._counted(st, m, V, u, (id(V), residue), last[9])
                by_residue[residue] = contribution
        if contribution.count == 0:
            st.tallied.append(contribution)
        contribution.count += 1
        if uniforms is not None:
            uniforms.add(u)
        return V, u

    def _counted(
        self, st: ChunkState, m: Mask, V: np.ndarray, u: int, pattern: tuple[int, int],
        period: int,
    ) -> Contribution:  # fmt: skip
        """The counters of ``V + u`` under ``m``: kept from an earlier launch with equal
        offsets and mask (``st.memo``), or counted now."""
        memo = st.memo
        if memo is None:
            return self._contribution(st, m, V + u, pattern)
        lanes = st.lanes
        key = (self, pattern[1], period, lanes.blocks, lanes.lanes_per_block)
        arrays = (V, m.arr)
        items = memo.find(key, arrays)
        if items is None:
            items = self._contribution(st, m, V + u, pattern).items
            memo.keep(key, arrays, items)
        return Contribution(items)

    def _period_of(self, st: ChunkState, V: np.ndarray) -> int:
        """The period of ``u`` for these offsets: 1 when every lane's address is the same
        modulo the span (32 B sectors, 128 B of banks), since then every shift moves all
        lanes alike; else ``period_elements``."""
        spec = self.spec
        if self.width > 1 or spec.space == "local" or self.period_elements > 1 << 40:
            return self.period_elements
        span = 32 if spec.space == "global" else 128
        local = st.buffers[spec.index].local_offsets(V) * spec.element_bytes % span
        return 1 if bool((local == local[0]).all()) else self.period_elements

    def _offsets_entry(self, st: ChunkState) -> tuple[Any, ...]:
        """``(V, whether the index arrays are all in bounds, the index arrays)``, cached
        per chunk by the index arrays' identities."""
        v = st.v
        key = self.offsets_key
        for slot, stride, _ in self.dims:
            x = v[slot]
            if type(x) is np.ndarray:
                key += (id(x), stride)
        entry = st.cache.get(key)
        return entry if entry is not None else self._new_offsets(st, key)

    def _new_offsets(self, st: ChunkState, key: tuple[Any, ...]) -> tuple[Any, ...]:
        v = st.v
        base = st.buffers[self.spec.index].lane_base
        total: Any = base if type(base) is np.ndarray else st.zeros
        inside = True
        indices = []
        for slot, stride, limit in self.dims:
            x = v[slot]
            if type(x) is np.ndarray:
                indices.append(x)
                total = total + (x if stride == 1 else x * stride)
                inside = inside and bool(x.min() >= 0) and bool(x.max() < limit)
        return st.remember(key, (total, inside, indices))

    def check_bounds(self, st: ChunkState, m: Mask, indices: list[Any]) -> None:
        """A ``SanitizerError`` naming the first active lane out of bounds."""
        found = out_of_bounds(indices, self.limits, m.arr, st.lanes.total)
        if found is None:
            return
        lane, dim = found
        at = lane_index(indices, lane)
        shape = self.spec.shape
        message = bounds_message(
            self.spec.space, self.access, self.nbytes, self.spec.name, at, dim, shape
        )
        if self.width > 1:
            message += f" (a vector of {self.width} elements from index {at[-1]})"
        raise self.run.error("out-of-bounds", self.op, message, st.lanes, lane)

    def _contribution(
        self, st: ChunkState, m: Mask, flat: np.ndarray, pattern: tuple[int, int]
    ) -> Contribution:
        spec, lanes, arr = self.spec, st.lanes, m.arr
        space = spec.space
        if space == "local":
            if self.in_registers:
                return Contribution([])
            active = m.lanes_per_block
            name = "local_load_bytes" if self.access == "read" else "local_store_bytes"
            return Contribution([(name, active * self.nbytes)])
        if self.access == "atomic":
            requests, conflicts = atomic_conflicts(flat, arr, lanes)
            items: list[tuple[str, Any]] = [("atomic_conflicts", conflicts)]
            local = st.buffers[spec.index].local_offsets(flat)
            byte = spec.base_bytes + local * spec.element_bytes
            if space == "global":
                _, sectors, _ = global_sectors(byte, arr, self.nbytes, lanes)
                items += [("global_atomic_requests", requests), ("global_atomic_sectors", sectors)]
            else:
                _, waves, _ = shared_wavefronts(byte, arr, self.nbytes, lanes)
                items += [("shared_atomic_requests", requests), ("shared_atomic_wavefronts", waves)]
            return Contribution(items)
        direction = "load" if self.access == "read" else "store"
        if space == "global":
            key = ("sectors", *pattern, id(m), spec.element_bytes, self.nbytes)
            found = st.cache.get(key)
            if found is None:
                byte = flat * spec.element_bytes
                found = global_sectors(byte, arr, self.nbytes, lanes, self.width > 1)
                found = st.remember(key, found)
            requests, sectors, ideal = found
            return Contribution([
                (f"global_{direction}_requests", requests),
                (f"global_{direction}_sectors", sectors),
                (f"global_{direction}_sectors_ideal", ideal),
                (f"global_{direction}_bytes", m.lanes_per_block * self.nbytes),
            ])  # fmt: skip
        local = st.buffers[spec.index].local_offsets(flat)
        byte = spec.base_bytes + local * spec.element_bytes
        requests, waves, ideal = shared_wavefronts(byte, arr, self.nbytes, lanes)
        return Contribution([
            (f"shared_{direction}_requests", requests),
            (f"shared_{direction}_wavefronts", waves),
            (f"shared_{direction}_wavefronts_ideal", ideal),
        ])  # fmt: skip

    def element_name(self, st: ChunkState, flat: np.ndarray, lane: int) -> str:
        """``tile[3, 4]``: the element one lane touched."""
        local = int(st.buffers[self.spec.index].local_offsets(flat)[lane])
        return f"{self.spec.name}{unravel(local, self.spec.shape)}"

    def check_initialized(self, st: ChunkState, m: Mask, flat: np.ndarray) -> None:
        """An ``uninitialized`` error for the first active lane reading a never-written
        element of shared or local memory."""
        storage = st.buffers[self.spec.index]
        written = storage.written
        if written is None or storage.fully_written:
            return
        safe = flat if m.arr is None else np.where(m.arr, flat, 0)
        if self.width > 1:
            seen = written[safe[:, None] + np.arange(self.width)].all(1)
        else:
            seen = written[safe]
        bad = ~seen if m.arr is None else ~seen & m.arr
        if not bad.any():
            storage.fully_written = bool(written.all())
            return
        lane = int(np.argmax(bad))
        space = {"shared": "__shared__", "local": "__local__"}[self.spec.space]
        raise self.run.error(
            "uninitialized",
            self.op,
            f"Uninitialized {space} read of size {self.nbytes} bytes at "
            f"{self.element_name(st, flat, lane)}: no thread wrote it before",
            st.lanes,
            lane,
        )

    def check_race(self, st: ChunkState, m: Mask, V: np.ndarray, u: int, write: bool) -> None:
        """A ``race`` error if this shared access conflicts with an unordered earlier one
        (a read while nothing was written is only noted, see ``RaceShadow``)."""
        shadow = st.buffers[self.spec.index].shadow
        if shadow is None:
            return
        if not write and not shadow.dirty:
            shadow.pending.append((V, u, m.arr, st.warp_epoch, self.line))
            return
        flat = V + u
        words = flat if self.width == 1 else flat  # a vector is checked by its first element
        found = shadow.first_conflict(
            words, m.arr, write, st.warp_epoch, self.run.independent_thread_scheduling, self.line
        )
        if found is None:
            return
        lane, other, other_access, other_line = found
        lanes = st.lanes
        other_lane = int(lanes.block_of_lane[lane]) * lanes.lanes_per_block + other
        this = "write" if write else "read"
        between = (
            "the same store instruction"
            if other_line == self.line and this == other_access == "write"
            else f"line {other_line}"
        )
        raise self.run.error(
            "race",
            self.op,
            f"Race on __shared__ {self.element_name(st, flat, lane)}: this {this} and a "
            f"{other_access} by {lanes.describe(other_lane)} at {between}, with no "
            "barrier (gpu.barrier, or nvvm.bar.warp.sync within a warp) between them",
            lanes,
            lane,
        )
