"""Is a ``linalg.generic`` a contraction, and which of its loops are batch, m, n and k?

A contraction is ``C[batch, m, n] += A[batch, m|k] * B[batch, k|n]`` written as a
``linalg.generic``: matmul, batch matmul, and the matmuls inside attention and mlp2
(their transposes are in the indexing maps, not in copies). What the BLIS strategy
needs to know about one, and what ``match_contraction`` checks, in order:

1. Two inputs and one output, all memrefs (after bufferization) of static shape.
2. Every indexing map is a projected permutation (results are plain loop dimensions),
   and exactly one loop is a reduction: ``k``.
3. The roles: ``m`` is the parallel loop that A indexes and B does not, ``n`` the one
   B indexes and A does not, the batch loops are those all three index. The output is
   indexed ``(batch..., m, n)``; A and B by their batch loops first, then ``m, k`` or
   ``k, m`` (``k, n`` or ``n, k``): the second order is a transposed operand.
4. The element type is f32 everywhere and the payload is exactly a multiply of the two
   inputs and an add to the output (``%p = arith.mulf %a, %b``, ``arith.addf %out, %p``).

A kernel that fails a step gets the reason, in a user's words, instead of a match.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%a: memref<4x3xf32>, %b: memref<5x3xf32>, %c: memref<4x5xf32>) {
...   linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
...       affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>],
...       iterator_types = ["parallel", "parallel", "reduction"]}
...       ins(%a, %b : memref<4x3xf32>, memref<5x3xf32>) outs(%c : memref<4x5xf32>) {
...   ^bb0(%x: f32, %y: f32, %acc: f32):
...     %p = arith.mulf %x, %y : f32
...     %s = arith.addf %acc, %p : f32
...     linalg.yield %s : f32
...   }
...   return
... }''')
>>> found = match_contraction(next(op for op in m.walk() if op.name == "linalg.generic"))
>>> found.describe()
'f32 matmul 4x5x3 (B transposed)'
>>> (found.m, found.n, found.k, found.batch, found.b_transposed)
(0, 1, 2, (), True)
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.affine import AffineDimExpr, AffineMap
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, MemRefType, f32

__all__ = ["Contraction", "NotAContraction", "match_contraction", "payload_problem"]


@dataclass(frozen=True)
class NotAContraction:
    """Why an op is not a contraction the BLIS strategy takes."""

    reason: str
    """In a user's words: ``"bf16: the micro-kernel is f32"``."""
    contraction_like: bool = False
    """It is a contraction (or a convolution) the strategy could not take: a fallback
    worth reporting, not an elementwise kernel or a plain reduction."""


@dataclass(frozen=True)
class Contraction:
    """A matched contraction: its loops by role and its operands' orientation."""

    op: GenericOp
    batch: tuple[int, ...]
    """The batch loops, outermost first."""
    m: int
    n: int
    k: int
    sizes: tuple[int, ...]
    """Every loop's trip count."""
    a_transposed: bool
    """A is indexed ``(k, m)``."""
    b_transposed: bool
    """B is indexed ``(n, k)``."""

    @property
    def mnk(self) -> tuple[int, int, int]:
        """The sizes of m, n and k."""
        return self.sizes[self.m], self.sizes[self.n], self.sizes[self.k]

    @property
    def batch_sizes(self) -> tuple[int, ...]:
        """The trip counts of the batch loops."""
        return tuple(self.sizes[d] for d in self.batch)

    def describe(self) -> str:
        """``f32 matmul 4x5x3``, ``f32 batch matmul 8 x 512x512x64 (B transposed)``."""
        m, n, k = self.mnk
        batch = " x ".join(str(s) for s in self.batch_sizes)
        kind = f"batch matmul {batch} x " if self.batch else "matmul "
        transposed = [name for name, t in (("A", self.a_transposed), ("B", self.b_transposed)) if t]
        note = f" ({' and '.join(transposed)} transposed)" if transposed else ""
        return f"f32 {kind}{m}x{n}x{k}{note}"


