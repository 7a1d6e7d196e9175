"""Loop interchange on ``linalg.generic``: choose the order its loops will run in.

``convert-linalg-to-loops`` writes a generic's loops in the order of its dimensions,
outermost ``d0``. For a matmul ``(i, j, k)`` the innermost loop is then ``k``, and
``B[k, j]`` moves down a column: a vectorizer cannot widen that loop (its loads are a
gather), and each iteration depends on the previous one through the sum. Running the
loops as ``(i, k, j)`` makes ``j`` innermost: ``B[k, j]`` and ``C[i, j]`` move along a
row (contiguous vector loads and stores) and ``A[i, k]`` is the same for every ``j`` (a
broadcast). That is the loop order the "tiled + vectorized" matmul of the GEMM
benchmark needs.

MLIR does this on the linalg op, before any loop exists (``linalg::interchangeGenericOp``,
the transform op ``transform.structured.interchange``): the op keeps its payload and
operands, only its loop dimensions are renamed. With ``permutation[p] = q`` (new loop
``p`` is old loop ``q``):

1. Check the op: a ``linalg.generic`` with as many loops as the permutation has
   entries, and ``permutation`` a permutation of ``0 .. n-1``; other ops are left alone.
2. Each indexing map ``M`` becomes ``M o P`` where ``P`` sends the new dimensions to the
   old ones (old ``d_q`` is new ``d_p``), so every operand reads the same element at
   every point of the iteration space as before.
3. The iterator types are permuted the same way (new loop ``p`` has old loop ``q``'s kind).
4. Every ``linalg.index q`` in the payload becomes ``linalg.index p``.

Reordering loops is legal for any permutation here: a linalg op's payload has no
loop-carried dependences except through its reductions, and a reduction gives the same
result in any order up to float rounding (the sum of ``C[i, j]`` runs over ``k`` in the
same order, only interleaved differently with the other ``(i, j)``).

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @mm(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
...   linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
...   return }''')
>>> from tinycomp.passes.generalize import GeneralizePass
>>> GeneralizePass().run(m)
>>> interchange = InterchangePass((0, 2, 1))
>>> interchange.run(m)
>>> generic = [op for op in m.walk() if op.name == "linalg.generic"][0]
>>> [str(map) for map in generic.indexing_maps()], generic.iterator_types()
(['(d0, d1, d2) -> (d0, d1)', '(d0, d1, d2) -> (d1, d2)', '(d0, d1, d2) -> (d0, d2)'], \
['parallel', 'reduction', 'parallel'])
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap, dim
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.dialects.linalg.syntax import iterator_types_attr
from tinycomp.ir.attributes import AffineMapAttr, ArrayAttr, IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import i64
from tinycomp.passes.errors import PassError
from tinycomp.passes.pass_base import Pass
from tinycomp.rewrite import PatternRewriter

__all__ = ["InterchangePass", "interchange_generic"]


class InterchangePass(Pass):
    """Permute the loops of every ``linalg.generic`` with ``len(permutation)`` loops
    (steps 1-4 above); others are counted in ``statistics`` and left alone."""

    name = "linalg-interchange"
    summary = "permute the loop dimensions of linalg.generic ops (MLIR's interchangeGenericOp)"

    def __init__(self, permutation: Sequence[int]) -> None:
        super().__init__()
        permutation = tuple(permutation)
        if sorted(permutation) != list(range(len(permutation))):
            raise PassError(
                f"linalg-interchange: expected a permutation of 0..{len(permutation) - 1}, "
                f"got {permutation}"
            )
        self.permutation = permutation
        """New loop ``p`` is old loop ``permutation[p]``."""

    def run(self, op: Operation) -> None:
        rewriter = PatternRewriter()
        for generic in [nested for nested in op.walk() if isinstance(nested, GenericOp)]:
            if len(generic.iterator_types()) != len(self.permutation):  # step 1
                self.statistics["left alone: other number of loops"] += 1
                continue
            interchange_generic(rewriter, generic, self.permutation)
            self.statistics["ops interchanged"] += 1


def interchange_generic(
    rewriter: PatternRewriter, generic: GenericOp, permutation: Sequence[int]
) -> None:
    """Steps 2-4 on one op, in place (through ``rewriter``, so listeners see the change)."""
    count = len(permutation)
    new_of_old = {old: new for new, old in enumerate(permutation)}
    to_old = AffineMap(count, 0, tuple(dim(new_of_old[old]) for old in range(count)))
    maps = [m.compose(to_old) for m in generic.indexing_maps()]  # step 2
    kinds = generic.iterator_types()
    with rewriter.modify_op_in_place(generic):
        generic.attributes["indexing_maps"] = ArrayAttr([AffineMapAttr(m) for m in maps])
        generic.attributes["iterator_types"] = iterator_types_attr(  # step 3
            [kinds[old] for old in permutation]
        )
    for index_op in [op for op in generic.walk() if isinstance(op, IndexOp)]:  # step 4
        if index_op.parent_op() is generic:
            with rewriter.modify_op_in_place(index_op):
                index_op.attributes["dim"] = IntegerAttr(new_of_old[index_op.dim], i64)
