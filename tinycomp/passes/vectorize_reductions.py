"""Reductions: the one loop-carried dependence a vectorizer can break.

``s = s + x[i]`` needs the previous ``s`` in every iteration, so iterations cannot run
side by side as written. But ``+`` is associative: keep ``W`` partial sums, one per
lane (``vs = vs + x[i .. i+W-1]``), and add the partial sums up after the loop. That is
what LLVM does with a reduction *phi* (``RecurrenceDescriptor``), and what MLIR writes
as a vector ``iter_arg`` and a ``vector.reduction`` after the loop.

Two spellings of a reduction are recognized (``find_reductions``):

* **iter_args**: ``%s = scf.for ... iter_args(%acc = %init)`` whose body yields
  ``op(%acc, %x)`` and uses ``%acc`` nowhere else;
* **memory**: ``%out = memref.load %C[%i]`` then ``memref.store op(%out, %x), %C[%i]``
  with an address that does not move in the loop, which is what
  ``convert-linalg-to-loops`` writes for a reduction (LLVM's LICM first turns such an
  element into a register: *scalar promotion*).

``op`` must be the combining op of a ``vector.reduction`` kind (``arith.addf``,
``arith.maximumf``, ``arith.addi``...; see ``COMBINING_KINDS``). Integer, max and min
reductions give the same result in any order. A float sum or product does not:
reassociating it changes the rounding, so LLVM only does it under ``reassoc``
(``-ffast-math``). ``reassociate=False`` keeps the scalar order: one *ordered*
``vector.reduction`` per iteration instead of a vector of partial results.

>>> from tinycomp.ir import parse
>>> from tinycomp.passes.vectorize_lanes import LaneAnalysis
>>> m = parse('''func.func @rowmax(%x: memref<4x32xf32>, %m: memref<4xf32>, %r: index) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c32 = arith.constant 32 : index
...   scf.for %j = %c0 to %c32 step %c1 {
...     %in = memref.load %x[%r, %j] : memref<4x32xf32>
...     %out = memref.load %m[%r] : memref<4xf32>
...     %max = arith.maximumf %in, %out : f32
...     memref.store %max, %m[%r] : memref<4xf32>
...   }
...   return }''')
>>> loop = [op for op in m.walk() if op.name == "scf.for"][0]
>>> [r.describe() for r in find_reductions(loop, LaneAnalysis(loop))]
['maximumf (memory %m)']
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.dialects.common.region_syntax import constant_int
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.vector.reduction import combiner_op, kind_of_combiner
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FloatType, IntegerType
from tinycomp.ir.values import Value
from tinycomp.passes.vectorize_lanes import LaneAnalysis, NotVectorizable, is_pure_op, op_text

__all__ = ["Reduction", "find_reductions", "same_index"]


@dataclass
class Reduction:
    """``running = running <kind> update``, in ``iter_args`` or in one memory element."""

    kind: str
    """The combining kind (``"add"``, ``"maximumf"``...)."""
    combiner: Operation
    """The op that combines the running value and the update."""
    running: Value
    """The running value as the combiner reads it (the iter_arg, or the loaded element)."""
    update: Value
    """The value combined in, each iteration."""
    ordered: bool = False
    """Keep the scalar order: a float add or mul without permission to reassociate."""
    iter_arg: int | None = None
    """Position among the loop's ``iter_args`` (iter_args spelling)."""
    load: Operation | None = None
    """The ``memref.load`` of the element (memory spelling)."""
    store: Operation | None = None
    """The ``memref.store`` of the element (memory spelling)."""

    def describe(self) -> str:
        """``add (iter_arg #0)`` or ``maximumf (memory %alloc)``."""
        if self.load is None:
            where = f"iter_arg #{self.iter_arg}"
        else:
            memref = self.load.operands[0]
            where = f"memory %{memref.name_hint}" if memref.name_hint else f"memory {memref.type}"
        return f"{self.kind}{' ordered' if self.ordered else ''} ({where})"


