"""Checks that talk like a compiler: what was expected, what was found, where.

A graded test calls the student's function, then hands the result to one of
these helpers. When the result is wrong the helper raises `GradingFailure`
with a message a student can act on:

    arithmetic_intensity(2.0e9, 1.2e7): expected 166.67 FLOP/byte, found 83.333

Every helper takes `what` first: a short description of the value under
test, usually built with `describe_call`.
"""

from __future__ import annotations

import difflib
import math
from numbers import Real
from typing import Any

import numpy as np

from tinycomp.grading.formatting import (
    describe_value,
    format_number,
    format_pair,
    format_tolerance,
)

__all__ = [
    "GradingFailure",
    "describe_call",
    "expect_array_close",
    "expect_close",
    "expect_equal",
    "expect_instance",
    "expect_text",
]


class GradingFailure(AssertionError):
    """A graded check failed; the message is the feedback the student reads."""


def describe_call(function: Any, *args: Any, **kwargs: Any) -> str:
    """Write a call the way feedback shows it: short numbers, arrays by shape.

    >>> describe_call("arithmetic_intensity", 2.0e9, 1.2e7)
    'arithmetic_intensity(2.0e9, 1.2e7)'
    >>> describe_call(len, np.zeros((4, 8), np.float32), axis=1)
    'len(array(4, 8) float32, axis=1)'
    """
    name = function if isinstance(function, str) else getattr(function, "__name__", "call")
    parts = [describe_value(arg, typed=False) for arg in args]
    parts += [f"{key}={describe_value(value, typed=False)}" for key, value in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def expect_close(
    what: str, found: Any, expected: float, *, unit: str = "", rtol: float = 1e-6, atol: float = 0.0
) -> None:
    """Check that a number is within `rtol` (relative) or `atol` (absolute) of `expected`.

    >>> try:
    ...     expect_close("f()", 83.3333, 166.6667, unit="FLOP/byte")
    ... except GradingFailure as failure:
    ...     print(failure)
    f(): expected 166.67 FLOP/byte, found 83.333
    """
    suffix = f" {unit}" if unit else ""
    if not isinstance(found, Real) or isinstance(found, bool):
        wanted = f"{format_number(expected)}{suffix}"
        raise GradingFailure(f"{what}: expected a number ({wanted}), found {describe_value(found)}")
    if not math.isclose(found, expected, rel_tol=rtol, abs_tol=atol):
        wanted, got = format_pair(expected, found)
        raise GradingFailure(f"{what}: expected {wanted}{suffix}, found {got}")


def expect_equal(what: str, found: Any, expected: Any) -> None:
    """Check that a value (a number, a string, a tuple...) equals `expected` exactly.

    >>> try:
    ...     expect_equal("roofline_bound(0.5, 1.0e14, 2.0e12)[0]", "compute", "memory")
    ... except GradingFailure as failure:
    ...     print(failure)
    roofline_bound(0.5, 1.0e14, 2.0e12)[0]: expected 'memory', found 'compute'
    """
    if type(found) is not type(expected) and not _both_numbers(found, expected):
        wanted, got = describe_value(expected), describe_value(found)
        raise GradingFailure(f"{what}: expected {wanted}, found {got}")
    if found != expected:
        raise GradingFailure(
            f"{what}: expected {describe_value(expected, typed=False)}, "
            f"found {describe_value(found, typed=False)}"
        )


def expect_instance(what: str, found: Any, kinds: type | tuple[type, ...], noun: str) -> None:
    """Check that a value has one of the Python types `kinds`; `noun` names them for the student.

    >>> try:
    ...     expect_instance("roofline_bound(...)", 3.5, tuple, "a (bound, FLOP/s) tuple")
    ... except GradingFailure as failure:
    ...     print(failure)
    roofline_bound(...): expected a (bound, FLOP/s) tuple, found float 3.5
    """
    if not isinstance(found, kinds):
        raise GradingFailure(f"{what}: expected {noun}, found {describe_value(found)}")


def expect_array_close(
    what: str, found: Any, expected: Any, *, rtol: float = 1e-5, atol: float = 0.0
) -> None:
    """Check an array against the numpy reference: same shape, same dtype, close values.

    >>> reference = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    >>> found = reference.copy()
    >>> found[1, 1] = 5.0
    >>> try:
    ...     expect_array_close("mm", found, reference)
    ... except GradingFailure as failure:
    ...     print(*str(failure).split("; "), sep="\\n")
    mm: expected array of shape (2, 2) float32 to match numpy within rtol=1e-5
    first mismatch at [1, 1]: expected 4.0, found 5.0 (1 of 4 elements differ)
    """
    expected = np.asarray(expected)
    spec = f"array of shape {expected.shape} {expected.dtype}"
    if not isinstance(found, np.ndarray):
        raise GradingFailure(f"{what}: expected a numpy {spec}, found {describe_value(found)}")
    if found.shape != expected.shape:
        raise GradingFailure(f"{what}: expected {spec}, found shape {found.shape} {found.dtype}")
    if found.dtype != expected.dtype:
        raise GradingFailure(f"{what}: expected {spec}, found dtype {found.dtype}")
    found64, expected64 = found.astype(np.float64), expected.astype(np.float64)
    close = np.isclose(found64, expected64, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return
    first = tuple(int(i) for i in np.argwhere(~close)[0])
    wanted, got = format_pair(float(expected64[first]), float(found64[first]))
    tolerance = f"rtol={format_tolerance(rtol)}"
    if atol:
        tolerance += f", atol={format_tolerance(atol)}"
    raise GradingFailure(
        f"{what}: expected {spec} to match numpy within {tolerance}; "
        f"first mismatch at [{', '.join(map(str, first))}]: expected {wanted}, found {got} "
        f"({int((~close).sum())} of {close.size} elements differ)"
    )


def expect_text(what: str, found: Any, expected: str) -> None:
    """Check a text (IR, assembly...) line by line, ignoring trailing whitespace.

    On a mismatch the message names the first differing line, then shows a diff.

    >>> try:
    ...     expect_text("print_op(add)", "%0 = arith.mulf %a, %b", "%0 = arith.addf %a, %b")
    ... except GradingFailure as failure:
    ...     print(failure)
    print_op(add): text differs at line 1
      expected: %0 = arith.addf %a, %b
      found:    %0 = arith.mulf %a, %b
    --- expected
    +++ found
    @@ -1 +1 @@
    -%0 = arith.addf %a, %b
    +%0 = arith.mulf %a, %b
    """
    if not isinstance(found, str):
        raise GradingFailure(f"{what}: expected text, found {describe_value(found)}")
    found_lines = [line.rstrip() for line in found.rstrip().splitlines()]
    expected_lines = [line.rstrip() for line in expected.rstrip().splitlines()]
    if found_lines == expected_lines:
        return
    index = _first_difference(found_lines, expected_lines)
    diff = difflib.unified_diff(expected_lines, found_lines, "expected", "found", lineterm="")
    raise GradingFailure(
        f"{what}: text differs at line {index + 1}\n"
        f"  expected: {_line_or_end(expected_lines, index)}\n"
        f"  found:    {_line_or_end(found_lines, index)}\n" + "\n".join(diff)
    )


def _first_difference(a: list[str], b: list[str]) -> int:
    """The index of the first line where `a` and `b` differ (one may end early)."""
    for index, (line_a, line_b) in enumerate(zip(a, b, strict=False)):
        if line_a != line_b:
            return index
    return min(len(a), len(b))


def _line_or_end(lines: list[str], index: int) -> str:
    """Line `index` of `lines`, or a marker saying the text ended before it."""
    return lines[index] if index < len(lines) else "<end of text>"


def _both_numbers(a: Any, b: Any) -> bool:
    """True if both are real numbers (not bools): 48 and 48.0 compare as equal."""
    return all(isinstance(x, Real) and not isinstance(x, bool) for x in (a, b))
