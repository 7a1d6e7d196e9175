"""What the cost model returns: one kernel's estimated time, its limits and its traffic.

``Estimate`` is a frozen record that ``cost_model.estimate`` fills in; its text form is the
table a notebook prints: the time, then every limit's cycles (summed over the waves, as if
it were the only one) with the binding one marked, then the traffic and the notes (the
assumptions that applied to this kernel).

>>> e = Estimate("toy", 2000.0, 2e-6, "dram", {**dict.fromkeys(LIMITS, 0.0), "dram": 1500.0,
...     "launch": 500.0}, 1, 4, 1.0, 1e6, 4e6, 4e6, 0.25, 500.0, 0.0, 0.0, False, [])
>>> print(e)  # doctest: +NORMALIZE_WHITESPACE
toy: 2000 cycles = 2.00 us, bound by dram
1 waves of 4 blocks/SM, last wave 100% full
limit           cycles  share
dram              1500    75%  <- binds
launch             500    25%
traffic: DRAM 4.00 MB, L2 4.00 MB; hits L1 0%, L2 0%
1.00 MFLOP, intensity 0.25 FLOP/B, 500.0 GFLOP/s
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["LIMITS", "Estimate"]

LIMITS = (
    "fp32", "fp64", "int", "sfu", "ld/st", "l1/shared", "l2", "dram", "latency", "issue",
    "launch",
)  # fmt: skip
"""Every limit the model knows, in the order ties are named (units before issue)."""


@dataclass(frozen=True)
class Estimate:
    """One kernel's estimated time on one preset."""

    preset: str
    """The preset the estimate is for."""
    cycles: float
    """Core-clock cycles: the sum over the waves of each wave's time, plus the launch."""
    seconds: float
    binding: str
    """The limit with the most cycles in ``breakdown``."""
    breakdown: dict[str, float]
    """Limit -> cycles, summed over the waves, each as if it were the only limit."""
    waves: int
    blocks_per_sm: int
    tail_fraction: float
    """How full the last wave is (1.0: every wave full)."""
    flops: float
    dram_bytes: float
    l2_bytes: float
    """Bytes the SMs asked of L2 (L1 misses, stores, atomics)."""
    arithmetic_intensity: float
    """FLOPs per DRAM byte."""
    achieved_gflops: float
    l1_hit_fraction: float
    l2_hit_fraction: float
    sampled: bool
    notes: list[str] = field(default_factory=list)
    """Sentences: the assumptions that applied to this kernel."""

    def __str__(self) -> str:
        lines = [
            f"{self.preset}: {self.cycles:.0f} cycles = {self.seconds * 1e6:.2f} us, "
            f"bound by {self.binding}",
            f"{self.waves} waves of {self.blocks_per_sm} blocks/SM, last wave "
            f"{self.tail_fraction:.0%} full",
            f"{'limit':<12}{'cycles':>10}{'share':>7}",
        ]
        total = sum(self.breakdown.values()) or 1.0
        for limit in sorted(LIMITS, key=lambda name: -self.breakdown[name]):
            cycles = self.breakdown[limit]
            if cycles <= 0:
                continue
            mark = "  <- binds" if limit == self.binding else ""
            lines.append(f"{limit:<12}{cycles:>10.0f}{cycles / total:>7.0%}{mark}")
        lines.append(
            f"traffic: DRAM {self.dram_bytes / 1e6:.2f} MB, L2 {self.l2_bytes / 1e6:.2f} MB; "
            f"hits L1 {self.l1_hit_fraction:.0%}, L2 {self.l2_hit_fraction:.0%}"
        )
        lines.append(
            f"{self.flops / 1e6:.2f} MFLOP, intensity {self.arithmetic_intensity:.2f} FLOP/B, "
            f"{self.achieved_gflops:.1f} GFLOP/s"
        )
        lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)
