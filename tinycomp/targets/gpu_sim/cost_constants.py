"""The cost model's own constants: the figures no data sheet gives, named so they can be tuned.

The preset holds what a chip's documentation states (lanes, bandwidths, the rule-of-thumb
latencies). What the cost model assumes on top of that is here, each with the value it has
before any calibration and what it means; ``CostConstants(...)`` or ``DEFAULT_CONSTANTS.
with_changes(...)`` gives the model other values without touching its code.

>>> DEFAULT_CONSTANTS.atomic_conflict_cycles, DEFAULT_CONSTANTS.fp64_rate_other
(4, 0.015625)
>>> DEFAULT_CONSTANTS.with_changes(atomic_conflict_cycles=8).atomic_conflict_cycles
8
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["DEFAULT_CONSTANTS", "CostConstants"]


@dataclass(frozen=True)
class CostConstants:
    """Assumptions of the cost model that calibration may change."""

    fp64_rate_datacenter: float = 0.5
    """FP64 lanes per FP32 lane on sm_80 and sm_90 parts (A100, H100)."""
    fp64_rate_other: float = 1 / 64
    """FP64 lanes per FP32 lane on other parts (GA102: the RTX A6000)."""
    atomic_conflict_cycles: int = 4
    """Cycles each extra serialized round of same-address atomics adds to a warp."""

    def with_changes(self, **changes: float) -> CostConstants:
        """A copy with some constants changed.

        >>> CostConstants().with_changes(fp64_rate_other=1 / 32).fp64_rate_other
        0.03125
        """
        return replace(self, **changes)  # type: ignore[arg-type]


DEFAULT_CONSTANTS = CostConstants()
"""The constants the model uses (calibrated on the SGEMM worklog, ``sgemm_staircase``)."""
