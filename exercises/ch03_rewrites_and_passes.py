"""Chapter 03: rewrites, canonicalization and the pass manager .

A *rewrite pattern* recognises a small piece of IR and replaces it with a simpler piece
that computes the same values; the *greedy driver* applies a set of patterns until none
matches any more; a *pass* transforms a whole module, and the *pass manager* runs passes
one after another. Four tasks, each plugging into tinycomp's real machinery:

1. ``MulIByOne`` and ``MulFByOne``: the pattern ``x * 1 -> x`` (and ``1 * x -> x``), run
   by ``apply_patterns_greedily``;
2. ``compose_permutations`` and ``TransposeOfTranspose``: ``transpose(transpose(x)) -> x``,
   or a single transpose when the two permutations do not cancel;
3. ``is_dead`` and ``DeadCodeElimination``: a dead code elimination pass that the pass
   manager can run between ``canonicalize`` and ``cse``;
4. ``simplify`` (open): integer arithmetic with as few ops as a budget allows, with any
   passes and patterns, the library's and your own.

Each docstring states a contract: what the code is given, what it must produce, what must
stay true, one example, and where the chapter teaches the idea. How to get there is yours
to work out; the grader answers a wrong attempt with a counter-example. The worked example
``NegateTwice`` shows the shape every pattern has. Fill in each TODO, then run
``tinycomp grade ch03``. The last cells of ``chapters/03_rewrites_and_passes.ipynb`` run
your code.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.arith import AddIOp, ConstantOp, MulIOp, SubIOp  # noqa: F401
from tinycomp.dialects.linalg import TransposeOp  # noqa: F401

# Building blocks for the tasks ("noqa: F401" keeps the linter quiet about the names your
# code does not use yet). Task 03.4 may use anything else in tinycomp too.
from tinycomp.ir import ModuleOp, Operation, Value  # noqa: F401
from tinycomp.ir.type_helpers import bitwidth  # noqa: F401
from tinycomp.passes import CSEPass, Pass, canonicalization_patterns  # noqa: F401
from tinycomp.rewrite import (  # noqa: F401
    PatternRewriter,
    RewritePattern,
    apply_patterns_greedily,
    constant_scalar,
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
    "simplify",
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

    The contract of ``match_and_rewrite(op, rewriter)``, offered an ``arith.muli``:

    * **a match** is a product one of whose operands, on either side, is the constant
      one of the op's type: ``arith.constant 1 : i32``, or a splat such as
      ``arith.constant dense<1> : tensor<4xi32>``;
    * **on a match** every reader of the product reads the other operand afterwards, the
      product is gone, the rewriter was told of both changes (the IR changes only through
      ``rewriter``), and the method returns ``True``;
    * **otherwise** (``x * 2``, ``x * -1``, ``x * x``, a vector that is not all ones) the
      IR is exactly as it was, the rewriter heard nothing, and the method returns ``False``.

    Run alone by ``apply_patterns_greedily``, without ``canonicalize``'s ``ConstantToRight``
    to help, the patterns of this task leave no multiplication by one. Building blocks:
    ``is_constant_int``, the rewriter's methods. Taught in the chapter's sections "Patterns:
    local rewrites that state their algebra" and "The rewriter is the only door".

    >>> from tinycomp.ir import parse
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
        raise NotImplementedError("Task 03.1: MulIByOne.match_and_rewrite")


class MulFByOne(RewritePattern):
    """x * 1.0 -> x  and  1.0 * x -> x  (exact for every float: NaN, inf and -0.0 too)

    The contract of ``MulIByOne``, for ``arith.mulf``: a match is a product with the
    constant ``1.0`` (a scalar or a splat) on either side, and nothing else. The rewrite
    must hold for every value of the type, bit for bit: the readers must see exactly the
    bits the product would have had, for NaN, the infinities and ``-0.0`` as for any other
    float, whatever the op's fast-math flags. So ``-1.0``, ``1.0000001`` and ``0.0`` are
    no match. Building block: ``is_constant_float``. Taught in the section "``x * 1`` for
    every float, ``x * 0`` only for integers".

    >>> from tinycomp.ir import parse
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
        raise NotImplementedError("Task 03.1: MulFByOne.match_and_rewrite")


def mul_by_one_patterns() -> list[RewritePattern]:
    """The patterns of Task 03.1, ready for ``apply_patterns_greedily(module, patterns)``.

    >>> [pattern.algebra for pattern in mul_by_one_patterns()]  # doctest: +ELLIPSIS
    ['x * 1 -> x  and  1 * x -> x  (integers...)', 'x * 1.0 -> x  and  1.0 * x -> x  (exact...)']
    """
    return [MulIByOne(), MulFByOne()]


# -- Task 03.2 ------------------------------------------------------------------------------
def compose_permutations(first: Sequence[int], second: Sequence[int]) -> tuple[int, ...]:
    """The one permutation ``r`` with ``transpose(transpose(x, first), second) ==
    transpose(x, r)``, for every tensor ``x`` of rank ``len(first)``.

    Inputs: two permutations of ``0 .. n-1`` of the same length, in ``linalg.transpose``'s
    convention, which is ``numpy.transpose``'s: transposing by ``p`` puts input dimension
    ``p[i]`` at output dimension ``i``. Output: a tuple of ints (a list never equals a
    tuple). Invariant: ``numpy.transpose(numpy.transpose(x, first), second)`` and
    ``numpy.transpose(x, r)`` are the same array, element for element. Taught in the
    section "Trust, but check" (``[1, 2, 0]`` twice is ``[2, 0, 1]``) and in chapter 02,
    where a permutation is an affine map.

    >>> compose_permutations([1, 0], [1, 0])  # a 2-D transpose twice: the identity
    (0, 1)
    """
    # TODO(Task 03.2): transpose(transpose(x)) -> x
    raise NotImplementedError("Task 03.2: compose_permutations")


