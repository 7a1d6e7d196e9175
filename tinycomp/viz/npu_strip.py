"""A coarse ASCII Gantt strip of an NPU timeline: one character a column, one row a pipe.

The text twin of ``npu_timeline_picture`` ends with it, so that a reader of the text
alone sees where the pipes overlapped and where they stood still. A row is made in
three steps:

1. the run's ``cycles`` are cut into ``columns`` equal columns (``STRIP_COLUMNS``);
2. in each column, every kind of span on the pipe gets the cycles it covers there, and
   idle gets the rest of the column;
3. the column shows the character of whatever covered most of it (``STRIP_CHARS``: ``=``
   dma, ``#`` vector, ``M`` cube, ``s`` scalar or flag, ``.`` wait, a space for idle); a
   tie goes to work over waiting, and to waiting over idle. An op shorter than half a
   column may not show: the table above the strip counts every op.

>>> from tinycomp.targets.npu_sim.timeline import Span, Timeline
>>> timeline = Timeline(clock_ghz=1.0, spans=(
...     Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 500.0),
...     Span("AIV 0.0", "V", "wait_flag MTE2->V", "wait", 0.0, 500.0),
...     Span("AIV 0.0", "V", "vadd", "vector", 500.0, 800.0),
... ))
>>> print("\\n".join(strip_lines(timeline, ["AIV 0.0"], columns=10)))
pipes over time: 10 columns of 80 cycles (= dma, # vector, M cube, s scalar or flag, . wait)
  AIV 0.0  MTE2  |======    |
           V     |......####|
                 0        800
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tinycomp.targets.npu_sim.timeline import Span, Timeline

__all__ = ["STRIP_CHARS", "STRIP_COLUMNS", "pipe_strip", "strip_lines"]

STRIP_COLUMNS = 60
"""Columns of a strip: a column is ``cycles / 60`` cycles."""

STRIP_CHARS = {"cube": "M", "vector": "#", "dma": "=", "scalar": "s", "flag": "s", "wait": "."}
"""The character of each kind of span (idle is a space), in tie-breaking order."""

_PRIORITY = ("M", "#", "=", "s", ".", " ")


def pipe_strip(spans: Iterable[Span], cycles: float, columns: int = STRIP_COLUMNS) -> str:
    """One pipe's row of ``columns`` characters over ``[0, cycles)`` (module docstring).

    >>> copy = Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 50.0)
    >>> pipe_strip([copy], cycles=100.0, columns=10)
    '=====     '
    """
    if columns < 1:
        raise ValueError(f"expected at least one column, got {columns}")
    covered = [dict.fromkeys(_PRIORITY, 0.0) for _ in range(columns)]
    if cycles <= 0:
        return " " * columns
    for span in spans:
        if span.kind not in STRIP_CHARS:
            raise ValueError(
                f"span {span.name!r} on {span.core} {span.pipe}: expected a kind in "
                f"{sorted(STRIP_CHARS)}, got {span.kind!r}"
            )
        char = STRIP_CHARS[span.kind]
        # In units of cycles * columns, column c is [c * cycles, (c + 1) * cycles): exact
        # for whole cycles, so no rounding decides a column.
        start, end = span.start * columns, span.end * columns
        first = max(0, int(start // cycles))
        last = min(columns - 1, int(end // cycles))
        for column in range(first, last + 1):
            low, high = column * cycles, (column + 1) * cycles
            covered[column][char] += max(0.0, min(end, high) - max(start, low))
    row = []
    for share in covered:
        share[" "] = max(0.0, cycles - sum(share.values()))
        row.append(max(_PRIORITY, key=lambda char: (share[char], -_PRIORITY.index(char))))
    return "".join(row)


def strip_lines(
    timeline: Timeline, cores: Sequence[str], columns: int = STRIP_COLUMNS
) -> list[str]:
    """The strip of every pipe that ran something on ``cores``: a heading, one row a pipe
    (the core named on its first), and a ruler from cycle 0 to the last (module docstring).

    >>> timeline = Timeline(1.0, (Span("AIC 0", "M", "mmad", "cube", 30.0, 60.0),))
    >>> strip_lines(timeline, ["AIC 0"], columns=6)[1]
    '  AIC 0  M  |   MMM|'
    """
    total = timeline.cycles
    legend = "= dma, # vector, M cube, s scalar or flag, . wait"
    lines = [
        f"pipes over time: {columns} columns of {total / columns:.3g} cycles ({legend})",
    ]
    core_width = max((len(core) for core in cores), default=0)
    pipe_width = max((len(pipe) for core in cores for pipe in timeline.pipes(core)), default=0)
    for core in cores:
        for number, pipe in enumerate(timeline.pipes(core)):
            label = core if number == 0 else ""
            row = pipe_strip(timeline.on(core, pipe), total, columns)
            lines.append(f"  {label:<{core_width}}  {pipe:<{pipe_width}}  |{row}|")
    indent = " " * (2 + core_width + 2 + pipe_width + 2)
    lines.append(f"{indent}0{str(round(total)).rjust(columns + 1)}")
    return lines
