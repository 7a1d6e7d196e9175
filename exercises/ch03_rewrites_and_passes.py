"""Chapter 03: rewrites, canonicalization and the pass manager.

A *rewrite pattern* recognises a small piece of IR and replaces it with a simpler piece
that computes the same values; the *greedy driver* applies a set of patterns until none
matches any more; a *pass* transforms a whole module, and the *pass manager* runs passes
one after another. Three tasks, each plugging into tinycomp's real machinery:

1. ``MulIByOne`` and ``MulFByOne``: the pattern ``x * 1 -> x`` (and ``1 * x -> x``), run
   by ``apply_patterns_greedily``;
2. ``compose_permutations`` and ``TransposeOfTranspose``: ``transpose(transpose(x)) -> x``,
   or a single transpose when the two permutations do not cancel;
3. ``is_dead`` and ``DeadCodeElimination``: a dead code elimination pass that the pass
   manager can run between ``canonicalize`` and ``cse``.

The worked example ``NegateTwice`` shows the shape every pattern has. Fill in each TODO,
then run ``tinycomp grade ch03``. The last cells of ``chapters/03_rewrites_and_passes.ipynb``
run your code.
"""

from __future__ import annotations

from collections.abc import Sequence

# Everything the tasks need is imported for you ("noqa: F401" keeps the linter quiet about
# the names your code does not use yet).
from tinycomp.ir import Operation
from tinycomp.ir.dialects.linalg import TransposeOp  # noqa: F401
from tinycomp.passes import Pass
from tinycomp.rewrite import (  # noqa: F401
    PatternRewriter,
    RewritePattern,
    is_constant_float,
    is_constant_int,
    is_pure,
)
from tinycomp.rewrite.traits import UNUSED_MEANS_DEAD_OPS  # noqa: F401

__all__ = [
    "DeadCodeElimination",
    "MulFByOne",
    "MulIByOne",
    "NegateTwice",
    "TransposeOfTranspose",
    "compose_permutations",
    "is_dead",
    "mul_by_one_patterns",
]


# -- worked example ----------------------------------------------------------------------
class NegateTwice(RewritePattern):
    """-(-x) -> x  (negation flips the sign bit, so this is exact for every float)

    Every pattern has this shape:

    1. ``root`` names the op the driver offers to the pattern (here ``arith.negf``);
    2. ``match_and_rewrite`` looks at the op and the ops around it (through
       ``value.defining_op()`` and ``value.users``) and returns ``False``, having changed
       nothing, when the piece of IR is not the one it wants;
    3. otherwise it changes the IR *only* through ``rewriter`` and returns ``True``.
       ``rewriter.replace_op(op, [x])`` makes every reader of ``op``'s result read ``x``
       and erases ``op``; the driver hears about both and revisits the ops concerned.

    >>> from tinycomp.ir import parse
    >>> from tinycomp.rewrite import apply_patterns_greedily
    >>> m = parse('''
    ... func.func @f(%x: f32) -> f32 {
    ...   %a = arith.negf %x : f32
    ...   %b = arith.negf %a : f32
    ...   return %b : f32
    ... }''')
    >>> _ = apply_patterns_greedily(m, [NegateTwice()])
    >>> print(m.body.first_op)
    func.func @f(%x: f32) -> f32 {
      return %x : f32
    }
    """

    root = "arith.negf"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        inner = op.operands[0].defining_op()  # None for a block argument
        if inner is None or inner.name != "arith.negf":
            return False
        rewriter.replace_op(op, [inner.operands[0]])  # the readers of -(-x) now read x
        return True


# -- Task 03.1 ------------------------------------------------------------------------------
class MulIByOne(RewritePattern):
    """x * 1 -> x  and  1 * x -> x  (integers and index; scalars, vectors and tensors)

    Multiplication is commutative, so the constant may be on either side: both forms
    must go. The recipe:

    1. ``lhs, rhs = op.operands``; ``is_constant_int(value, 1)`` is true for
       ``arith.constant 1 : i32`` and for a splat such as
       ``arith.constant dense<1> : tensor<4xi32>``;
    2. when one side is the constant one, ``rewriter.replace_op(op, [other side])`` and
       return ``True``: the readers of the product now read ``x``, the product is erased,
       and the driver erases the constant once nothing reads it;
    3. otherwise return ``False`` without touching the IR.

    (``canonicalize`` needs only ``x * 1``: its ``ConstantToRight`` pattern first turns
    ``1 * x`` into ``x * 1``. Run alone, your pattern must handle both.)

    >>> from tinycomp.ir import parse
    >>> from tinycomp.rewrite import apply_patterns_greedily
    >>> m = parse('''
    ... func.func @f(%x: i32) -> i32 {
    ...   %one = arith.constant 1 : i32
    ...   %a = arith.muli %one, %x : i32
    ...   return %a : i32
    ... }''')
    >>> _ = apply_patterns_greedily(m, [MulIByOne()])
    >>> print(m.body.first_op)
    func.func @f(%x: i32) -> i32 {
      return %x : i32
    }
    """

    root = "arith.muli"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        # TODO(Task 03.1): the pattern x * 1 -> x (and 1 * x -> x)
        raise NotImplementedError("Task 03.1: match x * 1 and 1 * x, then rewriter.replace_op")


