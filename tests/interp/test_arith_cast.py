"""arith casts: exactly one rounding to nearest-even, truncation toward zero, and the
poison cases (NaN or out-of-range float to int) reported as errors."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interp.helpers import (
    BF16,
    DTYPES,
    exact_nearest,
    finite_floats_from_bits,
    random_ints,
    rng_for,
    run,
)
from tinycomp.interp import InterpreterError


def cast_function(op: str, source: str, target: str) -> str:
    return (
        f"func.func @main(%a: {source}) -> {target} {{\n"
        f"  %r = arith.{op} %a : {source} to {target}\n"
        f"  return %r : {target}\n"
        "}"
    )


@pytest.mark.parametrize("source", ["i8", "i16", "i32", "i64"])
@pytest.mark.parametrize("target", ["f16", "bf16", "f32", "f64"])
def test_sitofp_and_uitofp_round_once(source, target):
    rng = rng_for(source, target)
    values = random_ints(rng, 120, DTYPES[source])
    width = DTYPES[source].itemsize * 8
    n = len(values)
    signed = run(cast_function("sitofp", f"tensor<{n}x{source}>", f"tensor<{n}x{target}>"), values)
    unsigned = run(
        cast_function("uitofp", f"tensor<{n}x{source}>", f"tensor<{n}x{target}>"), values
    )
    for value, got_signed, got_unsigned in zip(values.tolist(), signed, unsigned, strict=True):
        assert got_signed == exact_nearest(Fraction(value), DTYPES[target]), (value, target)
        want = exact_nearest(Fraction(value % (1 << width)), DTYPES[target])
        assert got_unsigned == want, (value, target)


def test_sitofp_to_bf16_avoids_double_rounding():
    """2**24 + 2**16 + 1 is just above halfway between two bf16 values: it must round up
    (a detour through f32 would round to the halfway point, then down to even)."""
    text = cast_function("sitofp", "i32", "bf16")
    assert float(run(text, np.int32(2**24 + 2**16 + 1))) == 2**24 + 2**17


def test_i1_converts_to_minus_one_signed_and_one_unsigned():
    assert float(run(cast_function("sitofp", "i1", "f32"), True)) == -1.0
    assert float(run(cast_function("uitofp", "i1", "f32"), True)) == 1.0


@pytest.mark.parametrize(
    ("source", "target"),
    [("f32", "f16"), ("f32", "bf16"), ("f64", "bf16"), ("f64", "f32"), ("f64", "f16")],
)
def test_truncf_rounds_to_nearest_even(source, target):
    rng = np.random.default_rng(6)
    values = finite_floats_from_bits(rng, 200, DTYPES[source])
    n = len(values)
    result = run(cast_function("truncf", f"tensor<{n}x{source}>", f"tensor<{n}x{target}>"), values)
    for value, got in zip(values, result, strict=True):
        want = exact_nearest(Fraction(float(value)), DTYPES[target])
        assert got == want or (got == 0 and want == 0), (value, got, want)


def test_truncf_f64_to_bf16_avoids_double_rounding():
    text = cast_function("truncf", "f64", "bf16")
    assert float(run(text, np.float64(1 + 2**-8 + 2**-30))) == 1 + 2**-7


def test_extf_is_exact():
    rng = np.random.default_rng(7)
    values = finite_floats_from_bits(rng, 100, BF16)
    result = run(cast_function("extf", "tensor<100xbf16>", "tensor<100xf32>"), values)
    np.testing.assert_array_equal(result, values.astype(np.float64).astype(np.float32))


@settings(max_examples=80, deadline=None)
@given(st.floats(min_value=-2e9, max_value=2e9, allow_nan=False, width=32))
def test_fptosi_truncates_toward_zero(value):
    text = cast_function("fptosi", "f32", "i32")
    x = np.float32(value)
    if not -(2**31) <= int(np.trunc(np.float64(x))) <= 2**31 - 1:
        with pytest.raises(InterpreterError, match="does not fit in i32"):
            run(text, x)
    else:
        assert int(run(text, x)) == int(np.trunc(np.float64(x)))


def test_fptosi_of_nan_is_an_error():
    with pytest.raises(InterpreterError, match=r"'arith.fptosi' at line 2: nan does not fit"):
        run(cast_function("fptosi", "f32", "i32"), np.float32(np.nan))


def test_fptoui():
    text = cast_function("fptoui", "f32", "i8")
    assert int(run(text, np.float32(250.7))) == 250 - 256  # i8 holds the bits of 250
    assert int(run(text, np.float32(-0.5))) == 0
    with pytest.raises(InterpreterError, match="does not fit in i8"):
        run(text, np.float32(-1.0))


def test_integer_width_casts():
    assert int(run(cast_function("extsi", "i8", "i32"), np.int8(-3))) == -3
    assert int(run(cast_function("extui", "i8", "i32"), np.int8(-3))) == 253
    assert int(run(cast_function("trunci", "i32", "i8"), np.int32(300))) == 44
    assert int(run(cast_function("extui", "i1", "i32"), True)) == 1
    assert int(run(cast_function("extsi", "i1", "i32"), True)) == -1


def test_index_casts():
    assert int(run(cast_function("index_cast", "i32", "index"), np.int32(-5))) == -5
    assert int(run(cast_function("index_castui", "i32", "index"), np.int32(-5))) == 2**32 - 5
    result = run(cast_function("index_cast", "index", "i32"), np.int64(2**32 + 7))
    assert result.dtype == np.int32 and int(result) == 7


def test_bitcast_keeps_the_bits():
    assert int(run(cast_function("bitcast", "f32", "i32"), np.float32(1.0))) == 0x3F800000
    result = run(cast_function("bitcast", "i16", "bf16"), np.int16(0x3FC0))
    assert result.dtype == BF16 and float(result) == 1.5
    values = np.array([1.0, -2.5, np.inf], np.float16)
    out = run(cast_function("bitcast", "tensor<3xf16>", "tensor<3xi16>"), values)
    np.testing.assert_array_equal(out, values.view(np.int16))
