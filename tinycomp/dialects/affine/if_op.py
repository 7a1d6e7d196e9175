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
from tinycomp.dialects.affine.for_op import AffineYieldOp
from tinycomp.dialects.affine.operands import check_dims_and_symbols
from tinycomp.dialects.affine.ssa import parse_dims_and_symbols, print_dims_and_symbols
from tinycomp.dialects.common.region_syntax import parse_optional_arrow_types
from tinycomp.dialects.common.structured_control import IfElseOp
from tinycomp.ir.attributes import IntegerSetAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import Type, format_result_types
from tinycomp.ir.values import Value


class AffineIfOp(IfElseOp):
    """Run the ``then`` or ``else`` region depending on an integer set:
    ``affine.if affine_set<(d0)[s0] : (s0 - d0 - 1 >= 0)>(%i)[%n] { ... }``."""

    name = "affine.if"
    has_recursive_effects = True
    inherent_attributes = ("condition",)
    yield_op = AffineYieldOp

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
        attributes = {"condition": IntegerSetAttr(condition)}
        regions = cls.then_else_regions(result_types, with_else)
        return cls(operands, result_types, attributes, regions)

    @property
    def condition(self) -> IntegerSet:
        """The integer set tested."""
        return self.attributes["condition"].set

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
        self.verify_then_else()

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_attribute(self.attributes["condition"])
        print_dims_and_symbols(printer, self.operands, self.condition.num_dims)
        if self.results:
            printer.write(" -> " + format_result_types(self.result_types))
        self.print_then_else(printer)
        printer.print_attr_dict(self.attributes, elided=["condition"])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
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
        regions = cls.parse_then_else(parser)
        attributes = parser.parse_optional_attr_dict()
        attributes["condition"] = attr
        return cls(operands, result_types, attributes, regions)


__all__ = ["AffineIfOp"]
