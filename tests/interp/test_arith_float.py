"""arith float ops against exact references: every result rounded once, in its own type."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from interp.helpers import (
    DTYPES,
    binary_function,
    exact_nearest,
    finite_floats_from_bits,
    rng_for,
    run,
)

N = 400
FLOAT_TYPES = ["f16", "bf16", "f32"]

EXACT_OPS = {
    "addf": lambda a, b: a + b,
    "subf": lambda a, b: a - b,
    "mulf": lambda a, b: a * b,
    "divf": lambda a, b: a / b,
}


@pytest.mark.parametrize("type_name", FLOAT_TYPES)
@pytest.mark.parametrize("op_name", sorted(EXACT_OPS))
def test_basic_float_ops_round_once_to_nearest_even(op_name, type_name):
    """a <op> b is the exact result rounded to the nearest value of the type (ties to
    even): checked against Fractions on random bit patterns (subnormals included)."""
    rng = rng_for(op_name, type_name)
    dtype = DTYPES[type_name]
    a = finite_floats_from_bits(rng, N, dtype)
    b = finite_floats_from_bits(rng, N, dtype)
    if op_name == "divf":
        b[b == 0] = dtype.type(1.5)
    text = binary_function(
        f"arith.{op_name} %a, %b : tensor<{N}x{type_name}>", f"tensor<{N}x{type_name}>"
    )
    result = run(text, a, b)
    assert result.dtype == dtype
    for x, y, got in zip(a, b, result, strict=True):
        exact = EXACT_OPS[op_name](Fraction(float(x)), Fraction(float(y)))
        want = exact_nearest(exact, dtype)
        if want == 0:  # the sign of an exact zero is not in the Fraction
            assert got == 0, (op_name, x, y, got)
        else:
            assert got.view(_bits(dtype)) == want.view(_bits(dtype)), (op_name, x, y, got, want)


def _bits(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.uint16) if dtype.itemsize == 2 else np.dtype(np.uint32)


def test_f16_arithmetic_rounds_after_every_op():
    """(a + b) - a in f16 loses what f32 would keep: each op rounds to f16."""
    text = """
    func.func @main(%a: f16, %b: f16) -> f16 {
      %s = arith.addf %a, %b : f16
      %d = arith.subf %s, %a : f16
      return %d : f16
    }"""
    result = run(text, np.float16(2048.0), np.float16(1.0))
    assert result.dtype == np.float16 and float(result) == 0.0  # 2049 is not an f16


def test_bf16_arithmetic_keeps_eight_bits():
    text = binary_function("arith.addf %a, %b : bf16", "bf16")
    bf16 = DTYPES["bf16"]
    assert float(run(text, bf16.type(256.0), bf16.type(1.0))) == 256.0
    assert float(run(text, bf16.type(256.0), bf16.type(3.0))) == 260.0  # tie -> even


def test_remf_has_the_sign_of_the_dividend():
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(64) * 10).astype(np.float32)
    b = (rng.standard_normal(64) * 3).astype(np.float32)
    result = run(binary_function("arith.remf %a, %b : tensor<64xf32>", "tensor<64xf32>"), a, b)
    np.testing.assert_array_equal(result, np.fmod(a, b))
    assert np.all((result == 0) | (np.sign(result) == np.sign(a)))


def test_negf_flips_the_sign_of_zero():
    text = "func.func @main(%a: f32) -> f32 {\n %r = arith.negf %a : f32\n return %r : f32\n}"
    assert np.signbit(run(text, np.float32(0.0)))


NAN = np.float32(np.nan)


@pytest.mark.parametrize(
    ("op_name", "a", "b", "expected"),
    [
        ("maximumf", NAN, 1.0, NAN),
        ("maximumf", 1.0, NAN, NAN),
        ("minimumf", NAN, 1.0, NAN),
        ("maxnumf", NAN, 1.0, 1.0),
        ("maxnumf", 1.0, NAN, 1.0),
        ("minnumf", NAN, -1.0, -1.0),
        ("maxnumf", NAN, NAN, NAN),
        ("maximumf", 2.0, 3.0, 3.0),
        ("minimumf", 2.0, 3.0, 2.0),
    ],
)
def test_maximumf_propagates_nan_and_maxnumf_ignores_it(op_name, a, b, expected):
    text = binary_function(f"arith.{op_name} %a, %b : f32", "f32")
    result = run(text, np.float32(a), np.float32(b))
    assert (np.isnan(result) and np.isnan(expected)) or result == expected


def test_maximumf_orders_signed_zeros():
    text_max = binary_function("arith.maximumf %a, %b : f32", "f32")
    text_min = binary_function("arith.minimumf %a, %b : f32", "f32")
    zero, negative_zero = np.float32(0.0), np.float32(-0.0)
    assert not np.signbit(run(text_max, negative_zero, zero))
    assert not np.signbit(run(text_max, zero, negative_zero))
    assert np.signbit(run(text_min, zero, negative_zero))
    assert np.signbit(run(text_min, negative_zero, zero))


def test_maximumf_on_random_tensors_matches_numpy():
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal(100).astype(np.float32) for _ in range(2))
    a[::7] = np.nan
    for name, reference in [("maximumf", np.maximum), ("minnumf", np.fmin)]:
        text = binary_function(f"arith.{name} %a, %b : tensor<100xf32>", "tensor<100xf32>")
        np.testing.assert_array_equal(run(text, a, b), reference(a, b))


CMPF_REFERENCE = {
    "false": lambda a, b, unordered: False,
    "oeq": lambda a, b, unordered: not unordered and a == b,
    "ogt": lambda a, b, unordered: not unordered and a > b,
    "oge": lambda a, b, unordered: not unordered and a >= b,
    "olt": lambda a, b, unordered: not unordered and a < b,
    "ole": lambda a, b, unordered: not unordered and a <= b,
    "one": lambda a, b, unordered: not unordered and a != b,
    "ord": lambda a, b, unordered: not unordered,
    "ueq": lambda a, b, unordered: unordered or a == b,
    "ugt": lambda a, b, unordered: unordered or a > b,
    "uge": lambda a, b, unordered: unordered or a >= b,
    "ult": lambda a, b, unordered: unordered or a < b,
    "ule": lambda a, b, unordered: unordered or a <= b,
    "une": lambda a, b, unordered: unordered or a != b,
    "uno": lambda a, b, unordered: unordered,
    "true": lambda a, b, unordered: True,
}
"""The predicates as LLVM's LangRef defines them: ordered means neither is NaN."""


