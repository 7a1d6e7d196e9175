"""Blocks: a list of operations with arguments, the unit of straight-line code.

A block runs its ops in order, top to bottom. Its arguments are values that flow in:
the parameters of a function (entry block) or the values a branch passes along
(``cf.br ^bb1(%x : f32)``), which is how MLIR avoids phi nodes. In an ordinary region
the last op is a *terminator* that says where control goes next.

The ops form a doubly linked list (as in MLIR), so inserting or erasing an op anywhere
costs O(1) even in a block of 100k ops. ``block.ops`` hands out a fresh Python list, so
it is always safe to mutate the block while looping over it.

>>> from tinycomp.ir import Block, Operation, f32
>>> block = Block([f32, f32])
>>> a, b = block.arguments
>>> add = block.append(Operation.create("arith.addf", [a, b], [f32]))
>>> mul = block.insert_before(Operation.create("arith.mulf", [a, a], [f32]), add)
>>> [op.name for op in block.ops]
['arith.mulf', 'arith.addf']
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from tinycomp.ir.types import Type
from tinycomp.ir.values import BlockArgument

if TYPE_CHECKING:
    from tinycomp.ir.operation import Operation
    from tinycomp.ir.region import Region


class Block:
    """An ordered list of operations with typed arguments."""

    def __init__(self, arg_types: Sequence[Type] = ()) -> None:
        self.arguments: tuple[BlockArgument, ...] = ()
        """The block's arguments (change them with ``add_argument``/``erase_argument``)."""
        self.parent: Region | None = None
        """The region holding this block (``None`` while detached)."""
        self._first: Operation | None = None
        self._last: Operation | None = None
        self._count = 0
        for arg_type in arg_types:
            self.add_argument(arg_type)

    # -- arguments -----------------------------------------------------------------------
    def add_argument(self, type: Type, name_hint: str | None = None) -> BlockArgument:
        """Append a new argument of ``type`` and return it."""
        if not isinstance(type, Type):
            raise TypeError(f"block argument type is not a Type: {type!r}")
        argument = BlockArgument(self, len(self.arguments), type)
        argument.name_hint = name_hint
        self.arguments = (*self.arguments, argument)
        return argument

    def erase_argument(self, index: int) -> None:
        """Remove argument ``index``; it must have no uses."""
        argument = self.arguments[index]
        if argument.has_uses:
            user = argument.users[0]
            raise ValueError(f"cannot erase block argument #{index}: used by '{user.name}'")
        rest = self.arguments[:index] + self.arguments[index + 1 :]
        for position, arg in enumerate(rest):
            arg.index = position
        self.arguments = rest

    # -- the op list -----------------------------------------------------------------------
    @property
    def ops(self) -> list[Operation]:
        """The ops, in order, as a new list (mutating it does not change the block)."""
        return list(self)

    def __iter__(self) -> Iterator[Operation]:
        op = self._first
        while op is not None:
            following = op._next  # read before yielding: the caller may move `op`
            yield op
            op = following

    def __len__(self) -> int:
        return self._count

    @property
    def first_op(self) -> Operation | None:
        """The first op, or ``None`` for an empty block."""
        return self._first

    @property
    def last_op(self) -> Operation | None:
        """The last op (usually the terminator), or ``None`` for an empty block."""
        return self._last

    @property
    def terminator(self) -> Operation | None:
        """The last op if it is a terminator, else ``None``."""
        last = self._last
        return last if last is not None and last.is_terminator else None

    def append(self, op: Operation) -> Operation:
        """Add a detached ``op`` at the end; returns it."""
        return self._link(op, self._last, None)

    def prepend(self, op: Operation) -> Operation:
        """Add a detached ``op`` at the start; returns it."""
        return self._link(op, None, self._first)

    def insert_before(self, op: Operation, anchor: Operation) -> Operation:
        """Insert a detached ``op`` right before ``anchor`` (an op of this block)."""
        self._check_member(anchor)
        return self._link(op, anchor._prev, anchor)

    def insert_after(self, op: Operation, anchor: Operation) -> Operation:
        """Insert a detached ``op`` right after ``anchor`` (an op of this block)."""
        self._check_member(anchor)
        return self._link(op, anchor, anchor._next)

    def _check_member(self, anchor: Operation) -> None:
        if anchor.parent is not self:
            raise ValueError(f"'{anchor.name}' is not in this block")

    def _link(self, op: Operation, before: Operation | None, after: Operation | None) -> Operation:
        """Splice ``op`` between neighbours ``before`` and ``after`` (either may be None)."""
        if op.parent is not None:
            raise ValueError(f"'{op.name}' is already in a block; detach it first")
        op.parent = self
        op._prev, op._next = before, after
        if before is None:
            self._first = op
        else:
            before._next = op
        if after is None:
            self._last = op
        else:
            after._prev = op
        self._count += 1
        return op

    def _unlink(self, op: Operation) -> None:
        """Take ``op`` out of the list (used by ``Operation.detach``)."""
        if op._prev is None:
            self._first = op._next
        else:
            op._prev._next = op._next
        if op._next is None:
            self._last = op._prev
        else:
            op._next._prev = op._prev
        op._prev = op._next = None
        op.parent = None
        self._count -= 1

    # -- where the block is --------------------------------------------------------------
    def parent_op(self) -> Operation | None:
        """The op whose region holds this block."""
        return self.parent.parent_op if self.parent is not None else None

    @property
    def is_entry_block(self) -> bool:
        """True for the first block of its region."""
        return self.parent is not None and self.parent.entry_block is self

    @property
    def successors(self) -> tuple[Block, ...]:
        """The blocks the last op may branch to."""
        return self._last.successors if self._last is not None else ()

    def erase(self) -> None:
        """Remove the block from its region and erase its ops (last to first)."""
        if self.parent is not None:
            self.parent.remove_block(self)
        for op in reversed(self.ops):
            op.drop_all_references()
            op.detach()

    def walk(self) -> Iterator[Operation]:
        """Every op in this block and nested in its ops, pre-order."""
        for op in self.ops:
            if op.parent is self:
                yield from op.walk()

    def __repr__(self) -> str:
        types = ", ".join(str(a.type) for a in self.arguments)
        return f"<Block ({types}) with {len(self)} ops>"
