"""The threads of a block work on one row together: strided loops, a tree reduction in
shared memory, and barriers between the steps of the row.

A row kernel (softmax, layernorm, rmsnorm) outlined with one block per row has a body
that is a sequence of loop nests over the row, each one a kernel of the row: a fill of
an accumulator, a reduction (``acc = max(acc, x[j])``), an elementwise step
(``e[j] = exp(x[j] - acc)``), and so on. One thread could run them all; ``T`` threads
share them, as a CUDA row kernel does:

1. Per top-level loop nest, take its innermost loop ``for j`` (a perfect nest).
2. A *reduction* along ``j`` (one store to an accumulator whose indices do not move with
   ``j``, of ``combine(new, load acc)``, a combiner with a known identity) becomes:
   each thread folds its own ``j = tid, tid + T, ...`` into a register (``iter_args``,
   from the identity); five butterfly shuffles (``gpu.shuffle xor`` by 16, 8, 4, 2, 1)
   give every lane its warp's total, with no memory and no barrier; with more than one
   warp, lane 0 of each writes its total to a shared buffer and halving steps
   (``tid < s: buf[tid] = combine(buf[tid], buf[tid + s])``, a ``gpu.barrier`` after
   each) leave the block's total in ``buf[0]``. Thread 0 combines it into the
   accumulator.
3. A *parallel* loop (every store's indices move with ``j``) is strided the same way:
   ``for j = tid to N step T``.
4. Anything else (a nest that is not perfect, a store at the top) runs on thread 0.
5. A ``gpu.barrier`` after each nest (but the last): the next step of the row reads
   what this one wrote.

The temporaries of the row (the accumulators, ``e``) are shared by the block, so the
outliner makes every buffer of such a kernel a ``workgroup`` attribution, the buffer of
the warps' totals too (``memref.alloc`` here, one per element type).

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: memref<64xf32>, %acc: memref<1xf32>) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c64 = arith.constant 64 : index
...   scf.for %j = %c0 to %c64 step %c1 {
...     %in = memref.load %x[%j] : memref<64xf32>
...     %out = memref.load %acc[%c0] : memref<1xf32>
...     %s = arith.addf %in, %out : f32
...     memref.store %s, %acc[%c0] : memref<1xf32>
...   }
...   return }''')
>>> body = m.body.first_op.entry_block
>>> cooperate_on_rows(body, 64)
>>> names = [op.name for op in body.ops]
>>> names.count("gpu.shuffle"), names.count("gpu.barrier"), names.count("scf.if")
(5, 2, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.binary import AddIOp, DivUIOp, MulIOp, RemUIOp
from tinycomp.dialects.arith.compare import CmpIOp
from tinycomp.dialects.gpu import BarrierOp, ShuffleOp, ThreadIdOp
from tinycomp.dialects.memref.access import LoadOp, StoreOp
from tinycomp.dialects.memref.alloc import AllocOp, DeallocOp
from tinycomp.dialects.scf.control import IfOp, YieldOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder
from tinycomp.ir.effects import is_pure
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import MemRefType, Type, i32, index
from tinycomp.ir.values import Value
from tinycomp.passes.tiling.reduction import REDUCTION_IDENTITIES
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["WARP_SIZE", "RowReduction", "cooperate_on_rows"]

WARP_SIZE = 32
"""Threads per warp (NVIDIA): the lanes a ``gpu.shuffle`` trades values between."""


@dataclass(frozen=True)
class RowReduction:
    """Step 2's match: ``store combine(new, load acc[idx]), acc[idx]`` in a loop."""

    loop: ForOp
    load: LoadOp
    combine: Operation
    store: StoreOp


def _inside(value: Value, loop: Operation) -> bool:
    owner = value.defining_op() or value.parent_block().parent_op()
    return owner is not None and loop.is_ancestor_of(owner)


def _depends_on(value: Value, iv: Value, loop: Operation) -> bool:
    """Whether ``value`` is computed from ``iv`` (inside ``loop``)."""
    if value is iv:
        return True
    op = value.defining_op()
    if op is None or not loop.is_ancestor_of(op):
        return False
    return any(_depends_on(operand, iv, loop) for operand in op.operands)


