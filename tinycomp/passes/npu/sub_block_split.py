"""Splitting the vector side of a MIX 1:2 kernel between its two vector cores.

An AI core of a 910B has two vector cores; in a MIX 1:2 kernel both run the vector
side, and each should do half of it (``sub_block_idx`` 0 or 1). Ascend's compiler
decides this op by op from the structure linalg already states (AscendNPU-IR's
``TileAndBindSubBlock``); this is that decision, in five steps:

1. **Only what is safe to split**: a structured linalg op (its loops, ``iterator_types``
   and ``indexing_maps`` are known). Anything else falls back: an op with effects of its
   own, one that uses synchronisation resources (flags), an op with regions that is not
   structured, an unknown op. The fallback is to run the op on vector core 0 alone
   (guarded by ``sub_block_idx == 0``), and its reason is recorded.
2. **A dimension to split**: a *parallel* loop (never a reduction loop: each core would
   hold a partial result and the two would need a combine) that every operand indexes
   *plainly*, with the bare loop index as one of its map's results, or not at all (a
   broadcast: the whole operand goes to both cores). A loop that appears inside an
   expression (``d0 + d1``, a convolution's window) has no clean half.
3. **The largest such loop**, the outermost on ties, whose extent the two cores can
   share (at least 2); halves of unequal size (an odd extent) are allowed, the first
   core taking the larger.
4. **Every operand's slice**, through its map: the operand dimension whose result is
   that loop, or none (the operand is read whole by both); every result is sliced like
   its output operand, so ops with several results are split alike.
5. **No dimension** (every parallel loop is missing from some output, or tangled, or of
   extent 1; or every loop is a reduction): fall back, saying which.

One op at a time is not enough: the two cores share no buffer, so what one core
computes the other cannot read. A kernel is split along one dimension of what it
returns, followed back through every producer:

6. try the dimensions of the returned values, the largest first; split the producer of
   each along the loop its output map gives that dimension, and its operands along the
   dimensions that loop reaches through their maps, and so on back to the arguments;
7. a dimension fails where it meets a reduction loop (softmax's columns: its max and
   its sum reduce them), an expression, an op that is not structured, or an op that
   would need two different splits; the next dimension is tried;
8. an op the split never reaches (its result is read whole, as a bias row is by an add
   that broadcasts it) is computed whole on both cores, if it reads nothing the split
   cuts in halves (else the dimension fails); ops with effects of their own fall back
   to core 0; with no dimension left, every op runs on core 0, and the reasons say why
   each dimension failed.

>>> import numpy as np
>>> from tinycomp.frontend import trace
>>> from tinycomp.frontend.nn import softmax
>>> module = trace(softmax, np.zeros((6, 16), np.float32))
>>> for decision in split_decisions(module.body.first_op)[:3]:
...     print(decision)
linalg.fill: split loop d0 (extent 6): 3 + 3; operands dims [whole, 0]
linalg.generic: split loop d0 (extent 6): 3 + 3; operands dims [0, 0]
linalg.generic: split loop d0 (extent 6): 3 + 3; operands dims [0, 0, 0]
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.affine.expr import AffineDimExpr
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import OpResult

__all__ = ["Decision", "Fallback", "Replicated", "Split", "split_decision", "split_decisions"]


@dataclass(frozen=True)
class Split:
    """Split ``op`` along loop ``loop``: core 0 takes ``first`` of ``extent``, core 1 the
    rest; ``operand_dims[i]`` is the dimension of operand ``i`` that is sliced (``None``:
    the operand is used whole)."""

    op: Operation
    loop: int
    extent: int
    operand_dims: tuple[int | None, ...]

    @property
    def first(self) -> int:
        """Core 0's share (the larger half of an odd extent)."""
        return (self.extent + 1) // 2

    def __str__(self) -> str:
        name = self.op.loop_name(self.loop) if isinstance(self.op, StructuredOp) else self.loop
        dims = ", ".join("whole" if d is None else str(d) for d in self.operand_dims)
        return (
            f"{self.op.name}: split loop {name} (extent {self.extent}): {self.first} + "
            f"{self.extent - self.first}; operands dims [{dims}]"
        )


@dataclass(frozen=True)
class Fallback:
    """``op`` runs on vector core 0 only, guarded by ``sub_block_idx == 0``; why."""

    op: Operation
    reason: str

    def __str__(self) -> str:
        return f"{self.op.name}: on vector core 0 only ({self.reason})"


def _plain_position(results, loop: int) -> int | None | str:
    """Where loop ``loop`` is a whole result of a map: its position, ``None`` when it is
    absent, ``"tangled"`` when it is inside an expression."""
    found = None
    for position, expr in enumerate(results):
        if isinstance(expr, AffineDimExpr) and expr.position == loop:
            if found is None:
                found = position
        elif loop in expr.used_dims():
            return "tangled"
    return found


