"""What the simulator counts: per block, then summed per kernel.

Every counter is an ``int64`` array with one entry per *simulated* block (blocks in
``block_ids``, linear ids ``x + y*gx + z*gx*gy``). Warp-level counts follow Nsight
Compute's meaning:

* a *warp instruction* is one op issued for one warp with at least one active lane
  (``inst_<class>``); ``lane_instructions`` adds up the active lanes of each, so SIMT
  efficiency is ``lane_instructions / (32 * warp_instructions)``;
* a *request* is one warp instruction that touches memory; a global request touches
  some 32-byte *sectors* (``..._sectors``), and ``..._sectors_ideal`` is the fewest that
  the bytes it moved could occupy, so coalescing efficiency is ``ideal / sectors``;
* a shared request is served in *wavefronts*, one per round of distinct 4-byte words
  asked of one bank; ``..._wavefronts / ..._requests`` is the bank-conflict degree;
* ``atomic_conflicts`` counts the extra serialised rounds of atomics to one address;
* ``global_distinct_sectors`` is how many different sectors each block touched (its
  footprint), and ``KernelCounters.footprint_sectors`` the same per global array over
  all the simulated blocks together (what a cache big enough would fetch once).

>>> import numpy as np
>>> c = KernelCounters.zeros(block_ids=np.arange(2), threads_per_block=64)
>>> c.add("inst_fp32", np.array([3, 4]))
>>> c.total("inst_fp32"), c.warp_instructions()
(7, 7)
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "BLOCK_COUNTERS", "COUNTER_ROW", "INSTRUCTION_CLASSES", "KernelCounters",
    "extrapolate_counters",
]  # fmt: skip

INSTRUCTION_CLASSES = (
    "fp32",  # arith float ops on f32 (an FMA is one)
    "fp16",  # f16 and bf16 arithmetic
    "fp64",
    "int",  # integer and index arithmetic, comparisons, selects, logic
    "sfu",  # math.exp, log, sin, cos, rsqrt, sqrt, tanh, erf...: the special-function unit
    "conversion",  # casts between types (extf, truncf, sitofp, index_cast...)
    "ld_global", "st_global",
    "ld_shared", "st_shared",
    "ld_local", "st_local",
    "atomic_global", "atomic_shared",
    "shuffle",  # gpu.shuffle, nvvm.shfl.sync
    "vote",  # nvvm.vote.sync, nvvm.redux.sync, nvvm.elect.sync, gpu.subgroup_reduce
    "barrier",  # gpu.barrier, nvvm.bar.warp.sync
    "branch",  # scf.if, a loop's condition test, cf.cond_br
    "misc",  # ids, dims, moves
)  # fmt: skip
"""The instruction classes, each counted as ``inst_<class>`` in warp instructions."""

BLOCK_COUNTERS = (
    *(f"inst_{c}" for c in INSTRUCTION_CLASSES),
    "lane_instructions",
    "branches",
    "divergent_branches",
    "global_load_requests", "global_load_sectors", "global_load_sectors_ideal",
    "global_load_bytes",
    "global_store_requests", "global_store_sectors", "global_store_sectors_ideal",
    "global_store_bytes",
    "global_atomic_requests", "global_atomic_sectors",
    "shared_load_requests", "shared_load_wavefronts", "shared_load_wavefronts_ideal",
    "shared_store_requests", "shared_store_wavefronts", "shared_store_wavefronts_ideal",
    "shared_atomic_requests", "shared_atomic_wavefronts",
    "atomic_conflicts",
    "local_load_bytes", "local_store_bytes",
    "global_distinct_sectors",
    "barriers",
    "warp_syncs",
)  # fmt: skip
"""Every per-block counter, in the order tables show them."""
COUNTER_ROW = {name: i for i, name in enumerate(BLOCK_COUNTERS)}
"""Counter name -> its row in ``KernelCounters.matrix``."""


@dataclass
class KernelCounters:
    """The counters of one kernel run: per simulated block, and per global array."""

    block_ids: np.ndarray
    """Linear ids of the simulated blocks (all of them, unless the run was sampled)."""
    threads_per_block: int
    per_block: dict[str, np.ndarray] = field(default_factory=dict)
    footprint_sectors: dict[str, int] = field(default_factory=dict)
    """Distinct 32 B sectors each global array (by argument name) had touched."""
    blocks_total: int = 0
    """Blocks in the grid; more than ``len(block_ids)`` when the run was sampled."""
    matrix: np.ndarray | None = field(default=None, repr=False, compare=False)
    """Every counter as a row of one array, when ``per_block``'s arrays are its rows
    (``zeros`` makes them so; sums and means are then one numpy call)."""
    _views: tuple[np.ndarray, ...] = field(default=(), repr=False, compare=False)
    """The rows of ``matrix`` as ``zeros`` put them in ``per_block``."""

    @classmethod
    def zeros(cls, block_ids: np.ndarray, threads_per_block: int) -> KernelCounters:
        """Counters at zero for these blocks.

        >>> KernelCounters.zeros(np.arange(3), 32).per_block["barriers"].tolist()
        [0, 0, 0]
        """
        n = len(block_ids)
        matrix = np.zeros((len(BLOCK_COUNTERS), n), np.int64)
        per_block = dict(zip(BLOCK_COUNTERS, matrix, strict=True))
        counters = cls(np.asarray(block_ids), threads_per_block, per_block, {}, n, matrix)
        counters._views = tuple(per_block.values())
        return counters

    def _rows(self) -> tuple[list[str], np.ndarray]:
        """The counter names and their per-block values as one ``(counters, blocks)``
        array (``matrix`` itself while ``per_block`` still holds its rows)."""
        names = list(self.per_block)
        matrix = self.matrix
        if matrix is not None and names == list(BLOCK_COUNTERS):
            rows = self.per_block.values()
            if all(map(operator.is_, rows, self._views)):
                return names, matrix
        return names, np.stack([self.per_block[name] for name in names])

    def sums(self, *, scaled: bool = True) -> dict[str, int]:
        """Every counter's ``total`` at once.

        >>> c = KernelCounters.zeros(np.arange(2), 32)
        >>> c.add("barriers", np.array([1, 2]))
        >>> c.sums()["barriers"]
        3
        """
        names, rows = self._rows()
        values = rows.sum(axis=1).tolist()
        if scaled and self.sampled:
            factor = self.blocks_total / len(self.block_ids)
            values = [round(v * factor) for v in values]
        return dict(zip(names, values, strict=True))

    @property
    def sampled(self) -> bool:
        """Whether only some of the grid's blocks ran (the totals are then scaled)."""
        return self.blocks_total > len(self.block_ids)

    @property
    def warps_per_block(self) -> int:
        """Warps in one block (a partial last warp counts as one)."""
        return -(-self.threads_per_block // 32)

    def add(self, name: str, per_block: np.ndarray | int) -> None:
        """Add to one counter, per block (an array) or the same for every block."""
        self.per_block[name] += per_block

    def total(self, name: str, *, scaled: bool = True) -> int:
        """One counter summed over the blocks; scaled to the whole grid if sampled.

        >>> c = KernelCounters.zeros(np.arange(2), 32)
        >>> c.blocks_total = 8
        >>> c.add("barriers", 3)
        >>> c.total("barriers"), c.total("barriers", scaled=False)
        (24, 6)
        """
        value = int(self.per_block[name].sum())
        if scaled and self.sampled:
            return round(value * self.blocks_total / len(self.block_ids))
        return value

    def means(self) -> dict[str, float]:
        """Every counter's mean over the simulated blocks (one numpy call for all).

        >>> c = KernelCounters.zeros(np.arange(2), 32)
        >>> c.add("barriers", np.array([1, 2]))
        >>> c.means()["barriers"]
        1.5
        """
        names, rows = self._rows()
        return dict(zip(names, rows.mean(axis=1).tolist(), strict=True))

    def warp_instructions(self, *, scaled: bool = True) -> int:
        """Warp instructions of every class."""
        sums = self.sums(scaled=scaled)
        return sum(sums.get(f"inst_{c}", 0) for c in INSTRUCTION_CLASSES)

    def simt_efficiency(self) -> float:
        """Active lanes per warp instruction, as a fraction of 32 (1.0: never divergent)."""
        sums = self.sums(scaled=False)
        issued = sum(sums.get(f"inst_{c}", 0) for c in INSTRUCTION_CLASSES)
        return sums["lane_instructions"] / (32 * issued) if issued else 1.0

    def coalescing_efficiency(self) -> float:
        """Ideal global sectors over the sectors moved (1.0: perfectly coalesced)."""
        ideal = self.total("global_load_sectors_ideal") + self.total("global_store_sectors_ideal")
        moved = self.total("global_load_sectors") + self.total("global_store_sectors")
        return ideal / moved if moved else 1.0

    def bank_conflict_degree(self) -> float:
        """Shared wavefronts per shared request (1.0: no bank conflicts)."""
        requests = self.total("shared_load_requests") + self.total("shared_store_requests")
        waves = self.total("shared_load_wavefronts") + self.total("shared_store_wavefronts")
        return waves / requests if requests else 1.0

    def as_table(self) -> dict[str, int]:
        """Every counter's total (scaled if sampled), the non-zero ones only."""
        sums = self.sums()
        return {n: t for n in BLOCK_COUNTERS if (t := sums.get(n, 0))}


def extrapolate_counters(
    short: KernelCounters, longer: KernelCounters, at: tuple[int, int], to: int
) -> KernelCounters:
    """The counters of a run at problem size ``to``, from runs at the two sizes ``at``.

    For a kernel whose work per block grows linearly with one size (the K of a GEMM:
    each block walks K in steps of a tile), every counter is an affine function of it,
    ``c(K) = c0 + c1 * K``, so two short runs give a long one exactly. Both runs must
    have the same grid and sampled blocks. The tests check the result against a run at
    the long size.

    >>> a = KernelCounters.zeros(np.arange(2), 64); a.add("barriers", 2 + 1 * 8)
    >>> b = KernelCounters.zeros(np.arange(2), 64); b.add("barriers", 2 + 1 * 16)
    >>> extrapolate_counters(a, b, (8, 16), 4096).per_block["barriers"].tolist()
    [4098, 4098]
    """
    (x0, x1), n = at, len(short.block_ids)
    if not x0 < x1 or not np.array_equal(short.block_ids, longer.block_ids):
        raise ValueError(
            "extrapolate_counters: expected two runs of the same blocks at two sizes "
            f"x0 < x1, got sizes {at} and {n} vs {len(longer.block_ids)} blocks"
        )

    def line(y0: np.ndarray | int, y1: np.ndarray | int) -> np.ndarray | int:
        slope, rest = np.divmod((np.asarray(y1) - y0) * (to - x0), x1 - x0)
        if np.any(rest):
            raise ValueError(
                "extrapolate_counters: a counter does not grow linearly between "
                f"sizes {x0} and {x1}; run at sizes that are multiples of the kernel's tile"
            )
        return y0 + slope

    per_block = {
        name: line(short.per_block[name], longer.per_block[name]) for name in short.per_block
    }
    footprint = {
        name: int(line(count, longer.footprint_sectors[name]))
        for name, count in short.footprint_sectors.items()
    }
    return KernelCounters(
        short.block_ids, short.threads_per_block, per_block, footprint, short.blocks_total
    )
