"""Affine maps written with SSA names: ``%A[%i + 1, %j * 2]`` and ``#map(%i)[%n]``.

The affine ops store an ``AffineMap`` attribute plus its operands (dimensions first,
then symbols), but their custom syntax writes the map applied to SSA values. Two forms:

* **Subscripts** (``affine.load``/``affine.store``): each map result is written with
  the operands in place of ``d0, d1, ...``; a symbol is wrapped as ``symbol(%n)``.
  ``%A[%i + symbol(%n), %j floordiv 4]`` is the map
  ``(d0, d1)[s0] -> (d0 + s0, d1 floordiv 4)`` applied to ``(%i, %j, %n)``. Reading
  it back, dimensions and symbols are numbered in the order they first appear (as MLIR
  does), so printing then parsing gives the same map and operands.
* **Map and operand lists** (``affine.apply``, loop bounds, ``affine.if``): the map
  itself, then its dimension operands in parentheses and its symbol operands in
  brackets: ``affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%n]``.

Printing a subscript reuses ``tinycomp.affine``'s expression printer and then swaps each
``dN``/``sN`` for its operand's name; parsing turns the names into ``dN``/``sN`` and hands
the text to ``tinycomp.affine.parse_affine_map``.

>>> from tinycomp.ir import parse
>>> f = parse('''
... func.func @f(%A: memref<8x8xf32>, %n: index) -> f32 {
...   %c1 = arith.constant 1 : index
...   %x = affine.load %A[%c1 + symbol(%n), %c1 * 2] : memref<8x8xf32>
...   return %x : f32
... }''').body.first_op
>>> print(f.entry_block.ops[1].attributes["map"])
affine_map<(d0)[s0] -> (d0 + s0, d0 * 2)>
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tinycomp.affine import AffineConstantExpr, AffineExpr, AffineMap, parse_affine_map, sym
from tinycomp.affine.printer import format_expr
from tinycomp.dialects.common.syntax import parse_dims_and_symbols, print_dims_and_symbols
from tinycomp.ir.attributes import AffineMapAttr, IntegerAttr
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.ssa_scopes import UnresolvedOperand
from tinycomp.ir.types import index
from tinycomp.ir.values import Value

_DIM_OR_SYMBOL = re.compile(r"\b([ds])([0-9]+)\b")


# -- subscripts ----------------------------------------------------------------------------
def print_subscripts(printer: Printer, affine_map: AffineMap, operands: Sequence[Value]) -> None:
    """``%i + 1, symbol(%n)``: the map's results with operand names put in."""
    names = [printer.names.value_name(v) for v in operands]

    def name_of(match: re.Match[str]) -> str:
        position = int(match.group(2))
        if match.group(1) == "d":
            return names[position]
        return f"symbol({names[affine_map.num_dims + position]})"

    texts = [_DIM_OR_SYMBOL.sub(name_of, format_expr(result)) for result in affine_map.results]
    printer.write(", ".join(texts))


def parse_subscripts(parser: Parser, close: str = "]") -> tuple[AffineMap, list[Value]]:
    """Read subscripts up to ``close`` (not consumed); return the map and its operands
    (dimensions in order of first appearance, then symbols), resolved as ``index``.

    1. Walk the tokens up to ``close`` (outside parentheses). Each ``%x`` becomes the
       next ``dN`` and each ``symbol(%x)`` the next ``sN``, the first time the value is
       seen; a value seen again keeps its first name and role, as in MLIR.
    2. Copy every other token (numbers, ``+``, ``floordiv``, parentheses) as it is.
    3. Parse ``(d0, ...)[s0, ...] -> (<the text>)`` with ``tinycomp.affine``.
    4. Resolve the operands, dimensions first, as ``index`` values.
    """
    start = parser.token
    dims: list[UnresolvedOperand] = []
    symbols: list[UnresolvedOperand] = []
    seen: dict[tuple[str, int], str] = {}  # a value keeps the role it had first (as in MLIR)
    pieces: list[str] = []
    depth = 0
    while depth > 0 or not parser.token.is_punct(close):
        token = parser.token
        if token.kind == "eof":
            raise parser.expected(f"'{close}'")
        if token.kind == "percent_id" or token.is_keyword("symbol"):
            is_symbol = parser.parse_optional_keyword("symbol")
            if is_symbol:
                parser.parse_punct("(")
            operand = parser.parse_operand()
            if is_symbol:
                parser.parse_punct(")")
            key = (operand.name, operand.number)
            if key not in seen:
                group, stem = (symbols, "s") if is_symbol else (dims, "d")
                seen[key] = f"{stem}{len(group)}"
                group.append(operand)
            pieces.append(seen[key])
        else:
            depth += 1 if token.is_punct("(") else -1 if token.is_punct(")") else 0
            pieces.append(parser.advance().text)
    dim_names = ", ".join(f"d{i}" for i in range(len(dims)))
    symbol_names = ", ".join(f"s{i}" for i in range(len(symbols)))
    text = f"({dim_names})[{symbol_names}] -> ({' '.join(pieces)})"
    try:
        affine_map = parse_affine_map(text)
    except ValueError as error:
        message = str(error).splitlines()[0].split(": ", 1)[-1]
        raise parser.error(f"invalid affine subscripts: {message}", start) from None
    names = [*dims, *symbols]
    return affine_map, parser.resolve_operands(names, [index] * len(names))


