"""Canonicalization of arith casts: remove round trips that give the value back exactly.

A cast chain may be removed only when the round trip loses nothing for *every* input:

* ``index_cast(index_cast(x : i32 -> index) -> i32)``: sign-extending to index and
  truncating back gives ``x`` again. (MLIR also folds the opposite direction,
  ``index -> i32 -> index``, assuming the index value fits in 32 bits; tinycomp does
  not, because truncation changes large values: 2^40 comes back as 0.)
* ``truncf(extf(x : f16 -> f32) -> f16)``: every f16 is exactly representable as f32,
  so widening then narrowing to the same type gives ``x`` bit for bit.
* ``extf(truncf(x : f32 -> f16) -> f32)`` is **not** folded: truncation rounds away
  precision (and overflows large values to infinity), and the extension cannot bring
  it back; ``0.1 : f32`` comes back as ``0.099975586``. Removing the pair would change
  the numbers, which is exactly what mixed-precision code relies on not happening.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite import apply_patterns_greedily
>>> m = parse('''
... func.func @f(%x: i32) -> i32 {
...   %i = arith.index_cast %x : i32 to index
...   %y = arith.index_cast %i : index to i32
...   return %y : i32
... }''')
>>> _ = apply_patterns_greedily(m, [IndexCastRoundTrip()])
>>> print(m.body.first_op)
func.func @f(%x: i32) -> i32 {
  return %x : i32
}
"""

from __future__ import annotations

from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import IndexType
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["IndexCastRoundTrip", "IndexCastUIRoundTrip", "TruncFOfExtF", "cast_patterns"]


class IndexCastRoundTrip(RewritePattern):
    """index_cast(index_cast(x : iN -> index) : index -> iN) -> x"""

    root = "arith.index_cast"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        inner = op.operands[0].defining_op()
        if inner is None or inner.name != op.name:
            return False
        x = inner.operands[0]
        widened_to_index = isinstance(element_type(inner.results[0].type), IndexType)
        if not widened_to_index or x.type != op.results[0].type:
            return False
        rewriter.replace_op(op, [x])
        return True


class IndexCastUIRoundTrip(IndexCastRoundTrip):
    """index_castui(index_castui(x : iN -> index) : index -> iN) -> x"""

    root = "arith.index_castui"


class TruncFOfExtF(RewritePattern):
    """truncf(extf(x : T -> U) : U -> T) -> x  (the extension is exact)"""

    root = "arith.truncf"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        inner = op.operands[0].defining_op()
        if inner is None or inner.name != "arith.extf":
            return False
        x = inner.operands[0]
        if x.type != op.results[0].type:
            return False
        rewriter.replace_op(op, [x])
        return True


def cast_patterns() -> list[RewritePattern]:
    """One instance of each pattern of this module."""
    return [IndexCastRoundTrip(), IndexCastUIRoundTrip(), TruncFOfExtF()]
