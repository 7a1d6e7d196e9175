"""Numbers as MLIR means them: integers that wrap at their width, floats rounded once.

The interpreter keeps every scalar as a numpy scalar of the type's dtype (``i32`` ->
``np.int32``, ``i1`` -> ``np.bool_``, ``index`` -> ``np.int64``, ``bf16`` ->
``ml_dtypes.bfloat16``) and every tensor or vector as a numpy array of that dtype. The
rules stay elementwise, so the same code runs on one scalar or on a whole array (that is
how ``linalg.generic`` bodies are vectorized).

**Integers** are *signless* in MLIR: an ``i32`` is 32 bits, and each op decides whether
to read them as signed or unsigned. ``signed``/``unsigned`` give those two readings as
int64/uint64 arrays, and ``wrap_int`` brings any result back to the type, modulo
``2**width`` (two's complement), which is what the hardware does.

>>> import numpy as np
>>> int(signed(np.int32(-1), 32)), int(unsigned(np.int32(-1), 32))
(-1, 4294967295)
>>> int(wrap_int(np.int64(2**31), 32))  # i32 overflow wraps around
-2147483648
>>> bool(signed(np.bool_(True), 1) == -1)  # an i1 "true" is -1 when read as signed
True

**Floats** are computed in the op's own dtype: ``arith.addf`` on ``f16`` gives the
correctly rounded ``f16`` sum. (numpy and ml_dtypes compute f16/bf16 arithmetic in f32
and round back; for + - * / and sqrt that double rounding is provably harmless, because
f32 has more than twice as many significand bits.) Conversions that could round twice
are done with *round-to-odd* (``round_float``, ``int_to_float``), so every cast rounds
exactly once, to nearest-even:

>>> import ml_dtypes
>>> x = np.float64(1 + 2**-8 + 2**-30)   # just above the halfway point between two bf16
>>> float(round_float(x, np.dtype(ml_dtypes.bfloat16)))   # a plain astype gives 1.0
1.0078125
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from tinycomp.ir.type_helpers import bitwidth, element_type, to_numpy_dtype
from tinycomp.ir.types import IndexType, IntegerType, Type

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
"""numpy's dtype for ``bf16``."""


def dtype_of(t: Type) -> np.dtype:
    """The numpy dtype of a scalar type, or of the elements of a shaped type.

    >>> from tinycomp.ir import f16, index
    >>> dtype_of(f16), dtype_of(index)
    (dtype('float16'), dtype('int64'))
    """
    return to_numpy_dtype(t)


def int_width(t: Type) -> int:
    """Bits of an integer or index element type (``index`` is 64 bits).

    >>> from tinycomp.ir import i1, index
    >>> int_width(i1), int_width(index)
    (1, 64)
    """
    scalar = element_type(t)
    if not isinstance(scalar, (IntegerType, IndexType)):
        raise TypeError(f"expected an integer or index type, got {t}")
    return bitwidth(scalar)


def as_value(result: Any, dtype: np.dtype) -> Any:
    """``result`` in ``dtype``: a numpy scalar for a 0-d result, an array otherwise.

    >>> type(as_value(np.asarray(2.5), np.dtype(np.float32))).__name__
    'float32'
    """
    array = np.asarray(result)
    if array.dtype != dtype:
        array = array.astype(dtype)
    return array[()] if array.ndim == 0 else array


# -- integers ------------------------------------------------------------------------
def signed(x: Any, width: int) -> Any:
    """The values of ``width``-bit integers read as signed, as int64.

    numpy's int8/16/32/64 already hold the signed reading; an ``i1`` (numpy ``bool``)
    is 0 or -1.
    """
    values = np.asarray(x).astype(np.int64)
    return -values if width == 1 else values


def unsigned(x: Any, width: int) -> Any:
    """The values of ``width``-bit integers read as unsigned, as uint64."""
    values = np.asarray(x).astype(np.int64).astype(np.uint64)
    if width < 64:
        values = values & np.uint64((1 << width) - 1)
    return values


