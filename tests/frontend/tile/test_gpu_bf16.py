"""bf16 in the tile DSL's 1-D tutorial kernels (vector add, fused softmax, layernorm
forward) on the SIMT simulator and in PTX.

On the simulator, at odd sizes (masked lanes) on random inputs, each result is set beside
numpy computed in f32 and rounded to bf16, measured in bf16 units in the last place
(ulps: the distance between the two values' positions in the ordered bf16 numbers):

* the vector add is exact (one correctly rounded bf16 add);
* layernorm is within 1 ulp (it computes in f32 and rounds once, at the store);
* softmax is within 8 ulps: ``row - max`` is rounded to bf16 before ``exp``, an error of
  up to ``|row - max| * 2^-9`` in the exponent, a few ulps of the result for inputs of
  order 1.

The PTX of each kernel assembles with ``ptxas`` for sm_80 and sm_90 without spills and
holds bf16 instructions: ``cvt.rn.bf16.f32`` where f32 results are stored as bf16, and
bf16 arithmetic (``fma.rn.bf16`` on sm_80, ``add.bf16`` on sm_90) in the vector add.
"""

import re

import ml_dtypes
import numpy as np
import pytest

from tinycomp import tile
from tinycomp.codegen.gpu.ptxas import ptxas_unavailable
from tinycomp.frontend.tile.gpu_launch import gpu_module, launch_gpu

from .kernels import add_kernel, layer_norm_fwd, softmax_kernel

BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(16)
SOFTMAX_ULPS = 8
LAYERNORM_ULPS = 1
BF16_ARITHMETIC = r"\b(add|sub|mul|fma\.rn|max|min)(\.\w+)*\.bf16(x2)?\b"


def random(shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype(BF16)


def nans(shape) -> np.ndarray:
    return np.full(shape, np.nan, BF16)


def ulps(got: np.ndarray, want: np.ndarray) -> int:
    """The largest distance, in bf16 ulps, between ``got`` and ``want`` (both bf16)."""

    def ordered(a: np.ndarray) -> np.ndarray:
        bits = a.view(np.uint16).astype(np.int32)
        return np.where(bits & 0x8000, 0x8000 - bits, bits)

    assert got.dtype == want.dtype == BF16, (got.dtype, want.dtype)
    return int(np.abs(ordered(got) - ordered(want)).max())


def test_ulps_counts_neighbouring_bf16_values_across_zero():
    values = np.array([1.0, -0.0, 2.0**-133], BF16)  # 2^-133: the smallest subnormal
    assert ulps(values, np.array([1.0078125, 0.0, -(2.0**-133)], BF16)) == 2
    assert ulps(values, values) == 0


@pytest.mark.parametrize("n, block, warps", [(1, 128, 1), (1003, 512, 4), (777, 256, 2)])
def test_vector_add_in_bf16_is_exact(n, block, warps):
    x, y, out = random(n), random(n), nans(n)
    launch_gpu(add_kernel, (tile.cdiv(n, block),), x, y, out, n, BLOCK=block, num_warps=warps)
    expected = (x.astype(np.float32) + y.astype(np.float32)).astype(BF16)
    assert ulps(out, expected) == 0


@pytest.mark.parametrize(
    "rows, cols, stride, block, warps", [(7, 37, 41, 64, 4), (3, 300, 301, 512, 4), (4, 5, 5, 8, 1)]
)
def test_fused_softmax_in_bf16_equals_numpy_in_f32(rows, cols, stride, block, warps):
    x, out = random((rows, stride)), nans((rows, stride))
    launch_gpu(
        softmax_kernel, (rows,), out, x, stride, stride, cols, BLOCK_SIZE=block, num_warps=warps
    )
    x32 = x[:, :cols].astype(np.float32)
    e = np.exp(x32 - x32.max(axis=1, keepdims=True))
    expected = (e / e.sum(axis=1, keepdims=True)).astype(BF16)
    assert ulps(out[:, :cols], expected) <= SOFTMAX_ULPS
    assert np.isnan(out[:, cols:].astype(np.float32)).all()  # nothing written past the row


@pytest.mark.parametrize("rows, cols, block", [(5, 37, 16), (3, 700, 512), (1, 3, 4)])
def test_layernorm_in_bf16_equals_numpy_in_f32(rows, cols, block):
    x, w, b = random((rows, cols)), random(cols), random(cols)
    y = nans((rows, cols))
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    launch_gpu(layer_norm_fwd, (rows,), x, y, w, b, mean, rstd, cols, cols, 1e-5, BLOCK_SIZE=block)
    x32 = x.astype(np.float32)
    mu = x32.mean(axis=1)
    expected_rstd = 1 / np.sqrt(x32.var(axis=1) + np.float32(1e-5))
    y32 = (x32 - mu[:, None]) * expected_rstd[:, None] * w.astype(np.float32) + b.astype(np.float32)
    assert ulps(y, y32.astype(BF16)) <= LAYERNORM_ULPS
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, expected_rstd, rtol=1e-5)


def bf16_modules() -> dict:
    """The three kernels' gpu IR for bf16 operands at odd sizes."""
    n, rows, cols = 1003, 5, 37
    vector, matrix = np.zeros(n, BF16), np.zeros((rows, cols), BF16)
    row, stats = np.zeros(cols, BF16), np.zeros(rows, np.float32)
    return {
        "add": gpu_module(add_kernel, vector, vector, vector, n, BLOCK=256, num_warps=2),
        "softmax": gpu_module(
            softmax_kernel, matrix, matrix, cols, cols, cols, BLOCK_SIZE=64, num_warps=2
        ),
        "layernorm": gpu_module(
            layer_norm_fwd, matrix, matrix, row, row, stats, stats, cols, cols, 1e-5, BLOCK_SIZE=16
        ),
    }


@pytest.mark.skipif(ptxas_unavailable() is not None, reason=str(ptxas_unavailable()))
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_bf16_ptx_assembles_and_holds_bf16_instructions(arch):
    from tinycomp.gpu import to_ptx

    for name, module in bf16_modules().items():
        compiled = to_ptx(module, [], arch=arch)
        where = f"{name} (bf16) for {arch}"
        assert f".target {arch}" in compiled.ptx, where
        assert compiled.resources.spill_stores == compiled.resources.spill_loads == 0, where
        if name == "add":
            assert re.search(BF16_ARITHMETIC, compiled.ptx), where
        else:
            assert "cvt.rn.bf16.f32" in compiled.ptx, where
