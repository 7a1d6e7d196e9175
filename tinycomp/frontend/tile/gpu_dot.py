"""``tile.dot`` (``linalg.matmul`` on tiles) by the threads of a block (step 6 of
``to_gpu.py``).

``C = A @ B + acc`` with ``A`` of ``M x K``, ``B`` of ``K x N``: each thread computes
the elements of ``C`` its layout gives it, and each of those needs a whole row of ``A``
and a whole column of ``B``, which other threads loaded. So the operands go through
shared memory, as in the block-tiled matmul of chapter 09:

1. ``gpu.barrier`` (the previous trip's readers are done), then each element's first
   copy writes ``A`` transposed (``As[k * M + i]``) and ``B`` as it is
   (``Bs[k * N + j]``): at one ``k``, the threads of a warp then read consecutive
   words of both, which is free of bank conflicts;
2. ``gpu.barrier``;
3. an ``scf.for`` over ``k`` carries the thread's registers of ``C``: each step reads
   the thread's distinct rows of ``As`` and columns of ``Bs`` once (a register tile of
   ``rows x columns`` products from ``rows + columns`` reads), widens them to the
   accumulator's type (``f16`` and ``bf16`` operands accumulate in ``f32``) and adds
   the products (``math.fma`` on ``f32``).

>>> import numpy as np
>>> from tinycomp.frontend.tile import kernel
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> from tinycomp.frontend.tile.to_gpu import lower_to_gpu
>>> @kernel
... def square(a, c):
...     i, j = tl.arange(0, 16), tl.arange(0, 16)
...     tile = tm.load(a + i[:, None] * 16 + j[None, :])
...     tm.store(c + i[:, None] * 16 + j[None, :], tl.dot(tile, tile))
>>> a = np.zeros(256, np.float32)
>>> names = [op.name for op in lower_to_gpu(square.specialize(a, a), 2).walk()]
>>> names.count("gpu.barrier"), names.count("scf.for")
(2, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinycomp.dialects.arith.binary import AddFOp, AddIOp, DivUIOp, MulFOp, MulIOp, RemUIOp, XOrIOp
from tinycomp.dialects.arith.cast import ExtFOp
from tinycomp.dialects.gpu import BarrierOp
from tinycomp.dialects.linalg.named import MatmulOp
from tinycomp.dialects.math import FmaOp
from tinycomp.dialects.memref.access import LoadOp, StoreOp
from tinycomp.dialects.scf import ForOp, YieldOp
from tinycomp.dialects.vector import ExtractOp, FromElementsOp
from tinycomp.dialects.vector import LoadOp as VectorLoadOp
from tinycomp.dialects.vector import StoreOp as VectorStoreOp
from tinycomp.frontend.tile.gpu_conversion import guarded
from tinycomp.frontend.tile.gpu_points import Along, full_point
from tinycomp.ir.builder import Builder
from tinycomp.ir.type_helpers import bitwidth
from tinycomp.ir.types import FloatType, Type, f32
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.frontend.tile.to_gpu import TileLowering

__all__ = ["lower_dot", "vector_runs"]

VECTOR_BYTES = 16
"""The widest shared-memory access (``ld.shared.v4.f32``)."""
SWIZZLE_PHASES = 8
"""How many vector-wide groups of ``A``'s row the swizzle rotates through."""


