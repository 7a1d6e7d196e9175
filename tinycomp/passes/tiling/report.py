"""``TilingReport``: what a tiling pass did to every op, as data and as a text table.

A tiling decision is only useful if you can see it: which ops were tiled, into how many
tiles, how big each operand's tile is (what has to fit in a cache, in shared memory or
in an NPU's unified buffer), which producers were fused, which loops were bound to
hardware, and for everything left alone, why. The passes keep one ``TilingResult`` per
op they looked at; ``str(report)`` prints them as a table, with remarks underneath.

>>> from tinycomp.passes.tiling.result import TilingResult
>>> report = TilingReport("linalg-tile")
>>> report.add(TilingResult("'linalg.matmul' %mm", (4, 8, 0), (10, 16, 8),
...                         ("parallel", "parallel", "reduction"),
...                         footprints={"ins0 %a": (4, 8), "ins1 %b": (8, 8), "outs0 %c": (4, 8)}))
>>> report.add(TilingResult("'linalg.generic' %g", (4,), (8,), ("parallel",),
...                         reason="its payload op 'test.print' has side effects"))
>>> print(report)
linalg-tile: 1 of 2 ops tiled
op                   tile sizes  tiles per loop  tiles  tile footprints
'linalg.matmul' %mm  [4, 8, 0]   [3, 2, 1]       6      ins0 %a 4x8, ins1 %b 8x8, outs0 %c 4x8
'linalg.generic' %g  [4]         -               -      not tiled: its payload op 'test.print' \
has side effects
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tinycomp.passes.tiling.result import TilingResult

__all__ = ["TilingReport"]

HEADER = ("op", "tile sizes", "tiles per loop", "tiles", "tile footprints")


@dataclass
class TilingReport:
    """The ``TilingResult`` of every op a tiling pass looked at, in IR order."""

    pass_name: str = ""
    """The pass that made the decisions (the first line of the table)."""
    results: list[TilingResult] = field(default_factory=list)
    """One entry per op."""

    def add(self, result: TilingResult) -> None:
        """Record one op's outcome."""
        self.results.append(result)

    @property
    def tiled(self) -> list[TilingResult]:
        """The entries of ops that were tiled.

        >>> TilingReport().tiled
        []
        """
        return [result for result in self.results if result.tiled]

    @property
    def not_tiled(self) -> list[TilingResult]:
        """The entries of ops left as they were (each with its ``reason``)."""
        return [result for result in self.results if not result.tiled]

    def reasons(self) -> dict[str, str]:
        """Op -> why it was not tiled.

        >>> TilingReport(results=[TilingResult("'linalg.fill' %f", reason="no loops")]).reasons()
        {"'linalg.fill' %f": 'no loops'}
        """
        return {r.op: r.reason for r in self.results if r.reason is not None}

    def __str__(self) -> str:
        rows = [HEADER, *(_row(result) for result in self.results)]
        widths = [max(len(row[column]) for row in rows) for column in range(len(HEADER) - 1)]
        lines = [f"{self.pass_name}: {len(self.tiled)} of {len(self.results)} ops tiled"]
        for row, result in zip(rows, [None, *self.results], strict=True):
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            lines.append("  ".join([*cells, row[-1]]).rstrip())
            if result is not None:
                lines.extend(f"    {remark}" for remark in _remarks(result))
        return "\n".join(lines)


def _row(result: TilingResult) -> tuple[str, ...]:
    """One table row: op, tile sizes, tiles per loop, total tiles, footprints/reason."""
    sizes = _list(result.tile_sizes)
    if not result.tiled:
        return (result.op, sizes, "-", "-", f"not tiled: {result.reason}")
    counts = _list(result.tile_counts)
    total = "?" if result.total_tiles is None else str(result.total_tiles)
    footprints = ", ".join(f"{label} {_shape(s)}" for label, s in result.footprints.items())
    return (result.op, sizes, counts, total, footprints)


def _remarks(result: TilingResult) -> list[str]:
    """The lines under a row: fused producers, bindings, notes."""
    remarks = []
    fused = [op for op in result.tiled_ops[1:] if op.name != "tensor.empty"]
    if fused:
        counts = Counter(_op_name(op) for op in fused)  # a producer may be fused twice
        names = [name if n == 1 else f"{name} (x{n})" for name, n in counts.items()]
        remarks.append(f"fused: {', '.join(names)}")
    if result.bindings:
        bound = [
            f"{_loop_name(result, p)} -> {unit}" for p, unit in sorted(result.bindings.items())
        ]
        remarks.append(f"bound: {', '.join(bound)}")
    remarks.extend(result.notes)
    return remarks


def _op_name(op) -> str:
    """``%exp``, or the op name for an op whose result has no name."""
    hint = op.results[0].name_hint if op.results else None
    return f"%{hint}" if hint else op.name


def _loop_name(result: TilingResult, position: int) -> str:
    """``%m``: the induction variable of tile loop ``position`` (or ``loop 0``)."""
    if position < len(result.loops):
        hint = result.loops[position].body.arguments[0].name_hint
        if hint:
            return f"%{hint}"
    return f"loop {position}"


def _list(values) -> str:
    """``[4, 8, ?]``."""
    return "[" + ", ".join("?" if v is None else str(v) for v in values) + "]"


def _shape(sizes) -> str:
    """``4x8`` (``?`` for unknown sizes, ``scalar`` for rank 0)."""
    return "x".join("?" if s is None else str(s) for s in sizes) or "scalar"
