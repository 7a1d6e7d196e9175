"""``ArithBuilder``: arith ops on one shape (a scalar or a vector), for math expansions.

A polynomial approximation of ``exp`` is thirty arith ops on ``f32`` values and their
``i32`` bit patterns. Written with raw ``Op.build`` calls it would drown in types; this
builder fixes the *shape* once (``f32`` or ``vector<8xf32>``) and makes every constant a
splat of that shape, every comparison an ``i1`` of that shape, every bit pattern an
``i32`` of that shape. Each op is inserted right before the anchor op (the one being
replaced), through a ``PatternRewriter``, so the IR stays valid at every step.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite.rewriter import PatternRewriter
>>> m = parse('''func.func @f(%x: vector<4xf32>) -> vector<4xf32> {
...   %y = math.exp %x : vector<4xf32>
...   return %y : vector<4xf32> }''')
>>> exp = [op for op in m.walk() if op.name == "math.exp"][0]
>>> b = ArithBuilder(PatternRewriter(), exp, exp.operands[0].type)
>>> two_x = b.mul(exp.operands[0], b.f(2.0))
>>> print(two_x.op)
%0 = arith.mulf %x, %cst : vector<4xf32>
>>> print(b.f(2.0).op)
%cst = arith.constant dense<2.000000e+00> : vector<4xf32>
"""

from __future__ import annotations

import numpy as np

from tinycomp.dialects import arith
from tinycomp.dialects import math as math_dialect
from tinycomp.ir.builder import InsertionPoint
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import with_element_type
from tinycomp.ir.types import Type, VectorType, f32, i1, i32
from tinycomp.ir.values import Value
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["ArithBuilder"]


class ArithBuilder:
    """Builds f32/i32/i1 ops of one shape before ``anchor`` (see the module docstring)."""

    def __init__(self, rewriter: PatternRewriter, anchor: Operation, like: Type) -> None:
        self.rewriter = rewriter
        self.anchor = anchor
        """New ops go right before this op."""
        self.float_type = with_element_type(like, f32)
        """``f32`` or ``vector<N x f32>``: the type of every float value built."""
        self.int_type = with_element_type(like, i32)
        """The same shape of ``i32``: bit patterns and exponents."""
        self.bool_type = with_element_type(like, i1)
        """The same shape of ``i1``: what comparisons give."""
        self._constants: dict[tuple[str, float | int], Value] = {}

    def insert(self, op: Operation) -> Value:
        """Insert ``op`` before the anchor; its (first) result."""
        with self.rewriter.at(InsertionPoint.before(self.anchor)):
            self.rewriter.insert(op)
        return op.results[0]

    # -- constants (one per value, splat to the shape) -------------------------------------
    def _constant(self, value: float | int, type_: Type, kind: str) -> Value:
        key = (kind, value)
        if key not in self._constants:
            if isinstance(type_, VectorType):
                dtype = np.float32 if kind == "f" else np.int32
                data = np.full(type_.shape, value, dtype=dtype)
                self._constants[key] = self.insert(arith.ConstantOp.build(data, type_))
            else:
                self._constants[key] = self.insert(arith.ConstantOp.build(value, type_))
        return self._constants[key]

    def f(self, value: float) -> Value:
        """The f32 constant ``value`` (rounded to f32), of the builder's shape."""
        return self._constant(float(np.float32(value)), self.float_type, "f")

    def i(self, value: int) -> Value:
        """The i32 constant ``value``, of the builder's shape."""
        return self._constant(int(np.int32(value)), self.int_type, "i")

    def f_bits(self, bits: int) -> Value:
        """The f32 whose bit pattern is ``bits`` (``0x7f800000`` is +inf)."""
        return self.f(float(np.array(bits, np.uint32).view(np.float32)))

    # -- float arithmetic ------------------------------------------------------------------
    def add(self, a: Value, b: Value) -> Value:
        return self.insert(arith.AddFOp.build(a, b))

    def sub(self, a: Value, b: Value) -> Value:
        return self.insert(arith.SubFOp.build(a, b))

    def mul(self, a: Value, b: Value) -> Value:
        return self.insert(arith.MulFOp.build(a, b))

    def div(self, a: Value, b: Value) -> Value:
        return self.insert(arith.DivFOp.build(a, b))

    def muladd(self, a: Value, b: Value, c: Value) -> Value:
        """``a * b + c`` with two roundings (no FMA: the same bits on every machine)."""
        return self.add(self.mul(a, b), c)

    def horner(self, x: Value, coefficients: tuple[float, ...]) -> Value:
        """``((c0 * x + c1) * x + c2) ...``: highest degree first."""
        result = self.f(coefficients[0])
        for coefficient in coefficients[1:]:
            result = self.muladd(result, x, self.f(coefficient))
        return result

    def clamp(self, x: Value, low: float, high: float) -> Value:
        """``min(max(x, low), high)``; a NaN becomes ``low`` (``maxnumf`` ignores NaN)."""
        raised = self.insert(arith.MaxNumFOp.build(x, self.f(low)))
        return self.insert(arith.MinNumFOp.build(raised, self.f(high)))

    def abs(self, x: Value) -> Value:
        return self.insert(math_dialect.AbsFOp.build(x))

    def floor(self, x: Value) -> Value:
        return self.insert(math_dialect.FloorOp.build(x))

    def copysign(self, magnitude: Value, sign: Value) -> Value:
        return self.insert(math_dialect.CopySignOp.build(magnitude, sign))

    # -- comparisons and selection ---------------------------------------------------------
    def cmp(self, predicate: str, a: Value, b: Value) -> Value:
        """``arith.cmpf <predicate>``: ``"olt"``, ``"oeq"``, ``"uno"``..."""
        return self.insert(arith.CmpFOp.build(predicate, a, b))

    def select(self, condition: Value, if_true: Value, if_false: Value) -> Value:
        return self.insert(arith.SelectOp.build(condition, if_true, if_false))

    # -- bits and integers -----------------------------------------------------------------
    def to_bits(self, x: Value) -> Value:
        """The i32 bit pattern of the f32 ``x`` (``arith.bitcast``)."""
        return self.insert(arith.BitcastOp.build(x, self.int_type))

    def from_bits(self, bits: Value) -> Value:
        """The f32 whose bit pattern is the i32 ``bits``."""
        return self.insert(arith.BitcastOp.build(bits, self.float_type))

    def to_int(self, x: Value) -> Value:
        """``arith.fptosi``: ``x`` (a whole number in i32 range) as an i32."""
        return self.insert(arith.FPToSIOp.build(x, self.int_type))

    def to_float(self, n: Value) -> Value:
        """``arith.sitofp``: the i32 ``n`` as an f32."""
        return self.insert(arith.SIToFPOp.build(n, self.float_type))

    def int_op(self, op_class: type, a: Value, b: Value) -> Value:
        """An i32 binary op (``arith.AddIOp``, ``arith.ShLIOp``...)."""
        return self.insert(op_class.build(a, b))
