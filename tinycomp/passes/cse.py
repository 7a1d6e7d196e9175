"""Common subexpression elimination: compute each pure expression once.

Two ops compute the same value when they have the same name, attributes, operands and
result types, and no side effects. The second can then reuse the first one's results,
provided the first *dominates* it (it runs before, on every path). The algorithm
(MLIR's ``CSE`` pass):

1. Walk each region of the root. Visit the blocks of a region in dominator-tree order
   (a block after every block that dominates it); blocks unreachable from the entry
   are visited last, each on its own.
2. Keep a scoped table ``key -> earlier op``. Each block opens a scope that sees the
   entries of its dominators; leaving the block drops what it added.
3. For each op of the block:
   a. if it has regions, process each region in a new scope that sees the enclosing
      entries: a value computed *outside* can be reused *inside* a loop body or a
      branch, never the other way round (when the region is done its entries are
      dropped). A function (isolated from above) starts with an empty table.
   b. skip the op if it cannot be merged: terminators, ops with side effects (unknown
      ops count as having them, see ``tinycomp.rewrite.traits``), ops with regions,
      ops without results;
   c. key = (name, operands, attributes, result types), with the two operands of a
      commutative op in a fixed order so ``a + b`` and ``b + a`` meet; if the table
      has the key, make the uses read the earlier op's results and erase the op,
      otherwise record it.
4. Memory reads (``memref.load``) are not pure: a store between two loads of the same
   address changes what the second one sees. They are merged only within one block,
   when no op that may write memory (a store, a call, an unknown op, a loop that
   stores) sits between them: the block remembers the position of its last such op.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%a: i32, %b: i32) -> i32 {
...   %x = arith.addi %a, %b : i32
...   %y = arith.addi %b, %a : i32
...   %z = arith.muli %x, %y : i32
...   return %z : i32
... }''')
>>> cse = CSEPass()
>>> cse.run(m)
>>> print(m.body.first_op)
func.func @f(%a: i32, %b: i32) -> i32 {
  %x = arith.addi %a, %b : i32
  %z = arith.muli %x, %x : i32
  return %z : i32
}
>>> dict(cse.statistics)
{'ops erased': 1}
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from tinycomp.ir.block import Block
from tinycomp.ir.dominance import DominanceInfo
from tinycomp.ir.equality import effective_attributes
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.passes.pass_base import Pass
from tinycomp.rewrite.traits import is_commutative, is_pure, is_read_only, may_write_memory

__all__ = ["CSEPass", "ScopedTable", "cse_key"]


class ScopedTable:
    """A dict with nested scopes: ``pop_scope`` forgets what was added since the
    matching ``push_scope`` (step 2).

    >>> table = ScopedTable()
    >>> table.insert("a", 1)
    >>> table.push_scope()
    >>> table.insert("b", 2)
    >>> table.lookup("a"), table.lookup("b")
    (1, 2)
    >>> table.pop_scope()
    >>> table.lookup("b") is None
    True
    """

    def __init__(self) -> None:
        self._entries: dict[Hashable, Any] = {}
        self._scopes: list[list[Hashable]] = [[]]

    def push_scope(self) -> None:
        """Open a scope that sees everything recorded so far."""
        self._scopes.append([])

    def pop_scope(self) -> None:
        """Close the innermost scope, dropping the entries it added."""
        for key in self._scopes.pop():
            del self._entries[key]

    def lookup(self, key: Hashable) -> Any:
        """The entry for ``key`` in this or an enclosing scope, else ``None``."""
        return self._entries.get(key)

    def insert(self, key: Hashable, value: Any) -> None:
        """Record ``key`` in the innermost scope (``key`` must be new)."""
        self._entries[key] = value
        self._scopes[-1].append(key)


def cse_key(op: Operation) -> Hashable | None:
    """Step 3c: what identifies the value ``op`` computes, or ``None`` when ``op`` must
    not be merged (step 3b). Reads get a key too (step 4 decides when to use it).

    >>> from tinycomp.ir import Block, i32
    >>> from tinycomp.dialects.arith import AddIOp
    >>> a, b = Block([i32, i32]).arguments
    >>> cse_key(AddIOp.build(a, b)) == cse_key(AddIOp.build(b, a))
    True
    """
    if op.is_terminator or op.regions or not op.results:
        return None
    if not is_pure(op) and not is_read_only(op):
        return None
    operands = list(op.operands)
    if is_commutative(op):
        operands.sort(key=id)
    attributes = tuple(sorted(effective_attributes(op).items(), key=lambda item: item[0]))
    key = (op.name, tuple(operands), attributes, op.result_types)
    try:
        hash(key)
    except TypeError:  # an attribute that cannot be hashed: leave the op alone
        return None
    return key


class CSEPass(Pass):
    """Merge identical pure ops (see the module docstring)."""

    name = "cse"
    summary = "eliminate common subexpressions (identical pure ops)"

    def run(self, op: Operation) -> None:
        table = ScopedTable()
        for region in op.regions:
            self._simplify_region(region, table)

    def _simplify_region(self, region: Region, table: ScopedTable) -> None:
        """Steps 1 and 2 for one region, inside its own scope."""
        if not region.blocks:
            return
        table.push_scope()
        if len(region.blocks) == 1:
            self._simplify_block(region.blocks[0], table)
        else:
            self._simplify_blocks_in_dominance_order(region, table)
        table.pop_scope()

    def _simplify_blocks_in_dominance_order(self, region: Region, table: ScopedTable) -> None:
        dominance = DominanceInfo(region)
        children: dict[Block, list[Block]] = {block: [] for block in region.blocks}
        unreachable: list[Block] = []
        for block in region.blocks:
            parent = dominance.immediate_dominator(block)
            if parent is not None:
                children[parent].append(block)
            elif block is not region.blocks[0] and not dominance.is_reachable(block):
                unreachable.append(block)
        # an explicit stack, entering a block (push its scope) and leaving it (pop)
        stack: list[tuple[Block, bool]] = [(block, False) for block in reversed(unreachable)]
        stack.append((region.blocks[0], False))
        while stack:
            block, leaving = stack.pop()
            if leaving:
                table.pop_scope()
                continue
            table.push_scope()
            self._simplify_block(block, table)
            stack.append((block, True))
            stack.extend((child, False) for child in reversed(children[block]))

    def _simplify_block(self, block: Block, table: ScopedTable) -> None:
        """Steps 3 and 4 for each op of ``block``."""
        reads: dict[Hashable, tuple[Operation, int]] = {}  # step 4: key -> (load, position)
        last_write = -1
        for position, op in enumerate(block.ops):
            for region in op.regions:  # 3a
                if op.is_isolated_from_above:
                    self._simplify_region(region, ScopedTable())
                else:
                    self._simplify_region(region, table)
            if may_write_memory(op):
                last_write = position
            key = cse_key(op)  # 3b, 3c
            if key is None:
                continue
            if is_read_only(op):
                earlier_read = reads.get(key)
                if earlier_read is None or earlier_read[1] < last_write:
                    reads[key] = (op, position)
                    continue
                earlier = earlier_read[0]
            else:
                earlier = table.lookup(key)
                if earlier is None:
                    table.insert(key, op)
                    continue
            self._replace(op, earlier)

    def _replace(self, op: Operation, earlier: Operation) -> None:
        """Make ``op``'s uses read ``earlier``'s results, and erase ``op``."""
        for result, replacement in zip(op.results, earlier.results, strict=True):
            result.replace_all_uses_with(replacement)
        op.erase()
        self.statistics["ops erased"] += 1