def find_reductions(loop: ForOp, lanes: LaneAnalysis, reassociate: bool = True) -> list[Reduction]:
    """Every reduction of ``loop``: one per ``iter_arg`` (each must be one, or the loop
    has another loop-carried dependence: ``NotVectorizable``), then the memory ones."""
    reductions = [_iter_arg_reduction(loop, p) for p in range(len(loop.init_args))]
    reductions += _memory_reductions(loop, lanes)
    for reduction in reductions:
        is_float = isinstance(reduction.running.type, FloatType)
        reduction.ordered = not reassociate and is_float and reduction.kind in ("add", "mul")
    return reductions


def same_index(x: Value, y: Value) -> bool:
    """The same index value, or two constants of one value."""
    return x is y or (constant_int(x) is not None and constant_int(x) == constant_int(y))


def _combining_kind(op: Operation | None, running: Value) -> str | None:
    """The kind ``op`` combines values of ``running``'s type with, if ``op`` reads
    ``running`` exactly once next to one other operand."""
    if op is None or len(op.operands) != 2:
        return None
    kind = kind_of_combiner(op.name)
    if kind is None or combiner_op(kind, running.type) != op.name:
        return None
    if sum(1 for v in op.operands if v is running) != 1:
        return None
    return kind


def _iter_arg_reduction(loop: ForOp, position: int) -> Reduction:
    running = loop.region_iter_args[position]
    yielded = loop.body.last_op.operands[position]
    name = f"iter_arg #{position} (%{running.name_hint or position})"
    if not isinstance(running.type, (FloatType, IntegerType)):
        raise NotVectorizable(f"{name} of type {running.type} is not a scalar reduction")
    combiner = yielded.defining_op()
    if combiner is None or combiner.parent is not loop.body:
        raise NotVectorizable(f"{name} is yielded unchanged or from outside the loop")
    kind = _combining_kind(combiner, running)
    if kind is None:
        raise NotVectorizable(
            f"{name} is updated by {op_text(combiner)}, not by one associative combining op "
            "(add, mul, max, min, and, or, xor): a loop-carried dependence"
        )
    if running.num_uses != 1 or yielded.num_uses != 1:
        raise NotVectorizable(
            f"{name}: the running value is also used inside the loop, so each iteration "
            "needs the previous one (a loop-carried dependence, not a plain reduction)"
        )
    update = next(v for v in combiner.operands if v is not running)
    return Reduction(kind, combiner, running, update, iter_arg=position)


def _memory_reductions(loop: ForOp, lanes: LaneAnalysis) -> list[Reduction]:
    """``store op(load C[i], x), C[i]`` with ``i`` uniform, the load used only there."""
    found = []
    for store in [op for op in loop.body.ops if op.name == "memref.store"]:
        value, memref, *indices = store.operands
        combiner = value.defining_op()
        if combiner is None or combiner.parent is not loop.body or value.num_uses != 1:
            continue
        for running in combiner.operands:
            load = running.defining_op()
            if load is None or load.name != "memref.load" or load.parent is not loop.body:
                continue
            same = load.operands[0] is memref and all(
                same_index(a, b) for a, b in zip(load.operands[1:], indices, strict=True)
            )
            kind = _combining_kind(combiner, running)
            if not same or kind is None or running.num_uses != 1:
                continue
            if any(lanes.stride(i) != 0 for i in indices):
                continue
            if not all(_hoistable(lanes, i) for i in indices):
                raise NotVectorizable(
                    f"the reduction into {op_text(store)} computes its address from data "
                    "loaded in the loop"
                )
            update = next(v for v in combiner.operands if v is not running)
            found.append(Reduction(kind, combiner, running, update, load=load, store=store))
            break
    return found


def _hoistable(lanes: LaneAnalysis, value: Value) -> bool:
    """Whether ``value`` can be computed before the loop: defined outside it, or by
    pure ops (no loads) from such values."""
    if not lanes.is_inside(value):
        return True
    op = value.defining_op()
    if op is None or not is_pure_op(op):
        return False
    return all(_hoistable(lanes, v) for v in op.operands)
