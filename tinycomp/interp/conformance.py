"""Does a run-time value fit a static type? Checked for every result of every op.

The interpreter checks each value an op produces against the op's result type: an
``f16`` must be a numpy ``float16``, a ``tensor<4x?xf32>`` a float32 array of 4 rows, a
``memref<2x4xf32, strided<[8, 2], offset: ?>>`` a view with exactly those static sizes
and strides. A mismatch means the IR's types lie about what the op computes (or a
rule is wrong), and the oracle should say so at the op, not three ops later.

>>> import numpy as np
>>> from tinycomp.ir import RankedTensorType, f32, DYNAMIC
>>> t = RankedTensorType((4, DYNAMIC), f32)
>>> mismatch(np.zeros((4, 7), np.float32), t) is None
True
>>> mismatch(np.zeros((3, 7), np.float32), t)
'expected a tensor<4x?xf32>, got an array of shape 3x7'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.interp.errors import format_shape
from tinycomp.interp.memory import MemRefValue
from tinycomp.interp.numerics import dtype_of
from tinycomp.interp.tensors import is_tensor_value
from tinycomp.ir.attributes import StridedLayoutAttr
from tinycomp.ir.type_helpers import default_strides
from tinycomp.ir.types import (
    DYNAMIC,
    FloatType,
    IndexType,
    IntegerType,
    MemRefType,
    RankedTensorType,
    Type,
    VectorType,
)


def mismatch(value: Any, t: Type) -> str | None:
    """Why ``value`` cannot be a value of type ``t``, or ``None`` when it can.

    Scalars may also be arrays of the right dtype: inside a vectorized ``linalg.generic``
    body one "scalar" SSA value holds the values of all iteration points at once.
    """
    if isinstance(t, (IntegerType, IndexType, FloatType)):
        if not isinstance(value, (np.generic, np.ndarray)):
            return f"expected a {t} (numpy {dtype_of(t)}), got {type(value).__name__}"
        if value.dtype != dtype_of(t):
            return f"expected a {t} (numpy {dtype_of(t)}), got numpy {value.dtype}"
        return None
    if isinstance(t, (RankedTensorType, VectorType)):
        return _shaped_mismatch(value, t)
    if isinstance(t, MemRefType):
        return _memref_mismatch(value, t)
    return None  # types the interpreter does not model (tokens...): anything goes


def _shaped_mismatch(value: Any, t: RankedTensorType | VectorType) -> str | None:
    if not is_tensor_value(value):
        return f"expected a {t}, got {type(value).__name__}"
    if value.dtype != dtype_of(t):
        return f"expected a {t} (numpy {dtype_of(t)} elements), got numpy {value.dtype}"
    if not _shape_fits(value.shape, t.shape):
        return f"expected a {t}, got an array of shape {format_shape(value.shape)}"
    return None


def _shape_fits(actual: tuple[int, ...], expected: tuple[int | None, ...]) -> bool:
    if len(actual) != len(expected):
        return False
    return all(e is DYNAMIC or a == e for a, e in zip(actual, expected, strict=True))


def _memref_mismatch(value: Any, t: MemRefType) -> str | None:
    if not isinstance(value, MemRefValue):
        return f"expected a {t}, got {type(value).__name__}"
    if value.dtype != dtype_of(t):
        return f"expected a {t} (numpy {dtype_of(t)} elements), got numpy {value.dtype}"
    if not _shape_fits(value.sizes, t.shape):
        return f"expected a {t}, got a view of shape {format_shape(value.sizes)}"
    expected = static_layout(t)
    if expected is None:
        return None
    strides, offset = expected
    for axis, (want, got) in enumerate(zip(strides, value.strides, strict=True)):
        if want is not DYNAMIC and want != got and value.sizes[axis] != 1:
            return f"expected a {t}, got a view with strides {list(value.strides)}"
    if offset is not DYNAMIC and offset != value.offset:
        return f"expected a {t}, got a view with offset {value.offset}"
    return None


def static_layout(t: MemRefType) -> tuple[tuple[int | None, ...], int | None] | None:
    """The strides and offset a memref type promises (``None`` entries are dynamic), or
    ``None`` for a layout the interpreter does not check (a general affine map)."""
    if t.layout is None:
        return default_strides(t.shape), 0
    if isinstance(t.layout, StridedLayoutAttr):
        return t.layout.strides, t.layout.offset
    return None


__all__ = ["mismatch", "static_layout"]
