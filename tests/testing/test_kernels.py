"""The kernel catalogue: every kernel, traced in f32, f16 and bf16 and run by the
interpreter on random inputs, agrees with its float64 reference within ``TOLERANCES``;
the tolerances are tight enough to catch real bugs; bad shapes get clear errors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.interp import interpret
from tinycomp.testing import (
    DTYPES,
    KERNELS,
    TOLERANCES,
    check_against_reference,
    dtype_name,
    numpy_dtype,
    references,
)

DTYPE_NAMES = sorted(DTYPES)
EXPECTED_KERNELS = {
    "softmax", "layernorm", "rmsnorm", "matmul", "batch_matmul", "conv2d", "conv2d_plain",
    "attention", "mlp2",
}  # fmt: skip


def run_kernel(name: str, dtype: str, seed: int, **shape: int):
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(seed), dtype, **shape)
    module = kernel.trace(dtype, **shape)
    return kernel, inputs, interpret(module, *inputs)


def test_catalogue_has_the_agreed_kernels() -> None:
    assert set(KERNELS) == EXPECTED_KERNELS
    for name, kernel in KERNELS.items():
        assert kernel.name == name and kernel.summary


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("name", sorted(EXPECTED_KERNELS))
def test_default_shapes_match_the_reference(name: str, dtype: str) -> None:
    kernel, inputs, outputs = run_kernel(name, dtype, seed=sum(map(ord, name)))
    assert np.asarray(outputs).dtype == numpy_dtype(dtype)
    error = check_against_reference(kernel, outputs, inputs, dtype)
    assert error < TOLERANCES[dtype][1]


@pytest.mark.parametrize("name", sorted(EXPECTED_KERNELS))
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_any_shape_in_the_strategy_matches_the_reference(name: str, data) -> None:
    kernel = KERNELS[name]
    shape = data.draw(kernel.shape_strategy(), label="shape")
    dtype = data.draw(st.sampled_from(DTYPE_NAMES), label="dtype")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    kernel, inputs, outputs = run_kernel(name, dtype, seed, **shape)
    check_against_reference(kernel, outputs, inputs, dtype)


def test_every_wide_size_range_holds_an_odd_prime() -> None:
    for kernel in KERNELS.values():
        for key, (low, high) in kernel.shape_ranges.items():
            if high - low >= 2:
                assert any(p in range(low, high + 1) for p in (3, 5, 7, 11, 13)), (kernel, key)


@pytest.mark.parametrize("name", sorted(EXPECTED_KERNELS))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_strategy_shapes_are_valid_and_in_range(name: str, data) -> None:
    kernel = KERNELS[name]
    shape = data.draw(kernel.shape_strategy())
    assert kernel.shape(**shape) == shape
    for key, (low, high) in kernel.shape_ranges.items():
        assert low <= shape[key] <= high


# -- the inputs ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_inputs_are_random_of_the_dtype_and_reproducible(dtype: str) -> None:
    for kernel in KERNELS.values():
        first = kernel.make_inputs(np.random.default_rng(7), dtype)
        again = kernel.make_inputs(np.random.default_rng(7), dtype)
        other = kernel.make_inputs(np.random.default_rng(8), dtype)
        assert [a.shape for a in first] == [o.shape for o in kernel.operand_specs()]
        for a, b, c in zip(first, again, other, strict=True):
            assert a.dtype == numpy_dtype(dtype)
            np.testing.assert_array_equal(a, b)
            assert not np.array_equal(a, c) and np.std(a.astype(np.float64)) > 0


def test_weights_are_scaled_by_fan_in() -> None:
    specs = KERNELS["conv2d"].operand_specs(c=4, kh=3, kw=3)
    assert [s.name for s in specs] == ["x", "w"]
    assert specs[1].scale == pytest.approx(1 / 6)  # 1 / sqrt(3 * 3 * 4)


def test_shape_errors_name_the_kernel() -> None:
    matmul = KERNELS["matmul"]
    with pytest.raises(
        ValueError, match=r"matmul: expected sizes among \['k', 'm', 'n'\], got \['q'\]"
    ):
        matmul.make_inputs(np.random.default_rng(0), q=3)
    with pytest.raises(
        ValueError, match=r"matmul: expected sizes that are ints >= 1, got \{'k': 0\}"
    ):
        matmul.shape(k=0)
    with pytest.raises(ValueError, match=r"conv2d_plain: expected a filter \(kh, kw\) no larger"):
        KERNELS["conv2d_plain"].shape(h=2, kh=3)


def test_dtype_names() -> None:
    assert dtype_name(np.float32) == "f32" and dtype_name("bf16") == "bf16"
    assert numpy_dtype("bf16") == np.dtype(ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match=r"expected one of the dtypes \['bf16', 'f16', 'f32'\]"):
        dtype_name(np.int32)


# -- the check ---------------------------------------------------------------------------------
def test_check_reports_the_worst_element_and_where() -> None:
    kernel, inputs, outputs = run_kernel("softmax", "f32", seed=1)
    wrong = np.array(outputs, copy=True)
    wrong[3, 5] += 0.25
    with pytest.raises(AssertionError) as info:
        check_against_reference(kernel, wrong, inputs, "f32")
    message = str(info.value)
    assert message.startswith("softmax in f32: 1 of 256 elements differ from the float64 reference")
    assert "worst at index (3, 5)" in message and "max abs error 2.5e-01 at index (3, 5)" in message


def test_check_rejects_nan_and_wrong_shapes() -> None:
    kernel, inputs, outputs = run_kernel("rmsnorm", "f16", seed=2)
    with_nan = np.array(outputs, copy=True)
    with_nan[0, 0] = np.nan
    with pytest.raises(AssertionError, match=r"1 of 256 elements differ"):
        check_against_reference(kernel, with_nan, inputs, "f16")
    with pytest.raises(
        AssertionError, match=r"expected an output of shape \(8, 32\), got \(32, 8\)"
    ):
        check_against_reference(kernel, np.asarray(outputs).T, inputs, "f16")


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_tolerances_catch_a_dropped_reduction_term(dtype: str) -> None:
    """A matmul that forgets one step of its k loop fails in every dtype, bf16 included."""
    kernel, (a, b), _ = run_kernel("matmul", dtype, seed=3)
    forgetful = a.astype(np.float64)[:, 1:] @ b.astype(np.float64)[1:, :]
    with pytest.raises(AssertionError, match=f"matmul in {dtype}"):
        check_against_reference(kernel, forgetful, (a, b), dtype)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_tolerances_catch_a_conv_without_padding(dtype: str) -> None:
    """A stride-2 conv that forgot its padding (windows shifted by one pixel) fails."""
    kernel = KERNELS["conv2d"]
    x, w = kernel.make_inputs(np.random.default_rng(4), dtype, h=17, w=17)
    unpadded = references.conv2d(x, w, stride=(2, 2), padding=(0, 0))  # 8x8, like the real one
    with pytest.raises(AssertionError, match=f"conv2d in {dtype}"):
        check_against_reference(kernel, unpadded, (x, w), dtype)


def test_conv_reference_against_loops() -> None:
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 5, 6, 3)), rng.standard_normal((2, 3, 3, 4))
    stride, padding = (2, 1), (1, 2)
    padded = np.pad(x, [(0, 0), (1, 1), (2, 2), (0, 0)])
    out_h = (padded.shape[1] - 2) // 2 + 1
    out_w = (padded.shape[2] - 3) // 1 + 1
    expected = np.zeros((2, out_h, out_w, 4))
    for n in range(2):
        for oh in range(out_h):
            for ow in range(out_w):
                window = padded[n, oh * 2 : oh * 2 + 2, ow : ow + 3, :]
                expected[n, oh, ow] = np.tensordot(window, w, axes=3)
    np.testing.assert_allclose(references.conv2d(x, w, stride, padding), expected, rtol=1e-12)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_mlir_opt_accepts_every_kernel(dtype: str) -> None:
    for kernel in KERNELS.values():
        run_mlir_opt(str(kernel.trace(dtype)), "--verify-each")
