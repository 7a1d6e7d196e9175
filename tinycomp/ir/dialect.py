"""How to define an op, and the one convention for creating ops.

**Creating ops.** Every op class has a ``build(...)`` classmethod taking the operands
and the few parameters that matter (``AddFOp.build(lhs, rhs)``,
``ConstantOp.build(1.0, f32)``, ``CmpFOp.build("olt", a, b)``); it works out the
result types and returns a new *detached* op. A ``Builder`` inserts it::

    b = Builder.at_end(entry)
    one = b.insert(ConstantOp.build(1.0, f32)).result
    x = b.insert(AddFOp.build(a, one)).result
    y = b.insert(MulFOp.build(x, x, fastmath="fast")).result
    b.insert(ReturnOp.build([y]))

(``build`` + ``insert`` is MLIR's ``builder.create<AddFOp>(loc, a, one)``.) The parser
does not call ``build``: it uses ``Operation.create(name, operands, result_types,
attributes, regions, successors)``, which works for every op, registered or not.

**Defining an op.** Subclass ``Operation`` and write, in this order:

1. a docstring: one summary line and an IR example;
2. class attributes: ``name``, the counts the verifier checks (``num_operands``,
   ``num_results``, ``num_regions``, ``num_successors``; ``None`` means variadic) and
   the traits and effects (``is_pure``, ``effects = (reads(0), writes(1))``,
   ``has_recursive_effects``, ``is_terminator``, ``is_commutative``...: the full list,
   with MLIR's name for each, is in ``op_definition.py``; passes read nothing else);
3. ``build`` (a classmethod) and accessors as plain ``@property``s;
4. ``verify_op``, raising ``self.error("expected ..., got ...")``;
5. optionally custom syntax: set ``has_custom_syntax = True`` and write
   ``print_custom(self, printer: Printer)`` (everything after the op name, each piece
   with its leading space) and the classmethod ``parse_custom(cls, parser: Parser)``
   that reads the same text and returns a new op (see ``Printer`` and ``Parser`` for
   the pieces; the annotations let an editor jump to them).

Then list the class in the dialect's ``Dialect`` and call ``register_dialect`` at the
bottom of the module. ``dialects/arith/binary.py`` is a complete example.

This module also holds small helpers shared by the dialects.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.operation import Operation
from tinycomp.ir.registry import Dialect, register_dialect
from tinycomp.ir.types import Type
from tinycomp.ir.values import Value


def check_same_types(op: Operation, values: Sequence[Value], what: str) -> Type:
    """Raise unless all ``values`` have one type; return it.

    The message names the types: ``expected operand types to match, got f32 and f16``.
    """
    first = values[0].type
    for value in values[1:]:
        if value.type != first:
            raise op.error(f"expected {what} types to match, got {first} and {value.type}")
    return first


__all__ = ["Dialect", "check_same_types", "register_dialect"]
