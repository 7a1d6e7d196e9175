"""scf: the general loop ``scf.while`` and its ``scf.condition``.

The ``before`` region computes a condition and ends in ``scf.condition(%c) %values``;
while the condition holds the ``after`` region runs on the forwarded values and yields
the next ``before`` arguments; otherwise the forwarded values are the loop's results.
Operands: the initial ``before`` arguments; ``scf.condition``'s operands:
``[condition, *forwarded]``.

>>> from tinycomp.ir import Block, f32, i1
>>> from tinycomp.dialects.scf.control import YieldOp
>>> x, more = Block([f32, i1]).arguments
>>> loop = WhileOp.build([x])
>>> _ = loop.before_block.append(ConditionOp.build(more, loop.before_block.arguments))
>>> _ = loop.after_block.append(YieldOp.build(loop.after_block.arguments))
>>> loop.verify_op()
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.region_syntax import (
    block_arguments,
    check_terminator_types,
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
from tinycomp.ir.types import FunctionType, Type, i1
from tinycomp.ir.values import Value


class ConditionOp(Operation):
    """End the ``before`` region of ``scf.while``: continue with the ``after`` region if
    the condition holds, else leave the loop; either way pass the values on:
    ``scf.condition(%more) %x, %i : f32, index``."""

    name = "scf.condition"
    num_results = 0
    num_regions = 0
    num_successors = 0
    is_terminator = True
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, condition: Value, args: Sequence[Value] = ()) -> ConditionOp:
        """``scf.condition(condition) args``."""
        return cls([condition, *args])

    @property
    def condition(self) -> Value:
        """The ``i1`` deciding whether the loop goes on."""
        return self.operands[0]

    @property
    def args(self) -> tuple[Value, ...]:
        """The values forwarded to the ``after`` region (or returned by the loop)."""
        return self.operands[1:]

    def verify_op(self) -> None:
        if not self.operands or self.operands[0].type != i1:
            found = self.operands[0].type if self.operands else "no operand"
            raise self.error(f"expected an i1 condition as the first operand, got {found}")
        parent = self.parent_op()
        if parent is not None and parent.name != "scf.while":
            raise self.error(f"expected to be inside 'scf.while', got '{parent.name}'")

    def print_custom(self, printer: Printer) -> None:
        printer.write("(")
        printer.print_operand(self.condition)
        printer.write(")")
        printer.print_attr_dict(self.attributes)
        print_values_with_types(printer, self.args)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        parser.parse_punct("(")
        condition = parser.resolve_operand(parser.parse_operand(), i1)
        parser.parse_punct(")")
        attributes = parser.parse_optional_attr_dict()
        return cls([condition, *parse_values_with_types(parser)], [], attributes)


class WhileOp(Operation):
    """A general loop: the ``before`` region computes a condition (``scf.condition``);
    while it holds, the ``after`` region runs and yields the next ``before`` arguments::

        %r = scf.while (%x = %init) : (f32) -> f32 {
          %more = arith.cmpf olt, %x, %limit : f32
          scf.condition(%more) %x : f32
        } do {
        ^bb0(%y: f32):
          %next = arith.mulf %y, %two : f32
          scf.yield %next : f32
        }
    """

    name = "scf.while"
    has_recursive_effects = True
    num_regions = 2
    num_successors = 0
    has_custom_syntax = True

    @classmethod
    def build(cls, inits: Sequence[Value], result_types: Sequence[Type] | None = None) -> WhileOp:
        """An ``scf.while`` with empty ``before`` (arguments: the inits' types) and
        ``after`` (arguments: ``result_types``, by default the inits' types) blocks;
        end them with ``ConditionOp`` and ``YieldOp``."""
        init_types = [v.type for v in inits]
        result_types = init_types if result_types is None else list(result_types)
        before = Region([Block(init_types)])
        after = Region([Block(result_types)])
        return cls(inits, result_types, {}, [before, after])

    @property
    def inits(self) -> tuple[Value, ...]:
        """The values the first ``before`` iteration starts from."""
        return self.operands

    @property
    def before_block(self) -> Block:
        """The block that computes the condition."""
        return self.regions[0].blocks[0]

    @property
    def after_block(self) -> Block:
        """The loop body proper."""
        return self.regions[1].blocks[0]

    def verify_op(self) -> None:
        init_types = tuple(v.type for v in self.operands)
        before = single_block(self, self.regions[0], "the 'before' region")
        after = single_block(self, self.regions[1], "the 'after' region")
        before_types = tuple(a.type for a in before.arguments)
        if before_types != init_types:
            raise self.error(
                f"expected 'before' arguments {format_types(init_types)} (the operands' "
                f"types), got {format_types(before_types)}"
            )
        condition = before.last_op
        if not isinstance(condition, ConditionOp):
            found = f"'{condition.name}'" if condition is not None else "an empty block"
            raise self.error(
                f"expected the 'before' region to end with 'scf.condition', got {found}"
            )
        forwarded = tuple(v.type for v in condition.args)
        if forwarded != self.result_types:
            raise self.error(
                f"expected 'scf.condition' to forward {format_types(self.result_types)} (the "
                f"results), got {format_types(forwarded)}"
            )
        after_types = tuple(a.type for a in after.arguments)
        if after_types != forwarded:
            raise self.error(
                f"expected 'after' arguments {format_types(forwarded)} (what 'scf.condition' "
                f"forwards), got {format_types(after_types)}"
            )
        check_terminator_types(
            self, self.regions[1], "scf.yield", init_types, "the 'before' arguments"
        )

    def print_custom(self, printer: Printer) -> None:
        if self.operands:
            print_assignment_list(printer, " ", self.before_block.arguments, self.operands)
        printer.write(" : ")
        printer.write(str(FunctionType(self.operand_types, self.result_types)))
        printer.write(" ")
        printer.print_region(self.regions[0], print_entry_args=False)
        printer.write(" do ")
        printer.print_region(self.regions[1])
        printer.print_attr_dict_with_keyword(self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        names, inits = [], []
        if parser.token.is_punct("("):
            names, inits = parse_assignment_list(parser)
        parser.parse_punct(":")
        function_type = parser.parse_function_type_or_error()
        values = parser.resolve_operands(inits, function_type.inputs)
        before = parser.parse_region(block_arguments(names, function_type.inputs))
        parser.parse_keyword("do")
        after = parser.parse_region()
        attributes = parser.parse_optional_attr_dict_with_keyword()
        return cls(values, function_type.results, attributes, [before, after])


__all__ = ["ConditionOp", "WhileOp"]
