"""The NPU model against the chip's rooflines, in its own numbers (hardware notes,
section 6): a good cube matmul near the cube's peak, a big vector add at the HBM's
pace, double buffering near 2x when the stages balance and far less when they do not.
Every run also equals numpy."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp import npu
from tinycomp.testing.npu_kernels import cube_matmul, softmax_rows, vector_add, vector_chain

RNG = np.random.default_rng(2026)


def test_a_large_fp16_matmul_reaches_80_percent_of_the_cube_peak():
    m, n, k = 3072, 1536, 2048
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    result = npu.launch(cube_matmul, (a, b, c), block_num=24, preset="910b2")
    expected = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), expected, rtol=2e-2, atol=0.5)
    peak_cycles = m * n * k / (result.preset.cube_macs_per_cycle * 24)
    assert peak_cycles / result.cycles >= 0.80
    assert result.bound == "M"


def test_a_large_vector_add_is_bound_by_the_hbm():
    size = 48 * 8 * 8192
    x = RNG.standard_normal(size).astype(np.float16)
    y = RNG.standard_normal(size).astype(np.float16)
    z = np.zeros_like(x)
    result = npu.launch(vector_add, (x, y, z, 8192, 2), block_num=48, preset="910b2")
    np.testing.assert_array_equal(z, x + y)
    assert result.bound == "HBM"
    assert result.hbm_share >= 0.75
    assert result.pipes["V"].share < 0.1  # the vector unit idles


def chain_speedup(passes: int) -> float:
    x = RNG.standard_normal(48 * 8192).astype(np.float16)
    cycles = []
    for buffers in (1, 2):
        y = np.zeros_like(x)
        result = npu.launch(vector_chain, (x, y, 8192, buffers, passes), 1, "910b2")
        expected = x.astype(np.float32) * np.float32(1.0001) ** passes
        np.testing.assert_allclose(y.astype(np.float32), expected, rtol=5e-3, atol=1e-3)
        cycles.append(result.cycles)
    return cycles[0] / cycles[1]


def test_double_buffering_a_balanced_kernel_nearly_halves_its_time():
    assert chain_speedup(passes=4) >= 1.8  # the multiplies take about as long as the copies


def test_double_buffering_a_compute_bound_kernel_gains_far_less():
    assert chain_speedup(passes=40) <= 1.3  # the vector unit is busy either way


@pytest.mark.parametrize(("cols", "rows_per_tile"), [(64, 4), (256, 2), (1024, 1)])
def test_the_row_softmax_equals_numpy(cols, rows_per_tile):
    x = RNG.standard_normal((32, cols)).astype(np.float32) * 4
    y = np.zeros_like(x)
    npu.launch(softmax_rows, (x, y, rows_per_tile, 2), block_num=4, preset="small")
    expected = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(y, expected / expected.sum(-1, keepdims=True), rtol=1e-5)


def test_a_softmax_tile_too_big_for_the_ub_is_an_overflow_at_the_kernel_line():
    x = RNG.standard_normal((32, 1024)).astype(np.float32)
    with pytest.raises(npu.NpuSanitizerError, match=r"npu_kernels.py:\d+ on AIV 0.0: .*past the "
                       r"32768 bytes \(32 KiB\) UB has on small") as caught:  # fmt: skip
        npu.launch(softmax_rows, (x, np.zeros_like(x), 2, 2), block_num=4, preset="small")
    assert caught.value.kind == "overflow"
