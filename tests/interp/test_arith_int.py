"""arith integer ops against Python-int references: wraparound, rounding of divisions,
signed/unsigned readings, and the undefined cases reported as errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interp.helpers import DTYPES, binary_function, random_ints, rng_for, run
from tinycomp.interp import InterpreterError

N = 300
INT_TYPES = ["i8", "i16", "i32", "i64"]


def to_signed(value: int, width: int) -> int:
    """``value`` modulo 2**width, read as a signed number."""
    value %= 1 << width
    return value - (1 << width) if value >= 1 << (width - 1) else value


def trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


REFERENCE = {
    "addi": lambda a, b, w: a + b,
    "subi": lambda a, b, w: a - b,
    "muli": lambda a, b, w: a * b,
    "andi": lambda a, b, w: a & b,
    "ori": lambda a, b, w: a | b,
    "xori": lambda a, b, w: a ^ b,
    "maxsi": lambda a, b, w: max(a, b),
    "minsi": lambda a, b, w: min(a, b),
    "maxui": lambda a, b, w: max(a % (1 << w), b % (1 << w)),
    "minui": lambda a, b, w: min(a % (1 << w), b % (1 << w)),
    "divsi": lambda a, b, w: trunc_div(a, b),
    "remsi": lambda a, b, w: a - b * trunc_div(a, b),
    "floordivsi": lambda a, b, w: a // b,
    "ceildivsi": lambda a, b, w: -((-a) // b),
    "divui": lambda a, b, w: (a % (1 << w)) // (b % (1 << w)),
    "remui": lambda a, b, w: (a % (1 << w)) % (b % (1 << w)),
    "ceildivui": lambda a, b, w: -(-(a % (1 << w)) // (b % (1 << w))),
}
"""Each op on Python ints (unbounded); the result is then wrapped to the width."""

DIVISIONS = {"divsi", "remsi", "floordivsi", "ceildivsi", "divui", "remui", "ceildivui"}


@pytest.mark.parametrize("type_name", INT_TYPES)
@pytest.mark.parametrize("op_name", sorted(REFERENCE))
def test_integer_op_matches_python_reference(op_name, type_name):
    rng = rng_for(op_name, type_name)
    dtype = DTYPES[type_name]
    width = dtype.itemsize * 8
    a, b = random_ints(rng, N, dtype), random_ints(rng, N, dtype)[::-1].copy()
    if op_name in DIVISIONS:
        smallest = np.iinfo(dtype).min
        b[b == 0] = 3
        b[(a == smallest) & (b == -1)] = 7  # the one signed overflow is tested separately
    type_text = f"tensor<{N}x{type_name}>"
    result = run(binary_function(f"arith.{op_name} %a, %b : {type_text}", type_text), a, b)
    assert result.dtype == dtype
    for x, y, got in zip(a.tolist(), b.tolist(), result.tolist(), strict=True):
        want = to_signed(REFERENCE[op_name](x, y, width), width)
        assert got == want, (op_name, type_name, x, y, got, want)


def test_i32_overflow_wraps_around():
    text = binary_function("arith.addi %a, %b : i32", "i32")
    assert run(text, np.int32(2**31 - 1), np.int32(1)) == -(2**31)
    text = binary_function("arith.muli %a, %b : i32", "i32")
    assert run(text, np.int32(65536), np.int32(65536)) == 0


def test_index_is_64_bits():
    text = binary_function("arith.addi %a, %b : index", "index")
    result = run(text, np.int64(2**63 - 1), np.int64(1))
    assert result.dtype == np.int64 and result == -(2**63)


@pytest.mark.parametrize(
    ("op_name", "a", "b", "expected"),
    [
        ("divsi", -7, 2, -3),
        ("divsi", 7, -2, -3),
        ("floordivsi", -7, 2, -4),
        ("floordivsi", 7, -2, -4),
        ("ceildivsi", 7, 2, 4),
        ("ceildivsi", -7, 2, -3),
        ("remsi", -7, 2, -1),
        ("remsi", 7, -2, 1),
        ("divui", -1, 2, 2**31 - 1),
        ("remui", -1, 10, (2**32 - 1) % 10),
    ],
)
def test_division_rounding(op_name, a, b, expected):
    text = binary_function(f"arith.{op_name} %a, %b : i32", "i32")
    assert run(text, np.int32(a), np.int32(b)) == expected


@pytest.mark.parametrize("op_name", sorted(DIVISIONS))
def test_division_by_zero_names_the_op_and_line(op_name):
    text = binary_function(f"arith.{op_name} %a, %b : i32", "i32")
    with pytest.raises(InterpreterError, match=rf"'arith.{op_name}' at line 2: division by zero"):
        run(text, np.int32(5), np.int32(0))


def test_division_by_zero_in_a_tensor_names_the_element():
    text = binary_function("arith.divsi %a, %b : tensor<3xi32>", "tensor<3xi32>")
    with pytest.raises(InterpreterError, match=r"division by zero at element \[2\]"):
        run(text, np.ones(3, np.int32), np.array([1, 2, 0], np.int32))


@pytest.mark.parametrize("op_name", ["divsi", "remsi", "floordivsi", "ceildivsi"])
def test_signed_division_overflow_is_an_error(op_name):
    text = binary_function(f"arith.{op_name} %a, %b : i8", "i8")
    with pytest.raises(InterpreterError, match="signed division overflow"):
        run(text, np.int8(-128), np.int8(-1))


@pytest.mark.parametrize("type_name", INT_TYPES)
def test_shifts(type_name):
    rng = np.random.default_rng(4)
    dtype = DTYPES[type_name]
    width = dtype.itemsize * 8
    a = random_ints(rng, 64, dtype)
    b = rng.integers(0, width, size=64).astype(dtype)
    type_text = f"tensor<64x{type_name}>"
    for name, reference in [
        ("shli", lambda x, s: x << s),
        ("shrsi", lambda x, s: x >> s),  # Python's >> on negative ints fills with ones
        ("shrui", lambda x, s: (x % (1 << width)) >> s),
    ]:
        result = run(binary_function(f"arith.{name} %a, %b : {type_text}", type_text), a, b)
        want = [
            to_signed(reference(x, s), width) for x, s in zip(a.tolist(), b.tolist(), strict=True)
        ]
        assert result.tolist() == want, name


def test_shift_by_the_width_is_an_error():
    text = binary_function("arith.shli %a, %b : i32", "i32")
    with pytest.raises(InterpreterError, match="shift amount must be less than the bit width 32"):
        run(text, np.int32(1), np.int32(32))


CMPI = {
    "eq": lambda a, b, w: a == b,
    "ne": lambda a, b, w: a != b,
    "slt": lambda a, b, w: a < b,
    "sle": lambda a, b, w: a <= b,
    "sgt": lambda a, b, w: a > b,
    "sge": lambda a, b, w: a >= b,
    "ult": lambda a, b, w: a % (1 << w) < b % (1 << w),
    "ule": lambda a, b, w: a % (1 << w) <= b % (1 << w),
    "ugt": lambda a, b, w: a % (1 << w) > b % (1 << w),
    "uge": lambda a, b, w: a % (1 << w) >= b % (1 << w),
}


@pytest.mark.parametrize("predicate", sorted(CMPI))
def test_cmpi_reads_signed_or_unsigned(predicate):
    rng = np.random.default_rng(5)
    a, b = random_ints(rng, 100, np.dtype(np.int16)), random_ints(rng, 100, np.dtype(np.int16))
    b[::5] = a[::5]
    type_text = "tensor<100xi16>"
    text = binary_function(
        f"arith.cmpi {predicate}, %a, %b : {type_text}", type_text, "tensor<100xi1>"
    )
    result = run(text, a, b)
    want = [CMPI[predicate](x, y, 16) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert result.tolist() == want


def test_i1_arithmetic_is_modulo_two_and_true_is_minus_one_signed():
    text = """
    func.func @main(%a: i1, %b: i1) -> (i1, i1, i1) {
      %s = arith.addi %a, %b : i1
      %lt = arith.cmpi slt, %a, %b : i1
      %m = arith.muli %a, %b : i1
      return %s, %lt, %m : i1, i1, i1
    }"""
    total, less, product = run(text, True, False)
    assert bool(total) is True and bool(less) is True and bool(product) is False
    total, _, product = run(text, True, True)
    assert bool(total) is False and bool(product) is True


@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(-(2**63), 2**63 - 1),
    b=st.integers(-(2**63), 2**63 - 1),
    width=st.sampled_from([8, 16, 32, 64]),
)
def test_add_sub_mul_wrap_like_two_complement(a, b, width):
    type_name = f"i{width}"
    dtype = DTYPES[type_name]
    x, y = dtype.type(to_signed(a, width)), dtype.type(to_signed(b, width))
    text = """
    func.func @main(%a: T, %b: T) -> (T, T, T) {
      %s = arith.addi %a, %b : T
      %d = arith.subi %a, %b : T
      %p = arith.muli %a, %b : T
      return %s, %d, %p : T, T, T
    }""".replace("T", type_name)
    total, difference, product = run(text, x, y)
    assert int(total) == to_signed(int(x) + int(y), width)
    assert int(difference) == to_signed(int(x) - int(y), width)
    assert int(product) == to_signed(int(x) * int(y), width)


def test_constants_wrap_into_the_signed_range():
    text = """
    func.func @main() -> (i8, i1, index) {
      %a = arith.constant 255 : i8
      %b = arith.constant true
      %c = arith.constant -5 : index
      return %a, %b, %c : i8, i1, index
    }"""
    a, b, c = run(text)
    assert (a.dtype, int(a)) == (np.int8, -1)
    assert b.dtype == np.bool_ and bool(b)
    assert (c.dtype, int(c)) == (np.int64, -5)
