"""Sets of tensor values that will share memory: a union-find over SSA values.

Bufferization gives every tensor value a buffer. Many values get the *same* buffer:
a view (``%c = tensor.extract_slice %acc``) is a window of its source's buffer, and an
op that writes in place gives its result its operand's buffer. The analysis keeps two
partitions of the tensor values, both as ``ValueSets``:

* **alias sets**: values whose buffers may overlap (views included). A write to one
  is seen through all of them; this is what read-after-write conflicts are about.
* **equivalence sets**: values with exactly the same buffer (same memory, same
  shape): an in-place result and its operand, a loop's iter_arg and its result.

``ValueSets`` is the textbook union-find (with path halving); ``merged_members``
answers "what if these two sets were joined?" without joining them, which is how
the analysis tries an in-place decision before taking it.

>>> from tinycomp.ir import Block, f32
>>> a, b, c = Block([f32, f32, f32]).arguments
>>> sets = ValueSets()
>>> sets.union(a, b)
>>> sets.same_set(a, b), sets.same_set(a, c)
(True, False)
>>> len(sets.merged_members(a, c))
3
"""

from __future__ import annotations

from tinycomp.ir.values import Value

__all__ = ["ValueSets"]


class ValueSets:
    """A partition of values into disjoint sets (union-find)."""

    def __init__(self) -> None:
        self._parent: dict[Value, Value] = {}
        self._members: dict[Value, list[Value]] = {}

    def find(self, value: Value) -> Value:
        """The representative of ``value``'s set (a value is alone until joined)."""
        if value not in self._parent:
            self._parent[value] = value
            self._members[value] = [value]
            return value
        while self._parent[value] is not value:
            self._parent[value] = self._parent[self._parent[value]]  # path halving
            value = self._parent[value]
        return value

    def union(self, a: Value, b: Value) -> None:
        """Join the sets of ``a`` and ``b``."""
        root_a, root_b = self.find(a), self.find(b)
        if root_a is root_b:
            return
        if len(self._members[root_a]) < len(self._members[root_b]):
            root_a, root_b = root_b, root_a
        self._parent[root_b] = root_a
        self._members[root_a] += self._members.pop(root_b)

    def same_set(self, a: Value, b: Value) -> bool:
        """Whether ``a`` and ``b`` are in one set."""
        return self.find(a) is self.find(b)

    def members(self, value: Value) -> list[Value]:
        """Every value in ``value``'s set, in the order they joined."""
        return list(self._members[self.find(value)])

    def merged_members(self, a: Value, b: Value) -> list[Value]:
        """The members of the set that joining ``a`` and ``b`` would make (no change)."""
        if self.same_set(a, b):
            return self.members(a)
        return self.members(a) + self.members(b)
