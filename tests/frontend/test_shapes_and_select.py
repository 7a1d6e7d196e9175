"""transpose, reshape, batched matmul, rsqrt, comparisons and where against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinycomp.frontend as tf
from tinycomp.frontend import trace
from tinycomp.frontend.shapes import reassociation
from tinycomp.interp import interpret

RTOL, ATOL = 1e-5, 1e-6


def random(*shape: int, seed: int = 7, positive: bool = False) -> np.ndarray:
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return np.abs(values) + 0.5 if positive else values


def run(fn, *inputs: np.ndarray):
    module = trace(fn, *inputs)
    module.verify()
    return module, np.asarray(interpret(module, *inputs))


def op_names(module) -> list[str]:
    return [op.name for op in module.body.first_op.body.entry_block.ops]


@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 0, 1), (0, 2, 1), None])
def test_transpose(perm) -> None:
    x = random(2, 3, 4)
    module, result = run(lambda x: tf.transpose(x, perm), x)
    assert "linalg.transpose" in op_names(module)
    np.testing.assert_array_equal(result, np.transpose(x, perm))


def test_dot_t_and_method() -> None:
    x = random(3, 5, seed=1)
    _, result = run(lambda x: x.T * 2.0, x)
    np.testing.assert_allclose(result, x.T * 2.0, rtol=RTOL, atol=ATOL)
    _, result = run(lambda x: x.transpose(1, 0), x)
    np.testing.assert_array_equal(result, x.T)


@pytest.mark.parametrize(
    ("source", "target", "op"),
    [
        ((2, 3, 4), (6, 4), "tensor.collapse_shape"),
        ((2, 3, 4), (24,), "tensor.collapse_shape"),
        ((2, 3, 4), (2, -1), "tensor.collapse_shape"),
        ((4, 1), (4,), "tensor.collapse_shape"),
        ((12,), (3, 4), "tensor.expand_shape"),
        ((6, 4), (2, 3, 2, 2), "tensor.expand_shape"),
        ((6,), (1, 6, 1), "tensor.expand_shape"),
    ],
)
def test_reshape(source, target, op) -> None:
    x = random(*source, seed=3)
    module, result = run(lambda x: x.reshape(target), x)
    assert op in op_names(module)
    np.testing.assert_array_equal(result, x.reshape(target))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_reassociation_products_match(shape, data) -> None:
    cut = sorted(data.draw(st.sets(st.integers(1, len(shape) - 1))) if len(shape) > 1 else [])
    bounds = [0, *cut, len(shape)]
    smaller = tuple(int(np.prod(shape[a:b])) for a, b in zip(bounds, bounds[1:], strict=False))
    groups = reassociation(tuple(shape), smaller)
    assert groups is not None
    assert [g for group in groups for g in group] == list(range(len(shape)))
    assert tuple(int(np.prod([shape[i] for i in g])) for g in groups) == smaller


def test_batch_matmul() -> None:
    a, b = random(3, 4, 5, seed=4), random(3, 5, 2, seed=5)
    module, result = run(lambda a, b: a @ b, a, b)
    assert "linalg.batch_matmul" in op_names(module)
    np.testing.assert_allclose(result, a @ b, rtol=RTOL, atol=ATOL)


def test_rsqrt() -> None:
    x = random(4, 6, seed=6, positive=True)
    _, result = run(tf.rsqrt, x)
    np.testing.assert_allclose(result, 1.0 / np.sqrt(x), rtol=RTOL, atol=ATOL)


def test_comparisons_give_i1() -> None:
    x, y = random(3, 4, seed=8), random(4, seed=9)
    module, result = run(lambda x, y: x < y, x, y)
    assert str(module.body.first_op.function_type).endswith("tensor<3x4xi1>")
    np.testing.assert_array_equal(result.astype(bool), x < y)
    _, result = run(lambda x: x > 0.25, x)
    np.testing.assert_array_equal(result.astype(bool), x > 0.25)


def test_where_broadcasts() -> None:
    x, y = random(3, 4, seed=10), random(4, seed=11)
    _, result = run(lambda x, y: tf.where(x > y, x, y * 2.0), x, y)
    np.testing.assert_allclose(result, np.where(x > y, x, y * 2.0), rtol=RTOL, atol=ATOL)
    _, result = run(lambda x: tf.where(x < 0.0, 0.0, x), x)
    np.testing.assert_array_equal(result, np.where(x < 0.0, 0.0, x))
