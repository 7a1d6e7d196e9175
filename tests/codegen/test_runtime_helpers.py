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


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("cpu", [None, "x86-64"])
def test_f32_to_bf16_rounds_to_nearest_even(opt_level: int, cpu: str | None) -> None:
    x = _inputs(np.float32)
    y = np.zeros(x.shape, ml_dtypes.bfloat16)
    jit(TRUNCATE.format(src="f32"), opt_level=opt_level, cpu=cpu)["to_bf16"](x, y)
    expected = x.astype(ml_dtypes.bfloat16)
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
