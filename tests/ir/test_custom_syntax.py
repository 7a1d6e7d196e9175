"""Defining a new op with custom syntax, the way the scf/affine/linalg dialects will.

``tctest.for %i = %lb to %ub { ... }`` has a region whose entry argument (the induction
variable) is named in the op's own syntax, and an implied terminator that is not
printed. It exercises the parser/printer hook API end to end.
"""

from __future__ import annotations

from tinycomp.ir import (
    Block,
    Dialect,
    Operation,
    Region,
    index,
    ir_equal,
    parse,
    print_ir,
    register_dialect,
)
from tinycomp.ir.parser import Argument


class YieldOp(Operation):
    """Ends a ``tctest.for`` body: ``tctest.yield``."""

    name = "tctest.yield"
    num_operands = 0
    num_results = 0
    is_terminator = True


class ForOp(Operation):
    """A counted loop: ``tctest.for %i = %lb to %ub { ... }``."""

    name = "tctest.for"
    num_operands = 2
    num_results = 0
    num_regions = 1
    has_custom_syntax = True

    @classmethod
    def build(cls, lower, upper) -> ForOp:
        body = Block([index])
        body.append(YieldOp())
        return cls([lower, upper], [], None, [Region([body])])

    @property
    def body(self) -> Block:
        return self.regions[0].blocks[0]

    def verify_op(self) -> None:
        if [a.type for a in self.body.arguments] != [index]:
            raise self.error("expected one index argument in the body")

    def print_custom(self, printer) -> None:
        printer.write(" ")
        printer.print_operand(self.body.arguments[0])
        printer.write(" = ")
        printer.print_operands(self.operands)
        printer.write(" ")
        printer.print_region(self.regions[0], print_entry_args=False, print_block_terminators=False)

    @classmethod
    def parse_custom(cls, parser) -> Operation:
        induction = parser.parse_value_name()
        parser.parse_punct("=")
        bounds = parser.resolve_operands(parser.parse_operand_list(), [index, index])
        region = parser.parse_region([Argument(induction.text, index, {}, induction)])
        body = region.blocks[0]
        if body.terminator is None:
            body.append(YieldOp())  # the implied terminator
        return cls(bounds, [], None, [region])


register_dialect(Dialect("tctest", [ForOp, YieldOp]))

TEXT = """module {
  func.func @loop(%arg0: index, %arg1: index) {
    tctest.for %arg2 = %arg0, %arg1 {
      %0 = arith.addi %arg2, %arg2 : index
    }
    return
  }
}"""


def test_custom_op_round_trips_and_hides_its_terminator():
    module = parse(TEXT)
    loop = module.body.first_op.entry_block.first_op
    assert isinstance(loop, ForOp) and isinstance(loop.body.last_op, YieldOp)
    assert print_ir(module) == TEXT
    generic = print_ir(module, generic=True)
    assert '"tctest.yield"() : () -> ()' in generic
    assert ir_equal(parse(generic), module)


def test_custom_op_built_with_the_builder_prints_the_same():
    from tinycomp.dialects import arith, func
    from tinycomp.ir import Builder, FunctionType, InsertionPoint, ModuleOp

    function = func.FuncOp.build("loop", FunctionType([index, index], []))
    lower, upper = function.arguments
    b = Builder.at_end(function.entry_block)
    loop = b.insert(ForOp.build(lower, upper))
    (i,) = loop.body.arguments
    with b.at(InsertionPoint.before(loop.body.last_op)):
        b.insert(arith.AddIOp.build(i, i))
    b.insert(func.ReturnOp.build())
    assert print_ir(ModuleOp.build([function])) == TEXT