class TransposeOfTranspose(RewritePattern):
    """transpose(transpose(x, p), q) -> x  if the two cancel;  else -> transpose(x, r)

    The contract of ``match_and_rewrite(op, rewriter)``, offered a ``linalg.transpose``:

    * **a match** is a transpose of tensors (it has a result) whose input is the result
      of another transpose of tensors; that inner one reads ``x``;
    * **on a match** the readers of ``op`` afterwards read a value equal, element for
      element, to ``op``'s result, computed from ``x`` by at most one ``linalg.transpose``
      (none when the two permutations cancel); the inner transpose stays for as long as
      anything else reads it; the method returns ``True``;
    * **otherwise** the IR is unchanged and the method returns ``False``. A transpose of
      memrefs has no result: it *writes* its ``outs`` buffer, so it is never a match.

    Building blocks: ``compose_permutations``; ``TransposeOp``, whose ``inputs``,
    ``outputs`` (the init tensor), ``dims`` (the permutation) and ``results`` say what it
    is, and ``TransposeOp.build(input, init, permutation)``; the rewriter's methods. Taught
    in the sections "Patterns" and "Trust, but check".

    >>> from tinycomp.ir import parse
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
        raise NotImplementedError("Task 03.2: TransposeOfTranspose.match_and_rewrite")


# -- Task 03.3 ------------------------------------------------------------------------------
def is_dead(op: Operation) -> bool:
    """True when erasing ``op`` cannot change what the program computes or stores.

    Input: any op in a block. Output: a bool. ``op`` is dead when nothing reads any of
    its results, it is not a terminator (a block must end with one), and running it has
    no effect that another op could observe. Writing memory, calling a function, and
    whatever an op that no dialect registered might do are such effects, also inside the
    regions of an op (a loop whose body stores); allocating a buffer nobody uses, or
    reading memory into a value nobody uses, are not. Building blocks: ``is_pure(op)``
    (no side effects at all, the op's regions included) and ``UNUSED_MEANS_DEAD_OPS`` (the
    names of the ops whose only effects are allocating or reading). Taught in the section
    "CSE and DCE".

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
    raise NotImplementedError("Task 03.3: is_dead")


class DeadCodeElimination(Pass):
    """A pass that erases dead ops until none is left.

    The contract of ``run(root)``: afterwards no op nested in ``root`` is dead in the
    sense of ``is_dead``, however the blocks of a region are ordered; every op it erased
    was dead when it erased it (so every op with an effect, and every op whose value such
    an op reads, is still there); ``root`` itself stays; ``statistics["ops erased"]``
    counts the ops it erased. Erasing an op can make others dead: the ops that computed
    its operands may have had no other reader. The pass manager runs it under its
    ``name``, ``my-dce``. Taught in the sections "CSE and DCE" and "The pass manager"; the
    library's ``dce`` does the same and more (dead block arguments, uncalled private
    functions).

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
        raise NotImplementedError("Task 03.3: DeadCodeElimination.run")


# -- Task 03.4 ------------------------------------------------------------------------------
def simplify(module: ModuleOp) -> None:
    """Rewrite ``module`` in place to compute the same integers with as few ops as the
    budget allows. An open task: use any passes and patterns, the library's and your own.

    Input: a module of ``func.func`` functions whose bodies are ``arith`` integer ops
    (``addi``, ``subi``, ``muli`` on ``i32`` and ``index``, with constants on either side)
    on the functions' arguments. Invariants: the module still verifies, and every function
    returns the same bits as before on every input (integers wrap around modulo 2^n).
    Budget, counted: the ops left other than ``arith.constant`` and the functions and
    their returns. A chain of steps that each add, subtract or multiply by a constant
    costs one op per maximal run of additive steps and one per run of multiplicative
    steps (a run that amounts to ``+ 0`` or ``* 1`` costs nothing, and the runs on either
    side of it then meet); two values that are equal by that count are one op. MLIR's
    canonicalizer reassociates constants like this (``mlir-opt --canonicalize`` leaves two
    ops of the example below); the library's ``canonicalize`` and ``cse`` alone do not.
    Taught in the sections "Why rewrite: one canonical form", "Patterns", "The greedy
    driver and its fixpoint" and "The pass manager".

    >>> from tinycomp.ir import parse
    >>> m = parse('''
    ... func.func @f(%x: i32) -> i32 {
    ...   %c3 = arith.constant 3 : i32
    ...   %c5 = arith.constant 5 : i32
    ...   %c7 = arith.constant 7 : i32
    ...   %a = arith.addi %x, %c3 : i32
    ...   %b = arith.addi %a, %c5 : i32
    ...   %c = arith.subi %c7, %b : i32
    ...   %d = arith.muli %c, %c3 : i32
    ...   %e = arith.muli %d, %c5 : i32
    ...   return %e : i32
    ... }''')
    >>> simplify(m)  # 7 - (x + 3 + 5) is -1 - x, then * 3 * 5 is * 15: two ops
    >>> sorted(op.name for op in m.walk() if op.name in ("arith.addi", "arith.subi",
    ...                                                  "arith.muli"))
    ['arith.muli', 'arith.subi']
    """
    # TODO(Task 03.4): integer arithmetic within an op budget (open)
    raise NotImplementedError("Task 03.4: simplify")
