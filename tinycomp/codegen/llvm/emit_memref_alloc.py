"""memref to LLVM: allocation, deallocation and copies.

1. ``memref.alloc``: ``malloc(bytes)`` from the C library, ``bytes = product(sizes) *
   element size``; with ``{alignment = A}``, ``aligned_alloc(A, bytes rounded up to A)``
   (MLIR's ``use-aligned-alloc`` lowering; its default instead over-allocates with
   ``malloc`` and rounds the pointer up, which is why the descriptor has two pointers).
   The descriptor: both pointers the result, offset 0, row-major strides.
2. ``memref.alloca``: ``alloca`` on the stack, freed when the function returns (in a
   loop each iteration takes more stack: MLIR has ``memref.alloca_scope`` for that).
3. ``memref.dealloc``: ``free(allocated)``: the *allocated* pointer, not the aligned one.
4. ``memref.copy``: when both sides are contiguous (identity layouts), one
   ``llvm.memcpy`` of the whole buffer; otherwise a loop nest of loads and stores over
   the shape (MLIR calls a generic runtime function, ``memrefCopy``, instead).

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> text = emit_llvm(parse('''func.func @f(%n: index) {
...   %a = memref.alloc(%n) : memref<?x8xf32>
...   memref.dealloc %a : memref<?x8xf32>
...   return
... }''')).text
>>> print("\\n".join(text.splitlines()[5:9]))
  %n.8 = mul nsw i64 %n, 8
  %bytes = mul nsw i64 %n.8, 4
  %a = call ptr @malloc(i64 %bytes)
  call void @free(ptr %a)
"""

from __future__ import annotations

from tinycomp.codegen.llvm import index_math
from tinycomp.codegen.llvm.control_flow import counted_loop
from tinycomp.codegen.llvm.descriptor import MemRefDescriptor
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.codegen.llvm.types import element_size
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, MemRefType

__all__: list[str] = []  # the module registers emitters; it exports nothing


def row_major_strides(em: FunctionEmitter, sizes: list[str]) -> list[str]:
    """Strides of a contiguous row-major buffer of these sizes (operand texts)."""
    strides = ["1"] * len(sizes)
    running = "1"
    for dim in reversed(range(len(sizes))):
        strides[dim] = running
        if dim > 0:
            running = index_math.mul(em, running, sizes[dim])
    return strides


def _sizes(em: FunctionEmitter, op: Operation) -> list[str]:
    memref_type: MemRefType = op.result.type
    dynamic = iter(op.operands)
    return [
        str(size) if size is not DYNAMIC else em.value(next(dynamic)) for size in memref_type.shape
    ]


def _count(em: FunctionEmitter, sizes: list[str]) -> str:
    count = "1"
    for size in sizes:
        count = index_math.mul(em, count, size)
    return count


def _check_layout(em: FunctionEmitter, op: Operation) -> MemRefType:
    memref_type: MemRefType = op.result.type
    if memref_type.layout is not None:
        raise em.op_error(op, f"expected an identity layout for a new buffer, got {memref_type}")
    if em.hooks.address_space(memref_type.memory_space) != 0:
        raise em.op_error(op, "expected a buffer in address space 0 (the heap or the stack)")
    return memref_type


def _bind_new_buffer(em: FunctionEmitter, op: Operation, pointer: str, sizes: list[str]) -> None:
    memref_type = op.result.type
    strides = row_major_strides(em, sizes)
    descriptor = MemRefDescriptor.with_static_fields(
        memref_type, em.llvm_type(memref_type), pointer, pointer, "0", sizes, strides
    )
    em.bind(op.result, descriptor)


def _bytes(em: FunctionEmitter, count: str, size: int) -> str:
    if index_math.is_constant(count):
        return str(int(count) * size)
    total = em.fresh("bytes")
    em.emit(f"{total} = mul nsw i64 {count}, {size}")
    return total


@register_emitter("memref.alloc")
def emit_alloc(em: FunctionEmitter, op: Operation) -> None:
    """Step 1: ``malloc`` (or ``aligned_alloc`` with an ``alignment``)."""
    memref_type = _check_layout(em, op)
    sizes = _sizes(em, op)
    size = element_size(memref_type.element_type)
    total = _bytes(em, _count(em, sizes), size)
    alignment = op.attributes.get("alignment")
    name = op.result.name_hint or "alloc"
    if alignment is None:
        pointer = em.call(em.intrinsic("malloc", "ptr", ["i64"]), "ptr", [("i64", total)], name)
    else:
        align = int(alignment.value)
        rounded = index_math.mul(
            em, _ceil_div(em, total, align), str(align)
        )  # aligned_alloc wants a multiple of the alignment
        callee = em.intrinsic("aligned_alloc", "ptr", ["i64", "i64"])
        pointer = em.call(callee, "ptr", [("i64", str(align)), ("i64", rounded)], name)
    _bind_new_buffer(em, op, pointer, sizes)


def _ceil_div(em: FunctionEmitter, total: str, align: int) -> str:
    if index_math.is_constant(total):
        return str(-(-int(total) // align))
    bumped = index_math.add(em, total, str(align - 1))
    result = em.fresh("blocks")
    em.emit(f"{result} = udiv i64 {bumped}, {align}")
    return result


@register_emitter("memref.alloca")
def emit_alloca(em: FunctionEmitter, op: Operation) -> None:
    """Step 2: ``alloca T, i64 count`` on the stack."""
    memref_type = _check_layout(em, op)
    sizes = _sizes(em, op)
    element = em.llvm_type(memref_type.element_type)
    alignment = op.attributes.get("alignment")
    align = (
        int(alignment.value) if alignment is not None else element_size(memref_type.element_type)
    )
    pointer = em.fresh(op.result.name_hint or "alloca")
    em.emit(f"{pointer} = alloca {element}, i64 {_count(em, sizes)}, align {align}")
    _bind_new_buffer(em, op, pointer, sizes)


@register_emitter("memref.dealloc")
def emit_dealloc(em: FunctionEmitter, op: Operation) -> None:
    """Step 3: ``free`` the allocated pointer."""
    descriptor = em.memref(op.operands[0])
    free = em.intrinsic("free", "void", ["ptr"])
    em.call(free, "void", [("ptr", descriptor.allocated)])


@register_emitter("memref.copy")
def emit_copy(em: FunctionEmitter, op: Operation) -> None:
    """Step 4: ``llvm.memcpy`` when both are contiguous, else a loop nest."""
    source_value, target_value = op.operands
    source, target = em.memref(source_value), em.memref(target_value)
    element_type = source_value.type.element_type
    if source_value.type.layout is None and target_value.type.layout is None:
        total = _bytes(em, _count(em, source.sizes), element_size(element_type))
        memcpy = em.intrinsic("llvm.memcpy.p0.p0.i64", "void", ["ptr", "ptr", "i64", "i1"])
        em.call(
            memcpy,
            "void",
            [("ptr", target.aligned), ("ptr", source.aligned), ("i64", total), ("i1", "false")],
        )
        return
    type_ = em.llvm_type(element_type)
    align = element_size(element_type)

    def nest(dim: int, indices: list[str]) -> None:
        if dim == len(source.sizes):
            value = em.load(source, indices, type_, align, "copy.value")
            em.store(value, type_, target, indices, align)
            return

        def body(iv: str, carried: list[str]) -> list[str]:
            nest(dim + 1, [*indices, iv])
            return []

        counted_loop(em, "0", source.sizes[dim], "1", [], body, iv_hint=f"copy.i{dim}")

    nest(0, [])
