"""Loop vectorization: run ``W`` iterations of an innermost loop as one vector iteration.

A modern core executes one instruction on 8 floats (AVX2, a ``ymm`` register) or 16
(AVX-512, ``zmm``) as fast as on one. A scalar loop leaves that unused. LLVM's
*loop vectorizer* (``LoopVectorize.cpp``) rewrites such a loop: it checks that
iterations may run side by side (legality), estimates whether it pays (the cost model
picks the vectorization factor ``VF`` and how many vector iterations to interleave),
then widens every instruction to ``<VF x float>`` and adds a scalar loop for the
iterations left over. MLIR expresses the result with the vector dialect: the same
loop, with ``vector.load``, ``arith.addf`` on ``vector<8xf32>``, ``vector.reduction``.
This pass does that on the loops of ``tinycomp.compile(..., stop_after="loops")``:

1. **Candidates.** Every innermost ``scf.for`` (no loop inside it), in IR order; loops
   already marked ``tinycomp.vectorized`` are skipped (LLVM's ``llvm.loop.isvectorized``).
2. **Legality** (``vectorize_legality``): the step is 1, the body is straight-line;
   values are uniform, linear or varying across lanes (``vectorize_lanes``); carried
   values are reductions (``vectorize_reductions``); loads and stores move by one
   element of the last, contiguous dimension (or not at all); no store touches what
   another iteration reads or writes. A loop that fails is left alone, with the reason
   in ``self.report``.
3. **Cost.** LLVM compares the estimated cost per iteration at each ``VF``; tinycomp
   uses the ``vector_width`` it is given and only declines a loop whose known trip count
   is below one vector; with ``min_width`` it first halves the width down to that many
   lanes for such a loop (a row of 7 floats: 4 lanes and a 3-iteration epilogue).
4. **Widening** (``vectorize_widen``): a vector loop of step ``W`` over the largest
   multiple of ``W`` iterations (vector loads and stores, arith/math on vectors,
   broadcasts of uniform scalars, vector accumulators for reductions), one
   ``vector.reduction`` per reduction after it, and the original loop as the scalar
   epilogue for the rest. Float sums are reassociated (``W`` partial sums), which LLVM
   does only under ``reassoc``/``-ffast-math``: ``reassociate=False`` keeps the scalar
   order with one ordered ``vector.reduction`` per iteration. ``contract=True`` fuses
   ``a * b + c`` into ``vector.fma`` even without ``fastmath<contract>``.
5. **Report.** One ``LoopDecision`` per candidate in ``self.report``, and counts in
   ``statistics``.

How the vector ops become LLVM (``tinycomp/codegen/llvm/emit_vector.py``):
``vector.load`` -> ``load <8 x float>, ptr``; ``arith.addf`` -> ``fadd <8 x float>``;
``vector.broadcast`` -> ``insertelement`` + ``shufflevector`` (a splat);
``vector.fma`` -> ``@llvm.fma.v8f32``; ``vector.reduction <add>`` ->
``@llvm.vector.reduce.fadd.v8f32(start, v)``.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @scale(%x: memref<20xf32>, %y: memref<20xf32>, %a: f32) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c20 = arith.constant 20 : index
...   scf.for %i = %c0 to %c20 step %c1 {
...     %v = memref.load %x[%i] : memref<20xf32>
...     %w = arith.mulf %v, %a : f32
...     memref.store %w, %y[%i] : memref<20xf32>
...   }
...   return }''')
>>> vectorize = VectorizeLoopsPass(vector_width=8)
>>> vectorize.run(m)
>>> print(m)  # doctest: +NORMALIZE_WHITESPACE
module {
  func.func @scale(%x: memref<20xf32>, %y: memref<20xf32>, %a: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c20 = arith.constant 20 : index
    %c16 = arith.constant 16 : index
    %c8 = arith.constant 8 : index
    %0 = vector.broadcast %a : f32 to vector<8xf32>
    scf.for %i = %c0 to %c16 step %c8 {
      %v = vector.load %x[%i] : memref<20xf32>, vector<8xf32>
      %w = arith.mulf %v, %0 : vector<8xf32>
      vector.store %w, %y[%i] : memref<20xf32>, vector<8xf32>
    } {tinycomp.vectorized}
    scf.for %i = %c16 to %c20 step %c1 {
      %v = memref.load %x[%i] : memref<20xf32>
      %w = arith.mulf %v, %a : f32
      memref.store %w, %y[%i] : memref<20xf32>
    } {tinycomp.vectorized}
    return
  }
}
>>> print(vectorize.report)
vectorize-loops (width 8): 1 of 1 innermost loops vectorized
loop                  trip count  decision
@scale #1 scf.for %i  20          vectorized: 1 vector load, 1 vector store, 1 widened op, \
1 broadcast; scalar epilogue: 4 iterations
"""

