"""Shape and dtype errors at trace time name the op, the shapes and the user's line."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.frontend import TensorSpec, TraceError, exp, trace


def test_broadcast_mismatch_names_op_shapes_and_line() -> None:
    def bad(x, y):
        return x + y  # the line the error points at

    with pytest.raises(TraceError) as info:
        trace(bad, TensorSpec((2, 3)), TensorSpec((4,)))
    message = str(info.value)
    assert message.startswith("add: expected broadcastable shapes, got (2, 3) and (4,)")
    assert "test_errors.py" in message
    assert "return x + y  # the line the error points at" in message


def test_matmul_inner_dimension_mismatch() -> None:
    def bad(a, b):
        return a @ b

    with pytest.raises(
        TraceError,
        match=r"matmul: expected lhs columns to equal rhs rows, got "
        r"shapes \(2, 3\) and \(4, 5\)",
    ) as info:
        trace(bad, TensorSpec((2, 3)), TensorSpec((4, 5)))
    assert "return a @ b" in str(info.value)


def test_matmul_needs_2d_or_3d() -> None:
    with pytest.raises(
        TraceError, match=r"matmul: expected 2-D or 3-D operands of one rank, got shapes \(3,\)"
    ):
        trace(lambda a, b: a @ b, TensorSpec((3,)), TensorSpec((3, 2)))


def test_dtype_mismatch() -> None:
    with pytest.raises(
        TraceError, match="mul: expected operands of one element type, got f32 and f16"
    ):
        trace(lambda a, b: a * b, TensorSpec((2,)), TensorSpec((2,), np.float16))


def test_float_only_ops_reject_integers() -> None:
    with pytest.raises(TraceError, match="exp: expected a float element type, got i32"):
        trace(exp, np.arange(4, dtype=np.int32))


def test_axis_out_of_range() -> None:
    with pytest.raises(TraceError, match=r"sum: expected axes in \[-2, 2\), got 2"):
        trace(lambda x: x.sum(axis=2), TensorSpec((2, 3)))


def test_bad_examples_and_returns() -> None:
    with pytest.raises(TraceError, match="expected numpy arrays or TensorSpec examples, got list"):
        trace(lambda x: x, [1.0, 2.0])
    with pytest.raises(TraceError, match="return: expected the traced function to return Tensors"):
        trace(lambda x: 3.0, TensorSpec((2,)))
    with pytest.raises(TraceError, match="expected one of the dtypes"):
        trace(lambda x: x, TensorSpec((2,), np.complex64))
