"""Rules for arith's integer ops: two's complement, wrapping at the type's width.

MLIR integers are signless bit patterns; the op says how to read them. Each rule reads
its operands ``signed`` or ``unsigned`` (as int64/uint64, see ``numerics.py``), computes,
and ``wrap_int``\\ s the result back to the width: ``i32`` overflow wraps around, ``index``
is 64 bits. The ``nsw``/``nuw`` flags are not checked (results always wrap).

What LLVM calls *undefined behaviour* or *poison* is an ``InterpreterError`` here, naming
the op: division (or remainder) by zero, ``INT_MIN / -1``, and shifting by the width or
more. An oracle should stop at such a bug rather than invent a value.

==================  =====================================================================
op                  rounding / reading
==================  =====================================================================
divsi               toward zero: ``-7 / 2 = -3``
floordivsi          toward minus infinity: ``-7 / 2 = -4``
ceildivsi           toward plus infinity: ``7 / 2 = 4``
remsi               sign of the dividend: ``-7 % 2 = -1`` (so ``a = (a/b)*b + a%b``)
divui remui         unsigned: ``i8 -1`` is 255
shrsi / shrui       sign-filling / zero-filling shift right
==================  =====================================================================

>>> import numpy as np
>>> from tinycomp.ir import Operation, i32
>>> div = Operation.create("arith.divsi", result_types=[i32])
>>> [int(v) for v in run_divsi(div, [np.int32(-7), np.int32(2)], None)]
[-3]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.dialects.arith.compare import CMPI_PREDICATES
from tinycomp.interp.errors import format_index, op_error
from tinycomp.interp.numerics import (
    as_value,
    dtype_of,
    int_range,
    int_width,
    signed,
    unsigned,
    wrap_int,
)
from tinycomp.ir.operation import Operation


def _width(op: Operation) -> int:
    return int_width(op.results[0].type)


def _result(op: Operation, values: Any) -> Any:
    """``values`` wrapped to the result type."""
    result_type = op.results[0].type
    return wrap_int(values, int_width(result_type), dtype_of(result_type))


def _where(values: Any) -> str:
    """`` at element [2, 1]`` for the first True entry of an array, ``""`` for a scalar."""
    array = np.asarray(values)
    if array.ndim == 0:
        return ""
    return f" at element {format_index(np.argwhere(array)[0])}"


def _check_divisor(op: Operation, lhs: Any, rhs: Any, is_signed: bool) -> None:
    """Division by zero, and the one signed overflow ``INT_MIN / -1``, are UB."""
    if np.any(rhs == 0):
        raise op_error(op, f"division by zero{_where(rhs == 0)}: the divisor is 0")
    if is_signed:
        smallest = int_range(_width(op), True)[0]
        overflow = (lhs == smallest) & (rhs == -1)
        if np.any(overflow):
            raise op_error(
                op, f"signed division overflow{_where(overflow)}: {smallest} / -1 does not fit"
            )


def _check_shift(op: Operation, amount: Any) -> None:
    width = _width(op)
    if np.any(amount >= width):
        raise op_error(
            op,
            f"shift amount{_where(amount >= width)} must be less than the bit width {width}, "
            f"got {int(np.max(amount))} (the result would be poison)",
        )


# -- arithmetic: the same bits whether read signed or unsigned ---------------------------------
def run_addi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a + b`` modulo ``2**width``."""
    a, b = (signed(x, _width(op)) for x in operands)
    return [_result(op, a + b)]


def run_subi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a - b`` modulo ``2**width``."""
    a, b = (signed(x, _width(op)) for x in operands)
    return [_result(op, a - b)]


def run_muli(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a * b`` modulo ``2**width`` (int64 products wrap the same way)."""
    a, b = (signed(x, _width(op)) for x in operands)
    return [_result(op, a * b)]


def run_andi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Bitwise and."""
    a, b = (signed(x, _width(op)) for x in operands)
    return [_result(op, a & b)]


def run_ori(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Bitwise or."""
    a, b = (signed(x, _width(op)) for x in operands)
    return [_result(op, a | b)]


