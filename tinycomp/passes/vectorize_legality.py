"""Legality for ``vectorize-loops``: may this loop run ``W`` iterations at once?

LLVM's loop vectorizer asks the same questions before it widens a loop
(``LoopVectorizationLegality``), and so does this module, for one innermost
``scf.for`` whose body is straight-line code:

1. **Lanes.** Every value of the body behaves in one of three ways across ``W``
   neighbouring iterations (LLVM's scalar evolution, much simplified): *uniform* (the
   same in every lane: defined outside the loop, a constant, or computed from uniform
   values), *linear* (``iv * k + uniform``: the induction variable and index arithmetic
   on it, ``stride`` = ``k``) or *varying* (data loaded at the induction variable and
   what is computed from it). ``LaneAnalysis.stride`` gives ``0``, ``k`` or ``None``.
2. **Reductions.** A value carried from one iteration to the next is a dependence that
   forbids running iterations side by side, unless it is a *reduction*: ``acc = acc op
   x`` with an associative ``op`` (add, mul, max, min, and, or, xor), where ``acc`` is
   used by nothing else. Two spellings are recognized: an ``iter_args`` value yielded
   as ``op(acc, x)``, and the one ``convert-linalg-to-loops`` writes, a load and a store
   of one element whose address does not move (``out = load C[i]; store op(out, x),
   C[i]``); LLVM first promotes the latter to a register (LICM's scalar promotion).
3. **Accesses.** A load or store whose last index moves by exactly 1 per iteration, on
   a memref whose last dimension is contiguous, becomes one vector load or store; one
   whose indices are all uniform stays scalar (and is broadcast). Anything else (the
   induction variable in another dimension, a stride other than 1, an address computed
   from loaded data) would need a gather or scatter: rejected.
4. **Ops.** Pure ``arith``/``math`` ops on varying values become the same ops on vectors;
   uniform ones stay scalar. Calls, ops with regions (an ``scf.if`` would need masks)
   and the induction variable used as data (it would need the vector ``<0, 1, ...>``)
   are rejected.
5. **Dependences.** Every store must not touch memory another access of the loop
   touches, unless both are the same element of the same iteration (same memref, same
   indices). Distinct allocations never overlap; distinct function arguments are
   *assumed* not to (C's ``restrict``, LLVM's ``noalias``; ``tinycomp.compile`` passes
   fresh buffers for results): where LLVM cannot prove it, it checks at run time.

``analyze_loop`` returns a ``LoopPlan`` (each body op's role, the reductions) or raises
``NotVectorizable`` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tinycomp.dialects.common.region_syntax import constant_int
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.vector.memory import innermost_stride
from tinycomp.ir.effects import may_alias, underlying_buffer
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import strides_and_offset
from tinycomp.ir.types import IndexType, MemRefType, ShapedType
from tinycomp.ir.values import BlockArgument, Value
from tinycomp.passes.vectorize_lanes import LaneAnalysis, NotVectorizable, is_pure_op, op_text
from tinycomp.passes.vectorize_reductions import Reduction, find_reductions, same_index

__all__ = ["LoopPlan", "analyze_loop", "static_trip_count"]


@dataclass
class LoopPlan:
    """What ``widen_loop`` needs: the loop, each body op's role, the reductions."""

    loop: ForOp
    width: int
    lanes: LaneAnalysis
    roles: dict[Operation, str] = field(default_factory=dict)
    """Body op -> ``"uniform"`` (stays scalar), ``"linear"`` (index arithmetic on the
    induction variable, kept scalar at lane 0), ``"widen"`` (the same op on vectors),
    ``"vector.load"``, ``"vector.store"`` or ``"reduction"``."""
    reductions: list[Reduction] = field(default_factory=list)
    trip_count: int | None = None
    """``upper - lower`` when both are constants."""