def _dims(indexing_map: AffineMap) -> list[int] | None:
    """The loop dimension of each result, or ``None`` if one is not a plain dimension."""
    dims = []
    for result in indexing_map.results:
        if not isinstance(result, AffineDimExpr):
            return None
        dims.append(result.position)
    return dims


def match_contraction(op: Operation) -> Contraction | NotAContraction:
    """The ``Contraction`` ``op`` is, or the reason it is not one (see the module docstring)."""
    if not isinstance(op, GenericOp):
        return NotAContraction(f"{op.name} is not a linalg.generic")
    if op.num_inputs != 2 or op.num_outputs != 1:  # step 1
        return NotAContraction(f"{op.num_inputs} inputs and {op.num_outputs} outputs, not 2 and 1")
    types = [value.type for value in op.operands]
    if not all(isinstance(t, MemRefType) for t in types):
        return NotAContraction("operands are not all buffers (run bufferization first)")
    dims = [_dims(m) for m in op.indexing_maps()]  # step 2
    reductions = op.reduction_dims()
    if any(d is None for d in dims):
        window = bool(reductions) and any(
            "arith.mulf" == o.name or "arith.muli" == o.name for o in op.body.ops
        )
        return NotAContraction(
            "an indexing map is not a projected permutation (a convolution window)", window
        )
    if len(reductions) != 1:
        return NotAContraction(f"{len(reductions)} reduction loops, not 1")
    (k,) = reductions
    a_dims, b_dims, c_dims = dims
    shared = [d for d in c_dims if d in a_dims and d in b_dims]  # step 3
    m_dims = [d for d in c_dims if d in a_dims and d not in b_dims]
    n_dims = [d for d in c_dims if d in b_dims and d not in a_dims]
    if len(m_dims) != 1 or len(n_dims) != 1 or len(c_dims) != len(shared) + 2:
        return NotAContraction("not one m and one n loop (an outer product or a broadcast?)")
    m, n = m_dims[0], n_dims[0]
    batch = tuple(shared)
    if c_dims != [*batch, m, n]:
        return NotAContraction(f"the output is indexed {c_dims}, not (batch..., m, n)")
    if a_dims[: len(batch)] != list(batch) or b_dims[: len(batch)] != list(batch):
        return NotAContraction("A or B does not index its batch loops first")
    a_rest, b_rest = a_dims[len(batch) :], b_dims[len(batch) :]
    if sorted(a_rest) != sorted([m, k]) or sorted(b_rest) != sorted([k, n]):
        return NotAContraction("A is not indexed by (m, k) or B by (k, n), in some order")
    if any(DYNAMIC in t.shape for t in types):
        return NotAContraction("dynamic shapes: the packed buffers are sized statically", True)
    if {t.element_type for t in types} != {f32}:  # step 4
        found = ", ".join(sorted({str(t.element_type) for t in types}))
        return NotAContraction(f"{found}: the micro-kernel is f32", True)
    reason = payload_problem(op)
    if reason is not None:
        return NotAContraction(reason, True)
    return Contraction(
        op,
        batch,
        m,
        n,
        k,
        tuple(op.static_loop_sizes()),
        a_transposed=a_rest == [k, m],
        b_transposed=b_rest == [n, k],
    )


def payload_problem(op: GenericOp) -> str | None:
    """Step 4: ``None`` when the payload is ``out + a * b``, else what it is instead."""
    body = op.body
    a, b, out = body.arguments
    ops = list(body.ops)
    names = [o.name for o in ops]
    if names != ["arith.mulf", "arith.addf", "linalg.yield"]:
        inside = ", ".join(n for n in names if n != "linalg.yield")
        return f"the payload is not exactly a multiply and an add ({inside}): a fused producer?"
    mul, add, yield_op = ops
    if set(mul.operands) != {a, b} or len(mul.operands) != 2 or a is b:
        return "the multiply does not take the two inputs"
    if set(add.operands) != {out, mul.results[0]}:
        return "the add does not accumulate the product into the output"
    if list(yield_op.operands) != [add.results[0]]:
        return "the payload does not yield the sum"
    return None
