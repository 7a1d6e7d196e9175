"""``conv2d`` (NHWC input, HWCF filter) against a numpy convolution on random inputs,
its shape errors, and real MLIR accepting the traced module."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

import tinycomp.frontend as tf
from tinycomp.frontend import TensorSpec, TraceError, trace
from tinycomp.interp import interpret


def numpy_conv2d(x: np.ndarray, w: np.ndarray, stride: tuple[int, int], padding: tuple[int, int]):
    """The reference: pad, cut every window out with ``sliding_window_view``, keep every
    ``stride``-th one, contract windows with the filter (in float64)."""
    kernel_h, kernel_w = w.shape[:2]
    padded = np.pad(
        x.astype(np.float64),
        [(0, 0), (padding[0], padding[0]), (padding[1], padding[1]), (0, 0)],
    )
    windows = np.lib.stride_tricks.sliding_window_view(padded, (kernel_h, kernel_w), axis=(1, 2))
    windows = windows[:, :: stride[0], :: stride[1]]  # (n, oh, ow, c, kh, kw)
    return np.einsum("nhwcij,ijcf->nhwf", windows, w.astype(np.float64))


def random(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def run_conv(x: np.ndarray, w: np.ndarray, stride, padding) -> np.ndarray:
    module = trace(lambda x, w: tf.conv2d(x, w, stride=stride, padding=padding), x, w)
    return np.asarray(interpret(module, x, w))


def pair(value) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else tuple(value)


@pytest.mark.parametrize(
    ("stride", "padding"),
    [(1, 0), (1, 1), (2, 0), (2, 1), (3, 2), ((1, 2), (2, 0)), ((2, 1), 1)],
)
def test_conv2d_matches_numpy(stride, padding) -> None:
    x, w = random((2, 9, 7, 3), seed=1), random((3, 3, 3, 5), seed=2)
    expected = numpy_conv2d(x, w, pair(stride), pair(padding))
    result = run_conv(x, w, stride, padding)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


def test_method_records_the_same_ir_as_the_function() -> None:
    specs = (TensorSpec((1, 6, 6, 2)), TensorSpec((3, 3, 2, 4)))
    by_function = trace(lambda x, w: tf.conv2d(x, w, stride=2, padding=1), *specs)
    by_method = trace(lambda x, w: x.conv2d(w, stride=2, padding=1), *specs)
    assert str(by_method) == str(by_function)


def test_pad_only_when_padding_is_not_zero() -> None:
    specs = (TensorSpec((1, 6, 6, 2)), TensorSpec((3, 3, 2, 4)))
    plain = [op.name for op in trace(tf.conv2d, *specs).walk()]
    padded = [op.name for op in trace(lambda x, w: tf.conv2d(x, w, padding=1), *specs).walk()]
    assert "tensor.pad" not in plain and "tensor.pad" in padded
    for names in (plain, padded):
        assert names.count("linalg.conv_2d_nhwc_hwcf") == 1 and names.count("linalg.fill") == 1


def test_strides_become_the_op_attribute() -> None:
    module = trace(
        lambda x, w: tf.conv2d(x, w, stride=(2, 3)),
        TensorSpec((1, 9, 9, 1)),
        TensorSpec((2, 2, 1, 1)),
    )
    conv = next(op for op in module.walk() if op.name == "linalg.conv_2d_nhwc_hwcf")
    assert conv.strides == (2, 3) and conv.dilations == (1, 1)
    assert conv.results[0].type.shape == (1, 4, 3, 1)


def test_integer_conv_is_exact() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(-5, 6, (1, 5, 5, 2)).astype(np.int32)
    w = rng.integers(-5, 6, (2, 2, 2, 3)).astype(np.int32)
    expected = numpy_conv2d(x, w, (1, 1), (1, 1)).astype(np.int32)
    np.testing.assert_array_equal(run_conv(x, w, 1, 1), expected)


@settings(max_examples=25, deadline=None)
@given(
    batch=st.integers(1, 2),
    height=st.integers(1, 9),
    width=st.integers(1, 9),
    channels=st.integers(1, 4),
    filters=st.integers(1, 4),
    kernel=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    padding=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    seed=st.integers(0, 2**16),
)
def test_any_shape_matches_numpy(
    batch, height, width, channels, filters, kernel, stride, padding, seed
) -> None:
    assume(kernel[0] <= height + 2 * padding[0] and kernel[1] <= width + 2 * padding[1])
    x = random((batch, height, width, channels), seed)
    w = random((*kernel, channels, filters), seed + 1)
    result = run_conv(x, w, stride, padding)
    np.testing.assert_allclose(result, numpy_conv2d(x, w, stride, padding), rtol=1e-5, atol=1e-5)


# -- errors --------------------------------------------------------------------------------
def test_channel_mismatch_names_shapes_and_line() -> None:
    def bad(x, w):
        return tf.conv2d(x, w)  # 3 channels against 4

    with pytest.raises(TraceError) as info:
        trace(bad, TensorSpec((1, 8, 8, 3)), TensorSpec((3, 3, 4, 8)))
    message = str(info.value)
    assert message.startswith(
        "conv2d: expected the input channels of x (NHWC, 3) to equal those of w (HWCF, 4), "
        "got shapes (1, 8, 8, 3) and (3, 3, 4, 8)"
    )
    assert "test_conv.py" in message
    assert "return tf.conv2d(x, w)  # 3 channels against 4" in message


def test_filter_larger_than_padded_input() -> None:
    def bad(x, w):
        return x.conv2d(w, padding=1)  # 5x5 filter, 4x4 padded input

    with pytest.raises(TraceError) as info:
        trace(bad, TensorSpec((1, 2, 2, 1)), TensorSpec((5, 5, 1, 1)))
    message = str(info.value)
    assert message.startswith(
        "conv2d: expected a filter no larger than the padded input, got a 5x5 filter for a "
        "4x4 padded input (x (1, 2, 2, 1), w (5, 5, 1, 1), padding (1, 1))"
    )
    assert "return x.conv2d(w, padding=1)  # 5x5 filter, 4x4 padded input" in message


def test_bad_rank() -> None:
    with pytest.raises(
        TraceError,
        match=r"conv2d: expected x of rank 4 \(NHWC\) and w of rank 4 \(HWCF\), "
        r"got shapes \(8, 8, 3\) and \(3, 3, 3, 4\)",
    ):
        trace(tf.conv2d, TensorSpec((8, 8, 3)), TensorSpec((3, 3, 3, 4)))


@pytest.mark.parametrize(
    ("keyword", "value", "expected"),
    [
        ("padding", -1, r"expected padding to be an int >= 0 or a pair \(h, w\) of them, got -1"),
        ("padding", (1, 2, 3), r"expected padding to be an int >= 0 .* got \(1, 2, 3\)"),
        ("stride", 0, r"expected stride to be an int >= 1 or a pair \(h, w\) of them, got 0"),
        ("stride", (2, 1.5), r"expected stride to be an int >= 1 .* got \(2, 1.5\)"),
        ("stride", 1.5, r"expected stride to be an int >= 1 .* got 1.5"),
        ("padding", True, r"expected padding to be an int >= 0 .* got True"),
    ],
)
def test_bad_stride_or_padding(keyword, value, expected) -> None:
    def bad(x, w):
        return tf.conv2d(x, w, **{keyword: value})

    with pytest.raises(TraceError, match="conv2d: " + expected) as info:
        trace(bad, TensorSpec((1, 4, 4, 1)), TensorSpec((2, 2, 1, 1)))
    assert "return tf.conv2d(x, w, **{keyword: value})" in str(info.value)


def test_mixed_element_types() -> None:
    with pytest.raises(
        TraceError, match="conv2d: expected operands of one element type, got f32 and f16"
    ):
        trace(tf.conv2d, TensorSpec((1, 4, 4, 1)), TensorSpec((2, 2, 1, 1), np.float16))


def test_non_tensor_operand() -> None:
    with pytest.raises(TraceError, match="conv2d: expected Tensor operands, got ndarray"):
        trace(lambda x: tf.conv2d(x, np.ones((1, 1, 1, 1))), TensorSpec((1, 4, 4, 1)))


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(("stride", "padding"), [(1, 0), (2, 1), ((1, 3), (2, 0))])
def test_mlir_opt_accepts_traced_conv(stride, padding) -> None:
    module = trace(
        lambda x, w: tf.conv2d(x, w, stride=stride, padding=padding),
        TensorSpec((2, 9, 7, 3)),
        TensorSpec((3, 3, 3, 5)),
    )
    run_mlir_opt(str(module), "--verify-each")
    # MLIR's generalization gives the maps tinycomp's interpreter runs.
    generic = run_mlir_opt(str(module), "--linalg-generalize-named-ops")
    sh, sw = pair(stride)
    assert f"d1 * {sh} + d4" in generic if sh > 1 else "d1 + d4" in generic
    assert f"d2 * {sw} + d5" in generic if sw > 1 else "d2 + d5" in generic
