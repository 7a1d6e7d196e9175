"""``BufferizationReport``: what bufferization decided, allocated, and how much memory
the program holds at its peak.

One report collects what the bufferization passes found, in the order they ran:

* ``decisions``: each operand an op would write, in place or copied, and why
  (filled by ``one-shot-bufferize``);
* ``allocations``: each ``memref.alloc`` left in the IR, with its bytes, why it was
  made, and the op indices where it is allocated and freed;
* ``liveness``: one ``LiveInterval(name, start, end, bytes)`` per buffer, from the
  alloc to its last use, in op indices (``liveness.py``);
* ``reuse``: which buffer took over which (``buffer-reuse``);
* ``peak_bytes``: after each pass, the most bytes allocated at one time, where an
  allocation is held from its ``memref.alloc`` until its ``memref.dealloc``, or until
  the function returns when nothing frees it. Right after ``one-shot-bufferize``
  nothing is freed yet, so the peak is every buffer at once; ``buffer-reuse`` shrinks
  it by sharing; ``buffer-deallocation`` by freeing after the last use. Buffers with
  dynamic sizes count 0 (their size is unknown until run time); an allocation inside
  a loop counts once.

``str(report)`` is the whole thing as a table.

>>> report = BufferizationReport()
>>> report.liveness = [LiveInterval("%alloc", 1, 3, 64), LiveInterval("%alloc_0", 4, 6, 64)]
>>> report.peak_bytes["one-shot-bufferize"] = 128
>>> print(report)
bufferization report
  in-place decisions: none
  buffers (op index = position in the function, deallocs not counted):
    buffer    bytes  live
    %alloc       64  1..3
    %alloc_0     64  4..6
  peak bytes: 128 after one-shot-bufferize
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.passes.bufferize.liveness import OpIndices, buffer_liveness
from tinycomp.passes.bufferize.memref_types import buffer_bytes

__all__ = ["Allocation", "BufferizationReport", "Decision", "LiveInterval"]


class LiveInterval(NamedTuple):
    """One buffer's liveness: ``(name, start op index, end op index, bytes)``."""

    name: str
    start: int
    end: int
    bytes: int | None


@dataclass(frozen=True)
class Decision:
    """One in-place decision, as text (``op`` is ``'linalg.generic' at line 7``)."""

    op: str
    operand: str
    in_place: bool
    reason: str

    @classmethod
    def from_analysis(cls, decision, analysis) -> Decision:
        """From an ``InPlaceDecision`` of ``analysis``."""
        operand = decision.op.operands[decision.operand_index]
        where = analysis.order.describe(decision.op)
        return cls(where, analysis.name(operand), decision.in_place, decision.reason)


@dataclass(frozen=True)
class Allocation:
    """One ``memref.alloc`` of the IR."""

    name: str
    type: str
    bytes: int | None
    reason: str
    held: tuple[int, int]
    """Op indices from the alloc to the last op before its dealloc (or the end)."""


@dataclass
class BufferizationReport:
    """See the module docstring."""

    decisions: list[Decision] = field(default_factory=list)
    allocations: list[Allocation] = field(default_factory=list)
    liveness: list[LiveInterval] = field(default_factory=list)
    reuse: list[tuple[str, str]] = field(default_factory=list)
    """``(buffer, the buffer whose memory it took)`` pairs, in the names of that time."""
    peak_bytes: dict[str, int] = field(default_factory=dict)
    """Pass name -> peak bytes held after it ran."""
    allocation_reasons: dict[Operation, str] = field(default_factory=dict, repr=False)
    """Why each alloc was made, kept by the passes that create them."""

    def clear(self) -> None:
        """Forget everything (a new run of the first pass)."""
        self.decisions.clear()
        self.allocations.clear()
        self.liveness.clear()
        self.reuse.clear()
        self.peak_bytes.clear()
        self.allocation_reasons.clear()

    @property
    def copies(self) -> list[Decision]:
        """The decisions that were not in place."""
        return [d for d in self.decisions if not d.in_place]

    def measure(self, module: Operation, stage: str) -> None:
        """Refresh ``allocations`` and ``liveness`` from ``module`` and record the peak
        after ``stage`` (the peak over all functions, each run on its own)."""
        names = SSANames(module)
        self.allocations, self.liveness = [], []
        peak = 0
        functions = [op for op in module.walk() if op.name == "func.func" and op.regions[0].blocks]
        for function in functions:
            prefix = f"@{function.attributes['sym_name'].value} " if len(functions) > 1 else ""
            indices = OpIndices(function)
            held_ranges = []
            for alloc in [op for op in function.walk() if op.name == "memref.alloc"]:
                liveness = buffer_liveness(alloc)
                name = prefix + names.value_name(alloc.results[0])
                size = buffer_bytes(alloc.results[0].type)
                held = indices.held(liveness)
                reason = self.allocation_reasons.get(alloc, "")
                self.allocations.append(
                    Allocation(name, str(alloc.results[0].type), size, reason, held)
                )
                self.liveness.append(LiveInterval(name, *indices.interval(liveness), size))
                held_ranges.append((held, size or 0))
            peak = max(peak, _peak(held_ranges, indices.last))
        self.peak_bytes[stage] = peak

    def __str__(self) -> str:
        lines = ["bufferization report"]
        copies = len(self.copies)
        if not self.decisions:
            lines.append("  in-place decisions: none")
        else:
            in_place = len(self.decisions) - copies
            copied = f"{copies} cop{'y' if copies == 1 else 'ies'}"
            lines.append(f"  in-place decisions ({in_place} in place, {copied}):")
            for decision in self.decisions:
                lines.append(f"    {decision.op}, {decision.operand}: {decision.reason}")
        for allocation in self.allocations:
            if allocation is self.allocations[0]:
                lines.append("  allocations:")
            size = "?" if allocation.bytes is None else allocation.bytes
            reason = f"  ({allocation.reason})" if allocation.reason else ""
            lines.append(f"    {allocation.name}: {allocation.type}, {size} bytes{reason}")
        lines += self._buffer_table()
        for new, old in self.reuse:
            lines.append(f"  {new} reuses the memory of {old}")
        peaks = ", ".join(f"{size} after {stage}" for stage, size in self.peak_bytes.items())
        lines.append(f"  peak bytes: {peaks or 'not measured'}")
        return "\n".join(lines)

    def _buffer_table(self) -> list[str]:
        """One row per buffer: bytes, live range, and held range when known."""
        lines = ["  buffers (op index = position in the function, deallocs not counted):"]
        held = {a.name: f"{a.held[0]}..{a.held[1]}" for a in self.allocations}
        width = max([len("buffer"), *(len(i.name) for i in self.liveness)])
        header = f"    {'buffer':<{width}} {'bytes':>6}  {'live':<9}"
        lines.append((header + (" held" if held else "")).rstrip())
        for interval in self.liveness:
            size = "?" if interval.bytes is None else str(interval.bytes)
            live = f"{interval.start}..{interval.end}"
            row = f"    {interval.name:<{width}} {size:>6}  {live:<9} {held.get(interval.name, '')}"
            lines.append(row.rstrip())
        return lines


def _peak(held_ranges: list[tuple[tuple[int, int], int]], last: int) -> int:
    """The most bytes held at one op index."""
    peak = 0
    for index in range(1, last + 1):
        total = sum(size for (start, end), size in held_ranges if start <= index <= end)
        peak = max(peak, total)
    return peak