def analyze_loop(loop: ForOp, width: int, reassociate: bool = True) -> LoopPlan:
    """Check steps 1-5 for ``loop``; return its ``LoopPlan`` or raise ``NotVectorizable``.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<4x16xf32>, %b: memref<16x4xf32>, %i: index) {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %c16 = arith.constant 16 : index
    ...   scf.for %j = %c0 to %c16 step %c1 {
    ...     %x = memref.load %a[%i, %j] : memref<4x16xf32>
    ...     memref.store %x, %b[%j, %i] : memref<16x4xf32>
    ...   }
    ...   return }''')
    >>> loop = [op for op in m.walk() if op.name == "scf.for"][0]
    >>> try:
    ...     analyze_loop(loop, 8)
    ... except NotVectorizable as reason:
    ...     print(reason)
    'memref.store %x, %b[%j, %i] : memref<16x4xf32>': the induction variable moves \
dimension 0 (by 1 per iteration, 4 elements apart in memory), not the last one: a scatter
    """
    _check_loop_shape(loop)
    plan = LoopPlan(loop, width, LaneAnalysis(loop))
    plan.trip_count = static_trip_count(loop)
    if plan.trip_count is not None:
        if plan.trip_count < width:
            raise NotVectorizable(
                f"trip count {plan.trip_count} is below the vector width {width}: "
                "not one full vector of iterations"
            )
    plan.reductions = find_reductions(loop, plan.lanes, reassociate)
    for reduction in plan.reductions:
        for op in (reduction.load, reduction.combiner, reduction.store):
            if op is not None:
                plan.roles[op] = "reduction"
    for op in loop.body.ops:
        if not op.is_terminator and op not in plan.roles:
            plan.roles[op] = _role(plan.lanes, op)
    _check_dependences(plan)
    return plan


def _check_loop_shape(loop: ForOp) -> None:
    if not isinstance(loop.induction_var.type, IndexType):
        raise NotVectorizable(f"the induction variable has type {loop.induction_var.type}")
    step = constant_int(loop.step)
    if step != 1:
        found = step if step is not None else "not a constant"
        raise NotVectorizable(f"expected a step of 1, found {found}")
    for op in loop.body.ops:
        if op.regions:
            raise NotVectorizable(
                f"{op_text(op)} in the body is control flow: widening it needs masks "
                "(if-conversion), which tinycomp does not do"
            )


def _role(lanes: LaneAnalysis, op: Operation) -> str:
    """Steps 3 and 4 for one op of the body."""
    types = [v.type for v in (*op.operands, *op.results)]
    if any(isinstance(t, ShapedType) and not isinstance(t, MemRefType) for t in types):
        raise NotVectorizable(f"{op_text(op)} already works on vectors or tensors")
    if op.name == "memref.load":
        return _access_role(lanes, op, op.operands[0], op.operands[1:], "load")
    if op.name == "memref.store":
        stored = lanes.stride(op.operands[0])
        if stored not in (0, None):
            raise NotVectorizable(_iv_as_data(lanes, op))
        return _access_role(lanes, op, op.operands[1], op.operands[2:], "store")
    if not is_pure_op(op):
        raise NotVectorizable(
            f"{op_text(op)} is not a load, a store or a pure arith/math op: its lanes "
            "cannot be run side by side"
        )
    strides = [lanes.stride(v) for v in op.operands]
    result = lanes.stride(op.results[0]) if op.results else 0
    if result == 0:
        return "uniform"
    if result is not None:
        return "linear"
    if not op.name.startswith(("arith.", "math.")):
        raise NotVectorizable(
            f"{op_text(op)} changes from one iteration to the next but has no vector form "
            "(only arith and math ops are widened)"
        )
    if any(s not in (0, None) for s in strides):
        raise NotVectorizable(_iv_as_data(lanes, op))
    if any(isinstance(r.type, IndexType) for r in op.results):
        raise NotVectorizable(f"{op_text(op)} computes an index from loaded data")
    return "widen"


def _iv_as_data(lanes: LaneAnalysis, op: Operation) -> str:
    name = f"%{lanes.iv.name_hint}" if lanes.iv.name_hint else "the induction variable"
    return (
        f"{op_text(op)} uses {name} as data: lanes would need the vector of their own "
        "indices <0, 1, 2, ...> (a vector induction), which tinycomp does not build"
    )


