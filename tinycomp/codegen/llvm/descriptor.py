"""The memref descriptor: how a ``memref`` becomes LLVM values.

LLVM has pointers, not multi-dimensional arrays with shapes and strides. MLIR lowers
a ranked ``memref<?x8xf32>`` to a *descriptor*, a struct of five fields::

    { ptr allocated,     // what malloc returned: what free must get back
      ptr aligned,       // where the data starts, aligned as requested
      i64 offset,        // in elements, from aligned to element [0, 0]
      [2 x i64] sizes,   // 4, 8
      [2 x i64] strides } // 8, 1   (in elements)

and element ``[i, j]`` is at ``aligned + offset + i * strides[0] + j * strides[1]``
(``getelementptr float, ptr %aligned, i64 %linear``). A view (``memref.subview``)
is a new descriptor over the same pointers: only offset, sizes and strides change.

At a function boundary MLIR passes the fields one by one (the "unpacked" calling
convention of ``-convert-func-to-llvm``): ``memref<?x8xf32>`` becomes the parameters
``(ptr, ptr, i64, i64, i64, i64, i64)``. tinycomp uses exactly this ABI, so its
functions can be called like MLIR's.

Where tinycomp simplifies: MLIR keeps the struct as one SSA value inside a function
(``llvm.insertvalue`` / ``llvm.extractvalue`` on ``!llvm.struct<...>``) and lets
LLVM's SROA pass break it up; tinycomp breaks it up while emitting, keeping one
LLVM operand text per field. Fields the memref type knows statically (the 8 in
``memref<?x8xf32>``, the strides of an identity layout) are used as constants, as
MLIR's lowering of loads and stores does, so the address arithmetic folds at once.

>>> from tinycomp.ir import MemRefType, f32
>>> d = MemRefDescriptor.from_parts(MemRefType((None, 8), f32), "ptr",
...     ["%A.allocated", "%A.aligned", "%A.offset", "%A.size0", "%A.size1",
...      "%A.stride0", "%A.stride1"])
>>> d.offset, d.sizes, d.strides
('0', ['%A.size0', '8'], ['8', '1'])
>>> [type_ for type_, _ in d.parts()]
['ptr', 'ptr', 'i64', 'i64', 'i64', 'i64', 'i64']
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.codegen.errors import CodegenError
from tinycomp.ir.type_helpers import strides_and_offset
from tinycomp.ir.types import DYNAMIC, MemRefType

__all__ = ["MemRefDescriptor", "descriptor_part_names", "descriptor_part_types"]


def descriptor_part_names(rank: int) -> list[str]:
    """The suffixes of the fields, in ABI order: how parameters get their names.

    >>> descriptor_part_names(2)
    ['allocated', 'aligned', 'offset', 'size0', 'size1', 'stride0', 'stride1']
    """
    sizes = [f"size{d}" for d in range(rank)]
    strides = [f"stride{d}" for d in range(rank)]
    return ["allocated", "aligned", "offset", *sizes, *strides]


def descriptor_part_types(rank: int, pointer: str) -> list[str]:
    """The LLVM types of the fields, in ABI order: two pointers, then ``1 + 2 * rank``
    ``i64``s.

    >>> descriptor_part_types(1, "ptr addrspace(3)")
    ['ptr addrspace(3)', 'ptr addrspace(3)', 'i64', 'i64', 'i64']
    """
    return [pointer, pointer, *["i64"] * (1 + 2 * rank)]


@dataclass
class MemRefDescriptor:
    """A memref as LLVM operand texts, one per descriptor field.

    >>> from tinycomp.ir import MemRefType, f16
    >>> d = MemRefDescriptor.with_static_fields(
    ...     MemRefType((4, 8), f16), "ptr", "%p", "%p", "%off", ["%n", "%m"], ["%s", "%t"])
    >>> d.offset, d.sizes, d.strides  # all known from memref<4x8xf16>
    ('0', ['4', '8'], ['8', '1'])
    """

    type: MemRefType
    """The memref type (static sizes, strides and offset come from it)."""
    pointer: str
    """The LLVM type of the two pointers (``ptr``, or ``ptr addrspace(N)``)."""
    allocated: str
    """The pointer ``free`` needs."""
    aligned: str
    """The pointer the element addresses start from."""
    offset: str
    """Elements from ``aligned`` to the first element."""
    sizes: list[str]
    """The size of each dimension."""
    strides: list[str]
    """The stride of each dimension, in elements."""

    @classmethod
    def from_parts(
        cls, memref_type: MemRefType, pointer: str, texts: list[str]
    ) -> MemRefDescriptor:
        """The descriptor of values given in ABI order (function parameters, phis, call
        results); whatever the type knows statically replaces the run-time value."""
        rank = memref_type.rank
        if len(texts) != 3 + 2 * rank:
            raise CodegenError(
                f"expected {3 + 2 * rank} descriptor fields for {memref_type}, got {len(texts)}"
            )
        allocated, aligned, offset = texts[:3]
        sizes = list(texts[3 : 3 + rank])
        strides = list(texts[3 + rank :])
        return cls.with_static_fields(
            memref_type, pointer, allocated, aligned, offset, sizes, strides
        )

    @classmethod
    def with_static_fields(
        cls,
        memref_type: MemRefType,
        pointer: str,
        allocated: str,
        aligned: str,
        offset: str,
        sizes: list[str],
        strides: list[str],
    ) -> MemRefDescriptor:
        """A descriptor whose statically known fields are the type's constants."""
        try:
            static_strides, static_offset = strides_and_offset(memref_type)
        except ValueError:
            raise CodegenError(
                f"expected a memref with an identity or strided layout, got {memref_type}"
            ) from None
        sizes = [
            str(static) if static is not DYNAMIC else text
            for static, text in zip(memref_type.shape, sizes, strict=True)
        ]
        strides = [
            str(static) if static is not DYNAMIC else text
            for static, text in zip(static_strides, strides, strict=True)
        ]
        if static_offset is not DYNAMIC:
            offset = str(static_offset)
        return cls(memref_type, pointer, allocated, aligned, offset, sizes, strides)

    def parts(self) -> list[tuple[str, str]]:
        """``(llvm type, operand text)`` per field, in ABI order."""
        texts = [self.allocated, self.aligned, self.offset, *self.sizes, *self.strides]
        types = descriptor_part_types(self.type.rank, self.pointer)
        return list(zip(types, texts, strict=True))