def _innermost(loop: ForOp) -> ForOp | None:
    """Step 1: the innermost loop of a perfect nest without ``iter_args``, or None."""
    while True:
        if loop.init_args:
            return None
        ops = [op for op in loop.body.ops if op is not loop.body.terminator]
        if len(ops) == 1 and isinstance(ops[0], ForOp):
            loop = ops[0]
        elif any(isinstance(op, ForOp) for op in ops):
            return None
        else:
            return loop


def _match_reduction(loop: ForOp) -> RowReduction | None:
    """Step 2: the reduction ``loop`` computes, or None."""
    stores = [op for op in loop.walk() if isinstance(op, StoreOp)]
    if len(stores) != 1 or stores[0].parent_op() is not loop:
        return None
    store = stores[0]
    if any(_inside(i, loop) for i in store.indices):
        return None
    combine = store.value.defining_op()
    if combine is None or combine.name not in REDUCTION_IDENTITIES:
        return None
    for operand in combine.operands:
        load = operand.defining_op()
        if (
            isinstance(load, LoadOp)
            and load.parent_op() is loop
            and load.memref is store.memref
            and list(load.indices) == list(store.indices)
            and len(load.result.users) == 1
        ):
            return RowReduction(loop, load, combine, store)
    return None


class _RowBuilder:
    """Builds the cooperative forms of steps 2-5 in one kernel body."""

    def __init__(self, body: Block, threads: int) -> None:
        self.body = body
        self.threads = threads
        start = Builder.at_start(body)
        self.tid = start.insert(ThreadIdOp.build("x")).result
        self.start = start
        self.trees: dict[Type, Value] = {}
        self.rewriter = PatternRewriter()
        """Every change to existing ops goes through it (new ops are built in place)."""

    def constant(self, builder: Builder, value: int) -> Value:
        return builder.insert(ConstantOp.build(value, index)).result

    def tree(self, element: Type, size: int) -> Value:
        """The shared buffer of ``size`` partials of ``element`` (one per type)."""
        if element not in self.trees:
            memref = MemRefType((size,), element)
            self.trees[element] = self.start.insert(AllocOp.build(memref)).results[0]
        return self.trees[element]

    def stride(self, loop: ForOp) -> tuple[Value, Value]:
        """Step 3's bounds: ``lb + tid * step`` and ``step * threads``."""
        builder = Builder.before(loop)
        first = builder.insert(MulIOp.build(self.tid, loop.step)).result
        lower = builder.insert(AddIOp.build(loop.lower_bound, first)).result
        threads = self.constant(builder, self.threads)
        return lower, builder.insert(MulIOp.build(loop.step, threads)).result

    def on_thread_zero(self, builder: Builder) -> Builder:
        """An ``scf.if tid == 0`` at ``builder``; a builder inside its ``then`` block."""
        zero = self.constant(builder, 0)
        first = builder.insert(CmpIOp.build("eq", self.tid, zero)).result
        guard = builder.insert(IfOp.build(first))
        return Builder.before(guard.regions[0].blocks[0].terminator)

    def reduce_together(self, match: RowReduction) -> None:
        """Step 2."""
        loop, element = match.loop, match.store.value.type
        accumulator, at = match.store.memref, list(match.store.indices)
        lower, step = self.stride(loop)
        builder = Builder.before(loop)
        identity = builder.insert(
            ConstantOp.build(REDUCTION_IDENTITIES[match.combine.name], element)
        )
        partial_loop = builder.insert(ForOp.build(lower, loop.upper_bound, step, [identity.result]))
        rewriter = self.rewriter
        rewriter.replace_op(match.load, [partial_loop.region_iter_args[0]])
        yielded = partial_loop.body.append(YieldOp.build([match.combine.results[0]]))
        rewriter.erase_op(match.store)
        rewriter.erase_op(loop.body.terminator)
        rewriter.inline_block_before(loop.body, yielded, [partial_loop.induction_var])
        rewriter.erase_op(loop)
        after = Builder.after(partial_loop)
        total = self.warp_total(after, partial_loop.results[0], match.combine)
        warps = self.threads // WARP_SIZE
        if warps > 1:
            total = self.across_warps(after, total, match.combine, warps)
        first = self.on_thread_zero(after)
        old = first.insert(LoadOp.build(accumulator, at)).result
        merged = first.insert(self.combined(match.combine, total, old)).results[0]
        first.insert(StoreOp.build(merged, accumulator, at))

    def combined(self, combine: Operation, lhs: Value, rhs: Value) -> Operation:
        """A copy of the combiner on ``lhs`` and ``rhs``."""
        copy = combine.clone()
        copy.set_operands([lhs, rhs])
        return copy

    def warp_total(self, builder: Builder, partial: Value, combine: Operation) -> Value:
        """Step 2, in a warp: ``log2 32`` butterfly shuffles (``gpu.shuffle xor``) leave
        the warp's total in every lane, with no memory and no barrier."""
        width = builder.insert(ConstantOp.build(WARP_SIZE, i32)).result
        offset = WARP_SIZE // 2
        while offset >= 1:
            distance = builder.insert(ConstantOp.build(offset, i32)).result
            other = builder.insert(ShuffleOp.build("xor", partial, distance, width)).results[0]
            partial = builder.insert(self.combined(combine, partial, other)).results[0]
            offset //= 2
        return partial

    def across_warps(self, builder: Builder, total: Value, combine: Operation, warps: int) -> Value:
        """Step 2, across warps: lane 0 of each warp writes its total to a shared buffer;
        halving steps over the ``warps`` entries, a barrier after each; the block's total
        is left in entry 0 (read by thread 0)."""
        tree = self.tree(total.type, warps)
        size = self.constant(builder, WARP_SIZE)
        lane = builder.insert(RemUIOp.build(self.tid, size)).result
        warp = builder.insert(DivUIOp.build(self.tid, size)).result
        leader = builder.insert(CmpIOp.build("eq", lane, self.constant(builder, 0)))
        write = builder.insert(IfOp.build(leader.result))
        Builder.before(write.regions[0].blocks[0].terminator).insert(
            StoreOp.build(total, tree, [warp])
        )
        builder.insert(BarrierOp.build())
        half = warps // 2
        while half >= 1:
            within = builder.insert(CmpIOp.build("ult", self.tid, self.constant(builder, half)))
            step_if = builder.insert(IfOp.build(within.result))
            inside = Builder.before(step_if.regions[0].blocks[0].terminator)
            partner = inside.insert(AddIOp.build(self.tid, self.constant(inside, half))).result
            mine = inside.insert(LoadOp.build(tree, [self.tid])).result
            theirs = inside.insert(LoadOp.build(tree, [partner])).result
            both = inside.insert(self.combined(combine, mine, theirs)).results[0]
            inside.insert(StoreOp.build(both, tree, [self.tid]))
            builder.insert(BarrierOp.build())
            half //= 2
        return builder.insert(LoadOp.build(tree, [self.constant(builder, 0)])).result


