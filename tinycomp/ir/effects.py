"""Memory effects: what an op does to memory (MLIR's ``MemoryEffectOpInterface``).

An op on *values* (``arith.addf``, ``linalg.generic`` on tensors, ``tensor.insert``)
touches no memory: moving it, merging it with a twin or deleting it when unused is
always safe. An op on *buffers* reads or writes the memory behind a memref, and a
pass that moves it must know which memory. ``memory_effects(op)`` lists that, one
``MemoryEffect`` per (kind, buffer):

=================================  =========================================================
op                                 effects
=================================  =========================================================
pure ops (``arith``, ``math``,     none
``tensor``, memref views)
``memref.alloc`` / ``alloca``      allocate the result
``memref.dealloc``                 free the operand
``memref.load``, ``affine.load``   read the memref
``memref.store``, ``affine.store`` write the memref
``memref.copy``                    read the source, write the target
linalg on memrefs                  read every ``ins`` buffer, read an ``outs`` buffer when
                                   the payload uses its element, write every ``outs``
``scf.for``, ``scf.if``,           the effects of the ops inside (MLIR's
``affine.for``...                  ``RecursiveMemoryEffects``)
``func.call``, unregistered ops    **unknown**: read and write any memory (``value=None``)
=================================  =========================================================

Unknown is conservative on purpose: an op this table does not describe may do
anything, so ``may_write(op, buffer)`` says yes for every buffer.

Views (``memref.subview``, ``cast``, ``collapse_shape``...) have no effect themselves,
but they *alias* their source: a store through the view writes the source's memory.
``may_alias`` follows views back to the buffer they came from.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%A: memref<4xf32>, %i: index) {
...   %x = memref.load %A[%i] : memref<4xf32>
...   %y = arith.addf %x, %x : f32
...   memref.store %y, %A[%i] : memref<4xf32>
...   return
... }''')
>>> load, add, store, _ = m.body.first_op.entry_block.ops
>>> [str(e) for e in memory_effects(load)], is_pure(add), may_write(store, load.operands[0])
(['read %A'], True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tinycomp.ir.operation import Operation
from tinycomp.ir.registry import lookup_op_class
from tinycomp.ir.types import MemRefType
from tinycomp.ir.values import BlockArgument, Value

__all__ = [
    "MEMREF_VIEW_OPS",
    "MemoryEffect",
    "has_unknown_effects",
    "is_pure",
    "may_alias",
    "may_read",
    "may_write",
    "memory_effects",
    "underlying_buffer",
]

EffectKind = Literal["read", "write", "allocate", "free"]
"""What an op does to a buffer."""


@dataclass(frozen=True)
class MemoryEffect:
    """One effect: ``kind`` on the buffer ``value`` (``None``: unknown, any memory)."""

    kind: EffectKind
    """``"read"``, ``"write"``, ``"allocate"`` or ``"free"``."""
    value: Value | None
    """The memref affected, or ``None`` when the op may touch any memory."""

    def __str__(self) -> str:
        if self.value is None:
            return f"{self.kind} <any memory>"
        hint = self.value.name_hint
        return f"{self.kind} %{hint}" if hint else f"{self.kind} <{self.value.type}>"


# Ops with effects of their own, by name (views and value ops have none).
_ACCESS = {
    "memref.load": ("read",),
    "affine.load": ("read",),
    "memref.store": ("write",),
    "affine.store": ("write",),
    "vector.load": ("read",),
    "vector.store": ("write",),
}
_ALLOCATING = ("memref.alloc", "memref.alloca")
_REGION_OPS = (
    "scf.for", "scf.if", "scf.while", "scf.parallel", "scf.reduce", "scf.execute_region",
    "affine.for", "affine.if",
)  # fmt: skip
_NO_EFFECT_OPS = (
    "func.func", "builtin.module", "memref.global", "func.return", "cf.br", "cf.cond_br",
)  # fmt: skip
"""Registered ops without ``is_pure`` that still touch no memory: definitions (a
function, a global) and terminators that only pass values along."""
MEMREF_VIEW_OPS = (
    "memref.subview", "memref.cast", "memref.collapse_shape", "memref.expand_shape",
    "memref.reinterpret_cast", "memref.view", "memref.transpose",
)  # fmt: skip
"""Ops whose result views the memory of operand #0 (no effect of their own)."""


def memory_effects(op: Operation) -> list[MemoryEffect]:
    """The memory effects of ``op`` (see the module docstring for the table).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
    ...   memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    ...   return }''')
    >>> [str(e) for e in memory_effects(m.body.first_op.entry_block.first_op)]
    ['read %a', 'write %b']
    """
    from tinycomp.dialects.linalg.base import StructuredOp

    if op.name in _ACCESS:
        memref = op.memref  # load/store ops name their buffer
        return [MemoryEffect(kind, memref) for kind in _ACCESS[op.name]]
    if op.name in _ALLOCATING:
        return [MemoryEffect("allocate", op.results[0])]
    if op.name == "memref.dealloc":
        return [MemoryEffect("free", op.operands[0])]
    if op.name == "memref.copy":
        return [MemoryEffect("read", op.operands[0]), MemoryEffect("write", op.operands[1])]
    if isinstance(op, StructuredOp):
        return _linalg_effects(op)
    if op.name in _REGION_OPS:
        return [effect for nested in _nested_ops(op) for effect in memory_effects(nested)]
    if _has_no_effects(op):
        return []
    return [MemoryEffect("read", None), MemoryEffect("write", None)]


