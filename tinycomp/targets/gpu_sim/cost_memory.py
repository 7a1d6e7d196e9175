"""The reuse model: which global sectors are served by L1, which by L2, which by DRAM.

The simulator counts, per block, the sectors its requests touched (with repeats) and the
distinct sectors it touched; per global array, the distinct sectors all the simulated
blocks touched. From those, in 32-byte sectors, per block on average:

1. **Rounds.** A block sweeps its data in *rounds* (``memory_rounds``): the tiles of a
   loop that loads, syncs, computes and syncs (two barriers a tile), or the iterations of
   a loop whose trip count is known only at run time, ``RUNTIME_UNROLL`` of them at a time
   (``nvcc`` unrolls such a loop by 4, so the loads of 4 iterations issue together).
2. **L1.** A block fetches each of its distinct sectors once. Its repeated load sectors
   come soon after the first touch (in the same round or the next), so they hit L1 if one
   round's share of the footprint (``footprint / rounds``) fits the block's share of L1
   (the unified array less the shared-memory carve-out, split over the resident blocks);
   a round ``f`` times its share keeps ``1/f`` of the repeats. Stores and atomics do not
   stay in L1: stores write through to L2, atomics are done at L2.
3. **L2 and DRAM.** The requests that reach L2 are the L1 load misses, the stores and the
   atomics. The blocks of one wave start together and run the same loop, so they read the
   data they share at about the same time: within a wave a sector comes from DRAM once.
   The next wave finds it evicted (the wave before swept more than L2 holds), unless the
   whole kernel's footprint fits L2, when every sector comes from DRAM once. A wave's
   footprint is, per array, ``min(array size, blocks in the wave x that array's sectors
   per block)`` (``wave_footprint``). The counters give a block's distinct sectors over
   all arrays together; ``array_sectors_per_block`` splits them over the arrays. Of an
   array whose simulated blocks touched ``F`` sectors together, ``S`` blocks, a block
   touched between ``F / S`` (no two blocks share any of it: the rows of ``x``) and ``F``
   (every block touched all of it: layernorm's ``gamma``). Each array gets its ``F / S``;
   the sectors left over are the shared ones and fill the arrays up to a common level,
   none past its ``F`` (water-filling), so that a small array every block reads takes
   them, not the large arrays the blocks split between them. Arrays of equal ``F`` (a
   GEMM's ``A``, ``B`` and ``C``) cannot be told apart this way and get equal shares.
4. **Sampled runs.** Per-block figures are means over the simulated blocks; an array's
   sectors per block are split as in step 3 (``S``: the blocks simulated), and the
   kernel's footprint per array is ``min(array size, sampled footprint * blocks_total /
   blocks_sampled)`` (the array size when known).

The footprint counts a sector once whether it was read, written or both, so an array that
is read and then written in place is charged its bytes once, not a read and a write-back.

>>> import numpy as np
>>> from tinycomp.targets.gpu_sim.counters import KernelCounters
>>> from tinycomp.targets.gpu_sim.occupancy import occupancy
>>> from tinycomp.targets.gpu_sim.preset import lookup_preset
>>> preset = lookup_preset("a100")
>>> c = KernelCounters.zeros(np.arange(4), 128)
>>> c.add("global_load_sectors", 64); c.add("global_distinct_sectors", 16)
>>> c.footprint_sectors = {"a": 64}
>>> traffic = memory_traffic(c, preset, occupancy(preset, 128, 32, 0))
>>> traffic.l1_hit_fraction, traffic.l2_sectors_per_block, traffic.dram_sectors_per_block
(0.75, 16.0, 16.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from tinycomp.targets.gpu_sim.cost_constants import DEFAULT_CONSTANTS, CostConstants
from tinycomp.targets.gpu_sim.counters import KernelCounters
from tinycomp.targets.gpu_sim.occupancy import Occupancy
from tinycomp.targets.gpu_sim.preset import GpuPreset
from tinycomp.targets.gpu_sim.waves import waves

__all__ = [
    "RUNTIME_UNROLL",
    "MemoryTraffic",
    "array_sectors_per_block",
    "kernel_footprint",
    "memory_rounds",
    "memory_traffic",
    "wave_footprint",
]

RUNTIME_UNROLL = 4
"""Iterations of a loop with a run-time trip count that ``nvcc`` unrolls into one body."""


@dataclass(frozen=True)
class MemoryTraffic:
    """Global-memory sectors per block at each level, and the fractions that hit."""

    load_sectors_per_block: float
    """Global load sectors a block requests (with repeats)."""
    l1_sectors_per_block: float
    """Global sectors through the L1 data path: loads, stores and atomics."""
    l1_hit_fraction: float
    """Of the load sectors, the fraction L1 serves."""
    l2_sectors_per_block: float
    """Sectors a block asks of L2: L1 load misses, stores, atomics."""
    l2_hit_fraction: float
    """Of the sectors asked of L2, the fraction L2 serves."""
    dram_sectors_per_block: float
    footprint_sectors: float
    """The kernel's distinct sectors over all arrays (compulsory DRAM traffic)."""
    notes: list[str] = field(default_factory=list)

    def load_level_fractions(self) -> tuple[float, float, float]:
        """Of a load's sectors, the fractions served by L1, L2 and DRAM.

        >>> MemoryTraffic(8, 8, 0.5, 4, 0.5, 2, 2).load_level_fractions()
        (0.5, 0.25, 0.25)
        """
        miss = 1.0 - self.l1_hit_fraction
        return self.l1_hit_fraction, miss * self.l2_hit_fraction, miss * (1 - self.l2_hit_fraction)