class Staging:
    """Where an operand's element ``(k, x)`` lives in its buffer: ``k * width + x``,
    ``x`` XOR-swizzled for ``A`` (module docstring)."""

    def __init__(self, lowering: TileLowering, operand: Value, transpose: bool) -> None:
        self.lowering, self.operand, self.transpose = lowering, operand, transpose
        rows, columns = self.shape = lowering.shape(operand)
        self.width = rows if transpose else columns
        element = operand.type.element_type
        self.widest = max(1, VECTOR_BYTES * 8 // bitwidth(element))
        self.phases = SWIZZLE_PHASES if transpose and self.width % (
            self.widest * SWIZZLE_PHASES
        ) == 0 else 1  # fmt: skip
        self.k_run = lowering.layout(self.shape).size_per_thread[1] if transpose else 1
        self.buffer = lowering.shared_buffer(rows * columns, element)
        self.rows: dict[Value, tuple[Value, Value | None]] = {}

    def position(self, k: Value, x: Value) -> Value:
        """The buffer index of element ``(k, x)`` (what depends on ``k`` alone is built
        once per ``k``)."""
        insert, constant = self.lowering.insert, self.lowering.constant
        if k not in self.rows:
            shift = None
            if self.phases > 1:
                group = insert(DivUIOp.build(k, constant(self.k_run))).result
                phase = insert(RemUIOp.build(group, constant(self.phases))).result
                shift = insert(MulIOp.build(phase, constant(self.widest))).result
            self.rows[k] = (insert(MulIOp.build(k, constant(self.width))).result, shift)
        scaled, shift = self.rows[k]
        if shift is not None:
            x = insert(XOrIOp.build(x, shift)).result
        return insert(AddIOp.build(scaled, x)).result

    def write(self) -> None:
        """Step 1: each element's first copy writes it; consecutive ones as a vector."""
        lowering, shape = self.lowering, self.shape
        registers = lowering.held(self.operand)
        x_dim = 0 if self.transpose else 1
        for line in lowering.points.groups_along(shape, 1 - x_dim):
            singles = [[r] for r in line]
            for run in vector_runs(lowering, shape, x_dim, singles, self.widest):
                head = run[0][0]
                k, x = (lowering.coordinate(c) for c in full_point(shape, head))
                if self.transpose:
                    k, x = x, k
                firsts = [lowering.first_copy(None, shape, r[0]) for r in run]
                position = self.position(k, x)
                if len(run) > 1 and all(f is None for f in firsts):
                    packed = lowering.insert(FromElementsOp.build([registers[r[0]] for r in run]))
                    lowering.insert(VectorStoreOp.build(packed.result, self.buffer, [position]))
                    continue
                for j, (single, first) in enumerate(zip(run, firsts, strict=True)):
                    at = position
                    if j:
                        at = lowering.insert(AddIOp.build(position, lowering.constant(j))).result
                    guarded(lowering, first, StoreOp.build(registers[single[0]], self.buffer, [at]))


def vector_runs(
    lowering: TileLowering, shape: tuple[int, ...], dim: int, lines: list[list[int]], widest: int
) -> list[list[list[int]]]:
    """The ``lines`` (registers with one coordinate along ``dim``) in runs read by one
    vector access each: in every thread, a run's coordinates are consecutive and its
    first is a multiple of its length (at most ``widest``)."""
    table = lowering.points.table(shape)[:, :, dim]
    ordered = sorted(lines, key=lambda line: int(table[0, line[0]]))
    runs, start = [], 0
    while start < len(ordered):
        width = widest
        while width > 1:
            run = ordered[start : start + width]
            first = table[:, run[0][0]]
            if (
                len(run) == width
                and not (first % width).any()
                and all((table[:, line[0]] == first + j).all() for j, line in enumerate(run))
            ):
                break
            width //= 2
        runs.append(ordered[start : start + width])
        start += width
    return runs


def _read(lowering: TileLowering, buffer: Value, position: Value, width: int) -> list[Value]:
    """``width`` consecutive elements of ``buffer`` from ``position``: one
    ``vector.load`` when there are several."""
    if width == 1:
        return [lowering.insert(LoadOp.build(buffer, [position])).result]
    lanes = lowering.insert(VectorLoadOp.build(buffer, [position], width)).result
    return [lowering.insert(ExtractOp.build(lanes, [i])).result for i in range(width)]


def _multiply_add(lowering: TileLowering, a: Value, b: Value, c: Value) -> Value:
    """``a * b + c``: one ``math.fma`` on ``f32`` (an ``FFMA``, rounded once), else a
    multiply and an add."""
    if c.type == f32:
        return lowering.insert(FmaOp.build(a, b, c)).result
    product = lowering.insert(MulFOp.build(a, b)).result
    return lowering.insert(AddFOp.build(c, product)).result


def _widen(lowering: TileLowering, value: Value, to: Type) -> Value:
    if value.type == to:
        return value
    return lowering.insert(ExtFOp.build(value, to)).result


def lower_dot(lowering: TileLowering, op: MatmulOp) -> None:
    """Steps 1-3 (module docstring): ``op``'s result held in its layout."""
    a, b = op.inputs
    (m, k), (k_b, n) = lowering.shape(a), lowering.shape(b)
    if k != k_b:
        raise lowering.error(op, f"dot of {m}x{k} and {k_b}x{n}: the inner sizes differ")
    accumulator = op.outputs[0]
    shape = lowering.shape(accumulator)
    element = accumulator.type.element_type
    if not isinstance(element, FloatType):
        raise lowering.error(op, f"a dot accumulating in {element} (expected a float type)")
    lowering.insert(BarrierOp.build())
    a_staging, b_staging = Staging(lowering, a, True), Staging(lowering, b, False)
    a_staging.write()
    b_staging.write()
    lowering.insert(BarrierOp.build())
    initial = lowering.held(accumulator)
    steps = lowering.insert(
        ForOp.build(lowering.zero, lowering.constant(k), lowering.constant(1), initial)
    )
    body = steps.body
    inside = Builder.before(body.terminator) if body.terminator else Builder.at_end(body)
    with lowering.building_at(inside):
        step = steps.induction_var
        row_lines = lowering.points.groups_along(shape, 0)
        column_lines = lowering.points.groups_along(shape, 1)
        a_row, b_column = {}, {}
        for staging, lines, dim, found in (
            (a_staging, row_lines, 0, a_row),
            (b_staging, column_lines, 1, b_column),
        ):
            for run in vector_runs(lowering, shape, dim, lines, staging.widest):
                coordinate = lowering.coordinate(Along(shape, run[0][0], dim))
                position = staging.position(step, coordinate)
                read = _read(lowering, staging.buffer, position, len(run))
                for line, value in zip(run, read, strict=True):
                    value = _widen(lowering, value, element)
                    for register in line:
                        found[register] = value
        updated = []
        for register, partial in enumerate(steps.region_iter_args):
            updated.append(_multiply_add(lowering, a_row[register], b_column[register], partial))
        lowering.insert(YieldOp.build(updated))
    lowering.tiles[op.results[0]] = list(steps.results)
