"""``tensor.collapse_shape`` and ``tensor.expand_shape``: reshapes that merge or split
neighbouring dimensions, never move data.

::

    %flat = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
    %back = tensor.expand_shape %flat [[0, 1], [2]] output_shape [2, 3, 4]
        : tensor<6x4xf32> into tensor<2x3x4xf32>

The *reassociation* lists, for each dimension of the smaller-rank tensor, the
contiguous group of dimensions of the larger-rank one it stands for; its size is their
product. ``expand_shape`` also names the expanded sizes (``output_shape``), with values
for dynamic ones, since a product does not say how to split it.

>>> from tinycomp.ir import Block, RankedTensorType, f32
>>> t = Block([RankedTensorType((2, 3, 4), f32)]).arguments[0]
>>> print(CollapseShapeOp.build(t, [[0, 1], [2]]).result.type)
tensor<6x4xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.attributes import ArrayAttr, Attribute, IntegerAttr
from tinycomp.ir.dialects.tensor_indices import (
    Mixed,
    check_static_array,
    count_dynamic,
    join_mixed,
    parse_mixed,
    print_mixed,
    resolve_mixed,
    split_mixed,
    static_or_none,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, RankedTensorType, Shape, i64, index
from tinycomp.ir.values import Value

Reassociation = list[list[int]]
"""For each dimension of the smaller-rank tensor, the dimensions of the larger one."""


def reassociation_attr(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    """``[[0, 1], [2]]`` as an attribute."""
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in group]) for group in groups])


def collapsed_shape(shape: Shape, groups: Reassociation) -> Shape:
    """The shape after merging each group (``?`` if a merged size is dynamic).

    >>> collapsed_shape((2, None, 4), [[0, 1], [2]])
    (None, 4)
    """
    result: list[int | None] = []
    for group in groups:
        sizes = [shape[d] for d in group]
        if DYNAMIC in sizes:
            result.append(DYNAMIC)
        else:
            product = 1
            for size in sizes:
                product *= size
            result.append(product)
    return tuple(result)


class ReshapeOp(Operation):
    """Base of both reshapes: the reassociation and its checks."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @property
    def source(self) -> Value:
        """The tensor reshaped."""
        return self.operands[0]

    @property
    def reassociation(self) -> Reassociation:
        """The groups, as lists of ints."""
        attr = self.attributes.get("reassociation")
        groups: Reassociation = []
        if isinstance(attr, ArrayAttr):
            for group in attr:
                if not isinstance(group, ArrayAttr):
                    break
                groups.append([e.value for e in group if isinstance(e, IntegerAttr)])
            else:
                return groups
        raise self.error(f"expected 'reassociation' to be a list of lists of ints, got {attr}")

    def _verify_groups(self, small: RankedTensorType, large: RankedTensorType) -> None:
        """Groups cover the larger shape in order; the smaller shape is their product."""
        if small.element_type != large.element_type:
            raise self.error(f"expected one element type, got {small} and {large}")
        groups = self.reassociation
        flat = [d for group in groups for d in group]
        if flat != list(range(large.rank)) or (groups and not all(groups)):
            if not (groups == [] and all(s == 1 for s in large.shape)):
                raise self.error(
                    f"expected the reassociation to split 0..{large.rank - 1} into contiguous "
                    f"groups, got {groups}"
                )
        if len(groups) != small.rank:
            raise self.error(
                f"expected one group per dimension of {small} ({small.rank}), got {len(groups)}"
            )
        expected = collapsed_shape(large.shape, groups)
        for size, want in zip(small.shape, expected, strict=True):
            if want is not DYNAMIC and size is not DYNAMIC and size != want:
                raise self.error(
                    f"expected the collapsed shape {RankedTensorType(expected, small.element_type)}"
                    f", got {small}"
                )
            if want is DYNAMIC and size is not DYNAMIC and self.name.endswith("collapse_shape"):
                raise self.error(f"expected a dynamic size where a merged group is, got {small}")


