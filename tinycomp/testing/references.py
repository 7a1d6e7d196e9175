"""The numpy references of the kernel catalogue, computed in float64.

Each function takes the kernel's input arrays (any float dtype, ``bf16`` included),
converts them to float64 and computes the textbook formula. Because the inputs are
used *exactly* as the compiled kernel saw them, the difference between a kernel's
output and its reference is the kernel's own rounding error, nothing else.

>>> import numpy as np
>>> x = np.array([[0.0, np.log(3.0)]])
>>> softmax(x)
array([[0.25, 0.75]])
"""

from __future__ import annotations

import math

import numpy as np

LAYERNORM_EPS = 1e-5
"""The ``eps`` of ``tinycomp.frontend.nn.layernorm`` (its default)."""
RMSNORM_EPS = 1e-6
"""The ``eps`` of ``tinycomp.frontend.nn.rmsnorm`` (its default)."""


def _f64(*arrays: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(a).astype(np.float64) for a in arrays]


def softmax(x: np.ndarray) -> np.ndarray:
    """``exp(x) / sum(exp(x))`` along the last axis (shifted by the row maximum)."""
    (x,) = _f64(x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layernorm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """``(x - mean) / sqrt(var + eps) * gamma + beta`` over the last axis.

    >>> layernorm(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2)).round(4)
    array([[-1.,  1.]])
    """
    x, gamma, beta = _f64(x, gamma, beta)
    centered = x - x.mean(axis=-1, keepdims=True)
    variance = (centered**2).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(variance + LAYERNORM_EPS) * gamma + beta


def rmsnorm(x: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """``x / sqrt(mean(x^2) + eps) * gamma`` over the last axis."""
    x, gamma = _f64(x, gamma)
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + RMSNORM_EPS) * gamma


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (2-D, or batched 3-D)."""
    a, b = _f64(a, b)
    return a @ b


def conv2d(
    x: np.ndarray,
    w: np.ndarray,
    stride: tuple[int, int] = (1, 1),
    padding: tuple[int, int] = (0, 0),
) -> np.ndarray:
    """Convolution of ``x`` (NHWC) with ``w`` (HWCF): zero-pad, cut out every window,
    keep every ``stride``-th one and contract it with the filter.

    >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
    >>> conv2d(x, np.ones((2, 2, 1, 1)))[0, :, :, 0]  # sums of 2x2 windows
    array([[ 8., 12.],
           [20., 24.]])
    """
    x, w = _f64(x, w)
    kernel_h, kernel_w = w.shape[:2]
    pad = [(0, 0), (padding[0], padding[0]), (padding[1], padding[1]), (0, 0)]
    padded = np.pad(x, pad)
    windows = np.lib.stride_tricks.sliding_window_view(padded, (kernel_h, kernel_w), axis=(1, 2))
    windows = windows[:, :: stride[0], :: stride[1]]  # (n, oh, ow, c, kh, kw)
    return np.einsum("nhwcij,ijcf->nhwf", windows, w)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``softmax(q @ k^T / sqrt(d)) @ v`` over the last two axes."""
    q, k, v = _f64(q, k, v)
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    return softmax(scores) @ v


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""
    (x,) = _f64(x)
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def mlp2(
    x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray
) -> np.ndarray:
    """``gelu(x @ w1 + b1) @ w2 + b2``."""
    x, w1, b1, w2, b2 = _f64(x, w1, b1, w2, b2)
    return gelu(x @ w1 + b1) @ w2 + b2


__all__ = [
    "LAYERNORM_EPS", "RMSNORM_EPS", "attention", "conv2d", "gelu", "layernorm", "matmul",
    "mlp2", "rmsnorm", "softmax",
]  # fmt: skip
