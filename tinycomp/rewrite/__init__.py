"""Rewriting IR with patterns: the machinery under ``canonicalize`` (chapter 03).

The pieces, in the order a reader meets them:

* ``pattern``: ``RewritePattern``, a small class per rewrite, whose docstring's first
  line states the algebra (``x * 1 -> x``);
* ``rewriter``: ``PatternRewriter``, through which a pattern makes every change, so the
  driver hears about it;
* ``driver``: ``apply_patterns_greedily``, the worklist algorithm that applies patterns
  and folding until nothing changes;
* ``folding`` and ``constant_eval``: a table of fold functions by op name; constant
  folding runs the reference interpreter's rules, so folded values are exact;
* ``constants``: keeping constants unique and at the top of the function;
* ``traits`` and ``matchers``: side effects, commutativity, "is this the constant 0?".

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%x: i32) -> i32 {
...   %a = arith.constant 4 : i32
...   %b = arith.constant 5 : i32
...   %c = arith.addi %a, %b : i32
...   %y = arith.muli %x, %c : i32
...   return %y : i32
... }''')
>>> _ = apply_patterns_greedily(m, [])
>>> print(m.body.first_op)
func.func @f(%x: i32) -> i32 {
  %c9_i32 = arith.constant 9 : i32
  %y = arith.muli %x, %c9_i32 : i32
  return %y : i32
}
"""

from tinycomp.rewrite.constants import ConstantUniquer, materialize_constant
from tinycomp.rewrite.driver import FOLDING, GreedyRewriteResult, apply_patterns_greedily
from tinycomp.rewrite.errors import RewriteError
from tinycomp.rewrite.folding import FOLDERS, Folder, FoldResult, fold_constant_operands, fold_op
from tinycomp.rewrite.matchers import (
    constant_attr_of,
    constant_scalar,
    is_constant_float,
    is_constant_int,
)
from tinycomp.rewrite.pattern import RewritePattern, pattern_table
from tinycomp.rewrite.rewriter import PatternRewriter, RewriteListener
from tinycomp.rewrite.traits import (
    is_commutative,
    is_constant_op,
    is_pure,
    is_registered,
    is_trivially_dead,
)
from tinycomp.rewrite.worklist import Worklist

__all__ = [
    # patterns and the rewriter
    "RewritePattern", "pattern_table", "PatternRewriter", "RewriteListener", "RewriteError",
    # the driver
    "apply_patterns_greedily", "GreedyRewriteResult", "FOLDING", "Worklist",
    # folding and constants
    "FOLDERS", "Folder", "FoldResult", "fold_op", "fold_constant_operands",
    "ConstantUniquer", "materialize_constant",
    # questions about ops and values
    "is_pure", "is_trivially_dead", "is_constant_op", "is_commutative", "is_registered",
    "constant_attr_of", "constant_scalar", "is_constant_int", "is_constant_float",
]  # fmt: skip
