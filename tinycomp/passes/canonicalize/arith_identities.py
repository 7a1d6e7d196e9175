"""Canonicalization of arith arithmetic: identities, absorbing zeros, constants on the right.

Integers obey school algebra modulo 2^n, so ``x + 0``, ``x * 1``, ``x * 0`` and ``x - x``
all simplify. Floats do not, and every float rewrite below was checked against the three
IEEE values that break naive algebra:

* **NaN**: ``NaN * 0`` is NaN, not 0; ``x - x`` is NaN for ``x = NaN`` or ``inf``.
* **signed zero**: ``-0.0 + 0.0`` is ``+0.0``, so ``x + 0.0 -> x`` would turn ``-0.0``
  into ``+0.0`` (and ``1 / x`` from ``-inf`` into ``+inf``). The identity of IEEE
  addition is ``-0.0``: ``x + (-0.0) == x`` for every ``x``.
* **infinity**: ``inf * 0`` is NaN.

So ``x * 0 -> 0`` is done for floats only when the op's fast-math flags promise no
NaNs (``nnan``) and that the sign of zero does not matter (``nsz``), as MLIR and LLVM
do. ``x * 1.0``, ``x / 1.0``, ``x + (-0.0)`` and ``x - 0.0`` are exact for every float.
(``x + 0.0 -> x`` would be allowed under ``nsz``; MLIR's arith leaves that one to
LLVM, and so does tinycomp, so that ``canonicalize`` here prints what ``mlir-opt``
prints.)

Every pattern here looks for the constant on the right only: ``ConstantToRight`` first
moves the constant operand of a commutative op there (``2 + x -> x + 2``), so one
canonical form has to be matched instead of two.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite import apply_patterns_greedily
>>> m = parse('''
... func.func @f(%x: i32) -> i32 {
...   %zero = arith.constant 0 : i32
...   %y = arith.addi %zero, %x : i32
...   return %y : i32
... }''')
>>> _ = apply_patterns_greedily(m, [ConstantToRight(), AddIZero()])
>>> print(m.body.first_op)
func.func @f(%x: i32) -> i32 {
  return %x : i32
}
"""

from __future__ import annotations

from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value
from tinycomp.passes.canonicalize.helpers import build_constant, fastmath_flags
from tinycomp.rewrite.matchers import constant_attr_of, is_constant_float, is_constant_int
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter
from tinycomp.rewrite.traits import is_commutative

__all__ = [
    "AddFNegativeZero", "AddIZero", "ConstantToRight", "DivFOne", "DivSIOne", "DivUIOne",
    "MulFOne", "MulFZeroFast", "MulIOne", "MulIZero", "NegFNegF", "RightIdentity", "SubFZero",
    "SubISelf", "SubIZero", "arith_identity_patterns",
]  # fmt: skip


class ConstantToRight(RewritePattern):
    """c op x -> x op c  (commutative op, constant c, non-constant x)"""

    root = None  # every commutative op: addi, muli, andi, addf, maximumf, ...
    benefit = 2

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if not is_commutative(op):
            return False
        lhs, rhs = op.operands
        if constant_attr_of(lhs) is None or constant_attr_of(rhs) is not None:
            return False
        with rewriter.modify_op_in_place(op):
            op.set_operands([rhs, lhs])
        return True


class RightIdentity(RewritePattern):
    """x op e -> x  (e the identity element of op; subclasses say which e)"""

    def is_identity(self, op: Operation, value: Value) -> bool:
        """True when ``value`` is ``op``'s right identity element."""
        raise NotImplementedError

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if len(op.operands) != 2 or len(op.results) != 1:
            return False
        x, e = op.operands
        if x.type != op.results[0].type or not self.is_identity(op, e):
            return False
        rewriter.replace_op(op, [x])
        return True


class AddIZero(RightIdentity):
    """x + 0 -> x"""

    root = "arith.addi"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_int(value, 0)


class AddFNegativeZero(RightIdentity):
    """x + (-0.0) -> x  (not x + 0.0: -0.0 + 0.0 is +0.0)"""

    root = "arith.addf"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_float(value, -0.0)


class SubIZero(RightIdentity):
    """x - 0 -> x"""

    root = "arith.subi"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_int(value, 0)


class SubFZero(RightIdentity):
    """x - 0.0 -> x  (x - 0.0 is x + (-0.0); not x - (-0.0), which is x + 0.0)"""

    root = "arith.subf"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_float(value, 0.0)


class MulIOne(RightIdentity):
    """x * 1 -> x"""

    root = "arith.muli"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_int(value, 1)


class MulFOne(RightIdentity):
    """x * 1.0 -> x  (exact for every float, NaN, inf and -0.0 included)"""

    root = "arith.mulf"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_float(value, 1.0)


class DivSIOne(RightIdentity):
    """x / 1 -> x  (signed division)"""

    root = "arith.divsi"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_int(value, 1)


class DivUIOne(RightIdentity):
    """x / 1 -> x  (unsigned division)"""

    root = "arith.divui"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_int(value, 1)


class DivFOne(RightIdentity):
    """x / 1.0 -> x"""

    root = "arith.divf"

    def is_identity(self, op: Operation, value: Value) -> bool:
        return is_constant_float(value, 1.0)


class MulIZero(RewritePattern):
    """x * 0 -> 0  (integers only; see MulFZeroFast for floats)"""

    root = "arith.muli"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        zero = op.operands[1]
        if not is_constant_int(zero, 0) or zero.type != op.results[0].type:
            return False
        rewriter.replace_op(op, [zero])
        return True


class MulFZeroFast(RewritePattern):
    """x * 0.0 -> 0.0  (floats, only under fastmath nnan and nsz: NaN * 0 and inf * 0
    are NaN, -1.0 * 0.0 is -0.0)"""

    root = "arith.mulf"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        zero = op.operands[1]
        is_zero = is_constant_float(zero, 0.0) or is_constant_float(zero, -0.0)
        if not is_zero or not {"nnan", "nsz"} <= fastmath_flags(op):
            return False
        rewriter.replace_op(op, [zero])
        return True


class SubISelf(RewritePattern):
    """x - x -> 0  (integers only: for floats, inf - inf and NaN - NaN are NaN)"""

    root = "arith.subi"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        lhs, rhs = op.operands
        zero = build_constant(0, op.results[0].type)
        if lhs is not rhs or zero is None:
            return False
        rewriter.insert(zero)
        rewriter.replace_op(op, zero.results)
        return True


class NegFNegF(RewritePattern):
    """-(-x) -> x  (negation only flips the sign bit: exact for every float)"""

    root = "arith.negf"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        inner = op.operands[0].defining_op()
        if inner is None or inner.name != "arith.negf":
            return False
        rewriter.replace_op(op, [inner.operands[0]])
        return True


def arith_identity_patterns() -> list[RewritePattern]:
    """One instance of each pattern of this module."""
    return [
        ConstantToRight(), AddIZero(), AddFNegativeZero(), SubIZero(), SubFZero(), MulIOne(),
        MulFOne(), DivSIOne(), DivUIOne(), DivFOne(), MulIZero(), MulFZeroFast(), SubISelf(),
        NegFNegF(),
    ]  # fmt: skip
