"""The NZ (fractal) layout the cube reads its operands in, and its conversions to and
from row-major ND.

The cube multiplies *fractals*: blocks of ``m0 x n0`` elements, 512 bytes each, stored
contiguously. A row-major matrix ``[..., m, n]`` (ND) is cut into such blocks; NZ keeps
them column of blocks by column of blocks ("N" order between fractals), each one row
by row ("Z" inside), as ``[..., n1, m1 * m0, n0]``:

* ``m0 = 16`` rows in a fractal, ``n0 = 32 bytes / element size`` columns (16 for fp16,
  32 for int8, 8 for fp32): one fractal row is one 32-byte block;
* ``m`` is padded up to a multiple of ``m0`` and ``n`` to a multiple of ``n0`` (with
  zeros), ``n1 = n_padded / n0``;
* element ``[..., i, j]`` of ND lands at ``[..., j // n0, i, j % n0]`` of NZ.

The Ascend documentation's example: ND ``{8, 100, 30}`` in fp16 is NZ ``{8, 2, 112, 16}``.

>>> import numpy as np
>>> nz_shape((8, 100, 30), np.float16)
(8, 2, 112, 16)
>>> x = np.arange(3 * 20, dtype=np.float16).reshape(3, 20)
>>> nz = to_nz(x)
>>> nz.shape, float(nz[1, 2, 3]) == float(x[2, 16 + 3])
((2, 16, 16), True)
>>> bool((from_nz(nz, x.shape) == x).all())
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["FRACTAL_BYTES", "M0", "fractal_columns", "from_nz", "nz_shape", "to_nz"]

M0 = 16
"""Rows of a fractal."""
BLOCK_BYTES = 32
"""One fractal row: a 32-byte block."""
FRACTAL_BYTES = M0 * BLOCK_BYTES
"""512: the bytes of one fractal, what the cube reads at a time."""


def fractal_columns(dtype: np.dtype | type) -> int:
    """``n0``: the columns of a fractal for elements of ``dtype`` (32 bytes of them).

    >>> fractal_columns(np.float16), fractal_columns(np.int8), fractal_columns(np.float32)
    (16, 32, 8)
    """
    size = np.dtype(dtype).itemsize
    if size not in (1, 2, 4):
        raise ValueError(f"NZ layout: expected elements of 1, 2 or 4 bytes, got {np.dtype(dtype)}")
    return BLOCK_BYTES // size


def _padded(size: int, multiple: int) -> int:
    return -(-size // multiple) * multiple


def nz_shape(
    shape: tuple[int, ...], dtype: np.dtype | type, columns: int | None = None
) -> tuple[int, ...]:
    """The NZ shape ``[..., n1, m1 * m0, n0]`` of an ND matrix of ``shape``; ``columns``
    sets ``n0`` (the cube's f32 results in L0C use 16x16 fractals: ``columns=16``).

    >>> nz_shape((17, 9), np.float32)
    (2, 32, 8)
    """
    if len(shape) < 2:
        raise ValueError(f"NZ layout: expected a matrix (rank 2 or more), got shape {shape}")
    *batch, m, n = shape
    n0 = fractal_columns(dtype) if columns is None else columns
    return (*batch, _padded(n, n0) // n0, _padded(m, M0), n0)


def to_nz(matrix: np.ndarray, columns: int | None = None) -> np.ndarray:
    """``matrix`` (ND, ``[..., m, n]``) in the NZ layout, zero-padded (module docstring)."""
    *batch, m, n = matrix.shape
    n1, mp, n0 = nz_shape(matrix.shape, matrix.dtype, columns)[-3:]
    padded = np.zeros((*batch, mp, n1 * n0), matrix.dtype)
    padded[..., :m, :n] = matrix
    blocks = padded.reshape(*batch, mp, n1, n0)
    return np.ascontiguousarray(np.moveaxis(blocks, -2, -3))


def from_nz(nz: np.ndarray, shape: tuple[int, ...], columns: int | None = None) -> np.ndarray:
    """The ND matrix of ``shape`` held in ``nz`` (the padding cropped away).

    >>> from_nz(np.zeros((2, 16, 16), np.float16), (10, 20)).shape
    (10, 20)
    """
    expected = nz_shape(shape, nz.dtype, columns)
    if tuple(nz.shape) != expected:
        raise ValueError(
            f"NZ layout: an ND matrix of shape {tuple(shape)} in {nz.dtype} is NZ {expected}, "
            f"got {tuple(nz.shape)}"
        )
    *batch, n1, mp, n0 = nz.shape
    rows = np.moveaxis(nz, -3, -2).reshape(*batch, mp, n1 * n0)
    return np.ascontiguousarray(rows[..., : shape[-2], : shape[-1]])
