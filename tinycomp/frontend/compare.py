"""Comparisons and selection on traced tensors: ``less``, ``greater``, ``where``.

A comparison is an elementwise ``linalg.generic`` whose payload is ``arith.cmpf`` and
whose result is a tensor of ``i1``; ``where(cond, a, b)`` is a generic whose payload is
``arith.select``. All three broadcast like numpy::

    %lt = linalg.generic {...} ins(%x, %cst : tensor<4xf32>, f32) outs(%0 : tensor<4xi1>) {
    ^bb0(%in: f32, %out: i1):
      %1 = arith.cmpf olt, %in, %cst : f32
      linalg.yield %1 : i1
    } -> tensor<4xi1>

The predicates are the *ordered* ones (``olt``, ``ogt``): a comparison with NaN is
false, as in numpy.

>>> import numpy as np
>>> from tinycomp.frontend import TensorSpec, trace
>>> from tinycomp.interp import interpret
>>> m = trace(lambda x: where(x > 0.0, x, 0.0), TensorSpec((3,)))
>>> interpret(m, np.array([-1.0, 2.0, -3.0], np.float32)).tolist()
[0.0, 2.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.compare import CmpFOp, SelectOp
from tinycomp.frontend.elementwise import elementwise
from tinycomp.frontend.tensor import Tensor, trace_error
from tinycomp.ir import Builder
from tinycomp.ir.type_helpers import is_float
from tinycomp.ir.types import Type, i1
from tinycomp.ir.values import Value


def _float_operand(op_name: str, value, like: Tensor) -> Tensor | Value:
    """``value`` as a tensor operand, or a Python number as a constant of ``like``'s type."""
    if isinstance(value, Tensor):
        if value.dtype != like.dtype:
            raise trace_error(
                op_name,
                f"expected operands of one element type, got {like.dtype} and {value.dtype}",
            )
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return like.context.insert(ConstantOp.build(float(value), like.dtype)).result
    raise trace_error(op_name, f"expected a Tensor or a Python number, got {type(value).__name__}")


def _first_tensor(op_name: str, values: Sequence[object]) -> Tensor:
    for value in values:
        if isinstance(value, Tensor):
            return value
    raise trace_error(op_name, "expected at least one traced Tensor operand")


def _compare(op_name: str, predicate: str, lhs, rhs) -> Tensor:
    like = _first_tensor(op_name, [lhs, rhs])
    if not is_float(like.dtype):
        raise trace_error(op_name, f"expected a float element type, got {like.dtype}")
    a, b = _float_operand(op_name, lhs, like), _float_operand(op_name, rhs, like)

    def body(builder: Builder, scalars: Sequence[Value]) -> Value:
        return builder.insert(CmpFOp.build(predicate, scalars[0], scalars[1])).result

    return elementwise(op_name, [a, b], body, i1)


def less(lhs: Tensor | float, rhs: Tensor | float) -> Tensor:
    """``lhs < rhs`` as an ``i1`` tensor (``arith.cmpf olt``); also ``x < y``."""
    return _compare("lt", "olt", lhs, rhs)


def greater(lhs: Tensor | float, rhs: Tensor | float) -> Tensor:
    """``lhs > rhs`` as an ``i1`` tensor (``arith.cmpf ogt``); also ``x > y``."""
    return _compare("gt", "ogt", lhs, rhs)


def where(condition: Tensor, a: Tensor | float, b: Tensor | float) -> Tensor:
    """``numpy.where(condition, a, b)`` with an ``i1`` condition (``arith.select``).

    ``a`` and ``b`` are tensors of one element type or Python numbers; all three
    broadcast together.
    """
    if not isinstance(condition, Tensor) or condition.dtype != i1:
        found = condition.type if isinstance(condition, Tensor) else type(condition).__name__
        raise trace_error("where", f"expected an i1 Tensor condition, got {found}")
    like = _first_tensor("where", [a, b])
    value_type: Type = like.dtype
    if not is_float(value_type):
        raise trace_error("where", f"expected float values, got {value_type}")
    true_value = _float_operand("where", a, like)
    false_value = _float_operand("where", b, like)

    def body(builder: Builder, scalars: Sequence[Value]) -> Value:
        return builder.insert(SelectOp.build(scalars[0], scalars[1], scalars[2])).result

    return elementwise("select", [condition, true_value, false_value], body, value_type)


__all__ = ["greater", "less", "where"]
