"""memref: strided views of a buffer without copying: ``subview``, ``reinterpret_cast``.

A view is a new memref type over the same memory. ``memref.subview`` is the workhorse of
tiling: it takes a rectangular, possibly strided window, and the result type says where
the window's elements are (``memref_layout.subview_type``)::

    %tile = memref.subview %A[%i, %j] [4, 4] [1, 1]
        : memref<64x64xf32> to memref<4x4xf32, strided<[64, 1], offset: ?>>

Offsets, sizes and strides mix constants and SSA values (``memref_index_list.py``):
``static_offsets``/``static_sizes``/``static_strides`` hold the constants,
``operandSegmentSizes = array<i32: 1, n_offsets, n_sizes, n_strides>`` splits the
operands ``[source, *offsets, *sizes, *strides]``. ``reinterpret_cast`` uses the same
attributes. The verifier checks the claimed result type against the inferred one,
allowing dropped unit dimensions (a "rank-reduced" subview), as MLIR does.

>>> from tinycomp.ir import Block, MemRefType, f32
>>> A = Block([MemRefType((64, 64), f32)]).arguments[0]
>>> print(SubViewOp.build(A, [8, 0], [4, 4], [1, 2]).result.type)
memref<4x4xf32, strided<[64, 2], offset: 512>>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.dialects.memref_alloc import check_memref
from tinycomp.ir.dialects.memref_index_list import (
    MixedIndex,
    check_index_list,
    parse_index_list,
    print_index_list,
    split_mixed,
    static_or_dynamic,
)
from tinycomp.ir.dialects.memref_layout import (
    rank_reduction_problem,
    slice_bounds_problem,
    subview_type,
)
from tinycomp.ir.dialects.operand_segments import (
    SEGMENTS,
    check_segments,
    segment,
    segment_sizes,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import strides_and_offset
from tinycomp.ir.types import DYNAMIC, MemRefType, Type
from tinycomp.ir.values import Value

_LISTS = ("static_offsets", "static_sizes", "static_strides")


class _OffsetsSizesStridesOp(Operation):
    """Base of ``subview`` and ``reinterpret_cast``: a source plus three mixed lists."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = (SEGMENTS, *_LISTS)

    @classmethod
    def _create(
        cls,
        source: Value,
        lists: Sequence[Sequence[MixedIndex]],
        result_type: Type,
    ) -> _OffsetsSizesStridesOp:
        attributes = {}
        operands = [source]
        counts = []
        for name, items in zip(_LISTS, lists, strict=True):
            static, dynamic = split_mixed(items)
            attributes[name] = static
            operands += dynamic
            counts.append(len(dynamic))
        attributes[SEGMENTS] = segment_sizes(1, *counts)
        return cls(operands, [result_type], attributes)

    @property
    def source(self) -> Value:
        """The memref viewed."""
        return self.operands[0]

    def static_list(self, position: int) -> tuple[int | None, ...]:
        """Offsets (0), sizes (1) or strides (2), with ``None`` where dynamic."""
        return static_or_dynamic(self.attributes[_LISTS[position]])

    def _verify_lists(self, lengths: Sequence[int | None]) -> None:
        check_segments(self, 4)
        for position, (name, length) in enumerate(zip(_LISTS, lengths, strict=True)):
            what = name.removeprefix("static_")
            dynamic = segment(self, position + 1)
            check_index_list(self, self.attributes.get(name), dynamic, what, length)

    def _print_lists(self, printer, separators: Sequence[str]) -> None:
        for position, (name, separator) in enumerate(zip(_LISTS, separators, strict=True)):
            printer.write(separator)
            print_index_list(printer, self.attributes[name], segment(self, position + 1))

    @classmethod
    def _parse_lists(cls, parser, keywords: Sequence[str]) -> tuple[dict, list[Value], list[int]]:
        attributes = {}
        operands: list[Value] = []
        counts = []
        for position, (name, keyword) in enumerate(zip(_LISTS, keywords, strict=True)):
            if keyword:
                if position:
                    parser.parse_punct(",")
                parser.parse_keyword(keyword)
                parser.parse_punct(":")
            static, dynamic = parse_index_list(parser)
            attributes[name] = static
            operands += dynamic
            counts.append(len(dynamic))
        return attributes, operands, counts


