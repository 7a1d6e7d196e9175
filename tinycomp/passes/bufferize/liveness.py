"""Liveness of buffers: from the ``memref.alloc`` to the last op that touches them.

A buffer is *live* while some later op may still read or write it. After its last
use it can be freed (``buffer-deallocation``) or handed to another temporary
(``buffer-reuse``). The algorithm, for one ``memref.alloc`` in block ``B``:

1. Collect its *aliases*: the buffer and every view of it (``memref.subview``,
   ``collapse_shape``, ``cast``...), transitively.
2. Collect the users of the aliases (``memref.dealloc`` does not count as a use).
3. Lift each user to the op of ``B`` that contains it: a use inside a loop of ``B``
   counts as a use by the whole loop, since the buffer must survive every iteration.
4. The last of those ops is where the buffer dies (``last_use``). A buffer that an op
   passes on (``func.return``, ``scf.yield``, ``func.call``, a loop's ``iter_args``,
   any op with unknown effects) *escapes*: liveness cannot follow it, so it is never
   freed or shared.

Positions in reports are **op indices**: the position of an op in a pre-order walk of
its function, counting from 1 and not counting ``memref.dealloc`` ops, so inserting
deallocations does not renumber anything.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%v: f32, %out: memref<4xf32>) {
...   %a = memref.alloc() : memref<4xf32>
...   linalg.fill ins(%v : f32) outs(%a : memref<4xf32>)
...   memref.copy %a, %out : memref<4xf32> to memref<4xf32>
...   return
... }''')
>>> f = m.body.first_op
>>> alloc = f.entry_block.first_op
>>> buffer_liveness(alloc).last_use.name, OpIndices(f).interval(buffer_liveness(alloc))
('memref.copy', (1, 3))
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.effects import has_unknown_effects
from tinycomp.ir.memref_views import viewed_operand
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value

__all__ = ["BufferLiveness", "OpIndices", "aliases_of", "buffer_liveness"]

_ESCAPING_USERS = (
    "func.return", "func.call", "scf.yield", "affine.yield", "cf.br", "cf.cond_br",
    "scf.for", "scf.while", "scf.if", "scf.parallel", "scf.execute_region", "affine.for",
)  # fmt: skip
"""Ops that pass a buffer they take as an operand on to other code (a loop's
``iter_args``, a branch's block arguments, a callee): liveness cannot follow it."""


@dataclass
class BufferLiveness:
    """Where one allocation lives, in terms of the ops of its block."""

    alloc: Operation
    """The ``memref.alloc``."""
    last_use: Operation
    """The op of the alloc's block after which the buffer is dead (the alloc itself
    when it has no use)."""
    escapes: bool
    """True when the buffer leaves the block (returned, yielded, passed to a call)."""
    deallocs: list[Operation]
    """The ``memref.dealloc`` ops freeing it (in any block)."""


def aliases_of(buffer: Value) -> list[Value]:
    """``buffer`` and every view of it, transitively (step 1).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f() {
    ...   %a = memref.alloc() : memref<8xf32>
    ...   %v = memref.subview %a[2] [4] [1]
    ...       : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
    ...   return }''')
    >>> len(aliases_of(m.body.first_op.entry_block.first_op.result))
    2
    """
    found, pending = [], [buffer]
    while pending:
        value = pending.pop()
        found.append(value)
        for user in value.users:
            if viewed_operand(user) is value:
                pending.extend(user.results)
    return found


def buffer_liveness(alloc: Operation) -> BufferLiveness:
    """Steps 1-4 of the module docstring for one ``memref.alloc``."""
    block = alloc.parent
    positions = {op: position for position, op in enumerate(block.ops)}
    last_use, escapes, deallocs = alloc, False, []
    for value in aliases_of(alloc.results[0]):
        for user in value.users:
            if user.name == "memref.dealloc":
                deallocs.append(user)
                continue
            if user.name in _ESCAPING_USERS or has_unknown_effects(user):
                escapes = True
            holder = _ancestor_in(user, block)
            if holder is None:  # used outside the block that allocates it
                escapes = True
            elif positions[holder] > positions[last_use]:
                last_use = holder
    return BufferLiveness(alloc, last_use, escapes, deallocs)


def _ancestor_in(op: Operation, block) -> Operation | None:
    """``op`` or the op containing it that sits directly in ``block`` (step 3)."""
    current: Operation | None = op
    while current is not None and current.parent is not block:
        current = current.parent_op()
    return current


class OpIndices:
    """Op indices of one function (see the module docstring). The payload of a linalg
    op is part of that op, so its scalar ops get no index of their own."""

    def __init__(self, function: Operation) -> None:
        self.start: dict[Operation, int] = {}
        """The index of each op."""
        self.end: dict[Operation, int] = {}
        """The index of the last op nested in each op (its own index if none)."""
        self.last = 0
        """The index of the function's last op (its ``return``)."""
        for region in function.regions:
            for block in region.blocks:
                self._number(block)

    def _number(self, block) -> None:
        for op in block.ops:
            if op.name == "memref.dealloc":
                continue
            self.last += 1
            self.start[op] = self.last
            if not isinstance(op, StructuredOp):
                for region in op.regions:
                    for nested in region.blocks:
                        self._number(nested)
            self.end[op] = self.last

    def interval(self, liveness: BufferLiveness) -> tuple[int, int]:
        """``(start, end)``: the alloc's index and the index of the last op of its
        last use (the end of a loop that uses it); escaping buffers live to the end."""
        end = self.last if liveness.escapes else self.end[liveness.last_use]
        return self.start[liveness.alloc], end

    def held(self, liveness: BufferLiveness) -> tuple[int, int]:
        """``(start, end)`` while the memory is allocated: until the op before its
        ``memref.dealloc``, or to the end of the function when it is never freed."""
        frees = [op for op in liveness.deallocs if op.parent is liveness.alloc.parent]
        if not frees:
            return self.start[liveness.alloc], self.last
        previous = frees[0].prev_op
        while previous is not None and previous.name == "memref.dealloc":
            previous = previous.prev_op
        end = self.end[previous] if previous is not None else self.start[liveness.alloc]
        return self.start[liveness.alloc], end