def _has_no_effects(op: Operation) -> bool:
    """Registered as pure, or one of the known effect-free definitions/terminators."""
    registered = lookup_op_class(op.name)
    if registered is None:  # unregistered: unknown
        return False
    return registered.is_pure or op.name in _NO_EFFECT_OPS or op.name in MEMREF_VIEW_OPS


def _linalg_effects(op) -> list[MemoryEffect]:
    """linalg on memrefs reads its ``ins``, reads an ``outs`` buffer whose element the
    payload uses (a reduction, ``C += A * B``), and writes every ``outs`` buffer. On
    tensors it is a value computation: no effect."""
    effects: list[MemoryEffect] = []
    for position, value in enumerate(op.operands):
        if not isinstance(value.type, MemRefType):
            continue
        is_output = position >= op.num_inputs
        if not is_output or op.payload_reads(position):
            effects.append(MemoryEffect("read", value))
    for value in op.outputs:
        if isinstance(value.type, MemRefType):
            effects.append(MemoryEffect("write", value))
    return effects


def _nested_ops(op: Operation) -> list[Operation]:
    """Every op inside ``op``'s regions (not ``op`` itself), direct children first."""
    return [nested for region in op.regions for block in region.blocks for nested in block.ops]


def has_unknown_effects(op: Operation) -> bool:
    """True when some effect of ``op`` (or of an op inside it) is on unknown memory.

    >>> from tinycomp.ir import Operation
    >>> has_unknown_effects(Operation.create("test.op"))
    True
    """
    return any(effect.value is None for effect in memory_effects(op))


def is_pure(op: Operation) -> bool:
    """True when ``op`` has no memory effect at all, nested ops included (a loop that
    only computes scalars is pure; linalg on tensors is pure, on memrefs it is not).

    This differs from the ``Operation.is_pure`` class attribute, which is the trait an
    op class declares ("removable when unused"); ``func.return`` has no memory effect
    but is not removable.

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f(%x: f32) -> f32 { %y = arith.mulf %x, %x : f32 "
    ...           "return %y : f32 }")
    >>> is_pure(m.body.first_op.entry_block.first_op)
    True
    """
    return not memory_effects(op)


def may_read(op: Operation, buffer: Value) -> bool:
    """Whether ``op`` may read the memory of ``buffer`` (or of a buffer aliasing it).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<4xf32>, %i: index) -> f32 {
    ...   %x = memref.load %a[%i] : memref<4xf32>
    ...   return %x : f32 }''')
    >>> f = m.body.first_op
    >>> may_read(f.entry_block.first_op, f.arguments[0])
    True
    """
    return _may_affect(op, buffer, "read")


def may_write(op: Operation, buffer: Value) -> bool:
    """Whether ``op`` may write the memory of ``buffer`` (or of a buffer aliasing it).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%i: index, %v: f32) {
    ...   %a = memref.alloc() : memref<4xf32>
    ...   %b = memref.alloc() : memref<4xf32>
    ...   memref.store %v, %a[%i] : memref<4xf32>
    ...   return }''')
    >>> alloc_a, alloc_b, store, _ = m.body.first_op.entry_block.ops
    >>> may_write(store, alloc_a.result), may_write(store, alloc_b.result)
    (True, False)
    """
    return _may_affect(op, buffer, "write")


def _may_affect(op: Operation, buffer: Value, kind: EffectKind) -> bool:
    for effect in memory_effects(op):
        if effect.kind != kind:
            continue
        if effect.value is None or may_alias(effect.value, buffer):
            return True
    return False


def underlying_buffer(value: Value) -> Value:
    """The buffer a memref value views: follow view ops (``subview``, ``cast``,
    ``collapse_shape``...) back to an allocation, an argument or a ``get_global``.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<8xf32>) {
    ...   %v = memref.subview %a[2] [4] [1]
    ...       : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
    ...   return }''')
    >>> f = m.body.first_op
    >>> underlying_buffer(f.entry_block.first_op.result) is f.arguments[0]
    True
    """
    while True:
        op = value.defining_op()
        if op is None or op.name not in MEMREF_VIEW_OPS:
            return value
        value = op.operands[0]


def may_alias(a: Value, b: Value) -> bool:
    """Whether memrefs ``a`` and ``b`` may share memory. Two views of one buffer may;
    a fresh allocation never aliases another allocation or an argument; two function
    arguments may (the caller can pass the same array twice).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
    ...   %n = memref.alloc() : memref<4xf32>
    ...   return }''')
    >>> f = m.body.first_op
    >>> a, b = f.arguments
    >>> new = f.entry_block.first_op.result
    >>> may_alias(a, b), may_alias(a, new), may_alias(new, new)
    (True, False, True)
    """
    root_a, root_b = underlying_buffer(a), underlying_buffer(b)
    if root_a is root_b:
        return True
    fresh = [_is_allocation(root) for root in (root_a, root_b)]
    if any(fresh):
        return False
    if all(isinstance(root, BlockArgument) for root in (root_a, root_b)):
        return True
    globals_ = [root.defining_op() for root in (root_a, root_b)]
    if all(g is not None and g.name == "memref.get_global" for g in globals_):
        return globals_[0].attributes.get("name") == globals_[1].attributes.get("name")
    return True  # anything else: we cannot tell, so assume they may


def _is_allocation(value: Value) -> bool:
    op = value.defining_op()
    return op is not None and op.name in _ALLOCATING
