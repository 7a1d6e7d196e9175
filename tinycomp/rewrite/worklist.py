"""The greedy driver's worklist: a stack of ops without duplicates, with O(1) removal.

The driver pushes an op whenever something about it changed (its operands, its users)
and pops the most recently pushed op first, so the effects of a rewrite are followed
up right away. An op is in the list at most once; erasing an op removes it (its slot
is blanked and skipped when popped, as in MLIR's ``Worklist``).

>>> from tinycomp.ir import Operation
>>> a, b, c = (Operation.create(f"test.{n}") for n in "abc")
>>> work = Worklist()
>>> for op in (a, b, c, a):
...     work.push(op)
>>> work.remove(b)
>>> [work.pop().name, work.pop().name, work.pop()]
['test.c', 'test.a', None]
"""

from __future__ import annotations

from tinycomp.ir.operation import Operation

__all__ = ["Worklist"]


class Worklist:
    """A duplicate-free LIFO list of operations (see the module docstring)."""

    def __init__(self) -> None:
        self._slots: list[Operation | None] = []
        self._position: dict[Operation, int] = {}

    def push(self, op: Operation) -> None:
        """Add ``op`` on top, unless it is already in the list."""
        if op not in self._position:
            self._position[op] = len(self._slots)
            self._slots.append(op)

    def pop(self) -> Operation | None:
        """Take the op on top, or ``None`` when the list is empty."""
        while self._slots:
            op = self._slots.pop()
            if op is not None:
                del self._position[op]
                return op
        return None

    def remove(self, op: Operation) -> None:
        """Take ``op`` out wherever it is (nothing happens if it is not in the list)."""
        position = self._position.pop(op, None)
        if position is not None:
            self._slots[position] = None

    def reverse(self) -> None:
        """Reverse the order, so that ops pushed first are popped first."""
        self._slots.reverse()
        self._position = {op: i for i, op in enumerate(self._slots) if op is not None}

    def __len__(self) -> int:
        return len(self._position)

    def __contains__(self, op: Operation) -> bool:
        return op in self._position
