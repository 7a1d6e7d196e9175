"""Hoist and sink the code both sides of an ``scf.if`` share:
``if c {A; X} else {A; Y}  ->  A; if c {X} else {Y}`` and
``if c {X; B} else {Y; B}  ->  if c {X} else {Y}; B``.

An op that opens both regions runs exactly once on every path through the ``scf.if``,
right after the condition is known; one that closes both runs right before the ``scf.if``
ends. Either can stand outside, once, whatever it reads or writes, with one exception:
a *convergent* op (a barrier, a shuffle, a vote, a warp reduction) computes together
with the threads that execute it at the same time, and inside ``if c`` those are only
the threads for which ``c`` holds. Outside, every thread runs it together: the same
text, a different computation (``tinycomp.gpu.convergence`` shows LLVM doing exactly
that to a call nobody marked ``convergent``). This pass keeps every convergent op in
its branch and says so in ``report``. The algorithm:

1. Visit every ``scf.if`` that has an ``else`` region, innermost first.
2. Hoist: while the first ops of the two regions are *identical* (same name,
   operands, attributes and result types; no regions of their own) and not
   terminators, move the ``then`` one in front of the ``scf.if``, let the uses of the
   ``else`` one read it instead, and erase the ``else`` one.
3. Sink: while the last ops before the two ``scf.yield`` are identical and their
   results are unused, move the ``then`` one after the ``scf.if`` and erase the other.
4. In steps 2 and 3, an identical pair that is convergent (``is_convergent``) stops
   the walk on that side and is recorded in ``report`` with its line and the reason.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%c: i1, %x: f32, %a: memref<2xf32>) {
...   %i = arith.constant 0 : index
...   scf.if %c {
...     %y = arith.mulf %x, %x : f32
...     memref.store %y, %a[%i] : memref<2xf32>
...   } else {
...     %y = arith.mulf %x, %x : f32
...     %z = arith.addf %y, %x : f32
...     memref.store %z, %a[%i] : memref<2xf32>
...   }
...   return
... }''')
>>> hoist = HoistCommonPass()
>>> hoist.run(m)
>>> print(m.body.first_op)
func.func @f(%c: i1, %x: f32, %a: memref<2xf32>) {
  %i = arith.constant 0 : index
  %y = arith.mulf %x, %x : f32
  scf.if %c {
    memref.store %y, %a[%i] : memref<2xf32>
  } else {
    %z = arith.addf %y, %x : f32
    memref.store %z, %a[%i] : memref<2xf32>
  }
  return
}
>>> dict(hoist.statistics), hoist.report
({'ops hoisted': 1}, [])
"""

from __future__ import annotations

from collections.abc import Hashable

from tinycomp.ir.equality import effective_attributes
from tinycomp.ir.location import describe_location
from tinycomp.ir.op_traits import is_convergent
from tinycomp.ir.operation import Operation
from tinycomp.passes.code_motion import KeptInPlace
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass

__all__ = ["HoistCommonPass", "hoist_common_ops", "identity_key"]

CONVERGENT_REASON = (
    "convergent; moving it out of the branch would change which threads execute it together"
)
"""Why a convergent op stays in its branch (step 4)."""


def identity_key(op: Operation) -> Hashable | None:
    """What makes two ops identical for steps 2 and 3 (``None``: never identical): the
    name, the operands themselves, the attributes and the result types. Ops with regions
    and terminators have no key.

    >>> from tinycomp.ir import Block, f32
    >>> from tinycomp.dialects.arith import AddFOp
    >>> a, b = Block([f32, f32]).arguments
    >>> identity_key(AddFOp.build(a, b)) == identity_key(AddFOp.build(a, b))
    True
    >>> identity_key(AddFOp.build(a, b)) == identity_key(AddFOp.build(b, a))
    False
    """
    if op.is_terminator or op.regions:
        return None
    attributes = tuple(sorted(effective_attributes(op).items(), key=lambda item: item[0]))
    key = (op.name, tuple(op.operands), attributes, op.result_types)
    try:
        hash(key)
    except TypeError:  # an attribute that cannot be hashed: treat the op as unique
        return None
    return key


