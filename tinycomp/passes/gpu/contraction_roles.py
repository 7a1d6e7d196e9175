"""Which loops of a contraction are its M, N, K and batch, and how big a block's tile is.

A GPU block tiles a contraction as a GEMM: ``C[batch, m, n] += A[batch, m, k] *
B[batch, k, n]``. Its ``linalg.generic`` need not be a plain matmul: a convolution is
one once its loops are grouped (implicit GEMM: ``m = (n, oh, ow)``, ``k = (kh, kw, c)``,
``n = f``), and a payload may compute each factor from several inputs (mlp2's
``gelu(h + b1) * w2``, attention's ``exp / sum * v``). ``contraction_roles`` reads the
roles from the payload and the indexing maps, in order:

1. One output, a float element type, static shapes; at least one reduction loop. The
   output's map is a permutation of the parallel loops (each output element is one
   ``(batch, m, n)``).
2. The payload ends in ``yield addf(out, mulf(x, y))`` (either order), ``out`` used
   nowhere else, ``x`` and ``y`` computed by pure ops from inputs only.
3. The *side* of each factor: the inputs its computation reads. The parallel loops only
   ``x``'s side indexes are M, only ``y``'s are N, both sides' are batch; the reduction
   loops are K. A parallel loop no input indexes has no role: not a contraction. M and N
   are swapped when the output's innermost loop is an M loop, so that the threads of a
   warp (along N) store neighbouring elements.
4. Each side's copy runs along the loop its widest input is contiguous in: K when the
   last index of that input moves with K's innermost loop, else M (N): the threads of a
   warp then load neighbouring addresses.

``choose_tiles`` picks the block tile (``BlockTiles``) from the problem (see there).

>>> from tinycomp.frontend import TensorSpec, trace
>>> m = trace(lambda a, b: a @ b, TensorSpec((40, 8)), TensorSpec((8, 20)))
>>> roles = contraction_roles([op for op in m.walk() if op.name == "linalg.matmul"][0]
...                           .generalize())
>>> roles.m, roles.n, roles.k, roles.gemm_shape
((0,), (1,), (2,), (1, 40, 20, 8))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.ir.effects import is_pure
from tinycomp.ir.op_traits import is_constant_op
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FloatType, ShapedType
from tinycomp.ir.values import BlockArgument, Value

__all__ = ["THREADS", "BlockTiles", "ContractionRoles", "choose_tiles", "contraction_roles"]

THREADS = 256
"""Threads per block of every block-tiled contraction: 16 x 16, each a TM x TN tile."""


@dataclass(frozen=True)
class ContractionRoles:
    """A contraction's loops by role, and the payload's two factors."""

    op: GenericOp
    sizes: tuple[int, ...]
    """Every loop's trip count."""
    batch: tuple[int, ...]
    m: tuple[int, ...]
    n: tuple[int, ...]
    k: tuple[int, ...]
    """The loops of each role, outermost first (their product is the GEMM's size)."""
    a_factor: Value
    b_factor: Value
    """The payload values multiplied: ``a_factor`` is computed from the M side."""
    a_inputs: tuple[int, ...]
    b_inputs: tuple[int, ...]
    """The input positions each factor reads."""
    a_along_k: bool
    b_along_k: bool
    """Whether each side's copy runs along K (else along M, or N)."""

    def extent(self, loops: tuple[int, ...]) -> int:
        """The product of the trip counts of ``loops``."""
        return math.prod(self.sizes[d] for d in loops)

    @property
    def gemm_shape(self) -> tuple[int, int, int, int]:
        """``(batch, M, N, K)``, each the product of its loops."""
        return tuple(self.extent(r) for r in (self.batch, self.m, self.n, self.k))  # type: ignore[return-value]


def _inputs_read(value: Value, op: GenericOp, seen: set[int]) -> set[int] | str:
    """Step 2: the input positions ``value`` is computed from (or why it cannot be)."""
    if isinstance(value, BlockArgument) and value.parent_block() is op.body:
        position = op.body.arguments.index(value)
        if position >= op.num_inputs:
            return "the product reads the output"
        seen.add(position)
        return seen
    producer = value.defining_op()
    if producer is None or not op.is_ancestor_of(producer):
        if producer is None or not is_constant_op(producer):
            return "the payload reads a scalar from outside that is not a constant"
        return seen
    if not is_pure(producer) or producer.regions:
        return f"'{producer.name}' in the payload is not a pure scalar op"
    for operand in producer.operands:
        found = _inputs_read(operand, op, seen)
        if isinstance(found, str):
            return found
    return seen


def _factors(op: GenericOp) -> tuple[Value, Value] | str:
    """Step 2: the two values the payload multiplies and adds to its output."""
    out = op.body.arguments[-1]
    total = op.body.terminator.operands[0] if op.body.terminator.operands else None
    add = total.defining_op() if total is not None else None
    if add is None or add.name != "arith.addf" or out not in add.operands:
        return "the payload does not end in addf(out, ...)"
    if len(out.uses) != 1:
        return "the payload reads its output more than once"
    product = add.operands[1] if add.operands[0] is out else add.operands[0]
    multiply = product.defining_op()
    if multiply is None or multiply.name != "arith.mulf" or not op.is_ancestor_of(multiply):
        return "the payload adds something that is not a product"
    return multiply.operands[0], multiply.operands[1]