class CollapseShapeOp(ReshapeOp):
    """Merge groups of dimensions: ``tensor.collapse_shape %t [[0, 1]] : tensor<8x16xf32>
    into tensor<128xf32>``."""

    name = "tensor.collapse_shape"
    num_operands = 1
    inherent_attributes = ("reassociation",)

    @classmethod
    def build(cls, source: Value, reassociation: Sequence[Sequence[int]]) -> CollapseShapeOp:
        """``source`` with each group of dimensions merged into one."""
        groups = [list(g) for g in reassociation]
        result = RankedTensorType(
            collapsed_shape(source.type.shape, groups), source.type.element_type
        )
        return cls([source], [result], {"reassociation": reassociation_attr(groups)})

    def asm_result_names(self) -> list[str]:
        return ["collapsed"]

    def verify_op(self) -> None:
        source, result = self.source.type, self.result.type
        if not isinstance(source, RankedTensorType) or not isinstance(result, RankedTensorType):
            raise self.error(f"expected ranked tensors, got {source} and {result}")
        self._verify_groups(result, source)

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(f" {self.attributes['reassociation']}")
        printer.print_attr_dict(self.attributes, elided=["reassociation"])
        printer.write(f" : {self.source.type} into {self.result.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        attributes: dict[str, Attribute] = {"reassociation": parser.parse_attribute()}
        attributes.update(parser.parse_optional_attr_dict())
        source_type = parser.parse_colon_type()
        parser.parse_keyword("into")
        result_type = parser.parse_type()
        return cls([parser.resolve_operand(source, source_type)], [result_type], attributes)


class ExpandShapeOp(ReshapeOp):
    """Split dimensions into groups: ``tensor.expand_shape %t [[0, 1]] output_shape
    [8, 16] : tensor<128xf32> into tensor<8x16xf32>``."""

    name = "tensor.expand_shape"
    inherent_attributes = ("reassociation", "static_output_shape")

    @classmethod
    def build(
        cls,
        source: Value,
        reassociation: Sequence[Sequence[int]],
        output_shape: Sequence[Mixed],
    ) -> ExpandShapeOp:
        """``source`` with each dimension split into a group of ``output_shape``."""
        static, dynamic = split_mixed(output_shape)
        result = RankedTensorType(
            tuple(static_or_none(s) for s in output_shape), source.type.element_type
        )
        attributes = {
            "reassociation": reassociation_attr(reassociation),
            "static_output_shape": static,
        }
        return cls([source, *dynamic], [result], attributes)

    @property
    def output_shape(self) -> list[Mixed]:
        """The expanded sizes: ints, and values for the dynamic ones."""
        return join_mixed(self.attributes["static_output_shape"], self.operands[1:])

    def asm_result_names(self) -> list[str]:
        return ["expanded"]

    def verify_op(self) -> None:
        source, result = self.source.type, self.result.type
        if not isinstance(source, RankedTensorType) or not isinstance(result, RankedTensorType):
            raise self.error(f"expected ranked tensors, got {source} and {result}")
        static = check_static_array(
            self, self.attributes.get("static_output_shape"), "static_output_shape", result.rank
        )
        if count_dynamic(static) != len(self.operands) - 1:
            raise self.error(
                f"expected {count_dynamic(static)} output size operands, "
                f"got {len(self.operands) - 1}"
            )
        for value in self.operands[1:]:
            if value.type != index:
                raise self.error(f"expected index output sizes, got {value.type}")
        declared = tuple(static_or_none(s) for s in self.output_shape)
        if declared != result.shape:
            raise self.error(
                f"expected output_shape to match the result type {result}, got "
                f"[{', '.join('?' if s is DYNAMIC else str(s) for s in declared)}]"
            )
        self._verify_groups(source, result)

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(f" {self.attributes['reassociation']} output_shape ")
        print_mixed(printer, self.output_shape)
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        printer.write(f" : {self.source.type} into {self.result.type}")

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        attributes: dict[str, Attribute] = {"reassociation": parser.parse_attribute()}
        parser.parse_keyword("output_shape")
        entries = parse_mixed(parser)
        attributes.update(parser.parse_optional_attr_dict())
        source_type = parser.parse_colon_type()
        parser.parse_keyword("into")
        result_type = parser.parse_type()
        static, dynamic = split_mixed(resolve_mixed(parser, entries))
        attributes["static_output_shape"] = static
        value = parser.resolve_operand(source, source_type)
        return cls([value, *dynamic], [result_type], attributes)


RESHAPE_OPS: tuple[type[Operation], ...] = (CollapseShapeOp, ExpandShapeOp)
"""The ops of this module, for the tensor ``Dialect``."""

__all__ = [
    "RESHAPE_OPS", "CollapseShapeOp", "ExpandShapeOp", "Reassociation", "ReshapeOp",
    "collapsed_shape", "reassociation_attr",
]  # fmt: skip
