"""What one op of one core asks of its pipe: an ``Instruction``, recorded as the core's
program runs and scheduled afterwards on the per-pipe timeline.

The functional run (the interpreter, in program order) records, for every npu op, the
pipe, what it costs, which bytes it reads and writes and which flag it sets or waits
on; ``schedule.py`` then times all cores together. Between two recorded instructions
the scalar unit may run plain scalar code (loop counters, address arithmetic): that is
``scalar_ops``, charged to pipe ``S`` before the instruction is dispatched.

Bytes are named by an ``Access``: a *region* (one on-chip space of one core, or one GM
array) and the bursts touched in it, ``count`` runs of ``length`` bytes starting
``stride`` bytes apart from ``start``.

>>> a = Access(("AIV 0.0", "UB"), start=0, length=256, count=4, stride=512, write=True)
>>> b = Access(("AIV 0.0", "UB"), start=256, length=256, count=1, stride=256, write=False)
>>> a.hull, overlaps(a, b)
((0, 1792), False)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tinycomp.ir.operation import Operation

__all__ = ["Access", "Instruction", "overlaps"]


@dataclass(frozen=True)
class Access:
    """``count`` runs of ``length`` bytes, ``stride`` apart from ``start``, in ``region``."""

    region: tuple[str, ...]
    """``(core, space)`` for on-chip memory, ``("GM", name)`` for a global array."""
    start: int
    length: int
    count: int
    stride: int
    write: bool
    hull: tuple[int, int] = field(init=False, compare=False)
    """``[low, high)``: the bytes from the first run's start to the last run's end."""

    def __post_init__(self) -> None:
        last = self.start + (self.count - 1) * self.stride
        hull = (min(self.start, last), max(self.start, last) + self.length)
        object.__setattr__(self, "hull", hull)


def overlaps(a: Access, b: Access) -> bool:
    """Whether some byte is in a run of ``a`` and a run of ``b`` (same region)."""
    if a.region != b.region:
        return False
    (a_low, a_high), (b_low, b_high) = a.hull, b.hull
    if a_high <= b_low or b_high <= a_low:
        return False
    if a.count == 1 and b.count == 1:
        return True
    if a.count > b.count:
        a, b = b, a
    if b.stride == 0 or b.count == 1 or b.stride <= b.length:  # b is one solid block
        b_low, b_high = b.hull
        return a.count == 1 or _runs_meet(a, b_low, b_high - b_low)
    lows = a.start + np.arange(a.count, dtype=np.int64) * a.stride
    highs = lows + a.length
    first = np.maximum(0, (lows - b.length - b.start) // b.stride + 1)
    last = np.minimum(b.count - 1, (highs - 1 - b.start) // b.stride)
    return bool((first <= last).any())


def _runs_meet(a: Access, low: int, length: int) -> bool:
    """Whether a run of ``a`` meets the block ``[low, low + length)``."""
    lows = a.start + np.arange(a.count, dtype=np.int64) * a.stride
    return bool(((lows < low + length) & (lows + a.length > low)).any())


@dataclass(eq=False)
class Instruction:
    """One op of one core, as the scheduler sees it."""

    op: Operation
    """The npu op."""
    core: str
    """``"AIC 0"`` or ``"AIV 0.1"``."""
    pipe: str
    """The pipe that runs it."""
    kind: str
    """``"dma"``, ``"vector"``, ``"cube"``, ``"scalar"``, ``"set"``, ``"wait"``,
    ``"barrier"``, ``"cross_set"``, ``"cross_wait"``."""
    label: str
    """Short name for the timeline: ``"copy GM->UB"``."""
    cycles: float = 0.0
    """Fixed cost (for a DMA: its latency)."""
    dma_bytes: int = 0
    """Bytes a DMA moves over its path (GM lines whole)."""
    dma_rate: float = 0.0
    """The path's bytes a cycle."""
    uses_hbm: bool = False
    """The DMA reads or writes GM, so it shares the chip's HBM bandwidth."""
    flag: tuple = ()
    """For flags: ``(src, dst, event)``; cross-core: ``(flag, mode)``."""
    accesses: tuple[Access, ...] = ()
    scalar_ops: int = 0
    """Scalar ops the core ran since the previous instruction."""
    detail: str = ""

    @property
    def line(self) -> int | None:
        """The op's source line."""
        return self.op.location.line if self.op.location is not None else None
