"""memref to LLVM: loads, stores and views, all through the descriptor.

A memref is a descriptor (``descriptor.py``): pointers, offset, sizes and strides.
Accesses compute an address from it; views compute a new descriptor from it and emit
no memory operation at all (MLIR's ``-finalize-memref-to-llvm`` does the same):

1. ``memref.load`` / ``memref.store``: element address ``aligned + offset +
   sum(index_d * stride_d)`` (one ``getelementptr``), then ``load`` / ``store``
   aligned to the element size.
2. ``memref.subview``: same pointers; ``offset += sum(offset_d * stride_d)``,
   ``stride_d *= step_d``, ``size_d = size``; dimensions of size 1 that the result
   type drops (a rank-reducing subview) disappear from the lists.
3. ``memref.reinterpret_cast``: same pointers, offset, sizes and strides as written.
4. ``memref.cast``: the same descriptor seen through the new type (whatever the new
   type knows statically becomes a constant).
5. ``memref.collapse_shape``: each group of dimensions becomes one, of size the
   product and of stride the innermost dimension's (the group is contiguous).
   ``memref.expand_shape``: each dimension becomes its group; the innermost new
   dimension keeps the stride, each outer one multiplies by the sizes inside it.
6. ``memref.dim`` / ``memref.rank``: read a size / the rank (a constant).

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> text = emit_llvm(parse('''func.func @get(%A: memref<4x8xf32>, %i: index, %j: index) -> f32 {
...   %v = memref.load %A[%i, %j] : memref<4x8xf32>
...   return %v : f32
... }''')).text
>>> print("\\n".join(text.splitlines()[2:5]))
  %i.8 = mul nsw i64 %i, 8
  %i.8.plus = add nsw i64 %i.8, %j
  %ptr = getelementptr inbounds float, ptr %A.aligned, i64 %i.8.plus
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.codegen.llvm import index_math
from tinycomp.codegen.llvm.descriptor import MemRefDescriptor
from tinycomp.codegen.llvm.emit_arith import result_name
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.codegen.llvm.types import element_size
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, MemRefType
from tinycomp.ir.values import Value

__all__ = ["dropped_dimensions"]


def mixed_text(em: FunctionEmitter, entry: int | Value) -> str:
    """The text of a static-or-dynamic offset, size or stride."""
    return str(entry) if isinstance(entry, int) else em.value(entry)


def new_descriptor(
    em: FunctionEmitter,
    result_type: MemRefType,
    source: MemRefDescriptor,
    offset: str,
    sizes: list[str],
    strides: list[str],
) -> MemRefDescriptor:
    """A view of ``source``'s buffer with a new offset, sizes and strides."""
    return MemRefDescriptor.with_static_fields(
        result_type, em.llvm_type(result_type), source.allocated, source.aligned, offset, sizes,
        strides,
    )  # fmt: skip


@register_emitter("memref.load")
def emit_load(em: FunctionEmitter, op: Operation) -> None:
    """Step 1: ``load T, ptr %address, align <element size>``."""
    memref, *indices = op.operands
    type_, align = em.llvm_type(op.result.type), element_size(op.result.type)
    hint = op.result.name_hint or "load"
    em.bind(op.result, em.load(memref, [em.value(i) for i in indices], type_, align, hint))


@register_emitter("memref.store")
def emit_store(em: FunctionEmitter, op: Operation) -> None:
    """Step 1: ``store T %value, ptr %address, align <element size>``."""
    value, memref, *indices = op.operands
    type_, align = em.llvm_type(value.type), element_size(value.type)
    em.store(em.value(value), type_, memref, [em.value(i) for i in indices], align)


def dropped_dimensions(sizes: Sequence[int | None], result_shape: Sequence[int | None]) -> set[int]:
    """The dimensions a rank-reducing subview drops: walking the sizes left to right,
    a size equal to the next result size is kept, any other size must be 1 and is
    dropped (MLIR's ``computeRankReductionMask``).

    >>> sorted(dropped_dimensions([1, 4, 1, 8], [4, 8])), sorted(dropped_dimensions([4, 8], [4, 8]))
    ([0, 2], [])
    """
    dropped: set[int] = set()
    position = 0
    for dim, size in enumerate(sizes):
        if position < len(result_shape) and size == result_shape[position]:
            position += 1
        elif size == 1:
            dropped.add(dim)
        else:
            break
    if position != len(result_shape) or len(dropped) != len(sizes) - len(result_shape):
        raise ValueError(
            f"cannot match the subview sizes {list(sizes)} to the result shape "
            f"{list(result_shape)} by dropping unit dimensions"
        )
    return dropped


