"""Pieces of linalg's custom syntax that several ops share.

Every linalg op lists its operands the same way, ``ins(%a, %b : tensor<4x8xf32>,
tensor<8x16xf32>) outs(%c : tensor<4x16xf32>)``, and most end with the result types,
``-> tensor<4x16xf32>`` (nothing for ops on memrefs). ``linalg.map`` and
``linalg.reduce`` show their body in one of two ways, exactly as ``mlir-opt`` prints it:

* the **short form**, when the body is one op applied to the block arguments in order
  (for ``reduce``: the accumulator first), whose result is yielded::

      %mapped = linalg.map { arith.addf } ins(%a, %b : ...) outs(%c : ...)

* the **long form** otherwise: the block arguments in parentheses on a new line,
  then the region::

      %reduced = linalg.reduce ins(%a : ...) outs(%r : ...) dimensions = [1]
        (%in: f32, %init: f32) {
          %0 = arith.maximumf %in, %init : f32
          linalg.yield %0 : f32
        }

Iterator types are stored as MLIR stores them, ``#linalg.iterator_type<parallel>``
(the generic form needs that spelling), and shown as plain strings in custom syntax.

>>> print(iterator_type_attr("reduction"), iterator_kind(iterator_type_attr("parallel")))
#linalg.iterator_type<reduction> parallel
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.operand_segments import SEGMENTS as SEGMENT_SIZES
from tinycomp.dialects.common.operand_segments import segment_sizes
from tinycomp.ir.attributes import ArrayAttr, Attribute, OpaqueAttr, StringAttr
from tinycomp.ir.block import Block
from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.equality import effective_attributes
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.types import Type, i64
from tinycomp.ir.values import Value

PARALLEL = "parallel"
"""A loop whose iterations are independent."""
REDUCTION = "reduction"
"""A loop that accumulates into the outputs (its iterations depend on each other)."""
ITERATOR_KINDS = (PARALLEL, REDUCTION)
"""The iterator types linalg knows."""
_FASTMATH_NONE = "#arith.fastmath<none>"


# -- iterator types ------------------------------------------------------------------------
def iterator_type_attr(kind: str) -> OpaqueAttr:
    """``#linalg.iterator_type<kind>``, the stored form of an iterator type."""
    if kind not in ITERATOR_KINDS:
        raise ValueError(f"expected an iterator type in {ITERATOR_KINDS}, got {kind!r}")
    return OpaqueAttr(f"#linalg.iterator_type<{kind}>")


def iterator_kind(attr: Attribute) -> str | None:
    """``"parallel"`` for ``#linalg.iterator_type<parallel>``, ``None`` for anything else
    (a string too: MLIR's generic form rejects ``"parallel"``)."""
    if not isinstance(attr, OpaqueAttr):
        return None
    text = attr.text.removeprefix("#linalg.iterator_type<").removesuffix(">")
    if text == attr.text:
        return None
    return text if text in ITERATOR_KINDS else None


def iterator_kind_in_custom_form(attr: Attribute) -> str | None:
    """Custom syntax writes iterator types as strings (``"parallel"``); MLIR's parser
    also takes the attribute spelling there."""
    if isinstance(attr, StringAttr):
        return attr.value if attr.value in ITERATOR_KINDS else None
    return iterator_kind(attr)


def iterator_types_attr(kinds: Sequence[str]) -> ArrayAttr:
    """The ``iterator_types`` attribute for a list of kinds."""
    return ArrayAttr([iterator_type_attr(kind) for kind in kinds])


def segment_sizes_attr(num_inputs: int, num_outputs: int) -> DenseArrayAttr:
    """``array<i32: num_inputs, num_outputs>``: the ``operandSegmentSizes`` (here named
    ``SEGMENT_SIZES``) that splits a linalg op's operands into ``ins`` and ``outs``."""
    return segment_sizes(num_inputs, num_outputs)


def i64_array(values: Sequence[int]) -> DenseArrayAttr:
    """``array<i64: ...>``: how ``permutation`` and ``dimensions`` are stored."""
    return DenseArrayAttr(i64, list(values))


# -- ins(...) outs(...) -> types -------------------------------------------------------------
def print_ins_outs(printer: Printer, inputs: Sequence[Value], outputs: Sequence[Value]) -> None:
    """`` ins(%a : t) outs(%c : t)``; an empty list is left out, as MLIR does."""
    for keyword, values in (("ins", inputs), ("outs", outputs)):
        if values:
            printer.write(f" {keyword}(")
            printer.print_operands(values)
            printer.write(" : ")
            printer.print_types(v.type for v in values)
            printer.write(")")


def parse_ins_outs(parser: Parser) -> tuple[list[Value], list[Value]]:
    """Read optional ``ins(...)`` and ``outs(...)``; returns the resolved values."""
    groups: list[list[Value]] = []
    for keyword in ("ins", "outs"):
        values: list[Value] = []
        if parser.parse_optional_keyword(keyword):
            parser.parse_punct("(")
            names = parser.parse_operand_list()
            if names:
                parser.parse_punct(":")
                types = parser.parse_type_list()
                values = parser.resolve_operands(names, types)
            parser.parse_punct(")")
        groups.append(values)
    return groups[0], groups[1]


