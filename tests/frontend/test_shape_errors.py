"""Errors of the new ops name the op, what was expected and found, and the user's line."""

from __future__ import annotations

import pytest

import tinycomp.frontend as tf
from tinycomp.frontend import TensorSpec, TraceError, trace


def test_bad_perm_names_permutation_and_line() -> None:
    def bad(x):
        return tf.transpose(x, (0, 0, 1))  # repeated axis

    with pytest.raises(TraceError) as info:
        trace(bad, TensorSpec((2, 3, 4)))
    message = str(info.value)
    assert message.startswith(
        "transpose: expected a permutation of (0, 1, 2) for shape (2, 3, 4), got (0, 0, 1)"
    )
    assert "test_shape_errors.py" in message
    assert "return tf.transpose(x, (0, 0, 1))  # repeated axis" in message


def test_unsupported_reshape_says_which_are_supported() -> None:
    def bad(x):
        return x.reshape(3, 2)  # neither a collapse nor an expand

    with pytest.raises(TraceError) as info:
        trace(bad, TensorSpec((2, 3)))
    message = str(info.value)
    assert message.startswith("reshape: expected a reshape that only merges adjacent dimensions")
    assert "tensor.collapse_shape" in message and "tensor.expand_shape" in message
    assert "got (2, 3) to (3, 2)" in message
    assert "return x.reshape(3, 2)  # neither a collapse nor an expand" in message


def test_reshape_element_count_mismatch() -> None:
    with pytest.raises(TraceError, match=r"reshape: expected a shape with 6 elements for \(2, 3\)"):
        trace(lambda x: x.reshape(4, 2), TensorSpec((2, 3)))


def test_batch_mismatch() -> None:
    def bad(a, b):
        return a @ b  # batches 2 and 3

    with pytest.raises(TraceError) as info:
        trace(bad, TensorSpec((2, 3, 4)), TensorSpec((3, 4, 5)))
    message = str(info.value)
    assert message.startswith(
        "matmul: expected equal batch sizes, got shapes (2, 3, 4) and (3, 4, 5)"
    )
    assert "return a @ b  # batches 2 and 3" in message


def test_where_needs_i1_condition() -> None:
    with pytest.raises(
        TraceError, match=r"where: expected an i1 Tensor condition, got tensor<3xf32>"
    ):
        trace(lambda x: tf.where(x, x, 0.0), TensorSpec((3,)))


def test_layernorm_gamma_shape() -> None:
    with pytest.raises(TraceError, match=r"layernorm: expected gamma of shape \(4,\)"):
        trace(tf.layernorm, TensorSpec((2, 4)), TensorSpec((3,)), TensorSpec((4,)))
