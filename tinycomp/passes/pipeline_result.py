"""What a pass manager run produced: the IR after each pass, timings, statistics.

``PassManager.run`` returns a ``PipelineResult``. Every entry of it is a small frozen
record with named fields, so a reader writes ``stage.name`` and ``stage.text`` rather
than ``stage[0]`` and ``stage[1]``:

* ``result.stages``: one ``Stage(name, text)`` per pass, the IR text after it, the first
  being ``Stage("input", ...)``;
* ``result.timings``: one ``PassTiming(name, seconds)`` per pass;
* ``result.statistics``: one ``PassStatistics(name, counts)`` per pass
  (``{"ops erased": 3}``).

Each record also unpacks like the pair it stands for (``for name, text in
result.stages``), which is how loops over the stages read most naturally.

>>> stage = Stage("cse", "module {\\n}")
>>> stage.name, stage.text.splitlines()[0]
('cse', 'module {')
>>> name, text = stage
>>> PipelineResult(None, stages=[Stage("input", "a"), stage]).final_text
'module {\\n}'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tinycomp.ir.operation import Operation

__all__ = ["PassStatistics", "PassTiming", "PipelineResult", "Stage"]


@dataclass(frozen=True)
class Stage:
    """One stage of a run: the pass name (``"input"`` first) and the IR text after it.

    >>> Stage("input", "module {\\n}")
    Stage(name='input', text='module {\\n}')
    """

    name: str
    """The stage name: ``"input"``, the pass name, or ``func.func(cse)`` when nested."""
    text: str
    """The IR text after the pass (the input's text for ``"input"``)."""

    def __iter__(self) -> Iterator[str]:
        """Unpack as ``name, text``."""
        return iter((self.name, self.text))


@dataclass(frozen=True)
class PassTiming:
    """Seconds one pass took, over all its anchor ops.

    >>> name, seconds = PassTiming("cse", 0.25)
    >>> name, seconds
    ('cse', 0.25)
    """

    name: str
    """The stage name of the pass."""
    seconds: float
    """Wall time of the pass (not counting the verifier and the printer)."""

    def __iter__(self) -> Iterator[Any]:
        """Unpack as ``name, seconds``."""
        return iter((self.name, self.seconds))


@dataclass(frozen=True)
class PassStatistics:
    """The counters one pass reported (its ``statistics``, copied after it ran).

    >>> PassStatistics("dce", {"ops erased": 1}).counts["ops erased"]
    1
    """

    name: str
    """The stage name of the pass."""
    counts: dict[str, int]
    """Counter name to value (``{"ops erased": 3}``)."""

    def __iter__(self) -> Iterator[Any]:
        """Unpack as ``name, counts``."""
        return iter((self.name, self.counts))


@dataclass
class PipelineResult:
    """What a pass manager run produced (see the module docstring)."""

    module: Operation
    """The op the pipeline ran on (changed in place)."""
    stages: list[Stage] = field(default_factory=list)
    """``Stage("input", text)``, then one ``Stage`` per pass (empty without printing)."""
    timings: list[PassTiming] = field(default_factory=list)
    """Seconds spent in each pass, in pipeline order."""
    verify_seconds: float = 0.0
    """Seconds spent verifying (the input and after each pass)."""
    print_seconds: float = 0.0
    """Seconds spent printing the stages."""
    statistics: list[PassStatistics] = field(default_factory=list)
    """Each pass's statistics, in pipeline order."""

    @property
    def final_text(self) -> str:
        """The IR text after the last pass (the last stage's text).

        >>> PipelineResult(None).final_text
        Traceback (most recent call last):
        ...
        ValueError: no stage was printed (the pass manager ran with print_after_each=False)
        """
        if not self.stages:
            raise ValueError(
                "no stage was printed (the pass manager ran with print_after_each=False)"
            )
        return self.stages[-1].text

    def timing_report(self) -> str:
        """A table of the time per pass, as ``mlir-opt --mlir-timing`` prints it.

        >>> result = PipelineResult(None, timings=[PassTiming("cse", 0.003)],
        ...                         verify_seconds=0.001)
        >>> print(result.timing_report())
        ===-------------------------------------------------------------------------===
                                 ... Execution time report ...
        ===-------------------------------------------------------------------------===
          Total Execution Time: 0.0040 seconds
        <BLANKLINE>
          ----Wall Time----  ----Name----
            0.0030 ( 75.0%)  cse
            0.0010 ( 25.0%)  (verifier)
            0.0040 (100.0%)  Total
        """
        rows = [(timing.name, timing.seconds) for timing in self.timings]
        if self.verify_seconds:
            rows.append(("(verifier)", self.verify_seconds))
        if self.print_seconds:
            rows.append(("(printing stages)", self.print_seconds))
        total = sum(seconds for _, seconds in rows)
        rule = "===" + "-" * 73 + "==="
        lines = [
            rule,
            " " * 25 + "... Execution time report ...",
            rule,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, seconds in [*rows, ("Total", total)]:
            percent = 100.0 * seconds / total if total > 0 else 0.0
            lines.append(f"    {seconds:.4f} ({percent:5.1f}%)  {name}")
        return "\n".join(lines)
