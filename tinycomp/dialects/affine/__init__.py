"""The affine dialect's ops: loops, conditions and memory accesses whose index
arithmetic is affine maps (the maps themselves live in ``tinycomp.affine``).

This module registers the dialect and re-exports its op classes, which live in files by
role: ``affine_for.py`` (``affine.for``, ``affine.yield``), ``affine_if.py``
(``affine.if``),
``affine_memory.py`` (``affine.load``, ``affine.store``) and ``affine_apply.py``
(``affine.apply``, ``affine.min``, ``affine.max``). ``affine_ssa.py`` prints and parses
maps written with SSA names (``%A[%i + 1]``, ``#map(%i)[%n]``); ``affine_operands.py``
says which values may be a map's dimensions and symbols.

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @shift(%A: memref<16xf32>, %B: memref<16xf32>) {
...   affine.for %i = 0 to 15 {
...     %x = affine.load %A[%i + 1] : memref<16xf32>
...     affine.store %x, %B[%i] : memref<16xf32>
...   }
...   return
... }''')
>>> loop = module.body.first_op.entry_block.first_op
>>> print(loop.upper_bound_map, loop.body.first_op.map)
() -> (15) (d0) -> (d0 + 1)
"""

from __future__ import annotations

from tinycomp.dialects.affine.apply import AffineApplyOp, AffineMaxOp, AffineMinOp
from tinycomp.dialects.affine.for_op import AffineForOp, AffineYieldOp
from tinycomp.dialects.affine.if_op import AffineIfOp
from tinycomp.dialects.affine.memory import AffineLoadOp, AffineStoreOp
from tinycomp.ir.registry import Dialect, register_dialect

AFFINE = Dialect(
    "affine",
    (
        AffineForOp, AffineIfOp, AffineYieldOp, AffineLoadOp, AffineStoreOp, AffineApplyOp,
        AffineMinOp, AffineMaxOp,
    ),
)  # fmt: skip
"""The affine dialect (registered on import)."""
register_dialect(AFFINE)

__all__ = [
    "AFFINE", "AffineApplyOp", "AffineForOp", "AffineIfOp", "AffineLoadOp", "AffineMaxOp",
    "AffineMinOp", "AffineStoreOp", "AffineYieldOp",
]  # fmt: skip