# -- maps with operand lists -----------------------------------------------------------------
def print_map_and_operands(
    printer: Printer, map_attr: AffineMapAttr, operands: Sequence[Value]
) -> None:
    """``affine_map<...>(%i)[%n]`` (the module printer turns the map into ``#map``)."""
    printer.print_attribute(map_attr)
    print_dims_and_symbols(printer, operands, map_attr.map.num_dims)


def parse_map_and_operands(parser: Parser) -> tuple[AffineMapAttr, list[Value]]:
    """Read ``#map(%i)[%n]``; the operand counts must match the map."""
    token = parser.token
    attr = parser.parse_attribute()
    if not isinstance(attr, AffineMapAttr):
        raise parser.error(f"expected an affine map, got {attr}", token)
    operands, num_dims = parse_dims_and_symbols(parser)
    check_operand_counts(parser, token, attr.map, len(operands), num_dims)
    return attr, operands


def check_operand_counts(
    parser: Parser, token, affine_map: AffineMap, count: int, num_dims: int
) -> None:
    """Raise a ``ParseError`` at ``token`` unless ``(dims)[symbols]`` fits the map."""
    if num_dims != affine_map.num_dims or count - num_dims != affine_map.num_symbols:
        raise parser.error(
            f"expected {affine_map.num_dims} dimension and {affine_map.num_symbols} symbol "
            f"operands for {affine_map}, got {num_dims} and {count - num_dims}",
            token,
        )


# -- loop bounds ---------------------------------------------------------------------------
def print_bound(
    printer: Printer, map_attr: AffineMapAttr, operands: Sequence[Value], prefix: str
) -> None:
    """A loop bound as MLIR writes it: ``10`` (a constant map), ``%n`` (the map
    ``()[s0] -> (s0)``), ``max #map(%i)[%n]`` (several results), else ``#map(%i)``."""
    affine_map = map_attr.map
    if affine_map.num_results == 1:
        result = affine_map.results[0]
        if affine_map.num_inputs == 0 and _constant(result) is not None:
            printer.write(str(_constant(result)))
            return
        if affine_map.num_dims == 0 and affine_map.num_symbols == 1 and result == sym(0):
            printer.print_operand(operands[0])
            return
    else:
        printer.write(f"{prefix} ")
    print_map_and_operands(printer, map_attr, operands)


def parse_bound(parser: Parser, prefix: str, what: str) -> tuple[AffineMapAttr, list[Value]]:
    """Read a bound in any of the forms ``print_bound`` writes; ``prefix`` is ``max``
    (lower bounds) or ``min`` (upper bounds), required before a map with several results."""
    has_prefix = parser.parse_optional_keyword(prefix)
    if parser.token.kind == "percent_id":
        operand = parser.resolve_operand(parser.parse_operand(), index)
        return AffineMapAttr(AffineMap(0, 1, (sym(0),))), [operand]
    token = parser.token
    attr = parser.parse_attribute()
    if isinstance(attr, IntegerAttr):
        return AffineMapAttr(AffineMap(0, 0, (attr.value,))), []
    if not isinstance(attr, AffineMapAttr):
        raise parser.error(f"expected an integer, an SSA value or an affine map, got {attr}", token)
    operands, num_dims = parse_dims_and_symbols(parser)
    check_operand_counts(parser, token, attr.map, len(operands), num_dims)
    if attr.map.num_results > 1 and not has_prefix:
        raise parser.error(
            f"{what} affine map with multiple results requires '{prefix}' prefix", token
        )
    return attr, operands


def _constant(expr: AffineExpr) -> int | None:
    return expr.value if isinstance(expr, AffineConstantExpr) else None


__all__ = [
    "check_operand_counts",
    "parse_bound",
    "parse_dims_and_symbols",
    "parse_map_and_operands",
    "parse_subscripts",
    "print_bound",
    "print_dims_and_symbols",
    "print_map_and_operands",
    "print_subscripts",
]
