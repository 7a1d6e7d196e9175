"""Neural-network building blocks written with the ``Tensor`` API.

Nothing here builds IR directly: each function is an ordinary composition of the
frontend's ops, so its trace is the sequence of ``linalg`` ops those ops record. They
are the textbook formulas, arranged for numerical stability where it matters:

1. ``gelu``: the tanh approximation ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.
2. ``softmax``: subtract the row maximum before ``exp`` so no ``exp`` overflows.
3. ``layernorm``: ``(x - mean) * rsqrt(var + eps) * gamma + beta`` over the last axis.
4. ``rmsnorm``: ``x * rsqrt(mean(x^2) + eps) * gamma`` over the last axis.
5. ``attention``: ``softmax(q @ k^T / sqrt(d)) @ v`` for 2-D or batched 3-D operands.
6. ``mlp2``: the two-layer perceptron ``gelu(x @ w1 + b1) @ w2 + b2`` of a transformer block.

>>> import numpy as np
>>> from tinycomp.frontend import TensorSpec, trace
>>> from tinycomp.interp import interpret
>>> m = trace(softmax, TensorSpec((2, 5)))
>>> x = np.random.default_rng(1).standard_normal((2, 5)).astype(np.float32)
>>> np.allclose(interpret(m, x).sum(axis=-1), 1.0)
True
"""

from __future__ import annotations

import math

from tinycomp.frontend.elementwise import exp, rsqrt, tanh
from tinycomp.frontend.shapes import transpose
from tinycomp.frontend.tensor import Tensor, trace_error


def _expect_tensor(op_name: str, x: object) -> Tensor:
    if not isinstance(x, Tensor):
        raise trace_error(op_name, f"expected a Tensor, got {type(x).__name__}")
    return x


def gelu(x: Tensor) -> Tensor:
    """GELU, tanh approximation (as in GPT-2 and ``jax.nn.gelu(approximate=True)``).

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> print(trace(gelu, TensorSpec((4,))).body.first_op.function_type)
    (tensor<4xf32>) -> tensor<4xf32>
    """
    x = _expect_tensor("gelu", x)
    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))
    return 0.5 * x * (1.0 + tanh(inner))


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> print(trace(lambda x: softmax(x, axis=0), TensorSpec((3, 2))).body.first_op.sym_name)
    main
    """
    x = _expect_tensor("softmax", x)
    shifted = exp(x - x.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def _check_last_dim(op_name: str, x: Tensor, parameter: Tensor, name: str) -> None:
    parameter = _expect_tensor(op_name, parameter)
    if parameter.shape != (x.shape[-1],):
        raise trace_error(
            op_name,
            f"expected {name} of shape ({x.shape[-1]},) for {x.shape}, got {parameter.shape}",
        )


def layernorm(x: Tensor, gamma: Tensor, beta: Tensor, eps: float = 1e-5) -> Tensor:
    """Layer normalization over the last axis, scaled by ``gamma`` and shifted by ``beta``.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(layernorm, TensorSpec((2, 4)), TensorSpec((4,)), TensorSpec((4,)))
    >>> print(m.body.first_op.function_type)
    (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    """
    x = _expect_tensor("layernorm", x)
    _check_last_dim("layernorm", x, gamma, "gamma")
    _check_last_dim("layernorm", x, beta, "beta")
    centered = x - x.mean(axis=-1, keepdims=True)
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    return centered * rsqrt(variance + eps) * gamma + beta


def rmsnorm(x: Tensor, gamma: Tensor, eps: float = 1e-6) -> Tensor:
    """Root-mean-square normalization over the last axis, scaled by ``gamma``.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(rmsnorm, TensorSpec((2, 4)), TensorSpec((4,)))
    >>> print(m.body.first_op.function_type)
    (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    """
    x = _expect_tensor("rmsnorm", x)
    _check_last_dim("rmsnorm", x, gamma, "gamma")
    return x * rsqrt((x * x).mean(axis=-1, keepdims=True) + eps) * gamma


def attention(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    """Scaled dot-product attention ``softmax(q @ k^T / sqrt(d)) @ v``.

    ``q: (..., L, d)``, ``k: (..., S, d)``, ``v: (..., S, dv)`` with no batch axis or one.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(attention, TensorSpec((2, 3, 4)), TensorSpec((2, 5, 4)), TensorSpec((2, 5, 6)))
    >>> print(m.body.first_op.function_type.results[0])
    tensor<2x3x6xf32>
    """
    for operand in (q, k, v):
        _expect_tensor("attention", operand)
    if q.ndim not in (2, 3) or not q.ndim == k.ndim == v.ndim:
        raise trace_error(
            "attention",
            f"expected q, k, v all 2-D or all 3-D, got {q.shape}, {k.shape} and {v.shape}",
        )
    batch_perm = (0, 2, 1) if q.ndim == 3 else (1, 0)
    scores = (q @ transpose(k, batch_perm)) * (1.0 / math.sqrt(q.shape[-1]))
    return softmax(scores, axis=-1) @ v


def mlp2(x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, b2: Tensor) -> Tensor:
    """A two-layer perceptron: ``gelu(x @ w1 + b1) @ w2 + b2``.

    ``x: (M, K)``, ``w1: (K, H)``, ``b1: (H,)``, ``w2: (H, N)``, ``b2: (N,)``; the
    result is ``(M, N)``. The biases broadcast over the rows.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> shapes = [(4, 8), (8, 16), (16,), (16, 3), (3,)]
    >>> m = trace(mlp2, *(TensorSpec(s) for s in shapes))
    >>> print(m.body.first_op.function_type.results[0])
    tensor<4x3xf32>
    """
    operands = {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2}
    for operand in operands.values():
        _expect_tensor("mlp2", operand)
    ranks = tuple(operand.ndim for operand in operands.values())
    hidden = w1.shape[-1] if w1.ndim == 2 else None
    fits = (
        ranks == (2, 2, 1, 2, 1)
        and w1.shape[0] == x.shape[1]
        and b1.shape == (hidden,)
        and w2.shape[0] == hidden
        and b2.shape == (w2.shape[1],)
    )
    if not fits:
        found = ", ".join(f"{name} {operand.shape}" for name, operand in operands.items())
        raise trace_error(
            "mlp2",
            f"expected x (M, K), w1 (K, H), b1 (H,), w2 (H, N), b2 (N,), got {found}",
        )
    return gelu(x @ w1 + b1) @ w2 + b2


__all__ = ["attention", "gelu", "layernorm", "mlp2", "rmsnorm", "softmax"]
