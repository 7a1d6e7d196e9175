"""Pieces of custom syntax that ops of several dialects write the same way.

MLIR's ops are declared with assembly formats built from a few recurring pieces; these
are the ones tinycomp's dialects share, each as a ``print_*``/``parse_*`` pair so that
one piece of text is read back exactly as it was written:

* **values with their types**, ``%a, %b : f32, index`` (nothing at all when there are
  none): the terminators ``scf.yield``, ``affine.yield`` and ``func.return``; and one
  operand, ``%x {attrs} : f32``: ``memref.rank``, ``memref.dealloc``, ``tensor.yield``,
  ``scf.reduce.return``;
* **dimensions and symbols**, ``(%i, %j)[%n]``: an affine map's operands, and
  ``memref.alloc``'s sizes and layout symbols;
* **a type pair**, `` : tensor<?xf32> to tensor<4xf32>`` (``into`` for reshapes and
  ``insert_slice``): casts, views, slices and reshapes;
* **an indexed element**, ``%A[%i, %j] : memref<4x4xf32>``, one ``index`` value per
  dimension: ``memref.load``/``store`` and ``tensor.extract``/``insert``, with their
  shared check ``check_indices`` (and ``check_dynamic_sizes``: one value per ``?`` of a
  type, as ``tensor.empty(%n)`` and ``memref.alloc(%n)`` take them).

>>> from tinycomp.ir import parse
>>> f = parse('''
... func.func @f(%A: memref<4x4xf32>, %i: index) -> f32 {
...   %x = memref.load %A[%i, %i] : memref<4x4xf32>
...   %c = memref.cast %A : memref<4x4xf32> to memref<?x4xf32>
...   return %x : f32
... }''').body.first_op
>>> [op.name for op in f.entry_block.ops]
['memref.load', 'memref.cast', 'func.return']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import DYNAMIC, ShapedType, Type, index
from tinycomp.ir.values import Value


# -- %a, %b : f32, index ------------------------------------------------------------------------
def print_values_with_types(printer: Printer, values: Sequence[Value]) -> None:
    """`` %a, %b : f32, index`` (with a leading space); nothing without values."""
    if values:
        printer.write(" ")
        printer.print_operands(values)
        printer.write(" : ")
        printer.print_types(v.type for v in values)


def parse_values_with_types(parser: Parser) -> list[Value]:
    """Read ``%a, %b : f32, index`` if a value is next, and resolve the values."""
    operands = parser.parse_operand_list()
    if not operands:
        return []
    if not parser.parse_optional_punct(":"):
        raise parser.expected("':' and the types of the values")
    return parser.resolve_operands(operands, parser.parse_type_list())


# -- %x {attrs} : T ---------------------------------------------------------------------------
def print_typed_operand(printer: Printer, op: Operation, value: Value) -> None:
    """`` %x {attrs} : f32``: one operand, ``op``'s attributes, the operand's type."""
    printer.write(" ")
    printer.print_operand(value)
    printer.print_attr_dict(op.attributes)
    printer.write(" : ")
    printer.print_type(value.type)


def parse_typed_operand(parser: Parser) -> tuple[Value, dict]:
    """Read ``%x {attrs} : f32``: the resolved value and the attributes."""
    operand = parser.parse_operand()
    attributes = parser.parse_optional_attr_dict()
    return parser.resolve_operand(operand, parser.parse_colon_type()), attributes


# -- (%i, %j)[%n] -----------------------------------------------------------------------------
def print_dims_and_symbols(printer: Printer, operands: Sequence[Value], num_dims: int) -> None:
    """``(%i, %j)[%n]``: always the parentheses, brackets only if there are symbols
    (an affine map's operands; ``memref.alloc``'s sizes and layout symbols)."""
    printer.write("(")
    printer.print_operands(operands[:num_dims])
    printer.write(")")
    if len(operands) > num_dims:
        printer.write("[")
        printer.print_operands(operands[num_dims:])
        printer.write("]")


def parse_dims_and_symbols(parser: Parser) -> tuple[list[Value], int]:
    """Read ``(%i, %j)[%n]`` (the brackets are optional); return the operands, resolved
    as ``index``, and how many of them come before the brackets."""
    parser.parse_punct("(")
    dims = parser.parse_operand_list()
    parser.parse_punct(")")
    symbols = []
    if parser.parse_optional_punct("["):
        symbols = parser.parse_operand_list()
        parser.parse_punct("]")
    names = [*dims, *symbols]
    return parser.resolve_operands(names, [index] * len(names)), len(dims)


# -- : T to U ---------------------------------------------------------------------------------
def print_type_pair(printer: Printer, source: Type, result: Type, keyword: str = "to") -> None:
    """`` : memref<4xf32> to memref<?xf32>`` (``keyword`` is ``to`` or ``into``)."""
    printer.write(" : ")
    printer.print_type(source)
    printer.write(f" {keyword} ")
    printer.print_type(result)


def parse_type_pair(parser: Parser, keyword: str = "to") -> tuple[Type, Type]:
    """Read ``: T to U``; returns ``(T, U)``."""
    source = parser.parse_colon_type()
    parser.parse_keyword(keyword)
    return source, parser.parse_type()


# -- %A[%i, %j] : type ------------------------------------------------------------------------
def print_indexed_access(
    printer: Printer,
    container: Value,
    indices: Sequence[Value],
    attributes: Mapping[str, Attribute],
    elided: Sequence[str] = (),
) -> None:
    """``%A[%i, %j] {attrs} : memref<4x4xf32>``, leaving the ``elided`` attributes out."""
    printer.print_operand(container)
    printer.write("[")
    printer.print_operands(indices)
    printer.write("]")
    printer.print_attr_dict(attributes, elided=elided)
    printer.write(" : ")
    printer.print_type(container.type)


def parse_indexed_access(
    parser: Parser, kind: type[ShapedType], what: str
) -> tuple[list[Value], ShapedType, dict[str, Attribute]]:
    """Read ``%A[%i, %j] {attrs} : type``, where the type must be a ``kind`` (``what``
    names it in the error: ``"a memref"``). Returns ``[container, *indices]`` as values,
    the container's type and the attributes."""
    container = parser.parse_operand()
    parser.parse_punct("[")
    indices = parser.parse_operand_list()
    parser.parse_punct("]")
    attributes = parser.parse_optional_attr_dict()
    type_token = parser.token
    container_type = parser.parse_colon_type()
    if not isinstance(container_type, kind):
        raise parser.error(f"expected {what} type, got {container_type}", type_token)
    values = [parser.resolve_operand(container, container_type)]
    values += parser.resolve_operands(indices, [index] * len(indices))
    return values, container_type, attributes


