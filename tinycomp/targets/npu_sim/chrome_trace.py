"""An NPU timeline as a Chrome trace: open it in Perfetto or ``chrome://tracing``.

The Chrome trace-event format is the JSON that Perfetto (ui.perfetto.dev) and
``chrome://tracing`` read; Ascend's msprof writes its timelines in it, as PyTorch's
profiler does its traces. Its object form is ``{"traceEvents": [...],
"displayTimeUnit": "ns", ...}``: a list of events, each on one thread (``tid``) of one
process (``pid``). Here every core is a process and every pipe a thread, so the viewer
shows one track per pipe per core, the view msprof and Nsight Systems give of a real
chip. ``chrome_trace`` builds it in three steps:

1. one process per core that ran something, numbered in core order (``AIC 0``, its
   ``AIV 0.0``, ``AIV 0.1``, then AI core 1...): ``pid`` 0, 1, 2... with a
   ``process_name`` and a ``process_sort_index`` metadata event (``"ph": "M"``);
2. one thread per pipe of that core that ran something: ``tid`` is the pipe's index in
   ``PIPES`` (``S`` 0, ``MTE2`` 1, ... ``MTE3`` 6), with ``thread_name`` and
   ``thread_sort_index`` metadata, so the tracks keep the pictures' order;
3. one complete event (``"ph": "X"``) per span, waits included (``cat`` is the span's
   kind, ``"wait"`` for a wait): ``ts`` and ``dur`` in microseconds, the format's unit
   (cycles / clock in GHz / 1000), and ``args`` with the cycles, the first cycle, the
   kernel's line and the detail. Events come in time order (ties: core, then pipe), so
   the same timeline always gives the same trace, whatever order its spans were in.

>>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
>>> timeline = Timeline(clock_ghz=1.0, spans=(
...     Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 756.0, line=4),
...     Span("AIV 0.0", "V", "vadd", "vector", 756.0, 1016.0, line=6),
... ))
>>> trace = chrome_trace(timeline)
>>> [(e["ph"], e["name"], e["args"].get("name")) for e in trace["traceEvents"][:3]]
[('M', 'process_name', 'AIV 0.0'), ('M', 'process_sort_index', None), ('M', 'thread_name', 'MTE2')]
>>> vadd = trace["traceEvents"][-1]
>>> vadd["pid"], vadd["tid"], vadd["ts"], vadd["dur"], vadd["cat"]
(0, 5, 0.756, 0.26, 'vector')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tinycomp.targets.npu_sim.timeline import PIPES, Span, Timeline, core_sort_key

__all__ = ["chrome_trace", "write_chrome_trace"]

TraceEvent = dict[str, Any]
"""One event of the trace, as the JSON object it becomes."""


def _microseconds(cycles: float, clock_ghz: float) -> float:
    """``cycles`` of a ``clock_ghz`` clock in microseconds (the trace format's unit)."""
    return cycles / clock_ghz / 1000.0


def _metadata(name: str, pid: int, tid: int, args: dict[str, Any]) -> TraceEvent:
    return {"ph": "M", "name": name, "pid": pid, "tid": tid, "args": args}


def _pipe_index(span: Span) -> int:
    if span.pipe not in PIPES:
        raise ValueError(
            f"span {span.name!r} on core {span.core}: expected a pipe in {PIPES}, got {span.pipe!r}"
        )
    return PIPES.index(span.pipe)


def chrome_trace(timeline: Timeline) -> dict[str, Any]:
    """The Chrome trace of ``timeline`` (module docstring): metadata naming one process
    per core and one thread per pipe, then one complete event per span.

    >>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
    >>> timeline = Timeline(clock_ghz=2.0, spans=(
    ...     Span("AIC 0", "M", "mmad", "cube", 0.0, 512.0, detail="64x64x64"),
    ... ))
    >>> trace = chrome_trace(timeline)
    >>> trace["displayTimeUnit"], trace["otherData"]["clock_ghz"]
    ('ns', 2.0)
    >>> mmad = trace["traceEvents"][-1]
    >>> mmad["name"], mmad["dur"], mmad["args"]["cycles"], mmad["args"]["detail"]
    ('mmad', 0.256, 512.0, '64x64x64')
    """
    if timeline.clock_ghz <= 0:
        raise ValueError(f"expected a positive clock in GHz, got {timeline.clock_ghz}")
    for span in timeline.spans:
        _pipe_index(span)  # every pipe must be known before anything is numbered
    pid_of = {core: pid for pid, core in enumerate(timeline.cores)}
    events: list[TraceEvent] = []
    for core, pid in pid_of.items():
        events.append(_metadata("process_name", pid, 0, {"name": core}))
        events.append(_metadata("process_sort_index", pid, 0, {"sort_index": pid}))
        for pipe in timeline.pipes(core):
            tid = PIPES.index(pipe)
            events.append(_metadata("thread_name", pid, tid, {"name": pipe}))
            events.append(_metadata("thread_sort_index", pid, tid, {"sort_index": tid}))
    spans = sorted(
        timeline.spans,
        key=lambda s: (s.start, core_sort_key(s.core), _pipe_index(s), s.end, s.name),
    )
    clock = timeline.clock_ghz
    for span in spans:
        events.append(
            {
                "ph": "X",
                "name": span.name,
                "cat": span.kind,
                "pid": pid_of[span.core],
                "tid": _pipe_index(span),
                "ts": _microseconds(span.start, clock),
                "dur": _microseconds(span.cycles, clock),
                "args": {
                    "cycles": span.cycles,
                    "start_cycle": span.start,
                    "line": span.line,
                    "detail": span.detail,
                },
            }
        )
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "clock_ghz": clock,
            "cycles": timeline.cycles,
            "cores": len(pid_of),
            "source": "tinycomp NPU simulator",
        },
    }


def write_chrome_trace(timeline: Timeline, path: str | Path) -> Path:
    """Write ``chrome_trace(timeline)`` to ``path`` as JSON (keys sorted, one line, a
    final newline: the same timeline always gives the same bytes); return the path.
    Open the file in ui.perfetto.dev or ``chrome://tracing``.

    >>> import json, tempfile
    >>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
    >>> timeline = Timeline(1.0, (Span("AIV 0.1", "V", "vexp", "vector", 10.0, 74.0),))
    >>> path = write_chrome_trace(timeline, tempfile.mkdtemp() + "/trace.json")
    >>> events = json.loads(path.read_text())["traceEvents"]
    >>> events[0]["args"], events[-1]["ts"], events[-1]["dur"]
    ({'name': 'AIV 0.1'}, 0.01, 0.064)
    """
    path = Path(path)
    text = json.dumps(chrome_trace(timeline), sort_keys=True, separators=(",", ":"))
    path.write_text(text + "\n", encoding="utf-8")
    return path