def split_decision(op: Operation) -> Split | Fallback:
    """How ``op`` is shared by the two vector cores (module docstring)."""
    if not isinstance(op, StructuredOp):
        effects = op.get_effects()
        if effects is None:
            return Fallback(op, "an op whose effects are unknown")
        if any(e.resource != "memory" for e in effects):
            return Fallback(op, "it uses synchronisation resources")
        if effects:
            return Fallback(op, "it has side effects of its own")
        return Fallback(op, "not a structured op: its loops are unknown")
    kinds = op.iterator_types()
    if all(kind != "parallel" for kind in kinds):
        return Fallback(op, "every loop is a reduction: halves would need a combine")
    extents = op.static_loop_sizes()
    maps = op.indexing_maps()
    outputs = range(op.num_inputs, op.num_inputs + op.num_outputs)
    candidates, reasons = [], []
    for loop, kind in enumerate(kinds):
        if kind != "parallel":
            continue
        extent = extents[loop]
        name = op.loop_name(loop)
        positions = [_plain_position(m.results, loop) for m in maps]
        if "tangled" in positions:
            reasons.append(f"loop {name} is inside an index expression")
            continue
        if any(positions[i] is None for i in outputs):
            reasons.append(f"an output does not index loop {name}")
            continue
        if extent is None or extent < 2:
            reasons.append(f"loop {name} has extent {extent}")
            continue
        candidates.append((-extent, loop, tuple(positions)))
    if not candidates:
        return Fallback(op, "; ".join(reasons) or "no parallel loop to split")
    _, loop, positions = min(candidates)
    return Split(op, loop, extents[loop], positions)


@dataclass(frozen=True)
class Replicated:
    """``op``'s result is read whole by split ops: both vector cores compute it whole."""

    op: Operation

    def __str__(self) -> str:
        return f"{self.op.name}: computed whole on both vector cores (its result is read whole)"


Decision = Split | Fallback | Replicated


def _producer(value) -> Operation | None:
    return value.op if isinstance(value, OpResult) else None


def _try_dimension(func: Operation, dim: int) -> dict[int, Decision] | str:
    """Steps 6-7: split the returned value along ``dim`` and follow it back through its
    producers; the decision of each op reached, or why it cannot be done."""
    returned = func.regions[0].blocks[0].last_op.operands
    decisions: dict[int, Decision] = {}
    work = [(value, dim) for value in returned]
    while work:
        value, position = work.pop()
        op = _producer(value)
        if op is None or op.name == "tensor.empty":  # an argument, or a shape: sliced
            continue  # where it is read
        if not isinstance(op, StructuredOp):
            return f"the result of '{op.name}' would have to be split, and it cannot be"
        output = op.num_inputs + value.index
        expr = op.indexing_maps()[output].results[position]
        if not isinstance(expr, AffineDimExpr):
            return f"dimension {position} of '{op.name}' is not a loop of its own"
        loop = expr.position
        name = op.loop_name(loop)
        if op.iterator_types()[loop] != "parallel":
            return f"'{op.name}' reduces loop {name}: its halves would need a combine"
        seen = decisions.get(id(op))
        if isinstance(seen, Split):
            if seen.loop != loop:
                return f"'{op.name}' would be split along two loops"
            continue
        positions = [_plain_position(m.results, loop) for m in op.indexing_maps()]
        if "tangled" in positions:
            return f"loop {name} of '{op.name}' is inside an index expression"
        decisions[id(op)] = Split(op, loop, op.static_loop_sizes()[loop], tuple(positions))
        for operand, where in zip(op.operands, positions, strict=True):
            if where is not None:
                work.append((operand, where))
    return decisions


def split_decisions(func: Operation) -> list[Decision]:
    """The plan of ``func`` (a kernel's vector side): one decision per op that does work
    (constants, views and terminators are left out), in program order (module
    docstring, steps 6-8)."""
    ops = [
        op for op in func.regions[0].blocks[0]
        if not op.is_terminator and not (op.is_pure and not isinstance(op, StructuredOp))
        and op.name not in _VIEWS
    ]  # fmt: skip
    returned = func.regions[0].blocks[0].last_op.operands
    shapes = [getattr(v.type, "shape", ()) for v in returned]
    rank = min((len(shape) for shape in shapes), default=0)
    candidates = sorted(
        (d for d in range(rank) if all((shape[d] or 0) >= 2 for shape in shapes)),
        key=lambda d: (-min(shape[d] for shape in shapes), d),
    )
    reasons = []
    for dim in candidates:
        plan = _try_dimension(func, dim)
        if isinstance(plan, str):
            reasons.append(f"dimension {dim}: {plan}")
            continue
        whole = _reads_a_split_whole(ops, plan)
        if whole is not None:
            reasons.append(f"dimension {dim}: {whole}")
            continue
        decided: list[Decision] = []
        for op in ops:
            found = plan.get(id(op))
            if found is not None:
                decided.append(found)
            elif isinstance(op, StructuredOp):
                decided.append(Replicated(op))
            else:
                decided.append(split_decision(op))
        return decided
    why = "; ".join(reasons) or "the results have no dimension of 2 or more"
    return [Fallback(op, why) for op in ops]


def _reads_a_split_whole(ops: list[Operation], plan: dict[int, Decision]) -> str | None:
    """Why an op computed whole cannot be (it reads the result of a split op), or None."""
    for op in ops:
        if id(op) in plan:
            continue
        for operand in op.operands:
            producer = _producer(operand)
            if producer is not None and isinstance(plan.get(id(producer)), Split):
                return (
                    f"'{op.name}' reads all of '{producer.name}', which the split would "
                    "cut in halves on two cores"
                )
    return None


_VIEWS = ("tensor.empty", "tensor.extract_slice", "tensor.expand_shape", "tensor.collapse_shape")
