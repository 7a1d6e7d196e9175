"""Python's operators on kernel values: ``+ - * / // % ** << >> & | ^``, unary ``- ~
not``, comparisons and truth values, as ``arith`` ops.

Both operands first meet in one type (``conversions.common_type``); then:

========  ======================  =====================  ==========================
operator  float                   integer / index        note
========  ======================  =====================  ==========================
``+ - *`` ``addf subf mulf``      ``addi subi muli``
``/``     ``divf``                an error               use ``//`` for integers
``//``    ``divf`` + ``floor``    ``divsi``              C's (and CUDA's) truncation
``%``     ``remf``                ``remsi``              sign of the dividend, as C
``**``    ``mulf`` chain, sqrt    ``muli`` chain         constant exponent 0-8 or 0.5
``<< >>`` an error                ``shli shrsi``
``& | ^`` an error                ``andi ori xori``      also on ``bool`` (``i1``)
``< ==``  ``cmpf olt, oeq...``    ``cmpi slt, eq...``    ``!=`` on floats is ``une``
========  ======================  =====================  ==========================

Two literals fold now, with the same C semantics for ``//`` and ``%``.

>>> from tinycomp.ir import Block, Builder, f32
>>> block = Block([f32])
>>> (x,) = block.arguments
>>> y = binary(Builder.at_end(block), "*", x, 2)
>>> [op.name for op in block.ops], binary(None, "//", -7, 2), binary(None, "%", -7, 2)
(['arith.constant', 'arith.mulf'], -3, -1)
"""

from __future__ import annotations

import math

from tinycomp.dialects import arith
from tinycomp.dialects import math as math_ops
from tinycomp.frontend.simt.conversions import (
    Literal,
    Operand,
    common_type,
    constant,
    convert,
    literal_type,
)
from tinycomp.ir.builder import Builder
from tinycomp.ir.types import FloatType, Type, i1
from tinycomp.ir.values import Value

__all__ = ["OperatorError", "binary", "compare", "fold_literals", "truth", "unary", "unify"]


class OperatorError(ValueError):
    """An operator applied to operands it does not take; the caller adds the line."""


FLOAT_OPS = {"+": arith.AddFOp, "-": arith.SubFOp, "*": arith.MulFOp, "/": arith.DivFOp,
             "%": arith.RemFOp}  # fmt: skip
INT_OPS = {"+": arith.AddIOp, "-": arith.SubIOp, "*": arith.MulIOp, "//": arith.DivSIOp,
           "%": arith.RemSIOp, "<<": arith.ShLIOp, ">>": arith.ShRSIOp, "&": arith.AndIOp,
           "|": arith.OrIOp, "^": arith.XOrIOp}  # fmt: skip
CMPF = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
CMPI = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
BOOL_OPS = ("&", "|", "^", "==", "!=")


def _c_division(a: int, b: int) -> tuple[int, int]:
    quotient = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
    return quotient, a - quotient * b


def fold_literals(op: str, a: Literal, b: Literal) -> Literal:
    """``a op b`` for two literals, with C's integer ``//`` and ``%``.

    >>> fold_literals("//", 7, -2), fold_literals("<<", 1, 4), fold_literals("<", 1, 2.5)
    (-3, 16, True)
    """
    if isinstance(a, int) and isinstance(b, int) and op in ("//", "%"):
        if b == 0:
            raise OperatorError(f"integer division by zero in '{a} {op} {b}'")
        return _c_division(a, b)[0 if op == "//" else 1]
    if isinstance(a, int) and isinstance(b, int) and op == "/":
        raise OperatorError(f"'/' on integers ({a} / {b}); use '//' (C's division)")
    table = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
        "//": lambda: math.floor(a / b), "%": lambda: math.fmod(a, b), "**": lambda: a**b,
        "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b, "|": lambda: a | b,
        "^": lambda: a ^ b, "<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b,
        ">=": lambda: a >= b, "==": lambda: a == b, "!=": lambda: a != b,
    }  # fmt: skip
    try:
        return table[op]()
    except (TypeError, ZeroDivisionError) as error:
        raise OperatorError(f"cannot compute '{a!r} {op} {b!r}': {error}") from None


