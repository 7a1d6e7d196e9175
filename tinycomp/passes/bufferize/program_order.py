"""Program order inside one function: which op runs before which, loops included.

Read-after-write analysis asks "does this read happen after that write?". In
straight-line code the answer is the order of the ops in the text. Two things make it
more than a comparison of line numbers:

* **ops with regions**: an ``scf.for`` *starts* before its body and *ends* after it;
  its results exist only at the end. Each op gets a ``start`` (its position in a
  pre-order walk of the function) and an ``end`` (the position of the last op nested
  in it, or ``start`` for an op without regions).
* **loops run their body again**: an op early in a loop body runs *after* an op late
  in the same body, one iteration later. ``innermost_common_loop`` finds the loop that
  makes that happen.

Where a value is *defined* (``definition_position``): an op's result at the op's
``end``; a block argument at its block's owner's ``start`` (a function argument
before everything, an iter_arg at the start of each iteration).

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%n: index, %x: f32) -> f32 {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
...     %y = arith.addf %acc, %x : f32
...     scf.yield %y : f32
...   }
...   return %s : f32
... }''')
>>> order = ProgramOrder(m.body.first_op)
>>> loop = m.body.first_op.entry_block.ops[2]
>>> order.start[loop], order.end[loop], order.definition_position(loop.result)
(3, 5, 5)
"""

from __future__ import annotations

from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import BlockArgument, Value

__all__ = ["LOOP_OPS", "ProgramOrder"]

LOOP_OPS = ("scf.for", "scf.while", "scf.parallel", "affine.for")
"""Ops that may run their body more than once (MLIR's "repetitive regions")."""


class ProgramOrder:
    """Start and end positions of every op in ``function`` (see the module docstring)."""

    def __init__(self, function: Operation) -> None:
        self.function = function
        """The op whose body is numbered (position 0)."""
        self.start: dict[Operation, int] = {}
        """Pre-order position of each op."""
        self.end: dict[Operation, int] = {}
        """Position of the last op nested in each op (its ``start`` if it has none)."""
        for position, op in enumerate(function.walk()):
            self.start[op] = position
        for op in function.walk(order="post"):
            nested_ends = [
                self.end[child]
                for region in op.regions
                for block in region.blocks
                for child in block.ops
            ]
            self.end[op] = max([self.start[op], *nested_ends])

    def definition_position(self, value: Value) -> int:
        """Where ``value`` comes into existence (see the module docstring)."""
        if isinstance(value, BlockArgument):
            owner = value.block.parent_op()
            return self.start[owner] if owner is not None else 0
        return self.end[value.defining_op()]

    def enclosing_loops(self, op: Operation) -> list[Operation]:
        """The loops around ``op`` inside the function, innermost first."""
        loops = []
        parent = op.parent_op()
        while parent is not None and parent is not self.function:
            if parent.name in LOOP_OPS:
                loops.append(parent)
            parent = parent.parent_op()
        return loops

    def innermost_common_loop(self, a: Operation, b: Operation) -> Operation | None:
        """The innermost loop around both ``a`` and ``b`` (``None`` if there is none)."""
        around_b = set(self.enclosing_loops(b))
        for loop in self.enclosing_loops(a):
            if loop in around_b:
                return loop
        return None

    def describe(self, op: Operation) -> str:
        """``'linalg.generic' at line 12`` (or ``(op #7)`` when the op has no location)."""
        where = describe_location(op.location) or f" (op #{self.start.get(op, '?')})"
        return f"'{op.name}'{where}"
