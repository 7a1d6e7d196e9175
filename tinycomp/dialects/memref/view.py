"""memref: strided views of a buffer without copying: ``subview``, ``reinterpret_cast``.

A view is a new memref type over the same memory. ``memref.subview`` is the workhorse of
tiling: it takes a rectangular, possibly strided window, and the result type says where
the window's elements are (``memref_layout.subview_type``)::

    %tile = memref.subview %A[%i, %j] [4, 4] [1, 1]
        : memref<64x64xf32> to memref<4x4xf32, strided<[64, 1], offset: ?>>

Offsets, sizes and strides mix constants and SSA values; both ops share their storage
(``static_offsets``/``static_sizes``/``static_strides`` and ``operandSegmentSizes``),
checks and syntax with ``tensor.extract_slice`` through ``OffsetsSizesStridesOp``
(``offsets_sizes_strides.py``). The verifier checks the claimed result type against the
inferred one, allowing dropped unit dimensions (a "rank-reduced" subview), as MLIR does.

>>> from tinycomp.ir import Block, MemRefType, f32
>>> A = Block([MemRefType((64, 64), f32)]).arguments[0]
>>> print(SubViewOp.build(A, [8, 0], [4, 4], [1, 2]).result.type)
memref<4x4xf32, strided<[64, 2], offset: 512>>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.mixed_indices import MixedIndex, static_shape
from tinycomp.dialects.common.offsets_sizes_strides import OffsetsSizesStridesOp
from tinycomp.dialects.common.syntax import parse_type_pair, print_type_pair
from tinycomp.dialects.memref.alloc import check_memref
from tinycomp.dialects.memref.layout import rank_reduction_problem, subview_type
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import strides_and_offset
from tinycomp.ir.types import DYNAMIC, MemRefType
from tinycomp.ir.values import Value


class SubViewOp(OffsetsSizesStridesOp):
    """A strided window of a memref:
    ``%v = memref.subview %A[%i, 0] [4, 8] [1, 1] : memref<?x8xf32> to
    memref<4x8xf32, strided<[8, 1], offset: ?>>``."""

    name = "memref.subview"
    view_source = 0

    @classmethod
    def build(
        cls,
        source: Value,
        offsets: Sequence[MixedIndex],
        sizes: Sequence[MixedIndex],
        strides: Sequence[MixedIndex],
        result_type: MemRefType | None = None,
    ) -> SubViewOp:
        """The window ``offsets + [0, sizes) * strides`` of ``source``; the result type
        is inferred unless given (give a rank-reduced one to drop unit dimensions)."""
        if result_type is None:
            if not isinstance(source.type, MemRefType):
                raise ValueError(f"expected a memref source, got {source.type}")
            statics = [static_shape(x) for x in (offsets, sizes, strides)]
            result_type = subview_type(source.type, *statics)
        attributes, dynamic = cls.window_attributes(offsets, sizes, strides)
        return cls([source, *dynamic], [result_type], attributes)

    def asm_result_names(self) -> list[str]:
        """``%subview``, as MLIR names it."""
        return ["subview"]

    def verify_op(self) -> None:
        source = check_memref(self, self.source.type, "the source")
        result = check_memref(self, self.result.type, "the result")
        self.verify_window([source.rank] * 3)
        if source.memory_space != result.memory_space:
            raise self.error(f"expected the memory space of the source ({source}), got {result}")
        try:
            expected = subview_type(source, *(self.static_list(i) for i in range(3)))
        except ValueError:
            raise self.error(f"expected a source with a strided layout, got {source}") from None
        self.verify_in_bounds(source.shape)
        problem = rank_reduction_problem(expected, result)
        if problem:
            raise self.error(
                f"expected result type {expected} or a rank-reduced version of it "
                f"(mismatch of result {problem}), got {result}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        self.print_window(printer)
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        print_type_pair(printer, self.source.type, self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        window, dynamic = cls.parse_window(parser)
        attributes = {**window, **parser.parse_optional_attr_dict()}
        source_type, result_type = parse_type_pair(parser)
        operands = [parser.resolve_operand(source, source_type), *dynamic]
        return cls(operands, [result_type], attributes)


class ReinterpretCastOp(OffsetsSizesStridesOp):
    """Give a buffer a new shape and layout from scratch:
    ``%v = memref.reinterpret_cast %A to offset: [0], sizes: [%n, 8], strides: [8, 1]
    : memref<?xf32> to memref<?x8xf32, strided<[8, 1]>>``."""

    name = "memref.reinterpret_cast"
    view_source = 0

    @classmethod
    def build(
        cls,
        source: Value,
        offset: MixedIndex,
        sizes: Sequence[MixedIndex],
        strides: Sequence[MixedIndex],
        result_type: MemRefType,
    ) -> ReinterpretCastOp:
        """View ``source``'s memory as ``result_type`` with the given layout."""
        attributes, dynamic = cls.window_attributes([offset], sizes, strides)
        return cls([source, *dynamic], [result_type], attributes)

    def asm_result_names(self) -> list[str]:
        """``%reinterpret_cast``, as MLIR names it."""
        return ["reinterpret_cast"]

    def verify_op(self) -> None:
        source = check_memref(self, self.source.type, "the source")
        result = check_memref(self, self.result.type, "the result")
        self.verify_window([1, result.rank, result.rank])
        if source.element_type != result.element_type:
            raise self.error(
                f"expected the element type {source.element_type}, got {result.element_type}"
            )
        if source.memory_space != result.memory_space:
            raise self.error(f"expected the memory space of the source ({source}), got {result}")
        offsets, sizes, strides = (self.static_list(i) for i in range(3))
        for dim, (claimed, size) in enumerate(zip(result.shape, sizes, strict=True)):
            if claimed is not DYNAMIC and claimed != size:
                raise self.error(f"expected size {size} in dimension {dim} of {result}")
        try:
            result_strides, result_offset = strides_and_offset(result)
        except ValueError:
            raise self.error(f"expected a result with a strided layout, got {result}") from None
        if result_offset != offsets[0]:
            raise self.error(f"expected offset {_text(offsets[0])} in {result}")
        for dim, (claimed, stride) in enumerate(zip(result_strides, strides, strict=True)):
            if claimed != stride:
                raise self.error(f"expected stride {_text(stride)} in dimension {dim} of {result}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(" to")
        self.print_window(printer, (" offset: ", ", sizes: ", ", strides: "))
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        print_type_pair(printer, self.source.type, self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        parser.parse_keyword("to")
        window, dynamic = cls.parse_window(parser, ("offset", "sizes", "strides"))
        attributes = {**window, **parser.parse_optional_attr_dict()}
        source_type, result_type = parse_type_pair(parser)
        operands = [parser.resolve_operand(source, source_type), *dynamic]
        return cls(operands, [result_type], attributes)


def _text(value: int | None) -> str:
    return "?" if value is DYNAMIC else str(value)


__all__ = ["ReinterpretCastOp", "SubViewOp"]
