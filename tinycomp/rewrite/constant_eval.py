"""Evaluate an op on constant operands with the reference interpreter's rules.

Constant folding must compute *exactly* what running the program would: ``i32`` adds
wrap around, ``f16``/``bf16`` results are rounded to their type, an integer division
by zero is not folded at all. The numpy reference interpreter already defines those
semantics, one rule per op (``tinycomp/interp/rules/<dialect>.py`` exports
``RULES: dict[str, rule]`` with ``rule(op, operands, interp) -> results``), so folding
calls those very rules instead of re-implementing arithmetic:

1. turn each operand's constant attribute into the value the interpreter works on (a
   numpy scalar of the type's dtype, or a numpy array for a tensor/vector);
2. look up the rule for the op's name and call it; an error from the rule (division by
   zero, a value the op does not define) means "do not fold";
3. turn each result back into an attribute of the result's exact type.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f() -> i8 {
...   %a = arith.constant 100 : i8
...   %s = arith.addi %a, %a : i8
...   return %s : i8
... }''')
>>> a, add, _ = m.body.first_op.entry_block.ops
>>> [str(attr) for attr in evaluate_on_constants(add, [a.attributes["value"]] * 2)]
['-56 : i8']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tinycomp.interp.errors import InterpreterError
from tinycomp.interp.rules import arith as arith_rules
from tinycomp.interp.rules import math as math_rules
from tinycomp.ir.attributes import Attribute, BoolAttr, FloatAttr, IntegerAttr
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import to_numpy_dtype
from tinycomp.ir.types import FloatType, IndexType, IntegerType, ShapedType, Type, i1

__all__ = ["attr_to_value", "evaluate_on_constants", "reference_rule", "value_to_attr"]

Rule = Callable[[Operation, list, Any], list]
"""An interpreter rule: ``rule(op, operand_values, interp) -> result_values``."""

RULE_TABLES: tuple[dict[str, Rule], ...] = (arith_rules.RULES, math_rules.RULES)
"""Where rules are looked up, in order: the interpreter's per-dialect ``RULES``."""


def reference_rule(op_name: str) -> Rule | None:
    """The interpreter's rule for ``op_name``, or ``None`` when there is none."""
    for table in RULE_TABLES:
        rule = table.get(op_name)
        if rule is not None:
            return rule
    return None


def evaluate_on_constants(op: Operation, operands: Sequence[Attribute]) -> list[Attribute] | None:
    """The results of ``op`` applied to the constant ``operands``, as attributes of
    ``op``'s result types; ``None`` when the op cannot be evaluated (see above)."""
    rule = reference_rule(op.name)
    if rule is None:
        return None
    values = [attr_to_value(attr) for attr in operands]
    if any(value is None for value in values):
        return None
    try:
        with np.errstate(all="ignore"):
            results = rule(op, values, None)
    except (InterpreterError, ArithmeticError, ValueError):
        return None  # the reference does not define this case: leave the op alone
    if len(results) != len(op.results):
        return None
    attrs = [
        value_to_attr(value, result.type) for value, result in zip(results, op.results, strict=True)
    ]
    if any(attr is None for attr in attrs):
        return None
    return attrs


def attr_to_value(attr: Attribute) -> Any:
    """Step 1: a constant attribute as a numpy scalar or array of its type's dtype.

    >>> from tinycomp.ir import FloatAttr, bf16
    >>> value = attr_to_value(FloatAttr(1.5, bf16))
    >>> value.dtype, float(value)
    (dtype(bfloat16), 1.5)
    """
    if isinstance(attr, DenseElementsAttr):
        return np.array(attr.values)
    if isinstance(attr, BoolAttr):
        return np.bool_(attr.value)
    if isinstance(attr, (IntegerAttr, FloatAttr)):
        return to_numpy_dtype(attr.type).type(attr.value)
    return None


def value_to_attr(value: Any, result_type: Type) -> Attribute | None:
    """Step 3: a numpy result as an attribute of exactly ``result_type``.

    >>> from tinycomp.ir import i32
    >>> print(value_to_attr(np.int32(-7), i32))
    -7 : i32
    """
    if isinstance(result_type, ShapedType):
        array = np.asarray(value)
        if array.shape != result_type.shape and array.size != 1:
            return None
        try:
            return DenseElementsAttr(result_type, array)
        except ValueError:
            return None
    array = np.asarray(value)
    if array.size != 1:
        return None
    scalar = array.reshape(())[()]
    if result_type == i1:
        return BoolAttr(bool(scalar))
    if isinstance(result_type, FloatType):
        return FloatAttr(float(scalar), result_type)
    if isinstance(result_type, (IntegerType, IndexType)):
        return IntegerAttr(int(scalar), result_type)
    return None
