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

from tinycomp.ir.attributes import Attribute, UnitAttr
from tinycomp.ir.block import Block
from tinycomp.ir.dialects.scf_syntax import (
    check_terminator_types,
    ensure_terminator,
    format_types,
    parse_optional_arrow_types,
    single_block,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.types import Type, format_result_types, i1
from tinycomp.ir.values import Value

YIELD_PARENTS = ("scf.for", "scf.if", "scf.while", "scf.execute_region", "scf.index_switch")
"""The ops whose regions ``scf.yield`` may end."""


class YieldOp(Operation):
    """Pass values out of an scf region: ``scf.yield %a, %b : f32, index`` (or ``scf.yield``)."""

    name = "scf.yield"
    num_results = 0
    num_regions = 0
    num_successors = 0
    is_terminator = True
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, values: Sequence[Value] = ()) -> YieldOp:
        """Yield ``values`` (none by default)."""
        return cls(values)

    def verify_op(self) -> None:
        parent = self.parent_op()
        if parent is not None and parent.name not in YIELD_PARENTS:
            raise self.error(
                f"expected to be inside {', '.join(YIELD_PARENTS)}, got '{parent.name}'"
            )

    def print_custom(self, printer) -> None:
        printer.print_attr_dict(self.attributes)
        if self.operands:
            printer.write(" ")
            printer.print_operands(self.operands)
            printer.write(" : ")
            printer.print_types(self.operand_types)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        attributes = parser.parse_optional_attr_dict()
        operands = parser.parse_operand_list()
        types = parser.parse_type_list() if operands and parser.parse_optional_punct(":") else []
        if operands and not types:
            raise parser.expected("':' and the types of the yielded values")
        return cls(parser.resolve_operands(operands, types), [], attributes)


class IfOp(Operation):
    """Run the ``then`` or the ``else`` region: ``%r = scf.if %c -> (f32) {...} else {...}``.

    The ``else`` region is empty (no block) when the text has no ``else``; that is only
    allowed when the op has no results.
    """

    name = "scf.if"
    num_operands = 1
    num_regions = 2
    num_successors = 0
    has_custom_syntax = True

    @classmethod
    def build(
        cls, condition: Value, result_types: Sequence[Type] = (), with_else: bool = False
    ) -> IfOp:
        """An ``scf.if`` with a ``then`` block (and an ``else`` block if ``with_else`` or
        there are results). Without results the blocks end in ``scf.yield`` already;
        with results, end each with ``YieldOp.build([...])``."""
        then_region = Region([Block()])
        else_region = Region([Block()] if with_else or result_types else [])
        if not result_types:
            ensure_terminator(then_region, YieldOp.build)
            if else_region.blocks:
                ensure_terminator(else_region, YieldOp.build)
        return cls([condition], result_types, {}, [then_region, else_region])

    @property
    def condition(self) -> Value:
        """The ``i1`` that picks the region."""
        return self.operands[0]

    @property
    def then_region(self) -> Region:
        """The region run when the condition is true."""
        return self.regions[0]

    @property
    def else_region(self) -> Region:
        """The region run when the condition is false (may have no block)."""
        return self.regions[1]

    @property
    def then_block(self) -> Block:
        """The only block of the ``then`` region."""
        return self.regions[0].blocks[0]

    @property
    def else_block(self) -> Block | None:
        """The only block of the ``else`` region, or ``None`` when there is no ``else``."""
        return self.regions[1].entry_block

    def verify_op(self) -> None:
        if self.condition.type != i1:
            raise self.error(f"expected an i1 condition, got {self.condition.type}")
        then_block = single_block(self, self.then_region, "the 'then' region")
        if then_block.arguments:
            raise self.error("expected the 'then' region to have no arguments")
        if len(self.else_region.blocks) > 1:
            raise self.error("expected the 'else' region to have at most one block")
        if self.else_block is not None and self.else_block.arguments:
            raise self.error("expected the 'else' region to have no arguments")
        if self.results and self.else_block is None:
            results = format_types(self.result_types)
            raise self.error(f"expected an 'else' region, since the op has results {results}")
        for region in self.regions:
            check_terminator_types(self, region, "scf.yield", self.result_types, "the results")

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.condition)
        if self.results:
            printer.write(f" -> {format_types(self.result_types)}")
        printer.write(" ")
        yields_values = bool(self.results)
        printer.print_region(
            self.then_region, print_entry_args=False, print_block_terminators=yields_values
        )
        if self.else_region.blocks:
            printer.write(" else ")
            printer.print_region(
                self.else_region, print_entry_args=False, print_block_terminators=yields_values
            )
        printer.print_attr_dict(self.attributes)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        condition = parser.resolve_operand(parser.parse_operand(), i1)
        result_types = parse_optional_arrow_types(parser)
        then_region = parser.parse_region()
        ensure_terminator(then_region, YieldOp.build)
        else_region = Region()
        if parser.parse_optional_keyword("else"):
            else_region = parser.parse_region()
            ensure_terminator(else_region, YieldOp.build)
        attributes = parser.parse_optional_attr_dict()
        return cls([condition], result_types, attributes, [then_region, else_region])


class ExecuteRegionOp(Operation):
    """Run a region once, in place; its blocks may branch to each other (a CFG inside
    structured code): ``%r = scf.execute_region -> f32 { ... scf.yield %x : f32 }``.
    ``no_inline`` asks passes to keep it."""

    name = "scf.execute_region"
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

    def print_custom(self, printer) -> None:
        if self.results:
            printer.write(f" -> {format_result_types(self.result_types)}")
        if "no_inline" in self.attributes:
            printer.write(" no_inline")
        printer.write(" ")
        printer.print_region(self.region, print_entry_args=False)
        printer.print_attr_dict(self.attributes, elided=["no_inline"])

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        result_types = parse_optional_arrow_types(parser)
        attributes: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("no_inline"):
            attributes["no_inline"] = UnitAttr()
        region = parser.parse_region()
        attributes.update(parser.parse_optional_attr_dict())
        return cls([], result_types, attributes, [region])


__all__ = ["YIELD_PARENTS", "ExecuteRegionOp", "IfOp", "YieldOp"]
