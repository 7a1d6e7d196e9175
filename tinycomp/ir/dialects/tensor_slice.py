"""``tensor.extract_slice`` and ``tensor.insert_slice``: the tiles that tiling cuts.

::

    %tile = tensor.extract_slice %t[%i, 0] [4, 8] [1, 1]
        : tensor<8x16xf32> to tensor<4x8xf32>
    %row = tensor.extract_slice %t[2, 0] [1, 16] [1, 1]
        : tensor<8x16xf32> to tensor<16xf32>              // rank-reducing
    %new = tensor.insert_slice %tile into %t[%i, 0] [4, 8] [1, 1]
        : tensor<4x8xf32> into tensor<8x16xf32>

Each takes offsets, sizes and strides, one per dimension of the big tensor, each a
constant or an ``index`` value (``tensor_indices``). The slice has shape ``sizes``,
except that dimensions of static size 1 may be dropped (a *rank-reducing* slice).
Static slices are checked against static bounds, as MLIR does.

>>> from tinycomp.ir import Block, RankedTensorType, f32, index
>>> t, i = Block([RankedTensorType((8, 16), f32), index]).arguments
>>> print(ExtractSliceOp.build(t, [i, 0], [1, 8]).result.type)
tensor<1x8xf32>
>>> print(ExtractSliceOp.build(t, [i, 0], [1, 8], result_shape=(8,)).result.type)
tensor<8xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.dialects.tensor_indices import (
    Mixed,
    check_static_array,
    count_dynamic,
    is_rank_reduction,
    join_mixed,
    parse_mixed,
    print_mixed,
    resolve_mixed,
    split_mixed,
    static_or_none,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import DYNAMIC, RankedTensorType, Shape, i32, index
from tinycomp.ir.values import Value

_STATIC_KEYS = ("static_offsets", "static_sizes", "static_strides")
_SEGMENTS = "operandSegmentSizes"


class SliceOp(Operation):
    """Base of both slice ops: the mixed offsets/sizes/strides and their checks."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = (_SEGMENTS, *_STATIC_KEYS)
    num_tensor_operands: ClassVar[int] = 1
    """Operands before the dynamic offsets (the source, and the destination if any)."""

    @classmethod
    def _attributes_and_operands(
        cls, offsets: Sequence[Mixed], sizes: Sequence[Mixed], strides: Sequence[Mixed] | None
    ) -> tuple[dict[str, Attribute], list[Value]]:
        strides = [1] * len(offsets) if strides is None else strides
        attributes: dict[str, Attribute] = {}
        dynamic_groups: list[list[Value]] = []
        for key, entries in zip(_STATIC_KEYS, (offsets, sizes, strides), strict=True):
            static, dynamic = split_mixed(entries)
            attributes[key] = static
            dynamic_groups.append(dynamic)
        counts = [1] * cls.num_tensor_operands + [len(g) for g in dynamic_groups]
        attributes[_SEGMENTS] = DenseArrayAttr(i32, counts)
        return attributes, [v for group in dynamic_groups for v in group]

    def _mixed(self, position: int) -> list[Mixed]:
        """Offsets (0), sizes (1) or strides (2) as a list of ints and values."""
        counts = self._segment_counts()
        start = self.num_tensor_operands + sum(counts[:position])
        values = self.operands[start : start + counts[position]]
        static = self.attributes[_STATIC_KEYS[position]]
        return join_mixed(static, values)

    def _segment_counts(self) -> list[int]:
        segments = self.attributes.get(_SEGMENTS)
        expected_length = self.num_tensor_operands + 3
        if not isinstance(segments, DenseArrayAttr) or len(segments) != expected_length:
            raise self.error(
                f"expected '{_SEGMENTS}' with {expected_length} entries, got {segments}"
            )
        return [int(c) for c in segments.values[self.num_tensor_operands :]]

    @property
    def offsets(self) -> list[Mixed]:
        """Where the slice starts in each dimension."""
        return self._mixed(0)

    @property
    def sizes(self) -> list[Mixed]:
        """The slice's size in each dimension (before any rank reduction)."""
        return self._mixed(1)

    @property
    def strides(self) -> list[Mixed]:
        """The step between slice elements in each dimension."""
        return self._mixed(2)

    @property
    def static_sizes(self) -> Shape:
        """``sizes`` with values as ``DYNAMIC``: the shape before rank reduction."""
        return tuple(static_or_none(s) for s in self.sizes)

    def _verify_slice(self, big_type, slice_type, big_name: str, slice_name: str) -> None:
        """Check the lists against the big tensor, and the slice type against them."""
        if not isinstance(big_type, RankedTensorType) or not isinstance(
            slice_type, RankedTensorType
        ):
            raise self.error(f"expected ranked tensors, got {big_type} and {slice_type}")
        big_rank = big_type.rank
        for key in _STATIC_KEYS:
            check_static_array(self, self.attributes.get(key), key, big_rank)
        counts = self._segment_counts()
        segments = self.attributes[_SEGMENTS]
        if list(segments.values[: self.num_tensor_operands]) != [1] * self.num_tensor_operands:
            raise self.error(f"expected '{_SEGMENTS}' to start with 1s, got {segments}")
        for key, count in zip(_STATIC_KEYS, counts, strict=True):
            if count_dynamic(self.attributes[key]) != count:
                raise self.error(
                    f"expected as many dynamic entries in '{key}' as values ({count}), "
                    f"got {count_dynamic(self.attributes[key])}"
                )
        if sum(counts) + self.num_tensor_operands != len(self.operands):
            raise self.error(f"expected '{_SEGMENTS}' to add up to {len(self.operands)} operands")
        for value in self.operands[self.num_tensor_operands :]:
            if value.type != index:
                raise self.error(f"expected index offsets, sizes and strides, got {value.type}")
        if slice_type.element_type != big_type.element_type:
            raise self.error(
                f"expected the {slice_name} element type {big_type.element_type}, "
                f"got {slice_type.element_type}"
            )
        full = self.static_sizes
        if any(size is not DYNAMIC and size < 0 for size in full):
            raise self.error(f"expected sizes >= 0, got {list(full)}")
        if not is_rank_reduction(full, slice_type.shape):
            expected = RankedTensorType(full, big_type.element_type)
            raise self.error(
                f"expected the {slice_name} type to be {expected} or a rank-reduced version "
                f"(unit dimensions dropped), got {slice_type}"
            )
        self._verify_bounds(big_type.shape)

    def _verify_bounds(self, big_shape: Shape) -> None:
        """A static slice must stay inside static dimensions (MLIR's message)."""
        for dim, (offset, size, stride, extent) in enumerate(
            zip(self.offsets, self.sizes, self.strides, big_shape, strict=True)
        ):
            numbers = [static_or_none(v) for v in (offset, size, stride)]
            if DYNAMIC in numbers or extent is DYNAMIC or numbers[1] == 0:
                continue
            offset, size, stride = numbers
            last = offset + (size - 1) * stride
            if offset < 0 or last >= extent:
                raise self.error(
                    f"slice along dimension {dim} runs out-of-bounds: {last} >= {extent}"
                )

    def _print_lists(self, printer) -> None:
        print_mixed(printer, self.offsets)
        printer.write(" ")
        print_mixed(printer, self.sizes)
        printer.write(" ")
        print_mixed(printer, self.strides)
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)

    @classmethod
    def _parse_lists(cls, parser) -> tuple[list, list, list, dict[str, Attribute]]:
        offsets, sizes, strides = parse_mixed(parser), parse_mixed(parser), parse_mixed(parser)
        return offsets, sizes, strides, parser.parse_optional_attr_dict()


