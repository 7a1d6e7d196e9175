"""Operand segments: how an op with several variadic operand groups says where each
group starts.

``memref.subview %a[%i, 2] [%n, 4] [1, 1]`` has one operand list ``(%a, %i, %n)`` but
four groups (source, dynamic offsets, sizes, strides). MLIR records the group lengths
in the attribute ``operandSegmentSizes = array<i32: 1, 1, 1, 0>``; the generic form
prints it, the custom form leaves it out. scf.parallel, memref.alloc, memref.subview,
memref.reinterpret_cast and affine.for use it.

>>> from tinycomp.ir import Operation, Block, index
>>> a, b, c = Block([index] * 3).arguments
>>> op = Operation.create("t.op", [a, b, c], attributes={SEGMENTS: segment_sizes(1, 0, 2)})
>>> segment(op, 2) == (b, c)
True
"""

from __future__ import annotations

from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import i32
from tinycomp.ir.values import Value

SEGMENTS = "operandSegmentSizes"
"""The attribute holding the operand group lengths."""


def segment_sizes(*sizes: int) -> DenseArrayAttr:
    """``array<i32: 1, 1, 1, 0>``, a value of ``operandSegmentSizes``.

    >>> print(segment_sizes(1, 0))
    array<i32: 1, 0>
    """
    return DenseArrayAttr(i32, sizes)


def segment(op: Operation, position: int) -> tuple[Value, ...]:
    """The operands of group ``position`` (the op must have valid segments)."""
    sizes = op.attributes[SEGMENTS].values
    start = sum(sizes[:position])
    return op.operands[start : start + sizes[position]]


def check_segments(op: Operation, groups: int) -> tuple[int, ...]:
    """Verify that ``operandSegmentSizes`` has ``groups`` non-negative entries adding up
    to the operand count; return the entries."""
    sizes = op.attributes.get(SEGMENTS)
    if not (isinstance(sizes, DenseArrayAttr) and str(sizes.element_type) == "i32"):
        raise op.error(f"expected '{SEGMENTS}' as an array<i32: ...>, got {sizes}")
    if len(sizes) != groups:
        raise op.error(f"expected '{SEGMENTS}' with {groups} entries, got {sizes}")
    if min(sizes.values, default=0) < 0 or sum(sizes.values) != len(op.operands):
        raise op.error(
            f"expected '{SEGMENTS}' to add up to the {len(op.operands)} operands, got {sizes}"
        )
    return sizes.values


__all__ = ["SEGMENTS", "check_segments", "segment", "segment_sizes"]