@pytest.mark.parametrize("predicate", sorted(CMPF_REFERENCE))
def test_cmpf_predicates_with_nan(predicate):
    values = [np.nan, -1.0, 0.0, -0.0, 1.0, np.inf]
    pairs = [(a, b) for a in values for b in values]
    a = np.array([p[0] for p in pairs], np.float32)
    b = np.array([p[1] for p in pairs], np.float32)
    n = len(pairs)
    text = binary_function(
        f"arith.cmpf {predicate}, %a, %b : tensor<{n}xf32>", f"tensor<{n}xf32>", f"tensor<{n}xi1>"
    )
    result = run(text, a, b)
    for (x, y), got in zip(pairs, result, strict=True):
        unordered = bool(np.isnan(x) or np.isnan(y))
        assert bool(got) == CMPF_REFERENCE[predicate](x, y, unordered), (predicate, x, y)


def test_cmpf_on_scalars_gives_a_numpy_bool():
    text = binary_function("arith.cmpf ult, %a, %b : f32", "f32", "i1")
    result = run(text, np.float32(np.nan), np.float32(0.0))
    assert isinstance(result, np.bool_) and bool(result)


def test_select_on_scalars_and_tensors():
    scalar = """
    func.func @main(%c: i1, %a: f32, %b: f32) -> f32 {
      %r = arith.select %c, %a, %b : f32
      return %r : f32
    }"""
    assert run(scalar, True, np.float32(1.0), np.float32(2.0)) == 1.0
    assert run(scalar, False, np.float32(1.0), np.float32(2.0)) == 2.0
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    condition = rng.random(16) < 0.5
    tensor = """
    func.func @main(%c: tensor<16xi1>, %a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
      %r = arith.select %c, %a, %b : tensor<16xi1>, tensor<16xf32>
      return %r : tensor<16xf32>
    }"""
    np.testing.assert_array_equal(run(tensor, condition, a, b), np.where(condition, a, b))


def test_constants_of_every_float_type_are_exact():
    text = """
    func.func @main() -> (f16, bf16, f32, f64) {
      %a = arith.constant 0.1 : f16
      %b = arith.constant 0.1 : bf16
      %c = arith.constant 0.1 : f32
      %d = arith.constant 0.1 : f64
      return %a, %b, %c, %d : f16, bf16, f32, f64
    }"""
    results = run(text)
    for value, name in zip(results, ["f16", "bf16", "f32", "f64"], strict=True):
        assert value.dtype == DTYPES[name]
        assert value == exact_nearest(Fraction(0.1), DTYPES[name])


def test_float_overflow_gives_inf_without_warnings():
    text = binary_function("arith.mulf %a, %b : f16", "f16")
    with np.errstate(all="raise"):  # the interpreter silences IEEE warnings itself
        assert np.isinf(run(text, np.float16(60000.0), np.float16(2.0)))


def test_vectors_are_elementwise_too():
    text = binary_function("arith.mulf %a, %b : vector<8xbf16>", "vector<8xbf16>")
    rng = np.random.default_rng(24)
    a = rng.standard_normal(8).astype(DTYPES["bf16"])
    b = rng.standard_normal(8).astype(DTYPES["bf16"])
    np.testing.assert_array_equal(run(text, a, b), a * b)
