"""How feedback writes numbers and values: short, exact enough to see the difference.

Feedback is read by people, so numbers get about five significant digits and
powers of ten the way papers write them (`2.0e9`, not `2000000000.0`), arrays
are shown by shape and dtype, and long reprs are cut.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

import numpy as np

__all__ = ["describe_value", "format_number", "format_pair", "format_tolerance"]

SIGNIFICANT_DIGITS = 5
"""Digits shown by default; `format_pair` shows more when two numbers need them."""
MAX_REPR = 60
"""Longest repr shown for a value before it is cut with an ellipsis."""


def format_number(value: Real, digits: int = SIGNIFICANT_DIGITS) -> str:
    """Format a number for feedback: integers exactly, floats to `digits` significant digits.

    >>> format_number(166.666666), format_number(2.0e9), format_number(1.2e-7)
    ('166.67', '2.0e9', '1.2e-7')
    >>> format_number(137438953472), format_number(4.0), format_number(float("nan"))
    ('137438953472', '4.0', 'nan')
    """
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return str(value)
    text = f"{value:.{digits}g}"
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


def format_pair(expected: Real, found: Real) -> tuple[str, str]:
    """Format two numbers with just enough digits that different values print differently.

    >>> format_pair(1.0, 1.0000001)
    ('1.0', '1.0000001')
    >>> format_pair(166.6667, 83.3333)
    ('166.67', '83.333')
    """
    for digits in range(SIGNIFICANT_DIGITS, 18):
        wanted, got = format_number(expected, digits), format_number(found, digits)
        if wanted != got or expected == found:
            return wanted, got
    return wanted, got


def format_tolerance(value: float) -> str:
    """Format a tolerance the way people write it.

    >>> format_tolerance(1e-5), format_tolerance(0.001), format_tolerance(2.5e-7)
    ('1e-5', '0.001', '2.5e-7')
    """
    mantissa, _, exponent = f"{value:g}".partition("e")
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


def describe_value(value: Any, typed: bool = True) -> str:
    """Describe a value in a few words; with `typed`, name its type first.

    >>> describe_value(None), describe_value(3.5), describe_value("memory")
    ('None', 'float 3.5', "str 'memory'")
    >>> describe_value(np.zeros((4, 8), np.float32))
    'array of shape (4, 8) float32'
    >>> describe_value(1.2e7, typed=False)
    '1.2e7'
    """
    if isinstance(value, np.ndarray):
        if typed:
            return f"array of shape {value.shape} {value.dtype}"
        return f"array({', '.join(map(str, value.shape))}) {value.dtype}"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, Real):
        text = format_number(value)
    else:
        text = repr(value)
        if len(text) > MAX_REPR:
            text = text[: MAX_REPR - 3] + "..."
    return f"{type(value).__name__} {text}" if typed else text