def cooperate_on_rows(body: Block, threads: int) -> None:
    """Steps 1-5 on the top-level ops of a kernel ``body`` run by ``threads`` threads
    along x (a power of two), one row per block."""
    rows = _RowBuilder(body, threads)
    for op in [op for op in body.ops if op is not body.terminator]:
        if is_pure(op) or isinstance(op, AllocOp | DeallocOp):
            continue
        Builder.after(op).insert(BarrierOp.build())  # step 5
        inner = _innermost(op) if isinstance(op, ForOp) else None
        match = _match_reduction(inner) if inner is not None else None
        if match is not None:
            rows.reduce_together(match)
        elif inner is not None and all(
            any(_depends_on(i, inner.induction_var, inner) for i in store.indices)
            for store in inner.walk()
            if isinstance(store, StoreOp)
        ):
            lower, step = rows.stride(inner)  # step 3
            with rows.rewriter.modify_op_in_place(inner):
                inner.set_operand(0, lower)
                inner.set_operand(2, step)
        else:
            inside = rows.on_thread_zero(Builder.before(op))  # step 4
            rows.rewriter.move_op_before(op, inside.insertion_point.anchor)
    last = body.terminator.prev_op if body.terminator is not None else None
    if isinstance(last, BarrierOp):  # nothing reads after the last step
        rows.rewriter.erase_op(last)
