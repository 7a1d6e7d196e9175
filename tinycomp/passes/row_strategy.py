"""``cpu-row-strategy``: tile row kernels by a few rows and fuse their producers.

After fusion a softmax is still three kernels over the whole matrix (max-reduce,
exp-sub-sum, divide), each reading and writing ``rows x cols`` floats: numpy's way, four
to six passes over memory. Tiling the last kernel's row loop by ``R`` rows and fusing
its producers into that loop (``tile_and_fuse``) runs all three on ``R`` rows before the
next ``R``: the rows stay in L1/L2 between the kernels, the temporaries shrink to
``R x cols``, and the matrix is read once from memory and written once.

1. Collect the candidates: the linalg ops on tensors whose results no row kernel reads
   (what ``tiling_roots`` finds, plus a kernel that feeds only contractions), except
   fills and ops already inside a tile loop (another strategy chose their loops).
2. Classify each with its producers (the ops ``tile_and_fuse`` would pull in):
   * **rows**: rank >= 2, every reduction is along the innermost loop, and every
     reduced operand is indexed by the row loops (a row of the output needs one row of
     each input, broadcasts along rows allowed);
   * **vector**: no reduction at all (an elementwise kernel), or rank 1: the rows gain
     nothing, ``vectorize-loops`` widens the innermost loop as it is;
   * **loops**: a contraction among its producers (an operand read by every row, as
     the ``B`` of a matmul), or a reduction along another loop: not this strategy's;
   * a contraction itself is not a row kernel at all: the contraction strategy reports
     it, so it gets no decision here.
3. For **rows**, choose ``R``: as many rows as fit ``tile_bytes`` (the widest row of
   the operands of the kernel and its producers, at least 1, at most the loop); tile
   the innermost row loop by ``R`` (the outer ones, a batch, by 1: the ``R`` rows are
   contiguous) and fuse the producers.
4. Record one ``StrategyDecision`` per candidate that is not a contraction in
   ``self.decisions`` (and the tiling report in ``self.report``).

It runs at the ``tiled`` stage (on tensors, after fusion), before bufferization, which
then gives each temporary the size of its tile.

>>> import numpy as np, tinycomp
>>> from tinycomp import CompileOptions
>>> from tinycomp.frontend import softmax
>>> rows = RowStrategyPass(tile_bytes=256)
>>> x = np.ones((16, 32), np.float32)
>>> program = tinycomp.compile(softmax, x, options=CompileOptions(extra_passes={"tiled": [rows]}),
...                            stop_after="tiled")
>>> for decision in rows.decisions:
...     print(decision)
%div: rows (2 rows of 32 f32 per tile, 7 producers fused: its reductions run along the rows)
"""

from __future__ import annotations

from tinycomp.affine.expr import AffineDimExpr
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.op_names import op_name
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import bitwidth, element_type
from tinycomp.ir.types import ShapedType
from tinycomp.passes.errors import PassError
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.passes.strategy import StrategyDecision, StrategyPass
from tinycomp.passes.tiling.fuse import tile_and_fuse
from tinycomp.passes.tiling.report import TilingReport
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["RowStrategyPass", "classify_row_kernel", "inside_a_loop"]


