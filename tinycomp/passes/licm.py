"""Loop-invariant code motion: compute once, before the loop, what every iteration recomputes.

An op inside a loop whose operands all come from outside the loop computes the same value
on every iteration; if it has no effect and may run even when the loop runs zero times,
it can move in front of the loop. The algorithm (MLIR's ``loop-invariant-code-motion``):

1. Visit the loops innermost first (a post-order walk): an op hoisted out of an inner
   loop lands in the outer loop's body, where the outer loop's turn may hoist it again.
   The loops are ``scf.for``, ``scf.while`` (its ``before`` and its ``after`` region),
   ``scf.parallel``, ``scf.forall``, ``affine.for`` and ``affine.parallel``.
2. For each region of the loop, put its top-level ops on a work queue, in order.
3. Take an op from the queue (skip it if it already left the region). It moves in front
   of the loop when
   a. it is not a terminator;
   b. every value it uses, its nested ops' uses included, is defined outside the loop
      (values defined inside the op itself do not count);
   c. it has no memory effect (``is_pure``: a loop of scalar arithmetic qualifies, a
      load does not: a store in the loop may change what it reads);
   d. it is *speculatable*: running it when the loop would not have run is harmless
      (``is_speculatable``: an integer division by a value that may be zero is not; an
      ``scf.for`` is when its step is a non-zero constant, an ``scf.if`` when its body is;
      an ``scf.while`` never is, it might not terminate);
   e. it is not convergent (``is_convergent``): a warp shuffle, a vote or a barrier
      inside a loop stays where it is. MLIR hoists a pure ``gpu.shuffle``; tinycomp
      keeps every convergent op in its place, as LLVM does, and says so in the pass's
      ``report`` (a ``KeptInPlace`` per op).
4. When an op moves, its users at the top level of the region go back on the queue:
   they may have become invariant.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%a: memref<?xf32>, %n: index, %x: f32) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   scf.for %i = %c0 to %n step %c1 {
...     %s = arith.mulf %x, %x : f32
...     %t = arith.addf %s, %x : f32
...     memref.store %t, %a[%i] : memref<?xf32>
...   }
...   return
... }''')
>>> licm = LoopInvariantCodeMotionPass()
>>> licm.run(m)
>>> print(m.body.first_op)
func.func @f(%a: memref<?xf32>, %n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = arith.mulf %x, %x : f32
  %t = arith.addf %s, %x : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %t, %a[%i] : memref<?xf32>
  }
  return
}
>>> dict(licm.statistics)
{'ops hoisted': 2}
"""

from __future__ import annotations

from collections import deque

from tinycomp.ir.location import describe_location
from tinycomp.ir.op_traits import is_convergent
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.types import IntegerType
from tinycomp.ir.values import OpResult, Value
from tinycomp.passes.code_motion import KeptInPlace
from tinycomp.passes.pass_base import Pass
from tinycomp.rewrite.matchers import constant_scalar
from tinycomp.rewrite.traits import is_pure

__all__ = [
    "LOOP_CONVERGENT_REASON",
    "LOOP_REGIONS",
    "LoopInvariantCodeMotionPass",
    "can_hoist",
    "hoist_loop_invariants",
    "is_speculatable",
]

LOOP_REGIONS: dict[str, tuple[int, ...]] = {
    "scf.for": (0,),
    "scf.while": (0, 1),
    "scf.parallel": (0,),
    "scf.forall": (0,),
    "affine.for": (0,),
    "affine.parallel": (0,),
}
"""Loop op name -> the indices of the regions that run once per iteration (step 1)."""

LOOP_CONVERGENT_REASON = (
    "convergent; moving it out of the loop would change which threads execute it together "
    "(a thread that runs no iteration would join it)"
)
"""Why step 3e keeps a convergent op in its loop."""

_UNSIGNED_DIVISIONS = frozenset({"arith.divui", "arith.ceildivui"})
_SIGNED_DIVISIONS = frozenset({"arith.divsi", "arith.ceildivsi"})
_RECURSIVELY_SPECULATABLE = frozenset({"scf.if", "affine.if", "affine.for", "scf.execute_region"})
_NEVER_SPECULATABLE = frozenset({"scf.while"})


