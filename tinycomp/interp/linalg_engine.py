"""Running a ``linalg`` op: a loop nest described by indexing maps, around a body.

Every linalg op, named or generic, is the same computation::

    for every point (d0, d1, ...) of the iteration space, in lexicographic order:
        args    = [operand_k[map_k(point)] for each operand k]
        results = body(*args)               # the region, ending in linalg.yield
        output_j[map_j(point)] = results[j]

The loop sizes come from the operand shapes: ``d_i`` takes the size of the first
operand dimension whose map result is exactly ``d_i`` (MLIR's rule).

That loop, run literally, is the **scalar path** (``linalg_scalar.py``): obviously right,
and the only path for bodies with ops that are not elementwise. It is slow in Python
(a 64x64x64 matmul is 262,144 body runs), so the default is the **vectorized path**
(``linalg_vectorized.py``), which runs the body once per *reduction point* on numpy arrays
holding all *parallel points* at once:

1. The parallel dimensions become the axes of a numpy grid; each ``d_i`` is an
   ``arange`` along its axis, so ``map_k(point)`` evaluated on them is an index grid
   and ``operand_k[index_grid]`` gathers the arguments of every parallel point.
2. The reduction points are visited one at a time, in lexicographic order; at each,
   the body (arith/math ops, which are elementwise) runs on whole arrays, and its
   yields become the new values of the outputs' elements (the accumulators).
3. At the end the accumulators are scattered into the outputs.

**Reduction order.** Each output element receives its updates in lexicographic order of
the reduction dimensions, exactly as in the loop nest, so the two paths agree *bit for
bit* (tested), and agree with MLIR's ``-convert-linalg-to-loops``. (``np.add.at`` or
``np.sum`` would sum in another order and change float results.)

The vectorized path needs: every body op elementwise (arith, math, ``linalg.index``,
``linalg.yield``); output maps that use only parallel dimensions and give each parallel
point its own output element; no memref input that shares memory with an output
(where the literal loop order decides what is read). Otherwise the scalar path runs.
"""

from __future__ import annotations

from typing import Any

from tinycomp.interp.errors import InterpreterError
from tinycomp.interp.linalg_problem import (
    LinalgProblem,
    check_maps,
    loop_sizes,
    operand_shape,
)
from tinycomp.interp.linalg_scalar import run_scalar
from tinycomp.interp.linalg_vectorized import can_vectorize, run_vectorized
from tinycomp.ir.location import describe_location


def run_linalg(problem: LinalgProblem, interp: Any) -> list[Any]:
    """Run the op; return one result per tensor output (memref outputs are written)."""
    op = problem.op
    shapes = [operand_shape(value) for value in problem.inputs + problem.outputs]
    check_maps(problem, shapes)
    sizes = loop_sizes(op, problem.indexing_maps, shapes)
    vectorize = interp.vectorize_linalg and can_vectorize(problem)
    interp.linalg_points.append([])
    try:
        if vectorize:
            return run_vectorized(problem, sizes, interp)
        return run_scalar(problem, sizes, interp)
    except InterpreterError as error:
        if error.op is op:
            raise
        where = _describe_point(interp.linalg_points[-1], vectorize)
        raise InterpreterError(
            f"{error.message}\n  in the body of '{op.name}'{describe_location(op.location)}, "
            f"{where}",
            op,
        ) from None
    finally:
        interp.linalg_points.pop()


def _describe_point(point: list[Any], vectorized: bool) -> str:
    """``at the loop point (d0, d1) = (2, 0)``, for an error inside the body."""
    if vectorized:
        return "run on all parallel points at once (vectorize_linalg=False finds the point)"
    dims = ", ".join(f"d{i}" for i in range(len(point)))
    values = ", ".join(str(int(v)) for v in point)
    return f"at the loop point ({dims}) = ({values})"


__all__ = ["LinalgProblem", "run_linalg"]
