"""Dead code elimination: erase what no one needs.

An op is dead when nothing uses its results and running it has no visible effect.
Removing one can make others dead (the ops that computed its operands), so the pass
works from uses back to definitions. The algorithm:

1. Dead ops: put every op on a worklist and take them last-first (later ops before
   earlier ones, nested ops before the op holding them). An op that is trivially dead
   (unused results, free of side effects, not a terminator; unknown ops are assumed to
   have effects) is erased, and the ops defining its operands go back on the worklist.
2. Dead block arguments: an argument of a non-entry block that nothing reads is
   removed, together with the value each branch passes to it, when every branch to the
   block is a ``cf.br`` or ``cf.cond_br`` (ops whose operand layout the pass knows).
   Entry-block arguments are left alone: they are a function's signature or a loop's
   induction variable, fixed by the op that owns the region.
3. Dead private functions: a ``func.func`` marked ``private`` that no symbol reference
   in the module names can never be called; it is erased.
4. Steps 2 and 3 may leave new dead ops: repeat from 1 until nothing changes.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%x: f32) -> f32 {
...   %unused = arith.mulf %x, %x : f32
...   %also_unused = arith.addf %unused, %x : f32
...   "test.print"(%x) : (f32) -> ()
...   return %x : f32
... }
... func.func private @never_called() { return }''')
>>> dce = DCEPass()
>>> dce.run(m)
>>> print(m)
module {
  func.func @f(%x: f32) -> f32 {
    "test.print"(%x) : (f32) -> ()
    return %x : f32
  }
}
>>> sorted(dce.statistics.items())
[('functions erased', 1), ('ops erased', 2)]
"""

from __future__ import annotations

from collections.abc import Iterator

from tinycomp.ir.attributes import ArrayAttr, Attribute, DictionaryAttr, StringAttr, SymbolRefAttr
from tinycomp.ir.block import Block
from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.symbols import symbol_name
from tinycomp.passes.pass_base import Pass
from tinycomp.rewrite.traits import is_trivially_dead

__all__ = ["DCEPass", "referenced_symbols"]

EDITABLE_BRANCHES = frozenset({"cf.br", "cf.cond_br"})
"""Terminators whose successor operands step 2 knows how to remove."""


class DCEPass(Pass):
    """Erase dead ops, dead block arguments and dead private functions."""

    name = "dce"
    summary = "erase unused pure ops, unused block arguments and uncalled private functions"

    def run(self, op: Operation) -> None:
        while True:  # step 4
            self._erase_dead_ops(op)
            changed = self._erase_dead_block_arguments(op)
            changed = self._erase_dead_private_functions(op) or changed
            if not changed:
                return

    # -- step 1 ------------------------------------------------------------------------------
    def _erase_dead_ops(self, root: Operation) -> None:
        worklist = list(root.walk())
        erased: set[Operation] = set()
        while worklist:
            op = worklist.pop()
            if op is root or op in erased or not is_trivially_dead(op):
                continue
            for nested in op.walk():
                erased.add(nested)
                for operand in nested.operands:
                    producer = operand.defining_op()
                    if producer is not None:
                        worklist.append(producer)
            op.erase()
            self.statistics["ops erased"] += 1

    # -- step 2 ------------------------------------------------------------------------------
    def _erase_dead_block_arguments(self, root: Operation) -> bool:
        changed = False
        for op in root.walk():
            for region in op.regions:
                if len(region.blocks) < 2:
                    continue
                predecessors: dict[Block, list[tuple[Operation, int]]] = {}
                for block in region.blocks:
                    terminator = block.last_op
                    for index, successor in enumerate(block.successors):
                        predecessors.setdefault(successor, []).append((terminator, index))
                for block in region.blocks[1:]:
                    edges = predecessors.get(block, [])
                    if all(branch.name in EDITABLE_BRANCHES for branch, _ in edges):
                        changed = self._drop_unused_arguments(block, edges) or changed
        return changed

    def _drop_unused_arguments(self, block: Block, edges: list[tuple[Operation, int]]) -> bool:
        unused = [argument.index for argument in block.arguments if not argument.has_uses]
        for position in reversed(unused):
            for branch, successor_index in edges:
                _remove_successor_operand(branch, successor_index, position)
            block.erase_argument(position)
            self.statistics["block arguments erased"] += 1
        return bool(unused)

    # -- step 3 ------------------------------------------------------------------------------
    def _erase_dead_private_functions(self, root: Operation) -> bool:
        referenced = referenced_symbols(root)
        dead = []
        for op in root.walk():
            if op.name != "func.func" or op is root:
                continue
            visibility = op.attributes.get("sym_visibility")
            private = isinstance(visibility, StringAttr) and visibility.value == "private"
            if private and symbol_name(op) not in referenced:
                dead.append(op)
        for function in dead:
            function.erase()
            self.statistics["functions erased"] += 1
        return bool(dead)


def _remove_successor_operand(branch: Operation, successor_index: int, position: int) -> None:
    """Remove the operand ``branch`` passes to argument ``position`` of successor
    ``successor_index`` (``cf.br``: all operands go to its one successor;
    ``cf.cond_br``: ``[condition, *true_operands, *false_operands]`` with sizes in
    ``operandSegmentSizes``)."""
    operands = list(branch.operands)
    if branch.name == "cf.br":
        del operands[position]
        branch.set_operands(operands)
        return
    sizes = list(branch.attributes["operandSegmentSizes"].values)
    start = 1 if successor_index == 0 else 1 + sizes[1]
    del operands[start + position]
    sizes[1 + successor_index] -= 1
    branch.set_operands(operands)
    branch.attributes["operandSegmentSizes"] = DenseArrayAttr(
        branch.attributes["operandSegmentSizes"].element_type, sizes
    )


def referenced_symbols(root: Operation) -> set[str]:
    """The names of all symbols referred to (``@f`` in any attribute) under ``root``.

    >>> from tinycomp.ir import parse
    >>> sorted(referenced_symbols(parse('''
    ... func.func private @g() -> ()
    ... func.func @f() { func.call @g() : () -> ()  return }''')))
    ['g']
    """
    names: set[str] = set()
    for op in root.walk():
        for attr in op.attributes.values():
            for ref in _symbol_refs(attr):
                names.add(ref.root)
    return names


def _symbol_refs(attr: Attribute) -> Iterator[SymbolRefAttr]:
    """Every ``SymbolRefAttr`` in ``attr``, looking inside arrays and dictionaries."""
    if isinstance(attr, SymbolRefAttr):
        yield attr
    elif isinstance(attr, ArrayAttr):
        for element in attr.elements:
            yield from _symbol_refs(element)
    elif isinstance(attr, DictionaryAttr):
        for _, value in attr.entries:
            yield from _symbol_refs(value)