class RowStrategyPass(StrategyPass, Pass):
    """Tile row kernels by rows and fuse their producers (see the module docstring)."""

    name = "cpu-row-strategy"
    summary = "tile softmax/layernorm-like row kernels by a few rows, fusing their producers"

    def __init__(self, tile_bytes: int = 64 * 1024) -> None:
        super().__init__()
        if not isinstance(tile_bytes, int) or tile_bytes < 1:
            raise PassError(f"{self.name}: expected tile_bytes >= 1, got {tile_bytes!r}")
        self.tile_bytes = tile_bytes
        """Bytes of the widest operand's rows in one tile. The tile's input rows, its
        temporaries (as large, for a softmax's ``exp``) and its output rows must stay in
        L2 until the last kernel of the row has read them: 64 KiB is a quarter of a
        256 KiB L2 (Skylake's), an eighth of Zen 3's 512 KiB; on Zen 3 tiles of 8 to
        256 KiB ran within the noise of each other (``benchmarks/cpu_rows.py``)."""
        self.report = TilingReport(self.name)
        """The tiling of every kernel that got the row strategy."""

    def run(self, op: Operation) -> None:
        self.decisions = []
        self.report = TilingReport(self.name)
        rewriter = PatternRewriter()
        for kernel in _candidates(op):  # step 1
            name = op_name(kernel)
            strategy, reason = classify_row_kernel(kernel)  # step 2
            if strategy == "contraction":
                continue
            if strategy != "rows":
                self.decisions.append(
                    StrategyDecision(name, strategy, reason, strategy == "vector")
                )
                continue
            sizes, rows, cols = self._tile_sizes(kernel)  # step 3
            result = tile_and_fuse(kernel, sizes, rewriter)
            self.report.add(result)
            fused = len(result.tiled_ops) - 1
            what = f"{rows} row{'s' if rows != 1 else ''} of {cols} per tile"
            what += f", {fused} producer{'s' if fused != 1 else ''} fused: {reason}"
            self.decisions.append(StrategyDecision(name, "rows", what))  # step 4
            self.statistics["kernels tiled by rows"] += 1

    def _tile_sizes(self, kernel: StructuredOp) -> tuple[tuple[int, ...], int, str]:
        """Step 3: the tile sizes, the rows per tile and the row described (``32 f32``)."""
        loop_sizes = kernel.static_loop_sizes()
        operands = [o for op in _cluster(kernel) for o in op.operands]  # producers' too
        widest = max(
            (o for o in operands if isinstance(o.type, ShapedType) and o.type.shape),
            key=lambda o: o.type.shape[-1] * bitwidth(element_type(o.type)),
        )
        cols = widest.type.shape[-1]
        row_bytes = max(1, cols * bitwidth(element_type(widest.type)) // 8)
        rows = max(1, min(loop_sizes[-2] or 1, self.tile_bytes // row_bytes))
        sizes = (1,) * (len(loop_sizes) - 2) + (rows, 0)
        return sizes, rows, f"{cols} {element_type(widest.type)}"


def _candidates(op: Operation) -> list[StructuredOp]:
    """Step 1: linalg ops on tensors that no row kernel reads."""
    found = []
    for candidate in op.walk():
        if not isinstance(candidate, StructuredOp) or not candidate.is_tensor_semantics:
            continue
        if not any(isinstance(v.type, ShapedType) for v in candidate.inputs):
            continue  # a fill: the initial value of another kernel, not a kernel of its own
        if inside_a_loop(candidate):
            continue  # already tiled (by another strategy): its loops are chosen
        users = [u for r in candidate.results for u in r.users if isinstance(u, StructuredOp)]
        if all(classify_row_kernel(user, alone=True)[0] == "loops" for user in users):
            found.append(candidate)
    return found


def inside_a_loop(op: Operation) -> bool:
    """Whether ``op`` sits in the body of a loop (a tile loop of an earlier tiling).

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f(%n: index) { %c0 = arith.constant 0 : index "
    ...           "%c1 = arith.constant 1 : index scf.for %i = %c0 to %n step %c1 { "
    ...           "%j = arith.addi %i, %c1 : index } return }")
    >>> [inside_a_loop(op) for op in m.walk() if op.name in ("arith.constant", "arith.addi")]
    [False, False, True]
    """
    parent = op.parent_op()
    while parent is not None and parent.name != "func.func":
        if parent.name in ("scf.for", "scf.forall", "scf.parallel"):
            return True
        parent = parent.parent_op()
    return False


def _cluster(kernel: StructuredOp) -> list[StructuredOp]:
    """``kernel`` and the linalg ops that produce its operands, transitively."""
    seen: list[StructuredOp] = []
    work = [kernel]
    while work:
        current = work.pop()
        if current in seen:
            continue
        seen.append(current)
        for operand in current.operands:
            producer = operand.defining_op()
            if isinstance(producer, StructuredOp):
                work.append(producer)
    return seen


def _row_problem(op: StructuredOp) -> tuple[bool, str] | None:
    """Why ``op`` is not a row kernel, or None: ``(is_contraction, reason)``. A contraction
    (an operand read by every row, or a product of two inputs summed along other loops,
    as a convolution's) is another strategy's; any other reduction off the innermost
    loop is a fallback."""
    reductions = op.reduction_dims()
    if not reductions:
        return None
    last = len(op.iterator_types()) - 1
    if reductions != [last]:
        reason = f"{op_name(op, line=False)} reduces along loop {reductions[0]}, not the innermost"
        return _multiplies_inputs(op), reason
    for amap in op.indexing_maps()[: len(op.inputs)]:
        dims = {r.position for r in amap.results if isinstance(r, AffineDimExpr)}
        if last in dims and not set(range(last)) <= dims:
            return (
                True,
                f"{op_name(op, line=False)} is a contraction (an operand read by every row)",
            )
    return None


def _multiplies_inputs(op: StructuredOp) -> bool:
    """Whether the payload multiplies two of the inputs' elements (as a matmul's or a
    convolution's ``out + a * b`` does), the mark of a contraction."""
    inputs = set(op.regions[0].blocks[0].arguments[: len(op.inputs)])
    for payload_op in op.regions[0].blocks[0].ops:
        if payload_op.name in ("arith.mulf", "arith.muli"):
            if len(inputs.intersection(payload_op.operands)) == 2:
                return True
    return False


def _after_producer(kernel: StructuredOp, reason: str) -> tuple[str, str]:
    """A kernel that cannot take the rows with its producers: an elementwise one is left
    to ``vectorize-loops`` as it is (rows would gain it nothing); one with a reduction
    falls back to plain loops."""
    if not kernel.reduction_dims():
        return "vector", f"elementwise, {reason}: left to vectorize-loops"
    return "loops", reason


def classify_row_kernel(kernel: StructuredOp, alone: bool = False) -> tuple[str, str]:
    """Step 2: ``(strategy, reason)`` for ``kernel`` with its producers (``alone``:
    without them).

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda a, b: a @ b, TensorSpec((4, 8)), TensorSpec((8, 2)))
    >>> matmul = [op for op in m.walk() if op.name == "linalg.matmul"][0]
    >>> classify_row_kernel(matmul)
    ('contraction', 'not generic: linalg.matmul (the contraction strategy)')
    """
    if kernel.name not in ("linalg.generic", "linalg.fill"):
        return "contraction", f"not generic: {kernel.name} (the contraction strategy)"
    own_problem = _row_problem(kernel)
    if own_problem is not None and own_problem[0]:
        return "contraction", own_problem[1]
    ops = [kernel] if alone else _cluster(kernel)
    for op in ops:  # the kernel and the producers tile_and_fuse would pull in
        if op.name not in ("linalg.generic", "linalg.fill"):
            return _after_producer(kernel, f"its producer is {op.name} (a contraction)")
        problem = _row_problem(op)
        if problem is not None:
            reason = problem[1] if op is kernel else f"its producer {problem[1]}"
            return _after_producer(kernel, reason)
    if kernel.num_loops < 2:
        return "vector", "rank 1: left to vectorize-loops as it is"
    if not any(op.reduction_dims() for op in ops):
        return "vector", "elementwise: no row to keep in cache, left to vectorize-loops"
    if None in kernel.static_loop_sizes():
        return "vector", "dynamic sizes: the rows per tile are unknown"
    return "rows", "its reductions run along the rows"


register_pass(RowStrategyPass)
