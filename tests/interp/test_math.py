"""math ops: transcendental functions within an ulp of Python's ``math`` (evaluated in
f64, rounded once), exact rounding functions, and the integer ops."""

from __future__ import annotations

import math

import numpy as np
import pytest

from interp.helpers import BF16, DTYPES, random_ints, rng_for, run, unary_function

N = 200

UNARY = {
    "exp": (math.exp, (-10, 10)),
    "exp2": (lambda x: 2.0**x, (-10, 10)),
    "expm1": (math.expm1, (-3, 3)),
    "log": (math.log, (1e-3, 100)),
    "log2": (math.log2, (1e-3, 100)),
    "log10": (math.log10, (1e-3, 100)),
    "log1p": (math.log1p, (-0.5, 10)),
    "sqrt": (math.sqrt, (0, 100)),
    "rsqrt": (lambda x: 1 / math.sqrt(x), (1e-3, 100)),
    "cbrt": (lambda x: math.copysign(abs(x) ** (1 / 3), x), (-50, 50)),
    "sin": (math.sin, (-6, 6)),
    "cos": (math.cos, (-6, 6)),
    "tan": (math.tan, (-1.4, 1.4)),
    "atan": (math.atan, (-10, 10)),
    "sinh": (math.sinh, (-5, 5)),
    "cosh": (math.cosh, (-5, 5)),
    "tanh": (math.tanh, (-5, 5)),
    "erf": (math.erf, (-3, 3)),
    "erfc": (math.erfc, (-3, 3)),
    "absf": (abs, (-10, 10)),
}
"""Each function with a Python reference and an input range."""


