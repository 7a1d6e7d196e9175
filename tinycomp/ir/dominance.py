"""Dominance between the blocks of one region.

Block A *dominates* block B when every path from the region's entry to B passes
through A. SSA's one rule is that a definition dominates its uses, so the verifier
asks this question for every operand that crosses blocks.

``DominanceInfo`` computes the immediate dominator of every block with the iterative
algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001):

1. Order the blocks reachable from the entry in reverse postorder (RPO) by a depth-first
   walk over the terminators' successors; unreachable blocks get no number.
2. Set ``idom[entry] = entry``; all other blocks start undefined.
3. Repeat until nothing changes: for each block B in RPO (entry excluded), take the
   predecessors whose idom is already known and fold them with ``intersect``; that is
   B's new idom. (Folding the latest predecessors first keeps the walks of step 4 short
   when many blocks branch to one join block.)
4. ``intersect(a, b)`` walks the two blocks up the idom tree, always moving the one with
   the larger RPO number, until they meet: the nearest common dominator.

5. Number the dominator tree depth-first (an "enter" and an "exit" count per block). Then
   A dominates B iff B's interval lies inside A's: a constant-time check, so verifying
   a function of many blocks stays linear.

Blocks that cannot be reached from the
entry are dominated by everything (no execution reaches them, so no use there can see
an undefined value), as in LLVM and MLIR.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%c: i1) {
...   cf.cond_br %c, ^bb1, ^bb2
... ^bb1:
...   cf.br ^bb2
... ^bb2:
...   return
... }''')
>>> entry, then, join = m.body.first_op.body.blocks
>>> info = DominanceInfo(m.body.first_op.body)
>>> info.dominates(entry, join), info.dominates(then, join)
(True, False)
"""

from __future__ import annotations

from tinycomp.ir.block import Block
from tinycomp.ir.region import Region


class DominanceInfo:
    """Immediate dominators of the blocks of ``region`` (see the module docstring)."""

    def __init__(self, region: Region) -> None:
        self.region = region
        """The region analysed."""
        self._rpo_number: dict[Block, int] = {}
        self._idom: dict[Block, Block] = {}
        self._interval: dict[Block, tuple[int, int]] = {}
        if region.blocks:
            self._compute(region.blocks[0])

    def _compute(self, entry: Block) -> None:
        # 1. reverse postorder, with an explicit stack (regions can have many blocks)
        postorder: list[Block] = []
        visited = {entry}
        stack = [(entry, iter(entry.successors))]
        while stack:
            block, successors = stack[-1]
            for successor in successors:
                if successor not in visited and successor.parent is self.region:
                    visited.add(successor)
                    stack.append((successor, iter(successor.successors)))
                    break
            else:
                postorder.append(block)
                stack.pop()
        order = list(reversed(postorder))
        self._rpo_number = {block: number for number, block in enumerate(order)}
        predecessors: dict[Block, list[Block]] = {block: [] for block in order}
        for block in reversed(order):  # latest first: keeps `intersect` walks short
            for successor in block.successors:
                if successor in predecessors:
                    predecessors[successor].append(block)
        # 2. the entry dominates itself
        self._idom = {entry: entry}
        # 3. iterate to a fixed point
        changed = True
        while changed:
            changed = False
            for block in order[1:]:
                new_idom = None
                for pred in predecessors[block]:
                    if pred in self._idom:
                        new_idom = pred if new_idom is None else self._intersect(pred, new_idom)
                if new_idom is not None and self._idom.get(block) is not new_idom:
                    self._idom[block] = new_idom
                    changed = True
        # 5. enter/exit numbers of a depth-first walk of the dominator tree
        children: dict[Block, list[Block]] = {block: [] for block in order}
        for block in order[1:]:
            children[self._idom[block]].append(block)
        counter = 0
        enter: dict[Block, int] = {}
        walk = [(entry, False)]
        while walk:
            block, leaving = walk.pop()
            if leaving:
                self._interval[block] = (enter[block], counter)
                continue
            enter[block] = counter
            counter += 1
            walk.append((block, True))
            walk.extend((child, False) for child in reversed(children[block]))

    def _intersect(self, a: Block, b: Block) -> Block:
        # 4. climb from the deeper block until both meet
        number = self._rpo_number
        while a is not b:
            while number[a] > number[b]:
                a = self._idom[a]
            while number[b] > number[a]:
                b = self._idom[b]
        return a

    def is_reachable(self, block: Block) -> bool:
        """True if control can reach ``block`` from the entry."""
        return block in self._rpo_number

    def immediate_dominator(self, block: Block) -> Block | None:
        """The closest strict dominator (``None`` for the entry and unreachable blocks)."""
        idom = self._idom.get(block)
        return None if idom is None or idom is block else idom

    def dominates(self, a: Block, b: Block) -> bool:
        """True if ``a`` dominates ``b`` (every block dominates itself)."""
        if not self.is_reachable(b):
            return True
        if not self.is_reachable(a):
            return False
        a_enter, a_exit = self._interval[a]
        b_enter, b_exit = self._interval[b]
        return a_enter <= b_enter and b_exit <= a_exit
