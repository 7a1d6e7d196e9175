"""memref atomics to LLVM: ``atomicrmw`` and the compare-and-swap loop.

1. ``memref.atomic_rmw``: LLVM's ``atomicrmw <op> ptr addrspace(N) %p, T %v monotonic``
   on the element's address, in the memref's address space (``atom.global.add.f32`` or
   ``atom.shared.add.u32`` in PTX). ``monotonic`` is C++'s *relaxed*: the update is
   atomic but orders no other access, as CUDA's ``atomicAdd`` is. The result is the
   value the element had before. ``mulf`` and ``muli`` have no ``atomicrmw``: they
   become the loop of step 2.
2. ``memref.generic_atomic_rmw`` (and the multiplications): a compare-and-swap loop,
   MLIR's lowering too::

       entry:  %first = load atomic T, ptr %p monotonic
       loop:   %seen = phi T [%first, entry], [%now, loop]
               %new  = <the region, with %seen as its argument>
               %pair = cmpxchg ptr %p, iN %seen, iN %new monotonic monotonic
               %now  = the value found; %ok = whether it was %seen
               br i1 %ok, label %done, label %loop

   A float is compared by its bits (``cmpxchg`` takes integers), so a NaN that is
   unchanged still counts as unchanged. The result is ``%seen``, the value replaced.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.gpu import NVPTXHooks, emit_device_llvm
>>> text = emit_device_llvm(parse('''gpu.module @m {
...   gpu.func @k(%h: memref<8xf32>, %v: f32) kernel {
...     %c0 = arith.constant 0 : index
...     %old = memref.atomic_rmw addf %v, %h[%c0] : (f32, memref<8xf32>) -> f32
...     gpu.return
...   }
... }'''), NVPTXHooks()).text
>>> [line.strip() for line in text.splitlines() if "atomicrmw" in line]
['%old = atomicrmw fadd ptr addrspace(1) %ptr, float %v monotonic, align 4']
"""

from __future__ import annotations

from collections.abc import Callable

from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.codegen.llvm.types import element_size
from tinycomp.ir.operation import Operation

__all__: list[str] = []  # the module registers emitters; it exports nothing

ATOMICRMW_OPS = {
    "addf": "fadd", "addi": "add", "andi": "and", "assign": "xchg", "maximumf": "fmaximum",
    "maxnumf": "fmax", "maxs": "max", "maxu": "umax", "minimumf": "fminimum",
    "minnumf": "fmin", "mins": "min", "minu": "umin", "ori": "or", "xori": "xor",
}  # fmt: skip
"""``memref.atomic_rmw`` kinds and LLVM's ``atomicrmw`` operation for each (step 1)."""
_MULTIPLY = {"mulf": "fmul", "muli": "mul"}
_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8}


@register_emitter("memref.atomic_rmw")
def emit_atomic_rmw(em: FunctionEmitter, op: Operation) -> None:
    """Step 1 (``mulf``/``muli``: step 2 with one multiplication as the region)."""
    memref, value = op.memref, em.value(op.value)
    type_ = em.llvm_type(op.value.type)
    descriptor = em.memref(memref)
    address = em.element_pointer(descriptor, [em.value(i) for i in op.indices])
    if op.kind in _MULTIPLY:

        def multiply(seen: str) -> str:
            product = em.fresh("product")
            em.emit(f"{product} = {_MULTIPLY[op.kind]} {type_} {seen}, {value}")
            return product

        em.bind(op.result, cas_loop(em, descriptor.pointer, address, type_, multiply))
        return
    result = em.fresh(op.result.name_hint or "old")
    align = element_size(op.value.type)
    em.emit(
        f"{result} = atomicrmw {ATOMICRMW_OPS[op.kind]} {descriptor.pointer} {address}, "
        f"{type_} {value} monotonic, align {align}"
    )
    em.bind(op.result, result)


@register_emitter("memref.generic_atomic_rmw")
def emit_generic_atomic_rmw(em: FunctionEmitter, op: Operation) -> None:
    """Step 2: the region computes the new value from the one read."""
    memref, *indices = op.operands
    descriptor = em.memref(memref)
    address = em.element_pointer(descriptor, [em.value(i) for i in indices])
    type_ = em.llvm_type(memref.type.element_type)
    (body,) = op.regions[0].blocks

    def region(seen: str) -> str:
        em.bind(body.arguments[0], seen)
        terminator = em.emit_block(body)
        if terminator is None or terminator.name != "memref.atomic_yield":
            raise em.op_error(op, "expected the region to end in memref.atomic_yield")
        return em.value(terminator.operands[0])

    em.bind(op.result, cas_loop(em, descriptor.pointer, address, type_, region))


def cas_loop(
    em: FunctionEmitter, pointer: str, address: str, type_: str, new_value: Callable[[str], str]
) -> str:
    """Step 2's loop at ``address`` (of LLVM type ``pointer``): ``new_value(seen)`` emits
    the new value's computation; returns the value that was replaced."""
    bits = {"half": "i16", "bfloat": "i16", "float": "i32", "double": "i64"}.get(type_, type_)
    align = _BYTES.get(bits, 8)
    first = em.fresh("atomic.first")
    em.emit(f"{first} = load atomic {type_}, {pointer} {address} monotonic, align {align}")
    entry = em.current_label
    loop, done = em.fresh_label("atomic.loop"), em.fresh_label("atomic.done")
    em.emit(f"br label %{loop}")
    em.start_block(loop)
    seen = em.fresh("atomic.seen")
    em.add_phi(loop, seen, type_)
    em.add_incoming(seen, first, entry)
    new = new_value(seen)
    seen_bits, new_bits = _as_bits(em, type_, bits, seen), _as_bits(em, type_, bits, new)
    pair, now_bits, ok = em.fresh("atomic.pair"), em.fresh("atomic.now"), em.fresh("atomic.ok")
    swap = f"{bits} {seen_bits}, {bits} {new_bits}"
    em.emit(f"{pair} = cmpxchg {pointer} {address}, {swap} monotonic monotonic")
    em.emit(f"{now_bits} = extractvalue {{ {bits}, i1 }} {pair}, 0")
    em.emit(f"{ok} = extractvalue {{ {bits}, i1 }} {pair}, 1")
    now = now_bits
    if bits != type_:
        now = em.fresh("atomic.now")
        em.emit(f"{now} = bitcast {bits} {now_bits} to {type_}")
    em.add_incoming(seen, now, em.current_label)
    em.emit(f"br i1 {ok}, label %{done}, label %{loop}")
    em.start_block(done)
    return seen


def _as_bits(em: FunctionEmitter, type_: str, bits: str, value: str) -> str:
    """``value`` as the integer ``cmpxchg`` compares (a float's bits)."""
    if bits == type_:
        return value
    cast = em.fresh("atomic.bits")
    em.emit(f"{cast} = bitcast {type_} {value} to {bits}")
    return cast
