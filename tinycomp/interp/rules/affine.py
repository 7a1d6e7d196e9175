"""Rules for affine: loops, conditions and memory accesses described by affine maps.

Every affine op carries a map (or an integer set) and takes its dimension operands
first, then its symbol operands; ``tinycomp.affine`` evaluates it on Python ints, so
``floordiv``/``ceildiv``/``mod`` round exactly as MLIR says. Loop bounds with several
results take the max (lower bound) or the min (upper bound) of them.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import Interpreter
>>> m = parse('''
... func.func @tail(%n: index) -> index {
...   %c0 = arith.constant 0 : index
...   %r = "affine.for"(%n, %n, %c0) <{lowerBoundMap = affine_map<(d0) -> (d0 - 3, 0)>,
...       operandSegmentSizes = array<i32: 1, 1, 1>, step = 1 : index,
...       upperBoundMap = affine_map<()[s0] -> (s0)>}> ({
...   ^bb0(%i: index, %acc: index):
...     %s = arith.addi %acc, %i : index
...     "affine.yield"(%s) : (index) -> ()
...   }) : (index, index, index) -> index
...   return %r : index
... }''')
>>> [int(v) for v in Interpreter(m).call("tail", [np.int64(5)])]   # 2 + 3 + 4
[9]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.affine import AffineMap
from tinycomp.interp.control import Exit
from tinycomp.interp.errors import describe_value, op_error
from tinycomp.interp.memory import load, store
from tinycomp.interp.rules.common import DYNAMIC_SENTINEL, attr, int_attr, int_list, mixed_values
from tinycomp.ir.attributes import AffineMapAttr, IntegerSetAttr
from tinycomp.ir.operation import Operation


def map_attr(op: Operation, name: str) -> Any:
    """The ``tinycomp.affine.AffineMap`` in attribute ``name``."""
    value = attr(op, name)
    if not isinstance(value, AffineMapAttr):
        raise op_error(op, f"expected '{name}' to be an affine_map, got {value}")
    return value.map


def apply_map(op: Operation, affine_map: Any, inputs: Sequence[Any]) -> list[int]:
    """Evaluate ``affine_map`` on index values: the first ``num_dims`` are the
    dimensions, the rest the symbols."""
    if len(inputs) != affine_map.num_inputs:
        raise op_error(
            op, f"expected {affine_map.num_inputs} operands for {affine_map}, got {len(inputs)}"
        )
    values = [int(v) for v in inputs]
    try:
        return list(
            affine_map.evaluate(values[: affine_map.num_dims], values[affine_map.num_dims :])
        )
    except ValueError as exc:  # a non-positive symbolic divisor
        raise op_error(op, f"cannot evaluate {affine_map} at {values}: {exc}") from None


def run_for(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.for %i = max(lower map) to min(upper map) step c``."""
    lower_map, upper_map = map_attr(op, "lowerBoundMap"), map_attr(op, "upperBoundMap")
    split = lower_map.num_inputs
    end = split + upper_map.num_inputs
    lower = max(apply_map(op, lower_map, operands[:split]))
    upper = min(apply_map(op, upper_map, operands[split:end]))
    step = int_attr(op, "step", default=1)
    if step <= 0:
        raise op_error(op, f"expected a positive step, got {step}")
    carried = list(operands[end:])
    for iv in range(lower, upper, step):
        carried = interp.run_region(op.regions[0], [np.int64(iv), *carried])
    return carried


def run_if(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.if #set(dims)[symbols]``: the then-region if every constraint holds."""
    condition = attr(op, "condition")
    if not isinstance(condition, IntegerSetAttr):
        raise op_error(op, f"expected 'condition' to be an affine_set, got {condition}")
    integer_set = condition.set
    values = [int(v) for v in operands]
    holds = integer_set.contains(values[: integer_set.num_dims], values[integer_set.num_dims :])
    region = op.regions[0] if holds else op.regions[1]
    return interp.run_region(region, []) if region.blocks else []


def _map_or_identity(op: Operation, rank: int) -> Any:
    if "map" in op.attributes:
        return map_attr(op, "map")
    return AffineMap.identity(rank)


def run_load(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.load %m[map(operands)]``."""
    memref, *inputs = operands
    index = apply_map(op, _map_or_identity(op, memref.rank), inputs)
    return [load(op, memref, index, describe_value(op.operand(0)))]


def run_store(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.store %v, %m[map(operands)]``."""
    value, memref, *inputs = operands
    index = apply_map(op, _map_or_identity(op, memref.rank), inputs)
    store(op, memref, index, value, describe_value(op.operand(1)))
    return []


def run_apply(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.apply map(operands)`` (a one-result map)."""
    (value,) = apply_map(op, map_attr(op, "map"), operands)
    return [np.int64(value)]


def run_min(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.min``: the smallest result of the map."""
    return [np.int64(min(apply_map(op, map_attr(op, "map"), operands)))]


def run_max(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.max``: the largest result of the map."""
    return [np.int64(max(apply_map(op, map_attr(op, "map"), operands)))]


def run_delinearize_index(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.delinearize_index %i into (B0, B1, ...)``: mixed-radix digits of ``%i``
    (without an outer bound, the first result is whatever is left)."""
    linear, *dynamic = operands
    basis = mixed_values(op, "static_basis", dynamic)
    has_outer_bound = len(basis) == len(op.results)
    remaining, digits = int(linear), []
    for size in reversed(basis[1:] if has_outer_bound else basis):
        digits.append(remaining % size)
        remaining //= size
    digits.append(remaining)
    return [np.int64(d) for d in reversed(digits)]


def run_linearize_index(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``affine.linearize_index [%a, %b] by (A, B)``: ``a * B + b`` (mixed radix; the
    outer bound ``A`` may be left out)."""
    dynamic_count = int_list(op, "static_basis").count(DYNAMIC_SENTINEL)
    indices = operands[: len(operands) - dynamic_count]
    basis = mixed_values(op, "static_basis", operands[len(indices) :])
    inner_sizes = basis[1:] if len(basis) == len(indices) else basis
    linear = int(indices[0]) if indices else 0
    for size, index in zip(inner_sizes, indices[1:], strict=True):
        linear = linear * size + int(index)
    return [np.int64(linear)]


def run_yield(op: Operation, operands: list[Any], interp: Any) -> Exit:
    """``affine.yield``: leave the region with the operands."""
    return Exit(operands)


RULES = {
    "affine.for": run_for,
    "affine.if": run_if,
    "affine.load": run_load,
    "affine.store": run_store,
    "affine.apply": run_apply,
    "affine.min": run_min,
    "affine.max": run_max,
    "affine.delinearize_index": run_delinearize_index,
    "affine.linearize_index": run_linearize_index,
    "affine.yield": run_yield,
}
"""Every affine op the interpreter runs."""

__all__ = ["RULES", "apply_map", "map_attr"]
