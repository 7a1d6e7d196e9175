"""``lower-affine`` (the part kernels need): ``affine.apply`` and ``affine.min`` as arith.

The SIMT simulator, like a GPU, runs plain integer arithmetic; an affine map is a
formula over the loop indices, so it becomes the ops that compute it, as MLIR's
``-lower-affine`` writes them:

1. Walk the ``affine.apply`` and ``affine.min`` ops under the given op.
2. Lower each result expression of the map, recursively: a dimension or symbol is its
   operand, a constant an ``arith.constant``, ``+`` and ``*`` are ``arith.addi`` and
   ``arith.muli``, ``floordiv``, ``ceildiv`` and ``mod`` are ``arith.floordivsi``,
   ``arith.ceildivsi`` and ``arith.remsi`` (``mod`` in an affine map has a positive
   divisor, and the indices here are not negative, so ``remsi`` gives the same value).
3. ``affine.min`` takes the smallest result with ``arith.minsi``; the op's result is
   replaced and the op erased.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%i: index) -> index {
...   %0 = affine.min affine_map<(d0) -> (-d0 + 10, 4)>(%i)
...   return %0 : index }''')
>>> lower_affine_ops(m)
>>> print(m.body.first_op.entry_block.ops[-2])
%2 = arith.minsi %1, %c4 : index
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine.expr import (
    AffineBinaryExpr,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymbolExpr,
)
from tinycomp.dialects.affine.apply import AffineApplyOp, AffineMinOp
from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.binary import (
    AddIOp,
    CeilDivSIOp,
    FloorDivSIOp,
    MinSIOp,
    MulIOp,
    RemSIOp,
)
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import index
from tinycomp.ir.values import Value
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["LowerAffinePass", "lower_affine_ops"]

_BINARY = {
    "add": AddIOp,
    "mul": MulIOp,
    "floordiv": FloorDivSIOp,
    "ceildiv": CeilDivSIOp,
    "mod": RemSIOp,
}


def _lower_expr(
    expr: AffineExpr, dims: Sequence[Value], symbols: Sequence[Value], rewriter: PatternRewriter
) -> Value:
    """Step 2: the arith ops computing ``expr``, inserted before the current op."""
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymbolExpr):
        return symbols[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return rewriter.insert(ConstantOp.build(expr.value, index)).result
    assert isinstance(expr, AffineBinaryExpr)
    lhs = _lower_expr(expr.lhs, dims, symbols, rewriter)
    rhs = _lower_expr(expr.rhs, dims, symbols, rewriter)
    return rewriter.insert(_BINARY[expr.kind].build(lhs, rhs)).result


def lower_affine_ops(root: Operation) -> None:
    """Steps 1-3 on every ``affine.apply`` and ``affine.min`` nested in ``root``."""
    rewriter = PatternRewriter()
    for op in [o for o in root.walk() if isinstance(o, AffineApplyOp | AffineMinOp)]:
        rewriter.set_current_op(op)
        dims, symbols = op.operands[: op.map.num_dims], op.operands[op.map.num_dims :]
        values = [_lower_expr(e, dims, symbols, rewriter) for e in op.map.results]
        smallest = values[0]
        for value in values[1:]:  # step 3 (an affine.apply has one result expression)
            smallest = rewriter.insert(MinSIOp.build(smallest, value)).result
        rewriter.replace_op(op, [smallest])


class LowerAffinePass(Pass):
    """``affine.apply`` and ``affine.min`` as arith ops (see the module docstring)."""

    name = "lower-affine"
    summary = "affine.apply and affine.min as arith ops"

    def run(self, op: Operation) -> None:
        lower_affine_ops(op)


register_pass(LowerAffinePass)
