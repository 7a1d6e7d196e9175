"""``tensor.extract_slice`` and ``tensor.insert_slice``: the tiles that tiling cuts.

::

    %tile = tensor.extract_slice %t[%i, 0] [4, 8] [1, 1]
        : tensor<8x16xf32> to tensor<4x8xf32>
    %row = tensor.extract_slice %t[2, 0] [1, 16] [1, 1]
        : tensor<8x16xf32> to tensor<16xf32>              // rank-reducing
    %new = tensor.insert_slice %tile into %t[%i, 0] [4, 8] [1, 1]
        : tensor<4x8xf32> into tensor<8x16xf32>

Each takes offsets, sizes and strides, one per dimension of the big tensor, each a
constant or an ``index`` value; storage, syntax and the common checks come from
``OffsetsSizesStridesOp`` (``offsets_sizes_strides.py``), shared with
``memref.subview``. The slice has shape ``sizes``, except that dimensions of static size
1 may be dropped (a *rank-reducing* slice). Static slices are checked against static
bounds, as MLIR does.

>>> from tinycomp.ir import Block, RankedTensorType, f32, index
>>> t, i = Block([RankedTensorType((8, 16), f32), index]).arguments
>>> print(ExtractSliceOp.build(t, [i, 0], [1, 8]).result.type)
tensor<1x8xf32>
>>> print(ExtractSliceOp.build(t, [i, 0], [1, 8], result_shape=(8,)).result.type)
tensor<8xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.mixed_indices import MixedIndex, is_rank_reduction, static_shape
from tinycomp.dialects.common.offsets_sizes_strides import OffsetsSizesStridesOp
from tinycomp.dialects.common.syntax import parse_type_pair, print_type_pair
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import RankedTensorType, Shape
from tinycomp.ir.values import Value


class SliceOp(OffsetsSizesStridesOp):
    """Base of both slice ops: the window (``OffsetsSizesStridesOp``) and the checks of
    the slice type against it."""

    @classmethod
    def _window_with_default_strides(
        cls,
        offsets: Sequence[MixedIndex],
        sizes: Sequence[MixedIndex],
        strides: Sequence[MixedIndex] | None,
    ):
        strides = [1] * len(offsets) if strides is None else strides
        return cls.window_attributes(offsets, sizes, strides)

    @property
    def static_sizes(self) -> Shape:
        """``sizes`` with values as ``DYNAMIC``: the shape before rank reduction."""
        return self.static_list(1)

    def _verify_slice(self, big_type, slice_type, big_name: str, slice_name: str) -> None:
        """Check the lists against the big tensor, and the slice type against them."""
        if not isinstance(big_type, RankedTensorType) or not isinstance(
            slice_type, RankedTensorType
        ):
            raise self.error(f"expected ranked tensors, got {big_type} and {slice_type}")
        self.verify_window([big_type.rank] * 3)
        if slice_type.element_type != big_type.element_type:
            raise self.error(
                f"expected the {slice_name} element type {big_type.element_type}, "
                f"got {slice_type.element_type}"
            )
        full = self.static_sizes
        if not is_rank_reduction(full, slice_type.shape):
            expected = RankedTensorType(full, big_type.element_type)
            raise self.error(
                f"expected the {slice_name} type to be {expected} or a rank-reduced version "
                f"(unit dimensions dropped), got {slice_type}"
            )
        self.verify_in_bounds(big_type.shape)

    def _print_lists(self, printer: Printer) -> None:
        self.print_window(printer)
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)

    @classmethod
    def _parse_lists(cls, parser: Parser):
        window, dynamic = cls.parse_window(parser)
        return {**parser.parse_optional_attr_dict(), **window}, dynamic


class ExtractSliceOp(SliceOp):
    """Read a slice: ``%s = tensor.extract_slice %t[offsets] [sizes] [strides] : T to S``."""

    name = "tensor.extract_slice"

    @classmethod
    def build(
        cls,
        source: Value,
        offsets: Sequence[MixedIndex],
        sizes: Sequence[MixedIndex],
        strides: Sequence[MixedIndex] | None = None,
        result_shape: Shape | None = None,
    ) -> ExtractSliceOp:
        """The slice of ``source``; strides default to 1. The result has shape ``sizes``
        (``?`` for values) unless ``result_shape`` gives a rank-reduced one."""
        attributes, dynamic = cls._window_with_default_strides(offsets, sizes, strides)
        if result_shape is None:
            result_shape = static_shape(sizes)
        result_type = RankedTensorType(result_shape, element_type(source.type))
        return cls([source, *dynamic], [result_type], attributes)

    @property
    def source(self) -> Value:
        """The tensor sliced."""
        return self.operands[0]

    def asm_result_names(self) -> list[str]:
        return ["extracted_slice"]

    def verify_op(self) -> None:
        self._verify_slice(self.source.type, self.result.type, "source", "result")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        self._print_lists(printer)
        print_type_pair(printer, self.source.type, self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        attributes, dynamic = cls._parse_lists(parser)
        source_type, result_type = parse_type_pair(parser)
        source_value = parser.resolve_operand(source, source_type)
        return cls([source_value, *dynamic], [result_type], attributes)


class InsertSliceOp(SliceOp):
    """Write a slice: ``%r = tensor.insert_slice %s into %t[offsets] [sizes] [strides]
    : S into T``; the result is ``%t`` with the slice replaced."""

    name = "tensor.insert_slice"
    num_leading_operands = 2

    @classmethod
    def build(
        cls,
        source: Value,
        dest: Value,
        offsets: Sequence[MixedIndex],
        sizes: Sequence[MixedIndex],
        strides: Sequence[MixedIndex] | None = None,
    ) -> InsertSliceOp:
        """``dest`` with the slice at ``offsets``/``sizes``/``strides`` set to ``source``."""
        attributes, dynamic = cls._window_with_default_strides(offsets, sizes, strides)
        return cls([source, dest, *dynamic], [dest.type], attributes)

    @property
    def source(self) -> Value:
        """The slice written."""
        return self.operands[0]

    @property
    def dest(self) -> Value:
        """The tensor written into."""
        return self.operands[1]

    def asm_result_names(self) -> list[str]:
        return ["inserted_slice"]

    def verify_op(self) -> None:
        if self.result.type != self.dest.type:
            raise self.error(
                f"expected the result type {self.dest.type} (the destination's), "
                f"got {self.result.type}"
            )
        self._verify_slice(self.dest.type, self.source.type, "destination", "source")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(" into ")
        printer.print_operand(self.dest)
        self._print_lists(printer)
        print_type_pair(printer, self.source.type, self.dest.type, "into")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        parser.parse_keyword("into")
        dest = parser.parse_operand()
        attributes, dynamic = cls._parse_lists(parser)
        source_type, dest_type = parse_type_pair(parser, "into")
        values = parser.resolve_operands([source, dest], [source_type, dest_type])
        return cls([*values, *dynamic], [dest_type], attributes)


def slice_shape(sizes: Sequence[MixedIndex]) -> Shape:
    """The shape of a slice with these sizes (``?`` for values), before rank reduction.

    >>> slice_shape([4, 8])
    (4, 8)
    """
    return static_shape(sizes)


SLICE_OPS: tuple[type[Operation], ...] = (ExtractSliceOp, InsertSliceOp)
"""The ops of this module, for the tensor ``Dialect``."""

__all__ = ["SLICE_OPS", "ExtractSliceOp", "InsertSliceOp", "SliceOp", "slice_shape"]
