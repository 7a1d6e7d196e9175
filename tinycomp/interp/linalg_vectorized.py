"""The vectorized path of the linalg engine: the body once per reduction point, on numpy
arrays that hold all the parallel points at once.

1. The parallel dimensions become the axes of a numpy grid; each ``d_i`` is an
   ``arange`` along its axis, so ``map_k(point)`` evaluated on them is an index grid
   and ``operand_k[index_grid]`` gathers the arguments of every parallel point.
2. The reduction points are visited one at a time, in lexicographic order; at each,
   the body (arith/math ops, which are elementwise) runs on whole arrays, and its
   yields become the new values of the outputs' elements (the accumulators).
3. At the end the accumulators are scattered into the outputs.

Each output element thus receives its updates in the loop nest's order, and the result
is bit for bit the scalar path's. ``can_vectorize`` says when this is allowed: every
body op elementwise (arith, math, ``linalg.index``, ``linalg.yield``); output maps that
use only parallel dimensions; no memref input sharing memory with an output. When
several parallel points write one output element, the scalar path runs instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.interp.errors import format_index, op_error
from tinycomp.interp.linalg_problem import (
    REDUCTION,
    LinalgProblem,
    check_in_bounds,
    check_yields,
)
from tinycomp.interp.linalg_scalar import run_scalar
from tinycomp.interp.memory import MemRefValue, check_live, check_writable
from tinycomp.interp.tensors import make_tensor, tensor_parts, writable_copy
from tinycomp.ir.region import Region
from tinycomp.ir.types import FloatType, IndexType, IntegerType

SCALAR_TYPES = (IntegerType, FloatType, IndexType)
"""Types of the values a body computes on (one element each)."""

ELEMENTWISE_PREFIXES = ("arith.", "math.")
"""Ops whose rules work on whole arrays, elementwise (plus linalg.index and yield)."""


def _body_is_elementwise(body: Region) -> bool:
    if len(body.blocks) != 1:
        return False
    for op in body.blocks[0]:
        if op.name in ("linalg.index", "linalg.yield"):
            continue
        if not op.name.startswith(ELEMENTWISE_PREFIXES) or op.regions:
            return False
        if op.name == "arith.constant" and not isinstance(op.results[0].type, SCALAR_TYPES):
            return False  # a dense constant is a whole tensor, not one element
    return True


def can_vectorize(problem: LinalgProblem) -> bool:
    """True when the vectorized path computes exactly what the loop nest computes."""
    if not _body_is_elementwise(problem.body):
        return False
    reduction_dims = {d for d, kind in enumerate(problem.iterator_types) if kind == REDUCTION}
    n_inputs = len(problem.inputs)
    for affine_map in problem.indexing_maps[n_inputs:]:
        if reduction_dims & set(affine_map.used_dims()):
            return False
    output_buffers = [v.buffer for v in problem.outputs if isinstance(v, MemRefValue)]
    if len({id(buffer) for buffer in output_buffers}) != len(output_buffers):
        return False  # two outputs in one buffer: the order of their writes matters
    for value in problem.inputs:
        if isinstance(value, MemRefValue) and any(value.buffer is b for b in output_buffers):
            return False  # an input that an output overwrites while the loops run
    return True


def run_vectorized(problem: LinalgProblem, sizes: list[int], interp: Any) -> list[Any]:
    """Body once per reduction point, on arrays over all parallel points."""
    maps = problem.indexing_maps
    parallel = [d for d, kind in enumerate(problem.iterator_types) if kind != REDUCTION]
    reduction = [d for d, kind in enumerate(problem.iterator_types) if kind == REDUCTION]
    grid = tuple(sizes[d] for d in parallel)
    points: list[Any] = [0] * len(sizes)
    for axis, d in enumerate(parallel):  # d_i = arange along its own grid axis
        shape = [1] * len(grid)
        shape[axis] = sizes[d]
        points[d] = np.arange(sizes[d], dtype=np.int64).reshape(shape)
    operands = _gather_sources(problem)
    arguments = problem.body.blocks[0].arguments
    n_inputs = len(problem.inputs)

    out_indices, accumulators = [], []
    for j in range(len(problem.outputs)):
        k = n_inputs + j
        index = tuple(np.broadcast_to(np.asarray(e), grid) for e in maps[k].evaluate(points))
        check_in_bounds(problem, k, index, operands[k][0].shape, grid)
        if not _distinct(index, operands[k][0].shape, grid):
            return run_scalar(problem, sizes, interp)  # several points share an element
        out_indices.append(index)
        accumulators.append(_read(problem, k, operands[k], index, grid, arguments))

    steps = itertools.product(*(range(sizes[d]) for d in reduction))
    ran = False
    for step in steps:
        ran = True
        for d, value in zip(reduction, step, strict=True):
            points[d] = value
        interp.linalg_points[-1] = points
        values = []
        for k in range(n_inputs):
            index = maps[k].evaluate(points)
            check_in_bounds(problem, k, index, operands[k][0].shape, grid)
            values.append(_read(problem, k, operands[k], index, grid, arguments))
        block_values = (values + accumulators)[: len(arguments)]
        yields = interp.run_region(problem.body, block_values)
        accumulators = _new_accumulators(problem, yields, grid)
    if not ran or 0 in grid:
        accumulators = None  # nothing was computed: the outputs stay as they are
    return _write_outputs(problem, out_indices, accumulators)


def _gather_sources(problem: LinalgProblem) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """``(data, initialized)`` of every operand as arrays (memrefs are copied out)."""
    sources = []
    for k, value in enumerate(problem.inputs + problem.outputs):
        if isinstance(value, MemRefValue):
            check_live(problem.op, value, problem.names[k])
            positions = value.linear_indices()
            sources.append((value.buffer.data[positions], value.buffer.initialized[positions]))
        elif isinstance(value, np.generic):
            sources.append((np.asarray(value), None))
        else:
            sources.append(tensor_parts(value))
    return sources


def _distinct(index: tuple, shape: tuple, grid: tuple) -> bool:
    """True when every parallel point maps to its own output element."""
    count = int(np.prod(grid))
    if count <= 1:
        return True
    if not index:
        return False
    flat = np.ravel_multi_index([np.asarray(i).reshape(-1) for i in index], shape)
    return np.unique(flat).size == count


def _read(
    problem: LinalgProblem, k: int, source: tuple, index: tuple, grid: tuple, arguments: Sequence
) -> Any:
    """Operand ``k``'s elements at ``index``, broadcast to the grid; reading elements never
    written is an error when the body uses the argument."""
    data, initialized = source
    index = tuple(index)
    used = k < len(arguments) and arguments[k].has_uses
    if used and initialized is not None:
        missing = ~np.broadcast_to(initialized[index], grid)
        if np.any(missing):
            first = tuple(np.argwhere(missing)[0]) if grid else ()
            element = [int(np.broadcast_to(np.asarray(i), grid)[first]) for i in index]
            raise op_error(
                problem.op,
                f"reads {problem.names[k]}{format_index(element)}, which was never written",
            )
    values = np.broadcast_to(data[index], grid)
    return values if grid else values[()]


def _new_accumulators(problem: LinalgProblem, yields: list[Any], grid: tuple) -> list[Any]:
    """The yields, checked and broadcast over the grid of parallel points."""
    check_yields(problem, yields)
    accumulators = []
    for value in yields:
        array = np.broadcast_to(np.asarray(value), grid)
        accumulators.append(array if grid else array[()])
    return accumulators


def _write_outputs(
    problem: LinalgProblem, out_indices: list[tuple], accumulators: list[Any] | None
) -> list[Any]:
    """Scatter the accumulators into the outputs: memrefs in place, tensors as new values
    (``None``: nothing ran, every output stays as it was)."""
    results = []
    for j, output in enumerate(problem.outputs):
        name = problem.names[len(problem.inputs) + j]
        if isinstance(output, MemRefValue):
            check_writable(problem.op, output, name)
            if accumulators is not None:
                positions = output.linear_indices()[out_indices[j]]
                output.buffer.data[positions] = accumulators[j]
                output.buffer.initialized[positions] = True
            continue
        if accumulators is None:
            results.append(output)
            continue
        data, initialized = writable_copy(output)
        data[out_indices[j]] = accumulators[j]
        initialized[out_indices[j]] = True
        results.append(make_tensor(data, initialized))
    return results


__all__ = ["ELEMENTWISE_PREFIXES", "can_vectorize", "run_vectorized"]
