"""The memref types bufferization creates, and the small IR snippets that need them.

A tensor becomes a memref of the same shape and element type. Which *layout* depends on
where the memory comes from:

* a new buffer (``memref.alloc``) or a function argument: the identity layout,
  ``tensor<4x8xf32>`` -> ``memref<4x8xf32>`` (row-major; what MLIR's
  ``function-boundary-type-conversion=identity-layout-map`` gives);
* a window of another buffer (``tensor.extract_slice`` -> ``memref.subview``): a strided
  layout computed from the source's strides, exactly as MLIR prints it,
  ``memref<?x7xf32, strided<[7, 1], offset: ?>>``; a rank-reducing slice drops the
  unit dimensions (and their strides) from it.

>>> from tinycomp.ir import MemRefType, RankedTensorType, f32
>>> print(memref_type_for(RankedTensorType((4, 8), f32)))
memref<4x8xf32>
>>> print(subview_result_type(MemRefType((10, 7), f32), [None, 0], [None, 7], [1, 1], (None, 7)))
memref<?x7xf32, strided<[7, 1], offset: ?>>
>>> print(subview_result_type(MemRefType((10, 7), f32), [2, 0], [1, 7], [1, 1], (7,)))
memref<7xf32, strided<[1], offset: 14>>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.memref.access import DimOp
from tinycomp.dialects.memref.alloc import AllocOp
from tinycomp.dialects.memref.layout import subview_type
from tinycomp.ir.attributes import StridedLayoutAttr
from tinycomp.ir.builder import Builder
from tinycomp.ir.type_helpers import byte_size, strides_and_offset
from tinycomp.ir.types import DYNAMIC, MemRefType, RankedTensorType, Shape, ShapedType, index
from tinycomp.ir.values import Value

__all__ = [
    "alloc_like",
    "buffer_bytes",
    "kept_dimensions",
    "memref_type_for",
    "subview_result_type",
]


def memref_type_for(tensor_type: RankedTensorType) -> MemRefType:
    """The identity-layout memref type of a tensor type (same shape and element type)."""
    return MemRefType(tensor_type.shape, tensor_type.element_type)


def kept_dimensions(full_shape: Shape, result_shape: Shape) -> list[int]:
    """Which dimensions of ``full_shape`` a rank-reduced slice of shape ``result_shape``
    keeps: left to right, keep a dimension when it matches the next result dimension,
    else drop it (it must be a unit dimension); a unit dimension is also dropped when
    keeping it would leave too few result dimensions for the sizes after it. This is
    the choice the interpreter makes for ``memref.subview`` too.

    >>> kept_dimensions((1, 4, 1, 8), (4, 8)), kept_dimensions((1, 1, 4), (1, 4))
    ([1, 3], [0, 2])
    """
    kept: list[int] = []
    position = 0
    for axis, size in enumerate(full_shape):
        remaining = len(result_shape) - position
        non_unit_after = sum(1 for s in full_shape[axis + 1 :] if s != 1)
        matches = position < len(result_shape) and result_shape[position] == size
        must_drop = size == 1 and non_unit_after >= remaining
        if matches and not must_drop:
            kept.append(axis)
            position += 1
        elif size != 1:
            raise ValueError(f"cannot drop dimension {axis} of size {size} to get {result_shape}")
    if position != len(result_shape):
        raise ValueError(f"cannot reduce {full_shape} to {result_shape}")
    return kept


def subview_result_type(
    source: MemRefType,
    offsets: Sequence[int | None],
    sizes: Sequence[int | None],
    strides: Sequence[int | None],
    result_shape: Shape,
) -> MemRefType:
    """The type of ``memref.subview`` of ``source`` (``None`` marks a dynamic entry),
    rank-reduced to ``result_shape`` when it has fewer dimensions than ``sizes``."""
    full = subview_type(source, offsets, sizes, strides)
    if len(result_shape) == full.rank:
        return full
    full_strides, offset = strides_and_offset(full)
    kept = kept_dimensions(full.shape, result_shape)
    layout = StridedLayoutAttr(tuple(full_strides[axis] for axis in kept), offset)
    return MemRefType(tuple(result_shape), full.element_type, layout, full.memory_space)


def alloc_like(builder: Builder, shaped_type: ShapedType, like: Value | None) -> Value:
    """Insert ``memref.alloc`` of an identity-layout buffer shaped like ``shaped_type``;
    its dynamic sizes are read from the buffer ``like`` with ``memref.dim``.

    >>> from tinycomp.ir import Block, f32
    >>> block = Block([MemRefType((None, 4), f32)])
    >>> new = alloc_like(Builder.at_end(block), RankedTensorType((None, 4), f32),
    ...                  block.arguments[0])
    >>> [op.name for op in block.ops], str(new.type)
    (['arith.constant', 'memref.dim', 'memref.alloc'], 'memref<?x4xf32>')
    """
    memref_type = MemRefType(shaped_type.shape, shaped_type.element_type)
    dynamic_sizes = []
    for axis, size in enumerate(shaped_type.shape):
        if size is not DYNAMIC:
            continue
        if like is None:
            raise ValueError(f"a buffer of type {shaped_type} needs its dynamic sizes")
        axis_value = builder.insert(ConstantOp.build(axis, index)).result
        dynamic_sizes.append(builder.insert(DimOp.build(like, axis_value)).result)
    return builder.insert(AllocOp.build(memref_type, dynamic_sizes)).result


def buffer_bytes(memref_type: ShapedType) -> int | None:
    """Bytes of a buffer of this type (``None`` when a dimension is dynamic).

    >>> from tinycomp.ir import f16
    >>> buffer_bytes(MemRefType((4, 8), f16)), buffer_bytes(MemRefType((None, 8), f16))
    (64, None)
    """
    return byte_size(memref_type)
