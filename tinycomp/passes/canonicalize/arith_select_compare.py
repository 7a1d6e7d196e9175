"""Canonicalization of ``arith.select`` and ``arith.cmpi``: decisions known at compile time.

``select(c, a, b)`` needs no choosing when the condition is a constant or when both
sides are the same value. A comparison of a value with itself has a known answer for
integers: ``x == x``, ``x <= x`` are true, ``x < x``, ``x != x`` are false.

Not for floats: ``cmpf oeq, x, x`` is *false* when ``x`` is NaN (ordered predicates
are false on NaN) and ``cmpf une, x, x`` is true then, so ``cmpf`` of equal operands
is left alone (only ``ord``/``uno`` style questions about NaN could be answered, and
they depend on the value).

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite import apply_patterns_greedily
>>> m = parse('''
... func.func @f(%x: i32, %a: f32, %b: f32) -> f32 {
...   %same = arith.cmpi sle, %x, %x : i32
...   %r = arith.select %same, %a, %b : f32
...   return %r : f32
... }''')
>>> _ = apply_patterns_greedily(m, [CmpISameOperands(), SelectConstantCondition()])
>>> print(m.body.first_op)
func.func @f(%x: i32, %a: f32, %b: f32) -> f32 {
  return %a : f32
}
"""

from __future__ import annotations

from tinycomp.dialects.arith.compare import CMPI_PREDICATES
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.passes.canonicalize.helpers import build_constant
from tinycomp.rewrite.matchers import is_constant_int
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = [
    "CMPI_TRUE_ON_EQUAL",
    "CmpISameOperands",
    "SelectConstantCondition",
    "SelectSameValues",
    "select_compare_patterns",
]

CMPI_TRUE_ON_EQUAL = frozenset({"eq", "sle", "sge", "ule", "uge"})
"""The ``cmpi`` predicates that hold when both operands are equal."""


class SelectConstantCondition(RewritePattern):
    """select(true, a, b) -> a;  select(false, a, b) -> b"""

    root = "arith.select"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        condition, if_true, if_false = op.operands
        if is_constant_int(condition, 1):
            rewriter.replace_op(op, [if_true])
            return True
        if is_constant_int(condition, 0):
            rewriter.replace_op(op, [if_false])
            return True
        return False


class SelectSameValues(RewritePattern):
    """select(c, a, a) -> a"""

    root = "arith.select"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        _, if_true, if_false = op.operands
        if if_true is not if_false:
            return False
        rewriter.replace_op(op, [if_true])
        return True


class CmpISameOperands(RewritePattern):
    """cmpi(p, x, x) -> true for eq, sle, sge, ule, uge;  false for ne, slt, sgt, ult, ugt"""

    root = "arith.cmpi"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        lhs, rhs = op.operands
        predicate = op.attributes.get("predicate")
        if lhs is not rhs or not isinstance(predicate, IntegerAttr):
            return False
        if not 0 <= predicate.value < len(CMPI_PREDICATES):
            return False
        answer = CMPI_PREDICATES[predicate.value] in CMPI_TRUE_ON_EQUAL
        constant = build_constant(answer, op.results[0].type)
        if constant is None:  # a tensor of unknown shape: no constant can stand for it
            return False
        rewriter.insert(constant)
        rewriter.replace_op(op, constant.results)
        return True


def select_compare_patterns() -> list[RewritePattern]:
    """One instance of each pattern of this module."""
    return [SelectConstantCondition(), SelectSameValues(), CmpISameOperands()]
