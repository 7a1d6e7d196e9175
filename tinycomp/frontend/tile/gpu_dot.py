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
   the products.

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

from tinycomp.dialects.arith.binary import AddFOp, AddIOp, MulFOp, MulIOp
from tinycomp.dialects.arith.cast import ExtFOp
from tinycomp.dialects.gpu import BarrierOp
from tinycomp.dialects.linalg.named import MatmulOp
from tinycomp.dialects.memref.access import LoadOp, StoreOp
from tinycomp.dialects.scf import ForOp, YieldOp
from tinycomp.frontend.tile.gpu_conversion import guarded
from tinycomp.frontend.tile.gpu_points import Along, full_point
from tinycomp.ir.builder import Builder
from tinycomp.ir.types import FloatType, Type
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.frontend.tile.to_gpu import TileLowering

__all__ = ["lower_dot"]


def _stage(lowering: TileLowering, value: Value, transpose: bool) -> Value:
    """Step 1 for one operand: its buffer, written by each element's first copy."""
    rows, columns = lowering.shape(value)
    buffer = lowering.shared_buffer(rows * columns, value.type.element_type)
    for register, element in enumerate(lowering.held(value)):
        point = full_point((rows, columns), register)
        row, column = (lowering.coordinate(c) for c in point)
        if transpose:
            row, column, width = column, row, rows
        else:
            width = columns
        scaled = lowering.insert(MulIOp.build(row, lowering.constant(width))).result
        position = lowering.insert(AddIOp.build(scaled, column)).result
        first = lowering.first_copy(None, (rows, columns), register)
        guarded(lowering, first, StoreOp.build(element, buffer, [position]))
    return buffer


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
    a_shared = _stage(lowering, a, transpose=True)
    b_shared = _stage(lowering, b, transpose=False)
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
        for buffer, lines, dim, width, found in (
            (a_shared, row_lines, 0, m, a_row),
            (b_shared, column_lines, 1, n, b_column),
        ):
            base = lowering.insert(MulIOp.build(step, lowering.constant(width))).result
            for line in lines:
                coordinate = lowering.coordinate(Along(shape, line[0], dim))
                position = lowering.insert(AddIOp.build(base, coordinate)).result
                value = lowering.insert(LoadOp.build(buffer, [position])).result
                value = _widen(lowering, value, element)
                for register in line:
                    found[register] = value
        updated = []
        for register, partial in enumerate(steps.region_iter_args):
            product = lowering.insert(MulFOp.build(a_row[register], b_column[register])).result
            updated.append(lowering.insert(AddFOp.build(partial, product)).result)
        lowering.insert(YieldOp.build(updated))
    lowering.tiles[op.results[0]] = list(steps.results)
