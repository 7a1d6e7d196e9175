"""scf: the counted loop ``scf.for``.

``scf.for`` counts from a lower bound up to (not including) an upper bound; values carried
from one iteration to the next are *iter_args*, initialized from operands, passed on by
``scf.yield`` and returned as results after the last iteration::

    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %buf[%i] : memref<?xf32>
      %next = arith.addf %acc, %x : f32
      scf.yield %next : f32
    }

Operands: ``[lb, ub, step, *init_args]``; the body's block arguments: ``[iv,
*iter_args]``; the unit attribute ``unsignedCmp`` compares the bounds as unsigned.
Bounds may be ``index`` or any integer type (``: i32`` after the header).

>>> from tinycomp.ir import Block, f32, index
>>> lb, ub, step, zero = Block([index, index, index, f32]).arguments
>>> loop = ForOp.build(lb, ub, step, [zero])
>>> _ = loop.body.append(YieldOp.build(loop.region_iter_args))
>>> loop.verify_op()
>>> loop.result_types
(FloatType(name='f32'),)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.region_syntax import block_arguments, ensure_terminator
from tinycomp.dialects.common.structured_control import CountedLoopOp, parse_optional_iter_args
from tinycomp.dialects.scf.control import YieldOp
from tinycomp.ir.attributes import Attribute, UnitAttr
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.types import IndexType, IntegerType, index
from tinycomp.ir.values import Value


class ForOp(CountedLoopOp):
    """A counted loop with loop-carried values:
    ``%r = scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) { ... }``."""

    name = "scf.for"
    has_recursive_effects = True
    yield_name = "scf.yield"
    inherent_attributes = ("unsignedCmp",)

    @classmethod
    def build(
        cls,
        lower_bound: Value,
        upper_bound: Value,
        step: Value,
        init_args: Sequence[Value] = (),
        unsigned: bool = False,
    ) -> ForOp:
        """A loop whose body block has the induction variable and one argument per
        ``init_args``. Without ``init_args`` the body already ends in ``scf.yield``
        (insert before it); with them, end the body with ``YieldOp.build([...])``."""
        body = Block([lower_bound.type, *(v.type for v in init_args)])
        if not init_args:
            body.append(YieldOp.build())
        attributes: dict[str, Attribute] = {"unsignedCmp": UnitAttr()} if unsigned else {}
        operands = [lower_bound, upper_bound, step, *init_args]
        return cls(operands, [v.type for v in init_args], attributes, [Region([body])])

    @property
    def lower_bound(self) -> Value:
        """The first value of the induction variable."""
        return self.operands[0]

    @property
    def upper_bound(self) -> Value:
        """The exclusive end of the iteration range."""
        return self.operands[1]

    @property
    def step(self) -> Value:
        """How much the induction variable grows per iteration."""
        return self.operands[2]

    @property
    def init_args(self) -> tuple[Value, ...]:
        """The initial values of the iter_args."""
        return self.operands[3:]

    @property
    def is_unsigned(self) -> bool:
        """True when the bounds are compared as unsigned integers."""
        return "unsignedCmp" in self.attributes

    def verify_op(self) -> None:
        if len(self.operands) < 3:
            count = len(self.operands)
            raise self.error(f"expected at least 3 operands (lb, ub, step), got {count}")
        bound_types = [v.type for v in self.operands[:3]]
        if len(set(bound_types)) != 1 or not isinstance(bound_types[0], (IndexType, IntegerType)):
            raise self.error(
                "expected lower bound, upper bound and step of one integer or index type, got "
                + ", ".join(map(str, bound_types))
            )
        self.verify_loop_body(bound_types[0], self.init_args)

    def print_custom(self, printer: Printer) -> None:
        if self.is_unsigned:
            printer.write(" unsigned")
        printer.write(" ")
        printer.print_operand(self.induction_var)
        printer.write(" = ")
        printer.print_operand(self.lower_bound)
        printer.write(" to ")
        printer.print_operand(self.upper_bound)
        printer.write(" step ")
        printer.print_operand(self.step)
        self.print_iter_args(printer, self.init_args)
        printer.write(" ")
        if not isinstance(self.induction_var.type, IndexType):
            # MLIR writes " : i32 " after the space above, hence two spaces before ':'.
            printer.write(f" : {self.induction_var.type} ")
        self.print_body(printer)
        printer.print_attr_dict(self.attributes, elided=["unsignedCmp"])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("unsigned"):
            attributes["unsignedCmp"] = UnitAttr()
        iv_name = parser.parse_value_name()
        parser.parse_punct("=")
        lower = parser.parse_operand()
        parser.parse_keyword("to")
        upper = parser.parse_operand()
        parser.parse_keyword("step")
        step = parser.parse_operand()
        arg_names, inits, init_types = parse_optional_iter_args(parser)
        iv_type = parser.parse_type() if parser.parse_optional_punct(":") else index
        bounds = parser.resolve_operands([lower, upper, step], [iv_type] * 3)
        init_values = parser.resolve_operands(inits, init_types)
        arguments = block_arguments([iv_name, *arg_names], [iv_type, *init_types])
        region = parser.parse_region(arguments)
        ensure_terminator(region, YieldOp.build)
        attributes.update(parser.parse_optional_attr_dict())
        return cls([*bounds, *init_values], init_types, attributes, [region])


__all__ = ["ForOp"]
