"""memref: new types for the same memory: ``cast`` and ``view``.

``memref.cast`` trades static for dynamic information (or back) in a type that
describes the same buffer, ``memref<4xf32>`` to ``memref<?xf32>``; the sizes, strides
and offset must agree wherever both types know them. ``memref.view`` carves a typed,
row-major buffer out of raw bytes (``memref<Nxi8>``) at a byte offset, the way a
shared-memory arena is split into tiles::

    %tile = memref.view %arena[%shift][] : memref<2048xi8> to memref<16x16xf32>

Operands of ``memref.view``: ``[source, byte_shift, *dynamic_sizes]``.

>>> from tinycomp.ir import Block, MemRefType, f32
>>> A = Block([MemRefType((4,), f32)]).arguments[0]
>>> print(CastOp.build(A, MemRefType((None,), f32)).result.type)
memref<?xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.shaped_ops import ShapedCastOp
from tinycomp.dialects.common.syntax import (
    check_dynamic_sizes,
    parse_type_pair,
    print_type_pair,
)
from tinycomp.dialects.memref.alloc import check_memref
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import shapes_compatible, strides_and_offset
from tinycomp.ir.types import DYNAMIC, IntegerType, MemRefType, index
from tinycomp.ir.values import Value


class ViewOp(Operation):
    """A typed view of a byte buffer at a byte offset:
    ``%v = memref.view %bytes[%shift][%n] : memref<2048xi8> to memref<?x4xf32>``.
    Operands: ``[source, byte_shift, *sizes]`` (one size per ``?`` of the result)."""

    name = "memref.view"
    view_source = 0
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(
        cls, source: Value, byte_shift: Value, sizes: Sequence[Value], result_type: MemRefType
    ) -> ViewOp:
        """View ``source``'s bytes from ``byte_shift`` on as ``result_type``."""
        return cls([source, byte_shift, *sizes], [result_type])

    @property
    def source(self) -> Value:
        """The ``i8`` buffer."""
        return self.operands[0]

    @property
    def byte_shift(self) -> Value:
        """Where the view starts, in bytes."""
        return self.operands[1]

    @property
    def sizes(self) -> tuple[Value, ...]:
        """The dynamic sizes of the result."""
        return self.operands[2:]

    def asm_result_names(self) -> list[str]:
        """``%view``, as MLIR names it."""
        return ["view"]

    def verify_op(self) -> None:
        if len(self.operands) < 2:
            raise self.error("expected a source and a byte shift")
        source = check_memref(self, self.source.type, "the source")
        result = check_memref(self, self.result.type, "the result")
        if source.rank != 1 or source.element_type != IntegerType(8) or source.layout is not None:
            raise self.error(f"expected a 1-d i8 source with an identity layout, got {source}")
        if result.layout is not None:
            raise self.error(f"expected a result with an identity layout, got {result}")
        if source.memory_space != result.memory_space:
            raise self.error(f"expected the memory space of the source ({source}), got {result}")
        check_dynamic_sizes(self, result, self.sizes)
        if self.byte_shift.type != index:
            raise self.error(f"expected an index byte shift, got {self.byte_shift.type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write("[")
        printer.print_operand(self.byte_shift)
        printer.write("][")
        printer.print_operands(self.sizes)
        printer.write("]")
        printer.print_attr_dict(self.attributes)
        print_type_pair(printer, self.source.type, self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        parser.parse_punct("[")
        shift = parser.parse_operand()
        parser.parse_punct("]")
        parser.parse_punct("[")
        sizes = parser.parse_operand_list()
        parser.parse_punct("]")
        attributes = parser.parse_optional_attr_dict()
        source_type, result_type = parse_type_pair(parser)
        names = [shift, *sizes]
        operands = [parser.resolve_operand(source, source_type)]
        operands += parser.resolve_operands(names, [index] * len(names))
        return cls(operands, [result_type], attributes)


class CastOp(ShapedCastOp):
    """Change static information in a memref type (a size or stride becomes known or
    unknown): ``%c = memref.cast %A : memref<4xf32> to memref<?xf32>``."""

    name = "memref.cast"
    view_source = 0
    container_type = MemRefType
    container_name = "a memref"

    def are_cast_compatible(self, source: MemRefType, result: MemRefType) -> bool:
        """See ``cast_compatible``."""
        return cast_compatible(source, result)


def cast_compatible(a: MemRefType, b: MemRefType) -> bool:
    """Same element type, rank and memory space, and every size, stride and offset equal
    or dynamic on one side (MLIR's ``CastOp::areCastCompatible``).

    >>> from tinycomp.ir import f32
    >>> cast_compatible(MemRefType((4,), f32), MemRefType((None,), f32))
    True
    """
    if a.element_type != b.element_type or a.memory_space != b.memory_space:
        return False
    if not shapes_compatible(a.shape, b.shape):
        return False
    if a.layout != b.layout:
        try:
            a_strides, a_offset = strides_and_offset(a)
            b_strides, b_offset = strides_and_offset(b)
        except ValueError:
            return False
        pairs = [(a_offset, b_offset), *zip(a_strides, b_strides, strict=True)]
        if not all(x is DYNAMIC or y is DYNAMIC or x == y for x, y in pairs):
            return False
    return True


__all__ = ["CastOp", "ViewOp", "cast_compatible"]
