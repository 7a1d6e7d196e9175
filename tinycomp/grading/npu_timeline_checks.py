"""Checks of a graded NPU kernel's timeline: the cycles against a budget and, over it,
what the pipes did, in the terms of an Ascend C programmer reading a profile.

* :func:`expect_cycles_at_most` and :func:`explain_over_budget`: the cycles against a
  budget; over it, the critical pipe and its share, the longest wait of each pipe of its
  core and on which flag (the pipe that waited most first), how long copies were in
  flight while the vector unit worked, and what that suggests (a barrier, a copy-in
  waiting for a copy-out, no double buffering);
* :func:`dma_count`, :func:`pipe_waits`, :func:`overlap_cycles`: what those read from
  the timeline.

>>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
>>> timeline = Timeline(1.0, (
...     Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 100.0),
...     Span("AIV 0.0", "V", "wait_flag MTE2->V #0", "wait", 1.0, 600.0, line=12),
...     Span("AIV 0.0", "V", "vadd", "vector", 600.0, 650.0),
...     Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 620.0, 700.0),
... ))
>>> dma_count(timeline), overlap_cycles(timeline, "AIV 0.0", "V", "MTE2")
(2, 30.0)
>>> pipe_waits(timeline)[0]
PipeWait(core='AIV 0.0', pipe='V', flag='wait_flag MTE2->V', cycles=599.0, times=1, lines=(12,))
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from tinycomp.grading.checks import GradingFailure
from tinycomp.npu import NpuLaunchResult
from tinycomp.targets.npu_sim.timeline import Timeline

__all__ = [
    "PipeWait",
    "dma_count",
    "expect_cycles_at_most",
    "explain_over_budget",
    "overlap_cycles",
    "pipe_waits",
]

COPY_PIPES = ("MTE2", "MTE3")
"""The pipes of a vector core that move data in and out of UB."""
_EVENT = re.compile(r"\s+#\d+$")
_FLAG = re.compile(r"wait_flag (?P<src>\w+)->(?P<dst>\w+)")


def _timeline(source: NpuLaunchResult | Timeline) -> Timeline:
    return source.timeline if isinstance(source, NpuLaunchResult) else source


def dma_count(
    source: NpuLaunchResult | Timeline, core: str | None = None, path: str | None = None
) -> int:
    """The DMAs (``npu.copy`` instructions) that ran, on ``core`` if given, over ``path``
    (``"GM->UB"``) if given (see the module's example)."""
    timeline = _timeline(source)
    return sum(
        1
        for span in timeline.spans
        if span.kind == "dma"
        and (core is None or span.core == core)
        and (path is None or span.name == f"copy {path}")
    )


@dataclass(frozen=True)
class PipeWait:
    """How long one pipe of one core stood blocked on one kind of wait, all events."""

    core: str
    pipe: str
    flag: str
    """``"wait_flag MTE2->V"`` (every event id together) or ``"pipe_barrier ALL"``."""
    cycles: float
    times: int
    lines: tuple[int, ...]
    """The kernel's source lines of those waits."""


def pipe_waits(source: NpuLaunchResult | Timeline, core: str | None = None) -> list[PipeWait]:
    """Every (core, pipe, wait) that blocked, the longest first (module's example)."""
    timeline = _timeline(source)
    cycles: dict[tuple[str, str, str], float] = defaultdict(float)
    times: Counter = Counter()
    lines: dict[tuple[str, str, str], set[int]] = defaultdict(set)
    for span in timeline.spans:
        if span.kind != "wait" or (core is not None and span.core != core):
            continue
        key = (span.core, span.pipe, _EVENT.sub("", span.name))
        cycles[key] += span.cycles
        times[key] += 1
        if span.line is not None:
            lines[key].add(span.line)
    waits = [PipeWait(*key, cycles[key], times[key], tuple(sorted(lines[key]))) for key in cycles]
    return sorted(waits, key=lambda wait: -wait.cycles)


def _landing(span: Any) -> float:
    """When a DMA's bytes land, else the span's end."""
    return span.end if span.landed is None else max(span.end, span.landed)


def _intervals(timeline: Timeline, core: str, pipe: str, in_flight: bool) -> list[list[float]]:
    """The merged intervals in which ``pipe`` of ``core`` worked (``in_flight``: a DMA
    counts until its bytes land)."""
    merged: list[list[float]] = []
    spans = sorted(
        (span.start, _landing(span) if in_flight and span.kind == "dma" else span.end)
        for span in timeline.on(core, pipe)
        if span.kind != "wait" and span.end > span.start
    )
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def overlap_cycles(
    timeline: Timeline, core: str, pipe: str, *others: str, in_flight: bool = False
) -> float:
    """The cycles in which ``pipe`` of ``core`` worked while one of ``others`` did too
    (see the module's example); with ``in_flight``, a DMA of ``others`` counts from its
    start until its bytes land, which is what double buffering overlaps.

    >>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
    >>> timeline = Timeline(1.0, (
    ...     Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 64.0, landed=564.0),
    ...     Span("AIV 0.0", "V", "vadd", "vector", 500.0, 550.0),
    ... ))
    >>> overlap_cycles(timeline, "AIV 0.0", "V", "MTE2"), overlap_cycles(
    ...     timeline, "AIV 0.0", "V", "MTE2", in_flight=True)
    (0.0, 50.0)
    """
    mine = _intervals(timeline, core, pipe, False)
    theirs = sorted(
        interval for other in others for interval in _intervals(timeline, core, other, in_flight)
    )
    union: list[list[float]] = []
    for start, end in theirs:
        if union and start <= union[-1][1]:
            union[-1][1] = max(union[-1][1], end)
        else:
            union.append([start, end])
    total, j = 0.0, 0
    for start, end in mine:
        while j < len(union) and union[j][1] <= start:
            j += 1
        k = j
        while k < len(union) and union[k][0] < end:
            total += min(end, union[k][1]) - max(start, union[k][0])
            k += 1
    return total


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%"


def _hint(result: NpuLaunchResult, core: str, waits: list[PipeWait]) -> str:
    """What the long waits suggest, with how much the copies overlapped V: a barrier
    first, then a copy-in waiting for a copy-out, then a vector unit nothing overlaps."""
    timeline = result.timeline
    v_busy = timeline.busy_cycles(core, "V")
    overlap = overlap_cycles(timeline, core, "V", *COPY_PIPES, in_flight=True) if v_busy else 0.0
    overlapped = (
        f"copies (MTE2, MTE3) were in flight during {overlap:.0f} of the vector unit's "
        f"{v_busy:.0f} busy cycles on {core}"
    )
    long = [wait for wait in waits if wait.cycles >= 0.25 * result.cycles]
    flags = {wait.flag for wait in long}
    if any(flag.startswith("pipe_barrier") for flag in flags):
        return (
            f'{overlapped}: a pipe_barrier("ALL") holds the scalar unit until every pipe is '
            "idle and every DMA has landed, so no step overlaps another; order only the two "
            "pipes that share a buffer, with a set_flag / wait_flag pair"
        )
    if "wait_flag MTE3->MTE2" in flags:
        return (
            f"{overlapped}: MTE2 waits for a copy-out before it copies the next tile in; with "
            "two buffers the next copy-in goes to the other buffer (with its own event id), "
            "so it waits only for the copy-out of two tiles ago"
        )
    if v_busy and overlap < 0.5 * v_busy:
        first = _FLAG.match(long[0].flag) if long else None
        idle = f"{first['dst']} stands idle until {first['src']} is done; " if first else ""
        return f"{overlapped}: {idle}are you double-buffering?"
    return overlapped


def _wait_text(wait: PipeWait) -> str:
    where = f", line{'s' if len(wait.lines) > 1 else ''} " if wait.lines else ""
    where += ", ".join(str(line) for line in wait.lines)
    return f"{wait.cycles:.0f} cycles on {wait.flag} ({wait.times} times{where})"


def explain_over_budget(result: NpuLaunchResult, budget: float) -> str:
    """Why a run took more than ``budget`` cycles, as a profiler would say it: the
    critical pipe and its share, the longest wait of each pipe of that core (the pipe
    that waited most first), how much the copies overlapped the vector unit, and what
    that suggests."""
    cycles = result.cycles
    over = cycles / budget - 1 if budget else float("inf")
    critical = result.pipes[result.critical_pipe]
    core = critical.core
    text = (
        f"{cycles:.0f} cycles, the budget is {budget:.0f} ({_percent(over)} over). "
        f"{critical.pipe} is the critical pipe: busy {_percent(critical.share)} of the run "
        f"on {core} (HBM {_percent(result.hbm_share)})"
    )
    waits = pipe_waits(result, core)
    longest: dict[str, PipeWait] = {}
    for wait in waits:
        if wait.pipe not in longest and wait.cycles >= 0.1 * cycles:
            longest[wait.pipe] = wait
    shown = list(longest.values())
    if shown:
        text += f"; {shown[0].pipe} waited the most: {_wait_text(shown[0])}"
        if len(shown) > 1:
            text += "; then " + "; ".join(f"{w.pipe}: {_wait_text(w)}" for w in shown[1:3])
    return f"{text}; {_hint(result, core, shown)}"


def expect_cycles_at_most(what: str, result: NpuLaunchResult, budget: float) -> None:
    """The run took at most ``budget`` cycles; otherwise :func:`explain_over_budget`."""
    if result.cycles > budget:
        raise GradingFailure(f"{what}: {explain_over_budget(result, budget)}")
