"""Rules for the math dialect: elementwise functions on floats and integers.

**Precision.** A transcendental function (``exp``, ``log``, ``tanh``, ``erf``...) is
evaluated in float64 and rounded *once* to the op's type. For f32/f16/bf16 that is the
correctly rounded result in all but astronomically rare cases (when the exact value
lies within 2**-53 of a rounding boundary); LLVM's libm may be an ulp away from it, so
compare kernels that use these functions with a tolerance. f64 functions are numpy's.
``sqrt`` is correctly rounded in every type. ``rsqrt`` is ``1 / sqrt(x)`` in f64 (at
most an ulp from the exact value), ``fma`` is ``a * b + c`` in f64: exact product, one
rounding of the sum in f64 and one to the type, so it can differ from a true fused
multiply-add in the last bit for f32 and is not fused for f64.

**Exact functions** (``absf``, ``ceil``, ``floor``, ``trunc``, ``round``, ``roundeven``,
``copysign``) are computed without any rounding.

>>> import numpy as np
>>> from tinycomp.ir import Operation, f16
>>> tanh = Operation.create("math.tanh", result_types=[f16])
>>> (y,) = run_float_function(tanh, [np.float16(0.5)], None)
>>> float(y), y.dtype
(0.462158203125, dtype('float16'))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tinycomp.interp.errors import op_error
from tinycomp.interp.numerics import dtype_of, int_width, round_float, signed, wrap_int
from tinycomp.ir.operation import Operation

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """``math.round``: halfway cases away from zero (C's ``round``), exactly, keeping
    the sign of zero (``round(-0.3)`` is ``-0.0``, as in C and LLVM).

    >>> _round_half_away(np.array([-0.3, 2.5, -2.5, 0.49], np.float32)).tolist()
    [-0.0, 3.0, -3.0, 0.0]
    """
    whole = np.trunc(x)
    fraction = x - whole  # exact
    return np.copysign(whole + np.where(np.abs(fraction) >= 0.5, np.sign(x), 0.0), x)


FLOAT_FUNCTIONS = {
    "math.exp": np.exp,
    "math.exp2": np.exp2,
    "math.expm1": np.expm1,
    "math.log": np.log,
    "math.log2": np.log2,
    "math.log10": np.log10,
    "math.log1p": np.log1p,
    "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: 1.0 / np.sqrt(x),
    "math.cbrt": np.cbrt,
    "math.sin": np.sin,
    "math.cos": np.cos,
    "math.tan": np.tan,
    "math.atan": np.arctan,
    "math.sinh": np.sinh,
    "math.cosh": np.cosh,
    "math.tanh": np.tanh,
    "math.erf": _erf,
    "math.erfc": _erfc,
    "math.absf": np.abs,
    "math.ceil": np.ceil,
    "math.floor": np.floor,
    "math.trunc": np.trunc,
    "math.round": _round_half_away,
    "math.roundeven": np.rint,  # numpy rounds halfway cases to even
    "math.powf": np.power,
    "math.atan2": np.arctan2,
    "math.copysign": np.copysign,
    "math.fma": lambda a, b, c: a * b + c,
}
"""Float ops: the numpy function applied to the operands converted to float64."""


def run_float_function(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Any op of ``FLOAT_FUNCTIONS``: evaluate in float64, round once to the type."""
    function = FLOAT_FUNCTIONS[op.name]
    wide = [np.asarray(x).astype(np.float64) for x in operands]
    return [round_float(function(*wide), dtype_of(op.results[0].type))]


def run_fpowi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``math.fpowi``: a float to an integer power."""
    base = np.asarray(operands[0]).astype(np.float64)
    exponent = signed(operands[1], int_width(op.operands[1].type)).astype(np.float64)
    return [round_float(np.power(base, exponent), dtype_of(op.results[0].type))]


# -- integers --------------------------------------------------------------------------------
def _int_result(op: Operation, values: Any) -> Any:
    result_type = op.results[0].type
    return wrap_int(values, int_width(result_type), dtype_of(result_type))


def _bits(op: Operation, value: Any) -> tuple[np.ndarray, int]:
    """The operand's bits as uint64, and the width."""
    width = int_width(op.results[0].type)
    return signed(value, width).astype(np.uint64) & np.uint64((1 << width) - 1), width


def run_absi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``|a|`` (``INT_MIN`` stays ``INT_MIN``, as in two's complement)."""
    return [_int_result(op, np.abs(signed(operands[0], int_width(op.results[0].type))))]


def run_ctpop(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Number of 1 bits."""
    bits, width = _bits(op, operands[0])
    count = np.zeros(bits.shape, np.int64)
    for position in range(width):
        count += ((bits >> np.uint64(position)) & np.uint64(1)).astype(np.int64)
    return [_int_result(op, count)]


def run_ctlz(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Number of leading zero bits (``width`` for 0)."""
    bits, width = _bits(op, operands[0])
    count = np.full(bits.shape, width, np.int64)
    for position in range(width):  # the highest set bit decides: scan upward
        is_set = ((bits >> np.uint64(position)) & np.uint64(1)) == 1
        count = np.where(is_set, width - 1 - position, count)
    return [_int_result(op, count)]


def run_cttz(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Number of trailing zero bits (``width`` for 0)."""
    bits, width = _bits(op, operands[0])
    count = np.full(bits.shape, width, np.int64)
    for position in reversed(range(width)):  # the lowest set bit decides: scan downward
        is_set = ((bits >> np.uint64(position)) & np.uint64(1)) == 1
        count = np.where(is_set, position, count)
    return [_int_result(op, count)]


def run_ipowi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a ** b`` on integers, wrapping; a negative ``b`` gives ``1/a**-b`` truncated
    (so 0 unless ``a`` is 1 or -1), and ``0 ** negative`` is a division by zero."""
    width = int_width(op.results[0].type)
    base, exponent = (signed(x, width) for x in operands)
    if np.any((base == 0) & (exponent < 0)):
        raise op_error(op, "division by zero: 0 raised to a negative power")
    result = np.ones(np.broadcast(base, exponent).shape, np.int64)
    power, remaining = np.broadcast_to(base, result.shape), np.abs(exponent)
    remaining = np.broadcast_to(remaining, result.shape).astype(np.uint64)
    while np.any(remaining):  # square and multiply, wrapping in int64 like the hardware
        odd = (remaining & np.uint64(1)) == 1
        result = np.where(odd, result * power, result)
        power = power * power
        remaining = remaining >> np.uint64(1)
    negative = np.broadcast_to(exponent < 0, result.shape)
    reciprocal = np.where(np.abs(base) == 1, result, 0)  # 1 / (+-1)**n, else truncated to 0
    return [_int_result(op, np.where(negative, reciprocal, result))]


RULES = {name: run_float_function for name in FLOAT_FUNCTIONS}
RULES.update(
    {
        "math.fpowi": run_fpowi,
        "math.absi": run_absi,
        "math.ctpop": run_ctpop,
        "math.ctlz": run_ctlz,
        "math.cttz": run_cttz,
        "math.ipowi": run_ipowi,
    }
)
"""Every math op the interpreter runs."""

__all__ = ["FLOAT_FUNCTIONS", "RULES"]
