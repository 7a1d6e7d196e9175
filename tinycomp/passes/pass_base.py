"""Passes: named transformations of the IR, the unit a pass manager runs.

A pass has a ``name`` (how pipelines refer to it: ``"cse"``), a one-line ``summary``
and a ``run(op)`` method that transforms the IR nested in ``op`` in place: the module,
or each function when the pass is nested under ``func.func`` in a pipeline. It may
count what it did in ``statistics`` (``{"ops erased": 3}``); the pass manager collects
those, as ``mlir-opt --mlir-pass-statistics`` does.

``PatternPass`` is the common special case: a pass that applies a list of rewrite
patterns with the greedy driver (``canonicalize`` is one).

>>> from tinycomp.ir import parse
>>> class CountOps(Pass):
...     '''Counts the ops (and changes nothing).'''
...     name = "count-ops"
...     summary = "count the ops"
...     def run(self, op):
...         self.statistics["ops"] += sum(1 for _ in op.walk()) - 1
>>> counter = CountOps()
>>> counter.run(parse("func.func @f() { return }"))
>>> dict(counter.statistics)
{'ops': 2}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

from tinycomp.ir.operation import Operation
from tinycomp.rewrite.driver import apply_patterns_greedily
from tinycomp.rewrite.pattern import RewritePattern

__all__ = ["Pass", "PatternPass"]


class Pass:
    """Base class of passes (see the module docstring)."""

    name: ClassVar[str] = ""
    """The name pipelines use (``"canonicalize"``)."""
    summary: ClassVar[str] = ""
    """One line saying what the pass does."""

    def __init__(self) -> None:
        self.statistics: Counter[str] = Counter()
        """What the pass did, counted by kind (reset by the pass manager before a run)."""

    def run(self, op: Operation) -> None:
        """Transform the IR nested in ``op`` in place."""
        raise NotImplementedError(f"pass '{self.name}' does not implement run")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}'>"


class PatternPass(Pass):
    """A pass that applies ``patterns()`` with the greedy driver until nothing changes.

    ``statistics`` counts the rewrites per pattern (``"AddIZero"``, ``"folding"``).
    """

    def __init__(self, max_iterations: int = 10) -> None:
        super().__init__()
        self.max_iterations = max_iterations
        """The greedy driver's cap on sweeps over the IR."""

    def patterns(self) -> Sequence[RewritePattern]:
        """The patterns to apply (subclasses say which)."""
        raise NotImplementedError(f"pass '{self.name}' does not implement patterns")

    def run(self, op: Operation) -> None:
        result = apply_patterns_greedily(op, self.patterns(), max_iterations=self.max_iterations)
        for (pattern, _op_name), count in result.rewrites.items():
            self.statistics[pattern] += count
