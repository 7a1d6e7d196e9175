"""Canonicalization of memref allocation: a buffer nobody reads need not exist.

A buffer from ``memref.alloc`` can only be read through its SSA value: every load,
copy, view or call that touches it is a *use* of that value. So if every use is a
``memref.store`` *into* the buffer or its ``memref.dealloc``, nothing can ever read what
was stored, and the allocation, the stores and the deallocation can all go. No alias
analysis is needed: a buffer that escaped (passed to a call, stored somewhere as a
value, viewed by a subview) has a use of another kind and is kept. This is MLIR's
``SimplifyDeadAlloc``.

The patterns match by op name, so they work whether or not the memref op classes are
loaded.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite import apply_patterns_greedily
>>> m = parse('''
... func.func @f(%v: f32, %i: index) {
...   %m = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
...   "memref.store"(%v, %m, %i) : (f32, memref<4xf32>, index) -> ()
...   "memref.dealloc"(%m) : (memref<4xf32>) -> ()
...   return
... }''')
>>> _ = apply_patterns_greedily(m, [DeadAlloc()])
>>> print(m.body.first_op)
func.func @f(%v: f32, %i: index) {
  return
}
"""

from __future__ import annotations

from tinycomp.ir.operation import Operation
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["DeadAlloc", "DeadAlloca", "memref_patterns"]


def _only_written_or_freed(op: Operation) -> bool:
    """Every use of ``op``'s buffer is a store into it (operand #1, the memref) or a
    dealloc."""
    for use in op.results[0].uses:
        if use.user.name == "memref.store" and use.index == 1:
            continue
        if use.user.name == "memref.dealloc":
            continue
        return False
    return True


class DeadAlloc(RewritePattern):
    """alloc() used only by stores into it and dealloc -> nothing"""

    root = "memref.alloc"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if len(op.results) != 1 or not op.results[0].has_uses:
            return False  # an unused alloc is simply dead: the driver erases it
        if not _only_written_or_freed(op):
            return False
        for user in list(dict.fromkeys(op.results[0].users)):
            rewriter.erase_op(user)
        rewriter.erase_op(op)
        return True


class DeadAlloca(DeadAlloc):
    """alloca() used only by stores into it -> nothing"""

    root = "memref.alloca"


def memref_patterns() -> list[RewritePattern]:
    """One instance of each pattern of this module."""
    return [DeadAlloc(), DeadAlloca()]
