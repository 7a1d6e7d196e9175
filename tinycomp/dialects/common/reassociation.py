"""Reshapes by reassociation: what ``collapse_shape`` and ``expand_shape`` share.

memref and tensor both have the pair. Each takes a *reassociation*: for each dimension
of the lower-rank type, the group of adjacent dimensions of the higher-rank type it
stands for. ``[[0, 1], [2]]`` merges dimensions 0 and 1 of a rank-3 type into one::

    %flat = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
    %grid = memref.expand_shape %m [[0, 1]] output_shape [%n, 8]
        : memref<?xf32> into memref<?x8xf32>

The attribute ``reassociation`` is an ``ArrayAttr`` of ``ArrayAttr``s of ``i64``
(printed ``[[0, 1], [2]]``). ``expand_shape`` also lists the result sizes, since a
product does not say how to split it: ``static_output_shape`` holds the constants
(``DYNAMIC_INDEX`` where dynamic) and the operands after the source the dynamic ones.

``ReassociativeReshapeOp`` is the base of the four ops: their syntax, the
reassociation, and the shape rules (``reshape_shape_problem``). The dialects add what
differs: memref works out the layout of the result, tensor has none.

>>> reshape_shape_problem(collapsed=(6, 4), expanded=(2, 3, 4), reassociation=[[0, 1], [2]])
>>> collapsed_shape((2, None, 4), [[0, 1], [2]])
(None, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.dialects.common.mixed_indices import (
    check_index_list,
    parse_index_list,
    print_index_list,
    static_or_dynamic,
)
from tinycomp.dialects.common.syntax import parse_type_pair, print_type_pair
from tinycomp.ir.attributes import ArrayAttr, Attribute, IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import DYNAMIC, Shape, ShapedType, i64
from tinycomp.ir.values import Value

Reassociation = Sequence[Sequence[int]]
"""Groups of higher-rank dimensions, ``[[0, 1], [2]]``: one group per lower-rank one."""


def reassociation_attr(groups: Reassociation) -> ArrayAttr:
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


def collapsed_shape(shape: Shape, groups: Reassociation) -> Shape:
    """The shape after merging each group (``?`` if a merged size is dynamic)."""
    result: list[int | None] = []
    for group in groups:
        size: int | None = 1
        for dim in group:
            size = DYNAMIC if size is DYNAMIC or shape[dim] is DYNAMIC else size * shape[dim]
        result.append(size)
    return tuple(result)


def reshape_shape_problem(
    collapsed: Sequence[int | None], expanded: Sequence[int | None], reassociation: Reassociation
) -> str | None:
    """Why ``collapsed`` is not ``expanded`` with each group of ``reassociation``
    merged into one dimension, or ``None`` (MLIR's ``verifyCollapsedShape``): the groups
    cover ``expanded`` in order, and a merged size is dynamic exactly when its group has
    a dynamic size, and otherwise the group's product.

    >>> reshape_shape_problem((8,), (2, 2), [[0, 1]])
    'collapsed dim size (8) must equal reassociation group size (4)'
    """
    if len(collapsed) != len(reassociation):
        return (
            f"invalid number of reassociation groups: found {len(reassociation)}, "
            f"expected {len(collapsed)}"
        )
    next_dim = 0
    for collapsed_dim, group in enumerate(reassociation):
        found_dynamic = False
        group_size = 1
        for expanded_dim in group:
            if expanded_dim != next_dim:
                return "reassociation indices must be contiguous"
            next_dim += 1
            if expanded_dim >= len(expanded):
                return f"reassociation index {expanded_dim} is out of bounds"
            if expanded[expanded_dim] is DYNAMIC:
                found_dynamic = True
            else:
                group_size *= expanded[expanded_dim]
        if (collapsed[collapsed_dim] is DYNAMIC) != found_dynamic:
            return (
                f"collapsed dim ({collapsed_dim}) must be dynamic if and only if reassociation "
                "group is dynamic"
            )
        if not found_dynamic and group_size != collapsed[collapsed_dim]:
            return (
                f"collapsed dim size ({collapsed[collapsed_dim]}) must equal reassociation "
                f"group size ({group_size})"
            )
    if not collapsed:
        if any(size != 1 for size in expanded):
            return "rank 0 memrefs can only be extended/collapsed with/from ones"
    elif next_dim != len(expanded):
        return (
            f"expanded rank ({len(expanded)}) inconsistent with number of reassociation "
            f"indices ({next_dim})"
        )
    return None


class ReassociativeReshapeOp(Operation):
    """Base of memref's and tensor's ``collapse_shape`` and ``expand_shape``: a source,
    a reassociation and the syntax ``%src [[0, 1]] (output_shape [...])? : A into B``."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    has_output_shape: ClassVar[bool] = False
    """True for ``expand_shape``, whose syntax lists the result sizes."""

    @property
    def source(self) -> Value:
        """The memref or tensor reshaped."""
        return self.operands[0]

    @property
    def reassociation(self) -> list[list[int]]:
        """For each dimension of the lower-rank type, its group of higher-rank dims."""
        return reassociation_groups(self)

    def verify_reshape(self, collapsed: ShapedType, expanded: ShapedType) -> None:
        """One element type, and ``collapsed`` is ``expanded`` with the groups merged."""
        source, result = self.source.type, self.result.type
        if source.element_type != result.element_type:
            raise self.error(
                f"expected the element type {source.element_type}, got {result.element_type}"
            )
        problem = reshape_shape_problem(collapsed.shape, expanded.shape, self.reassociation)
        if problem:
            raise self.error(problem)

    def verify_output_shape(self, result: ShapedType) -> None:
        """``expand_shape``'s sizes: one per result dimension, an ``index`` operand per
        dynamic one, and equal to the result's static sizes."""
        static = check_index_list(
            self,
            self.attributes.get("static_output_shape"),
            self.operands[1:],
            "output sizes",
            result.rank,
            "static_output_shape",
        )
        given_sizes = static_or_dynamic(static)
        for dim, (claimed, given) in enumerate(zip(result.shape, given_sizes, strict=True)):
            if claimed is not DYNAMIC and claimed != given:
                raise self.error(
                    f"expected output size {claimed} at position {dim} (from {result}), "
                    f"got {'?' if given is DYNAMIC else given}"
                )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.source)
        printer.write(" ")
        printer.print_attribute(self.attributes["reassociation"])
        if self.has_output_shape:
            printer.write(" output_shape ")
            print_index_list(printer, self.attributes["static_output_shape"], self.operands[1:])
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)
        print_type_pair(printer, self.source.type, self.result.type, "into")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        source = parser.parse_operand()
        attributes: dict[str, Attribute] = {"reassociation": parser.parse_attribute()}
        dynamic: list[Value] = []
        if cls.has_output_shape:
            parser.parse_keyword("output_shape")
            attributes["static_output_shape"], dynamic = parse_index_list(parser)
        attributes = {**parser.parse_optional_attr_dict(), **attributes}
        source_type, result_type = parse_type_pair(parser, "into")
        operands = [parser.resolve_operand(source, source_type), *dynamic]
        return cls(operands, [result_type], attributes)


__all__ = [
    "ReassociativeReshapeOp", "Reassociation", "collapsed_shape", "reassociation_attr",
    "reassociation_groups", "reshape_shape_problem",
]  # fmt: skip