class SubViewOp(_OffsetsSizesStridesOp):
    """A strided window of a memref:
    ``%v = memref.subview %A[%i, 0] [4, 8] [1, 1] : memref<?x8xf32> to
    memref<4x8xf32, strided<[8, 1], offset: ?>>``."""

    name = "memref.subview"

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
            statics = [static_or_dynamic(split_mixed(x)[0]) for x in (offsets, sizes, strides)]
            result_type = subview_type(source.type, *statics)
        return cls._create(source, [offsets, sizes, strides], result_type)

    def asm_result_names(self) -> list[str]:
        """``%subview``, as MLIR names it."""
        return ["subview"]

    def verify_op(self) -> None:
        source = check_memref(self, self.source.type, "the source")
        result = check_memref(self, self.result.type, "the result")
        self._verify_lists([source.rank] * 3)
        if source.memory_space != result.memory_space:
            raise self.error(f"expected the memory space of the source ({source}), got {result}")
        try:
            expected = subview_type(source, *(self.static_list(i) for i in range(3)))
        except ValueError:
            raise self.error(f"expected a source with a strided layout, got {source}") from None
        problem = slice_bounds_problem(source.shape, *(self.static_list(i) for i in range(3)))
        if problem:
            raise self.error(problem)
        problem = rank_reduction_problem(expected, result)
        if problem:
            raise self.error(
                f"expected result type {expected} or a rank-reduced version of it "
                f"(mismatch of result {problem}), got {result}"
            )

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        self._print_lists(printer, ("", " ", " "))
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        printer.write(" : ")
        printer.print_type(self.source.type)
        printer.write(" to ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        attributes, operands, counts = cls._parse_lists(parser, ("", "", ""))
        attributes.update(parser.parse_optional_attr_dict())
        source_type = parser.parse_colon_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        attributes[SEGMENTS] = segment_sizes(1, *counts)
        operands.insert(0, parser.resolve_operand(source, source_type))
        return cls(operands, [result_type], attributes)


class ReinterpretCastOp(_OffsetsSizesStridesOp):
    """Give a buffer a new shape and layout from scratch:
    ``%v = memref.reinterpret_cast %A to offset: [0], sizes: [%n, 8], strides: [8, 1]
    : memref<?xf32> to memref<?x8xf32, strided<[8, 1]>>``."""

    name = "memref.reinterpret_cast"

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
        return cls._create(source, [[offset], sizes, strides], result_type)

    def asm_result_names(self) -> list[str]:
        """``%reinterpret_cast``, as MLIR names it."""
        return ["reinterpret_cast"]

    def verify_op(self) -> None:
        source = check_memref(self, self.source.type, "the source")
        result = check_memref(self, self.result.type, "the result")
        self._verify_lists([1, result.rank, result.rank])
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

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(" to")
        self._print_lists(printer, (" offset: ", ", sizes: ", ", strides: "))
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        printer.write(" : ")
        printer.print_type(self.source.type)
        printer.write(" to ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        parser.parse_keyword("to")
        lists = cls._parse_lists(parser, ("offset", "sizes", "strides"))
        attributes, operands, counts = lists
        attributes.update(parser.parse_optional_attr_dict())
        source_type = parser.parse_colon_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        attributes[SEGMENTS] = segment_sizes(1, *counts)
        operands.insert(0, parser.resolve_operand(source, source_type))
        return cls(operands, [result_type], attributes)


def _text(value: int | None) -> str:
    return "?" if value is DYNAMIC else str(value)


__all__ = ["ReinterpretCastOp", "SubViewOp"]
