"""One ``tensor.empty`` per use: the first step of one-shot bufferization.

``tensor.empty`` is a tensor with a shape and no contents: a promise that a buffer of
that shape will be written before it is read. CSE, seeing two identical pure ops,
merges ``tensor.empty`` ops, so one empty often becomes the destination of many
unrelated kernels::

    %e = tensor.empty() : tensor<8x16xf32>
    %a = linalg.generic ... outs(%e) ...      // layer 1
    %b = linalg.generic ... outs(%e) ...      // layer 2, unrelated to %a

For the in-place analysis, every value written into ``%e``'s buffer then belongs to one
alias set, and the analysis compares every write in that set with every read: the time
grows with the square of the program. Yet sharing the empty means nothing: it holds no
data, so each use may just as well have an empty of its own. MLIR's bufferization
documentation gives the same advice (do not CSE ``tensor.empty`` before bufferizing;
its ``-eliminate-empty-tensors`` also works use by use). The algorithm:

1. For every ``tensor.empty`` with more than one use, keep the first use.
2. For each further use, clone the empty (with its dynamic sizes) right before the op
   that uses it, and make that use read the clone.

Buffers are not wasted: each empty that is written in place becomes one allocation,
exactly as before, and ``buffer-reuse`` lets allocations whose lifetimes do not overlap
share memory.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%v: f32) -> (tensor<4xf32>, tensor<4xf32>) {
...   %e = tensor.empty() : tensor<4xf32>
...   %a = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
...   %b = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
...   return %a, %b : tensor<4xf32>, tensor<4xf32> }''')
>>> split_shared_empty_tensors(m.body.first_op)
1
>>> [op.name for op in m.body.first_op.entry_block.ops][:4]
['tensor.empty', 'linalg.fill', 'tensor.empty', 'linalg.fill']
"""

from __future__ import annotations

from tinycomp.ir.operation import Operation

__all__ = ["split_shared_empty_tensors"]


def split_shared_empty_tensors(function: Operation) -> int:
    """Give every use of a ``tensor.empty`` in ``function`` its own empty (steps 1-2);
    returns how many empties were added."""
    added = 0
    for empty in [op for op in function.walk() if op.name == "tensor.empty"]:
        for use in list(empty.results[0].uses)[1:]:
            clone = empty.clone()
            clone.results[0].name_hint = empty.results[0].name_hint
            use.user.parent.insert_before(clone, use.user)
            use.user.set_operand(use.index, clone.results[0])
            added += 1
    return added