def run_xori(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Bitwise exclusive or."""
    a, b = (signed(x, _width(op)) for x in operands)
    return [_result(op, a ^ b)]


def run_shli(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``a << b``; ``b`` is read unsigned and must be below the width."""
    a, amount = (unsigned(x, _width(op)) for x in operands)
    _check_shift(op, amount)
    return [_result(op, a << amount)]


def run_shrui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Logical shift right: zeros come in from the left."""
    a, amount = (unsigned(x, _width(op)) for x in operands)
    _check_shift(op, amount)
    return [_result(op, a >> amount)]


def run_shrsi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Arithmetic shift right: copies of the sign bit come in from the left."""
    a = signed(operands[0], _width(op))
    amount = unsigned(operands[1], _width(op))
    _check_shift(op, amount)
    return [_result(op, a >> amount.astype(np.int64))]


# -- signed division, remainder, min/max -----------------------------------------------------------
def _floor_quotient(a: Any, b: Any) -> tuple[Any, Any]:
    """Floor quotient and its remainder, exact in int64 (numpy's ``//`` floors)."""
    quotient = a // b
    return quotient, a - quotient * b


def run_divsi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Signed division rounding toward zero."""
    a, b = (signed(x, _width(op)) for x in operands)
    _check_divisor(op, a, b, is_signed=True)
    quotient, remainder = _floor_quotient(a, b)
    toward_zero = quotient + ((remainder != 0) & ((a < 0) != (b < 0)))
    return [_result(op, toward_zero)]


def run_floordivsi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Signed division rounding toward minus infinity."""
    a, b = (signed(x, _width(op)) for x in operands)
    _check_divisor(op, a, b, is_signed=True)
    return [_result(op, _floor_quotient(a, b)[0])]


def run_ceildivsi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Signed division rounding toward plus infinity."""
    a, b = (signed(x, _width(op)) for x in operands)
    _check_divisor(op, a, b, is_signed=True)
    quotient, remainder = _floor_quotient(a, b)
    return [_result(op, quotient + (remainder != 0))]


def run_remsi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Signed remainder with the sign of the dividend (C's ``%``)."""
    a, b = (signed(x, _width(op)) for x in operands)
    _check_divisor(op, a, b, is_signed=True)
    return [_result(op, np.fmod(a, b))]


def run_maxsi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Signed maximum."""
    a, b = (signed(x, _width(op)) for x in operands)
    return [_result(op, np.maximum(a, b))]


def run_minsi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Signed minimum."""
    a, b = (signed(x, _width(op)) for x in operands)
    return [_result(op, np.minimum(a, b))]


# -- unsigned ------------------------------------------------------------------------------------
def run_divui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Unsigned division (rounds down)."""
    a, b = (unsigned(x, _width(op)) for x in operands)
    _check_divisor(op, a, b, is_signed=False)
    return [_result(op, a // b)]


def run_ceildivui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Unsigned division rounding up."""
    a, b = (unsigned(x, _width(op)) for x in operands)
    _check_divisor(op, a, b, is_signed=False)
    return [_result(op, a // b + (a % b != 0))]


def run_remui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Unsigned remainder."""
    a, b = (unsigned(x, _width(op)) for x in operands)
    _check_divisor(op, a, b, is_signed=False)
    return [_result(op, a % b)]


def run_maxui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Unsigned maximum."""
    a, b = (unsigned(x, _width(op)) for x in operands)
    return [_result(op, np.maximum(a, b))]


def run_minui(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """Unsigned minimum."""
    a, b = (unsigned(x, _width(op)) for x in operands)
    return [_result(op, np.minimum(a, b))]


# -- comparison ----------------------------------------------------------------------------------
_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal}
_COMPARE.update({"gt": np.greater, "ge": np.greater_equal})


def run_cmpi(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``arith.cmpi``: ``s..`` predicates read the operands signed, ``u..`` unsigned."""
    predicate = op.attributes.get("predicate")
    number = getattr(predicate, "value", None)
    if not isinstance(number, int) or not 0 <= number < len(CMPI_PREDICATES):
        raise op_error(op, f"expected a cmpi predicate 0..9, got {predicate}")
    name = CMPI_PREDICATES[number]
    width = int_width(op.operands[0].type)
    reading = unsigned if name.startswith("u") else signed
    a, b = (reading(x, width) for x in operands)
    compare = _COMPARE[name if name in ("eq", "ne") else name[1:]]
    return [as_value(compare(a, b), np.dtype(bool))]


INT_RULES = {
    "arith.addi": run_addi,
    "arith.subi": run_subi,
    "arith.muli": run_muli,
    "arith.andi": run_andi,
    "arith.ori": run_ori,
    "arith.xori": run_xori,
    "arith.shli": run_shli,
    "arith.shrui": run_shrui,
    "arith.shrsi": run_shrsi,
    "arith.divsi": run_divsi,
    "arith.floordivsi": run_floordivsi,
    "arith.ceildivsi": run_ceildivsi,
    "arith.remsi": run_remsi,
    "arith.maxsi": run_maxsi,
    "arith.minsi": run_minsi,
    "arith.divui": run_divui,
    "arith.ceildivui": run_ceildivui,
    "arith.remui": run_remui,
    "arith.maxui": run_maxui,
    "arith.minui": run_minui,
    "arith.cmpi": run_cmpi,
}
"""arith's integer ops."""

__all__ = ["INT_RULES"]
