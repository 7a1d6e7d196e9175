"""The per-pipe timeline of an NPU run: which op ran on which pipe of which core, when.

Every AI core has pipes that each run their own in-order queue of instructions: the
scalar pipe ``S`` (which also dispatches the others), the DMA pipes ``MTE1``, ``MTE2``,
``MTE3`` and ``FIX``, the cube ``M`` and the vector unit ``V``. A *core* is one cube
core (``AIC 0``) or one vector core (``AIV 0.1``: the second vector core of AI core
0). A ``Timeline`` holds one ``Span`` per instruction that ran, in cycles of the core
clock from the launch; waits that blocked a pipe are spans too (``kind == "wait"``),
so a picture shows where a pipe stood still and for which flag.

>>> timeline = Timeline(clock_ghz=1.0, spans=(
...     Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 756.0, line=4),
...     Span("AIV 0.0", "V", "wait_flag MTE2->V #0", "wait", 1.0, 756.0, line=5),
...     Span("AIV 0.0", "V", "vadd", "vector", 756.0, 1016.0, line=6),
... ))
>>> timeline.cycles, timeline.cores, timeline.busy_cycles("AIV 0.0", "V")
(1016.0, ('AIV 0.0',), 260.0)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["PIPES", "Span", "SpanKind", "Timeline", "core_sort_key"]

PIPES = ("S", "MTE2", "MTE1", "M", "FIX", "V", "MTE3")
"""The pipes of an AI core, in the order pictures draw them (data flows downwards:
scalar, loads, the cube and its output, the vector unit and its output)."""

SpanKind = str
"""What a span is: ``"dma"``, ``"vector"``, ``"cube"``, ``"scalar"``, ``"flag"`` (a
``set_flag`` or a cross-core set), ``"wait"`` (a pipe blocked on a flag or a barrier)."""


@dataclass(frozen=True)
class Span:
    """One instruction on one pipe: ``[start, end)`` in cycles."""

    core: str
    """``"AIC 3"`` or ``"AIV 3.1"`` (AI core 3, vector core 1)."""
    pipe: str
    """One of ``PIPES``."""
    name: str
    """What ran, short: ``"copy GM->UB"``, ``"vadd"``, ``"wait_flag MTE2->V #0"``."""
    kind: SpanKind
    """``"dma"``, ``"vector"``, ``"cube"``, ``"scalar"``, ``"flag"`` or ``"wait"``."""
    start: float
    """First cycle."""
    end: float
    """One past the last cycle (``end >= start``)."""
    line: int | None = None
    """The kernel's source line, where known."""
    detail: str = ""
    """More about it: ``"32768 B"``, ``"128 repeats"``, ``"64x64x64 (64 fractals)"``."""
    landed: float | None = None
    """For a DMA: when its bytes land, its latency after the span ends."""

    @property
    def cycles(self) -> float:
        """``end - start``."""
        return self.end - self.start


def core_sort_key(core: str) -> tuple[int, int, int]:
    """Order cores as AI core 0's AIC, its AIVs, then AI core 1's...

    >>> sorted(["AIV 1.0", "AIC 1", "AIV 0.1", "AIC 0"], key=core_sort_key)
    ['AIC 0', 'AIV 0.1', 'AIC 1', 'AIV 1.0']
    """
    kind, _, number = core.partition(" ")
    group, _, sub = number.partition(".")
    return (int(group), 0 if kind == "AIC" else 1, int(sub or 0))


@dataclass(frozen=True)
class Timeline:
    """Every span of one launch, and the clock that turns cycles into seconds."""

    clock_ghz: float
    """The core clock."""
    spans: tuple[Span, ...]
    """In the order they started (ties: core, then pipe order)."""
    settled: float = 0.0
    """When the last DMA's bytes landed (a DMA's span ends when its engine is done,
    its bytes arrive a latency later)."""

    @property
    def cycles(self) -> float:
        """When the run is over: the last span's end or the last landing (0 if empty)."""
        return max(max((span.end for span in self.spans), default=0.0), self.settled)

    @property
    def seconds(self) -> float:
        """``cycles`` at the core clock."""
        return self.cycles / (self.clock_ghz * 1e9)

    @property
    def cores(self) -> tuple[str, ...]:
        """The cores that ran something, AI core by AI core."""
        return tuple(sorted({span.core for span in self.spans}, key=core_sort_key))

    def pipes(self, core: str) -> tuple[str, ...]:
        """The pipes of ``core`` that ran something, in ``PIPES`` order."""
        used = {span.pipe for span in self.spans if span.core == core}
        return tuple(pipe for pipe in PIPES if pipe in used)

    def on(self, core: str, pipe: str) -> Iterator[Span]:
        """The spans of one pipe of one core, in time order."""
        return (span for span in self.spans if span.core == core and span.pipe == pipe)

    def busy_cycles(self, core: str, pipe: str) -> float:
        """Cycles the pipe worked (waits excluded)."""
        return sum(span.cycles for span in self.on(core, pipe) if span.kind != "wait")

    def waiting_cycles(self, core: str, pipe: str) -> float:
        """Cycles the pipe stood blocked on a flag or a barrier."""
        return sum(span.cycles for span in self.on(core, pipe) if span.kind == "wait")
