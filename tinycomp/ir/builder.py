"""The Builder: inserts new operations at a moving insertion point.

Every op class has a ``build(...)`` classmethod that returns a new, detached op. A
``Builder`` remembers *where* new ops go (an ``InsertionPoint``: before a given op, or
at the end of a block) and ``insert`` puts them there, in order. This is MLIR's
``OpBuilder``: ``b.insert(AddFOp.build(x, y))`` is ``b.create<AddFOp>(loc, x, y)``.

The core knows no dialect, so the example below makes its ops by name
(``Operation.create``); with the dialects, ``AddFOp.build(a, c)`` makes the same op.

>>> from tinycomp.ir import Block, Builder, InsertionPoint, Operation, f32
>>> def add(x, y): return Operation.create("arith.addf", [x, y], [f32])
>>> entry = Block([f32, f32])
>>> a, c = entry.arguments
>>> b = Builder.at_end(entry)
>>> x = b.insert(add(a, c)).result
>>> y = b.insert(Operation.create("arith.mulf", [x, x], [f32])).result
>>> with b.at(InsertionPoint.before(y.op)):    # temporarily insert elsewhere
...     z = b.insert(add(a, a)).result
>>> [op.name for op in entry.ops]
['arith.addf', 'arith.addf', 'arith.mulf']
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from tinycomp.ir.block import Block
from tinycomp.ir.location import Location
from tinycomp.ir.operation import Operation

OpT = TypeVar("OpT", bound=Operation)


@dataclass(frozen=True)
class InsertionPoint:
    """A place in a block: right before ``anchor``, or at the end when it is ``None``.

    Inserting several ops at the same point keeps them in insertion order.
    """

    block: Block
    """The block new ops go into."""
    anchor: Operation | None = None
    """The op new ops go in front of; ``None`` means the end of ``block``."""

    @staticmethod
    def at_end(block: Block) -> InsertionPoint:
        """After the last op of ``block``."""
        return InsertionPoint(block, None)

    @staticmethod
    def at_start(block: Block) -> InsertionPoint:
        """Before the first op of ``block``."""
        return InsertionPoint(block, block.first_op)

    @staticmethod
    def before(op: Operation) -> InsertionPoint:
        """Right before ``op``."""
        if op.parent is None:
            raise ValueError(f"'{op.name}' is not in a block")
        return InsertionPoint(op.parent, op)

    @staticmethod
    def after(op: Operation) -> InsertionPoint:
        """Right after ``op``."""
        if op.parent is None:
            raise ValueError(f"'{op.name}' is not in a block")
        return InsertionPoint(op.parent, op.next_op)


class Builder:
    """Creates IR at an insertion point; see the module docstring for a tour."""

    def __init__(self, point: InsertionPoint | None = None, location: Location | None = None):
        self.insertion_point = point
        """Where ``insert`` puts the next op (``None``: nowhere yet)."""
        self.location = location
        """Location given to inserted ops that have none (e.g. the traced source line)."""

    @classmethod
    def at_end(cls, block: Block) -> Builder:
        """A builder appending to ``block``."""
        return cls(InsertionPoint.at_end(block))

    @classmethod
    def at_start(cls, block: Block) -> Builder:
        """A builder inserting at the start of ``block``."""
        return cls(InsertionPoint.at_start(block))

    @classmethod
    def before(cls, op: Operation) -> Builder:
        """A builder inserting right before ``op``."""
        return cls(InsertionPoint.before(op))

    @classmethod
    def after(cls, op: Operation) -> Builder:
        """A builder inserting right after ``op``."""
        return cls(InsertionPoint.after(op))

    def insert(self, op: OpT) -> OpT:
        """Insert the detached ``op`` at the insertion point and return it."""
        point = self.insertion_point
        if point is None:
            raise ValueError("the builder has no insertion point")
        if op.location is None:
            op.location = self.location
        if point.anchor is None:
            return point.block.append(op)
        return point.block.insert_before(op, point.anchor)

    @contextmanager
    def at(self, point: InsertionPoint) -> Iterator[Builder]:
        """Within the ``with`` block insert at ``point``; then go back where we were."""
        saved = self.insertion_point
        self.insertion_point = point
        try:
            yield self
        finally:
            self.insertion_point = saved