@register_emitter("memref.subview")
def emit_subview(em: FunctionEmitter, op: Operation) -> None:
    """Step 2: the window's descriptor."""
    source = em.memref(op.operands[0])
    offsets = [mixed_text(em, x) for x in op.offsets]
    sizes = [mixed_text(em, x) for x in op.sizes]
    steps = [mixed_text(em, x) for x in op.strides]
    offset = source.offset
    for start, stride in zip(offsets, source.strides, strict=True):
        offset = index_math.add(em, offset, index_math.mul(em, start, stride))
    strides = [index_math.mul(em, s, step) for s, step in zip(source.strides, steps, strict=True)]
    result_type: MemRefType = op.result.type
    try:
        dropped = dropped_dimensions(op.static_list(1), result_type.shape)
    except ValueError as error:
        raise em.op_error(op, str(error)) from None
    kept = [d for d in range(len(sizes)) if d not in dropped]
    descriptor = new_descriptor(
        em, result_type, source, offset, [sizes[d] for d in kept], [strides[d] for d in kept]
    )
    em.bind(op.result, descriptor)


@register_emitter("memref.reinterpret_cast")
def emit_reinterpret_cast(em: FunctionEmitter, op: Operation) -> None:
    """Step 3: offset, sizes and strides as written, over the source's buffer."""
    source = em.memref(op.operands[0])
    (offset,) = [mixed_text(em, x) for x in op.offsets]
    sizes = [mixed_text(em, x) for x in op.sizes]
    strides = [mixed_text(em, x) for x in op.strides]
    em.bind(op.result, new_descriptor(em, op.result.type, source, offset, sizes, strides))


@register_emitter("memref.cast")
def emit_cast(em: FunctionEmitter, op: Operation) -> None:
    """Step 4: the same fields, typed anew."""
    source = em.memref(op.operands[0])
    em.bind(
        op.result,
        new_descriptor(em, op.result.type, source, source.offset, source.sizes, source.strides),
    )


@register_emitter("memref.collapse_shape")
def emit_collapse_shape(em: FunctionEmitter, op: Operation) -> None:
    """Step 5: one dimension per group: product of sizes, innermost stride."""
    source = em.memref(op.operands[0])
    sizes, strides = [], []
    for group in op.reassociation:
        size = "1"
        for dim in group:
            size = index_math.mul(em, size, source.sizes[dim])
        sizes.append(size)
        strides.append(source.strides[group[-1]] if group else "1")
    em.bind(op.result, new_descriptor(em, op.result.type, source, source.offset, sizes, strides))


@register_emitter("memref.expand_shape")
def emit_expand_shape(em: FunctionEmitter, op: Operation) -> None:
    """Step 5: each dimension split into its group; strides grow outward."""
    source = em.memref(op.operands[0])
    result_type: MemRefType = op.result.type
    dynamic = iter(op.operands[1:])
    sizes = [
        str(size) if size is not DYNAMIC else em.value(next(dynamic)) for size in result_type.shape
    ]
    strides = ["1"] * result_type.rank
    for source_dim, group in enumerate(op.reassociation):
        stride = source.strides[source_dim]
        for dim in reversed(group):
            strides[dim] = stride
            stride = index_math.mul(em, stride, sizes[dim])
    em.bind(op.result, new_descriptor(em, result_type, source, source.offset, sizes, strides))


@register_emitter("memref.dim")
def emit_dim(em: FunctionEmitter, op: Operation) -> None:
    """Step 6: the size of one dimension (a chain of ``select`` for a dynamic index)."""
    source = em.memref(op.operands[0])
    index = em.value(op.operands[1])
    if index_math.is_constant(index):
        dim = index_math.constant_value(index)
        if not 0 <= dim < len(source.sizes):
            raise em.op_error(op, f"expected a dimension in [0, {len(source.sizes)}), got {dim}")
        em.bind(op.result, source.sizes[dim])
        return
    chosen = source.sizes[0] if source.sizes else "0"
    for dim in range(1, len(source.sizes)):
        is_dim = em.fresh(f"dim.is{dim}")
        em.emit(f"{is_dim} = icmp eq i64 {index}, {dim}")
        picked = result_name(em, op, "dim")
        em.emit(f"{picked} = select i1 {is_dim}, i64 {source.sizes[dim]}, i64 {chosen}")
        chosen = picked
    em.bind(op.result, chosen)


@register_emitter("memref.rank")
def emit_rank(em: FunctionEmitter, op: Operation) -> None:
    """Step 6: the rank is in the type."""
    em.bind(op.result, str(op.operands[0].type.rank))
