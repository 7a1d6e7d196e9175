"""What passes need to know about an op beyond its text: effects, constants, commutativity.

MLIR attaches these facts to op definitions as traits and interfaces (``Pure``,
``ConstantLike``, ``Commutative``, ``RecursiveMemoryEffects``, ``MemoryEffectOpInterface``);
tinycomp's op classes declare them as class attributes (``tinycomp/ir/op_definition.py``),
and the functions here only ask: they are the ones of ``tinycomp.ir.effects`` and
``tinycomp.ir.op_traits``, gathered for the rewrite passes.

**Side effects, conservatively.** An op may be merged with an identical op (CSE) only if
it has no effect at all: it is *pure* (``is_pure``). Its class says so with
``is_pure = True``; an op with regions whose class declares ``has_recursive_effects``
(``scf.for``, ``scf.if``) has the effects of the ops inside; linalg ops read and write
their memref operands and nothing else (so on tensors they are pure); everything else,
including every op no dialect registered and ``func.call``, may read and write any
memory. Wrongly keeping an op costs a little speed; wrongly deleting a store changes what
the program computes.

An op may be *erased when unused* (``is_trivially_dead``) if it is not a terminator and
its only effects are to allocate the buffer it returns (``memref.alloc``) or to read
memory (``memref.load``): nobody can observe a buffer no one uses, or a read whose value
no one uses. Such ops are still not pure: two allocations are different buffers, and two
loads of one address may see different values if a store comes between them, so CSE
merges loads only when no write comes between (``is_read_only``, ``may_write_memory``).

The ``..._OPS`` names are sets of op names computed from the classes (``DeclaredNames``),
for code that asks ``op.name in UNUSED_MEANS_DEAD_OPS``.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%x: i32) {
...   %0 = arith.addi %x, %x : i32
...   "test.print"(%x) : (i32) -> ()
...   return
... }''')
>>> add, unknown, ret = m.body.first_op.entry_block.ops
>>> is_pure(add), is_pure(unknown), is_trivially_dead(add), is_trivially_dead(ret)
(True, False, True, False)
"""

from __future__ import annotations

from tinycomp.ir.effects import (
    is_pure,
    is_read_only,
    is_trivially_dead,
    may_write_memory,
)
from tinycomp.ir.op_traits import DeclaredNames, is_commutative, is_constant_op, is_registered

__all__ = [
    "READ_ONLY_OPS",
    "UNUSED_MEANS_DEAD_OPS",
    "COMMUTATIVE_OPS",
    "CONSTANT_OPS",
    "RECURSIVE_EFFECT_OPS",
    "is_commutative",
    "is_constant_op",
    "is_pure",
    "is_read_only",
    "is_registered",
    "is_trivially_dead",
    "may_write_memory",
]


def _declares_only(op_class, kinds: frozenset[str]) -> bool:
    """The class declares effects (not pure, no regions' effects) all of these kinds."""
    declared = op_class.effects
    if op_class.is_pure or op_class.has_recursive_effects or not declared:
        return False
    return all(effect.kind in kinds for effect in declared)


RECURSIVE_EFFECT_OPS = DeclaredNames(
    lambda c: c.has_recursive_effects, "ops with the effects of the ops in their regions"
)
"""Ops whose effects are those of the ops in their regions (``scf.for``, ``affine.if``)."""

READ_ONLY_OPS = DeclaredNames(
    lambda c: _declares_only(c, frozenset({"read"})), "ops whose only effect is reading"
)
"""Ops whose only effect is reading memory (``memref.load``, ``vector.load``)."""

UNUSED_MEANS_DEAD_OPS = DeclaredNames(
    lambda c: _declares_only(c, frozenset({"read", "allocate"})),
    "ops that only read or allocate",
)
"""Ops whose only effects are allocating their result or reading memory: erasable when
their results are unused, though not pure (``memref.alloc``, ``memref.load``)."""

CONSTANT_OPS = DeclaredNames(lambda c: c.is_constant_like, "constant-like ops")
"""Ops that produce a compile-time constant from their ``value`` attribute."""

COMMUTATIVE_OPS = DeclaredNames(lambda c: c.is_commutative, "commutative ops")
"""Binary ops with ``op(a, b) == op(b, a)`` for all values (the ``Commutative`` trait)."""
