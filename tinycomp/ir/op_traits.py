"""Questions about an op's traits, answered from its class (``op_definition.py``).

Passes ask these functions, never a list of op names: ``is_commutative(op)`` reads
``op.is_commutative``, so a new op is described by writing its class. The memory
questions (``is_pure``, ``memory_effects``...) are in ``effects.py``.

``DeclaredNames`` turns a trait into the set of the registered op names that have it,
for code that asks ``op.name in SOME_OPS``; it is computed from the classes each time,
so it is never out of date.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: i32) -> i32 {
...   %c = arith.constant 2 : i32
...   %y = arith.addi %x, %c : i32
...   %z = arith.subi %y, %c : i32
...   return %z : i32 }''')
>>> const, add, sub, ret = m.body.first_op.entry_block.ops
>>> is_constant_op(const), is_commutative(add), is_commutative(sub), is_convergent(ret)
(True, True, False, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Set

from tinycomp.ir.operation import Operation
from tinycomp.ir.registry import lookup_op_class, registered_op_classes

__all__ = [
    "DeclaredNames",
    "is_barrier",
    "is_commutative",
    "is_constant_op",
    "is_convergent",
    "is_registered",
]


def is_registered(op: Operation) -> bool:
    """True when a dialect registered a class for ``op``'s name.

    >>> from tinycomp.ir import Operation
    >>> is_registered(Operation.create("test.op"))
    False
    """
    return lookup_op_class(op.name) is not None


def is_constant_op(op: Operation) -> bool:
    """True for a constant-like op (``arith.constant``) that carries its value in a
    ``value`` attribute and has one result.

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f() -> f32 { %c = arith.constant 1.0 : f32 return %c : f32 }")
    >>> is_constant_op(m.body.first_op.entry_block.first_op)
    True
    """
    return op.is_constant_like and "value" in op.attributes and len(op.results) == 1


def is_commutative(op: Operation) -> bool:
    """True for a binary op whose class declares ``is_commutative``.

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f(%a: f32) -> f32 { %s = arith.addf %a, %a : f32 "
    ...           "return %s : f32 }")
    >>> is_commutative(m.body.first_op.entry_block.first_op)
    True
    """
    return op.is_commutative and len(op.operands) == 2


def is_convergent(op: Operation) -> bool:
    """True when ``op``, or an op nested in it, is convergent: a transformation may not
    make it depend on a new condition (a barrier or a shuffle reached by only some
    threads of a group deadlocks or reads garbage). Ops that no dialect registered are
    assumed not to be: tinycomp only moves ops it knows into conditions.

    >>> from tinycomp.ir import Operation
    >>> is_convergent(Operation.create("test.op"))
    False
    """
    return any(nested.is_convergent for nested in op.walk())


def is_barrier(op: Operation) -> bool:
    """True when ``op`` synchronises the threads of a group (``gpu.barrier``): no memory
    access may move across it.

    >>> from tinycomp.ir import Operation
    >>> is_barrier(Operation.create("test.op"))
    False
    """
    return op.is_barrier


class DeclaredNames(Set[str]):
    """The names of the registered op classes for which ``predicate`` holds.

    >>> commutative = DeclaredNames(lambda c: c.is_commutative, "commutative ops")
    >>> "arith.addf" in commutative, "arith.subf" in commutative, "nope.op" in commutative
    (True, False, False)
    """

    def __init__(self, predicate: Callable[[type[Operation]], bool], description: str) -> None:
        self._predicate = predicate
        self.description = description
        """What the names have in common."""

    def __contains__(self, name: object) -> bool:
        op_class = lookup_op_class(name) if isinstance(name, str) else None
        return op_class is not None and self._predicate(op_class)

    def __iter__(self) -> Iterator[str]:
        return iter([c.name for c in registered_op_classes() if self._predicate(c)])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"<DeclaredNames: {self.description}>"