def is_speculatable(op: Operation) -> bool:
    """Step 3d: may ``op`` run where it would not have run, without harm (MLIR's
    ``isSpeculatable``)? Pure ops are, except integer divisions whose divisor is not a
    non-zero constant (``divsi`` and ``ceildivsi`` also exclude -1, which overflows) and
    ``memref.dim``/``tensor.dim`` with an index that is not constant; an op with regions is
    when every op inside is (``scf.for`` also needs a non-zero constant step).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: i32, %y: i32) -> i32 {
    ...   %c3 = arith.constant 3 : i32
    ...   %a = arith.divsi %x, %y : i32
    ...   %b = arith.divsi %x, %c3 : i32
    ...   %s = arith.addi %a, %b : i32
    ...   return %s : i32 }''')
    >>> [is_speculatable(op) for op in m.body.first_op.entry_block.ops[:4]]
    [True, False, True, True]
    """
    name = op.name
    if name in _UNSIGNED_DIVISIONS:
        return _is_nonzero_constant(op.operands[1], exclude_minus_one=False)
    if name in _SIGNED_DIVISIONS:
        return _is_nonzero_constant(op.operands[1], exclude_minus_one=True)
    if name in ("memref.dim", "tensor.dim"):
        return constant_scalar(op.operands[1]) is not None
    if name in _NEVER_SPECULATABLE:
        return False
    if name == "scf.for" and not _is_nonzero_constant(op.operands[2], exclude_minus_one=False):
        return False
    if op.regions:
        if name not in _RECURSIVELY_SPECULATABLE and name != "scf.for":
            return False
        return all(is_speculatable(inner) for inner in op.walk() if inner is not op)
    return True


def _is_nonzero_constant(value: Value, exclude_minus_one: bool) -> bool:
    number = constant_scalar(value)
    if number is None or isinstance(number, float) or int(number) == 0:
        return False
    if not exclude_minus_one:
        return True
    width = value.type.width if isinstance(value.type, IntegerType) else 64
    return int(number) not in (-1, (1 << width) - 1)


def _defined_outside(value: Value, loop: Operation) -> bool:
    """Step 3b: ``value`` is defined outside ``loop`` (not in one of its regions)."""
    block = value.op.parent if isinstance(value, OpResult) else value.parent_block()
    owner = block.parent_op() if block is not None else None
    return owner is None or not loop.is_ancestor_of(owner)


def can_hoist(op: Operation, loop: Operation) -> bool:
    """Steps 3a-3e: may ``op``, an op at the top level of one of ``loop``'s regions, move
    in front of ``loop``?

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%n: index, %x: f32) {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   scf.for %i = %c0 to %n step %c1 {
    ...     %s = arith.mulf %x, %x : f32
    ...     %j = arith.addi %i, %c1 : index
    ...   }
    ...   return }''')
    >>> loop = m.body.first_op.entry_block.ops[2]
    >>> [can_hoist(op, loop) for op in loop.regions[0].entry_block.ops[:2]]
    [True, False]
    """
    return _movable(op, loop) and not is_convergent(op)


def _movable(op: Operation, loop: Operation) -> bool:
    """Steps 3a-3d: everything but convergence."""
    if op.is_terminator:
        return False
    for inner in op.walk():
        for value in inner.operands:
            if _defined_outside(value, op) and not _defined_outside(value, loop):
                return False
    return is_pure(op) and is_speculatable(op)


def hoist_loop_invariants(loop: Operation, kept: list[KeptInPlace] | None = None) -> int:
    """Steps 2-4 for one loop: move its invariant ops in front of it; returns how many
    moved. An op that step 3e alone keeps in place (an invariant shuffle or vote) is
    added to ``kept``, with why.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%n: index, %x: f32) -> f32 {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> f32 {
    ...     %s = arith.mulf %x, %x : f32
    ...     %t = arith.addf %acc, %s : f32
    ...     scf.yield %t : f32
    ...   }
    ...   return %r : f32 }''')
    >>> hoist_loop_invariants(m.body.first_op.entry_block.ops[2])
    1
    """
    moved = 0
    seen: set[int] = set()
    for index in LOOP_REGIONS.get(loop.name, ()):
        region: Region = loop.regions[index]
        queue: deque[Operation] = deque(op for block in region.blocks for op in block.ops)
        while queue:
            op = queue.popleft()
            if op.parent is None or op.parent.parent is not region:
                continue  # already moved
            if not can_hoist(op, loop):
                if kept is not None and id(op) not in seen and _movable(op, loop):
                    seen.add(id(op))
                    move = f"hoisted out of the {loop.name}"
                    kept.append(KeptInPlace(op.name, describe_location(op.location), move,
                                            LOOP_CONVERGENT_REASON))  # fmt: skip
                continue
            op.move_before(loop)
            moved += 1
            for result in op.results:
                for user in result.users:
                    if user.parent is not None and user.parent.parent is region:
                        queue.append(user)
    return moved


class LoopInvariantCodeMotionPass(Pass):
    """Hoist loop-invariant ops out of loops (see the module docstring)."""

    name = "loop-invariant-code-motion"
    summary = "move pure, speculatable, non-convergent loop-invariant ops in front of loops"

    def __init__(self) -> None:
        super().__init__()
        self.report: list[KeptInPlace] = []
        """The invariant convergent ops kept in their loops, with why (step 3e)."""

    def run(self, op: Operation) -> None:
        self.report = []
        loops = [inner for inner in op.walk(order="post") if inner.name in LOOP_REGIONS]
        for loop in loops:  # step 1: innermost first
            moved = hoist_loop_invariants(loop, self.report)
            if moved:
                self.statistics["ops hoisted"] += moved
        if self.report:
            self.statistics["convergent ops kept in place"] += len(self.report)
