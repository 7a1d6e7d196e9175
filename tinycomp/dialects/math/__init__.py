"""The math dialect: transcendental and rounding functions, ``%r = math.<fn> %x : f32``.

Math ops work elementwise like arith ops (scalars, vectors, tensors, all of one type)
and share arith's custom syntax and verifier (``ElementwiseOp`` in ``arith_binary.py``).
The float ops take the same fast-math flags as arith, stored in the same attribute:
``math.exp %x fastmath<afn> : f32`` is ``fastmath = #arith.fastmath<afn>``.

==================  ==========================================  =====================
kind                ops                                         syntax
==================  ==========================================  =====================
float, unary        exp exp2 expm1 log log2 log10 log1p sqrt    ``math.exp %x : f32``
                    rsqrt cbrt sin cos tan atan sinh cosh tanh
                    erf erfc absf ceil floor round roundeven
                    trunc
float, binary       powf copysign atan2                         ``math.powf %x, %y : f32``
float, ternary      fma (``a * b + c``, one rounding)           ``math.fma %a, %b, %c : f32``
integer, unary      absi ctlz cttz ctpop                        ``math.absi %i : i32``
integer, binary     ipowi                                       ``math.ipowi %i, %j : i32``
==================  ==========================================  =====================

>>> from tinycomp.ir import Block, f32
>>> x, y = Block([f32, f32]).arguments
>>> op = PowFOp.build(x, y, fastmath="afn")
>>> op.result.type, op.attributes["fastmath"]
(FloatType(name='f32'), OpaqueAttr(text='#arith.fastmath<afn>'))
>>> from tinycomp.ir import parse
>>> print(parse('''
... func.func @gelu_core(%x: f32) -> f32 {
...   %r = math.erf %x fastmath<fast> : f32
...   return %r : f32
... }'''))
module {
  func.func @gelu_core(%x: f32) -> f32 {
    %r = math.erf %x fastmath<fast> : f32
    return %r : f32
  }
}
"""

from __future__ import annotations

from tinycomp.dialects.arith.base import FASTMATH, flags_dict, none_flag
from tinycomp.dialects.arith.binary import ElementwiseOp, FloatBinaryOp, FloatUnaryOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.registry import Dialect, register_dialect
from tinycomp.ir.values import Value


# -- float, unary ----------------------------------------------------------------------------
class ExpOp(FloatUnaryOp):
    """Natural exponential ``e**x``: ``%r = math.exp %x : f32``."""

    name = "math.exp"


class Exp2Op(FloatUnaryOp):
    """Base-2 exponential ``2**x``: ``%r = math.exp2 %x : f32``."""

    name = "math.exp2"


class ExpM1Op(FloatUnaryOp):
    """``e**x - 1``, accurate near 0: ``%r = math.expm1 %x : f32``."""

    name = "math.expm1"


class LogOp(FloatUnaryOp):
    """Natural logarithm: ``%r = math.log %x : f32``."""

    name = "math.log"


class Log2Op(FloatUnaryOp):
    """Base-2 logarithm: ``%r = math.log2 %x : f32``."""

    name = "math.log2"


class Log10Op(FloatUnaryOp):
    """Base-10 logarithm: ``%r = math.log10 %x : f32``."""

    name = "math.log10"


class Log1pOp(FloatUnaryOp):
    """``log(1 + x)``, accurate near 0: ``%r = math.log1p %x : f32``."""

    name = "math.log1p"


class SqrtOp(FloatUnaryOp):
    """Square root: ``%r = math.sqrt %x : vector<4xf32>``."""

    name = "math.sqrt"


class RsqrtOp(FloatUnaryOp):
    """Reciprocal square root ``1 / sqrt(x)``, layernorm's favourite:
    ``%r = math.rsqrt %x : f32``."""

    name = "math.rsqrt"


class CbrtOp(FloatUnaryOp):
    """Cube root: ``%r = math.cbrt %x : f32``."""

    name = "math.cbrt"


class SinOp(FloatUnaryOp):
    """Sine (radians): ``%r = math.sin %x : f32``."""

    name = "math.sin"


class CosOp(FloatUnaryOp):
    """Cosine (radians): ``%r = math.cos %x : f32``."""

    name = "math.cos"


class TanOp(FloatUnaryOp):
    """Tangent (radians): ``%r = math.tan %x : f32``."""

    name = "math.tan"


class AtanOp(FloatUnaryOp):
    """Arc tangent: ``%r = math.atan %x : f32``."""

    name = "math.atan"


class SinhOp(FloatUnaryOp):
    """Hyperbolic sine: ``%r = math.sinh %x : f32``."""

    name = "math.sinh"


class CoshOp(FloatUnaryOp):
    """Hyperbolic cosine: ``%r = math.cosh %x : f32``."""

    name = "math.cosh"


class TanhOp(FloatUnaryOp):
    """Hyperbolic tangent: ``%r = math.tanh %x fastmath<fast> : f32``."""

    name = "math.tanh"


class ErfOp(FloatUnaryOp):
    """Error function (GELU's core): ``%r = math.erf %x : f32``."""

    name = "math.erf"


class ErfcOp(FloatUnaryOp):
    """Complementary error function ``1 - erf(x)``: ``%r = math.erfc %x : f32``."""

    name = "math.erfc"


