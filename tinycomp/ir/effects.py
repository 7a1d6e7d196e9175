"""Memory effects: what an op does to memory (MLIR's ``MemoryEffectOpInterface``).

An op on *values* (``arith.addf``, ``linalg.generic`` on tensors, ``tensor.insert``)
touches no memory: moving it, merging it with a twin or deleting it when unused is
always safe. An op on *buffers* reads or writes the memory behind a memref, and a
pass that moves it must know which memory. ``memory_effects(op)`` lists that, one
``MemoryEffect`` per (kind, buffer), from what the op's class declares
(``op_definition.py``); this module holds only the questions, no list of op names:

=================================  =========================================================
op (its class declares)            effects
=================================  =========================================================
``is_pure = True`` (``arith``,     none
``math``, ``tensor``, views,
terminators)
``memref.alloc`` / ``alloca``      allocate the result (``allocates(result=0)``)
``memref.dealloc``                 free the operand (``frees(0)``)
``memref.load``, ``affine.load``   read the memref (``reads(0)``)
``memref.store``, ``affine.store`` write the memref (``writes(1)``)
``memref.copy``                    read the source, write the target
linalg on memrefs                  read every ``ins`` buffer, read an ``outs`` buffer when
                                   the payload uses its element, write every ``outs``
``scf.for``, ``scf.if``,           the effects of the ops inside
``affine.for``...                  (``has_recursive_effects``)
``func.call``, ``func.func``,      **unknown**: read and write any memory (``value=None``)
unregistered ops
=================================  =========================================================

Unknown is conservative on purpose: an op that declares nothing may do anything, so
``may_write(op, buffer)`` says yes for every buffer. Effects on other resources
(``writes(resource="npu.flags")``) make an op impure but touch no buffer.

Views (``memref.subview``, ``cast``, ``collapse_shape``...) have no effect themselves,
but they *alias* their source (``memref_views.py``): a store through the view writes
the source's memory, and ``may_read``/``may_write`` follow views back to the buffer.

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

from tinycomp.ir.memory_effect import MEMORY, EffectKind, MemoryEffect
from tinycomp.ir.memref_views import MEMREF_VIEW_OPS, may_alias, underlying_buffer
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import OpResult, Value

__all__ = [
    "MEMREF_VIEW_OPS",
    "MemoryEffect",
    "has_unknown_effects",
    "is_pure",
    "is_read_only",
    "is_trivially_dead",
    "may_alias",
    "may_read",
    "may_write",
    "may_write_memory",
    "memory_effects",
    "underlying_buffer",
]

_UNKNOWN = [MemoryEffect("read", None), MemoryEffect("write", None)]


def memory_effects(op: Operation) -> list[MemoryEffect]:
    """The memory effects of ``op``, those of the ops nested in it included when its class
    declares ``has_recursive_effects`` (see the module docstring for the table).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
    ...   memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    ...   return }''')
    >>> [str(e) for e in memory_effects(m.body.first_op.entry_block.first_op)]
    ['read %a', 'write %b']
    """
    own = op.get_effects()
    if own is None:
        return list(_UNKNOWN)
    if not op.has_recursive_effects:
        return own
    nested = [effect for inner in _nested_ops(op) for effect in memory_effects(inner)]
    return own + nested


def _nested_ops(op: Operation) -> list[Operation]:
    """Every op directly inside ``op``'s regions."""
    return [nested for region in op.regions for block in region.blocks for nested in block.ops]


def has_unknown_effects(op: Operation) -> bool:
    """True when some effect of ``op`` (or of an op inside it) is on unknown memory.

    >>> from tinycomp.ir import Operation
    >>> has_unknown_effects(Operation.create("test.op"))
    True
    """
    return any(e.value is None and e.resource == MEMORY for e in memory_effects(op))


def is_pure(op: Operation) -> bool:
    """True when ``op`` has no effect at all, nested ops included: it may be erased when
    unused and merged with an identical op. A loop that only computes scalars is pure;
    linalg on tensors is pure, on memrefs it is not; an op no dialect registered never is.

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f(%x: f32) -> f32 { %y = arith.mulf %x, %x : f32 "
    ...           "return %y : f32 }")
    >>> [is_pure(op) for op in m.body.first_op.entry_block], is_pure(m.body.first_op)
    ([True, True], False)
    """
    if op.is_pure:  # the common case, without building a list
        return True
    own = op.get_effects()
    if own is None or own:
        return False
    if not op.has_recursive_effects:
        return True
    return all(is_pure(inner) for inner in _nested_ops(op))  # stops at the first effect


def is_read_only(op: Operation) -> bool:
    """True when ``op`` has effects and all of them read (``memref.load``): two such ops
    with the same operands may be merged if nothing writes in between.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<4xf32>, %i: index) -> f32 {
    ...   %x = memref.load %a[%i] : memref<4xf32>
    ...   return %x : f32 }''')
    >>> is_read_only(m.body.first_op.entry_block.first_op)
    True
    """
    effects = memory_effects(op)
    return bool(effects) and all(effect.kind == "read" for effect in effects)


def may_write_memory(op: Operation) -> bool:
    """True when ``op`` may change what some read sees: it writes or frees (any resource).
    Allocating does not change existing memory; reading does not either.

    >>> from tinycomp.ir import Operation
    >>> may_write_memory(Operation.create("test.op"))
    True
    """
    return any(effect.kind in ("write", "free") for effect in memory_effects(op))


def is_trivially_dead(op: Operation) -> bool:
    """True when ``op`` may simply be erased (MLIR's ``isOpTriviallyDead``): no result is
    used, it is not a terminator, and it is pure, or it has no regions and its only
    effects read memory or allocate the buffer it returns: nobody can observe a read
    whose value nobody uses, or a buffer nobody holds. (MLIR also erases an unused op
    with regions whose body only reads or allocates, such as a loop of loads; tinycomp
    keeps it, which is safe, and chapter 03's DCE exercise is graded on this rule.)

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<4xf32>, %i: index, %v: f32) {
    ...   %x = memref.load %a[%i] : memref<4xf32>
    ...   %b = memref.alloc() : memref<4xf32>
    ...   memref.store %v, %a[%i] : memref<4xf32>
    ...   return }''')
    >>> [is_trivially_dead(op) for op in m.body.first_op.entry_block]
    [True, True, False, False]
    """
    if op.is_terminator or any(result.has_uses for result in op.results):
        return False
    if is_pure(op):
        return True
    if op.regions:
        return False
    return all(_unobservable(effect, op) for effect in memory_effects(op))


def _unobservable(effect: MemoryEffect, op: Operation) -> bool:
    if effect.kind == "read":
        return True
    created = effect.value
    return effect.kind == "allocate" and isinstance(created, OpResult) and created.op is op


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
        if effect.kind != kind or effect.resource != MEMORY:
            continue
        if effect.value is None or may_alias(effect.value, buffer):
            return True
    return False