@pytest.mark.parametrize("type_name", ["f16", "bf16", "f32"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_float_function_within_one_ulp(name, type_name):
    reference, (low, high) = UNARY[name]
    dtype = DTYPES[type_name]
    rng = rng_for(name, type_name)
    x = rng.uniform(low, high, N).astype(dtype)
    type_text = f"tensor<{N}x{type_name}>"
    result = run(unary_function(f"math.{name} %a : {type_text}", type_text), x)
    assert result.dtype == dtype
    want = np.array([reference(float(v)) for v in x.astype(np.float64)])
    got = result.astype(np.float64)
    ulp = np.spacing(np.abs(want).astype(dtype)).astype(np.float64)
    assert np.all(np.abs(got - want) <= ulp), name


def test_f32_functions_agree_with_numpy_float32():
    rng = np.random.default_rng(8)
    x = rng.uniform(-4, 4, N).astype(np.float32)
    for name, function in [("exp", np.exp), ("tanh", np.tanh), ("sin", np.sin)]:
        text = unary_function(f"math.{name} %a : tensor<{N}xf32>", f"tensor<{N}xf32>")
        np.testing.assert_allclose(run(text, x), function(x), rtol=2e-7, atol=1e-7)


def test_scalar_math_returns_a_scalar_of_the_type():
    result = run(unary_function("math.erf %a : bf16", "bf16"), BF16.type(0.5))
    assert result.dtype == BF16 and abs(float(result) - math.erf(0.5)) < 2e-3


ROUNDING = {
    "floor": [-2.0, -2.0, -1.0, 0.0, 1.0, 2.0],
    "ceil": [-1.0, -1.0, -0.0, 1.0, 2.0, 3.0],
    "trunc": [-1.0, -1.0, -0.0, 0.0, 1.0, 2.0],
    "round": [-2.0, -2.0, -1.0, 1.0, 2.0, 3.0],
    "roundeven": [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0],
}
INPUTS = [-1.5, -1.7, -0.5, 0.5, 1.5, 2.5]


@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_rounding_functions_on_halfway_values(name):
    x = np.array(INPUTS, np.float32)
    text = unary_function(f"math.{name} %a : tensor<6xf32>", "tensor<6xf32>")
    result = run(text, x)
    np.testing.assert_array_equal(result, np.array(ROUNDING[name], np.float32))
    np.testing.assert_array_equal(np.signbit(result), np.signbit(ROUNDING[name]))


def test_binary_and_ternary_float_functions():
    rng = np.random.default_rng(9)
    a = rng.uniform(0.5, 3, 50).astype(np.float32)
    b = rng.uniform(-2, 2, 50).astype(np.float32)
    c = rng.uniform(-2, 2, 50).astype(np.float32)
    text = """
    func.func @main(%a: tensor<50xf32>, %b: tensor<50xf32>, %c: tensor<50xf32>)
        -> (tensor<50xf32>, tensor<50xf32>, tensor<50xf32>, tensor<50xf32>) {
      %p = math.powf %a, %b : tensor<50xf32>
      %s = math.copysign %a, %b : tensor<50xf32>
      %t = math.atan2 %b, %a : tensor<50xf32>
      %f = math.fma %a, %b, %c : tensor<50xf32>
      return %p, %s, %t, %f : tensor<50xf32>, tensor<50xf32>, tensor<50xf32>, tensor<50xf32>
    }"""
    power, sign, angle, fused = run(text, a, b, c)
    wide = [v.astype(np.float64) for v in (a, b, c)]
    np.testing.assert_array_equal(power, np.power(wide[0], wide[1]).astype(np.float32))
    np.testing.assert_array_equal(sign, np.copysign(a, b))
    np.testing.assert_array_equal(angle, np.arctan2(wide[1], wide[0]).astype(np.float32))
    np.testing.assert_array_equal(fused, (wide[0] * wide[1] + wide[2]).astype(np.float32))


def test_fma_rounds_once_where_mulf_addf_rounds_twice():
    """1 + 2**-12 squared is 1 + 2**-11 + 2**-24: the last bit survives only if fused."""
    x = np.float32(1 + 2**-12)
    fused = run(
        "func.func @main(%a: f32, %c: f32) -> f32 {\n"
        "  %r = math.fma %a, %a, %c : f32\n  return %r : f32\n}",
        x,
        np.float32(-1.0),
    )
    assert float(fused) == 2**-11 + 2**-24


@pytest.mark.parametrize("type_name", ["i8", "i32", "i64"])
def test_bit_counting(type_name):
    dtype = DTYPES[type_name]
    width = dtype.itemsize * 8
    rng = np.random.default_rng(10)
    values = random_ints(rng, 64, dtype)
    type_text = f"tensor<64x{type_name}>"
    for name in ["ctpop", "ctlz", "cttz"]:
        result = run(unary_function(f"math.{name} %a : {type_text}", type_text), values)
        for value, got in zip(values.tolist(), result.tolist(), strict=True):
            bits = format(value % (1 << width), f"0{width}b")
            want = {
                "ctpop": bits.count("1"),
                "ctlz": len(bits) - len(bits.lstrip("0")),
                "cttz": len(bits) - len(bits.rstrip("0")),
            }[name]
            assert got == want, (name, value)


def test_absi_and_ipowi_wrap():
    text = unary_function("math.absi %a : i8", "i8")
    assert int(run(text, np.int8(-128))) == -128
    assert int(run(text, np.int8(-5))) == 5
    power = """
    func.func @main(%a: i32, %b: i32) -> i32 {
      %r = math.ipowi %a, %b : i32
      return %r : i32
    }"""
    rng = np.random.default_rng(11)
    for base, exponent in zip(rng.integers(-20, 20, 30), rng.integers(0, 40, 30), strict=True):
        want = pow(int(base), int(exponent)) % 2**32
        want = want - 2**32 if want >= 2**31 else want
        assert int(run(power, np.int32(base), np.int32(exponent))) == want
    assert int(run(power, np.int32(-1), np.int32(-3))) == -1
    assert int(run(power, np.int32(5), np.int32(-1))) == 0
