"""How MLIR writes a float constant, digit for digit.

MLIR prints ``1.0 : f32`` as ``1.000000e+00 : f32``. The rule (``printFloatValue`` in
MLIR's AsmPrinter, built on LLVM's ``APFloat::toString``) is:

1. Try 6 significant digits in scientific notation (``1.234570e+00``). If reading that
   text back gives exactly the same value *in the constant's own type*, print it.
2. Otherwise print "enough" digits: ``2 + precision_bits * 59 / 196`` significant digits
   (9 for f32, 17 for f64), trailing zeros dropped, plain or scientific notation. If the
   result contains a ``.`` it is a valid float literal: print it.
3. Otherwise (infinities, NaNs, and integers such as ``123456789.0`` whose step-2 text
   has no ``.``) print the bit pattern in hexadecimal: ``0x7F800000 : f32``.

LLVM rounds half up on the decimal digits, which is why ``3.140625`` (a bf16 value)
prints as ``3.140630e+00`` and not Python's ``3.140625e+00``. ``format_float`` below
reproduces those digits so that tinycomp's output matches ``mlir-opt`` byte for byte.

>>> format_float(1.0, "f32"), format_float(0.30000000000000004, "f64")
('1.000000e+00', '0.30000000000000004')
>>> format_float(float("inf"), "f32"), format_float(3.140625, "bf16")
('0x7F800000', '3.140630e+00')
"""

from __future__ import annotations

import struct

import ml_dtypes
import numpy as np

_PRECISION_BITS = {"f16": 11, "bf16": 8, "f32": 24, "f64": 53}
_NUMPY_TYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}
_UINT_TYPES = {16: np.uint16, 32: np.uint32}


def round_to_type(value: float, type_name: str) -> float:
    """Round a Python float to the nearest value of the float type ``type_name``.

    >>> round_to_type(0.1, "f32")
    0.10000000149011612
    """
    if type_name == "f64":
        return float(value)
    with np.errstate(over="ignore"):
        return float(_NUMPY_TYPES[type_name](value))


def float_to_bits(value: float, type_name: str) -> int:
    """The IEEE bit pattern of ``value`` (already representable) in ``type_name``.

    >>> hex(float_to_bits(1.0, "f32")), hex(float_to_bits(-2.0, "bf16"))
    ('0x3f800000', '0xc000')
    """
    if type_name == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    scalar = np.array(value, dtype=_NUMPY_TYPES[type_name])
    width = 16 if type_name in ("f16", "bf16") else 32
    return int(scalar.view(_UINT_TYPES[width]))


def bits_to_float(bits: int, type_name: str) -> float:
    """The float whose bit pattern in ``type_name`` is ``bits`` (the inverse of above).

    >>> bits_to_float(0x3F800000, "f32")
    1.0
    """
    if type_name == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    width = 16 if type_name in ("f16", "bf16") else 32
    raw = np.array(bits, dtype=_UINT_TYPES[width])
    return float(raw.view(_NUMPY_TYPES[type_name]))


def format_float(value: float, type_name: str) -> str:
    """MLIR's text for a float constant of type ``type_name`` (see the module docstring)."""
    if not (np.isinf(value) or np.isnan(value)):
        text = apfloat_to_string(value, type_name, precision=6, max_padding=0, truncate_zero=False)
        if float_to_bits(round_to_type(float(text), type_name), type_name) == float_to_bits(
            value, type_name
        ):
            return text
        text = apfloat_to_string(value, type_name, precision=0, max_padding=3, truncate_zero=True)
        if "." in text:
            return text
    return "0x" + format(float_to_bits(value, type_name), "X")


def apfloat_to_string(
    value: float, type_name: str, precision: int, max_padding: int, truncate_zero: bool
) -> str:
    """A transcription of LLVM's ``APFloat::toString`` for finite values.

    1. Write |value| exactly as ``digits * 10**exp`` (an odd numerator times ``2**-t``
       is ``numerator * 5**t * 10**-t``).
    2. Cut the digit string to ``precision`` significant digits, rounding half up, and
       drop trailing zeros.
    3. Choose plain or scientific notation from ``max_padding`` and lay out the digits.

    >>> apfloat_to_string(1.5, "f32", 6, 0, False)
    '1.500000e+00'
    >>> apfloat_to_string(123456789.0, "f64", 0, 3, True)
    '123456789'
    """
    sign = "-" if np.signbit(value) else ""
    if value == 0:
        if max_padding:
            return sign + "0"
        if truncate_zero:
            return sign + "0.0E+0"
        return sign + "0." + "0" * max(precision, 1) + "e+00"
    if precision == 0:
        precision = 2 + _PRECISION_BITS[type_name] * 59 // 196

    # 1. exact decimal expansion: significand * 10**exp
    numerator, denominator = abs(value).as_integer_ratio()
    twos = denominator.bit_length() - 1
    significand, exp = (numerator, 0) if twos == 0 else (numerator * 5**twos, -twos)
    significand, exp = _drop_binary_excess(significand, exp, precision)
    digits = str(significand).rstrip("0")
    exp += len(str(significand)) - len(digits)

    # 2. round half up to `precision` digits
    digits, exp = _round_digits(digits, exp, precision)

    # 3. layout
    count = len(digits)
    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or count + exp > precision
    else:
        most_significant = exp + count - 1
        scientific = most_significant < 0 and -most_significant > max_padding
    if scientific:
        exp += count - 1
        mantissa = digits[0] + "." + (digits[1:] or ("0" if truncate_zero else ""))
        if not truncate_zero:
            mantissa += "0" * (precision - count + 1)
        exponent = str(abs(exp)).rjust(1 if truncate_zero else 2, "0")
        return (
            f"{sign}{mantissa}{'E' if truncate_zero else 'e'}{'+' if exp >= 0 else '-'}{exponent}"
        )
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + count
    if whole > 0:
        return sign + digits[:whole] + "." + digits[whole:]
    return sign + "0." + "0" * -whole + digits


def _drop_binary_excess(significand: int, exp: int, precision: int) -> tuple[int, int]:
    """LLVM first truncates (not rounds) digits that are certainly beyond ``precision``."""
    bits = significand.bit_length()
    bits_required = (precision * 196 + 58) // 59
    if bits <= bits_required:
        return significand, exp
    removable = (bits - bits_required) * 59 // 196
    if removable == 0:
        return significand, exp
    return significand // 10**removable, exp + removable


def _round_digits(digits: str, exp: int, precision: int) -> tuple[str, int]:
    """Keep ``precision`` leading digits, rounding half up on the first dropped one."""
    if len(digits) <= precision:
        return digits, exp
    dropped = len(digits) - precision
    kept = digits[:precision]
    if digits[precision] < "5":
        stripped = kept.rstrip("0")
        return stripped, exp + dropped + (len(kept) - len(stripped))
    rounded = str(int(kept) + 1)
    if len(rounded) > len(kept):  # carried through all nines: 999 -> 1000
        return "1", exp + dropped + len(kept)
    stripped = rounded.rstrip("0")
    return stripped, exp + dropped + (len(rounded) - len(stripped))
