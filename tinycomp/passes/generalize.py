"""Generalization: every named linalg op becomes the ``linalg.generic`` it stands for.

A named op (``linalg.matmul``, ``linalg.fill``, ...) is a ``linalg.generic`` with a
fixed set of indexing maps, iterator types and payload, spelled with a short name.
Later passes (fusion, tiling) want a single form to reason about, so this pass spells
each named op out. It is MLIR's ``--linalg-generalize-named-ops``. The algorithm:

1. Match: any op in ``NAMED_STRUCTURED_OPS`` (fill, matmul, batch_matmul,
   conv_2d_nhwc_hwcf, transpose, broadcast, map, reduce). ``linalg.generic`` itself is
   already general and is left alone.
2. Build: ``op.generalize()`` returns a detached ``linalg.generic`` with the same
   operands, the op's indexing maps and iterator types, and a copy of its payload.
3. Replace: the rewriter inserts the generic before the named op, redirects the uses of
   the named op's results (on tensors) to the generic's results, and erases the named
   op. On memrefs there are no results: the generic writes the same ``outs`` buffer.
   The generic's results keep the named op's name hints, so ``%matmul`` still prints
   as ``%matmul`` and every report and picture names the op as before (MLIR has no
   name hints; its printer numbers both).

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%v: f32, %init: tensor<2x3xf32>) -> tensor<2x3xf32> {
...   %r = linalg.fill ins(%v : f32) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
...   return %r : tensor<2x3xf32>
... }''')
>>> pass_ = GeneralizePass()
>>> pass_.run(m)
>>> [op.name for op in m.body.first_op.entry_block.ops]
['linalg.generic', 'func.return']
>>> print(m.body.first_op.entry_block.first_op.results[0].name_hint)
r
>>> dict(pass_.statistics)
{'GeneralizeNamedOp': 1}
"""

from __future__ import annotations

from collections.abc import Sequence

import tinycomp.dialects.linalg  # noqa: F401  (registers the linalg op classes)
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.operation import Operation
from tinycomp.passes.pass_base import PatternPass
from tinycomp.passes.registry import register_pass
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["NAMED_STRUCTURED_OPS", "GeneralizeNamedOp", "GeneralizePass"]

NAMED_STRUCTURED_OPS = frozenset(
    {
        "linalg.fill",
        "linalg.matmul",
        "linalg.batch_matmul",
        "linalg.conv_2d_nhwc_hwcf",
        "linalg.transpose",
        "linalg.broadcast",
        "linalg.map",
        "linalg.reduce",
    }
)
"""The linalg ops this pass rewrites into ``linalg.generic``."""


class GeneralizeNamedOp(RewritePattern):
    """named_op(ins, outs) -> linalg.generic(ins, outs) with the named op's maps and payload

    >>> from tinycomp.ir import parse
    >>> from tinycomp.rewrite import apply_patterns_greedily
    >>> m = parse('''
    ... func.func @f(%x: memref<2x3xf32>, %y: memref<3x2xf32>) {
    ...   linalg.transpose ins(%x : memref<2x3xf32>) outs(%y : memref<3x2xf32>)
    ...     permutation = [1, 0]
    ...   return
    ... }''')
    >>> _ = apply_patterns_greedily(m, [GeneralizeNamedOp()])
    >>> generic = m.body.first_op.entry_block.first_op
    >>> generic.name, generic.iterator_types()
    ('linalg.generic', ['parallel', 'parallel'])
    """

    root = None  # several op names: checked in match_and_rewrite (step 1)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if op.name not in NAMED_STRUCTURED_OPS or not isinstance(op, StructuredOp):
            return False  # step 1: only named structured ops with a known class
        generic = op.generalize()  # step 2
        for named_result, generic_result in zip(op.results, generic.results, strict=True):
            generic_result.name_hint = named_result.name_hint
        rewriter.replace_op_with_new(op, generic)  # step 3
        return True


class GeneralizePass(PatternPass):
    """Rewrite every named linalg op into the equivalent ``linalg.generic``.

    >>> GeneralizePass.name
    'linalg-generalize-named-ops'
    """

    name = "linalg-generalize-named-ops"
    summary = "rewrite named linalg ops (matmul, fill, map, ...) into linalg.generic"

    def patterns(self) -> Sequence[RewritePattern]:
        return [GeneralizeNamedOp()]


register_pass(GeneralizePass)
