"""scf: structured branches: ``scf.if``, ``scf.execute_region`` and their ``scf.yield``.

"Structured" means the control flow is nested regions instead of a graph of blocks: an
``scf.if`` runs its ``then`` or its ``else`` region, and the values it defines are
what the region that ran passes to ``scf.yield``. Without results the ``else`` may be
left out and the yields are implied::

    scf.if %in_bounds {
      memref.store %x, %buf[%i] : memref<?xf32>
    }
    %y = scf.if %pick_a -> (f32) {
      scf.yield %a : f32
    } else {
      scf.yield %b : f32
    }

>>> from tinycomp.ir import Block, f32, i1
>>> cond, a = Block([i1, f32]).arguments
>>> op = IfOp.build(cond, [f32])
>>> _ = op.then_block.append(YieldOp.build([a]))
>>> _ = op.else_block.append(YieldOp.build([a]))
>>> op.verify_op()
>>> op.result.type
FloatType(name='f32')
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.region_syntax import (
    check_terminator_types,
    format_types,
    parse_optional_arrow_types,
)
from tinycomp.dialects.common.structured_control import IfElseOp, RegionYieldOp
from tinycomp.ir.attributes import Attribute, UnitAttr
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.types import Type, format_result_types, i1
from tinycomp.ir.values import Value

YIELD_PARENTS = ("scf.for", "scf.if", "scf.while", "scf.execute_region", "scf.index_switch")
"""The ops whose regions ``scf.yield`` may end."""


class YieldOp(RegionYieldOp):
    """Pass values out of an scf region: ``scf.yield %a, %b : f32, index`` (or ``scf.yield``)."""

    name = "scf.yield"
    allowed_parents = YIELD_PARENTS


class IfOp(IfElseOp):
    """Run the ``then`` or the ``else`` region: ``%r = scf.if %c -> (f32) {...} else {...}``.

    The ``else`` region is empty (no block) when the text has no ``else``; that is only
    allowed when the op has no results (see ``IfElseOp``).
    """

    name = "scf.if"
    has_recursive_effects = True
    num_operands = 1
    yield_op = YieldOp

    @classmethod
    def build(
        cls, condition: Value, result_types: Sequence[Type] = (), with_else: bool = False
    ) -> IfOp:
        """An ``scf.if`` with a ``then`` block (and an ``else`` block if ``with_else`` or
        there are results). Without results the blocks end in ``scf.yield`` already;
        with results, end each with ``YieldOp.build([...])``."""
        regions = cls.then_else_regions(result_types, with_else)
        return cls([condition], result_types, {}, regions)

    @property
    def condition(self) -> Value:
        """The ``i1`` that picks the region."""
        return self.operands[0]

    def verify_op(self) -> None:
        if self.condition.type != i1:
            raise self.error(f"expected an i1 condition, got {self.condition.type}")
        self.verify_then_else()

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.condition)
        if self.results:
            printer.write(f" -> {format_types(self.result_types)}")
        self.print_then_else(printer)
        printer.print_attr_dict(self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        condition = parser.resolve_operand(parser.parse_operand(), i1)
        result_types = parse_optional_arrow_types(parser)
        regions = cls.parse_then_else(parser)
        attributes = parser.parse_optional_attr_dict()
        return cls([condition], result_types, attributes, regions)


class ExecuteRegionOp(Operation):
    """Run a region once, in place; its blocks may branch to each other (a CFG inside
    structured code): ``%r = scf.execute_region -> f32 { ... scf.yield %x : f32 }``.
    ``no_inline`` asks passes to keep it."""

    name = "scf.execute_region"
    has_recursive_effects = True
    num_operands = 0
    num_regions = 1
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = ("no_inline",)

    @classmethod
    def build(cls, result_types: Sequence[Type] = (), no_inline: bool = False) -> ExecuteRegionOp:
        """An ``scf.execute_region`` with an empty entry block (fill it, ending each exit
        block with ``YieldOp.build([...])``)."""
        attributes: dict[str, Attribute] = {"no_inline": UnitAttr()} if no_inline else {}
        return cls([], result_types, attributes, [Region([Block()])])

    @property
    def region(self) -> Region:
        """The region to run."""
        return self.regions[0]

    def verify_op(self) -> None:
        if not self.region.blocks:
            raise self.error("expected a region with at least one block")
        if self.region.blocks[0].arguments:
            raise self.error("expected the entry block to have no arguments")
        check_terminator_types(
            self, self.region, "scf.yield", self.result_types, "the results", allow_branches=True
        )

    def print_custom(self, printer: Printer) -> None:
        if self.results:
            printer.write(f" -> {format_result_types(self.result_types)}")
        if "no_inline" in self.attributes:
            printer.write(" no_inline")
        printer.write(" ")
        printer.print_region(self.region, print_entry_args=False)
        printer.print_attr_dict(self.attributes, elided=["no_inline"])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        result_types = parse_optional_arrow_types(parser)
        attributes: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("no_inline"):
            attributes["no_inline"] = UnitAttr()
        region = parser.parse_region()
        attributes.update(parser.parse_optional_attr_dict())
        return cls([], result_types, attributes, [region])


__all__ = ["YIELD_PARENTS", "ExecuteRegionOp", "IfOp", "YieldOp"]
