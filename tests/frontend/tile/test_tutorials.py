"""The kernels of Triton's tutorials against numpy, on random inputs at odd shapes
(partial blocks, masked lanes), in f32 and in the f16/bf16 the tutorials use."""

import ml_dtypes
import numpy as np
import pytest

from tinycomp import tile

from .kernels import (
    add_kernel,
    attention_fwd,
    layer_norm_fwd,
    matmul_kernel,
    softmax_kernel,
)

RNG = np.random.default_rng(7)
TOLERANCE = {np.float32: 2e-5, np.float16: 2e-2, ml_dtypes.bfloat16: 6e-2}


def random(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("n", [1, 100, 513])
def test_vector_add(n):
    x, y = random(n), random(n)
    out = np.full(n, np.nan, np.float32)
    add_kernel[(tile.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("rows, cols", [(5, 37), (3, 64)])
def test_fused_softmax(rows, cols):
    x = random((rows, cols))
    out = np.zeros_like(x)
    (row_stride,) = tile.element_strides(x)[:1]
    softmax_kernel[(rows,)](out, x, row_stride, tile.element_strides(out)[0], cols, BLOCK_SIZE=64)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_layer_norm_forward(dtype):
    rows, n = 4, 45
    x, w, b = random((rows, n), dtype), random(n, dtype), random(n, dtype)
    y = np.zeros_like(x)
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    layer_norm_fwd[(rows,)](x, y, w, b, mean, rstd, n, n, 1e-5, BLOCK_SIZE=16)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1)
    sigma = 1 / np.sqrt(x64.var(axis=1) + 1e-5)
    expected = (x64 - mu[:, None]) * sigma[:, None] * w.astype(np.float64) + b.astype(np.float64)
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rstd, sigma, rtol=1e-4)
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(y.astype(np.float64), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_matmul_grouped(dtype):
    m, n, k = 70, 45, 50
    a, b = random((m, k), dtype), random((k, n), dtype)
    c = np.zeros((m, n), dtype)
    blocks = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 2}
    grid = (tile.cdiv(m, 32) * tile.cdiv(n, 16),)
    matmul_kernel[grid](
        a,
        b,
        c,
        m,
        n,
        k,
        *tile.element_strides(a),
        *tile.element_strides(b),
        *tile.element_strides(c),
        **blocks,
    )
    expected = a.astype(np.float64) @ b.astype(np.float64)
    tol = TOLERANCE[dtype] * np.sqrt(k)
    np.testing.assert_allclose(c.astype(np.float64), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_flash_attention_forward(dtype):
    heads, seq, dim = 2, 37, 16
    q, k, v = (random((heads, seq, dim), dtype) for _ in range(3))
    out = np.zeros_like(q)
    scale = 1 / np.sqrt(dim)
    strides = tile.element_strides(q)
    attention_fwd[(tile.cdiv(seq, 16), heads)](
        q,
        k,
        v,
        out,
        seq,
        strides[1],
        strides[0],
        float(scale),
        HEAD_DIM=dim,
        BLOCK_M=16,
        BLOCK_N=16,
    )
    s = np.einsum("hmd,hnd->hmn", q.astype(np.float64), k.astype(np.float64)) * scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    expected = np.einsum("hmn,hnd->hmd", p / p.sum(axis=-1, keepdims=True), v.astype(np.float64))
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=tol, atol=tol)
