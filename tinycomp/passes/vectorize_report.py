"""``VectorizationReport``: what ``vectorize-loops`` decided for every innermost loop.

A vectorizer that silently leaves a loop scalar is the most common performance surprise
there is, so every decision is kept with its reason, like LLVM's optimization remarks
(``clang -Rpass=loop-vectorize -Rpass-missed=loop-vectorize``)::

    vectorize-loops (width 8): 1 of 2 innermost loops vectorized
    loop                   trip count  decision
    @main #1 scf.for %d1   32          vectorized: 1 vector load, 1 vector store; ...
    @main #2 scf.for %d2   32          left alone: 'memref.load %b[%d2, %d1] ...': ...

>>> report = VectorizationReport(width=8)
>>> report.add(LoopDecision("@f #1 scf.for %j", trip_count=37, vectorized=True,
...                         summary="2 vector loads, 1 vector store", remainder=5))
>>> report.add(LoopDecision("@f #2 scf.for %k", trip_count=3, reason="trip count 3 ..."))
>>> print(report)
vectorize-loops (width 8): 1 of 2 innermost loops vectorized
loop              trip count  decision
@f #1 scf.for %j  37          vectorized: 2 vector loads, 1 vector store; scalar epilogue: 5 \
iterations
@f #2 scf.for %k  3           left alone: trip count 3 ...
>>> report.reasons()
{'@f #2 scf.for %k': 'trip count 3 ...'}
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["LoopDecision", "VectorizationReport"]


@dataclass
class LoopDecision:
    """One innermost loop: vectorized (with what it became) or left alone (with why)."""

    loop: str
    """``@main #3 scf.for %d1``: the function, the loop's number among the innermost
    loops of that function, its induction variable."""
    trip_count: int | None = None
    """``upper - lower`` when both are constants."""
    vectorized: bool = False
    reason: str | None = None
    """Why the loop was left alone."""
    summary: str = ""
    """What the vector loop holds: ``2 vector loads, 1 vector store, 3 widened ops``."""
    reductions: tuple[str, ...] = ()
    """Each reduction: ``add (memory %alloc)``, ``maximumf (iter_arg #0)``."""
    remainder: int | str = 0
    """Iterations left to the scalar epilogue: a number, or ``"dynamic"``."""

    def decision(self) -> str:
        """The last column of the report's table."""
        if not self.vectorized:
            return f"left alone: {self.reason}"
        parts = [self.summary] if self.summary else []
        if self.reductions:
            parts.append("reductions " + ", ".join(self.reductions))
        if self.remainder == "dynamic":
            parts.append("scalar epilogue for the last (ub - lb) mod width iterations")
        elif self.remainder:
            parts.append(f"scalar epilogue: {self.remainder} iterations")
        else:
            parts.append("no epilogue")
        return "vectorized: " + "; ".join(parts)


@dataclass
class VectorizationReport:
    """Every innermost loop the pass looked at, in IR order."""

    width: int = 8
    """The vector width the pass used."""
    decisions: list[LoopDecision] = field(default_factory=list)

    def add(self, decision: LoopDecision) -> None:
        """Record one loop."""
        self.decisions.append(decision)

    @property
    def vectorized(self) -> list[LoopDecision]:
        """The loops that became vector loops."""
        return [d for d in self.decisions if d.vectorized]

    @property
    def left_alone(self) -> list[LoopDecision]:
        """The loops left as they were (each with its reason)."""
        return [d for d in self.decisions if not d.vectorized]

    def reasons(self) -> dict[str, str]:
        """Loop -> why it was left alone."""
        return {d.loop: d.reason for d in self.decisions if d.reason is not None}

    def __str__(self) -> str:
        header = ("loop", "trip count", "decision")
        rows = [header]
        for d in self.decisions:
            trips = "?" if d.trip_count is None else str(d.trip_count)
            rows.append((d.loop, trips, d.decision()))
        widths = [max(len(row[column]) for row in rows) for column in range(2)]
        lines = [
            f"vectorize-loops (width {self.width}): {len(self.vectorized)} of "
            f"{len(self.decisions)} innermost loops vectorized"
        ]
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            lines.append("  ".join([*cells, row[2]]).rstrip())
        return "\n".join(lines)
