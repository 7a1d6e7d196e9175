"""``buffer-reuse``: temporaries that are never live at the same time share memory.

After bufferization, a chain ``a = exp(x); b = a * 2; c = b + 1`` allocates one
buffer per temporary. But ``a`` is dead once ``b`` is computed, so ``c`` can be written
into ``a``'s memory. This is register allocation for buffers, by *linear scan* over
live ranges (``liveness.py``). The algorithm, for each block with allocations:

1. Compute each allocation's live range in the block: from its ``memref.alloc`` to
   its last use (a loop counting as one op).
2. Visit the allocations in order. Keep a pool of buffers already handed out, each
   with the position where its current holder dies.
3. An allocation may take a pool buffer when the buffer's holder died before this
   allocation starts, and both have the same type: same static shape, element type,
   layout and memory space (so the same bytes, and the IR types still match).
   Then every use of the new allocation uses the old buffer instead, the new
   ``memref.alloc`` is erased, and the old buffer's holder dies where the new one does.
   A ``memref.dealloc`` of the old buffer, if any, is erased: the buffer lives on.
4. Otherwise the allocation joins the pool. Buffers that escape their block or have
   dynamic sizes are never shared.

Reuse and ``buffer-deallocation`` pull in different directions. Sharing keeps one
allocation held from its first holder to its last, gaps included: with frees after
the last use, softmax on 3x8 peaks at 192 bytes without reuse and 204 with it (the
3x1 row-max buffer, reused for the row sum, stays allocated while ``exp`` runs).
Reuse saves allocations (a target without a heap, like GPU shared memory or an NPU's
local buffers, cannot free at all); freeing saves bytes. The report shows both.

What tinycomp leaves out: MLIR has no such pass upstream (downstream compilers and
ML runtimes plan memory this way, often packing different sizes into one arena with
offsets); here only identical types share, and only within one block.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: memref<8xf32>, %out: memref<8xf32>) {
...   %a = memref.alloc() : memref<8xf32>
...   memref.copy %x, %a : memref<8xf32> to memref<8xf32>
...   %b = memref.alloc() : memref<8xf32>
...   memref.copy %a, %b : memref<8xf32> to memref<8xf32>
...   %c = memref.alloc() : memref<8xf32>
...   memref.copy %b, %c : memref<8xf32> to memref<8xf32>
...   memref.copy %c, %out : memref<8xf32> to memref<8xf32>
...   return
... }''')
>>> reuse = BufferReusePass()
>>> reuse.run(m)
>>> reuse.report.reuse, reuse.report.peak_bytes
([('%c', '%a')], {'buffer-reuse (before)': 96, 'buffer-reuse': 64})
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.passes.bufferize.liveness import BufferLiveness, buffer_liveness
from tinycomp.passes.bufferize.report import BufferizationReport
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["BufferReusePass", "reuse_buffers"]


@dataclass
class _PoolEntry:
    """A buffer handed out, and where its current holder dies (block position)."""

    liveness: BufferLiveness
    dies_at: int


def reuse_buffers(root: Operation) -> list[tuple[str, str]]:
    """Share buffers under ``root`` (steps 1-4); returns ``(taker, giver)`` names, as
    the IR printed them before the change.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%v: f32) {
    ...   %a = memref.alloc() : memref<2xf32>
    ...   linalg.fill ins(%v : f32) outs(%a : memref<2xf32>)
    ...   %b = memref.alloc() : memref<2xf32>
    ...   linalg.fill ins(%v : f32) outs(%b : memref<2xf32>)
    ...   return }''')
    >>> reuse_buffers(m)
    [('%b', '%a')]
    """
    names = SSANames(_top(root))
    rewriter = PatternRewriter()
    shared: list[tuple[str, str]] = []
    blocks = {op.parent: None for op in root.walk() if op.name == "memref.alloc"}
    for block in blocks:
        positions = {op: position for position, op in enumerate(block.ops)}
        pool: list[_PoolEntry] = []
        allocs = [op for op in block.ops if op.name == "memref.alloc"]
        for alloc in allocs:  # step 2
            liveness = buffer_liveness(alloc)  # step 1
            if liveness.escapes or not alloc.results[0].type.has_static_shape:
                continue
            start = positions[alloc]
            entry = _free_buffer(pool, alloc, start)
            if entry is None:  # step 4
                pool.append(_PoolEntry(liveness, positions[liveness.last_use]))
                continue
            giver = entry.liveness.alloc  # step 3
            shared.append((names.value_name(alloc.results[0]), names.value_name(giver.results[0])))
            for dealloc in entry.liveness.deallocs:
                rewriter.erase_op(dealloc)
            rewriter.replace_all_uses_with(alloc.results[0], giver.results[0])
            rewriter.erase_op(alloc)
            entry.liveness = buffer_liveness(giver)
            entry.dies_at = positions[liveness.last_use]
    return shared


def _free_buffer(pool: list[_PoolEntry], alloc: Operation, start: int) -> _PoolEntry | None:
    """The first pool buffer of ``alloc``'s type whose holder died before ``start``."""
    for entry in pool:
        same_type = entry.liveness.alloc.results[0].type == alloc.results[0].type
        if same_type and entry.dies_at < start:
            return entry
    return None


def _top(op: Operation) -> Operation:
    while op.parent_op() is not None:
        op = op.parent_op()
    return op


class BufferReusePass(Pass):
    """Let temporaries with disjoint live ranges share one allocation (module
    docstring). ``report.peak_bytes`` gets the peak before (``"buffer-reuse
    (before)"``) and after (``"buffer-reuse"``); ``report.reuse`` the pairs."""

    name = "buffer-reuse"
    summary = "share one allocation between temporaries whose live ranges do not overlap"

    def __init__(self, report: BufferizationReport | None = None) -> None:
        super().__init__()
        self.report = report if report is not None else BufferizationReport()
        """The report this pass adds the reuse pairs and peak memory to."""

    def run(self, op: Operation) -> None:
        if not self.report.peak_bytes:
            self.report.measure(op, f"{self.name} (before)")
        pairs = reuse_buffers(op)
        self.report.reuse.extend(pairs)
        self.statistics["allocations shared"] += len(pairs)
        self.report.measure(op, self.name)


register_pass(BufferReusePass)
