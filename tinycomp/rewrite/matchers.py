"""Small questions patterns ask about values: "is this the constant 0?".

A pattern such as ``x + 0 -> x`` must recognise ``0`` in every form it takes: a scalar
``arith.constant 0 : i32``, or a tensor/vector constant whose elements are all 0
(``dense<0> : tensor<4xi32>``, a *splat*). These helpers look through both.

Floats are compared bit for bit, because the algebra cares: ``x + (-0.0) -> x`` holds
for every float, ``x + 0.0 -> x`` does not (``-0.0 + 0.0`` is ``+0.0``), and no NaN
is equal to anything here.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f() {
...   %a = arith.constant -0.0 : f32
...   %b = arith.constant dense<1> : tensor<4xi32>
...   "test.use"(%a, %b) : (f32, tensor<4xi32>) -> ()
...   return
... }''')
>>> a, b = m.body.first_op.entry_block.ops[2].operands
>>> is_constant_float(a, -0.0), is_constant_float(a, 0.0), is_constant_int(b, 1)
(True, False, True)
"""

from __future__ import annotations

import math

from tinycomp.ir.attributes import Attribute, BoolAttr, FloatAttr, IntegerAttr
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.values import Value
from tinycomp.rewrite.traits import is_constant_op

__all__ = ["constant_attr_of", "constant_scalar", "is_constant_float", "is_constant_int"]


def constant_attr_of(value: Value) -> Attribute | None:
    """The ``value`` attribute of the constant op defining ``value``, else ``None``.

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f() -> i32 { %c = arith.constant 7 : i32  return %c : i32 }")
    >>> print(constant_attr_of(m.body.first_op.entry_block.first_op.result))
    7 : i32
    """
    op = value.defining_op()
    if op is None or not is_constant_op(op):
        return None
    return op.attributes["value"]


def constant_scalar(value: Value) -> int | float | bool | None:
    """The number ``value`` holds: a scalar constant, or the element of a splat
    tensor/vector constant. ``None`` when ``value`` is not such a constant.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f() -> vector<2xf32> {
    ...   %c = arith.constant dense<2.5> : vector<2xf32>
    ...   return %c : vector<2xf32> }''')
    >>> constant_scalar(m.body.first_op.entry_block.first_op.result)
    2.5
    """
    attr = constant_attr_of(value)
    if isinstance(attr, (IntegerAttr, FloatAttr, BoolAttr)):
        return attr.value
    if isinstance(attr, DenseElementsAttr) and attr.values.size > 0 and attr.is_splat:
        element = attr.values.reshape(-1)[0]
        if attr.values.dtype.kind == "b":
            return bool(element)
        if attr.values.dtype.kind in "iu":
            return int(element)
        return float(element)
    return None


def is_constant_int(value: Value, number: int) -> bool:
    """True when ``value`` is an integer/index/i1 constant (or splat) equal to ``number``
    (``true`` counts as 1, ``false`` as 0)."""
    scalar = constant_scalar(value)
    if scalar is None or isinstance(scalar, float):
        return False
    return int(scalar) == number


def is_constant_float(value: Value, number: float) -> bool:
    """True when ``value`` is a float constant (or splat) with exactly the bits of
    ``number``: ``-0.0`` and ``0.0`` differ, NaN never matches."""
    scalar = constant_scalar(value)
    if not isinstance(scalar, float) or math.isnan(scalar):
        return False
    return scalar == number and math.copysign(1.0, scalar) == math.copysign(1.0, number)
