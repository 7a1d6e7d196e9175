"""Canonicalization of structured control flow: loops and branches decided at compile time.

* ``scf.for %i = %lb to %ub step %s iter_args(...)`` runs ``ceil((ub - lb) / s)`` times,
  zero times when ``ub <= lb``. A loop that never runs yields its initial values.
* ``scf.if %c`` with a constant ``%c`` always takes the same branch: the ops of that
  branch move in front of the ``scf.if``, and the values its ``scf.yield`` passes out
  replace the results.

The patterns match ops by name and rely only on MLIR's operand and region layout
(``scf.for``: operands ``lb, ub, step, inits...``, one body region; ``scf.if``: the
condition, a then region and a possibly empty else region), so they work whether or
not the scf op classes are loaded.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite import apply_patterns_greedily
>>> m = parse('''
... func.func @f(%a: f32) -> f32 {
...   %true = arith.constant true
...   %r = "scf.if"(%true) ({
...     %m = arith.mulf %a, %a : f32
...     "scf.yield"(%m) : (f32) -> ()
...   }, {
...     "scf.yield"(%a) : (f32) -> ()
...   }) : (i1) -> f32
...   return %r : f32
... }''')
>>> _ = apply_patterns_greedily(m, [IfConstantCondition()])
>>> print(m.body.first_op)
func.func @f(%a: f32) -> f32 {
  %m = arith.mulf %a, %a : f32
  return %m : f32
}
"""

from __future__ import annotations

from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import bitwidth
from tinycomp.rewrite.matchers import constant_attr_of, is_constant_int
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["ForZeroTripCount", "IfConstantCondition", "scf_patterns"]


class ForZeroTripCount(RewritePattern):
    """scf.for %i = lb to ub (ub <= lb) iter_args(inits) -> inits"""

    root = "scf.for"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if len(op.operands) < 3 or len(op.operands) - 3 != len(op.results):
            return False
        lower = constant_attr_of(op.operands[0])
        upper = constant_attr_of(op.operands[1])
        if not isinstance(lower, IntegerAttr) or not isinstance(upper, IntegerAttr):
            return False
        low, high = lower.value, upper.value
        if "unsignedCmp" in op.attributes:  # bounds compared as unsigned numbers
            modulus = 2 ** bitwidth(lower.type)
            low, high = low % modulus, high % modulus
        if high > low:
            return False
        rewriter.replace_op(op, op.operands[3:])
        return True


class IfConstantCondition(RewritePattern):
    """scf.if true {A} else {B} -> A;  scf.if false {A} else {B} -> B"""

    root = "scf.if"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if len(op.operands) != 1 or len(op.regions) != 2:
            return False
        condition = op.operands[0]
        if is_constant_int(condition, 1):
            taken = op.regions[0]
        elif is_constant_int(condition, 0):
            taken = op.regions[1]
        else:
            return False
        if not taken.blocks:  # `scf.if false` without an else branch: nothing runs
            if op.results:
                return False
            rewriter.erase_op(op)
            return True
        if len(taken.blocks) != 1:
            return False
        block = taken.blocks[0]
        terminator = block.last_op
        if terminator is None or terminator.name != "scf.yield":
            return False
        yielded = list(terminator.operands)
        rewriter.erase_op(terminator)
        rewriter.inline_block_before(block, op)
        rewriter.replace_op(op, yielded)
        return True


def scf_patterns() -> list[RewritePattern]:
    """One instance of each pattern of this module."""
    return [ForZeroTripCount(), IfConstantCondition()]
