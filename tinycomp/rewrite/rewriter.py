"""The PatternRewriter: the one door every IR change of a pattern goes through.

A pattern never edits the IR directly; it asks the rewriter to insert, replace, erase
or modify ops. The rewriter makes the change *and tells a listener about it*. The
greedy driver is that listener: from "this op was modified" it knows to look at the op
again, from "these uses were replaced" to revisit the users, from "this op was erased"
to drop it from its worklist and revisit the ops that fed it (they may be dead now).
A pattern that edited the IR behind the rewriter's back would leave the driver's
worklist wrong: some simplifications would silently never happen.

========================================  ===================================================
rewriter call                             what it tells the listener
========================================  ===================================================
``insert(op)`` (before the matched op)    ``notify_op_inserted`` for ``op`` and ops in it
``replace_op(op, values)``                ``notify_op_replaced``, then erased as below
``replace_op_with_new(op, new_op)``       inserted + replaced
``replace_all_uses_with(old, new)``       ``notify_op_modified`` for each user
``erase_op(op)``                          ``notify_op_erased`` for ``op`` and ops in it
``with modify_op_in_place(op):``          ``notify_op_modified`` when the block ends
``inline_block_before(block, op, args)``  ``notify_op_inserted`` for each moved op
``move_op_before(op, anchor)``            ``notify_op_inserted``
========================================  ===================================================

>>> from tinycomp.ir import parse
>>> from tinycomp.dialects.arith import AddIOp
>>> m = parse('''
... func.func @f(%x: i32) -> i32 {
...   %0 = arith.muli %x, %x : i32
...   return %0 : i32
... }''')
>>> mul = m.body.first_op.entry_block.first_op
>>> rewriter = PatternRewriter()
>>> rewriter.set_current_op(mul)
>>> add = rewriter.replace_op_with_new(mul, AddIOp.build(mul.operands[0], mul.operands[1]))
>>> print(m.body.first_op)
func.func @f(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder, InsertionPoint
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value
from tinycomp.rewrite.errors import RewriteError

__all__ = ["PatternRewriter", "RewriteListener"]

OpT = TypeVar("OpT", bound=Operation)


class RewriteListener:
    """Receives a notification for every change made through a ``PatternRewriter``.

    The methods do nothing here; the greedy driver overrides them to keep its
    worklist correct. Erasure is announced *before* the op is erased, so the listener
    can still read its operands.
    """

    def notify_op_inserted(self, op: Operation) -> None:
        """``op`` was inserted into a block (new, or moved there)."""

    def notify_op_modified(self, op: Operation) -> None:
        """``op``'s operands or attributes were changed in place."""

    def notify_op_replaced(self, op: Operation, new_values: Sequence[Value]) -> None:
        """The uses of ``op``'s results are about to read ``new_values`` instead."""

    def notify_op_erased(self, op: Operation) -> None:
        """``op`` is about to be erased."""


class PatternRewriter(Builder):
    """A ``Builder`` that reports every change to a ``RewriteListener``.

    The driver calls ``set_current_op`` before each pattern, so ``insert`` puts new ops
    right before the matched op and gives them its location (its source line).
    """

    def __init__(self, listener: RewriteListener | None = None) -> None:
        super().__init__()
        self.listener = listener if listener is not None else RewriteListener()
        """Who is told about each change (the greedy driver, or a do-nothing listener)."""
        self.current_op: Operation | None = None
        """The op being matched; new ops go right before it."""

    def set_current_op(self, op: Operation) -> None:
        """Insert before ``op`` from now on, with ``op``'s location."""
        self.current_op = op
        self.insertion_point = InsertionPoint.before(op)
        self.location = op.location

    # -- creating ops ----------------------------------------------------------------------
    def insert(self, op: OpT) -> OpT:
        """Insert the detached ``op`` at the insertion point (before the matched op)."""
        super().insert(op)
        for inserted in op.walk():
            self.listener.notify_op_inserted(inserted)
        return op

    # -- replacing ------------------------------------------------------------------------
    def replace_op(self, op: Operation, new_values: Sequence[Value]) -> None:
        """Make every use of ``op``'s results read ``new_values`` instead, then erase
        ``op``. There must be one value per result, of the same type."""
        new_values = list(new_values)
        if len(new_values) != len(op.results):
            raise RewriteError(
                f"{_describe(op)}: expected {len(op.results)} replacement value(s), "
                f"got {len(new_values)}"
            )
        for result, value in zip(op.results, new_values, strict=True):
            if value.type != result.type:
                raise RewriteError(
                    f"{_describe(op)}: result #{result.index} has type {result.type}, "
                    f"but its replacement has type {value.type}"
                )
        self.listener.notify_op_replaced(op, new_values)
        for result, value in zip(op.results, new_values, strict=True):
            result.replace_all_uses_with(value)
        self.erase_op(op)

    def replace_op_with_new(self, op: Operation, new_op: OpT) -> OpT:
        """Insert ``new_op`` right before ``op`` and replace ``op`` with its results."""
        with self.at(InsertionPoint.before(op)):
            self.insert(new_op)
        self.replace_op(op, new_op.results)
        return new_op

    def replace_all_uses_with(self, old: Value, new: Value) -> None:
        """Make every user of ``old`` read ``new``; each user counts as modified."""
        users = list(dict.fromkeys(old.users))
        old.replace_all_uses_with(new)
        for user in users:
            self.listener.notify_op_modified(user)

    # -- erasing and modifying ------------------------------------------------------------------
    def erase_op(self, op: Operation) -> None:
        """Erase ``op`` and everything nested in it; its results must be unused."""
        for result in op.results:
            for use in result.uses:
                if not op.is_ancestor_of(use.user):
                    raise RewriteError(
                        f"cannot erase {_describe(op)}: result #{result.index} is still "
                        f"used by {_describe(use.user)}"
                    )
        for nested in op.walk(order="post"):
            self.listener.notify_op_erased(nested)
        op.erase()

    @contextmanager
    def modify_op_in_place(self, op: Operation) -> Iterator[Operation]:
        """Change ``op``'s operands or attributes inside the ``with`` block::

        with rewriter.modify_op_in_place(op):
            op.set_operand(0, new_lhs)
        """
        yield op
        self.listener.notify_op_modified(op)

    # -- moving code ------------------------------------------------------------------------
    def inline_block_before(
        self, block: Block, anchor: Operation, arg_values: Sequence[Value] = ()
    ) -> None:
        """Move all ops of ``block`` right before ``anchor``, with ``arg_values`` standing
        in for the block's arguments; the emptied block leaves its region."""
        if len(arg_values) != len(block.arguments):
            raise RewriteError(
                f"inlining a block of {len(block.arguments)} argument(s) before "
                f"{_describe(anchor)}: got {len(arg_values)} value(s) for them"
            )
        for argument, value in zip(block.arguments, arg_values, strict=True):
            argument.replace_all_uses_with(value)
        for moved in block.ops:
            moved.move_before(anchor)
            self.listener.notify_op_inserted(moved)
        if block.parent is not None:
            block.parent.remove_block(block)

    def move_op_before(self, op: Operation, anchor: Operation) -> None:
        """Move ``op`` right before ``anchor``."""
        op.move_before(anchor)
        self.listener.notify_op_inserted(op)


def _describe(op: Operation) -> str:
    """``'arith.addi' at line 3`` for messages."""
    return f"'{op.name}'{describe_location(op.location)}"
