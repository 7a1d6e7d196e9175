"""Lanes: how a value of a loop body changes from one iteration to the next.

Running ``W`` neighbouring iterations of a loop at once (lanes ``0 .. W-1``) means
knowing, for every value of the body, how it differs between lanes. LLVM answers with
*scalar evolution* (SCEV), which describes a value as ``{start, +, step}`` over the
loop; ``LaneAnalysis`` keeps the part a vectorizer needs, the *stride*:

==========  =====================================  ==================================
stride      meaning                                examples
==========  =====================================  ==================================
``0``       uniform: the same in every lane        values from outside the loop,
                                                   constants, ``%row_max / %n``
``k``       linear: ``iv * k + uniform``           ``%iv``, ``%iv + 3``,
                                                   ``affine.apply (d0 * 2 + d1)``
``None``    varying: anything else                 ``memref.load %x[%i, %iv]``,
                                                   ``arith.mulf`` of such a value
==========  =====================================  ==================================

A load at a linear index of stride 1 in the last dimension reads neighbouring memory:
one vector load. Uniform values stay scalar and are broadcast where a vector needs
them. Linear values are only ever used as addresses (lane 0's address is enough);
one used as data would need the vector ``<iv, iv+1, ...>``.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: memref<64xf32>, %n: index) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c2 = arith.constant 2 : index
...   scf.for %i = %c0 to %n step %c1 {
...     %j = arith.muli %i, %c2 : index
...     %v = memref.load %x[%j] : memref<64xf32>
...     %w = arith.addf %v, %v : f32
...     memref.store %w, %x[%i] : memref<64xf32>
...   }
...   return }''')
>>> loop = [op for op in m.walk() if op.name == "scf.for"][0]
>>> lanes = LaneAnalysis(loop)
>>> [lanes.stride(op.results[0]) for op in loop.body.ops if op.results]
[2, None, None]
>>> lanes.stride(loop.induction_var), lanes.stride(loop.upper_bound)
(1, 0)
"""

from __future__ import annotations

from tinycomp.affine import AffineDimExpr, AffineSymbolExpr
from tinycomp.affine.simplify import linearize
from tinycomp.dialects.common.region_syntax import constant_int
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import BlockArgument, Value

__all__ = ["LaneAnalysis", "NotVectorizable", "is_pure_op", "op_text"]

_INDEX_ARITH = ("arith.addi", "arith.subi", "arith.muli")


class NotVectorizable(Exception):
    """Why a loop was left alone (the message goes into the pass's report)."""


def op_text(op: Operation) -> str:
    """``op`` quoted for a reason: its one-line text, or its name if it has regions."""
    return f"'{op.name}'" if op.regions else f"'{str(op).strip()}'"


def is_pure_op(op: Operation) -> bool:
    """Pure (no memory effect, removable) and without regions."""
    return op.is_pure and not op.regions


class LaneAnalysis:
    """Step 1: how each value of the loop body changes from one lane to the next."""

    def __init__(self, loop: ForOp) -> None:
        self.loop = loop
        self.iv = loop.induction_var
        self._strides: dict[Value, int | None] = {}

    def is_inside(self, value: Value) -> bool:
        """Whether ``value`` is defined in the loop body (an op result or a block argument)."""
        return value.parent_block() is self.loop.body

    def stride(self, value: Value) -> int | None:
        """``0`` uniform, ``k`` for ``iv * k + uniform``, ``None`` varying."""
        if value is self.iv:
            return 1
        if not self.is_inside(value):
            return 0
        if value not in self._strides:
            self._strides[value] = self._compute(value)
        return self._strides[value]

    def _compute(self, value: Value) -> int | None:
        if isinstance(value, BlockArgument):
            return None  # an iter_arg: a running reduction value
        op = value.defining_op()
        operand_strides = [self.stride(v) for v in op.operands]
        if op.name in _INDEX_ARITH and None not in operand_strides:
            return _index_arith_stride(op, operand_strides)
        if op.name == "affine.apply" and None not in operand_strides:
            return self._affine_stride(op, operand_strides)
        if op.name == "memref.load":
            return 0 if all(s == 0 for s in operand_strides) else None
        if is_pure_op(op) and all(s == 0 for s in operand_strides):
            return 0
        return None

    @staticmethod
    def _affine_stride(op: Operation, strides: list[int]) -> int | None:
        """The stride of ``affine.apply``: sum of coefficient x operand stride over the
        linear form of its expression; a ``mod``/``floordiv`` of a moving value: ``None``."""
        affine_map = op.map
        form = linearize(affine_map.results[0])
        total = 0
        for term, coefficient in form.terms.items():
            if isinstance(term, AffineDimExpr):
                total += coefficient * strides[term.position]
            elif isinstance(term, AffineSymbolExpr):
                total += coefficient * strides[affine_map.num_dims + term.position]
            else:  # a non-linear atom: fine only if nothing in it moves
                used = [*term.used_dims()]
                used += [affine_map.num_dims + s for s in term.used_symbols()]
                if any(strides[position] != 0 for position in used):
                    return None
        return total


def _index_arith_stride(op: Operation, strides: list[int]) -> int | None:
    """``addi``/``subi`` add/subtract strides; ``muli`` scales one by a constant."""
    lhs, rhs = strides
    if op.name == "arith.addi":
        return lhs + rhs
    if op.name == "arith.subi":
        return lhs - rhs
    if lhs == 0 and rhs == 0:
        return 0
    if lhs != 0 and rhs != 0:
        return None  # iv * iv: not linear
    factor = constant_int(op.operands[0] if lhs == 0 else op.operands[1])
    return None if factor is None else factor * (lhs + rhs)
