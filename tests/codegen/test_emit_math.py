"""math ops: LLVM intrinsics and libm calls against the interpreter.

The interpreter evaluates transcendental functions in float64 and rounds once, the
JIT'ed code calls the C library (``expf``, ``tanhf``, ``erff``...) in float: the two
may differ by an ulp or so, so they are compared within about two ulps. Exact
functions (``floor``, ``absf``, ``copysign``...) and ``sqrt`` must agree bit for bit.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from tinycomp.codegen.llvm import emit_llvm
from tinycomp.ir import parse

from .helpers import MLIR_DTYPES, ULP_TOLERANCE, as_float64, run_both
from .test_emit_arith import elementwise

N = 64

TRANSCENDENTAL = {
    "exp": (-5, 5), "exp2": (-5, 5), "expm1": (-2, 2), "log": (0.01, 50),
    "log2": (0.01, 50), "log10": (0.01, 50), "log1p": (-0.5, 5), "sin": (-4, 4),
    "cos": (-4, 4), "tan": (-1.2, 1.2), "atan": (-5, 5), "sinh": (-3, 3), "cosh": (-3, 3),
    "tanh": (-4, 4), "erf": (-3, 3), "erfc": (-2, 3), "cbrt": (-8, 8), "rsqrt": (0.01, 50),
}  # fmt: skip
EXACT = {"sqrt": (0, 50), "absf": (-5, 5), "ceil": (-5, 5), "floor": (-5, 5),
         "round": (-5, 5), "roundeven": (-5, 5), "trunc": (-5, 5)}  # fmt: skip


def uniform(rng: np.random.Generator, low: float, high: float, dtype: str) -> np.ndarray:
    values = rng.uniform(low, high, N)
    values[:4] = [low, high, (low + high) / 2, 2.5]  # a halfway case for the roundings
    return values.astype(MLIR_DTYPES[dtype])


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("op", sorted(TRANSCENDENTAL))
def test_transcendental_functions_within_two_ulps(op, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{op} {dtype}".encode()))
    x = uniform(rng, *TRANSCENDENTAL[op], dtype)
    native, reference = run_both(elementwise(f"math.{op} %x : {dtype}", dtype, dtype, 1), x)
    tolerance = ULP_TOLERANCE[dtype]
    np.testing.assert_allclose(
        as_float64(native), as_float64(reference), rtol=tolerance, atol=tolerance * 1e-3
    )


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("op", sorted(EXACT))
def test_exact_functions_bit_for_bit(op, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{op} {dtype}".encode()))
    x = uniform(rng, *EXACT[op], dtype)
    native, reference = run_both(elementwise(f"math.{op} %x : {dtype}", dtype, dtype, 1), x)
    np.testing.assert_array_equal(native.view(np.uint8), reference.view(np.uint8))


def test_round_keeps_the_sign_of_zero_like_c():
    x = np.array([-0.3, 0.3, -0.5, 2.5, -2.5, -0.0] * 8 + [1.0] * (N - 48), dtype=np.float32)
    native, _ = run_both(elementwise("math.round %x : f32", "f32", "f32", 1), x)
    expected = np.copysign(np.floor(np.abs(x) + 0.5), x)  # C's round: halfway away from 0
    np.testing.assert_array_equal(native.view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize("op", ["powf", "copysign", "atan2"])
def test_binary_math_functions(op):
    rng = np.random.default_rng(11)
    a, b = rng.uniform(0.1, 4, N).astype(np.float32), rng.uniform(-3, 3, N).astype(np.float32)
    native, reference = run_both(elementwise(f"math.{op} %x, %y : f32", "f32", "f32"), a, b)
    np.testing.assert_allclose(native, reference, rtol=2e-6)


def test_fma_is_fused():
    rng = np.random.default_rng(12)
    a, b, c = (rng.standard_normal(N).astype(np.float32) for _ in range(3))
    text = elementwise("math.fma %x, %y, %z : f32", "f32", "f32", 3)
    native, reference = run_both(text, a, b, c)
    np.testing.assert_allclose(native, reference, rtol=2e-7, atol=1e-7)


@pytest.mark.parametrize("op", ["absi", "ctlz", "cttz", "ctpop"])
def test_integer_math(op):
    rng = np.random.default_rng(13)
    x = rng.integers(-(2**30), 2**30, N).astype(np.int32)
    x[0] = 1  # cttz/ctlz of a power of two
    native, reference = run_both(elementwise(f"math.{op} %x : i32", "i32", "i32", 1), x)
    np.testing.assert_array_equal(native, reference)


def test_which_functions_are_intrinsics_and_which_are_libm():
    text = emit_llvm(
        parse("""func.func @f(%x: f32) -> f32 {
  %a = math.tanh %x : f32
  %b = math.erf %a : f32
  %c = math.rsqrt %b : f32
  return %c : f32
}""")
    ).text
    assert "call float @llvm.tanh.f32(float %x)" in text  # x86 lowers it to tanhf
    assert "call float @erff(float %a)" in text  # no intrinsic: the C library
    assert "%c = fdiv float 0x3FF0000000000000, %c.sqrt" in text  # 1 / sqrt(x)
