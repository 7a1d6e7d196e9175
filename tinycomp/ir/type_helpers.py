"""Questions about types that every pass asks: element type, shape, width, numpy dtype.

The helpers accept any type. Scalars behave like rank-0 shaped types, so
``element_type(f32) == f32`` and ``shape(f32) == ()``.

>>> from tinycomp.ir.types import RankedTensorType, bf16
>>> t = RankedTensorType((2, 3), bf16)
>>> element_type(t), shape(t), rank(t), is_float(element_type(t))
(FloatType(name='bf16'), (2, 3), 2, True)
>>> to_numpy_dtype(t)
dtype(bfloat16)
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from tinycomp.ir.types import (
    DYNAMIC,
    FloatType,
    IndexType,
    IntegerType,
    MemRefType,
    RankedTensorType,
    Shape,
    ShapedType,
    Type,
)

_FLOAT_DTYPES = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
_INT_DTYPES = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def element_type(t: Type) -> Type:
    """The element type of a shaped type, or the type itself for a scalar.

    >>> from tinycomp.ir.types import VectorType, f32, i32
    >>> element_type(VectorType((4,), i32)), element_type(f32)
    (IntegerType(width=32), FloatType(name='f32'))
    """
    return t.element_type if isinstance(t, ShapedType) else t


def shape(t: Type) -> Shape:
    """The shape of a shaped type; ``()`` for a scalar."""
    return t.shape if isinstance(t, ShapedType) else ()


def rank(t: Type) -> int:
    """The number of dimensions; 0 for a scalar."""
    return len(shape(t))


def is_float(t: Type) -> bool:
    """True for a float type (not for a vector of floats: ask ``element_type`` first)."""
    return isinstance(t, FloatType)


def is_integer(t: Type) -> bool:
    """True for a signless integer ``iN`` (``index`` is not one: ask ``is_index``)."""
    return isinstance(t, IntegerType)


def is_index(t: Type) -> bool:
    """True for ``index``."""
    return isinstance(t, IndexType)


def bitwidth(t: Type) -> int:
    """Bits of a scalar type; ``index`` counts as 64, as in MLIR's data layout default.

    >>> from tinycomp.ir.types import bf16, i1, index
    >>> bitwidth(i1), bitwidth(bf16), bitwidth(index)
    (1, 16, 64)
    """
    if isinstance(t, (IntegerType, FloatType)):
        return t.width
    if isinstance(t, IndexType):
        return 64
    raise TypeError(f"expected a scalar integer, index or float type, got {t}")


def byte_size(t: Type) -> int | None:
    """Bytes a value of shaped type ``t`` occupies: its elements times
    ``ceil(bitwidth / 8)`` each (an ``i1`` takes a byte); ``None`` when a size is dynamic.

    >>> from tinycomp.ir.types import MemRefType, RankedTensorType, bf16, f32, i1
    >>> byte_size(RankedTensorType((4, 8), f32)), byte_size(MemRefType((3,), bf16))
    (128, 6)
    >>> byte_size(RankedTensorType((None, 8), i1)) is None
    True
    """
    if not isinstance(t, ShapedType):
        raise TypeError(f"expected a tensor, memref or vector type, got {t}")
    if not t.has_static_shape:
        return None
    return t.num_elements * math.ceil(bitwidth(t.element_type) / 8)


def to_numpy_dtype(t: Type) -> np.dtype:
    """The numpy dtype holding values of ``t`` (or of its elements).

    ``i1`` maps to ``bool``, ``index`` to ``int64``, ``bf16`` to ``ml_dtypes.bfloat16``.

    >>> from tinycomp.ir.types import f16, i1, index
    >>> to_numpy_dtype(i1), to_numpy_dtype(index), to_numpy_dtype(f16)
    (dtype('bool'), dtype('int64'), dtype('float16'))
    """
    scalar = element_type(t)
    if isinstance(scalar, FloatType):
        return _FLOAT_DTYPES[scalar.name]
    if isinstance(scalar, IndexType):
        return np.dtype(np.int64)
    if isinstance(scalar, IntegerType):
        if scalar.width == 1:
            return np.dtype(np.bool_)
        if scalar.width in _INT_DTYPES:
            return np.dtype(_INT_DTYPES[scalar.width])
    raise TypeError(f"expected i1, i8, i16, i32, i64, index or a float type, got {t}")


def shapes_compatible(a: Shape, b: Shape) -> bool:
    """Same rank, and equal sizes wherever both are static (MLIR's
    ``verifyCompatibleShape``): what ``tensor.cast``, ``memref.cast`` and
    ``memref.copy`` ask of their two types.

    >>> shapes_compatible((4, None), (None, 8)), shapes_compatible((4,), (8,))
    (True, False)
    """
    return len(a) == len(b) and all(
        x is DYNAMIC or y is DYNAMIC or x == y for x, y in zip(a, b, strict=True)
    )


def default_strides(dims: Shape) -> tuple[int | None, ...]:
    """Row-major strides of a contiguous buffer with shape ``dims``.

    A stride is ``DYNAMIC`` as soon as a later dimension is dynamic.

    >>> default_strides((4, 8)), default_strides((4, DYNAMIC, 8)), default_strides(())
    ((8, 1), (None, 8, 1), ())
    """
    strides: list[int | None] = []
    running: int | None = 1
    for size in reversed(dims):
        strides.append(running)
        if running is not DYNAMIC and size is not DYNAMIC:
            running = running * size
        else:
            running = DYNAMIC
    return tuple(reversed(strides))


def strides_and_offset(t: MemRefType) -> tuple[tuple[int | None, ...], int | None]:
    """The strides and offset of a memref with an identity or a strided layout.

    >>> from tinycomp.ir.attributes import StridedLayoutAttr
    >>> from tinycomp.ir.types import f32
    >>> strides_and_offset(MemRefType((4, 8), f32))
    ((8, 1), 0)
    >>> strides_and_offset(MemRefType((4, 8), f32, StridedLayoutAttr((16, 1), DYNAMIC)))
    ((16, 1), None)
    """
    from tinycomp.ir.attributes import StridedLayoutAttr

    if t.layout is None:
        return default_strides(t.shape), 0
    if isinstance(t.layout, StridedLayoutAttr):
        return t.layout.strides, t.layout.offset
    raise ValueError(f"expected an identity or strided layout, got {t}")


def with_element_type(t: Type, new_element: Type) -> Type:
    """``t`` with its element type replaced (``t`` itself replaced for a scalar).

    >>> from tinycomp.ir.types import bf16, f32
    >>> print(with_element_type(RankedTensorType((4,), f32), bf16))
    tensor<4xbf16>
    """
    if isinstance(t, RankedTensorType):
        return RankedTensorType(t.shape, new_element)
    if isinstance(t, MemRefType):
        return MemRefType(t.shape, new_element, t.layout, t.memory_space)
    if isinstance(t, ShapedType):
        return type(t)(t.shape, new_element)
    return new_element
