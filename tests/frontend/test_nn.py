"""The nn compositions (gelu, softmax, layernorm, rmsnorm, attention) against numpy,
and real MLIR accepting the traced layernorm and attention modules."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

import tinycomp.frontend as tf
from tinycomp.frontend import TensorSpec, trace
from tinycomp.interp import interpret

RTOL, ATOL = 1e-5, 1e-6


def random(*shape: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def run(fn, *inputs: np.ndarray) -> np.ndarray:
    module = trace(fn, *inputs)
    module.verify()
    return np.asarray(interpret(module, *inputs))


def np_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_gelu() -> None:
    x = random(4, 8, seed=1) * 3.0
    expected = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(run(tf.gelu, x), expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax(axis: int) -> None:
    x = random(3, 5, seed=2) * 4.0
    result = run(lambda x: tf.softmax(x, axis=axis), x)
    np.testing.assert_allclose(result, np_softmax(x, axis), rtol=RTOL, atol=ATOL)


def test_layernorm() -> None:
    x, gamma, beta = random(4, 16, seed=3), random(16, seed=4), random(16, seed=5)
    eps = 1e-5
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    expected = (x - mean) / np.sqrt(variance + eps) * gamma + beta
    result = run(lambda x, g, b: tf.layernorm(x, g, b, eps), x, gamma, beta)
    np.testing.assert_allclose(result, expected, rtol=RTOL, atol=ATOL)


def test_rmsnorm() -> None:
    x, gamma = random(2, 3, 8, seed=6), random(8, seed=7)
    expected = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6) * gamma
    result = run(tf.rmsnorm, x, gamma)
    np.testing.assert_allclose(result, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("batch", [(), (2,)])
def test_attention(batch: tuple[int, ...]) -> None:
    q, k, v = (
        random(*batch, 3, 4, seed=8),
        random(*batch, 5, 4, seed=9),
        random(*batch, 5, 6, seed=10),
    )
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(4.0)
    expected = np_softmax(scores) @ v
    np.testing.assert_allclose(run(tf.attention, q, k, v), expected, rtol=RTOL, atol=ATOL)


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_accepts_layernorm_and_attention() -> None:
    layernorm = trace(tf.layernorm, TensorSpec((4, 16)), TensorSpec((16,)), TensorSpec((16,)))
    run_mlir_opt(str(layernorm), "--verify-each")
    for shapes in (((3, 4), (5, 4), (5, 6)), ((2, 3, 4), (2, 5, 4), (2, 5, 6))):
        attention = trace(tf.attention, *(TensorSpec(s) for s in shapes))
        run_mlir_opt(str(attention), "--verify-each")
