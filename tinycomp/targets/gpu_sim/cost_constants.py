"""The cost model's own constants: the figures no data sheet gives, named so they can be tuned.

The preset holds what a chip's documentation states (lanes, bandwidths, the rule-of-thumb
latencies). What the cost model assumes on top of that is here, each with the value it has
before any calibration and what it means; ``CostConstants(...)`` or ``DEFAULT_CONSTANTS.
with_changes(...)`` gives the model other values without touching its code.

>>> DEFAULT_CONSTANTS.l1_hit_latency, DEFAULT_CONSTANTS.instruction_level_parallelism
(30, 1.0)
>>> DEFAULT_CONSTANTS.with_changes(instruction_level_parallelism=2.0).instruction_level_parallelism
2.0
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["DEFAULT_CONSTANTS", "CostConstants"]


@dataclass(frozen=True)
class CostConstants:
    """Assumptions of the cost model that calibration may change."""

    l1_hit_latency: int = 30
    """Cycles for a global load served by L1 (the same SRAM as shared memory, so the
    preset's shared-memory latency)."""
    shared_wavefront_bytes: int = 128
    """Bytes of the L1/shared data path one shared-memory wavefront occupies: a full
    128 B pass (32 banks x 4 B), so a wavefront costs as much as 4 global sectors."""
    instruction_level_parallelism: float = 1.0
    """Independent instructions one warp keeps in flight. 1.0: every instruction waits
    for the one before it, so a warp's time is the sum of its latencies."""
    l2_working_set_fraction: float = 1.0
    """The fraction of a block's distinct sectors that must stay in L2 while the other
    blocks of its wave run (1.0: all of them; a kernel that sweeps its data in phases,
    as a tiled matmul does along k, needs less)."""
    fp64_rate_datacenter: float = 0.5
    """FP64 lanes per FP32 lane on sm_80 and sm_90 parts (A100, H100)."""
    fp64_rate_other: float = 1 / 64
    """FP64 lanes per FP32 lane on other parts (GA102: the RTX A6000)."""
    atomic_conflict_cycles: int = 4
    """Cycles each extra serialized round of same-address atomics adds to a warp."""

    def with_changes(self, **changes: float) -> CostConstants:
        """A copy with some constants changed.

        >>> CostConstants().with_changes(l1_hit_latency=28).l1_hit_latency
        28
        """
        return replace(self, **changes)  # type: ignore[arg-type]


DEFAULT_CONSTANTS = CostConstants()
"""The constants before any calibration."""
