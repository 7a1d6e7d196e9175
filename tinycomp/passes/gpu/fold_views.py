"""Views folded into the accesses: a kernel body of plain loads and stores.

Bufferization leaves windows of buffers (``memref.subview``), their sizes
(``memref.dim``) and whole-buffer copies (``memref.copy``). A GPU thread has none of
these: it has addresses. So a kernel body is rewritten to index the underlying buffers
directly, as MLIR's ``-fold-memref-alias-ops`` does for subviews and
``-convert-linalg-to-loops`` for a copy (``linalg.copy``):

1. Each ``memref.copy %src, %dst`` becomes a loop nest over ``%dst``'s shape that loads
   from ``%src`` and stores to ``%dst`` (the same indices in both).
2. Each ``memref.dim`` of a view whose size is known becomes that size: the constant of
   a static dimension, or the size operand of the ``memref.subview`` that made it.
3. A load or store through ``%v = memref.subview %A[o...] [s...] [t...]`` at indices
   ``i...`` becomes the same access to ``%A`` at ``o + i * t`` per dimension (repeated
   until no access goes through a subview: views of views fold one level at a time).
4. The views no one reads any more are erased.

A rank-reducing subview (one that drops unit dimensions) is not folded: ``PassError``.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%a: memref<8x8xf32>, %i: index) -> f32 {
...   %c1 = arith.constant 1 : index
...   %v = memref.subview %a[%i, 2] [2, 4] [1, 1]
...       : memref<8x8xf32> to memref<2x4xf32, strided<[8, 1], offset: ?>>
...   %x = memref.load %v[%c1, %c1] : memref<2x4xf32, strided<[8, 1], offset: ?>>
...   return %x : f32 }''')
>>> fold_views(m)
>>> print(m.body.first_op.entry_block.ops[-2])
%x = memref.load %a[%0, %1] : memref<8x8xf32>
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.binary import AddIOp, MulIOp
from tinycomp.dialects.memref.access import CopyOp, DimOp, LoadOp, StoreOp
from tinycomp.dialects.memref.view import SubViewOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, MemRefType, index
from tinycomp.ir.values import Value
from tinycomp.passes.errors import PassError
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["fold_views"]


def _index(value: Value | int, rewriter: PatternRewriter) -> Value:
    """An index value for ``value``: itself, or a new ``arith.constant``."""
    if isinstance(value, Value):
        return value
    return rewriter.insert(ConstantOp.build(value, index)).result


def _copy_as_loops(copy: CopyOp, rewriter: PatternRewriter) -> None:
    """Step 1: ``memref.copy`` as a loop nest of loads and stores."""
    target_type = copy.target.type
    assert isinstance(target_type, MemRefType)
    rewriter.set_current_op(copy)
    zero, one = _index(0, rewriter), _index(1, rewriter)
    uppers = [
        rewriter.insert(DimOp.build(copy.target, _index(d, rewriter))).result
        if size == DYNAMIC
        else _index(size, rewriter)
        for d, size in enumerate(target_type.shape)
    ]
    indices: list[Value] = []
    builder: Builder | PatternRewriter = rewriter
    for upper in uppers:
        loop = builder.insert(ForOp.build(zero, upper, one))
        indices.append(loop.induction_var)
        builder = Builder.before(loop.body.terminator)
    value = builder.insert(LoadOp.build(copy.source, indices)).result
    builder.insert(StoreOp.build(value, copy.target, indices))
    rewriter.erase_op(copy)


def _known_size(dim: DimOp) -> Value | int | None:
    """Step 2: the size ``dim`` reads, when the IR states it."""
    source_type = dim.operands[0].type
    position = dim.dimension.defining_op()
    if not isinstance(position, ConstantOp) or not isinstance(source_type, MemRefType):
        return None
    which = int(position.value.value)
    if source_type.shape[which] != DYNAMIC:
        return source_type.shape[which]
    view = dim.operands[0].defining_op()
    if isinstance(view, SubViewOp) and len(view.sizes) == len(source_type.shape):
        return view.sizes[which]
    return None


def _folded_indices(
    view: SubViewOp, indices: Sequence[Value], rewriter: PatternRewriter
) -> list[Value]:
    """Step 3: ``offset + index * stride`` in each dimension of ``view``'s source."""
    source_type, view_type = view.source.type, view.results[0].type
    assert isinstance(source_type, MemRefType) and isinstance(view_type, MemRefType)
    if len(source_type.shape) != len(view_type.shape):
        raise PassError(
            f"cannot fold the rank-reducing memref.subview to {view_type} into its accesses: "
            f"expected a view of the source's rank {len(source_type.shape)}"
        )
    folded = []
    for offset, stride, position in zip(view.offsets, view.strides, indices, strict=True):
        scaled = position
        if stride != 1:
            scaled = rewriter.insert(MulIOp.build(position, _index(stride, rewriter))).result
        if offset != 0:
            scaled = rewriter.insert(AddIOp.build(_index(offset, rewriter), scaled)).result
        folded.append(scaled)
    return folded


def fold_views(root: Operation) -> None:
    """Steps 1-4 on the ops nested in ``root`` (see the module docstring)."""
    rewriter = PatternRewriter()
    for copy in [op for op in root.walk() if isinstance(op, CopyOp)]:
        _copy_as_loops(copy, rewriter)
    for dim in [op for op in root.walk() if isinstance(op, DimOp)]:
        size = _known_size(dim)
        if size is not None:
            rewriter.set_current_op(dim)
            rewriter.replace_op(dim, [_index(size, rewriter)])
    while True:
        accesses = [
            op
            for op in root.walk()
            if isinstance(op, LoadOp | StoreOp) and isinstance(op.memref.defining_op(), SubViewOp)
        ]
        if not accesses:
            break
        for access in accesses:
            view = access.memref.defining_op()
            assert isinstance(view, SubViewOp)
            rewriter.set_current_op(access)
            indices = _folded_indices(view, access.indices, rewriter)
            if isinstance(access, LoadOp):
                load = LoadOp.build(view.source, indices)
                load.result.name_hint = access.result.name_hint
                rewriter.replace_op_with_new(access, load)
            else:
                rewriter.replace_op_with_new(
                    access, StoreOp.build(access.value, view.source, indices)
                )
    for view in reversed([op for op in root.walk() if isinstance(op, SubViewOp)]):
        if not view.results[0].users:
            rewriter.erase_op(view)
