"""Mixed static/dynamic index lists: ``[%o, 0] [4, %n] [1, 1]``.

Slices (and pads, and expand_shape's output shape) take lists in which each entry is
either a constant known at compile time or an SSA ``index`` value. MLIR stores such a
list in two parts, and tinycomp does the same so the generic form matches:

* ``static_offsets = array<i64: -9223372036854775808, 0>``: every entry, with
  ``DYNAMIC_INDEX`` (the smallest i64, MLIR's ``ShapedType::kDynamic``) where the entry
  is a value;
* the values themselves, as operands, in order.

In Python an entry is an ``int`` or a ``Value`` (``Mixed``), like MLIR's ``OpFoldResult``.

>>> from tinycomp.ir import Block, index
>>> o = Block([index]).arguments[0]
>>> static, dynamic = split_mixed([o, 0])
>>> static.values, dynamic == [o]
((-9223372036854775808, 0), True)
>>> join_mixed(static, dynamic) == [o, 0]
True
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.ssa_scopes import UnresolvedOperand
from tinycomp.ir.types import DYNAMIC, Shape, i64, index
from tinycomp.ir.values import Value

DYNAMIC_INDEX = -(2**63)
"""The placeholder for a dynamic entry in ``static_*`` arrays (MLIR's kDynamic)."""

Mixed = int | Value
"""One entry of a mixed list: a constant, or an ``index`` value."""


def split_mixed(entries: Sequence[Mixed]) -> tuple[DenseArrayAttr, list[Value]]:
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


def join_mixed(static: DenseArrayAttr, dynamic: Sequence[Value]) -> list[Mixed]:
    """The entries again: each ``DYNAMIC_INDEX`` replaced by the next dynamic value.
    Raises ``ValueError`` when the counts disagree (the verifier reports that first)."""
    values = iter(dynamic)
    entries: list[Mixed] = []
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
    """How many entries of ``static`` are dynamic."""
    return sum(1 for number in static.values if number == DYNAMIC_INDEX)


def static_or_none(entry: Mixed) -> int | None:
    """The constant of an entry, ``None`` (``DYNAMIC``) for a value."""
    return None if isinstance(entry, Value) else entry


def print_mixed(printer, entries: Sequence[Mixed]) -> None:
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


def parse_mixed(parser) -> list[int | UnresolvedOperand]:
    """Read ``[%o, 0]``; values come back unresolved (see ``resolve_mixed``)."""
    parser.parse_punct("[")

    def parse_entry() -> int | UnresolvedOperand:
        if parser.token.kind == "percent_id":
            return parser.parse_operand()
        return parser.parse_integer("an integer or an index value")

    entries = parser.parse_comma_separated(parse_entry, "]")
    parser.parse_punct("]")
    return entries


def resolve_mixed(parser, entries: Sequence[int | UnresolvedOperand]) -> list[Mixed]:
    """Turn the value names of a parsed list into ``index`` values."""
    return [
        parser.resolve_operand(e, index) if isinstance(e, UnresolvedOperand) else e for e in entries
    ]


def check_static_array(op, attr, name: str, length: int) -> DenseArrayAttr:
    """``op``'s ``static_*`` attribute, which must be ``array<i64>`` of ``length``."""
    if not isinstance(attr, DenseArrayAttr) or attr.element_type != i64:
        raise op.error(f"expected '{name}' to be array<i64: ...>, got {attr}")
    if len(attr.values) != length:
        raise op.error(
            f"expected {length} entries in '{name}' (one per dimension), got {len(attr)}"
        )
    return attr


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


def format_sizes(shape: Shape) -> str:
    """``4x?x8`` (as in a type), for messages."""
    return "x".join("?" if s is DYNAMIC else str(s) for s in shape)


__all__ = [
    "DYNAMIC_INDEX", "Mixed", "check_static_array", "count_dynamic", "format_sizes",
    "is_rank_reduction", "join_mixed", "parse_mixed", "print_mixed", "resolve_mixed",
    "split_mixed", "static_or_none",
]  # fmt: skip
