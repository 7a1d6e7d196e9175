"""Each traced op, run by the reference interpreter on random inputs, against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinycomp.frontend as tf
from tinycomp.frontend import TensorSpec, trace
from tinycomp.interp import interpret

RNG_SEED = 20


def random(*shape: int, seed: int = RNG_SEED, positive: bool = False) -> np.ndarray:
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return np.abs(values) + 0.5 if positive else values


def run(fn, *inputs: np.ndarray) -> np.ndarray:
    module = trace(fn, *inputs)
    module.verify()
    return np.asarray(interpret(module, *inputs))


@pytest.mark.parametrize(
    ("fn", "reference"),
    [
        (lambda a, b: a + b, np.add),
        (lambda a, b: a - b, np.subtract),
        (lambda a, b: a * b, np.multiply),
        (lambda a, b: a / b, np.divide),
        (tf.maximum, np.maximum),
    ],
)
def test_binary_ops_match_numpy(fn, reference) -> None:
    a, b = random(3, 4, seed=1), random(3, 4, seed=2, positive=True)
    np.testing.assert_allclose(run(fn, a, b), reference(a, b), rtol=1e-5)


@pytest.mark.parametrize(
    ("fn", "reference"),
    [(tf.exp, np.exp), (tf.log, np.log), (tf.sqrt, np.sqrt), (tf.tanh, np.tanh)],
)
def test_unary_ops_match_numpy(fn, reference) -> None:
    x = random(2, 5, positive=True)
    np.testing.assert_allclose(run(fn, x), reference(x), rtol=1e-5)


def test_scalar_operands_on_either_side() -> None:
    x = random(4, 3)
    got = run(lambda x: (2.0 - x) * 3 + x / 4.0 - (-x), x)
    np.testing.assert_allclose(got, (2.0 - x) * 3 + x / 4.0 + x, rtol=1e-5)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("kind", ["sum", "max", "mean"])
def test_reductions_match_numpy(kind: str, axis, keepdims: bool) -> None:
    x = random(2, 3, 4)
    got = run(lambda t: getattr(t, kind)(axis=axis, keepdims=keepdims), x)
    want = getattr(np, kind)(x, axis=axis, keepdims=keepdims)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_matmul_matches_numpy() -> None:
    a, b = random(3, 5, seed=3), random(5, 2, seed=4)
    np.testing.assert_allclose(run(lambda a, b: a @ b, a, b), a @ b, rtol=1e-5)


def test_tensor_spec_and_argument_names() -> None:
    module = trace(lambda x, w: x @ w, TensorSpec((2, 3)), TensorSpec((3, 4), np.float32))
    text = str(module)
    assert "func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32>" in text
    assert "%matmul = linalg.matmul" in text


def test_integer_tensors_use_integer_arith() -> None:
    a = np.random.default_rng(5).integers(-50, 50, (3, 4)).astype(np.int32)
    b = np.random.default_rng(6).integers(-50, 50, (4,)).astype(np.int32)
    module = trace(lambda a, b: tf.maximum(a + b * 2, a), a, b)
    assert "arith.addi" in str(module)
    np.testing.assert_array_equal(interpret(module, a, b), np.maximum(a + b * 2, a))


@st.composite
def broadcastable_shapes(draw) -> tuple[tuple[int, ...], tuple[int, ...]]:
    out = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    shapes = []
    for _ in range(2):
        rank = draw(st.integers(0, len(out)))
        tail = out[len(out) - rank :]
        shapes.append(tuple(1 if draw(st.booleans()) else s for s in tail))
    return shapes[0], shapes[1]


@settings(max_examples=25, deadline=None)
@given(broadcastable_shapes(), st.integers(0, 2**16))
def test_broadcasting_matches_numpy(shapes, seed: int) -> None:
    a, b = random(*shapes[0], seed=seed), random(*shapes[1], seed=seed + 1)
    got = run(lambda a, b: a * b + a, a, b)
    want = a * b + a
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5)
