"""Pieces of custom syntax shared by the ops with regions (scf and affine).

* **Implicit terminators.** ``scf.for %i = %a to %b step %c { ... }`` ends its body with
  an ``scf.yield`` that the text leaves out. The parser puts it back
  (``ensure_terminator``, MLIR's ``ensureTerminator``); the printer leaves it out again
  (``print_region(..., print_block_terminators=False)``) when it carries no values.
* **Assignment lists.** ``iter_args(%acc = %init, %n = %zero)`` names a region's block
  arguments and the values they start from (``print_assignment_list`` /
  ``parse_assignment_list``).
* **Result type lists.** ``-> (f32, index)`` after a header (``parse_optional_arrow_types``).
* **Terminator checks.** ``check_terminator_types``: "the yield passes the loop's result
  types", with a message that names both.

>>> from tinycomp.ir import parse
>>> loop = parse('''
... func.func @f(%n: index) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   scf.for %i = %c0 to %n step %c1 {
...   }
...   return
... }''').body.first_op.entry_block.ops[2]
>>> [op.name for op in loop.body.ops]      # the yield the text left out
['scf.yield']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Argument, Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.ssa_scopes import UnresolvedOperand
from tinycomp.ir.types import Type
from tinycomp.ir.values import OpResult, Value


def ensure_terminator(region: Region, make_terminator: Callable[[], Operation]) -> None:
    """Give ``region`` one block if it has none, and end each block that does not end in
    a terminator with ``make_terminator()`` (an empty ``scf.yield``, ``affine.yield``...).

    >>> from tinycomp.dialects.scf import YieldOp
    >>> region = Region()
    >>> ensure_terminator(region, YieldOp.build)
    >>> [op.name for op in region.entry_block.ops]
    ['scf.yield']
    """
    if not region.blocks:
        region.append_block(Block())
    for block in region.blocks:
        last = block.last_op
        if last is None or not last.is_terminator:
            block.append(make_terminator())


def print_assignment_list(
    printer: Printer, keyword: str, arguments: Sequence[Value], values: Sequence[Value]
) -> None:
    """`` iter_args(%acc = %init, ...)`` (nothing at all when there are no arguments)."""
    if not arguments:
        return
    printer.write(f"{keyword}(")
    for position, (argument, value) in enumerate(zip(arguments, values, strict=True)):
        if position:
            printer.write(", ")
        printer.print_operand(argument)
        printer.write(" = ")
        printer.print_operand(value)
    printer.write(")")


def parse_assignment_list(parser: Parser) -> tuple[list, list[UnresolvedOperand]]:
    """``(%acc = %init, ...)``: the tokens of the names being defined and the operands
    they are initialized from (resolve those once their types are known)."""
    names = []
    operands: list[UnresolvedOperand] = []
    parser.parse_punct("(")

    def parse_assignment() -> None:
        names.append(parser.parse_value_name())
        parser.parse_punct("=")
        operands.append(parser.parse_operand())

    parser.parse_comma_separated(parse_assignment, ")")
    parser.parse_punct(")")
    return names, operands


def block_arguments(names: Sequence, types: Sequence[Type]) -> list[Argument]:
    """The ``Argument`` list ``Parser.parse_region`` wants, from name tokens and types."""
    return [
        Argument(token.text, arg_type, {}, token)
        for token, arg_type in zip(names, types, strict=True)
    ]


def parse_optional_arrow_types(parser: Parser) -> list[Type]:
    """``-> f32`` or ``-> (f32, index)`` if next; ``[]`` otherwise."""
    if not parser.parse_optional_punct("->"):
        return []
    return list(parser.parse_result_types())


def format_types(types: Sequence[Type]) -> str:
    """``(f32, index)``: a parenthesized type list, for messages and ``-> (...)``.

    >>> from tinycomp.ir import f32, index
    >>> format_types([f32, index])
    '(f32, index)'
    """
    return "(" + ", ".join(str(t) for t in types) + ")"


def check_terminator_types(
    op: Operation,
    region: Region,
    terminator_name: str,
    expected: Sequence[Type],
    what: str,
    allow_branches: bool = False,
) -> None:
    """Raise unless every block of ``region`` ends in ``terminator_name`` passing values
    of the ``expected`` types; ``what`` says where those types come from (``"the loop
    results"``). With ``allow_branches``, blocks may also end in another terminator
    (a ``cf.br`` inside ``scf.execute_region``)."""
    for number, block in enumerate(region.blocks):
        last = block.last_op
        if (
            last is None
            or not last.is_terminator
            or (last.name != terminator_name and not allow_branches)
        ):
            found = f"'{last.name}'" if last is not None else "an empty block"
            raise op.error(f"expected block #{number} to end with '{terminator_name}', got {found}")
        if last.name != terminator_name:
            continue  # a branch to another block of the region
        found_types = tuple(v.type for v in last.operands)
        if found_types != tuple(expected):
            raise op.error(
                f"expected '{terminator_name}' to pass {format_types(expected)} ({what}), "
                f"got {format_types(found_types)}"
            )


def constant_int(value: Value) -> int | None:
    """The integer an ``arith.constant`` result holds, or ``None`` for any other value.

    >>> from tinycomp.ir import parse
    >>> f = parse("func.func @f() { %c4 = arith.constant 4 : index  return }").body.first_op
    >>> constant_int(f.entry_block.first_op.result)
    4
    """
    if not isinstance(value, OpResult) or value.op.name != "arith.constant":
        return None
    attr = value.op.attributes.get("value")
    return attr.value if isinstance(attr, IntegerAttr) else None


def single_block(op: Operation, region: Region, what: str) -> Block:
    """The one block of ``region``, or a verify error naming ``what`` (``"the body"``)."""
    if len(region.blocks) != 1:
        raise op.error(f"expected {what} to have exactly one block, got {len(region.blocks)}")
    return region.blocks[0]


__all__ = [
    "block_arguments",
    "check_terminator_types",
    "constant_int",
    "ensure_terminator",
    "format_types",
    "parse_assignment_list",
    "parse_optional_arrow_types",
    "print_assignment_list",
    "single_block",
]
