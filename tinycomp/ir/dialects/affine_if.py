"""affine: the affine conditional, ``affine.if``.

``affine.if`` tests an integer set (the attribute ``condition``, an ``IntegerSetAttr``)
on its operands (the set's dimensions, then its symbols) and runs its ``then`` or its
``else`` region. Without results the ``else`` may be left out and the ``affine.yield``s
are implied, as for ``scf.if``::

    affine.if affine_set<(d0)[s0] : (d0 >= 0, s0 - d0 - 1 >= 0)>(%i)[%n] {
      affine.store %x, %A[%i] : memref<?xf32>
    }

>>> from tinycomp.affine import IntegerSet, dim
>>> from tinycomp.ir import Block, index
>>> i = Block([index]).arguments[0]
>>> op = AffineIfOp.build(IntegerSet(1, 0, (dim(0) - 2,), (False,)), [i], with_else=True)
>>> print(op.attributes["condition"])
affine_set<(d0) : (d0 - 2 >= 0)>
>>> [op.name for op in op.else_block.ops]
['affine.yield']
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import IntegerSet
from tinycomp.ir.attributes import IntegerSetAttr
from tinycomp.ir.block import Block
from tinycomp.ir.dialects.affine_for import AffineYieldOp
from tinycomp.ir.dialects.affine_operands import check_dims_and_symbols
from tinycomp.ir.dialects.affine_ssa import parse_dims_and_symbols, print_dims_and_symbols
from tinycomp.ir.dialects.scf_syntax import (
    check_terminator_types,
    ensure_terminator,
    format_types,
    parse_optional_arrow_types,
    single_block,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.types import Type, format_result_types
from tinycomp.ir.values import Value


class AffineIfOp(Operation):
    """Run the ``then`` or ``else`` region depending on an integer set:
    ``affine.if affine_set<(d0)[s0] : (s0 - d0 - 1 >= 0)>(%i)[%n] { ... }``."""

    name = "affine.if"
    num_regions = 2
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = ("condition",)

    @classmethod
    def build(
        cls,
        condition: IntegerSet,
        operands: Sequence[Value],
        result_types: Sequence[Type] = (),
        with_else: bool = False,
    ) -> AffineIfOp:
        """Test ``condition`` on ``operands`` (dimensions, then symbols). Without results
        the blocks end in ``affine.yield`` already; with them, end each with
        ``AffineYieldOp.build([...])``."""
        then_region = Region([Block()])
        else_region = Region([Block()] if with_else or result_types else [])
        if not result_types:
            ensure_terminator(then_region, AffineYieldOp.build)
            if else_region.blocks:
                ensure_terminator(else_region, AffineYieldOp.build)
        attributes = {"condition": IntegerSetAttr(condition)}
        return cls(operands, result_types, attributes, [then_region, else_region])

    @property
    def condition(self) -> IntegerSet:
        """The integer set tested."""
        return self.attributes["condition"].set

    @property
    def then_block(self) -> Block:
        """The block run when the operands are in the set."""
        return self.regions[0].blocks[0]

    @property
    def else_block(self) -> Block | None:
        """The block run otherwise, or ``None`` when there is no ``else``."""
        return self.regions[1].entry_block

    def verify_op(self) -> None:
        attr = self.attributes.get("condition")
        if not isinstance(attr, IntegerSetAttr):
            raise self.error(f"expected an integer set 'condition', got {attr}")
        condition = attr.set
        if condition.num_dims + condition.num_symbols != len(self.operands):
            raise self.error(
                f"expected {condition.num_dims + condition.num_symbols} operands for {condition} "
                f"(its dimensions and symbols), got {len(self.operands)}"
            )
        check_dims_and_symbols(self, self.operands, condition.num_dims, "condition")
        single_block(self, self.regions[0], "the 'then' region")
        if len(self.regions[1].blocks) > 1:
            raise self.error("expected the 'else' region to have at most one block")
        if self.results and self.else_block is None:
            results = format_types(self.result_types)
            raise self.error(f"expected an 'else' region, since the op has results {results}")
        for region in self.regions:
            if region.blocks and region.blocks[0].arguments:
                raise self.error("expected regions without arguments")
            check_terminator_types(self, region, "affine.yield", self.result_types, "the results")

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_attribute(self.attributes["condition"])
        print_dims_and_symbols(printer, self.operands, self.condition.num_dims)
        if self.results:
            printer.write(" -> " + format_result_types(self.result_types))
        printer.write(" ")
        yields_values = bool(self.results)
        printer.print_region(
            self.regions[0], print_entry_args=False, print_block_terminators=yields_values
        )
        if self.regions[1].blocks:
            printer.write(" else ")
            printer.print_region(
                self.regions[1], print_entry_args=False, print_block_terminators=yields_values
            )
        printer.print_attr_dict(self.attributes, elided=["condition"])

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        token = parser.token
        attr = parser.parse_attribute()
        if not isinstance(attr, IntegerSetAttr):
            raise parser.error(f"expected an integer set like affine_set<...>, got {attr}", token)
        operands, num_dims = parse_dims_and_symbols(parser)
        if num_dims != attr.set.num_dims or len(operands) - num_dims != attr.set.num_symbols:
            raise parser.error(
                f"expected {attr.set.num_dims} dimension and {attr.set.num_symbols} symbol "
                f"operands for {attr.set}, got {num_dims} and {len(operands) - num_dims}",
                token,
            )
        result_types = parse_optional_arrow_types(parser)
        then_region = parser.parse_region()
        ensure_terminator(then_region, AffineYieldOp.build)
        else_region = Region()
        if parser.parse_optional_keyword("else"):
            else_region = parser.parse_region()
            ensure_terminator(else_region, AffineYieldOp.build)
        attributes = parser.parse_optional_attr_dict()
        attributes["condition"] = attr
        return cls(operands, result_types, attributes, [then_region, else_region])


__all__ = ["AffineIfOp"]
