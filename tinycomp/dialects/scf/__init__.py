"""The scf dialect (structured control flow): loops and branches as nested regions.

This module registers the dialect and re-exports its op classes, which live in files by
role: ``scf_control.py`` (``scf.if``, ``scf.execute_region``, ``scf.yield``),
``scf_for.py`` (``scf.for``), ``scf_while.py`` (``scf.while``, ``scf.condition``) and
``scf_parallel.py`` (``scf.parallel``, ``scf.reduce``, ``scf.reduce.return``).
``scf_syntax.py`` holds the syntax they share (also used by the affine dialect).

Where MLIR leaves out a terminator, so does tinycomp: an ``scf.for`` without iter_args
and an ``scf.if`` without results print without their ``scf.yield``, and the parser
puts it back.

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @sum(%buf: memref<?xf32>, %n: index) -> f32 {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %zero = arith.constant 0.0 : f32
...   %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
...     %x = memref.load %buf[%i] : memref<?xf32>
...     %next = arith.addf %acc, %x : f32
...     scf.yield %next : f32
...   }
...   return %s : f32
... }''')
>>> loop = module.body.first_op.entry_block.ops[3]
>>> type(loop).__name__, [a.type for a in loop.region_iter_args]
('ForOp', [FloatType(name='f32')])
"""

from __future__ import annotations

from tinycomp.dialects.scf.control import YIELD_PARENTS, ExecuteRegionOp, IfOp, YieldOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.scf.parallel import ParallelOp, ReduceOp, ReduceReturnOp
from tinycomp.dialects.scf.while_op import ConditionOp, WhileOp
from tinycomp.ir.registry import Dialect, register_dialect

SCF = Dialect(
    "scf",
    (
        ForOp, IfOp, WhileOp, ConditionOp, YieldOp, ParallelOp, ReduceOp, ReduceReturnOp,
        ExecuteRegionOp,
    ),
)  # fmt: skip
"""The scf dialect (registered on import)."""
register_dialect(SCF)

__all__ = [
    "SCF", "YIELD_PARENTS", "ConditionOp", "ExecuteRegionOp", "ForOp", "IfOp", "ParallelOp",
    "ReduceOp", "ReduceReturnOp", "WhileOp", "YieldOp",
]  # fmt: skip