class AbsFOp(FloatUnaryOp):
    """Float absolute value: ``%r = math.absf %x : f32``."""

    name = "math.absf"


class CeilOp(FloatUnaryOp):
    """Round toward plus infinity: ``%r = math.ceil %x : f32``."""

    name = "math.ceil"


class FloorOp(FloatUnaryOp):
    """Round toward minus infinity: ``%r = math.floor %x : f32``."""

    name = "math.floor"


class RoundOp(FloatUnaryOp):
    """Round to nearest, ties away from zero (C's ``round``): ``%r = math.round %x : f32``."""

    name = "math.round"


class RoundEvenOp(FloatUnaryOp):
    """Round to nearest, ties to even (numpy's ``rint``): ``%r = math.roundeven %x : f32``."""

    name = "math.roundeven"


class TruncOp(FloatUnaryOp):
    """Round toward zero: ``%r = math.trunc %x : f32``."""

    name = "math.trunc"


# -- float, binary and ternary -------------------------------------------------------------
class PowFOp(FloatBinaryOp):
    """``lhs ** rhs`` on floats: ``%r = math.powf %x, %y : f32``."""

    name = "math.powf"


class CopySignOp(FloatBinaryOp):
    """``|lhs|`` with the sign of ``rhs``: ``%r = math.copysign %x, %y : f32``."""

    name = "math.copysign"


class Atan2Op(FloatBinaryOp):
    """Arc tangent of ``lhs / rhs`` in the right quadrant: ``%r = math.atan2 %y, %x : f32``."""

    name = "math.atan2"


class FmaOp(ElementwiseOp):
    """Fused multiply-add ``a * b + c`` with a single rounding:
    ``%r = math.fma %a, %b, %c : f32``."""

    name = "math.fma"
    num_operands = 3
    flag_attribute = FASTMATH
    inherent_attributes = (FASTMATH,)
    default_attributes = {FASTMATH: none_flag(FASTMATH)}

    @classmethod
    def build(cls, a: Value, b: Value, c: Value, fastmath: str | None = None) -> FmaOp:
        """``a * b + c``; ``fastmath`` is e.g. ``"contract"``."""
        return cls([a, b, c], [a.type], flags_dict(FASTMATH, fastmath))


# -- integer ops -------------------------------------------------------------------------------
class IntUnaryOp(ElementwiseOp):
    """Base of the one-operand integer ops (no flags)."""

    num_operands = 1
    element_kind = "integer"

    @classmethod
    def build(cls, operand: Value) -> IntUnaryOp:
        """``<op> operand``."""
        return cls([operand], [operand.type])

    @property
    def operand_value(self) -> Value:
        """The operand."""
        return self.operands[0]


class AbsIOp(IntUnaryOp):
    """Integer absolute value (``abs(INT_MIN)`` wraps to itself): ``%r = math.absi %i : i32``."""

    name = "math.absi"


class CountLeadingZerosOp(IntUnaryOp):
    """Number of leading zero bits: ``%r = math.ctlz %i : i32``."""

    name = "math.ctlz"


class CountTrailingZerosOp(IntUnaryOp):
    """Number of trailing zero bits: ``%r = math.cttz %i : i32``."""

    name = "math.cttz"


class CtPopOp(IntUnaryOp):
    """Number of set bits (population count): ``%r = math.ctpop %i : i32``."""

    name = "math.ctpop"


class IPowIOp(ElementwiseOp):
    """Integer power ``lhs ** rhs`` (signed, wrapping): ``%r = math.ipowi %i, %j : i32``."""

    name = "math.ipowi"
    num_operands = 2
    element_kind = "integer"

    @classmethod
    def build(cls, lhs: Value, rhs: Value) -> IPowIOp:
        """``lhs ** rhs``."""
        return cls([lhs, rhs], [lhs.type])


MATH_OPS: tuple[type[Operation], ...] = (
    ExpOp, Exp2Op, ExpM1Op, LogOp, Log2Op, Log10Op, Log1pOp, SqrtOp, RsqrtOp, CbrtOp,
    SinOp, CosOp, TanOp, AtanOp, SinhOp, CoshOp, TanhOp, ErfOp, ErfcOp, AbsFOp, CeilOp,
    FloorOp, RoundOp, RoundEvenOp, TruncOp, PowFOp, CopySignOp, Atan2Op, FmaOp, AbsIOp,
    CountLeadingZerosOp, CountTrailingZerosOp, CtPopOp, IPowIOp,
)  # fmt: skip
"""Every op class of the math dialect."""

MATH = Dialect("math", MATH_OPS)
"""The math dialect (registered on import)."""
register_dialect(MATH)

__all__ = [
    "MATH", "MATH_OPS", "AbsFOp", "AbsIOp", "Atan2Op", "AtanOp", "CbrtOp", "CeilOp",
    "CopySignOp", "CosOp", "CoshOp", "CountLeadingZerosOp", "CountTrailingZerosOp", "CtPopOp",
    "ErfOp", "ErfcOp", "Exp2Op", "ExpM1Op", "ExpOp", "FloorOp", "FmaOp", "IPowIOp",
    "IntUnaryOp", "Log10Op", "Log1pOp", "Log2Op", "LogOp", "PowFOp", "RoundEvenOp", "RoundOp",
    "RsqrtOp", "SinOp", "SinhOp", "SqrtOp", "TanOp", "TanhOp", "TruncOp",
]  # fmt: skip
