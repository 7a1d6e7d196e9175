"""Slices: the ``[offsets] [sizes] [strides]`` of ``memref.subview`` and
``tensor.extract_slice``/``insert_slice``, checked and turned into numpy indices.

A slice picks, along each dimension ``d``, the indices
``offsets[d] + k * strides[d]`` for ``k < sizes[d]``. It must stay inside the source
(MLIR's runtime verification checks the same). The result may be *rank-reduced*: unit
dimensions of ``sizes`` may be dropped to match the result type, e.g. a ``[1, 8]``
slice giving a ``tensor<8xf32>``.

>>> import numpy as np
>>> from tinycomp.ir import Operation
>>> op = Operation.create("test.op")
>>> rows, cols = slice_index_arrays(op, (4, 8), [1, 0], [2, 4], [1, 2], "%t")
>>> np.arange(32).reshape(4, 8)[np.ix_(rows, cols)]
array([[ 8, 10, 12, 14],
       [16, 18, 20, 22]])
>>> dropped_unit_dims(op, [1, 8], (8,))
[0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tinycomp.interp.errors import format_shape, op_error
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC


def check_slice(
    op: Operation,
    source_shape: Sequence[int],
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    what: str,
) -> None:
    """Raise unless the slice has one entry per dimension and stays inside the source."""
    rank = len(source_shape)
    if not len(offsets) == len(sizes) == len(strides) == rank:
        raise op_error(
            op,
            f"expected {rank} offsets, sizes and strides for {what} (shape "
            f"{format_shape(source_shape)}), got {len(offsets)}, {len(sizes)}, {len(strides)}",
        )
    for axis in range(rank):
        offset, size, stride = offsets[axis], sizes[axis], strides[axis]
        if size < 0:
            raise op_error(op, f"expected sizes >= 0, got {list(sizes)}")
        if size == 0:
            continue
        last = offset + (size - 1) * stride
        if not (0 <= offset < source_shape[axis] and 0 <= last < source_shape[axis]):
            raise op_error(
                op,
                f"the slice offsets {list(offsets)} sizes {list(sizes)} strides "
                f"{list(strides)} is out of bounds for {what} (shape "
                f"{format_shape(source_shape)}): dimension {axis} reaches {offset}..{last}, "
                f"expected 0..{source_shape[axis] - 1}",
            )


def slice_index_arrays(
    op: Operation,
    source_shape: Sequence[int],
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    what: str,
) -> list[np.ndarray]:
    """One index array per dimension (for ``np.ix_``), after ``check_slice``."""
    check_slice(op, source_shape, offsets, sizes, strides, what)
    return [
        offset + np.arange(size, dtype=np.int64) * stride
        for offset, size, stride in zip(offsets, sizes, strides, strict=True)
    ]


def dropped_unit_dims(
    op: Operation, sizes: Sequence[int], result_shape: Sequence[int | None]
) -> list[int]:
    """Which unit dimensions of ``sizes`` a rank-reduced result drops (left to right:
    keep a dimension when it matches the next result dimension, else drop it if it is
    1). Raises when ``result_shape`` cannot be obtained that way."""
    dropped, position = [], 0
    for axis, size in enumerate(sizes):
        wanted = result_shape[position] if position < len(result_shape) else None
        keeps = position < len(result_shape) and (wanted is DYNAMIC or wanted == size)
        if keeps and not (size == 1 and _must_drop(sizes, axis, result_shape, position)):
            position += 1
        elif size == 1:
            dropped.append(axis)
        else:
            raise op_error(
                op,
                f"expected a result shape that drops unit dims of {list(sizes)}, got "
                f"{list(result_shape)}",
            )
    if position != len(result_shape):
        raise op_error(op, f"expected a result of rank {position}, got {list(result_shape)}")
    return dropped


def _must_drop(
    sizes: Sequence[int], axis: int, result_shape: Sequence[int | None], position: int
) -> bool:
    """A unit dimension must be dropped when keeping it would leave more non-unit
    dimensions of ``sizes`` than result dimensions to hold them."""
    non_unit_after = sum(1 for size in sizes[axis + 1 :] if size != 1)
    return non_unit_after > len(result_shape) - position - 1


__all__ = ["check_slice", "dropped_unit_dims", "slice_index_arrays"]
