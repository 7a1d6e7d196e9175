"""``nn.mlp2`` (``gelu(x @ w1 + b1) @ w2 + b2``) against numpy on random inputs, its shape
errors, and real MLIR accepting the traced module."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.frontend import TensorSpec, TraceError, nn, trace
from tinycomp.interp import interpret


def numpy_mlp2(x, w1, b1, w2, b2) -> np.ndarray:
    """The reference in float64, with numpy's own GELU (tanh approximation)."""
    x, w1, b1, w2, b2 = (a.astype(np.float64) for a in (x, w1, b1, w2, b2))
    h = x @ w1 + b1
    h = 0.5 * h * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h**3)))
    return h @ w2 + b2


def random_operands(m: int, k: int, hidden: int, n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = [(m, k), (k, hidden), (hidden,), (hidden, n), (n,)]
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


def run_mlp2(operands: list[np.ndarray]) -> np.ndarray:
    module = trace(nn.mlp2, *operands)
    return np.asarray(interpret(module, *operands))


def test_mlp2_matches_numpy() -> None:
    operands = random_operands(8, 16, 32, 8, seed=1)
    result = run_mlp2(operands)
    assert result.shape == (8, 8)
    np.testing.assert_allclose(result, numpy_mlp2(*operands), rtol=1e-5, atol=1e-5)


def test_mlp2_records_two_matmuls_and_tanh() -> None:
    module = trace(nn.mlp2, *random_operands(4, 8, 16, 4, seed=2))
    names = [op.name for op in module.walk()]
    assert names.count("linalg.matmul") == 2 and names.count("math.tanh") == 1


@settings(max_examples=10, deadline=None)
@given(m=st.integers(1, 9), k=st.integers(1, 13), hidden=st.integers(1, 17), n=st.integers(1, 7))
def test_any_shape_matches_numpy(m, k, hidden, n) -> None:
    operands = random_operands(m, k, hidden, n, seed=m * 1000 + k * 100 + hidden * 10 + n)
    np.testing.assert_allclose(run_mlp2(operands), numpy_mlp2(*operands), rtol=1e-5, atol=1e-5)


def test_shape_mismatch_names_every_operand_and_the_line() -> None:
    def bad(x, w1, b1, w2, b2):
        return nn.mlp2(x, w1, b1, w2, b2)  # b1 has the wrong length

    shapes = [(4, 8), (8, 16), (15,), (16, 3), (3,)]
    with pytest.raises(TraceError) as info:
        trace(bad, *(TensorSpec(s) for s in shapes))
    message = str(info.value)
    assert message.startswith(
        "mlp2: expected x (M, K), w1 (K, H), b1 (H,), w2 (H, N), b2 (N,), got x (4, 8), "
        "w1 (8, 16), b1 (15,), w2 (16, 3), b2 (3,)"
    )
    assert "return nn.mlp2(x, w1, b1, w2, b2)  # b1 has the wrong length" in message


def test_batched_input_is_rejected() -> None:
    shapes = [(2, 4, 8), (8, 16), (16,), (16, 3), (3,)]
    with pytest.raises(TraceError, match=r"mlp2: expected x \(M, K\).* got x \(2, 4, 8\)"):
        trace(nn.mlp2, *(TensorSpec(s) for s in shapes))


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_accepts_mlp2() -> None:
    shapes = [(4, 8), (8, 16), (16,), (16, 3), (3,)]
    run_mlir_opt(str(trace(nn.mlp2, *(TensorSpec(s) for s in shapes))), "--verify-each")