def _identical(first: Operation | None, second: Operation | None) -> bool:
    if first is None or second is None:
        return False
    key = identity_key(first)
    return key is not None and key == identity_key(second)


def _kept(op: Operation, move: str) -> KeptInPlace:
    return KeptInPlace(op.name, describe_location(op.location), move, CONVERGENT_REASON)


def hoist_common_ops(if_op: Operation) -> tuple[int, int, list[KeptInPlace]]:
    """Steps 2-4 for one ``scf.if``: ``(ops hoisted, ops sunk, convergent ops kept)``.

    >>> from tinycomp.ir import parse
    >>> m = parse('''gpu.module @k {
    ...   gpu.func @f(%c: i1, %x: f32, %a: memref<2xf32>) kernel {
    ...     %i = arith.constant 0 : index
    ...     scf.if %c {
    ...       memref.store %x, %a[%i] : memref<2xf32>
    ...       gpu.barrier
    ...     } else {
    ...       gpu.barrier
    ...     }
    ...     gpu.return
    ...   }
    ... }''')
    >>> if_op = m.body.first_op.body.first_op.entry_block.ops[1]
    >>> hoisted, sunk, kept = hoist_common_ops(if_op)
    >>> hoisted, sunk, [str(k) for k in kept]  # doctest: +NORMALIZE_WHITESPACE
    (0, 0, ['gpu.barrier at line 6: not sunk below an scf.if: convergent; moving it out
    of the branch would change which threads execute it together'])
    """
    then_block, else_block = if_op.regions[0].entry_block, if_op.regions[1].entry_block
    kept: list[KeptInPlace] = []
    hoisted = 0
    while _identical(then_block.first_op, else_block.first_op):
        then_op, else_op = then_block.first_op, else_block.first_op
        if is_convergent(then_op):
            kept.append(_kept(then_op, "hoisted above an scf.if"))
            break
        then_op.move_before(if_op)
        for result, replacement in zip(else_op.results, then_op.results, strict=True):
            result.replace_all_uses_with(replacement)
        else_op.erase()
        hoisted += 1
    sunk = 0
    while True:
        then_op, else_op = then_block.last_op.prev_op, else_block.last_op.prev_op
        if not _identical(then_op, else_op) or any(r.users for r in then_op.results):
            break
        if any(r.users for r in else_op.results):
            break
        if is_convergent(then_op):
            kept.append(_kept(then_op, "sunk below an scf.if"))
            break
        then_op.move_after(if_op)
        else_op.erase()
        sunk += 1
    return hoisted, sunk, kept


class HoistCommonPass(Pass):
    """Hoist and sink the ops both sides of an ``scf.if`` share (see the module
    docstring)."""

    name = "scf-if-hoist-common"
    summary = (
        "move ops that open or close both regions of an scf.if out of it (never convergent ones)"
    )

    def __init__(self) -> None:
        super().__init__()
        self.report: list[KeptInPlace] = []
        """The convergent ops the last run kept in their branch, and why."""

    def run(self, op: Operation) -> None:
        self.report = []
        ifs = [inner for inner in op.walk(order="post") if inner.name == "scf.if"]
        for if_op in ifs:  # step 1: innermost first
            if len(if_op.regions) < 2 or not if_op.regions[1].blocks:
                continue
            hoisted, sunk, kept = hoist_common_ops(if_op)
            if hoisted:
                self.statistics["ops hoisted"] += hoisted
            if sunk:
                self.statistics["ops sunk"] += sunk
            if kept:
                self.statistics["convergent ops kept in place"] += len(kept)
            self.report.extend(kept)


register_pass(HoistCommonPass)