class MulFByOne(RewritePattern):
    """x * 1.0 -> x  and  1.0 * x -> x  (exact for every float: NaN, inf and -0.0 too)

    IEEE multiplication by ``1.0`` returns its other operand unchanged, whatever it is:
    ``NaN * 1.0`` is NaN, ``inf * 1.0`` is inf, ``-0.0 * 1.0`` is ``-0.0``. So this rewrite
    needs no fast-math flags, unlike ``x * 0.0 -> 0.0`` (``NaN * 0.0`` and ``inf * 0.0``
    are NaN, ``-2.0 * 0.0`` is ``-0.0``). The recipe is the one of ``MulIByOne``, with
    ``is_constant_float(value, 1.0)``: it compares bit for bit, so ``-1.0`` and
    ``1.0000001`` do not count as one, and it sees through splats too.

    >>> from tinycomp.ir import parse
    >>> from tinycomp.rewrite import apply_patterns_greedily
    >>> m = parse('''
    ... func.func @f(%x: f16) -> f16 {
    ...   %one = arith.constant 1.0 : f16
    ...   %a = arith.mulf %x, %one : f16
    ...   return %a : f16
    ... }''')
    >>> _ = apply_patterns_greedily(m, [MulFByOne()])
    >>> print(m.body.first_op)
    func.func @f(%x: f16) -> f16 {
      return %x : f16
    }
    """

    root = "arith.mulf"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        # TODO(Task 03.1): the pattern x * 1 -> x (and 1 * x -> x)
        raise NotImplementedError("Task 03.1: match x * 1.0 and 1.0 * x, then rewriter.replace_op")


def mul_by_one_patterns() -> list[RewritePattern]:
    """The patterns of Task 03.1, ready for ``apply_patterns_greedily(module, patterns)``.

    >>> [pattern.algebra for pattern in mul_by_one_patterns()]  # doctest: +ELLIPSIS
    ['x * 1 -> x  and  1 * x -> x  (integers...)', 'x * 1.0 -> x  and  1.0 * x -> x  (exact...)']
    """
    return [MulIByOne(), MulFByOne()]


# -- Task 03.2 ------------------------------------------------------------------------------
def compose_permutations(first: Sequence[int], second: Sequence[int]) -> tuple[int, ...]:
    """The one permutation ``r`` with ``transpose(transpose(x, first), second) ==
    transpose(x, r)``.

    ``linalg.transpose`` by ``p`` puts input dimension ``p[i]`` at output dimension ``i``,
    as ``numpy.transpose(x, p)`` does. After ``first``, dimension ``j`` holds original
    dimension ``first[j]``; ``second`` then puts dimension ``second[i]`` at ``i``, which is
    original dimension ``first[second[i]]``. So ``r[i] = first[second[i]]``.

    >>> compose_permutations([1, 0], [1, 0])
    (0, 1)
    >>> compose_permutations([1, 2, 0], [1, 2, 0])
    (2, 0, 1)
    """
    # TODO(Task 03.2): transpose(transpose(x)) -> x
    raise NotImplementedError("Task 03.2: compose the two permutations")


