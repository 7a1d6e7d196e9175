"""Rounding to bfloat in JIT'ed code: the backend's runtime call resolves, bit-exact.

On a CPU without AVX-512 BF16, LLVM lowers ``fptrunc float to bfloat`` to a call of
``__truncsfbf2``, which a Python process has not loaded; ``runtime_helpers.py`` defines
it. Checked against ml_dtypes' rounding on random values and on every special case.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tinycomp.codegen.cpu.jit import jit
from tinycomp.codegen.cpu.target import host_cpu

TRUNCATE = """func.func @to_bf16(%x: memref<?x{src}>, %y: memref<?xbf16>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x{src}>
  scf.for %i = %c0 to %n step %c1 {{
    %v = memref.load %x[%i] : memref<?x{src}>
    %w = arith.truncf %v : {src} to bf16
    memref.store %w, %y[%i] : memref<?xbf16>
  }}
  return
}}"""

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 3.4e38, -3.4e38, 1e-40, -1e-40, 1.0, 1.00390625]


def _inputs(dtype: type) -> np.ndarray:
    rng = np.random.default_rng(7)
    wide = rng.standard_normal(5000) * 10.0 ** rng.integers(-30, 30, 5000)
    return np.concatenate([wide, SPECIALS]).astype(dtype)


def _same_bits(found: np.ndarray, expected: np.ndarray) -> np.ndarray:
    both_nan = np.isnan(found.astype(np.float32)) & np.isnan(expected.astype(np.float32))
    return (found.view(np.uint16) == expected.view(np.uint16)) | both_nan


def _native_bf16(cpu: str | None) -> bool:
    """Whether the code is for a CPU with AVX-512 BF16 (``vcvtneps2bf16``)."""
    return cpu is None and "+avx512bf16" in host_cpu()[1].split(",")


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("cpu", [None, "x86-64"])
def test_f32_to_bf16_rounds_to_nearest_even(opt_level: int, cpu: str | None) -> None:
    """Bit for bit ml_dtypes' rounding; on a CPU with AVX-512 BF16 the instruction treats
    subnormal inputs as zero (Intel SDM, VCVTNEPS2BF16: "denormal inputs are treated as
    zero"), so those become a zero of the same sign there."""
    x = _inputs(np.float32)
    y = np.zeros(x.shape, ml_dtypes.bfloat16)
    jit(TRUNCATE.format(src="f32"), opt_level=opt_level, cpu=cpu)["to_bf16"](x, y)
    expected = x.astype(ml_dtypes.bfloat16)
    if _native_bf16(cpu):
        subnormal = (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)
        assert subnormal.any()
        expected[subnormal] = np.copysign(0.0, x[subnormal]).astype(ml_dtypes.bfloat16)
    wrong = np.flatnonzero(~_same_bits(y, expected))
    assert wrong.size == 0, (
        f"x={x[wrong[0]]!r}: got {y[wrong[0]]!r}, expected {expected[wrong[0]]!r}"
    )


def test_baseline_x86_calls_the_runtime_helper() -> None:
    """x86-64 without BF16 instructions: the conversion is the runtime call."""
    module = jit(TRUNCATE.format(src="f32"), opt_level=3, cpu="x86-64")
    assert "__truncsfbf2" in module.assembly("to_bf16")


def test_f64_to_bf16_is_close_to_one_rounding() -> None:
    """``__truncdfbf2`` rounds twice; the result is within one bf16 step of numpy's."""
    x = _inputs(np.float64)
    y = np.zeros(x.shape, ml_dtypes.bfloat16)
    jit(TRUNCATE.format(src="f64"), opt_level=3, cpu="x86-64")["to_bf16"](x, y)
    expected = x.astype(ml_dtypes.bfloat16)
    finite = np.isfinite(expected.astype(np.float32))
    steps = np.abs(y.view(np.int16)[finite].astype(int) - expected.view(np.int16)[finite])
    assert steps.max() <= 1
    assert _same_bits(y, expected).mean() > 0.99


def test_f64_to_f16_rounds_once_to_nearest_even() -> None:
    """``__truncdfhf2`` against numpy's double -> half conversion, bit for bit, on values
    around every half exponent, halfway cases (where rounding twice goes wrong), subnormals,
    overflow and the special values."""
    rng = np.random.default_rng(11)
    wide = rng.standard_normal(4000) * 2.0 ** rng.integers(-30, 18, 4000)
    halfs = np.arange(0, 65000, 7).astype(np.float16)  # below the largest: its spacing is inf
    ulp = np.spacing(halfs).astype(np.float64)
    halfs = halfs.astype(np.float64)
    ties = halfs + ulp / 2  # exactly halfway between two halfs
    near_ties = ties + ulp * 2.0**-30  # just above halfway: double rounding gets these wrong
    x = np.concatenate([wide, ties, near_ties, -near_ties, SPECIALS, [65520.0, 65519.99, 6e-8]])
    y = np.zeros(x.shape, np.float16)
    jit(TRUNCATE.format(src="f64").replace("bf16", "f16"), opt_level=3)["to_f16"](x, y)
    with np.errstate(over="ignore"):  # 65520 and above round to inf, as they must
        expected = x.astype(np.float16)
    wrong = np.flatnonzero(~_same_bits(y, expected))
    assert wrong.size == 0, (
        f"x={x[wrong[0]]!r}: got {y[wrong[0]]!r}, expected {expected[wrong[0]]!r}"
    )


def test_f16_vector_fma_runs_through_the_helper() -> None:
    """``vector.fma`` on ``vector<8xf16>``: LLVM promotes it to double FMAs rounded by
    ``__truncdfhf2``; without the helper the first call jumps to address 0."""
    module = jit(
        """func.func @fma(%x: memref<8xf16>, %y: memref<8xf16>) {
  %c0 = arith.constant 0 : index
  %v = vector.load %x[%c0] : memref<8xf16>, vector<8xf16>
  %r = vector.fma %v, %v, %v : vector<8xf16>
  vector.store %r, %y[%c0] : memref<8xf16>, vector<8xf16>
  return
}""",
        opt_level=3,
    )
    x = np.random.default_rng(2).standard_normal(8).astype(np.float16)
    y = np.zeros(8, np.float16)
    module["fma"](x, y)
    exact = x.astype(np.float64) * x + x
    np.testing.assert_array_equal(y, exact.astype(np.float16))


@pytest.mark.parametrize("cpu", [None, "x86-64"])
def test_f32_to_f16_rounds_to_nearest_even(cpu: str | None) -> None:
    """The host has F16C (an instruction); baseline x86-64 calls ``__truncsfhf2``."""
    rng = np.random.default_rng(5)
    wide = (rng.standard_normal(20000) * 2.0 ** rng.integers(-28, 18, 20000)).astype(np.float32)
    halfs = np.arange(-65504, 65504, 3, dtype=np.float16)
    ties = halfs.astype(np.float32) + np.spacing(halfs).astype(np.float32) / 2
    edges = np.array([65519.998, 65520.0, 2.0**-25, 2.0**-25 * 1.0001, 2.0**-24 * 1.5], np.float32)
    x = np.concatenate([wide, ties, edges, -edges, np.array(SPECIALS, np.float32)])
    y = np.zeros(x.shape, np.float16)
    jit(TRUNCATE.format(src="f32").replace("bf16", "f16"), opt_level=3, cpu=cpu)["to_f16"](x, y)
    with np.errstate(over="ignore"):  # 65520 and above round to inf, as they must
        expected = x.astype(np.float16)
    wrong = np.flatnonzero(~_same_bits(y, expected))
    assert wrong.size == 0, (
        f"x={x[wrong[0]]!r}: got {y[wrong[0]]!r}, expected {expected[wrong[0]]!r}"
    )
