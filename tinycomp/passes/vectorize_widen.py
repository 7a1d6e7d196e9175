"""Widening: rewrite a legal loop (``LoopPlan``) as a vector loop plus a scalar epilogue.

For ``for i in [lb, ub)`` and width ``W`` (``W = 8`` below)::

    %vub = ub - max(ub - lb, 0) mod 8          // a constant when the bounds are
    %acc = scf.for %i = %lb to %vub step %c8 iter_args(%v = dense<-0.0>) {  // vector loop
      ... each body op by its role ...
    }
    %partial = vector.reduction <add>, %acc, %init     // one per reduction
    scf.for %i = %vub to %ub step %c1 { original body }  // the remainder, scalar

1. **Bounds.** The vector loop runs the largest multiple of ``W`` iterations; the
   original loop, its lower bound moved to ``%vub``, becomes the *scalar epilogue* for
   the rest (LLVM's scalar remainder loop). When the trip count is a known multiple of
   ``W`` there is no epilogue. (MLIR could also mask the last vector iteration with
   ``vector.maskedload``; a scalar epilogue keeps the vector loop free of masks.)
2. **Reductions.** Each one gets a vector ``iter_arg`` starting at the identity of its
   kind (``-0.0`` for add, ``-inf`` for maximumf...), combined lane by lane in the loop;
   after the loop one ``vector.reduction`` folds the lanes into the scalar start value.
   An *ordered* reduction carries a scalar and folds each vector in order instead. A
   memory reduction loads its element before the loop and stores the result after it.
3. **Body.** In order, by role: ``uniform``/``linear`` ops are cloned as scalars (a
   linear index evaluated at the vector loop's ``%i`` is lane 0's address);
   ``vector.load``/``vector.store`` replace ``memref.load``/``store``; ``widen`` ops
   are the same ``arith``/``math`` op on ``vector<W x T>``. A scalar operand of a
   widened op is broadcast: once before the loop if it is defined outside it.
4. **Contraction** (optional): ``a * b + c`` on vectors becomes ``vector.fma`` when both
   ops allow it (``fastmath<contract>``) or when asked (``contract=True``, clang's
   ``-ffp-contract=fast``): one rounding instead of two, one instruction instead of two.

Both loops get the unit attribute ``tinycomp.vectorized`` (LLVM marks them with
``llvm.loop.isvectorized``), so running the pass again leaves them alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tinycomp.dialects.arith import (
    AddFOp,
    ConstantOp,
    MaxSIOp,
    RemSIOp,
    SubIOp,
)
from tinycomp.dialects.common.region_syntax import constant_int
from tinycomp.dialects.memref.access import LoadOp as ScalarLoadOp
from tinycomp.dialects.memref.access import StoreOp as ScalarStoreOp
from tinycomp.dialects.scf.control import YieldOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.vector import BroadcastOp, FMAOp, LoadOp, ReductionOp, StoreOp
from tinycomp.dialects.vector.reduction import reduction_identity
from tinycomp.ir.attributes import UnitAttr
from tinycomp.ir.builder import Builder, InsertionPoint
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import to_numpy_dtype
from tinycomp.ir.types import VectorType, index
from tinycomp.ir.values import Value
from tinycomp.passes.vectorize_legality import LoopPlan
from tinycomp.passes.vectorize_reductions import Reduction
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["VECTORIZED", "WidenedLoop", "widen_loop"]

VECTORIZED = "tinycomp.vectorized"
"""The unit attribute marking a vector loop and its epilogue."""


@dataclass
class WidenedLoop:
    """The result: the vector loop, the epilogue (``None`` if none), and how many of
    each kind of vector op were made (``{"vector load": 2, "widened op": 3}``)."""

    vector_loop: ForOp
    epilogue: ForOp | None
    counts: Counter[str] = field(default_factory=Counter)


class _Widener:
    """Builds the vector loop of one plan (steps 1-3); a fresh one per loop."""

    def __init__(self, plan: LoopPlan, rewriter: PatternRewriter) -> None:
        self.plan = plan
        self.loop = plan.loop
        self.width = plan.width
        self.rewriter = rewriter
        self.scalar: dict[Value, Value] = {}
        """Original value -> its scalar copy in the vector loop (uniform, linear)."""
        self.wide: dict[Value, Value] = {}
        """Original value -> the vector holding its ``W`` lanes."""
        self.hoisted: dict[Value, Value] = {}
        """Value from outside the loop -> its broadcast, made before the vector loop."""
        self.inner_broadcasts: dict[Value, Value] = {}
        """Scalar made in the vector loop -> its broadcast there."""
        self.counts: Counter[str] = Counter()
        """What was made, by kind (the report's summary)."""

    def before_loop(self, op: Operation) -> Operation:
        """Insert ``op`` right before the original loop (where the vector loop will go)."""
        with self.rewriter.at(InsertionPoint.before(self.loop)):
            return self.rewriter.insert(op)

    # -- step 1 --------------------------------------------------------------------------
    def vector_upper_bound(self) -> Value:
        """``lb + ((ub - lb) floordiv W) * W``, as ``ub - max(ub - lb, 0) mod W``."""
        lower, upper = self.loop.lower_bound, self.loop.upper_bound
        if self.plan.trip_count is not None:
            whole = self.plan.trip_count - self.plan.trip_count % self.width
            if whole == self.plan.trip_count:
                return upper
            start = constant_int(lower)
            return self.before_loop(ConstantOp.build(start + whole, index)).result
        zero = self.before_loop(ConstantOp.build(0, index)).result
        width = self.before_loop(ConstantOp.build(self.width, index)).result
        count = self.before_loop(SubIOp.build(upper, lower)).result
        count = self.before_loop(MaxSIOp.build(count, zero)).result  # empty stays empty
        remainder = self.before_loop(RemSIOp.build(count, width)).result
        return self.before_loop(SubIOp.build(upper, remainder)).result

    # -- step 2 --------------------------------------------------------------------------
    def start_value(self, reduction: Reduction) -> Value:
        """The scalar the reduction starts from: the iter_arg's init, or the element
        loaded before the loop."""
        if reduction.iter_arg is not None:
            return self.loop.init_args[reduction.iter_arg]
        memref, *indices = reduction.load.operands
        hoisted = [self.hoist(v) for v in indices]
        return self.before_loop(ScalarLoadOp.build(memref, hoisted)).result

    def hoist(self, value: Value) -> Value:
        """``value`` computed before the loop (legality checked that it can be)."""
        if not self.plan.lanes.is_inside(value):
            return value
        op = value.defining_op()
        mapping = {v: self.hoist(v) for v in op.operands}
        return self.before_loop(op.clone(mapping)).results[value.index]

    def accumulator_init(self, reduction: Reduction, start: Value) -> Value:
        """The vector loop's iter_arg: ``dense<identity>``, or ``start`` if ordered."""
        if reduction.ordered:
            return start
        element = reduction.running.type
        identity = reduction_identity(reduction.kind, element)
        lanes = np.full(self.width, identity).astype(to_numpy_dtype(element))
        vector_type = VectorType((self.width,), element)
        return self.before_loop(ConstantOp.build(lanes, vector_type)).result

    # -- step 3 --------------------------------------------------------------------------
    def widen_body(self, vector_loop: ForOp) -> None:
        """Fill the (detached) vector loop's body from the original body, op by op."""
        body = Builder.at_end(vector_loop.body)
        self.scalar[self.loop.induction_var] = vector_loop.induction_var
        vector_loop.induction_var.name_hint = self.loop.induction_var.name_hint
        carried = zip(self.plan.reductions, vector_loop.region_iter_args, strict=True)
        for reduction, argument in carried:
            target = self.scalar if reduction.ordered else self.wide
            target[reduction.running] = argument
            argument.name_hint = reduction.running.name_hint
        for op in self.loop.body.ops:
            role = self.plan.roles.get(op)
            if role in ("uniform", "linear"):
                body.insert(op.clone(self.scalar))
            elif role == "vector.load":
                memref, *indices = (self.scalar.get(v, v) for v in op.operands)
                load = body.insert(LoadOp.build(memref, indices, self.width))
                self.wide[op.results[0]] = load.result
                load.result.name_hint = op.results[0].name_hint
                self.counts["vector load"] += 1
            elif role == "vector.store":
                value = self.vector_of(op.operands[0], body)
                memref, *indices = (self.scalar.get(v, v) for v in op.operands[1:])
                body.insert(StoreOp.build(value, memref, indices))
                self.counts["vector store"] += 1
            elif role == "widen":
                self.widen_op(op, body)
            elif role == "reduction":
                self.reduction_step(op, body)
        next_values = []
        for reduction in self.plan.reductions:
            source = self.scalar if reduction.ordered else self.wide
            next_values.append(source[reduction.combiner.results[0]])
        body.insert(YieldOp.build(next_values))

    def reduction_step(self, op: Operation, body: Builder) -> None:
        """A reduction's combiner on the accumulator (its load and store: nothing)."""
        for reduction in self.plan.reductions:
            if op is not reduction.combiner:
                continue
            if not reduction.ordered:
                self.widen_op(op, body)  # the running value is already a vector
                return
            update = self.vector_of(reduction.update, body)
            running = self.scalar[reduction.running]
            folded = body.insert(ReductionOp.build(reduction.kind, update, running))
            self.scalar[op.results[0]] = folded.result
            folded.result.name_hint = op.results[0].name_hint
            self.counts["ordered reduction"] += 1

    def widen_op(self, op: Operation, body: Builder) -> None:
        """``op`` on vectors: every operand a vector (broadcast if scalar)."""
        operands = [self.vector_of(v, body) for v in op.operands]
        result_types = [VectorType((self.width,), r.type) for r in op.results]
        attributes = dict(op.attributes)
        widened = Operation.create(
            op.name, operands, result_types, attributes, location=op.location
        )
        body.insert(widened)
        for old, new in zip(op.results, widened.results, strict=True):
            self.wide[old] = new
            new.name_hint = old.name_hint
        self.counts["widened op"] += 1

    def vector_of(self, value: Value, body: Builder) -> Value:
        """The lanes of ``value``: its widened copy, or a broadcast of its scalar (made
        before the loop when ``value`` comes from outside it)."""
        if value in self.wide:
            return self.wide[value]
        vector_type = VectorType((self.width,), value.type)
        if not self.plan.lanes.is_inside(value):
            if value not in self.hoisted:
                broadcast = self.before_loop(BroadcastOp.build(value, vector_type))
                self.hoisted[value] = broadcast.result
                self.counts["broadcast"] += 1
            return self.hoisted[value]
        scalar = self.scalar[value]
        if scalar not in self.inner_broadcasts:
            broadcast = body.insert(BroadcastOp.build(scalar, vector_type))
            self.inner_broadcasts[scalar] = broadcast.result
            self.counts["broadcast"] += 1
        return self.inner_broadcasts[scalar]


def widen_loop(plan: LoopPlan, rewriter: PatternRewriter, contract: bool = False) -> WidenedLoop:
    """Replace ``plan.loop`` by a vector loop and a scalar epilogue (see the outline)."""
    widener = _Widener(plan, rewriter)
    loop = plan.loop
    vector_upper = widener.vector_upper_bound()  # step 1
    step = widener.before_loop(ConstantOp.build(plan.width, index)).result
    starts = [widener.start_value(r) for r in plan.reductions]  # step 2
    inits = [widener.accumulator_init(r, s) for r, s in zip(plan.reductions, starts, strict=True)]
    vector_loop = ForOp.build(loop.lower_bound, vector_upper, step, inits)
    if not inits:
        vector_loop.body.last_op.erase()  # widen_body writes the yield
    vector_loop.attributes[VECTORIZED] = UnitAttr()
    widener.widen_body(vector_loop)  # step 3
    widener.before_loop(vector_loop)
    finals = _fold_reductions(plan, vector_loop, starts, rewriter)
    epilogue = _make_epilogue(plan, vector_upper, finals, rewriter)
    if contract or _any_contract_flags(vector_loop):
        fused = _contract_fma(vector_loop, rewriter, contract)  # step 4
        widener.counts["widened op"] -= 2 * fused
        widener.counts["fma"] += fused
    return WidenedLoop(vector_loop, epilogue, +widener.counts)


def _fold_reductions(
    plan: LoopPlan, vector_loop: ForOp, starts: list[Value], rewriter: PatternRewriter
) -> list[Value]:
    """After the vector loop: each reduction's scalar so far (stored back for memory)."""
    finals = []
    with rewriter.at(InsertionPoint.before(plan.loop)):
        for position, (reduction, start) in enumerate(zip(plan.reductions, starts, strict=True)):
            carried = vector_loop.results[position]
            if not reduction.ordered:
                carried = rewriter.insert(ReductionOp.build(reduction.kind, carried, start)).result
            if reduction.store is not None:
                element = start.defining_op()  # the load made before the vector loop
                rewriter.insert(
                    ScalarStoreOp.build(carried, element.operands[0], element.operands[1:])
                )
            finals.append(carried)
    return finals


def _make_epilogue(plan: LoopPlan, vector_upper: Value, finals, rewriter) -> ForOp | None:
    """The original loop from ``vector_upper`` on, or nothing if no iteration is left."""
    loop = plan.loop
    if vector_upper is loop.upper_bound:
        replacements = [
            f for r, f in zip(plan.reductions, finals, strict=True) if r.iter_arg is not None
        ]
        rewriter.replace_op(loop, replacements)
        return None
    with rewriter.modify_op_in_place(loop):
        loop.set_operand(0, vector_upper)
        for reduction, final in zip(plan.reductions, finals, strict=True):
            if reduction.iter_arg is not None:
                loop.set_operand(3 + reduction.iter_arg, final)
        loop.attributes[VECTORIZED] = UnitAttr()
    return loop


def _has_contract(op: Operation) -> bool:
    flags = str(op.attributes.get("fastmath", ""))
    return "contract" in flags or "fast>" in flags


def _any_contract_flags(vector_loop: ForOp) -> bool:
    return any(_has_contract(op) for op in vector_loop.body.ops)


def _contract_fma(vector_loop: ForOp, rewriter: PatternRewriter, forced: bool) -> int:
    """Step 4: ``addf(mulf(a, b), c)`` -> ``vector.fma(a, b, c)`` (the mulf used once);
    returns how many were fused."""
    fused = 0
    for add in [op for op in vector_loop.body.ops if isinstance(op, AddFOp)]:
        for position, operand in enumerate(add.operands):
            mul = operand.defining_op()
            if mul is None or mul.name != "arith.mulf" or mul.parent is not vector_loop.body:
                continue
            allowed = forced or (_has_contract(add) and _has_contract(mul))
            if not allowed or operand.num_uses != 1:
                continue
            other = add.operands[1 - position]
            with rewriter.at(InsertionPoint.before(add)):
                fma = rewriter.insert(FMAOp.build(mul.operands[0], mul.operands[1], other))
            rewriter.replace_op(add, [fma.result])
            rewriter.erase_op(mul)
            fused += 1
            break
    return fused