from __future__ import annotations

from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir.operation import Operation
from tinycomp.passes.errors import PassError
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.passes.vectorize_lanes import NotVectorizable
from tinycomp.passes.vectorize_legality import analyze_loop, static_trip_count
from tinycomp.passes.vectorize_report import LoopDecision, VectorizationReport
from tinycomp.passes.vectorize_widen import VECTORIZED, WidenedLoop, widen_loop
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["VectorizeLoopsPass", "innermost_loops", "narrowed_width", "vectorize_loop"]

_LOOP_OPS = ("scf.for", "scf.while", "scf.parallel", "scf.forall", "affine.for", "affine.parallel")


class VectorizeLoopsPass(Pass):
    """Widen innermost ``scf.for`` loops to ``vector_width`` lanes (see the module
    docstring); ``self.report`` says what happened to each loop and why."""

    name = "vectorize-loops"
    summary = "widen innermost scf.for loops into vector loops with a scalar epilogue"

    def __init__(
        self,
        vector_width: int = 8,
        reassociate: bool = True,
        contract: bool = False,
        min_width: int | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(vector_width, int) or isinstance(vector_width, bool):
            raise PassError(f"vectorize-loops: expected an int vector_width, got {vector_width!r}")
        if vector_width < 2:
            raise PassError(f"vectorize-loops: expected a vector_width >= 2, got {vector_width}")
        self.vector_width = vector_width
        """Lanes per vector (8 floats fill an AVX2 register, 16 an AVX-512 one)."""
        self.reassociate = reassociate
        """Reorder float sums and products into partial results (``-ffast-math``)."""
        self.contract = contract
        """Fuse ``a * b + c`` into ``vector.fma`` even without ``fastmath<contract>``."""
        if min_width is not None and not (
            isinstance(min_width, int) and 2 <= min_width <= vector_width
        ):
            raise PassError(
                f"vectorize-loops: expected 2 <= min_width <= vector_width ({vector_width}), "
                f"got {min_width!r}"
            )
        self.min_width = min_width if min_width is not None else vector_width
        """The narrowest vector tried on a loop too short for ``vector_width`` lanes
        (halving the width down to it: a 7-iteration row gets 4 lanes + 3 scalar)."""
        self.report = VectorizationReport(vector_width)
        """One ``LoopDecision`` per innermost loop of the last run."""

    def run(self, op: Operation) -> None:
        self.report = VectorizationReport(self.vector_width)
        for function_name, number, loop in innermost_loops(op):  # step 1
            label = f"@{function_name} #{number} scf.for %{loop.induction_var.name_hint or 'iv'}"
            if VECTORIZED in loop.attributes:
                continue
            width = narrowed_width(loop, self.vector_width, self.min_width)
            decision = vectorize_loop(loop, width, self.reassociate, self.contract, label)
            if decision.vectorized and width != self.vector_width:
                decision.summary += f" ({width} lanes: the trip count is below {self.vector_width})"
            self.report.add(decision)  # step 5
            self.statistics["loops vectorized" if decision.vectorized else "loops left alone"] += 1


def narrowed_width(loop: ForOp, vector_width: int, min_width: int) -> int:
    """``vector_width``, halved while it exceeds the loop's known trip count and stays at
    least ``min_width`` (LLVM's cost model picks a narrower VF for short loops too).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: memref<7xf32>) {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %c7 = arith.constant 7 : index
    ...   scf.for %i = %c0 to %c7 step %c1 { }
    ...   return }''')
    >>> loop = [op for op in m.walk() if op.name == "scf.for"][0]
    >>> narrowed_width(loop, 8, 4), narrowed_width(loop, 16, 2), narrowed_width(loop, 8, 8)
    (4, 4, 8)
    """
    trip_count = static_trip_count(loop)
    width = vector_width
    while trip_count is not None and width > trip_count and width // 2 >= min_width:
        width //= 2
    return width


def innermost_loops(op: Operation) -> list[tuple[str, int, ForOp]]:
    """``(function name, number, loop)`` for every innermost ``scf.for`` in ``op``,
    numbered from 1 in each function, in IR order.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%n: index) {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   scf.for %i = %c0 to %n step %c1 {
    ...     scf.for %j = %c0 to %n step %c1 { }
    ...   }
    ...   return }''')
    >>> [(name, number, loop.induction_var.name_hint) for name, number, loop in innermost_loops(m)]
    [('f', 1, 'j')]
    """
    functions = [op] if op.name == "func.func" else [f for f in op.walk() if f.name == "func.func"]
    found = []
    for function in functions:
        name = str(function.attributes.get("sym_name", "")).strip('"')
        loops = [
            nested
            for nested in function.walk()
            if isinstance(nested, ForOp)
            and not any(inner.name in _LOOP_OPS for inner in nested.walk() if inner is not nested)
        ]
        found += [(name, number, loop) for number, loop in enumerate(loops, start=1)]
    return found


def vectorize_loop(
    loop: ForOp,
    vector_width: int = 8,
    reassociate: bool = True,
    contract: bool = False,
    label: str = "",
) -> LoopDecision:
    """Steps 2-4 for one loop: widen it if legal; return the decision either way.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: memref<4xf32>) {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %c4 = arith.constant 4 : index
    ...   scf.for %i = %c0 to %c4 step %c1 {
    ...     %v = memref.load %x[%i] : memref<4xf32>
    ...     memref.store %v, %x[%i] : memref<4xf32>
    ...   }
    ...   return }''')
    >>> loop = [op for op in m.walk() if op.name == "scf.for"][0]
    >>> print(vectorize_loop(loop, 8).reason)
    trip count 4 is below the vector width 8: not one full vector of iterations
    """
    decision = LoopDecision(label or f"scf.for %{loop.induction_var.name_hint or 'iv'}")
    decision.trip_count = static_trip_count(loop)
    try:
        plan = analyze_loop(loop, vector_width, reassociate)  # step 2 (and 3)
    except NotVectorizable as reason:
        decision.reason = str(reason)
        return decision
    decision.reductions = tuple(r.describe() for r in plan.reductions)
    widened = widen_loop(plan, PatternRewriter(), contract)  # step 4 (erases the loop's ops)
    decision.vectorized = True
    decision.summary = _summary(widened)
    if plan.trip_count is None:
        decision.remainder = "dynamic"
    else:
        decision.remainder = plan.trip_count % vector_width
    return decision


_SUMMARY_ORDER = (
    "vector load",
    "vector store",
    "widened op",
    "fma",
    "broadcast",
    "ordered reduction",
)


def _summary(widened: WidenedLoop) -> str:
    """``2 vector loads, 1 vector store, 3 widened ops, 1 broadcast``."""
    parts = []
    for label in _SUMMARY_ORDER:
        count = widened.counts.get(label, 0)
        if count:
            parts.append(f"{count} {label}{'' if count == 1 else 's'}")
    return ", ".join(parts)


register_pass(VectorizeLoopsPass)
