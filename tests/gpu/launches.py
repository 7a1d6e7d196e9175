"""How to launch each kernel of ``tests/frontend/simt/kernels.py`` and what numpy says it
computes: the grid and block for its arguments, and the expected final arrays."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from frontend.simt import kernels

Arrays = dict[int, np.ndarray]
"""Argument position -> the array expected there after the launch."""


@dataclass(frozen=True)
class Launch:
    """One kernel's launch: its shape for given arguments, and numpy's answer."""

    grid: Callable[[tuple], int | tuple[int, ...]]
    block: int | tuple[int, ...]
    expected: Callable[[tuple], Arrays]
    exact: bool = True
    """Bit-exact (no float reassociation), or compared with a tolerance."""


def redrawn(args: tuple, seed: int) -> tuple:
    """``args`` with every input (nonzero) array drawn again at random, same shapes and
    dtypes; zero arrays (outputs) stay zero."""
    rng = np.random.default_rng(seed)
    out = []
    for a in args:
        if isinstance(a, np.ndarray) and a.any():
            if a.dtype.kind == "f":
                a = rng.standard_normal(a.shape).astype(a.dtype)
            else:
                a = rng.integers(0, 10_000, a.shape).astype(a.dtype)
        elif isinstance(a, np.ndarray):
            a = np.zeros_like(a)
        out.append(a)
    return tuple(out)


def _per_chunk(values: np.ndarray, size: int, reduce: Callable) -> np.ndarray:
    padded = np.zeros(math.ceil(len(values) / size) * size, values.dtype)
    padded[: len(values)] = values
    return reduce(padded.reshape(-1, size))


def _scan(x: np.ndarray) -> np.ndarray:
    return _per_chunk(x, 32, lambda rows: np.cumsum(rows, axis=1).reshape(-1))[: len(x)]


LAUNCHES: dict[str, Launch] = {
    "saxpy": Launch(lambda a: math.ceil(int(a[3]) / 256), 256, lambda a: {2: a[0] * a[1] + a[2]}),
    "matmul_naive": Launch(
        lambda a: (math.ceil(a[2].shape[1] / 16), math.ceil(a[2].shape[0] / 16)),
        (16, 16),
        lambda a: {2: a[0] @ a[1]},
        exact=False,
    ),
    "matmul_tiled": Launch(
        lambda a: (math.ceil(a[2].shape[1] / 16), math.ceil(a[2].shape[0] / 16)),
        (kernels.TILE, kernels.TILE),
        lambda a: {2: a[0] @ a[1]},
        exact=False,
    ),
    "warp_reduce": Launch(
        lambda a: math.ceil(int(a[2]) / 256),
        256,
        lambda a: {1: np.r_[a[0].sum(dtype=np.float64), a[1][1:]].astype(np.float32)},
        exact=False,
    ),
    "block_reduce": Launch(
        lambda a: math.ceil(int(a[2]) / 256),
        256,
        lambda a: {1: _per_chunk(a[0], 256, lambda rows: rows.sum(axis=1))},
        exact=False,
    ),
    "transpose": Launch(
        lambda a: (math.ceil(a[0].shape[1] / 32), math.ceil(a[0].shape[0] / 32)),
        (32, 8),
        lambda a: {1: a[0].T},
    ),
    "histogram": Launch(
        lambda a: math.ceil(int(a[2]) / 256),
        256,
        lambda a: {1: np.bincount(a[0] % kernels.BINS, minlength=kernels.BINS).astype(np.int32)},
    ),
    "warp_inclusive_scan": Launch(
        lambda a: math.ceil(int(a[2]) / 64), 64, lambda a: {1: _scan(a[0])}, exact=False
    ),
    "ballot_count": Launch(
        lambda a: math.ceil(int(a[2]) / 64),
        64,
        lambda a: {1: _per_chunk((a[0] > 0).astype(np.int32), 32, lambda r: r.sum(axis=1))},
    ),
    "float4_copy": Launch(lambda a: a[0].shape[0], 16, lambda a: {1: a[0]}),
    "relu_early_exit": Launch(
        lambda a: math.ceil(int(a[2]) / 128), 128, lambda a: {1: np.maximum(a[0], 0)}
    ),
}
"""Every kernel of ``kernels.KERNELS``, by name."""