def kernel_footprint(
    counters: KernelCounters, sector_bytes: int, array_bytes: Mapping[str, int] | None = None
) -> tuple[float, list[str]]:
    """The kernel's distinct sectors over all arrays, and the notes on how it was found.

    >>> import numpy as np
    >>> from tinycomp.targets.gpu_sim.counters import KernelCounters
    >>> c = KernelCounters.zeros(np.arange(2), 32)
    >>> c.blocks_total, c.footprint_sectors = 8, {"x": 100}
    >>> kernel_footprint(c, 32, {"x": 1000 * 32})[0], kernel_footprint(c, 32, {"x": 32 * 32})[0]
    (400.0, 32.0)
    """
    blocks, simulated = counters.blocks_total, len(counters.block_ids)
    if not counters.footprint_sectors:
        distinct = float(counters.per_block["global_distinct_sectors"].mean()) * blocks
        return distinct, [
            "no per-array footprint was counted: the kernel's footprint is taken as the sum "
            "of the blocks' distinct sectors (no data shared between blocks)"
        ]
    if not counters.sampled:
        return float(sum(counters.footprint_sectors.values())), []
    total = 0.0
    for name, sectors in counters.footprint_sectors.items():
        scaled = sectors * blocks / simulated
        if array_bytes is not None and name in array_bytes:
            scaled = min(scaled, -(-array_bytes[name] // sector_bytes))
        total += scaled
    return total, [
        f"sampled {simulated} of {blocks} blocks: per-block figures are means over the "
        "sampled blocks; the footprint of each array is min(array size, sampled footprint "
        f"x {blocks}/{simulated})"
    ]


def memory_rounds(mean: Mapping[str, float], warps_per_block: int) -> float:
    """Rounds in which one warp sweeps its data (step 1 of the module docstring).

    >>> memory_rounds({"inst_barrier": 256.0, "inst_branch": 129.0}, 1)  # 128 tiles
    128.0
    >>> memory_rounds({"inst_branch": 4098.0}, 1)  # a run-time loop, unrolled by 4
    1024.5
    """
    tiles = mean.get("inst_barrier", 0.0) / warps_per_block / 2
    iterations = mean.get("inst_branch", 0.0) / warps_per_block / RUNTIME_UNROLL
    return max(1.0, tiles, iterations)


def array_sectors_per_block(counters: KernelCounters) -> dict[str, float]:
    """A block's distinct sectors split over the arrays (step 3 of the module docstring).

    Two blocks each read their own 4-sector row of ``x`` and the same 4 sectors of
    ``g``: together they touched 8 of ``x`` and 4 of ``g``, each block 8 sectors.

    >>> import numpy as np
    >>> from tinycomp.targets.gpu_sim.counters import KernelCounters
    >>> c = KernelCounters.zeros(np.arange(2), 32)
    >>> c.add("global_distinct_sectors", 8)
    >>> c.footprint_sectors = {"x": 8, "g": 4}
    >>> array_sectors_per_block(c)
    {'x': 4.0, 'g': 4.0}
    """
    per_block = float(counters.per_block["global_distinct_sectors"].mean())
    names = list(counters.footprint_sectors)
    most = np.array([float(counters.footprint_sectors[name]) for name in names])
    least = most / len(counters.block_ids)
    if per_block <= least.sum() or per_block >= most.sum():  # extrapolated counters may
        # step past the bounds a simulated run keeps: split in proportion to them
        bound = least if per_block <= least.sum() else most
        scale = per_block / bound.sum() if bound.sum() else 0.0
        return dict(zip(names, (bound * scale).tolist(), strict=True))
    levels = np.unique(np.concatenate([least, most]))
    filled = np.array([np.clip(level, least, most).sum() for level in levels])
    above = int(np.searchsorted(filled, per_block))  # filled[above - 1] < per_block
    low, high = levels[above - 1], levels[above]
    step = (per_block - filled[above - 1]) / (filled[above] - filled[above - 1])
    level = low + step * (high - low)
    return dict(zip(names, np.clip(level, least, most).tolist(), strict=True))


def wave_footprint(
    counters: KernelCounters, wave_blocks: int, array_bytes: Mapping[str, int] | None = None
) -> float:
    """Distinct sectors the blocks of one wave touch together (step 3 of the docstring).

    >>> import numpy as np
    >>> from tinycomp.targets.gpu_sim.counters import KernelCounters
    >>> c = KernelCounters.zeros(np.arange(2), 32)
    >>> c.add("global_distinct_sectors", 205)
    >>> c.blocks_total, c.footprint_sectors = 100, {"x": 10, "y": 400}
    >>> wave_footprint(c, 50, {"x": 32 * 100, "y": 32 * 100_000})  # 50 x 5 of x: all 100
    10100.0
    """
    if not sum(counters.footprint_sectors.values()):
        return float(counters.per_block["global_distinct_sectors"].mean()) * wave_blocks
    total = 0.0
    for name, per_block in array_sectors_per_block(counters).items():
        cap = float(counters.footprint_sectors[name])
        if counters.sampled:
            cap *= counters.blocks_total / len(counters.block_ids)
        if array_bytes is not None and name in array_bytes:
            cap = min(cap, -(-array_bytes[name] // 32))
        total += min(cap, per_block * wave_blocks)
    return total


def memory_traffic(
    counters: KernelCounters,
    preset: GpuPreset,
    occ: Occupancy,
    array_bytes: Mapping[str, int] | None = None,
    constants: CostConstants = DEFAULT_CONSTANTS,
    *,
    mean: Mapping[str, float] | None = None,
) -> MemoryTraffic:
    """Apply the reuse model (see the module docstring) to one kernel's counters
    (``mean``: their per-block means, if the caller has them already)."""
    mean = counters.means() if mean is None else mean
    blocks, sector = counters.blocks_total, preset.sector_bytes
    loads, distinct = mean["global_load_sectors"], mean["global_distinct_sectors"]
    writes = mean["global_store_sectors"] + mean["global_atomic_sectors"]
    footprint, notes = kernel_footprint(counters, sector, array_bytes)

    resident = max(1, min(occ.blocks_per_sm, -(-blocks // preset.sm_count)))
    l1_free = max(0, preset.l1_bytes - occ.carveout_kb * 1024)
    share = l1_free / resident
    round_bytes = distinct * sector / memory_rounds(mean, counters.warps_per_block)
    l1_fit = 1.0 if round_bytes <= share else share / round_bytes
    first_touch = min(loads, distinct)
    l1_hits = (loads - first_touch) * l1_fit
    if l1_fit < 1.0 and loads > first_touch:
        notes.append(
            f"one round of a block's footprint ({round_bytes / 1024:.1f} KB) is over its "
            f"share of L1 ({share / 1024:.1f} KB): {l1_fit:.0%} of its repeated loads hit L1"
        )
    l2_per_block = loads - l1_hits + writes
    requests = l2_per_block * blocks

    if footprint * sector <= preset.l2_bytes:
        dram = min(requests, footprint)
    else:
        schedule = waves(preset, blocks, occ.blocks_per_sm)
        full = wave_footprint(counters, schedule.wave_size, array_bytes) * schedule.full_waves
        tail = wave_footprint(counters, schedule.tail_blocks, array_bytes)
        dram = min(requests, max(footprint, full + (tail if schedule.tail_blocks else 0.0)))
        if dram > footprint:
            notes.append(
                f"the kernel's footprint ({footprint * sector / 2**20:.1f} MB) is over L2 "
                f"({preset.l2_bytes / 2**20:.0f} MB): each of the {schedule.waves} waves "
                "fetches what it shares from DRAM again"
            )
    return MemoryTraffic(
        load_sectors_per_block=loads,
        l1_sectors_per_block=loads + writes,
        l1_hit_fraction=l1_hits / loads if loads else 0.0,
        l2_sectors_per_block=l2_per_block,
        l2_hit_fraction=1 - dram / requests if requests else 0.0,
        dram_sectors_per_block=dram / blocks,
        footprint_sectors=footprint,
        notes=notes,
    )