class ExtractSliceOp(SliceOp):
    """Read a slice: ``%s = tensor.extract_slice %t[offsets] [sizes] [strides] : T to S``."""

    name = "tensor.extract_slice"

    @classmethod
    def build(
        cls,
        source: Value,
        offsets: Sequence[Mixed],
        sizes: Sequence[Mixed],
        strides: Sequence[Mixed] | None = None,
        result_shape: Shape | None = None,
    ) -> ExtractSliceOp:
        """The slice of ``source``; strides default to 1. The result has shape ``sizes``
        (``?`` for values) unless ``result_shape`` gives a rank-reduced one."""
        attributes, dynamic = cls._attributes_and_operands(offsets, sizes, strides)
        if result_shape is None:
            result_shape = tuple(static_or_none(s) for s in sizes)
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

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        self._print_lists(printer)
        printer.write(f" : {self.source.type} to {self.result.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        offsets, sizes, strides, attributes = cls._parse_lists(parser)
        source_type = parser.parse_colon_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        source_value = parser.resolve_operand(source, source_type)
        extra, dynamic = cls._attributes_and_operands(
            resolve_mixed(parser, offsets),
            resolve_mixed(parser, sizes),
            resolve_mixed(parser, strides),
        )
        return cls([source_value, *dynamic], [result_type], {**attributes, **extra})


class InsertSliceOp(SliceOp):
    """Write a slice: ``%r = tensor.insert_slice %s into %t[offsets] [sizes] [strides]
    : S into T``; the result is ``%t`` with the slice replaced."""

    name = "tensor.insert_slice"
    num_tensor_operands = 2

    @classmethod
    def build(
        cls,
        source: Value,
        dest: Value,
        offsets: Sequence[Mixed],
        sizes: Sequence[Mixed],
        strides: Sequence[Mixed] | None = None,
    ) -> InsertSliceOp:
        """``dest`` with the slice at ``offsets``/``sizes``/``strides`` set to ``source``."""
        attributes, dynamic = cls._attributes_and_operands(offsets, sizes, strides)
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

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(" into ")
        printer.print_operand(self.dest)
        self._print_lists(printer)
        printer.write(f" : {self.source.type} into {self.dest.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        parser.parse_keyword("into")
        dest = parser.parse_operand()
        offsets, sizes, strides, attributes = cls._parse_lists(parser)
        source_type = parser.parse_colon_type()
        parser.parse_keyword("into")
        dest_type = parser.parse_type()
        values = parser.resolve_operands([source, dest], [source_type, dest_type])
        extra, dynamic = cls._attributes_and_operands(
            resolve_mixed(parser, offsets),
            resolve_mixed(parser, sizes),
            resolve_mixed(parser, strides),
        )
        return cls([*values, *dynamic], [dest_type], {**attributes, **extra})


def slice_shape(sizes: Sequence[Mixed]) -> Shape:
    """The shape of a slice with these sizes (``?`` for values), before rank reduction.

    >>> slice_shape([4, 8])
    (4, 8)
    """
    return tuple(static_or_none(s) for s in sizes)


SLICE_OPS: tuple[type[Operation], ...] = (ExtractSliceOp, InsertSliceOp)
"""The ops of this module, for the tensor ``Dialect``."""

__all__ = ["SLICE_OPS", "ExtractSliceOp", "InsertSliceOp", "SliceOp", "slice_shape"]
