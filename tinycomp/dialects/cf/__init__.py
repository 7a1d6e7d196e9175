"""The cf dialect (control flow): unconditional and conditional branches between blocks.

A branch passes values to the arguments of the block it jumps to; that is how MLIR
merges values where control flow joins, instead of phi nodes::

    cf.cond_br %lt, ^bb1(%a : f32), ^bb1(%b : f32)
  ^bb1(%min: f32):  // 2 preds: ^bb0, ^bb0
    return %min : f32

>>> from tinycomp.ir import Block, f32, i1
>>> entry, join = Block([i1, f32]), Block([f32])
>>> flag, x = entry.arguments
>>> br = CondBranchOp.build(flag, join, [x], join, [x])
>>> br.successor_operands(1) == (x,), br.attributes["operandSegmentSizes"]
(True, DenseArrayAttr(element_type=IntegerType(width=32), values=(1, 1, 1)))
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.block import Block
from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.registry import Dialect, register_dialect
from tinycomp.ir.types import i1, i32
from tinycomp.ir.values import Value


class BranchOp(Operation):
    """Jump to a block, passing values to its arguments: ``cf.br ^bb1(%x : f32)``."""

    name = "cf.br"
    is_pure = True
    num_results = 0
    num_regions = 0
    num_successors = 1
    is_terminator = True
    has_custom_syntax = True

    @classmethod
    def build(cls, dest: Block, operands: Sequence[Value] = ()) -> BranchOp:
        """Branch to ``dest`` with ``operands`` for its arguments."""
        return cls(operands, [], None, [], [dest])

    @property
    def dest(self) -> Block:
        """The target block."""
        return self.successors[0]

    def successor_operands(self, index: int) -> Sequence[Value]:
        return self.operands

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_successor_and_operands(self.dest, self.operands)
        printer.print_attr_dict(self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        dest, operands = parser.parse_successor_and_operands()
        attributes = parser.parse_optional_attr_dict()
        return cls(operands, [], attributes, [], [dest])


class CondBranchOp(Operation):
    """Jump to one of two blocks depending on an ``i1``:
    ``cf.cond_br %c, ^bb1(%x : f32), ^bb2``.

    Operands are ``[condition, *true_operands, *false_operands]``; the attribute
    ``operandSegmentSizes = array<i32: 1, n_true, n_false>`` says where each group ends
    (MLIR's way of storing several variadic operand groups in one list).
    """

    name = "cf.cond_br"
    is_pure = True
    num_results = 0
    num_regions = 0
    num_successors = 2
    is_terminator = True
    has_custom_syntax = True
    inherent_attributes = ("operandSegmentSizes",)

    @classmethod
    def build(
        cls,
        condition: Value,
        true_dest: Block,
        true_operands: Sequence[Value],
        false_dest: Block,
        false_operands: Sequence[Value] = (),
    ) -> CondBranchOp:
        """Branch to ``true_dest`` if ``condition`` else to ``false_dest``."""
        sizes = DenseArrayAttr(i32, [1, len(true_operands), len(false_operands)])
        operands = [condition, *true_operands, *false_operands]
        return cls(operands, [], {"operandSegmentSizes": sizes}, [], [true_dest, false_dest])

    @property
    def condition(self) -> Value:
        """The ``i1`` deciding the branch."""
        return self.operands[0]

    def _segment_sizes(self) -> tuple[int, ...] | None:
        sizes = self.attributes.get("operandSegmentSizes")
        if not isinstance(sizes, DenseArrayAttr) or len(sizes) != 3 or sizes.values[0] != 1:
            return None
        if sum(sizes.values) != len(self.operands) or min(sizes.values) < 0:
            return None
        return sizes.values

    def successor_operands(self, index: int) -> Sequence[Value] | None:
        sizes = self._segment_sizes()
        if sizes is None:
            return None
        start = 1 if index == 0 else 1 + sizes[1]
        return self.operands[start : start + sizes[1 + index]]

    def verify_op(self) -> None:
        if self._segment_sizes() is None:
            raise self.error(
                "expected 'operandSegmentSizes = array<i32: 1, n_true, n_false>' adding up to "
                f"{len(self.operands)} operands, got {self.attributes.get('operandSegmentSizes')}"
            )
        if self.condition.type != i1:
            raise self.error(f"expected an i1 condition, got {self.condition.type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.condition)
        for index, dest in enumerate(self.successors):
            printer.write(", ")
            printer.print_successor_and_operands(dest, self.successor_operands(index))
        printer.print_attr_dict(self.attributes, elided=["operandSegmentSizes"])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        condition = parser.resolve_operand(parser.parse_operand(), i1)
        parser.parse_punct(",")
        true_dest, true_operands = parser.parse_successor_and_operands()
        parser.parse_punct(",")
        false_dest, false_operands = parser.parse_successor_and_operands()
        attributes = parser.parse_optional_attr_dict()
        op = cls.build(condition, true_dest, true_operands, false_dest, false_operands)
        op.attributes.update(attributes)
        return op


CF = Dialect("cf", (BranchOp, CondBranchOp))
"""The cf dialect (registered on import)."""
register_dialect(CF)