def unify(builder: Builder, a: Operand, b: Operand) -> tuple[Value, Value]:
    """Both operands as IR values of one type (a literal takes the other's type)."""
    if not isinstance(a, Value):
        a = constant(builder, a, literal_type(a, b.type))
    if not isinstance(b, Value):
        b = constant(builder, b, literal_type(b, a.type))
    target = common_type(a.type, b.type)
    return convert(builder, a, target), convert(builder, b, target)


def _power(builder: Builder, base: Operand, exponent: Operand) -> Value:
    if not isinstance(base, Value):
        raise OperatorError("expected a value base for '**'")
    if exponent == 0.5 and isinstance(base.type, FloatType):
        return builder.insert(math_ops.SqrtOp.build(base)).result
    if isinstance(exponent, bool) or not isinstance(exponent, int) or not 0 <= exponent <= 8:
        raise OperatorError(
            f"'**' takes a constant exponent 0-8 (or 0.5 for a float), got {exponent!r}"
        )
    if exponent == 0:
        return constant(builder, 1, base.type)
    result = base
    for _ in range(exponent - 1):
        result = binary(builder, "*", result, base)
    return result


def binary(builder: Builder | None, op: str, a: Operand, b: Operand) -> Operand:
    """``a op b`` as IR (``op`` is the Python operator's symbol), or a literal if both
    operands are literals."""
    if not isinstance(a, Value) and not isinstance(b, Value):
        return fold_literals(op, a, b)
    assert builder is not None
    if op == "**":
        return _power(builder, a, b)
    if op in CMPF:
        return compare(builder, op, a, b)
    lhs, rhs = unify(builder, a, b)
    kind: Type = lhs.type
    if isinstance(kind, FloatType):
        if op == "//":
            quotient = builder.insert(arith.DivFOp.build(lhs, rhs)).result
            return builder.insert(math_ops.FloorOp.build(quotient)).result
        if op not in FLOAT_OPS:
            raise OperatorError(f"'{op}' is not defined on floats ({kind})")
        return builder.insert(FLOAT_OPS[op].build(lhs, rhs)).result
    if op == "/":
        raise OperatorError(f"'/' on integers ({kind}); use '//' (C's truncating division)")
    if kind == i1 and op not in BOOL_OPS:
        lhs, rhs = convert(builder, lhs, literal_type(0)), convert(builder, rhs, literal_type(0))
    return builder.insert(INT_OPS[op].build(lhs, rhs)).result


def compare(builder: Builder, op: str, a: Operand, b: Operand) -> Value:
    """``a op b`` for a comparison operator, an ``i1``."""
    lhs, rhs = unify(builder, a, b)
    if isinstance(lhs.type, FloatType):
        return builder.insert(arith.CmpFOp.build(CMPF[op], lhs, rhs)).result
    return builder.insert(arith.CmpIOp.build(CMPI[op], lhs, rhs)).result


def truth(builder: Builder, value: Operand) -> Operand:
    """``bool(value)``: an ``i1`` (a comparison with zero for numbers), or a literal."""
    if not isinstance(value, Value):
        return bool(value)
    return convert(builder, value, i1)


def unary(builder: Builder, op: str, value: Operand) -> Operand:
    """``-value``, ``~value``, ``not value`` or ``+value``."""
    if not isinstance(value, Value):
        table = {"-": lambda: -value, "+": lambda: +value, "~": lambda: ~value,
                 "not": lambda: not value}  # fmt: skip
        try:
            return table[op]()
        except TypeError as error:
            raise OperatorError(f"cannot compute '{op}{value!r}': {error}") from None
    if op == "+":
        return value
    if op == "not":
        return binary(builder, "^", truth(builder, value), True)
    if op == "~":
        if isinstance(value.type, FloatType):
            raise OperatorError(f"'~' is not defined on floats ({value.type})")
        return binary(builder, "^", value, -1)
    if isinstance(value.type, FloatType):
        return builder.insert(arith.NegFOp.build(value)).result
    return binary(builder, "-", 0, value)
