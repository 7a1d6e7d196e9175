"""linalg kernels against numpy: matmul, conv2d, softmax and layernorm as linalg.generic
on tensors and on memrefs, in f32, f16 and bf16."""

from __future__ import annotations

import numpy as np
import pytest

from interp import kernels
from interp.helpers import DTYPES, rng_for, run, sequential_matmul

UNIT_ROUNDOFF = {"f16": 2.0**-11, "bf16": 2.0**-8, "f32": 2.0**-24}


def assert_within_dot_bound(result, a, b, unit_roundoff, c=None):
    """|result - exact| <= (K + 2) u (|a| @ |b| + |c|): the textbook bound for a sum of K
    products accumulated in a type with unit roundoff u."""
    wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
    exact = wide_a @ wide_b + (0 if c is None else c.astype(np.float64))
    scale = np.abs(wide_a) @ np.abs(wide_b) + (0 if c is None else np.abs(c.astype(np.float64)))
    bound = (a.shape[1] + 2) * unit_roundoff * scale
    assert np.all(np.abs(result.astype(np.float64) - exact) <= bound)


@pytest.mark.parametrize("type_name", ["f32", "f16", "bf16"])
def test_matmul_generic_on_tensors(type_name):
    dtype = DTYPES[type_name]
    rng = rng_for("matmul", type_name)
    a = rng.standard_normal((16, 24)).astype(dtype)
    b = rng.standard_normal((24, 12)).astype(dtype)
    result = run(kernels.matmul_tensors(16, 12, 24, type_name), a, b)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, sequential_matmul(a, b, np.zeros((16, 12), dtype)))
    assert_within_dot_bound(result, a, b, UNIT_ROUNDOFF[type_name])


def test_matmul_64_cubed_vectorized_matches_numpy():
    rng = rng_for("matmul64")
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    result = run(kernels.matmul_tensors(64, 64, 64), a, b)
    np.testing.assert_allclose(result, a @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(result, sequential_matmul(a, b, np.zeros((64, 64), np.float32)))


def test_matmul_generic_on_memrefs_accumulates_into_c():
    rng = rng_for("matmul memrefs")
    a = rng.standard_normal((8, 20)).astype(np.float32)
    b = rng.standard_normal((20, 6)).astype(np.float32)
    c = rng.standard_normal((8, 6)).astype(np.float32)
    expected = sequential_matmul(a, b, c)
    assert run(kernels.matmul_memrefs(8, 6, 20), a, b, c) is None
    np.testing.assert_array_equal(c, expected)


def test_conv2d_nhwc_stride_2_on_memrefs_with_a_prepadded_input():
    rng = rng_for("conv memrefs")
    image = rng.standard_normal((2, 9, 11, 3)).astype(np.float32)
    padded = np.pad(image, ((0, 0), (1, 1), (1, 1), (0, 0)))
    kernel = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    out_shape = (2, 5, 6, 4)
    out = rng.standard_normal(out_shape).astype(np.float32)
    expected = out.astype(np.float64) + kernels.conv_reference(padded, kernel, 2)
    run(kernels.conv_memrefs(padded.shape, kernel.shape, out_shape, 2), padded, kernel, out)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_conv2d_nhwc_stride_2_on_tensors_with_tensor_pad():
    rng = rng_for("conv tensors")
    image = rng.standard_normal((1, 8, 8, 2)).astype(np.float32)
    kernel = rng.standard_normal((3, 3, 2, 5)).astype(np.float32)
    out_shape = (1, 4, 4, 5)
    text = kernels.conv_tensors_with_pad(image.shape, kernel.shape, out_shape, stride=2, pad=1)
    result = run(text, image, kernel)
    padded = np.pad(image, ((0, 0), (1, 1), (1, 1), (0, 0)))
    np.testing.assert_allclose(
        result, kernels.conv_reference(padded, kernel, 2), rtol=1e-5, atol=1e-5
    )


SOFTMAX_TOLERANCE = {"f32": 1e-6, "f16": 2e-3, "bf16": 2e-2}


@pytest.mark.parametrize("type_name", ["f32", "f16", "bf16"])
def test_softmax_generic_on_tensors(type_name):
    dtype = DTYPES[type_name]
    x = (rng_for("softmax", type_name).standard_normal((6, 32)) * 3).astype(dtype)
    result = run(kernels.softmax_tensors(6, 32, type_name), x)
    assert result.dtype == dtype
    tolerance = SOFTMAX_TOLERANCE[type_name]
    np.testing.assert_allclose(
        result.astype(np.float64), kernels.softmax_reference(x), rtol=tolerance * 10, atol=tolerance
    )


def test_softmax_generic_on_memrefs():
    rng = rng_for("softmax memrefs")
    x = (rng.standard_normal((5, 40)) * 4).astype(np.float32)
    y = rng.standard_normal((5, 40)).astype(np.float32)  # overwritten
    run(kernels.softmax_memrefs(5, 40), x, y)
    np.testing.assert_allclose(y, kernels.softmax_reference(x), rtol=1e-5, atol=1e-6)


LAYERNORM_TOLERANCE = {"f32": 5e-6, "f16": 2e-2, "bf16": 1.5e-1}


@pytest.mark.parametrize("type_name", ["f32", "f16", "bf16"])
def test_layernorm_generic_on_tensors(type_name):
    dtype = DTYPES[type_name]
    rng = rng_for("layernorm", type_name)
    x = (rng.standard_normal((4, 16)) * 2 + 1).astype(dtype)
    gamma = rng.standard_normal(16).astype(dtype)
    beta = rng.standard_normal(16).astype(dtype)
    result = run(kernels.layernorm_tensors(4, 16, type_name), x, gamma, beta)
    assert result.dtype == dtype
    tolerance = LAYERNORM_TOLERANCE[type_name]
    np.testing.assert_allclose(
        result.astype(np.float64),
        kernels.layernorm_reference(x, gamma, beta),
        rtol=tolerance,
        atol=tolerance,
    )


def test_layernorm_generic_on_memrefs():
    rng = rng_for("layernorm memrefs")
    x = (rng.standard_normal((3, 24)) * 2 - 1).astype(np.float32)
    gamma, beta = (
        rng.standard_normal(24).astype(np.float32),
        rng.standard_normal(24).astype(np.float32),
    )
    y = rng.standard_normal((3, 24)).astype(np.float32)
    run(kernels.layernorm_memrefs(3, 24), x, gamma, beta, y)
    np.testing.assert_allclose(y, kernels.layernorm_reference(x, gamma, beta), rtol=2e-5, atol=2e-5)
