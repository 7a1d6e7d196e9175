"""vector loads and stores on a GPU: in the memref's address space, aligned as a float4.

On a GPU, ``vector.load`` of a ``vector<4xf32>`` is CUDA's ``float4`` load: one
``ld.global.v4.f32`` moves 16 bytes per thread (LLVM 22 writes it ``ld.global.v4.b32``:
its NVPTX backend gives loads and stores untyped ``.b`` suffixes). What differs from the
CPU emitter (``codegen/llvm/emit_vector.py``):

1. The pointer is in the memref's address space (``ptr addrspace(1)`` for global
   memory, ``ptr addrspace(3)`` for shared memory), not the generic ``ptr``.
2. The alignment is the whole vector's size (16 bytes for ``vector<4xf32>``) unless the
   op says otherwise with ``alignment``. That is CUDA's contract for ``float4``:
   ``reinterpret_cast<float4*>(&a[i])`` requires ``&a[i]`` to be a multiple of 16, and
   a misaligned vector access is a fault on the GPU. LLVM's NVPTX backend emits one
   vector load only for a 16-byte aligned ``<4 x float>``; aligned to 4 bytes, it
   splits it into four scalar loads.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.gpu import NVPTXHooks, emit_device_llvm
>>> text = emit_device_llvm(parse('''gpu.module @m {
...   gpu.func @k(%x: memref<8xf32>) kernel {
...     %c4 = arith.constant 4 : index
...     %v = vector.load %x[%c4] : memref<8xf32>, vector<4xf32>
...     vector.store %v, %x[%c4] : memref<8xf32>, vector<4xf32>
...     gpu.return
...   }
... }'''), NVPTXHooks()).text
>>> lines = [line.strip() for line in text.splitlines() if "x float>" in line]
>>> lines  # doctest: +NORMALIZE_WHITESPACE
['%v = load <4 x float>, ptr addrspace(1) %ptr, align 16',
 'store <4 x float> %v, ptr addrspace(1) %ptr.1, align 16']
"""

from __future__ import annotations

from tinycomp.codegen.gpu.device_function import register_device_emitter
from tinycomp.codegen.llvm.registry import FunctionEmitter
from tinycomp.codegen.llvm.types import element_size
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import VectorType

__all__ = ["vector_alignment"]


def vector_alignment(op: Operation, vector_type: VectorType) -> int:
    """Step 2: the op's ``alignment``, else the vector's size in bytes.

    >>> from tinycomp.ir import f16
    >>> vector_alignment(None, VectorType((8,), f16))
    16
    """
    attribute = op.attributes.get("alignment") if op is not None else None
    if isinstance(attribute, IntegerAttr):
        return attribute.value
    return element_size(vector_type)


def _vector_type(em: FunctionEmitter, op: Operation, t) -> str:
    if not isinstance(t, VectorType) or len(t.shape) != 1:
        raise em.op_error(op, f"expected a 1-D vector, got {t}")
    return em.llvm_type(t)


@register_device_emitter("vector.load")
def emit_load(em: FunctionEmitter, op: Operation) -> None:
    """``load <N x T>, ptr addrspace(S) <address of lane 0>, align <vector size>``."""
    memref, *indices = op.operands
    vector_type = op.results[0].type
    type_ = _vector_type(em, op, vector_type)
    result = em.fresh(op.results[0].name_hint or "vload")
    descriptor = em.memref(memref)
    address = em.element_pointer(descriptor, [em.value(i) for i in indices])
    align = vector_alignment(op, vector_type)
    em.emit(f"{result} = load {type_}, {descriptor.pointer} {address}, align {align}")
    em.bind(op.results[0], result)


@register_device_emitter("vector.store")
def emit_store(em: FunctionEmitter, op: Operation) -> None:
    """``store <N x T> %v, ptr addrspace(S) <address of lane 0>, align <vector size>``."""
    value, memref, *indices = op.operands
    type_ = _vector_type(em, op, value.type)
    descriptor = em.memref(memref)
    address = em.element_pointer(descriptor, [em.value(i) for i in indices])
    align = vector_alignment(op, value.type)
    em.emit(f"store {type_} {em.value(value)}, {descriptor.pointer} {address}, align {align}")


@register_device_emitter("vector.from_elements")
def emit_from_elements(em: FunctionEmitter, op: Operation) -> None:
    """A 1-D vector from its lanes: ``insertelement`` lane by lane into ``poison``."""
    type_ = _vector_type(em, op, op.results[0].type)
    element = em.llvm_type(op.results[0].type.element_type)
    vector = "poison"
    for lane, value in enumerate(op.operands):
        built = em.fresh(op.results[0].name_hint or "vec")
        lane_value = f"{element} {em.value(value)}"
        em.emit(f"{built} = insertelement {type_} {vector}, {lane_value}, i64 {lane}")
        vector = built
    em.bind(op.results[0], vector)
