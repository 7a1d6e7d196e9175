"""``buffer-deallocation``: free each buffer right after its last use.

After ``one-shot-bufferize`` every temporary is a ``memref.alloc`` that nothing frees:
the program holds all of them until it returns (and leaks them, outside a garbage
collected interpreter). This pass inserts one ``memref.dealloc`` per allocation, as
early as liveness allows. The algorithm, for every ``memref.alloc``:

1. Skip it if something already frees it.
2. Compute its liveness in its block (``liveness.py``): the last op that uses it or a
   view of it, a loop counting as one op.
3. If the buffer escapes its block (returned, yielded, passed to a call or an unknown
   op), leave it alone and count it: its owner is elsewhere.
4. Otherwise insert ``memref.dealloc`` right after that last use. An allocation inside
   a loop body is freed inside the body, once per iteration.

This is the simple, structured case of MLIR's deallocation (the old
``-buffer-deallocation`` pass, now ``-ownership-based-buffer-deallocation``), which
also handles buffers that flow through branches and region results with ownership
flags; with tinycomp's out-params and iter_arg-free loops, no buffer flows that way.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%v: f32, %out: memref<4xf32>) {
...   %a = memref.alloc() : memref<4xf32>
...   linalg.fill ins(%v : f32) outs(%a : memref<4xf32>)
...   memref.copy %a, %out : memref<4xf32> to memref<4xf32>
...   return
... }''')
>>> BufferDeallocationPass().run(m)
>>> print(m.body.first_op)
func.func @f(%v: f32, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<4xf32>)
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
"""

from __future__ import annotations

from tinycomp.dialects.memref.alloc import DeallocOp
from tinycomp.ir.builder import InsertionPoint
from tinycomp.ir.operation import Operation
from tinycomp.passes.bufferize.liveness import buffer_liveness
from tinycomp.passes.bufferize.report import BufferizationReport
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["BufferDeallocationPass", "insert_deallocations"]


def insert_deallocations(root: Operation) -> dict[str, int]:
    """Steps 1-4 for every ``memref.alloc`` under ``root``; returns counts by outcome.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f() -> memref<2xf32> {
    ...   %kept = memref.alloc() : memref<2xf32>
    ...   %dead = memref.alloc() : memref<2xf32>
    ...   return %kept : memref<2xf32> }''')
    >>> insert_deallocations(m)
    {'deallocs inserted': 1, 'not freed: escapes its block': 1}
    """
    counts = {"deallocs inserted": 0, "not freed: escapes its block": 0}
    rewriter = PatternRewriter()
    for alloc in [op for op in root.walk() if op.name == "memref.alloc"]:
        liveness = buffer_liveness(alloc)  # step 2
        if liveness.deallocs:  # step 1
            continue
        if liveness.escapes:  # step 3
            counts["not freed: escapes its block"] += 1
            continue
        after = liveness.last_use  # step 4
        with rewriter.at(InsertionPoint.after(after)):
            rewriter.insert(DeallocOp.build(alloc.results[0]))
        counts["deallocs inserted"] += 1
    return counts


class BufferDeallocationPass(Pass):
    """Insert ``memref.dealloc`` after the last use of each buffer (module docstring).

    With a shared ``report`` (see ``bufferization_passes``) it records the peak after
    freeing."""

    name = "buffer-deallocation"
    summary = "free every buffer right after its last use"

    def __init__(self, report: BufferizationReport | None = None) -> None:
        super().__init__()
        self.report = report if report is not None else BufferizationReport()
        """The report this pass adds its peak memory to."""

    def run(self, op: Operation) -> None:
        for outcome, count in insert_deallocations(op).items():
            if count:
                self.statistics[outcome] += count
        self.report.measure(op, self.name)


register_pass(BufferDeallocationPass)