def check_dynamic_sizes(op: Operation, shaped_type: ShapedType, sizes: Sequence[Value]) -> None:
    """One ``index`` value in ``sizes`` per ``?`` of ``shaped_type`` (the ``(%n)`` of
    ``tensor.empty``, ``memref.alloc``...), or a verify error."""
    dynamic = sum(1 for size in shaped_type.shape if size is DYNAMIC)
    if len(sizes) != dynamic:
        raise op.error(
            f"expected {dynamic} dynamic size operands (one per '?' in {shaped_type}), "
            f"got {len(sizes)}"
        )
    for value in sizes:
        if value.type != index:
            raise op.error(f"expected index sizes, got {value.type}")


def check_indices(op: Operation, container_type: ShapedType, indices: Sequence[Value]) -> None:
    """One ``index`` value per dimension of ``container_type``, or a verify error."""
    if len(indices) != container_type.rank:
        raise op.error(
            f"expected {container_type.rank} indices (the rank of {container_type}), "
            f"got {len(indices)}"
        )
    for position, value in enumerate(indices):
        if value.type != index:
            raise op.error(f"expected index #{position} to be an index, got {value.type}")


__all__ = [
    "check_dynamic_sizes", "check_indices", "parse_dims_and_symbols", "parse_indexed_access",
    "parse_type_pair", "print_dims_and_symbols",
    "parse_typed_operand", "parse_values_with_types", "print_indexed_access", "print_type_pair",
    "print_typed_operand", "print_values_with_types",
]  # fmt: skip
