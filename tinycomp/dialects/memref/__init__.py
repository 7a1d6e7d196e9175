"""The memref dialect: buffers in memory, and views of them.

This module registers the dialect and re-exports its op classes, which live in files by
role: ``memref_alloc.py`` (alloc, alloca, dealloc, global, get_global),
``memref_access.py`` (load, store, copy, dim, rank), ``memref_view.py`` (subview,
reinterpret_cast), ``memref_cast.py`` (cast, view) and ``memref_reshape.py``
(collapse_shape, expand_shape) and ``atomic.py`` (atomic_rmw, generic_atomic_rmw,
atomic_yield).
``memref_layout.py`` computes view result types. What memref shares with tensor lives in
files of its own: ``mixed_indices.py`` (the mixed static/dynamic ``[%i, 4]`` lists),
``offsets_sizes_strides.py`` (subview's window), ``reassociation.py`` (the reshapes),
``shaped_ops.py`` (dim, cast) and ``common_syntax.py`` (``%A[%i, %j]``).

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @tile(%A: memref<64x64xf32, 1>, %i: index) -> f32 {
...   %t = memref.subview %A[%i, 0] [4, 4] [1, 1]
...       : memref<64x64xf32, 1> to memref<4x4xf32, strided<[64, 1], offset: ?>, 1>
...   %x = memref.load %t[%i, %i] : memref<4x4xf32, strided<[64, 1], offset: ?>, 1>
...   return %x : f32
... }''')
>>> print(module.body.first_op.entry_block.first_op.result.type)
memref<4x4xf32, strided<[64, 1], offset: ?>, 1>
"""

from __future__ import annotations

from tinycomp.dialects.memref.access import CopyOp, DimOp, LoadOp, RankOp, StoreOp
from tinycomp.dialects.memref.alloc import AllocaOp, AllocOp, DeallocOp, GetGlobalOp, GlobalOp
from tinycomp.dialects.memref.atomic import AtomicRMWOp, AtomicYieldOp, GenericAtomicRMWOp
from tinycomp.dialects.memref.cast import CastOp, ViewOp
from tinycomp.dialects.memref.reshape import CollapseShapeOp, ExpandShapeOp
from tinycomp.dialects.memref.view import ReinterpretCastOp, SubViewOp
from tinycomp.ir.registry import Dialect, register_dialect

MEMREF = Dialect(
    "memref",
    (
        AllocOp, AllocaOp, DeallocOp, GlobalOp, GetGlobalOp, LoadOp, StoreOp, CopyOp, DimOp,
        RankOp, SubViewOp, ReinterpretCastOp, ViewOp, CastOp, CollapseShapeOp, ExpandShapeOp,
        AtomicRMWOp, GenericAtomicRMWOp, AtomicYieldOp,
    ),
)  # fmt: skip
"""The memref dialect (registered on import)."""
register_dialect(MEMREF)

__all__ = [
    "MEMREF", "AllocOp", "AllocaOp", "AtomicRMWOp", "AtomicYieldOp", "CastOp",
    "CollapseShapeOp", "CopyOp", "DeallocOp", "DimOp", "ExpandShapeOp", "GenericAtomicRMWOp",
    "GetGlobalOp", "GlobalOp", "LoadOp", "RankOp", "ReinterpretCastOp", "StoreOp", "SubViewOp",
    "ViewOp",
]  # fmt: skip
