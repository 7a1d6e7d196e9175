"""Helpers the rule tables share: reading attributes by name, splitting operands.

Rules read attributes by their MLIR names from ``op.attributes``, so they work on ops
parsed in generic form (``"scf.for"(...) ({...}) : ...``) as well as on registered op
classes. Two MLIR conventions recur:

* ``operandSegmentSizes = array<i32: 1, 2, 0>``: how a flat operand list splits into
  groups (``segments``);
* *mixed* static/dynamic lists: ``static_offsets = array<i64: 1, -9223372036854775808>``
  with one operand per ``-9223372036854775808`` (MLIR's ``ShapedType::kDynamic``),
  taken in order (``mixed_values``).

>>> from tinycomp.ir import Operation
>>> from tinycomp.ir.dense import DenseArrayAttr
>>> from tinycomp.ir.types import i64
>>> op = Operation.create("test.op", attributes={
...     "static_sizes": DenseArrayAttr(i64, [2, DYNAMIC_SENTINEL, 4])})
>>> mixed_values(op, "static_sizes", [7])
[2, 7, 4]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.interp.errors import op_error
from tinycomp.ir.attributes import ArrayAttr, Attribute, BoolAttr, IntegerAttr
from tinycomp.ir.dense import DenseArrayAttr, DenseElementsAttr
from tinycomp.ir.operation import Operation

DYNAMIC_SENTINEL = -(2**63)
"""MLIR's ``ShapedType::kDynamic`` in static offset/size/stride arrays."""


def attr(op: Operation, name: str) -> Attribute:
    """The attribute ``name``; a clear error when the op lacks it."""
    value = op.attributes.get(name)
    if value is None:
        raise op_error(op, f"expected an attribute '{name}', found {sorted(op.attributes)}")
    return value


def int_list(op: Operation, name: str, default: Sequence[int] | None = None) -> list[int]:
    """An integer list attribute (``array<i64: ...>``, ``[1, 2]`` or ``dense<...>``).

    ``default`` is returned when the attribute is absent (``None``: it is required).
    """
    if name not in op.attributes and default is not None:
        return list(default)
    value = attr(op, name)
    if isinstance(value, DenseArrayAttr):
        return [int(v) for v in value.values]
    if isinstance(value, ArrayAttr):
        return [int(element.value) for element in value.elements]
    if isinstance(value, DenseElementsAttr):
        return [int(v) for v in np.asarray(value.values).reshape(-1)]
    raise op_error(op, f"expected '{name}' to be a list of integers, got {value}")


def int_attr(op: Operation, name: str, default: int | None = None) -> int:
    """An integer attribute (``4 : index``, ``true``); ``default`` when absent."""
    if name not in op.attributes and default is not None:
        return default
    value = attr(op, name)
    if isinstance(value, (IntegerAttr, BoolAttr)):
        return int(value.value)
    raise op_error(op, f"expected '{name}' to be an integer, got {value}")


def segments(op: Operation, operands: list[Any], count: int) -> list[list[Any]]:
    """Split ``operands`` by ``operandSegmentSizes`` (which must have ``count`` entries)."""
    sizes = int_list(op, "operandSegmentSizes")
    if len(sizes) != count or sum(sizes) != len(operands):
        raise op_error(
            op,
            f"expected operandSegmentSizes with {count} entries adding up to "
            f"{len(operands)} operands, got {sizes}",
        )
    groups, start = [], 0
    for size in sizes:
        groups.append(operands[start : start + size])
        start += size
    return groups


def mixed_values(op: Operation, name: str, dynamic: Sequence[Any]) -> list[int]:
    """The static list ``name`` with each ``DYNAMIC_SENTINEL`` replaced by the next
    dynamic operand value."""
    static = int_list(op, name)
    holes = sum(1 for v in static if v == DYNAMIC_SENTINEL)
    if holes != len(dynamic):
        raise op_error(
            op, f"expected {holes} dynamic operands for '{name}' = {static}, got {len(dynamic)}"
        )
    values, taken = [], iter(dynamic)
    for value in static:
        values.append(int(next(taken)) if value == DYNAMIC_SENTINEL else value)
    return values


__all__ = [
    "DYNAMIC_SENTINEL",
    "attr",
    "int_attr",
    "int_list",
    "mixed_values",
    "segments",
]