def _access_role(lanes: LaneAnalysis, op: Operation, memref: Value, indices, kind: str) -> str:
    """Step 3: ``vector.load``/``vector.store``, ``uniform``, or a reason."""
    strides = [lanes.stride(v) for v in indices]
    if lanes.stride(memref) != 0 or None in strides:
        raise NotVectorizable(
            f"{op_text(op)} computes its address from data loaded in the loop (an indirect "
            f"access: a {'gather' if kind == 'load' else 'scatter'})"
        )
    for dimension, stride in enumerate(strides[:-1]):
        if stride != 0:
            distance = _memory_distance(memref.type, dimension, stride)
            raise NotVectorizable(
                f"{op_text(op)}: the induction variable moves dimension {dimension} (by "
                f"{stride} per iteration{distance}), not the last one: a "
                f"{'gather' if kind == 'load' else 'scatter'}"
            )
    last = strides[-1] if strides else 0
    if last == 0:
        if kind == "store":
            raise NotVectorizable(
                f"{op_text(op)} writes the same element in every iteration and is not a "
                "recognized reduction"
            )
        return "uniform"
    if last != 1:
        raise NotVectorizable(
            f"{op_text(op)}: the last index moves by {last} per iteration (a strided access)"
        )
    if innermost_stride(memref.type) != 1:
        raise NotVectorizable(
            f"{op_text(op)}: the last dimension of {memref.type} is not contiguous"
        )
    return f"vector.{kind}"


def _memory_distance(memref_type: MemRefType, dimension: int, stride: int) -> str:
    """``, 8 elements apart in memory`` when the layout says how far that is."""
    try:
        strides, _ = strides_and_offset(memref_type)
    except ValueError:
        return ""
    if strides[dimension] is None:
        return ""
    return f", {abs(strides[dimension] * stride)} elements apart in memory"


def static_trip_count(loop: ForOp) -> int | None:
    """``upper - lower`` when both bounds are constants, else ``None``."""
    lower, upper = constant_int(loop.lower_bound), constant_int(loop.upper_bound)
    if lower is None or upper is None:
        return None
    return upper - lower


def _check_dependences(plan: LoopPlan) -> None:
    """Step 5: no store may touch what another access of the loop touches."""
    accesses = [op for op in plan.loop.body.ops if op.name in ("memref.load", "memref.store")]
    owner = {}  # a reduction's load and store -> the reduction
    for reduction in plan.reductions:
        if reduction.load is not None:
            owner[reduction.load] = owner[reduction.store] = reduction
    for store in [op for op in accesses if op.name == "memref.store"]:
        for other in accesses:
            if other is store or not _may_overlap(_memref(store), _memref(other)):
                continue
            if owner.get(store) is owner.get(other) and _same_element(store, other):
                continue  # a reduction's own element, or one element of one iteration
            raise NotVectorizable(
                f"{op_text(store)} and {op_text(other)} may touch the same memory in "
                "different iterations: a loop-carried dependence through memory"
            )


def _memref(access: Operation) -> Value:
    return access.operands[0] if access.name == "memref.load" else access.operands[1]


def _indices(access: Operation) -> tuple[Value, ...]:
    return access.operands[1:] if access.name == "memref.load" else access.operands[2:]


def _same_element(a: Operation, b: Operation) -> bool:
    """Same memref value and the same index values (or equal constants)."""
    if _memref(a) is not _memref(b):
        return False
    return all(same_index(x, y) for x, y in zip(_indices(a), _indices(b), strict=True))


def _may_overlap(a: Value, b: Value) -> bool:
    """Like ``may_alias``, but distinct function arguments are assumed apart (step 5)."""
    root_a, root_b = underlying_buffer(a), underlying_buffer(b)
    if root_a is root_b:
        return True
    if _is_function_argument(root_a) and _is_function_argument(root_b):
        return False
    return may_alias(root_a, root_b)


def _is_function_argument(value: Value) -> bool:
    if not isinstance(value, BlockArgument):
        return False
    owner = value.parent_block().parent
    op = owner.parent_op if owner is not None else None
    return op is not None and op.name == "func.func"
