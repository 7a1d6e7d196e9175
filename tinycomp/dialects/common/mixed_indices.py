"""Mixed static/dynamic index lists: the ``[%o, 0] [4, %n] [1, 1]`` of slices and views.

Offsets, sizes and strides of ``memref.subview`` and ``tensor.extract_slice`` (and the
padding of ``tensor.pad``, the ``output_shape`` of ``expand_shape``...) are often
partly known at compile time. MLIR writes each list as one mix of integers and SSA
``index`` values (``[%i, 2]``) and stores it in two places, and tinycomp does the same so
the generic form matches:

* a ``static_*`` array attribute with one entry per position, holding the sentinel
  ``DYNAMIC_INDEX`` (the smallest i64, MLIR's ``ShapedType::kDynamic``) where the entry
  is a value: ``static_offsets = array<i64: -9223372036854775808, 2>``;
* the values themselves, in order, as operands.

In Python an entry is an ``int`` or a ``Value`` (``MixedIndex``, MLIR's
``OpFoldResult``); builders take lists of them.

>>> from tinycomp.ir import Block, index
>>> i = Block([index]).arguments[0]
>>> static, dynamic = split_mixed([i, 2])
>>> print(static)
array<i64: -9223372036854775808, 2>
>>> dynamic == [i], join_mixed(static, dynamic) == [i, 2]
(True, True)
>>> static_or_dynamic(static)
(None, 2)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.ssa_scopes import UnresolvedOperand
from tinycomp.ir.types import DYNAMIC, Shape, i64, index
from tinycomp.ir.values import Value

DYNAMIC_INDEX = -(2**63)
"""The value a ``static_*`` array holds where the real value is an SSA operand."""

MixedIndex = int | Value
"""One offset, size or stride: known now (``int``) or at run time (an ``index`` value)."""


# -- the two representations -------------------------------------------------------------
def split_mixed(entries: Sequence[MixedIndex]) -> tuple[DenseArrayAttr, list[Value]]:
    """The ``array<i64: ...>`` of static entries (``DYNAMIC_INDEX`` for values) and the
    list of dynamic values."""
    static: list[int] = []
    dynamic: list[Value] = []
    for entry in entries:
        if isinstance(entry, Value):
            static.append(DYNAMIC_INDEX)
            dynamic.append(entry)
        else:
            static.append(int(entry))
    return DenseArrayAttr(i64, static), dynamic


def join_mixed(static: DenseArrayAttr, dynamic: Sequence[Value]) -> list[MixedIndex]:
    """The entries again: each ``DYNAMIC_INDEX`` replaced by the next dynamic value.
    Raises ``ValueError`` when the counts disagree (the verifier reports that first)."""
    values = iter(dynamic)
    entries: list[MixedIndex] = []
    for number in static.values:
        if number == DYNAMIC_INDEX:
            value = next(values, None)
            if value is None:
                raise ValueError("more dynamic entries than values")
            entries.append(value)
        else:
            entries.append(number)
    if next(values, None) is not None:
        raise ValueError("more values than dynamic entries")
    return entries


def count_dynamic(static: DenseArrayAttr) -> int:
    """How many entries of ``static`` are dynamic (so how many operands the list takes)."""
    return sum(1 for number in static.values if number == DYNAMIC_INDEX)


def static_or_none(entry: MixedIndex) -> int | None:
    """The constant of an entry, ``None`` (``DYNAMIC``) for a value."""
    return None if isinstance(entry, Value) else entry


def static_shape(entries: Sequence[MixedIndex]) -> Shape:
    """The entries as a shape, ``?`` (``None``) for values: the type of a slice of
    these sizes.

    >>> static_shape([4, 8])
    (4, 8)
    """
    return tuple(static_or_none(entry) for entry in entries)


def static_or_dynamic(static: DenseArrayAttr) -> tuple[int | None, ...]:
    """The static entries with ``DYNAMIC_INDEX`` turned into ``DYNAMIC`` (``None``), the
    way types write unknown sizes: ``(None, 2)``."""
    return tuple(DYNAMIC if v == DYNAMIC_INDEX else v for v in static.values)


def format_sizes(shape: Shape) -> str:
    """``4x?x8`` (as in a type), for messages.

    >>> format_sizes((4, None, 8))
    '4x?x8'
    """
    return "x".join("?" if s is DYNAMIC else str(s) for s in shape)


# -- text ------------------------------------------------------------------------------------
def print_mixed(printer: Printer, entries: Sequence[MixedIndex]) -> None:
    """``[%o, 0]``."""
    printer.write("[")
    for position, entry in enumerate(entries):
        if position:
            printer.write(", ")
        if isinstance(entry, Value):
            printer.print_operand(entry)
        else:
            printer.write(str(entry))
    printer.write("]")


def print_index_list(printer: Printer, static: DenseArrayAttr, dynamic: Sequence[Value]) -> None:
    """``[%i, 2]`` from the two stored parts."""
    print_mixed(printer, join_mixed(static, dynamic))


def parse_mixed(parser: Parser) -> list[int | UnresolvedOperand]:
    """Read ``[%o, 0]``; values come back unresolved (see ``resolve_mixed``)."""
    parser.parse_punct("[")

    def parse_entry() -> int | UnresolvedOperand:
        if parser.token.kind == "percent_id":
            return parser.parse_operand()
        return parser.parse_integer("an integer or an index value")

    entries = parser.parse_comma_separated(parse_entry, "]")
    parser.parse_punct("]")
    return entries


def resolve_mixed(parser: Parser, entries: Sequence[int | UnresolvedOperand]) -> list[MixedIndex]:
    """Turn the value names of a parsed list into ``index`` values."""
    return [
        parser.resolve_operand(e, index) if isinstance(e, UnresolvedOperand) else e for e in entries
    ]


def parse_index_list(parser: Parser) -> tuple[DenseArrayAttr, list[Value]]:
    """Read ``[%i, 2]`` into the two stored parts (values resolved as ``index``)."""
    return split_mixed(resolve_mixed(parser, parse_mixed(parser)))


# -- checks ----------------------------------------------------------------------------------
def check_static_array(
    op: Operation, attr, name: str, length: int | None, what: str = ""
) -> DenseArrayAttr:
    """``attr``, the attribute ``name``, as an ``array<i64: ...>`` of ``length`` entries
    (if given), or a verify error; ``what`` as in ``check_index_list``."""
    what = what or name.removeprefix("static_")
    if not isinstance(attr, DenseArrayAttr) or attr.element_type != i64:
        raise op.error(f"expected '{name}' to be array<i64: ...>, got {attr}")
    if length is not None and len(attr) != length:
        raise op.error(f"expected {length} {what} (one per dimension), got {len(attr)}")
    return attr


def check_index_list(
    op: Operation,
    static,
    dynamic: Sequence[Value],
    what: str,
    length: int | None,
    name: str = "",
) -> DenseArrayAttr:
    """Verify one list and return its ``static`` part: an ``array<i64: ...>`` of
    ``length`` entries (if given) with one ``index`` operand in ``dynamic`` per dynamic
    entry. ``what`` names the list in messages (``"offsets"``), ``name`` its attribute
    (by default ``static_`` + ``what``)."""
    static = check_static_array(op, static, name or f"static_{what}", length, what)
    expected = count_dynamic(static)
    if expected != len(dynamic):
        raise op.error(
            f"expected {expected} dynamic {what} operands (one per '?' entry), got {len(dynamic)}"
        )
    for value in dynamic:
        if value.type != index:
            raise op.error(f"expected index {what}, got {value.type}")
    return static


def is_rank_reduction(full: Shape, reduced: Shape) -> bool:
    """Whether ``reduced`` is ``full`` with some static unit dimensions left out.

    >>> is_rank_reduction((1, 8), (8,)), is_rank_reduction((4, 8), (8,))
    (True, False)
    """
    position = 0
    for size in full:
        if position < len(reduced) and reduced[position] == size:
            position += 1
        elif size != 1:
            return False
    return position == len(reduced)


__all__ = [
    "DYNAMIC_INDEX", "MixedIndex", "check_index_list", "check_static_array", "count_dynamic",
    "format_sizes",
    "is_rank_reduction", "join_mixed", "parse_index_list", "parse_mixed", "print_index_list",
    "print_mixed", "resolve_mixed", "split_mixed", "static_or_dynamic", "static_or_none",
    "static_shape",
]  # fmt: skip
