"""memref: reshapes that keep the data in place: ``collapse_shape`` and ``expand_shape``.

Both take a *reassociation*: for each dimension of the lower-rank type, the group of
adjacent dimensions of the higher-rank type it stands for. ``[[0, 1], [2]]`` merges
dimensions 0 and 1 of a rank-3 memref into one::

    %flat = memref.collapse_shape %A [[0, 1]] : memref<4x8xf32> into memref<32xf32>
    %grid = memref.expand_shape %flat [[0, 1]] output_shape [4, 8]
        : memref<32xf32> into memref<4x8xf32>

``reassociation`` is an ``ArrayAttr`` of ``ArrayAttr``s of ``i64`` (printed
``[[0, 1]]``). ``expand_shape`` also lists the result sizes: ``static_output_shape``
holds the constants (``-9223372036854775808`` where dynamic) and the operands after the
source give the dynamic ones, ``[src, *output_shape]``.

>>> from tinycomp.ir import Block, MemRefType, f32
>>> A = Block([MemRefType((4, 8), f32)]).arguments[0]
>>> print(CollapseShapeOp.build(A, [[0, 1]]).result.type)
memref<32xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.attributes import ArrayAttr, IntegerAttr
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
    collapsed_type,
    expanded_type,
    mul,
    reshape_shape_problem,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import MemRefType, Type, i64
from tinycomp.ir.values import Value


def reassociation_attr(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    """``[[0, 1], [2]]`` as the attribute MLIR stores.

    >>> print(reassociation_attr([[0, 1], [2]]))
    [[0, 1], [2]]
    """
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in group]) for group in groups])


def reassociation_groups(op: Operation) -> list[list[int]]:
    """The op's ``reassociation`` as lists of ints, or a verify error."""
    attr = op.attributes.get("reassociation")
    groups: list[list[int]] = []
    if isinstance(attr, ArrayAttr):
        for group in attr:
            if not isinstance(group, ArrayAttr):
                break
            if not all(isinstance(d, IntegerAttr) for d in group):
                break
            groups.append([d.value for d in group])
        else:
            return groups
    raise op.error(f"expected a 'reassociation' like [[0, 1], [2]], got {attr}")


