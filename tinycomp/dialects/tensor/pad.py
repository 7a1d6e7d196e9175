"""Tensors defined element by element by a region: ``tensor.pad`` and
``tensor.generate``, whose regions end with ``tensor.yield``.

::

    %padded = tensor.pad %x low[1, 1] high[1, %n] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<8x8xf32> to tensor<10x?xf32>

    %iota = tensor.generate %n {
    ^bb0(%i: index):
      %v = arith.index_cast %i : index to i32
      tensor.yield %v : i32
    } : tensor<?xi32>

The region gets one ``index`` argument per dimension and yields the element there:
for ``pad``, the value of the padding (the source's elements fill the middle);
for ``generate``, every element. ``low``/``high`` are mixed lists (``mixed_indices.py``);
a pad before a convolution is the typical use.

>>> from tinycomp.ir import Block, RankedTensorType, f32
>>> x, zero = Block([RankedTensorType((8, 8), f32), f32]).arguments
>>> print(PadOp.build(x, [1, 1], [1, 2], zero).result.type)
tensor<10x11xf32>
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tinycomp.dialects.common.mixed_indices import (
    MixedIndex,
    check_index_list,
    join_mixed,
    parse_mixed,
    print_mixed,
    resolve_mixed,
    split_mixed,
    static_or_none,
)
from tinycomp.dialects.common.operand_segments import (
    SEGMENTS,
    check_segments,
    segment,
    segment_sizes,
)
from tinycomp.dialects.common.syntax import (
    check_dynamic_sizes,
    parse_type_pair,
    parse_typed_operand,
    print_type_pair,
    print_typed_operand,
)
from tinycomp.ir.attributes import Attribute, UnitAttr
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.types import DYNAMIC, RankedTensorType, Type, index
from tinycomp.ir.values import BlockArgument, Value

ElementBuilder = Callable[[Builder, list[BlockArgument]], Value]
"""Fills an element region: gets a builder and the index arguments, returns the element."""


def element_region(rank: int, body: ElementBuilder | Value) -> Region:
    """A region with ``rank`` index arguments ending in ``tensor.yield body(...)``
    (or ``tensor.yield body`` when ``body`` is a value defined outside)."""
    block = Block([index] * rank)
    builder = Builder.at_end(block)
    value = body if isinstance(body, Value) else body(builder, list(block.arguments))
    builder.insert(YieldOp.build(value))
    return Region([block])


def _verify_element_region(op: Operation, rank: int, element_type: Type) -> None:
    region = op.regions[0]
    if len(region.blocks) != 1:
        raise op.error(f"expected a region with one block, got {len(region.blocks)}")
    block = region.blocks[0]
    types = [a.type for a in block.arguments]
    if types != [index] * rank:
        raise op.error(
            f"expected {rank} index block arguments (one per dimension), "
            f"got ({', '.join(map(str, types))})"
        )
    terminator = block.last_op
    if not isinstance(terminator, YieldOp) or terminator.value.type != element_type:
        found = terminator.name if terminator is not None else "an empty block"
        if isinstance(terminator, YieldOp):
            found = f"a yield of {terminator.value.type}"
        raise op.error(
            f"expected the region to end with 'tensor.yield' of {element_type}, got {found}"
        )


class PadOp(Operation):
    """Pad with ``low``/``high`` elements per dimension (see the module docstring)."""

    name = "tensor.pad"
    num_results = 1
    num_regions = 1
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("nofold", SEGMENTS, "static_high", "static_low")

    @classmethod
    def build(
        cls,
        source: Value,
        low: Sequence[MixedIndex],
        high: Sequence[MixedIndex],
        padding: ElementBuilder | Value,
        nofold: bool = False,
    ) -> PadOp:
        """``source`` padded by ``low``/``high``; ``padding`` is the value to pad with, or
        a builder of it from the indices. The result shape is computed."""
        static_low, dynamic_low = split_mixed(low)
        static_high, dynamic_high = split_mixed(high)
        shape = []
        for size, before, after in zip(source.type.shape, low, high, strict=True):
            parts = (size, static_or_none(before), static_or_none(after))
            shape.append(DYNAMIC if DYNAMIC in parts else sum(parts))
        attributes: dict[str, Attribute] = {
            SEGMENTS: segment_sizes(1, len(dynamic_low), len(dynamic_high)),
            "static_high": static_high,
            "static_low": static_low,
        }
        if nofold:
            attributes["nofold"] = UnitAttr()
        region = element_region(source.type.rank, padding)
        result = RankedTensorType(tuple(shape), source.type.element_type)
        return cls([source, *dynamic_low, *dynamic_high], [result], attributes, [region])

    @property
    def source(self) -> Value:
        """The tensor padded."""
        return self.operands[0]

    @property
    def low(self) -> list[MixedIndex]:
        """Elements added before each dimension."""
        check_segments(self, 3)
        return join_mixed(self.attributes["static_low"], segment(self, 1))

    @property
    def high(self) -> list[MixedIndex]:
        """Elements added after each dimension."""
        check_segments(self, 3)
        return join_mixed(self.attributes["static_high"], segment(self, 2))

    def asm_result_names(self) -> list[str]:
        return ["padded"]

    def verify_op(self) -> None:
        source, result = self.source.type, self.result.type
        if not isinstance(source, RankedTensorType) or not isinstance(result, RankedTensorType):
            raise self.error(f"expected ranked tensors, got {source} and {result}")
        segments = check_segments(self, 3)
        if segments[0] != 1:
            found = self.attributes[SEGMENTS]
            raise self.error(f"expected '{SEGMENTS}' to start with 1 (the source), got {found}")
        for position, what in ((1, "low"), (2, "high")):
            attr = self.attributes.get(f"static_{what}")
            check_index_list(self, attr, segment(self, position), what, source.rank)
        if result.rank != source.rank or result.element_type != source.element_type:
            raise self.error(f"expected a result like {source} with padding, got {result}")
        for dim, (size, before, after, got) in enumerate(
            zip(source.shape, self.low, self.high, result.shape, strict=True)
        ):
            parts = (size, static_or_none(before), static_or_none(after))
            want = DYNAMIC if DYNAMIC in parts else sum(parts)
            if want is not DYNAMIC and got is not DYNAMIC and want != got:
                raise self.error(
                    f"expected result dimension {dim} to be {size} + {before} + {after} = "
                    f"{want}, got {got}"
                )
        _verify_element_region(self, source.rank, source.element_type)

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        if "nofold" in self.attributes:
            printer.write(" nofold")
        printer.write(" low")
        print_mixed(printer, self.low)
        printer.write(" high")
        print_mixed(printer, self.high)
        printer.write(" ")
        printer.print_region(self.regions[0])
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        print_type_pair(printer, self.source.type, self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        attributes: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("nofold"):
            attributes["nofold"] = UnitAttr()
        parser.parse_keyword("low")
        low = parse_mixed(parser)
        parser.parse_keyword("high")
        high = parse_mixed(parser)
        region = parser.parse_region()
        attributes.update(parser.parse_optional_attr_dict())
        source_type, result_type = parse_type_pair(parser)
        value = parser.resolve_operand(source, source_type)
        static_low, dynamic_low = split_mixed(resolve_mixed(parser, low))
        static_high, dynamic_high = split_mixed(resolve_mixed(parser, high))
        attributes["static_low"] = static_low
        attributes["static_high"] = static_high
        attributes[SEGMENTS] = segment_sizes(1, len(dynamic_low), len(dynamic_high))
        operands = [value, *dynamic_low, *dynamic_high]
        return cls(operands, [result_type], attributes, [region])


class GenerateOp(Operation):
    """A tensor computed element by element (see the module docstring); one ``index``
    operand per dynamic dimension."""

    name = "tensor.generate"
    num_results = 1
    num_regions = 1
    num_successors = 0
    has_recursive_effects = True
    has_custom_syntax = True

    @classmethod
    def build(
        cls,
        result_type: RankedTensorType,
        body: ElementBuilder,
        dynamic_sizes: Sequence[Value] = (),
    ) -> GenerateOp:
        """A tensor of ``result_type`` whose element at the indices is ``body(...)``."""
        region = element_region(result_type.rank, body)
        return cls(list(dynamic_sizes), [result_type], {}, [region])

    def asm_result_names(self) -> list[str]:
        return ["generated"]

    def verify_op(self) -> None:
        result = self.result.type
        if not isinstance(result, RankedTensorType):
            raise self.error(f"expected a ranked tensor result, got {result}")
        check_dynamic_sizes(self, result, self.operands)
        _verify_element_region(self, result.rank, result.element_type)

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        if self.operands:
            printer.print_operands(self.operands)
            printer.write(" ")
        printer.print_region(self.regions[0])
        printer.print_attr_dict(self.attributes)
        printer.write(f" : {self.result.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        names = parser.parse_operand_list()
        region = parser.parse_region()
        attributes = parser.parse_optional_attr_dict()
        result_type = parser.parse_colon_type()
        sizes = parser.resolve_operands(names, [index] * len(names))
        return cls(sizes, [result_type], attributes, [region])


class YieldOp(Operation):
    """Ends a ``pad``/``generate`` region with the element: ``tensor.yield %x : f32``."""

    name = "tensor.yield"
    num_operands = 1
    num_results = 0
    num_regions = 0
    num_successors = 0
    is_terminator = True
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, value: Value) -> YieldOp:
        """``tensor.yield value``."""
        return cls([value], [])

    @property
    def value(self) -> Value:
        """The element yielded."""
        return self.operands[0]

    def verify_op(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, (PadOp, GenerateOp)):
            found = f"'{parent.name}'" if parent is not None else "no parent"
            raise self.error(
                f"expected to be inside 'tensor.pad' or 'tensor.generate', got {found}"
            )

    def print_custom(self, printer: Printer) -> None:
        print_typed_operand(printer, self, self.value)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        value, attributes = parse_typed_operand(parser)
        return cls([value], [], attributes)


PAD_OPS: tuple[type[Operation], ...] = (PadOp, GenerateOp, YieldOp)
"""The ops of this module, for the tensor ``Dialect``."""

__all__ = ["PAD_OPS", "ElementBuilder", "GenerateOp", "PadOp", "YieldOp", "element_region"]
