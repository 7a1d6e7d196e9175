"""The scalar path of the linalg engine: the loop nest, one iteration point at a time.

This is the definition of what a linalg op means, run literally: for every point in
lexicographic order, read each operand's element at ``map_k(point)``, run the body,
write the yields at the outputs' ``map_j(point)``. Memref operands are read and written
in place, so ops whose inputs and outputs share memory see each other's writes in loop
order, as the loops ``-convert-linalg-to-loops`` makes would.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from tinycomp.interp.errors import format_index, op_error
from tinycomp.interp.linalg_problem import LinalgProblem, check_in_bounds, check_yields
from tinycomp.interp.memory import MemRefValue, check_index, check_live, load, store
from tinycomp.interp.tensors import make_tensor, tensor_parts, writable_copy


def run_scalar(problem: LinalgProblem, sizes: list[int], interp: Any) -> list[Any]:
    """The loop nest, one point at a time (memref operands are accessed in place)."""
    maps = problem.indexing_maps
    arguments = problem.body.blocks[0].arguments
    n_inputs = len(problem.inputs)
    operands: list[Any] = list(problem.inputs)
    for output in problem.outputs:  # tensor outputs: a working copy to update
        if isinstance(output, MemRefValue):
            operands.append(output)
        else:
            operands.append(writable_copy(output))
    for point in itertools.product(*(range(size) for size in sizes)):
        interp.linalg_points[-1] = list(point)
        values = []
        for k, operand in enumerate(operands[: len(arguments)]):
            used = arguments[k].has_uses
            values.append(_read_element(problem, k, operand, maps[k].evaluate(point), used))
        yields = interp.run_region(problem.body, values)
        check_yields(problem, yields)
        for j, value in enumerate(yields):
            k = n_inputs + j
            _write_element(problem, k, operands[k], maps[k].evaluate(point), value)
    results = []
    for j, output in enumerate(problem.outputs):
        if not isinstance(output, MemRefValue):
            results.append(make_tensor(*operands[n_inputs + j]))
    return results


def _read_element(problem: LinalgProblem, k: int, operand: Any, index: tuple, used: bool) -> Any:
    name = problem.names[k]
    if isinstance(operand, MemRefValue):
        if not used:  # still a real access: check it, but the value does not matter
            check_live(problem.op, operand, name)
            check_index(problem.op, operand, index, name)
            return operand.dtype.type(0)
        return load(problem.op, operand, index, name)
    if isinstance(operand, np.generic):
        return operand
    data, initialized = operand if isinstance(operand, tuple) else tensor_parts(operand)
    check_in_bounds(problem, k, index, data.shape, ())
    if used and initialized is not None and not initialized[index]:
        raise op_error(problem.op, f"reads {name}{format_index(index)}, which was never written")
    return data[index]


def _write_element(problem: LinalgProblem, k: int, operand: Any, index: tuple, value: Any) -> None:
    if isinstance(operand, MemRefValue):
        store(problem.op, operand, index, value, problem.names[k])
        return
    data, initialized = operand
    check_in_bounds(problem, k, index, data.shape, ())
    data[index], initialized[index] = value, True


__all__ = ["run_scalar"]
