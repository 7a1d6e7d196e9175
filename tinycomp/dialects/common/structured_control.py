"""What scf's and affine's structured control flow share: yields, ifs and counted loops.

The two dialects have the same three shapes of op; they differ in how a loop bound or
a condition is computed (SSA values for scf, affine maps and integer sets for affine),
not in how regions, block arguments and terminators fit together. So each shape has
one base class here, and the dialect ops add their operands and the syntax in front:

* ``RegionYieldOp``: ``scf.yield``, ``affine.yield``, written ``yield %a, %b : f32, i32``;
  each subclass lists the ``allowed_parents`` it may end a region of;
* ``IfElseOp``: ``scf.if``, ``affine.if``, a ``then`` region and an optional ``else``
  (required when the op has results); without results the yields are implied;
* ``CountedLoopOp``: ``scf.for``, ``affine.for``, one body block whose arguments are
  the induction variable and the loop-carried ``iter_args``, written
  ``iter_args(%acc = %init) -> (f32)``.

>>> from tinycomp.dialects.affine.for_op import AffineForOp
>>> from tinycomp.dialects.scf.for_op import ForOp
>>> issubclass(AffineForOp, CountedLoopOp), issubclass(ForOp, CountedLoopOp)
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.dialects.common.region_syntax import (
    check_terminator_types,
    ensure_terminator,
    format_types,
    parse_assignment_list,
    print_assignment_list,
    single_block,
)
from tinycomp.dialects.common.syntax import parse_values_with_types, print_values_with_types
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.ssa_scopes import UnresolvedOperand
from tinycomp.ir.types import Type
from tinycomp.ir.values import BlockArgument, Value


class RegionYieldOp(Operation):
    """Base of the terminators that pass values out of a structured op's region:
    ``scf.yield %a, %b : f32, index`` (or a bare ``scf.yield``)."""

    num_results = 0
    num_regions = 0
    num_successors = 0
    is_terminator = True
    is_pure = True
    has_custom_syntax = True
    allowed_parents: ClassVar[tuple[str, ...]] = ()
    """The names of the ops whose regions this yield may end."""

    @classmethod
    def build(cls, values: Sequence[Value] = ()) -> RegionYieldOp:
        """Yield ``values`` (none by default)."""
        return cls(values)

    def verify_op(self) -> None:
        parent = self.parent_op()
        if parent is not None and parent.name not in self.allowed_parents:
            raise self.error(
                f"expected to be inside {', '.join(self.allowed_parents)}, got '{parent.name}'"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.print_attr_dict(self.attributes)
        print_values_with_types(printer, self.operands)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes = parser.parse_optional_attr_dict()
        return cls(parse_values_with_types(parser), [], attributes)


class IfElseOp(Operation):
    """Base of ``scf.if`` and ``affine.if``: run the ``then`` or the ``else`` region.

    The ``else`` region is empty (no block) when the text has no ``else``; that is only
    allowed when the op has no results. Without results the regions' yields are
    implied: the text leaves them out and the parser puts them back.
    """

    num_regions = 2
    num_successors = 0
    has_custom_syntax = True
    yield_op: ClassVar[type[RegionYieldOp]] = RegionYieldOp
    """The terminator of the regions (``scf.yield``, ``affine.yield``)."""

    @classmethod
    def then_else_regions(cls, result_types: Sequence[Type], with_else: bool) -> list[Region]:
        """A ``then`` region with a block, and an ``else`` region with a block if
        ``with_else`` or there are results (else none); without results the blocks
        already end in the yield."""
        then_region = Region([Block()])
        else_region = Region([Block()] if with_else or result_types else [])
        if not result_types:
            for region in (then_region, else_region):
                if region.blocks:
                    ensure_terminator(region, cls.yield_op.build)
        return [then_region, else_region]

    @property
    def then_region(self) -> Region:
        """The region run when the condition holds."""
        return self.regions[0]

    @property
    def else_region(self) -> Region:
        """The region run otherwise (may have no block)."""
        return self.regions[1]

    @property
    def then_block(self) -> Block:
        """The only block of the ``then`` region."""
        return self.regions[0].blocks[0]

    @property
    def else_block(self) -> Block | None:
        """The only block of the ``else`` region, or ``None`` when there is no ``else``."""
        return self.regions[1].entry_block

    def verify_then_else(self) -> None:
        """One block without arguments per region (the ``else`` may have none), an
        ``else`` when there are results, and yields of the result types."""
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
            terminator = self.yield_op.name
            check_terminator_types(self, region, terminator, self.result_types, "the results")

    def print_then_else(self, printer: Printer) -> None:
        """`` {...}`` and, if there is one, `` else {...}``; the yields only when they
        pass values."""
        yields_values = bool(self.results)
        printer.write(" ")
        printer.print_region(
            self.then_region, print_entry_args=False, print_block_terminators=yields_values
        )
        if self.else_region.blocks:
            printer.write(" else ")
            printer.print_region(
                self.else_region, print_entry_args=False, print_block_terminators=yields_values
            )

    @classmethod
    def parse_then_else(cls, parser: Parser) -> list[Region]:
        """Read ``{...}`` and an optional ``else {...}``, putting back implied yields."""
        then_region = parser.parse_region()
        ensure_terminator(then_region, cls.yield_op.build)
        else_region = Region()
        if parser.parse_optional_keyword("else"):
            else_region = parser.parse_region()
            ensure_terminator(else_region, cls.yield_op.build)
        return [then_region, else_region]


class CountedLoopOp(Operation):
    """Base of ``scf.for`` and ``affine.for``: a body block with the induction variable
    and the iter_args as arguments, yielding the next iter_args; the loop's results
    are the last ones."""

    num_regions = 1
    num_successors = 0
    has_custom_syntax = True
    yield_name: ClassVar[str] = ""
    """The name of the body's terminator (``scf.yield``, ``affine.yield``)."""

    @property
    def body(self) -> Block:
        """The loop body (one block)."""
        return self.regions[0].blocks[0]

    @property
    def induction_var(self) -> BlockArgument:
        """The loop counter (first block argument of the body)."""
        return self.body.arguments[0]

    @property
    def region_iter_args(self) -> tuple[BlockArgument, ...]:
        """The loop-carried values as seen inside the body."""
        return self.body.arguments[1:]

    def verify_loop_body(self, iv_type: Type, inits: Sequence[Value]) -> None:
        """Results and body arguments match the inits (after the induction variable of
        ``iv_type``), and the body yields values of the inits' types."""
        init_types = tuple(v.type for v in inits)
        if init_types != self.result_types:
            raise self.error(
                f"expected result types {format_types(init_types)} (the iter_args' types), "
                f"got {format_types(self.result_types)}"
            )
        body = single_block(self, self.regions[0], "the body")
        arg_types = tuple(a.type for a in body.arguments)
        expected = (iv_type, *init_types)
        if arg_types != expected:
            raise self.error(
                f"expected body arguments {format_types(expected)} (induction variable and "
                f"iter_args), got {format_types(arg_types)}"
            )
        region = self.regions[0]
        check_terminator_types(self, region, self.yield_name, init_types, "the iter_args' types")

    def print_iter_args(self, printer: Printer, inits: Sequence[Value]) -> None:
        """`` iter_args(%acc = %init) -> (f32)``; nothing without inits."""
        if inits:
            print_assignment_list(printer, " iter_args", self.region_iter_args, inits)
            printer.write(f" -> {format_types(self.result_types)}")

    def print_body(self, printer: Printer) -> None:
        """The body region; its yield only when it passes values."""
        printer.print_region(
            self.regions[0], print_entry_args=False, print_block_terminators=bool(self.results)
        )


def parse_optional_iter_args(parser: Parser) -> tuple[list, list[UnresolvedOperand], list[Type]]:
    """Read ``iter_args(%acc = %init) -> (f32)`` if it is next: the tokens of the
    argument names, the unresolved inits and their types (all empty otherwise)."""
    if not parser.parse_optional_keyword("iter_args"):
        return [], [], []
    names, inits = parse_assignment_list(parser)
    parser.parse_punct("->")
    return names, inits, list(parser.parse_result_types())


__all__ = ["CountedLoopOp", "IfElseOp", "RegionYieldOp", "parse_optional_iter_args"]
