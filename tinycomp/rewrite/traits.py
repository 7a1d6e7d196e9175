"""What passes need to know about an op beyond its text: effects, constants, commutativity.

MLIR attaches these facts to op definitions as traits and interfaces
(``Pure``, ``ConstantLike``, ``Commutative``, ``RecursiveMemoryEffects``). tinycomp's op
classes declare ``is_pure``; the rest is kept here as small tables of op names, so the
passes work for dialects whose op classes are not written (or not registered) yet.

**Memory effects, conservatively.** An op may be merged with an identical op (CSE) only
if it has no side effects at all: it is *pure*. The rule:

1. a registered op class says so with ``is_pure``; for an op with regions that is not
   enough, every op nested in it must be free of effects too;
2. a few structured ops (``scf.for``, ``scf.if``...) have exactly the effects of their
   bodies ("recursive memory effects"): pure when their bodies are;
3. linalg ops read and write their memref operands and nothing else: on tensors only
   (no memref operand) they are pure when their bodies are;
4. terminators nested in such a body (``scf.yield``) only pass values on: no effect;
5. everything else, including every op no dialect registered, is assumed to have side
   effects. Wrongly keeping an op costs a little speed; wrongly deleting a store
   changes what the program computes.

An op may be *erased when unused* if it is pure, or if its only effects are to allocate
the buffer it returns (``memref.alloc``) or to read memory (``memref.load``): nobody can
observe a buffer no one uses, or a read whose value no one uses. Such ops are still
not pure: two allocations are different buffers, and two loads of one address may see
different values if a store comes between them, so CSE never merges them.

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

from tinycomp.ir.operation import Operation
from tinycomp.ir.registry import lookup_op_class
from tinycomp.ir.types import MemRefType

__all__ = [
    "READ_ONLY_OPS",
    "UNUSED_MEANS_DEAD_OPS",
    "COMMUTATIVE_OPS",
    "CONSTANT_OPS",
    "RECURSIVE_EFFECT_OPS",
    "is_commutative",
    "is_constant_op",
    "is_pure",
    "is_registered",
    "is_trivially_dead",
    "may_write_memory",
]

RECURSIVE_EFFECT_OPS = frozenset(
    {
        "scf.for", "scf.if", "scf.while", "scf.execute_region", "scf.index_switch",
        "scf.parallel", "scf.forall", "affine.for", "affine.if", "affine.parallel",
    }
)  # fmt: skip
"""Ops whose only effects are those of the ops in their regions (rule 2)."""

READ_ONLY_OPS = frozenset({"memref.load", "affine.load", "vector.load"})
"""Ops whose only effect is reading memory."""

UNUSED_MEANS_DEAD_OPS = frozenset({"memref.alloc", "memref.alloca", *READ_ONLY_OPS})
"""Ops whose only effects are allocating their result or reading memory: erasable when
their results are unused, though not pure."""

CONSTANT_OPS = frozenset({"arith.constant"})
"""Ops that produce a compile-time constant from their ``value`` attribute."""

COMMUTATIVE_OPS = frozenset(
    {
        "arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
        "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui",
        "arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf",
        "arith.maxnumf", "arith.minnumf",
    }
)  # fmt: skip
"""Binary ops with ``op(a, b) == op(b, a)`` for all values (the ``Commutative`` trait)."""


def is_registered(op: Operation) -> bool:
    """True when a dialect registered a class for ``op``'s name.

    >>> from tinycomp.ir import Operation
    >>> is_registered(Operation.create("test.op"))
    False
    """
    return lookup_op_class(op.name) is not None


def is_pure(op: Operation) -> bool:
    """True when ``op`` (with everything nested in it) has no side effects.

    See the module docstring for the rule; unknown ops are never pure.
    """
    if op.regions:
        declared = op.is_pure or op.name in RECURSIVE_EFFECT_OPS or _is_linalg_on_tensors(op)
        return declared and _bodies_are_pure(op)
    return op.is_pure or _is_linalg_on_tensors(op)


def _is_linalg_on_tensors(op: Operation) -> bool:
    """Rule 3: a linalg op none of whose operands is a memref."""
    if not op.name.startswith("linalg.") or op.is_terminator:
        return False
    return not any(isinstance(operand.type, MemRefType) for operand in op.operands)


def _bodies_are_pure(op: Operation) -> bool:
    """Every op in ``op``'s regions is pure, terminators excepted (rule 3)."""
    for region in op.regions:
        for block in region.blocks:
            for nested in block:
                if nested.is_terminator and not nested.regions:
                    continue
                if not is_pure(nested):
                    return False
    return True


def is_trivially_dead(op: Operation) -> bool:
    """True when ``op`` may simply be erased: no result is used, it is not a terminator,
    and it is pure or only allocates or reads (MLIR's ``isOpTriviallyDead``)."""
    if op.is_terminator:
        return False
    for result in op.results:
        if result.has_uses:
            return False
    return op.name in UNUSED_MEANS_DEAD_OPS or is_pure(op)


def is_constant_op(op: Operation) -> bool:
    """True for ``arith.constant`` (and other ops listed in ``CONSTANT_OPS``) that carry
    their value in a ``value`` attribute."""
    return op.name in CONSTANT_OPS and "value" in op.attributes and len(op.results) == 1


def is_commutative(op: Operation) -> bool:
    """True for binary ops listed in ``COMMUTATIVE_OPS``.

    >>> from tinycomp.ir import Block, i32
    >>> from tinycomp.dialects.arith import AddIOp, SubIOp
    >>> a, b = Block([i32, i32]).arguments
    >>> is_commutative(AddIOp.build(a, b)), is_commutative(SubIOp.build(a, b))
    (True, False)
    """
    return op.name in COMMUTATIVE_OPS and len(op.operands) == 2


def may_write_memory(op: Operation) -> bool:
    """True unless ``op`` is known to be pure or to only allocate or read memory."""
    return op.name not in UNUSED_MEANS_DEAD_OPS and not is_pure(op)