class _ReshapeOp(Operation):
    """Base of collapse/expand: a source, a reassociation, ``: A into B`` syntax."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @property
    def source(self) -> Value:
        """The memref reshaped."""
        return self.operands[0]

    @property
    def reassociation(self) -> list[list[int]]:
        """For each dimension of the lower-rank type, its group of higher-rank dims."""
        return reassociation_groups(self)

    def asm_result_names(self) -> list[str]:
        """``%collapse_shape`` / ``%expand_shape``, as MLIR names them."""
        return [self.name.removeprefix("memref.")]

    def _check_types(self) -> tuple[MemRefType, MemRefType]:
        source = check_memref(self, self.source.type, "the source")
        result = check_memref(self, self.result.type, "the result")
        if source.element_type != result.element_type:
            raise self.error(
                f"expected the element type {source.element_type}, got {result.element_type}"
            )
        return source, result


class CollapseShapeOp(_ReshapeOp):
    """Merge groups of adjacent dimensions:
    ``%c = memref.collapse_shape %A [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>``."""

    name = "memref.collapse_shape"
    num_operands = 1
    inherent_attributes = ("reassociation",)

    @classmethod
    def build(
        cls, source: Value, reassociation: Sequence[Sequence[int]], result_type: Type | None = None
    ) -> CollapseShapeOp:
        """Collapse ``source``; the result type is inferred unless given."""
        if result_type is None:
            if not isinstance(source.type, MemRefType):
                raise ValueError(f"expected a memref source, got {source.type}")
            shape = []
            for group in reassociation:
                size: int | None = 1
                for dim in group:
                    size = mul(size, source.type.shape[dim])
                shape.append(size)
            result_type = collapsed_type(source.type, shape, reassociation)
            if result_type is None:
                raise ValueError(f"cannot collapse non-contiguous dimensions of {source.type}")
        return cls([source], [result_type], {"reassociation": reassociation_attr(reassociation)})

    def verify_op(self) -> None:
        source, result = self._check_types()
        groups = self.reassociation
        problem = reshape_shape_problem(result.shape, source.shape, groups)
        if problem:
            raise self.error(problem)
        expected = collapsed_type(source, result.shape, groups)
        if expected is None:
            raise self.error(f"expected dimensions collapsed together to be contiguous in {source}")
        if expected != result:
            raise self.error(f"expected collapsed type {expected}, got {result}")

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(" ")
        printer.print_attribute(self.attributes["reassociation"])
        printer.print_attr_dict(self.attributes, elided=["reassociation"])
        printer.write(" : ")
        printer.print_type(self.source.type)
        printer.write(" into ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        reassociation = parser.parse_attribute()
        attributes = parser.parse_optional_attr_dict()
        attributes["reassociation"] = reassociation
        source_type = parser.parse_colon_type()
        parser.parse_keyword("into")
        result_type = parser.parse_type()
        return cls([parser.resolve_operand(source, source_type)], [result_type], attributes)


class ExpandShapeOp(_ReshapeOp):
    """Split dimensions into groups:
    ``%e = memref.expand_shape %A [[0, 1]] output_shape [%n, 4] : memref<?xf32> into
    memref<?x4xf32>``."""

    name = "memref.expand_shape"
    inherent_attributes = ("reassociation", "static_output_shape")

    @classmethod
    def build(
        cls,
        source: Value,
        reassociation: Sequence[Sequence[int]],
        output_shape: Sequence[MixedIndex],
        result_type: Type | None = None,
    ) -> ExpandShapeOp:
        """Expand ``source`` to ``output_shape`` (ints, or index values where dynamic);
        the result type is inferred unless given."""
        static, dynamic = split_mixed(output_shape)
        if result_type is None:
            if not isinstance(source.type, MemRefType):
                raise ValueError(f"expected a memref source, got {source.type}")
            result_type = expanded_type(source.type, static_or_dynamic(static), reassociation)
            if result_type is None:
                raise ValueError(f"expected a strided source layout, got {source.type}")
        attributes = {
            "reassociation": reassociation_attr(reassociation),
            "static_output_shape": static,
        }
        return cls([source, *dynamic], [result_type], attributes)

    @property
    def output_shape(self) -> tuple[Value, ...]:
        """The dynamic result sizes."""
        return self.operands[1:]

    def verify_op(self) -> None:
        if not self.operands:
            raise self.error("expected a source operand")
        source, result = self._check_types()
        groups = self.reassociation
        problem = reshape_shape_problem(source.shape, result.shape, groups)
        if problem:
            raise self.error(problem)
        expected = expanded_type(source, result.shape, groups)
        if expected is None:
            raise self.error(f"expected a source with a strided layout, got {source}")
        if expected != result:
            raise self.error(f"expected expanded type {expected}, got {result}")
        static = self.attributes.get("static_output_shape")
        check_index_list(self, static, self.output_shape, "output sizes", result.rank)
        for dim, (claimed, given) in enumerate(
            zip(result.shape, static_or_dynamic(static), strict=True)
        ):
            if claimed is not None and claimed != given:
                raise self.error(
                    f"expected output size {claimed} at position {dim} (from {result}), "
                    f"got {'?' if given is None else given}"
                )

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(" ")
        printer.print_attribute(self.attributes["reassociation"])
        printer.write(" output_shape ")
        print_index_list(printer, self.attributes["static_output_shape"], self.output_shape)
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        printer.write(" : ")
        printer.print_type(self.source.type)
        printer.write(" into ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        source = parser.parse_operand()
        reassociation = parser.parse_attribute()
        parser.parse_keyword("output_shape")
        static, dynamic = parse_index_list(parser)
        attributes = parser.parse_optional_attr_dict()
        attributes["reassociation"] = reassociation
        attributes["static_output_shape"] = static
        source_type = parser.parse_colon_type()
        parser.parse_keyword("into")
        result_type = parser.parse_type()
        operands = [parser.resolve_operand(source, source_type), *dynamic]
        return cls(operands, [result_type], attributes)


__all__ = ["CollapseShapeOp", "ExpandShapeOp", "reassociation_attr", "reassociation_groups"]