class TransposeOfTranspose(RewritePattern):
    """transpose(transpose(x, p), q) -> x  if p[q[i]] == i;  else -> transpose(x, r)

    with ``r = compose_permutations(p, q)``. Only transposes of tensors: their result is
    the transposed value. A transpose of memrefs has no result; it *writes* its ``outs``
    buffer, and removing it would lose that write. The recipe:

    1. ``op`` is the outer transpose (a ``TransposeOp``): ``op.inputs[0]`` is what it
       reads, ``op.outputs[0]`` its ``outs`` operand (the init tensor), ``op.dims`` its
       permutation ``q``, ``op.results`` its result (none on memrefs: return ``False``);
    2. the inner transpose is ``op.inputs[0].defining_op()``; return ``False`` unless it
       is a ``TransposeOp`` with a result; its own input is ``x``, its ``dims`` are ``p``;
    3. if ``compose_permutations(p, q)`` is the identity ``(0, 1, ..., n-1)``, replace
       ``op`` with ``x``; else replace it with a new
       ``TransposeOp.build(x, op.outputs[0], r)`` through
       ``rewriter.replace_op_with_new(op, new_op)``. The inner transpose becomes dead
       when ``op`` was its only reader, and the driver erases it.

    >>> from tinycomp.ir import parse
    >>> from tinycomp.rewrite import apply_patterns_greedily
    >>> m = parse('''
    ... func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    ...   %e1 = tensor.empty() : tensor<3x2xf32>
    ...   %t1 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e1 : tensor<3x2xf32>)
    ...           permutation = [1, 0]
    ...   %e2 = tensor.empty() : tensor<2x3xf32>
    ...   %t2 = linalg.transpose ins(%t1 : tensor<3x2xf32>) outs(%e2 : tensor<2x3xf32>)
    ...           permutation = [1, 0]
    ...   return %t2 : tensor<2x3xf32>
    ... }''')
    >>> _ = apply_patterns_greedily(m, [TransposeOfTranspose()])
    >>> print(m.body.first_op)
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      return %x : tensor<2x3xf32>
    }
    """

    root = "linalg.transpose"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        # TODO(Task 03.2): transpose(transpose(x)) -> x
        raise NotImplementedError("Task 03.2: match a transpose of a transpose, then rewrite")


# -- Task 03.3 ------------------------------------------------------------------------------
def is_dead(op: Operation) -> bool:
    """True when erasing ``op`` cannot change what the program does.

    That is when all three hold:

    1. ``op`` is not a terminator (a block must end with one);
    2. none of its results is used;
    3. running it has no effect anyone could observe: it is pure (``is_pure(op)``, which
       also looks inside the regions of ``scf.for``, ``scf.if``...), or its only effects
       are allocating the buffer it returns or reading memory
       (``op.name in UNUSED_MEANS_DEAD_OPS``: ``memref.alloc``, ``memref.load``...).

    Stores, calls and every op no dialect registered fail rule 3, so they stay.

    >>> from tinycomp.ir import parse
    >>> m = parse('''
    ... func.func @f(%x: f32, %m: memref<4xf32>, %i: index) {
    ...   %sq = arith.mulf %x, %x : f32
    ...   %v = memref.load %m[%i] : memref<4xf32>
    ...   memref.store %x, %m[%i] : memref<4xf32>
    ...   return
    ... }''')
    >>> [is_dead(op) for op in m.body.first_op.entry_block]
    [True, True, False, False]
    """
    # TODO(Task 03.3): a dead code elimination pass
    raise NotImplementedError("Task 03.3: a terminator? results used? side effects?")


class DeadCodeElimination(Pass):
    """Erase every op that ``is_dead``, until none is left.

    Erasing an op can make others dead: the ops that computed its operands may have had
    no other reader. The algorithm:

    1. List the ops nested in the root in reverse walk order: later ops before earlier
       ones, and the ops inside a region before the op that holds the region.
    2. Erase each op that ``is_dead`` (counting it in ``statistics["ops erased"]``).
       In this order the readers of a value come before its definition, so one sweep
       removes a whole chain in straight-line code; and every op inside an erased op
       has been visited already, so no op is looked at after it is gone.
    3. If anything was erased, sweep again: a value may be defined in a block listed
       *after* the block that reads it (blocks may come in any order), and then its
       reader is erased only after the definition was looked at. Stop when a sweep
       erases nothing.

    >>> from tinycomp.ir import parse
    >>> m = parse('''
    ... func.func @f(%x: f32) -> f32 {
    ...   %a = arith.mulf %x, %x : f32
    ...   %b = arith.addf %a, %x : f32
    ...   "test.print"(%x) : (f32) -> ()
    ...   return %x : f32
    ... }''')
    >>> dce = DeadCodeElimination()
    >>> dce.run(m)
    >>> print(m.body.first_op)
    func.func @f(%x: f32) -> f32 {
      "test.print"(%x) : (f32) -> ()
      return %x : f32
    }
    >>> dict(dce.statistics)
    {'ops erased': 2}
    """

    name = "my-dce"
    summary = "erase ops whose results nobody uses and that have no side effects"

    def run(self, op: Operation) -> None:
        # TODO(Task 03.3): a dead code elimination pass
        raise NotImplementedError("Task 03.3: sweep the ops in reverse walk order, erase dead ones")
