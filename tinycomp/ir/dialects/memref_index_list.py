"""Mixed static/dynamic index lists: the ``[%off, 0]`` of ``memref.subview``.

Offsets, sizes and strides of views are often partly known at compile time. MLIR writes
them as one list mixing integers and SSA values (``[%i, 2]``) and stores them in two
places: a ``static_*`` array attribute with one entry per position, where a dynamic
position holds the sentinel ``DYNAMIC_INDEX`` (``-9223372036854775808``, MLIR's
``ShapedType::kDynamic``), and the SSA values, in order, as operands::

    memref.subview %a[%i, 2] [4, 4] [1, 1] : ...
    static_offsets = array<i64: -9223372036854775808, 2>, operands: %a, %i

``MixedIndex`` (an ``int`` or a ``Value``) is the friendly form builders take.

>>> from tinycomp.ir import Block, index
>>> i = Block([index]).arguments[0]
>>> static, dynamic = split_mixed([i, 2])
>>> print(static)
array<i64: -9223372036854775808, 2>
>>> dynamic == [i]
True
>>> join_mixed(static, dynamic) == [i, 2]
True
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.types import DYNAMIC, i64, index
from tinycomp.ir.values import Value

DYNAMIC_INDEX = -(2**63)
"""The value a ``static_*`` array holds where the real value is an SSA operand."""

MixedIndex = int | Value
"""One offset, size or stride: known now (``int``) or at run time (a ``Value``)."""


def split_mixed(items: Sequence[MixedIndex]) -> tuple[DenseArrayAttr, list[Value]]:
    """The ``static_*`` array and the dynamic operands for a mixed list."""
    static: list[int] = []
    dynamic: list[Value] = []
    for item in items:
        if isinstance(item, Value):
            static.append(DYNAMIC_INDEX)
            dynamic.append(item)
        else:
            static.append(int(item))
    return DenseArrayAttr(i64, static), dynamic


def join_mixed(static: DenseArrayAttr, dynamic: Sequence[Value]) -> list[MixedIndex]:
    """The mixed list again: each ``DYNAMIC_INDEX`` replaced by the next operand."""
    operands = iter(dynamic)
    return [next(operands) if v == DYNAMIC_INDEX else v for v in static.values]


def static_or_dynamic(static: DenseArrayAttr) -> tuple[int | None, ...]:
    """The static entries with ``DYNAMIC_INDEX`` turned into ``DYNAMIC`` (``None``), the
    way types write unknown sizes: ``(None, 2)``."""
    return tuple(DYNAMIC if v == DYNAMIC_INDEX else v for v in static.values)


def count_dynamic(static: DenseArrayAttr) -> int:
    """How many entries are dynamic (so how many operands the list takes)."""
    return sum(1 for v in static.values if v == DYNAMIC_INDEX)


def print_index_list(printer, static: DenseArrayAttr, dynamic: Sequence[Value]) -> None:
    """``[%i, 2]``."""
    printer.write("[")
    for position, item in enumerate(join_mixed(static, dynamic)):
        if position:
            printer.write(", ")
        if isinstance(item, Value):
            printer.print_operand(item)
        else:
            printer.write(str(item))
    printer.write("]")


def parse_index_list(parser) -> tuple[DenseArrayAttr, list[Value]]:
    """Read ``[%i, 2]``; the SSA values are resolved as ``index`` values."""
    parser.parse_punct("[")
    static: list[int] = []
    operands = []

    def parse_item() -> None:
        if parser.token.kind == "percent_id":
            operands.append(parser.parse_operand())
            static.append(DYNAMIC_INDEX)
        else:
            static.append(parser.parse_integer("an integer or an SSA value"))

    parser.parse_comma_separated(parse_item, "]")
    parser.parse_punct("]")
    values = parser.resolve_operands(operands, [index] * len(operands))
    return DenseArrayAttr(i64, static), values


def check_index_list(op, static, dynamic: Sequence[Value], what: str, length: int | None) -> None:
    """Verify one list: a ``DenseArrayAttr`` of ``length`` entries (if given) with one
    ``index`` operand per dynamic entry. ``what`` names it (``"offsets"``)."""
    if not isinstance(static, DenseArrayAttr) or str(static.element_type) != "i64":
        raise op.error(f"expected static {what} as an array<i64: ...>, got {static}")
    if length is not None and len(static) != length:
        raise op.error(f"expected {length} {what} (one per dimension), got {len(static)}")
    expected = count_dynamic(static)
    if expected != len(dynamic):
        raise op.error(
            f"expected {expected} dynamic {what} operands (one per '?' entry), got {len(dynamic)}"
        )
    for value in dynamic:
        if value.type != index:
            raise op.error(f"expected index {what}, got {value.type}")


__all__ = [
    "DYNAMIC_INDEX",
    "MixedIndex",
    "check_index_list",
    "count_dynamic",
    "join_mixed",
    "parse_index_list",
    "print_index_list",
    "split_mixed",
    "static_or_dynamic",
]
