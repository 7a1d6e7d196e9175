"""Full unrolling of small constant loops: an ``scf.for`` becomes copies of its body.

A loop such as ``for n in range(8): results[m * 8 + n] += ...`` indexes a per-thread
array with its induction variable. Kept as a loop, the index is a register that changes,
so the array must live in memory where it can be indexed (a GPU's *local* memory, a
stack frame). Written out as eight copies, each copy's index is a constant, the array
is eight separate values, and LLVM (its SROA pass) keeps them in registers. ``nvcc -O3``
does this to every small loop whose trip count it knows; so does this pass
(``scf-for-full-unroll``):

1. Visit the ``scf.for`` loops innermost first (a post-order walk): an inner loop is
   unrolled before the loop around it, whose copies then carry the unrolled code.
2. A loop qualifies when its lower bound, upper bound and step are integer constants,
   the step is positive, and it runs at most ``limit`` iterations
   (``is_fully_unrollable``; the simulator's instruction count asks the same question, so
   the code it counts is the code this pass writes). Any other loop is left alone.
3. Replace the loop with one copy of its body per iteration, in front of it: in copy
   ``t`` the induction variable is the constant ``lb + t * step`` and the iter_args are
   the values the copy before yielded (the inits for the first copy). The loop's results
   become the last copy's yields; a loop that runs zero times becomes its inits. Each
   copied op is folded as it is made: one whose operands are constants in this copy
   (``%i * 8 + 5`` with ``%i = 3``) becomes the constant it computes (``29``).
4. Run ``canonicalize`` and ``cse`` on what the copies left: duplicate constants merge,
   identities such as ``x + 0`` go, and what the copies share is computed once.

Loops that hold convergent ops (barriers, shuffles, votes) are unrolled too. Their bounds
are constants, so every thread that reaches the loop runs the same iterations; each copy
of a shuffle is reached by exactly the threads that reached the shuffle in that
iteration, and no copy comes to depend on a new condition. LLVM's loop unroller reasons
the same way: it fully unrolls a loop of convergent calls and refuses only a remainder
loop, which would put them under a condition on the trip count
(``llvm/lib/Transforms/Scalar/LoopUnrollPass.cpp``, ``UP.AllowRemainder``; the test
``llvm/test/Transforms/LoopUnroll/convergent.ll``).

A loop whose bound becomes constant only once an outer loop is unrolled (``for j in
range(i)``) is left as a loop: the pass visits each loop once, as the simulator's count
assumes.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%a: memref<4xf32>, %x: f32) -> f32 {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c2 = arith.constant 2 : index
...   %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (f32) {
...     %j = arith.addi %i, %c1 : index
...     %v = memref.load %a[%j] : memref<4xf32>
...     %s = arith.addf %acc, %v : f32
...     scf.yield %s : f32
...   }
...   return %r : f32
... }''')
>>> unroll = FullUnrollPass()
>>> unroll.run(m)
>>> print(m.body.first_op)
func.func @f(%a: memref<4xf32>, %x: f32) -> f32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = memref.load %a[%c1] : memref<4xf32>
  %s = arith.addf %x, %v : f32
  %v_0 = memref.load %a[%c2] : memref<4xf32>
  %s_1 = arith.addf %s, %v_0 : f32
  return %s_1 : f32
}
>>> dict(unroll.statistics)
{'loops unrolled': 1, 'body copies': 2}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.scf import ForOp
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import IntegerType, Type
from tinycomp.ir.values import Value
from tinycomp.passes.canonicalize.canonicalizer import CanonicalizePass
from tinycomp.passes.cse import CSEPass
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.rewrite.constants import materialize_constant
from tinycomp.rewrite.folding import fold_op
from tinycomp.rewrite.matchers import constant_scalar
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = [
    "UNROLL_LIMIT",
    "FullUnrollPass",
    "constant_trip_count",
    "is_fully_unrollable",
    "unroll_loop",
]

UNROLL_LIMIT = 64
"""The most iterations of a constant loop that is fully unrolled (by this pass, and in the
simulator's count of what ``nvcc``/``ptxas`` would emit)."""


def _constant_integer(value: Value) -> int | None:
    """The integer a constant op gives ``value`` (not a bool, not a float), else ``None``."""
    number = constant_scalar(value)
    if isinstance(number, bool) or not isinstance(number, int):
        return None
    return number


def constant_trip_count(loop: Operation) -> int | None:
    """How many times the ``scf.for`` ``loop`` runs, when its lower bound, upper bound and
    step are integer constants and the step is positive; ``None`` otherwise (not an
    ``scf.for``, a bound computed at run time, a step of zero or less).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%n: index) {
    ...   %c0 = arith.constant 0 : index
    ...   %c3 = arith.constant 3 : index
    ...   %c10 = arith.constant 10 : index
    ...   scf.for %i = %c0 to %c10 step %c3 { }
    ...   scf.for %i = %c0 to %n step %c3 { }
    ...   return }''')
    >>> [constant_trip_count(op) for op in m.body.first_op.entry_block.ops[3:5]]
    [4, None]
    """
    if not isinstance(loop, ForOp):
        return None
    bounds = [_constant_integer(v) for v in (loop.lower_bound, loop.upper_bound, loop.step)]
    lower, upper, step = bounds
    if lower is None or upper is None or step is None or step <= 0:
        return None
    if loop.is_unsigned:  # compare the bit patterns as unsigned numbers
        bound_type = loop.lower_bound.type
        width = bound_type.width if isinstance(bound_type, IntegerType) else 64
        lower, upper = lower % (1 << width), upper % (1 << width)
    return len(range(lower, upper, step))


def is_fully_unrollable(loop: Operation, limit: int = UNROLL_LIMIT) -> bool:
    """Step 2: is ``loop`` an ``scf.for`` with constant bounds and step that runs at most
    ``limit`` iterations?

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f() {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %c100 = arith.constant 100 : index
    ...   scf.for %i = %c0 to %c100 step %c1 { }
    ...   return }''')
    >>> loop = m.body.first_op.entry_block.ops[3]
    >>> is_fully_unrollable(loop), is_fully_unrollable(loop, limit=100)
    (False, True)
    """
    trips = constant_trip_count(loop)
    return trips is not None and trips <= limit


def unroll_loop(loop: ForOp, rewriter: PatternRewriter | None = None) -> int:
    """Step 3 for one loop with a constant trip count: replace it with that many copies of
    its body, in front of it. Returns the number of copies. A ``ValueError`` when the
    loop's trip count is not constant (``constant_trip_count`` is ``None``).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%a: memref<8xf32>, %x: f32) {
    ...   %c0 = arith.constant 0 : index
    ...   %c2 = arith.constant 2 : index
    ...   %c6 = arith.constant 6 : index
    ...   scf.for %i = %c0 to %c6 step %c2 {
    ...     %j = arith.addi %i, %c2 : index
    ...     memref.store %x, %a[%j] : memref<8xf32>
    ...   }
    ...   return }''')
    >>> unroll_loop(m.body.first_op.entry_block.ops[3])
    3
    >>> [str(op) for op in m.walk() if op.name == "memref.store"]  # doctest: +NORMALIZE_WHITESPACE
    ['memref.store %x, %a[%c2_1] : memref<8xf32>', 'memref.store %x, %a[%c4] : memref<8xf32>',
     'memref.store %x, %a[%c6_4] : memref<8xf32>']
    """
    trips = constant_trip_count(loop)
    if trips is None:
        raise ValueError(
            f"unroll_loop: expected an scf.for with constant bounds and a positive constant "
            f"step; the {loop.name}{describe_location(loop.location)} {_not_constant(loop)}"
        )
    rewriter = rewriter if rewriter is not None else PatternRewriter()
    rewriter.set_current_op(loop)
    lower = _constant_integer(loop.lower_bound)
    step = _constant_integer(loop.step)
    assert lower is not None and step is not None  # constant_trip_count checked them
    carried: Sequence[Value] = loop.init_args
    body_ops = [op for op in loop.body.ops if op is not loop.body.terminator]
    yielded = loop.body.terminator.operands if loop.body.terminator is not None else ()
    for trip in range(trips):
        value = _wrapped(lower + trip * step, loop.induction_var.type)
        iv = rewriter.insert(ConstantOp.build(value, loop.induction_var.type))
        mapping: dict[Any, Any] = {loop.induction_var: iv.results[0]}
        mapping.update(zip(loop.region_iter_args, carried, strict=True))
        for op in body_ops:
            _copy_op(op, mapping, rewriter)
        carried = [mapping.get(value, value) for value in yielded]
    rewriter.replace_op(loop, list(carried))
    return trips


def _not_constant(loop: Operation) -> str:
    """Why ``constant_trip_count(loop)`` is ``None``, for error messages."""
    if not isinstance(loop, ForOp):
        return "is not an scf.for"
    parts = zip(("lower bound", "upper bound", "step"), loop.operands[:3], strict=True)
    for part, value in parts:
        if _constant_integer(value) is None:
            return f"has a non-constant {part}"
    return "has a step that is not positive"


def _wrapped(number: int, bound_type: Type) -> int:
    """``number`` as a value of the loop's integer type holds it (two's complement): an
    ``unsigned`` loop may count past the largest signed value."""
    if not isinstance(bound_type, IntegerType):
        return number
    half = 1 << (bound_type.width - 1)
    return (number + half) % (2 * half) - half


def _copy_op(op: Operation, mapping: dict[Any, Any], rewriter: PatternRewriter) -> None:
    """Step 3 for one op of the body: insert a copy of ``op`` (its operands looked up in
    ``mapping``, its results added to it), folded as the canonicalizer folds: a copy whose
    operands are constants in this iteration (``%i * 8`` with ``%i = 3``) is replaced by
    the constant it computes. Folding each copy as it is made spares step 4 the work of
    folding thousands of copies."""
    copy = op.clone(mapping)
    folded = fold_op(copy)
    if folded is None:
        rewriter.insert(copy)
        return
    constants: dict[int, Operation] = {}  # result number -> its new arith.constant
    for item, result in zip(folded, copy.results, strict=True):
        if not isinstance(item, Value):
            constant = materialize_constant(item, result.type)
            if constant is None:  # a value arith.constant cannot hold: keep the op
                rewriter.insert(copy)
                return
            constants[result.index] = constant
    copy.drop_all_references()
    for item, result in zip(folded, op.results, strict=True):
        if result.index in constants:
            item = rewriter.insert(constants[result.index]).results[0]
        mapping[result] = item


class FullUnrollPass(Pass):
    """Fully unroll every ``scf.for`` with constant bounds and at most ``limit`` iterations,
    then fold the copies (steps 1-4 of the module docstring)."""

    name = "scf-for-full-unroll"
    summary = "replace scf.for loops of at most `limit` constant iterations by copies of the body"

    def __init__(self, limit: int = UNROLL_LIMIT, cleanup: bool = True) -> None:
        super().__init__()
        if limit < 0:
            raise ValueError(f"scf-for-full-unroll: expected a limit >= 0, got {limit}")
        self.limit = limit
        """The most iterations a loop may have to be unrolled."""
        self.cleanup = cleanup
        """Run ``canonicalize`` and ``cse`` after unrolling (step 4)."""

    def run(self, op: Operation) -> None:
        rewriter = PatternRewriter()
        loops = [inner for inner in op.walk(order="post") if isinstance(inner, ForOp)]
        for loop in loops:  # step 1: innermost first
            if not is_fully_unrollable(loop, self.limit):  # step 2
                continue
            copies = unroll_loop(loop, rewriter)  # step 3
            self.statistics["loops unrolled"] += 1
            self.statistics["body copies"] += copies
        if self.cleanup and self.statistics["loops unrolled"]:  # step 4
            CanonicalizePass().run(op)
            CSEPass().run(op)


register_pass(FullUnrollPass)