def _dims_of(op: GenericOp, inputs: set[int]) -> set[int]:
    maps = op.indexing_maps()
    return {d for i in inputs for d in maps[i].used_dims()}


def _along_k(op: GenericOp, inputs: tuple[int, ...], k: tuple[int, ...]) -> bool:
    """Step 4: whether the widest input of a side is contiguous along K."""
    maps = op.indexing_maps()
    widest = max(inputs, key=lambda i: maps[i].num_results, default=None)
    if widest is None or maps[widest].num_results == 0:
        return True
    last = maps[widest].sub_map([maps[widest].num_results - 1])
    return k[-1] in last.used_dims()


def contraction_roles(op: Operation) -> ContractionRoles | str:
    """Steps 1-4 for a ``linalg.generic``, or the reason it is not a contraction."""
    if not isinstance(op, GenericOp):
        return f"'{op.name}' is not a linalg.generic"
    if op.num_outputs != 1:
        return "a contraction has one output"
    element = op.element_types()[-1]
    if not isinstance(element, FloatType):
        return f"element type {element}: expected a float"
    sizes = op.static_loop_sizes()
    if None in sizes or any(not isinstance(v.type, ShapedType) for v in op.outputs):
        return "dynamic sizes"
    reductions = tuple(op.reduction_dims())
    parallel = tuple(op.parallel_dims())
    if not reductions:
        return "no reduction loop"
    out_map = op.indexing_maps()[-1]
    plain = out_map.is_projected_permutation() and out_map.num_results == len(parallel)
    if not plain or set(out_map.used_dims()) != set(parallel):
        return "the output is not indexed by every parallel loop once"
    factors = _factors(op)
    if isinstance(factors, str):
        return factors
    sides = [_inputs_read(f, op, set()) for f in factors]
    for side in sides:
        if isinstance(side, str):
            return side
    x_dims, y_dims = (_dims_of(op, side) for side in sides)  # type: ignore[arg-type]
    batch = tuple(d for d in parallel if d in x_dims and d in y_dims)
    m = tuple(d for d in parallel if d in x_dims and d not in y_dims)
    n = tuple(d for d in parallel if d in y_dims and d not in x_dims)
    if len(batch) + len(m) + len(n) != len(parallel):
        return "a parallel loop that no input indexes (a broadcast, not a contraction)"
    if not m or not n:
        return "one factor has no loop of its own (a matrix-vector product)"
    a_factor, b_factor = factors
    a_inputs, b_inputs = (tuple(sorted(side)) for side in sides)  # type: ignore[arg-type]
    innermost = out_map.results[-1]
    if any(innermost.is_function_of_dim(d) for d in m):  # step 3: N along the stores
        m, n, a_factor, b_factor, a_inputs, b_inputs = n, m, b_factor, a_factor, b_inputs, a_inputs
    return ContractionRoles(
        op,
        tuple(int(s) for s in sizes),  # type: ignore[arg-type]
        batch,
        m,
        n,
        reductions,
        a_factor,
        b_factor,
        a_inputs,
        b_inputs,
        _along_k(op, a_inputs, reductions),
        _along_k(op, b_inputs, reductions),
    )


@dataclass(frozen=True)
class BlockTiles:
    """A block's output tile ``bm x bn``, walked along K ``bk`` at a time; each of its
    256 threads (16 x 16) accumulates a ``tm x tn`` register tile."""

    bm: int
    bn: int
    bk: int

    @property
    def tm(self) -> int:
        return self.bm // 16

    @property
    def tn(self) -> int:
        return self.bn // 16

    def __str__(self) -> str:
        return f"{self.bm}x{self.bn} tiles, BK={self.bk}, {self.tm}x{self.tn} per thread"


def _fitting(extent: int) -> int:
    """A tile side for ``extent``: the power of two that covers it, from 16 to 128."""
    return min(128, max(16, 1 << max(0, math.ceil(math.log2(extent)))))


def choose_tiles(roles: ContractionRoles, sm_count: int) -> BlockTiles:
    """The block tile for ``roles``: 128 x 128 (8 x 8 per thread: 64 accumulators, 16
    FMAs per shared load) where the problem is large, the smallest power of two covering
    M (N) where it is small (a 13-long M gets 16: less work on zeros), halved further
    (down to 32) while the grid has fewer blocks than the GPU has SMs. BK is 8, or 16
    for a 16-wide tile, so that each tile has at least one element per thread to copy.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda a, b: a @ b, TensorSpec((4096, 64)), TensorSpec((64, 13)))
    >>> op = [op for op in m.walk() if op.name == "linalg.matmul"][0].generalize()
    >>> print(choose_tiles(contraction_roles(op), sm_count=84))
    32x16 tiles, BK=16, 2x1 per thread
    """
    batch, m, n, _ = roles.gemm_shape
    bm, bn = _fitting(m), _fitting(n)

    def blocks() -> int:
        return batch * -(-m // bm) * -(-n // bn)

    while blocks() < sm_count and max(bm, bn) > 32:
        if bm >= bn:
            bm //= 2
        else:
            bn //= 2
    bk = 16 if min(bm, bn) == 16 else 8
    return BlockTiles(bm, bn, bk)