def wrap_int(x: Any, width: int, dtype: np.dtype | None = None) -> Any:
    """``x`` (int64 or uint64 values) modulo ``2**width``, in the type's dtype.

    ``dtype`` defaults to the numpy dtype of ``iN`` (``bool`` for ``i1``); pass
    ``int64`` for ``index``.
    """
    if dtype is None:
        dtype = to_numpy_dtype(IntegerType(width))
    with np.errstate(over="ignore"):
        bits = np.asarray(x).astype(np.uint64)
        if width == 1:
            return as_value((bits & np.uint64(1)) == 1, dtype)
        values = bits.astype(np.int64)
        if width < 64:  # move bit width-1 up to the sign bit, then shift back with sign
            shift = 64 - width
            values = (bits << np.uint64(shift)).astype(np.int64) >> np.int64(shift)
        return as_value(values, dtype)


def int_range(width: int, is_signed: bool) -> tuple[int, int]:
    """The smallest and largest value of a ``width``-bit integer.

    >>> int_range(8, True), int_range(8, False), int_range(1, True)
    ((-128, 127), (0, 255), (-1, 0))
    """
    if is_signed:
        return -(1 << (width - 1)), (1 << (width - 1)) - 1
    return 0, (1 << width) - 1


# -- floats ----------------------------------------------------------------------------
def _round_to_odd_f32(x: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounding *to odd*: exact values stay, inexact ones take the
    neighbour whose last bit is 1. Rounding that to fewer bits (bf16) is then exact."""
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = x.astype(np.float32)
        back = nearest.astype(np.float64)
        inexact = (back != x) & ~np.isnan(x)
        toward = np.where(back < x, np.float32(np.inf), np.float32(-np.inf))
        other = np.nextafter(nearest, toward)
        is_odd = (nearest.view(np.uint32) & np.uint32(1)) == 1
        return np.where(inexact & ~is_odd, other, nearest)


def round_float(x: Any, dtype: np.dtype) -> Any:
    """Round float values (of any float dtype) to ``dtype``, once, to nearest-even.

    numpy rounds f64/f32 to f32/f16 correctly; only bf16 from f64 needs the detour
    through round-to-odd (ml_dtypes goes through f32 with two roundings).
    """
    array = np.asarray(x)
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == BFLOAT16 and array.dtype == np.float64:
            return as_value(_round_to_odd_f32(array).astype(BFLOAT16), dtype)
        return as_value(array.astype(dtype), dtype)


def _int_to_f64_round_to_odd(values: np.ndarray) -> np.ndarray:
    """int64/uint64 -> f64 rounded to odd. The split ``hi + lo`` is exact in f64, so the
    rounding error of their sum tells whether (and which way) the sum was rounded."""
    low_mask = np.array(0xFFFFFFFF).astype(values.dtype)
    low = values & low_mask
    high = values - low
    high_f, low_f = high.astype(np.float64), low.astype(np.float64)
    total = high_f + low_f
    error = (high_f - total) + low_f  # exact (Fast2Sum: |high| >= |low| or high == 0)
    toward = np.where(error > 0, np.inf, -np.inf)
    is_odd = (total.view(np.uint64) & np.uint64(1)) == 1
    return np.where((error != 0) & ~is_odd, np.nextafter(total, toward), total)


def int_to_float(values: Any, dtype: np.dtype) -> Any:
    """Convert int64 (signed reading) or uint64 (unsigned reading) values to a float
    dtype, rounding once to nearest-even (``sitofp``/``uitofp``).

    >>> big = np.int64(2**24 + 2**16 + 1)   # halfway + 1 between two bf16 values
    >>> float(int_to_float(big, BFLOAT16)), 2**24 + 2**17
    (16908288.0, 16908288)
    """
    array = np.asarray(values)
    with np.errstate(over="ignore"):
        if dtype == BFLOAT16:
            as_f64 = _int_to_f64_round_to_odd(array)
            return as_value(_round_to_odd_f32(as_f64).astype(BFLOAT16), dtype)
        return as_value(array.astype(dtype), dtype)


__all__ = [
    "BFLOAT16",
    "as_value",
    "dtype_of",
    "int_range",
    "int_to_float",
    "int_width",
    "round_float",
    "signed",
    "unsigned",
    "wrap_int",
]