def print_result_arrow(printer: Printer, result_types: Sequence[Type]) -> None:
    """`` -> tensor<...>`` or `` -> (t1, t2)``; nothing without results."""
    if result_types:
        printer.write(" -> ")
        printer.print_result_types(result_types)


def parse_optional_result_arrow(parser: Parser) -> list[Type]:
    """Read ``-> types`` if it is next."""
    if parser.parse_optional_punct("->"):
        return parser.parse_result_types()
    return []


def print_dims_attr(printer: Printer, keyword: str, values: Sequence[int]) -> None:
    """`` dimensions = [1, 2] `` (MLIR prints the trailing space too)."""
    printer.write(f" {keyword} = [{', '.join(str(v) for v in values)}] ")


def parse_dims_attr(parser: Parser, keyword: str) -> DenseArrayAttr:
    """Read ``keyword = [1, 2]`` into ``array<i64: 1, 2>``."""
    parser.parse_keyword(keyword)
    parser.parse_punct("=")
    parser.parse_punct("[")
    values = parser.parse_comma_separated(parser.parse_integer, "]")
    parser.parse_punct("]")
    return i64_array(values)


# -- bodies: long form and short form ----------------------------------------------------------
def print_region_with_arguments(printer: Printer, region: Region) -> None:
    """The long form: a new line one level deeper, ``(%in: f32, %init: f32) {``, the
    body two levels deeper and ``}`` one level deeper (MLIR's layout)."""
    block = region.entry_block
    arguments = block.arguments if block is not None else ()
    with printer.indented():
        printer.print_newline()
        printer.write("(")
        printer.print_arguments(arguments)
        printer.write(") ")
        printer.print_region(region, print_entry_args=False)


def parse_region_with_arguments(parser: Parser) -> Region:
    """Read ``(%in: f32, %init: f32) { ... }``."""
    parser.parse_punct("(")
    arguments = parser.parse_comma_separated(parser.parse_argument, ")")
    parser.parse_punct(")")
    return parser.parse_region(arguments)


def find_short_form_payload(block: Block, accumulator_first: bool) -> Operation | None:
    """The op the short form would name, or ``None`` when the body needs the long form.

    The body must be exactly ``%r = payload(args) ; linalg.yield %r``, where ``args``
    are the block arguments in order, the last one (the output) left out; with
    ``accumulator_first`` (``linalg.reduce``) the output comes first instead.
    """
    ops = block.ops
    if len(ops) != 2:
        return None
    payload, terminator = ops
    arguments = list(block.arguments)
    if len(arguments) < 2 or payload.regions or len(payload.results) != 1:
        return None
    if terminator.operands != (payload.result,):
        return None
    expected = [arguments[-1], *arguments[:-1]] if accumulator_first else arguments[:-1]
    if list(payload.operands) != expected:
        return None
    return payload


def print_short_form(printer: Printer, payload: Operation) -> None:
    """`` { arith.addf }``, with the payload's attributes (those MLIR always stores,
    such as ``overflowFlags``, included) except a ``fastmath`` of ``none``."""
    attributes = effective_attributes(payload)
    shown = {k: v for k, v in attributes.items() if str(v) != _FASTMATH_NONE}
    printer.write(" { " + payload.name)
    printer.print_attr_dict(shown)
    printer.write(" }")


def parse_optional_short_form(parser: Parser) -> tuple[str, dict[str, Attribute]] | None:
    """Read ``{ op.name {attrs} }`` if it is next: the payload's name and attributes."""
    if not parser.parse_optional_punct("{"):
        return None
    name = parser.parse_identifier("a payload op name like 'arith.addf'")
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punct("}")
    return name, attributes


def short_form_region(
    name: str,
    attributes: dict[str, Attribute],
    input_types: Sequence[Type],
    output_type: Type,
    accumulator_first: bool,
) -> Region:
    """The body a short form stands for: one block argument per input, then the
    output's; ``name`` applied to them (see ``find_short_form_payload``) and yielded."""
    from tinycomp.dialects.linalg.generic import YieldOp

    block = Block([*input_types, output_type])
    arguments = list(block.arguments)
    operands = [arguments[-1], *arguments[:-1]] if accumulator_first else arguments[:-1]
    payload = Operation.create(name, operands, [output_type], attributes)
    block.append(payload)
    block.append(YieldOp.build([payload.result]))
    return Region([block])


__all__ = [
    "ITERATOR_KINDS", "PARALLEL", "REDUCTION", "SEGMENT_SIZES", "find_short_form_payload",
    "i64_array", "iterator_kind", "iterator_kind_in_custom_form", "iterator_type_attr",
    "iterator_types_attr",
    "parse_dims_attr", "parse_ins_outs", "parse_optional_result_arrow",
    "parse_optional_short_form", "parse_region_with_arguments", "print_dims_attr",
    "print_ins_outs", "print_region_with_arguments", "print_result_arrow", "print_short_form",
    "segment_sizes_attr", "short_form_region",
]  # fmt: skip
