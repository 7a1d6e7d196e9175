"""Whole programs: softmax and a 2-layer MLP, against numpy and against mlir-opt."""

from __future__ import annotations

import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.frontend import exp, maximum, trace
from tinycomp.interp import interpret


def softmax(x):
    e = exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp(x, w1, b1, w2, b2):
    hidden = maximum(x @ w1 + b1, 0.0)
    return hidden @ w2 + b2


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp_inputs(seed: int = 7) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = [(4, 6), (6, 8), (8,), (8, 3), (3,)]
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def test_softmax_matches_numpy() -> None:
    x = np.random.default_rng(11).standard_normal((5, 7)).astype(np.float32) * 4
    module = trace(softmax, x)
    module.verify()
    np.testing.assert_allclose(interpret(module, x), numpy_softmax(x), rtol=1e-5, atol=1e-7)


def test_mlp_matches_numpy() -> None:
    inputs = mlp_inputs()
    x, w1, b1, w2, b2 = inputs
    module = trace(mlp, *inputs)
    module.verify()
    want = np.maximum(x @ w1 + b1, 0.0) @ w2 + b2
    np.testing.assert_allclose(interpret(module, *inputs), want, rtol=1e-5, atol=1e-6)


def test_traced_module_prints_and_parses_back() -> None:
    from tinycomp.ir import ir_equal, parse

    module = trace(softmax, np.zeros((2, 3), np.float32))
    assert ir_equal(parse(str(module)), module)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(
    "module",
    [
        pytest.param(lambda: trace(softmax, np.zeros((2, 3), np.float32)), id="softmax"),
        pytest.param(lambda: trace(mlp, *mlp_inputs()), id="mlp"),
    ],
)
def test_mlir_opt_accepts_traced_modules(module) -> None:
    run_mlir_opt(str(module()), "--verify-each", allow_unregistered=False)
