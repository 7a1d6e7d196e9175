"""Graded tests for chapter 03 (`ch03_rewrites_and_passes.py`): patterns, a DCE pass and an
open simplification task.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).

The patterns run in the real greedy driver (`apply_patterns_greedily`) on their own: the
library's canonicalization patterns are not there to help. Every rewritten module must
verify, and the reference interpreter runs it before and after on random inputs (NaN,
infinities and -0.0 included for floats): the results must agree bit for bit. Where a task
has one answer, the IR is compared with it up to SSA names (after merging equal
`tensor.empty` ops, so that any init tensor of the right type is accepted); the DCE pass must
leave exactly the ops the library's `DCEPass` leaves, and keep every op with a side effect.
Task 03.4 is open: any pipeline is fine if the result computes the same bits with no more
ops than the budget, counted on random programs.

While the student's code runs, the library's own implementation of the task at hand
(`MulIOne`, `TransposeOfTranspose`, `compose_permutations`, `is_trivially_dead`, `DCEPass`,
...) refuses to run, and a call to it fails the task with a message that says so.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tinycomp.grading.checks import (
    GradingFailure,
    expect_equal,
    expect_instance,
    expect_text,
)
from tinycomp.grading.ir_checks import (
    expect_ir,
    expect_same_behaviour,
    expect_verifies,
)
from tinycomp.grading.library_calls import library_replaced as without_library
from tinycomp.grading.library_calls import student_line
from tinycomp.ir import (
    ModuleOp,
    Operation,
    VerifyError,
    parse,
    print_ir,
    verify,
)
from tinycomp.ir.printer import print_op_summary
from tinycomp.passes import CSEPass, DCEPass, canonicalization_patterns, canonicalize
from tinycomp.rewrite import (
    PatternRewriter,
    RewriteError,
    RewriteListener,
    apply_patterns_greedily,
    is_constant_float,
    is_constant_int,
    is_trivially_dead,
)

task03_1 = pytest.mark.task03_1
task03_2 = pytest.mark.task03_2
task03_3 = pytest.mark.task03_3


# -- the library's own answers are off limits ------------------------------------------------
LIBRARY_PATTERNS = {type(p).__name__: type(p) for p in canonicalization_patterns()}
LIBRARY_MUL_BY_ONE = {
    "MulIOne pattern": (LIBRARY_PATTERNS["MulIOne"], "match_and_rewrite"),
    "MulFOne pattern": (LIBRARY_PATTERNS["MulFOne"], "match_and_rewrite"),
    "CanonicalizePass": (canonicalize.CanonicalizePass, "run"),
}
LIBRARY_TRANSPOSES = {
    "compose_permutations (tinycomp.passes.canonicalize.linalg)": (
        canonicalize.linalg.compose_permutations
    ),
    "TransposeOfTranspose pattern": (canonicalize.TransposeOfTranspose, "match_and_rewrite"),
    "ComposeTransposes pattern": (canonicalize.ComposeTransposes, "match_and_rewrite"),
    "CanonicalizePass": (canonicalize.CanonicalizePass, "run"),
}
LIBRARY_DCE = {
    "is_trivially_dead": is_trivially_dead,
    "DCEPass": (DCEPass, "run"),
}


# -- running the greedy driver -----------------------------------------------------------
def apply_patterns(what: str, module: ModuleOp, patterns: list, before_text: str) -> None:
    """Run the greedy driver with the student's patterns, explaining a ``RewriteError``."""
    try:
        apply_patterns_greedily(module, patterns)
    except RewriteError as error:
        hint = ""
        if "converge" in str(error):
            hint = (
                "\nhint: a pattern that returns True must have changed the IR; returning "
                "True without a change makes the driver offer it the same op again and again"
            )
        raise GradingFailure(
            f"{what}: the greedy driver stopped: RewriteError: {error}{hint}\n"
            f"IR before:\n{print_ir(parse(before_text))}"
        ) from None


class RecordingListener(RewriteListener):
    """Remembers what the rewriter told it, as ``(event, op)`` pairs."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Operation]] = []

    def notify_op_inserted(self, op: Operation) -> None:
        self.events.append(("inserted", op))

    def notify_op_modified(self, op: Operation) -> None:
        self.events.append(("modified", op))

    def notify_op_replaced(self, op: Operation, new_values) -> None:
        self.events.append(("replaced", op))

    def notify_op_erased(self, op: Operation) -> None:
        self.events.append(("erased", op))


def call_pattern(pattern, op: Operation) -> tuple[object, RecordingListener]:
    """Offer ``op`` to ``pattern`` as the driver would; its answer and what it reported."""
    listener = RecordingListener()
    rewriter = PatternRewriter(listener)
    rewriter.set_current_op(op)
    return pattern.match_and_rewrite(op, rewriter), listener


def one_line(op: Operation) -> str:
    """``op`` on one line: its text, or its generic form with regions elided."""
    return print_op_summary(op) if op.regions else print_ir(op)


def function_ops(module: ModuleOp) -> list[Operation]:
    """The ops of the first function's entry block."""
    return list(module.body.first_op.entry_block.ops)


# -- Task 03.1 -------------------------------------------------------------------------------
MUL_CASES = {
    "x_times_one": (
        """
func.func @f(%x: i32, %i: index, %y: f32) -> (i32, index, f32) {
  %one = arith.constant 1 : i32
  %c1 = arith.constant 1 : index
  %fone = arith.constant 1.0 : f32
  %a = arith.muli %x, %one : i32
  %b = arith.muli %i, %c1 overflow<nsw> : index
  %c = arith.mulf %y, %fone : f32
  return %a, %b, %c : i32, index, f32
}""",
        """
func.func @f(%x: i32, %i: index, %y: f32) -> (i32, index, f32) {
  return %x, %i, %y : i32, index, f32
}""",
    ),
    "one_times_x": (
        """
func.func @f(%x: i32, %y: f32, %z: f32) -> (i32, f32) {
  %one = arith.constant 1 : i32
  %fone = arith.constant 1.0 : f32
  %a = arith.muli %one, %x : i32
  %b = arith.mulf %fone, %y : f32
  %c = arith.addf %b, %z : f32
  return %a, %c : i32, f32
}""",
        """
func.func @f(%x: i32, %y: f32, %z: f32) -> (i32, f32) {
  %c = arith.addf %y, %z : f32
  return %x, %c : i32, f32
}""",
    ),
    "floats_vectors_tensors": (
        """
func.func @f(%h: f16, %v: vector<4xf32>, %t: tensor<2x2xf16>, %y: f32)
    -> (f16, vector<4xf32>, tensor<2x2xf16>, f32) {
  %hone = arith.constant 1.0 : f16
  %vone = arith.constant dense<1.0> : vector<4xf32>
  %tone = arith.constant dense<1.0> : tensor<2x2xf16>
  %fone = arith.constant 1.0 : f32
  %a = arith.mulf %h, %hone : f16
  %b = arith.mulf %vone, %v : vector<4xf32>
  %c = arith.mulf %t, %tone fastmath<fast> : tensor<2x2xf16>
  %d = arith.mulf %y, %fone fastmath<contract> : f32
  return %a, %b, %c, %d : f16, vector<4xf32>, tensor<2x2xf16>, f32
}""",
        """
func.func @f(%h: f16, %v: vector<4xf32>, %t: tensor<2x2xf16>, %y: f32)
    -> (f16, vector<4xf32>, tensor<2x2xf16>, f32) {
  return %h, %v, %t, %y : f16, vector<4xf32>, tensor<2x2xf16>, f32
}""",
    ),
    "chains": (
        """
func.func @f(%x: i32, %y: i32) -> (i32, i32) {
  %one = arith.constant 1 : i32
  %a = arith.muli %x, %one : i32
  %b = arith.muli %one, %a : i32
  %c = arith.muli %b, %one : i32
  %d = arith.addi %c, %a : i32
  %e = arith.muli %d, %y : i32
  %f = arith.muli %one, %one : i32
  %g = arith.muli %e, %f : i32
  return %g, %b : i32, i32
}""",
        """
func.func @f(%x: i32, %y: i32) -> (i32, i32) {
  %d = arith.addi %x, %x : i32
  %e = arith.muli %d, %y : i32
  return %e, %x : i32, i32
}""",
    ),
    "not_one": (
        """
func.func @f(%x: i32, %y: f32, %v: vector<4xf32>)
    -> (i32, i32, i32, i32, f32, f32, f32, vector<4xf32>) {
  %two = arith.constant 2 : i32
  %minus_one = arith.constant -1 : i32
  %zero = arith.constant 0 : i32
  %fminus_one = arith.constant -1.0 : f32
  %fzero = arith.constant 0.0 : f32
  %almost_one = arith.constant 1.00000012 : f32
  %mixed = arith.constant dense<[1.0, 2.0, 1.0, 1.0]> : vector<4xf32>
  %a = arith.muli %x, %two : i32
  %b = arith.muli %minus_one, %x : i32
  %c = arith.muli %x, %x : i32
  %i = arith.muli %x, %zero : i32
  %d = arith.mulf %y, %fminus_one : f32
  %e = arith.mulf %fzero, %y : f32
  %f = arith.mulf %y, %almost_one : f32
  %h = arith.mulf %v, %mixed : vector<4xf32>
  return %a, %b, %c, %i, %d, %e, %f, %h : i32, i32, i32, i32, f32, f32, f32, vector<4xf32>
}""",
        None,  # nothing to rewrite: the output is the input
    ),
}
MUL_HINTS = {
    "x_times_one": "x * 1 -> x, for arith.muli (i32 and index) and arith.mulf",
    "one_times_x": "1 * x -> x too: multiplication is commutative, the constant may be on the left",
    "floats_vectors_tensors": "is_constant_float(value, 1.0) sees through splats such as "
    "dense<1.0> : vector<4xf32>; fast-math flags do not matter for x * 1.0",
    "chains": "a rewrite can expose another: the driver offers the readers of a replaced op "
    "to the patterns again, so return True only after a real change",
    "not_one": "only a multiplication by exactly one may go: x * 2, x * -1, x * 0, x * x, "
    "y * -1.0, y * 0.0 (wrong for NaN, inf and -0.0), y * 1.00000012 and a vector "
    "that is not all ones must stay",
}


def remaining_multiplications_by_one(module: ModuleOp) -> list[Operation]:
    """``arith.muli``/``arith.mulf`` ops with a constant one on either side."""
    found = []
    for op in module.walk():
        if op.name == "arith.muli":
            is_one = [is_constant_int(value, 1) for value in op.operands]
        elif op.name == "arith.mulf":
            is_one = [is_constant_float(value, 1.0) for value in op.operands]
        else:
            continue
        if any(is_one):
            found.append(op)
    return found


def expect_no_multiplication_by_one(what: str, module: ModuleOp) -> None:
    """No ``x * 1`` or ``1 * x`` is left; the message says on which side each one is."""
    left = remaining_multiplications_by_one(module)
    if not left:
        return
    lines = []
    for op in left:
        lhs = op.operands[0]
        one_on_left = is_constant_int(lhs, 1) or is_constant_float(lhs, 1.0)
        side = "left (1 * x)" if one_on_left else "right (x * 1)"
        kind = ", the float 1.0" if op.name == "arith.mulf" else ""
        lines.append(f"  {print_ir(op)}   <- the one is on the {side}{kind}")
    raise GradingFailure(
        f"{what}: {len(left)} multiplication(s) by one are left after your patterns ran:\n"
        + "\n".join(lines)
        + f"\nIR after:\n{print_ir(module)}"
    )


@task03_1
@pytest.mark.parametrize("case", list(MUL_CASES))
def test_mul_by_one_on_golden_ir(impl, case):
    before_text, expected_text = MUL_CASES[case]
    module = parse(before_text)
    what = f"apply_patterns_greedily(@f of case '{case}', mul_by_one_patterns())"
    with without_library(what, impl, "Task 03.1", LIBRARY_MUL_BY_ONE):
        apply_patterns(what, module, impl.mul_by_one_patterns(), before_text)
    expect_verifies(what, module, before_text)
    try:
        expect_no_multiplication_by_one(what, module)
        expect_ir(what, module, expected_text or before_text)
    except GradingFailure as failure:
        raise GradingFailure(f"{failure}\nhint: {MUL_HINTS[case]}") from None
    expect_same_behaviour(what, before_text, module, np.random.default_rng(301))


ONE_OPS = {  # the op, and the argument of @f its reader must read afterwards
    "MulIByOne": [
        ("%a = arith.muli %x, %one : i32", 0),
        ("%a = arith.muli %one, %x : i32", 0),
        ("%a = arith.muli %vx, %vone : tensor<3xi32>", 2),
    ],
    "MulFByOne": [
        ("%a = arith.mulf %y, %fone : f32", 1),
        ("%a = arith.mulf %fone, %y : f32", 1),
        ("%a = arith.mulf %vy, %vfone : tensor<3xf32>", 3),
    ],
}
NOT_ONE_OPS = {  # the op, and why it is not x
    "MulIByOne": [
        ("%a = arith.muli %x, %two : i32", "x * 2 is not x"),
        ("%a = arith.muli %x, %x : i32", "x * x is not x"),
    ],
    "MulFByOne": [
        ("%a = arith.mulf %y, %fzero : f32", "y * 0.0 is not y (nor always 0.0: NaN * 0.0 is "
         "NaN, inf * 0.0 is NaN, -2.0 * 0.0 is -0.0)"),
        ("%a = arith.mulf %fminus, %y : f32", "-1.0 * y is -y, not y"),
    ],
}  # fmt: skip
CONTRACT_TEMPLATE = """
func.func @f(%x: i32, %y: f32, %vx: tensor<3xi32>, %vy: tensor<3xf32>) {{
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %fone = arith.constant 1.0 : f32
  %fzero = arith.constant 0.0 : f32
  %fminus = arith.constant -1.0 : f32
  %vone = arith.constant dense<1> : tensor<3xi32>
  %vfone = arith.constant dense<1.0> : tensor<3xf32>
  {op}
  "test.use"(%a) : ({type}) -> ()
  return
}}"""


def contract_module(op_text: str) -> tuple[ModuleOp, Operation]:
    """A function holding ``op_text`` (defining ``%a``) and a reader of ``%a``."""
    result_type = op_text.rsplit(": ", 1)[1]
    module = parse(CONTRACT_TEMPLATE.format(op=op_text, type=result_type))
    return module, function_ops(module)[7]


@task03_1
@pytest.mark.parametrize("pattern_name", list(ONE_OPS))
def test_pattern_rewrites_through_the_rewriter(impl, pattern_name):
    """On a match: return True, and replace the op through the rewriter."""
    for op_text, argument in ONE_OPS[pattern_name]:
        module, op = contract_module(op_text)
        replacement = module.body.first_op.arguments[argument]
        what = f"{pattern_name}().match_and_rewrite(`{op_text}`, rewriter)"
        with without_library(what, impl, "Task 03.1", LIBRARY_MUL_BY_ONE):
            answer, listener = call_pattern(getattr(impl, pattern_name)(), op)
        expect_equal(f"{what} returned", answer, True)
        reader = function_ops(module)[-2]
        if op.parent is not None:
            raise GradingFailure(
                f"{what}: returned True, but the op is still in the IR (replace it with "
                f"rewriter.replace_op(op, [x]))\n{print_ir(module)}"
            )
        if reader.operands[0] is not replacement:
            raise GradingFailure(
                f"{what}: the reader of %a should now read {op_text.split()[3].rstrip(',')} "
                f"(the factor that is not one), but the IR is:\n{print_ir(module)}"
            )
        told = {event for event, target in listener.events if target is op}
        if not told & {"replaced", "erased"}:
            raise GradingFailure(
                f"{what}: the op was removed behind the rewriter's back: the rewriter "
                f"reported {sorted(told) or 'nothing'} about it. Use rewriter.replace_op(op, "
                "[x]): the greedy driver learns of every change only through the rewriter, "
                "and revisits the readers and the operands' producers because of it"
            )


@task03_1
@pytest.mark.parametrize("pattern_name", list(NOT_ONE_OPS))
def test_pattern_leaves_other_ops_alone(impl, pattern_name):
    """On no match: return False, and change nothing."""
    for op_text, why in NOT_ONE_OPS[pattern_name]:
        module, op = contract_module(op_text)
        before = print_ir(module)
        what = f"{pattern_name}().match_and_rewrite(`{op_text}`, rewriter)"
        with without_library(what, impl, "Task 03.1", LIBRARY_MUL_BY_ONE):
            answer, listener = call_pattern(getattr(impl, pattern_name)(), op)
        if answer is not False:
            raise GradingFailure(
                f"{what}: expected False (no match: {why}), found {answer!r}"
                + ("" if op.parent is not None else "; and the op was removed")
            )
        expect_text(f"{what}: returned False, so the IR must not change", print_ir(module), before)
        expect_equal(f"{what}: changes reported to the rewriter", listener.events, [])


def random_mul_module(rng: np.random.Generator) -> str:
    """A function multiplying its arguments by 1, 2, -1, 0... on either side, in i32,
    index, f32, f16 and tensor<2x3xf32>, mixed with adds; it returns a few values."""
    families = [
        ("i32", ["1", "1", "2", "-1", "0", "3"], "muli", "addi"),
        ("index", ["1", "1", "2", "5"], "muli", "addi"),
        ("f32", ["1.0", "1.0", "-1.0", "2.0", "0.0", "-0.0", "0.5"], "mulf", "addf"),
        ("f16", ["1.0", "1.0", "-1.0", "0.0", "1.5"], "mulf", "addf"),
        ("tensor<2x3xf32>", ["dense<1.0>", "dense<1.0>", "dense<-1.0>", "dense<2.0>"], "mulf",
         "addf"),
    ]  # fmt: skip
    lines: list[str] = []
    pool: dict[str, list[str]] = {}
    arguments = []
    for number, (value_type, _, _, _) in enumerate(families):
        for k in range(2):
            name = f"%arg{number}_{k}"
            arguments.append(f"{name}: {value_type}")
            pool.setdefault(value_type, []).append(name)
    for step in range(int(rng.integers(4, 13))):
        value_type, constants, mul, add = families[int(rng.integers(len(families)))]
        values = pool[value_type]
        x = values[int(rng.integers(len(values)))]
        kind = rng.integers(0, 6)
        if kind <= 3:  # x * c or c * x
            constant = constants[int(rng.integers(len(constants)))]
            lines.append(f"%c{step} = arith.constant {constant} : {value_type}")
            operands = [x, f"%c{step}"] if rng.integers(2) else [f"%c{step}", x]
            lines.append(f"%v{step} = arith.{mul} {operands[0]}, {operands[1]} : {value_type}")
        elif kind == 4:
            y = values[int(rng.integers(len(values)))]
            lines.append(f"%v{step} = arith.{add} {x}, {y} : {value_type}")
        else:
            y = values[int(rng.integers(len(values)))]
            lines.append(f"%v{step} = arith.{mul} {x}, {y} : {value_type}")
        values.append(f"%v{step}")
    type_of = {v: t for t, values in pool.items() for v in values if v.startswith("%v")}
    made = sorted(type_of)
    returned = sorted(set(rng.choice(made, size=min(3, len(made)), replace=False).tolist()))
    types = [type_of[v] for v in returned]
    body = "\n  ".join(lines)
    return (
        f"func.func @main({', '.join(arguments)}) -> ({', '.join(types)}) {{\n  {body}\n"
        f"  return {', '.join(returned)} : {', '.join(types)}\n}}"
    )


@task03_1
def test_mul_by_one_on_random_modules(impl):
    """No multiplication by one is left, the IR verifies, and nothing else changes."""
    rng = np.random.default_rng(3101)
    for number in range(25):
        text = random_mul_module(rng)
        module = parse(text)
        what = f"random module #{number}"
        with without_library(what, impl, "Task 03.1", LIBRARY_MUL_BY_ONE):
            apply_patterns(what, module, impl.mul_by_one_patterns(), text)
        expect_verifies(what, module, text)
        expect_no_multiplication_by_one(what, module)
        expect_same_behaviour(what, text, module, rng, trials=3)


# -- Task 03.2 -------------------------------------------------------------------------------
@task03_2
@pytest.mark.parametrize(
    "first, second, expected",
    [
        ((1, 0), (1, 0), (0, 1)),
        ((0, 1), (1, 0), (1, 0)),
        ((1, 2, 0), (2, 0, 1), (0, 1, 2)),
        ((1, 2, 0), (1, 2, 0), (2, 0, 1)),
        ((0, 2, 1), (1, 0, 2), (2, 0, 1)),
        ((3, 1, 0, 2), (2, 3, 1, 0), (0, 2, 1, 3)),
    ],
)
def test_compose_permutations(impl, first, second, expected):
    what = f"compose_permutations({first}, {second})"
    with without_library(what, impl, "Task 03.2", LIBRARY_TRANSPOSES):
        found = impl.compose_permutations(first, second)
    expect_instance(what, found, tuple, "a tuple of ints (a list never equals a tuple)")
    if found != expected:
        raise GradingFailure(
            f"{what}: expected {expected}, found {found}. Transposing by p puts input "
            "dimension p[i] at position i (numpy.transpose(x, p)); after p, then q, position i "
            "holds original dimension p[q[i]]"
        )


@task03_2
def test_compose_permutations_agrees_with_numpy(impl):
    rng = np.random.default_rng(3201)
    for rank in (2, 3, 4, 5):
        x = rng.standard_normal(tuple(range(2, 2 + rank)))
        for _ in range(8):
            p, q = tuple(rng.permutation(rank).tolist()), tuple(rng.permutation(rank).tolist())
            what = f"compose_permutations({p}, {q})"
            with without_library(what, impl, "Task 03.2", LIBRARY_TRANSPOSES):
                r = tuple(int(v) for v in impl.compose_permutations(p, q))
            expected = np.transpose(np.transpose(x, p), q)
            if sorted(r) != list(range(rank)) or not np.array_equal(np.transpose(x, r), expected):
                raise GradingFailure(
                    f"compose_permutations({p}, {q}) = {r}: numpy.transpose(x, {r}) is not "
                    f"numpy.transpose(numpy.transpose(x, {p}), {q}) for x of shape {x.shape}"
                )


TRANSPOSE_CASES = {  # input, hint; the reference output is the library's
    "cancel_2d": (
        """
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e1 = tensor.empty() : tensor<3x2xf32>
  %t1 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e1 : tensor<3x2xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<2x3xf32>
  %t2 = linalg.transpose ins(%t1 : tensor<3x2xf32>) outs(%e2 : tensor<2x3xf32>) permutation = [1, 0]
  return %t2 : tensor<2x3xf32>
}""",
        "[1, 0] then [1, 0] cancel: the result is %x itself",
    ),
    "cancel_3d": (
        """
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %e1 = tensor.empty() : tensor<3x4x2xf32>
  %t1 = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e1 : tensor<3x4x2xf32>)
          permutation = [1, 2, 0]
  %e2 = tensor.empty() : tensor<2x3x4xf32>
  %t2 = linalg.transpose ins(%t1 : tensor<3x4x2xf32>) outs(%e2 : tensor<2x3x4xf32>)
          permutation = [2, 0, 1]
  return %t2 : tensor<2x3x4xf32>
}""",
        "[1, 2, 0] then [2, 0, 1] cancel: compose_permutations gives (0, 1, 2)",
    ),
    "compose_3d": (
        """
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %e1 = tensor.empty() : tensor<3x4x2xf32>
  %t1 = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e1 : tensor<3x4x2xf32>)
          permutation = [1, 2, 0]
  %e2 = tensor.empty() : tensor<4x2x3xf32>
  %t2 = linalg.transpose ins(%t1 : tensor<3x4x2xf32>) outs(%e2 : tensor<4x2x3xf32>)
          permutation = [1, 2, 0]
  return %t2 : tensor<4x2x3xf32>
}""",
        "[1, 2, 0] then [1, 2, 0] do not cancel: one transpose of %x by p[q[i]] = [2, 0, 1], "
        "into the outer transpose's init (outs) tensor",
    ),
    "cube": (
        """
func.func @f(%x: tensor<3x3x3xi32>) -> tensor<3x3x3xi32> {
  %e = tensor.empty() : tensor<3x3x3xi32>
  %t1 = linalg.transpose ins(%x : tensor<3x3x3xi32>) outs(%e : tensor<3x3x3xi32>)
          permutation = [1, 2, 0]
  %t2 = linalg.transpose ins(%t1 : tensor<3x3x3xi32>) outs(%e : tensor<3x3x3xi32>)
          permutation = [1, 2, 0]
  return %t2 : tensor<3x3x3xi32>
}""",
        "on a 3x3x3 cube every permutation keeps the type, but [1, 2, 0] twice is still a "
        "transpose (by [2, 0, 1]): compare permutations, not types",
    ),
    "three_in_a_row": (
        """
func.func @f(%x: tensor<2x5xf16>) -> tensor<5x2xf16> {
  %e1 = tensor.empty() : tensor<5x2xf16>
  %e2 = tensor.empty() : tensor<2x5xf16>
  %t1 = linalg.transpose ins(%x : tensor<2x5xf16>) outs(%e1 : tensor<5x2xf16>) permutation = [1, 0]
  %t2 = linalg.transpose ins(%t1 : tensor<5x2xf16>) outs(%e2 : tensor<2x5xf16>) permutation = [1, 0]
  %t3 = linalg.transpose ins(%t2 : tensor<2x5xf16>) outs(%e1 : tensor<5x2xf16>) permutation = [1, 0]
  return %t3 : tensor<5x2xf16>
}""",
        "three transposes by [1, 0] are one transpose by [1, 0]",
    ),
    "shared_inner": (
        """
func.func @f(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %e1 = tensor.empty() : tensor<3x2xf32>
  %t1 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e1 : tensor<3x2xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<2x3xf32>
  %t2 = linalg.transpose ins(%t1 : tensor<3x2xf32>) outs(%e2 : tensor<2x3xf32>) permutation = [1, 0]
  return %t1, %t2 : tensor<3x2xf32>, tensor<2x3xf32>
}""",
        "the inner transpose is returned too: replace the outer one, leave the inner one "
        "(it is still read)",
    ),
    "not_a_pair": (
        """
func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %sum = arith.addf %x, %y : tensor<2x3xf32>
  %e1 = tensor.empty() : tensor<3x2xf32>
  %t1 = linalg.transpose ins(%sum : tensor<2x3xf32>) outs(%e1 : tensor<3x2xf32>)
          permutation = [1, 0]
  %e2 = tensor.empty() : tensor<2x3xf32>
  %t2 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e2 : tensor<2x3xf32>) permutation = [0, 1]
  %u = arith.addf %t2, %y : tensor<2x3xf32>
  %e3 = tensor.empty() : tensor<3x2xf32>
  %t3 = linalg.transpose ins(%u : tensor<2x3xf32>) outs(%e3 : tensor<3x2xf32>) permutation = [1, 0]
  %r = arith.addf %t1, %t3 : tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}""",
        "a transpose of something that is not a transpose (an argument, an arith.addf) "
        "must stay as it is",
    ),
    "memrefs": (
        """
func.func @f(%x: memref<2x3xf32>, %y: memref<3x2xf32>, %z: memref<2x3xf32>) {
  linalg.transpose ins(%x : memref<2x3xf32>) outs(%y : memref<3x2xf32>) permutation = [1, 0]
  linalg.transpose ins(%y : memref<3x2xf32>) outs(%z : memref<2x3xf32>) permutation = [1, 0]
  return
}""",
        "on memrefs a transpose has no result: it writes its outs buffer, and %y must still "
        "be written. Rewrite only transposes with a result (tensors)",
    ),
}


def inits_merged(module: ModuleOp) -> ModuleOp:
    """A copy of ``module`` with equal ``tensor.empty`` ops merged and dead ops erased: any
    init of the right type is as good as the outer transpose's own."""
    copy = module.clone()
    CSEPass().run(copy)
    DCEPass().run(copy)
    return copy


@task03_2
@pytest.mark.parametrize("case", list(TRANSPOSE_CASES))
def test_transpose_of_transpose_on_golden_ir(impl, case):
    before_text, hint = TRANSPOSE_CASES[case]
    module = parse(before_text)
    what = f"apply_patterns_greedily(@f of case '{case}', [TransposeOfTranspose()])"
    reference = parse(before_text)  # the library's two patterns do the same job
    apply_patterns_greedily(reference, [canonicalize.TransposeOfTranspose(),
                                        canonicalize.ComposeTransposes()])  # fmt: skip
    try:
        with without_library(what, impl, "Task 03.2", LIBRARY_TRANSPOSES):
            apply_patterns(what, module, [impl.TransposeOfTranspose()], before_text)
        expect_verifies(what, module, before_text)
        expect_ir(what, inits_merged(module), print_ir(inits_merged(reference)))
    except GradingFailure as failure:
        raise GradingFailure(f"{failure}\nhint: {hint}") from None
    expect_same_behaviour(what, before_text, module, np.random.default_rng(302))


def random_transpose_chain(rng: np.random.Generator) -> tuple[str, tuple[int, ...]]:
    """A function transposing a random tensor 2 to 4 times; also the total permutation."""
    rank = int(rng.integers(2, 5))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    element = ["f32", "f16", "i32"][int(rng.integers(3))]

    def tensor(dims: tuple[int, ...]) -> str:
        return f"tensor<{'x'.join(map(str, dims))}x{element}>"

    lines, value, current, total = [], "%x", shape, tuple(range(rank))
    for step in range(int(rng.integers(2, 5))):
        permutation = tuple(int(v) for v in rng.permutation(rank))
        new = tuple(current[p] for p in permutation)
        lines.append(f"%e{step} = tensor.empty() : {tensor(new)}")
        lines.append(
            f"%t{step} = linalg.transpose ins({value} : {tensor(current)}) "
            f"outs(%e{step} : {tensor(new)}) permutation = {list(permutation)}"
        )
        value, current = f"%t{step}", new
        total = tuple(total[p] for p in permutation)
    body = "\n  ".join(lines)
    text = (
        f"func.func @main(%x: {tensor(shape)}) -> {tensor(current)} {{\n  {body}\n"
        f"  return {value} : {tensor(current)}\n}}"
    )
    return text, total


@task03_2
def test_transpose_chains_on_random_tensors(impl):
    """A chain of transposes becomes %x or a single transpose, and computes the same."""
    rng = np.random.default_rng(3202)
    for number in range(20):
        text, total = random_transpose_chain(rng)
        module = parse(text)
        what = f"random transpose chain #{number}"
        with without_library(what, impl, "Task 03.2", LIBRARY_TRANSPOSES):
            apply_patterns(what, module, [impl.TransposeOfTranspose()], text)
        expect_verifies(what, module, text)
        left = [op for op in module.walk() if op.name == "linalg.transpose"]
        identity = total == tuple(range(len(total)))
        x = module.body.first_op.arguments[0]
        single = len(left) == 1 and left[0].operands[0] is x and tuple(left[0].dims) == total
        if not (single or (identity and not left)):
            result = "%x itself" if identity else f"one transpose of %x by {list(total)}"
            raise GradingFailure(
                f"{what}: the chain transposes by {list(total)} in all, so it should become "
                f"{result}; found {len(left)} linalg.transpose op(s)\nIR before:\n"
                f"{print_ir(parse(text))}\nIR after:\n{print_ir(module)}"
            )
        expect_same_behaviour(what, text, module, rng, trials=2)


# -- Task 03.3 -------------------------------------------------------------------------------
IS_DEAD_MODULE = """
func.func @f(%x: f32, %y: f32, %m: memref<4xf32>, %i: index, %c: i1, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %unused = arith.mulf %x, %y : f32
  %used = arith.addf %x, %y : f32
  memref.store %used, %m[%i] : memref<4xf32>
  %loaded = memref.load %m[%i] : memref<4xf32>
  %buffer = memref.alloc() : memref<8xf32>
  %r = func.call @square(%x) : (f32) -> f32
  "test.print"(%x) : (f32) -> ()
  %pure_if = scf.if %c -> (f32) {
    %p = arith.mulf %x, %x : f32
    scf.yield %p : f32
  } else {
    scf.yield %y : f32
  }
  %storing_loop = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    memref.store %acc, %m[%c0] : memref<4xf32>
    scf.yield %acc : f32
  }
  return %x : f32
}
func.func @square(%a: f32) -> f32 {
  %r = arith.mulf %a, %a : f32
  return %r : f32
}"""
IS_DEAD_EXPECTED = [
    # (position in @f's entry block, expected, why)
    (2, True, "a pure op whose result nobody reads"),
    (3, False, "its result is read by the memref.store"),
    (4, False, "a store has no results, but it writes memory: a side effect, so it stays"),
    (5, True, "an unused load only reads memory: nobody can observe it (UNUSED_MEANS_DEAD_OPS)"),
    (6, True, "an unused allocation: nobody can observe a buffer nobody uses"),
    (7, False, "a call may do anything (is_pure is False for func.call), even when unused"),
    (8, False, "an op no dialect registered may have any side effect"),
    (9, True, "an scf.if whose branches are pure and whose result nobody reads"),
    (10, False, "this loop's body stores to memory: the loop has that side effect"),
    (11, False, "a terminator ends its block and must stay"),
]


@task03_3
@pytest.mark.parametrize("position, expected, why", IS_DEAD_EXPECTED)
def test_is_dead(impl, position, expected, why):
    op = function_ops(parse(IS_DEAD_MODULE))[position]
    what = f"is_dead(`{one_line(op)}`)"
    with without_library(what, impl, "Task 03.3", LIBRARY_DCE):
        found = impl.is_dead(op)
    expect_instance(what, found, bool, "True or False")
    if found != expected:
        raise GradingFailure(f"{what}: expected {expected}, found {found}: {why}")


@task03_3
def test_is_dead_for_ops_in_regions_and_functions(impl):
    module = parse(IS_DEAD_MODULE)
    then_block = module.body.first_op.entry_block.ops[9].regions[0].blocks[0]
    inner, yield_op = then_block.ops
    checks = [
        (inner, False, "its result is read by the scf.yield"),
        (yield_op, False, "scf.yield is a terminator (and pure): the block must still end with it"),
        (module.body.first_op, False, "a function is never dead here: it may be called"),
    ]
    for op, expected, why in checks:
        what = f"is_dead(`{one_line(op)}`)"
        with without_library(what, impl, "Task 03.3", LIBRARY_DCE):
            found = impl.is_dead(op)
        expect_instance(what, found, bool, "True or False")
        if found != expected:
            raise GradingFailure(f"{what}: expected {expected}, found {found}: {why}")


DCE_CASES = {
    "chains": (
        """
func.func @f(%x: f32, %y: f32) -> f32 {
  %a = arith.mulf %x, %y : f32
  %b = arith.addf %a, %x : f32
  %c = arith.mulf %b, %b : f32
  %used = arith.subf %x, %y : f32
  return %used : f32
}""",
        "erasing %c leaves %b unused, and then %a: keep going until nothing is dead",
    ),
    "side_effects": (
        """
func.func @f(%x: f32, %m: memref<4xf32>, %i: index) -> f32 {
  %sq = arith.mulf %x, %x : f32
  memref.store %sq, %m[%i] : memref<4xf32>
  %r = func.call @square(%x) : (f32) -> f32
  "test.print"(%x) : (f32) -> ()
  %u = "test.unknown"(%x) : (f32) -> f32
  %loaded = memref.load %m[%i] : memref<4xf32>
  %buffer = memref.alloc() : memref<8xf32>
  %kept = memref.alloc() : memref<4xf32>
  memref.store %x, %kept[%i] : memref<4xf32>
  return %x : f32
}
func.func @square(%a: f32) -> f32 {
  %r = arith.mulf %a, %a : f32
  return %r : f32
}""",
        "stores, calls and unknown ops stay (and so does what they read); unused loads and "
        "allocations go",
    ),
    "regions": (
        """
func.func @f(%x: f32, %c: i1, %n: index, %m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %outer = arith.mulf %x, %x : f32
  %unused_if = scf.if %c -> (f32) {
    %p = arith.addf %outer, %x : f32
    scf.yield %p : f32
  } else {
    scf.yield %x : f32
  }
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    %t = arith.addf %acc, %x : f32
    %dead = arith.mulf %t, %t : f32
    scf.yield %t : f32
  }
  %stores = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    memref.store %acc, %m[%c0] : memref<4xf32>
    scf.yield %acc : f32
  }
  return %sum : f32
}""",
        "dead ops inside loop bodies go too; an unused scf.if with pure branches goes (and "
        "then %outer); a loop that stores stays although nobody reads its result",
    ),
    "blocks_out_of_order": (
        """
func.func @f(%x: f32) -> f32 {
  cf.br ^bb2
^bb1:
  %b = arith.addf %a, %x : f32
  return %x : f32
^bb2:
  %a = arith.mulf %x, %x : f32
  cf.br ^bb1
}""",
        "%a (in ^bb2) is read only by %b (in ^bb1, listed earlier): %a becomes dead after "
        "%b is erased, so one sweep is not enough; repeat until a sweep erases nothing",
    ),
}


def expect_dce_result(what: str, impl, text: str, hint: str = "") -> ModuleOp:
    """Run the student's DCE on ``text``; compare with the library's ``DCEPass``."""
    found = parse(text)
    with without_library(what, impl, "Task 03.3", LIBRARY_DCE):
        impl.DeadCodeElimination().run(found)
    reference = parse(text)
    DCEPass().run(reference)
    suffix = f"\nhint: {hint}" if hint else ""
    try:
        verify(found)
    except VerifyError as error:
        raise GradingFailure(
            f"{what}: after your DCE the IR no longer verifies: {error}{suffix}\n"
            f"IR after:\n{print_ir(found)}"
        ) from None
    kept = {op.location.line for op in found.walk() if op.location is not None}
    should_keep = {op.location.line for op in reference.walk() if op.location is not None}
    source = text.splitlines()
    problems = []
    for line in sorted(should_keep - kept):
        problems.append(f"  line {line}: erased, but it must stay: {source[line - 1].strip()}")
    for line in sorted(kept - should_keep):
        problems.append(f"  line {line}: still there, but it is dead: {source[line - 1].strip()}")
    if problems:
        raise GradingFailure(
            f"{what}: your DCE and the library's DCEPass disagree about these ops:\n"
            + "\n".join(problems)
            + f"{suffix}\nIR after your DCE:\n{print_ir(found)}"
        )
    expect_text(f"{what}: printed after your DCE", print_ir(found), print_ir(reference))
    return found


@task03_3
@pytest.mark.parametrize("case", list(DCE_CASES))
def test_dce_on_golden_ir(impl, case):
    text, hint = DCE_CASES[case]
    expect_dce_result(f"DeadCodeElimination().run(case '{case}')", impl, text, hint)


def random_dce_module(rng: np.random.Generator) -> str:
    """A function with pure arithmetic, loads, stores, calls, scf.if and scf.for, many of
    whose results nobody reads; it returns one value."""
    lines: list[str] = []
    counter = itertools.count()

    def fresh() -> str:
        return f"%v{next(counter)}"

    def emit_ops(pool: list[str], indent: str, depth: int, count: int) -> None:
        for _ in range(count):
            a = pool[int(rng.integers(len(pool)))]
            b = pool[int(rng.integers(len(pool)))]
            kind = int(rng.integers(0, 10))
            name = fresh()
            if kind <= 3:
                op = ["addf", "mulf", "subf", "maximumf"][kind]
                lines.append(f"{indent}{name} = arith.{op} {a}, {b} : f32")
            elif kind == 4:
                constant = float(rng.integers(-4, 5)) / 2
                lines.append(f"{indent}{name} = arith.constant {constant} : f32")
            elif kind == 5:
                index = f"%c{int(rng.integers(0, 4))}"
                lines.append(f"{indent}{name} = memref.load %buf[{index}] : memref<4xf32>")
            elif kind == 6:
                index = f"%c{int(rng.integers(0, 4))}"
                lines.append(f"{indent}memref.store {a}, %buf[{index}] : memref<4xf32>")
                continue
            elif kind == 7:
                lines.append(f"{indent}{name} = func.call @helper({a}) : (f32) -> f32")
            elif kind == 8 and depth < 2:
                lines.append(f"{indent}{name} = scf.if %flag -> (f32) {{")
                for branch in ("then", "else"):
                    inner = list(pool)
                    emit_ops(inner, indent + "  ", depth + 1, int(rng.integers(0, 4)))
                    yielded = inner[int(rng.integers(len(inner)))]
                    lines.append(f"{indent}  scf.yield {yielded} : f32")
                    lines.append(f"{indent}}} else {{" if branch == "then" else f"{indent}}}")
            elif kind == 9 and depth < 2:
                iv, acc = fresh(), fresh()
                lines.append(
                    f"{indent}{name} = scf.for {iv} = %c0 to %c3 step %c1 "
                    f"iter_args({acc} = {a}) -> (f32) {{"
                )
                inner = [*pool, acc]
                emit_ops(inner, indent + "  ", depth + 1, int(rng.integers(0, 4)))
                yielded = inner[int(rng.integers(len(inner)))]
                lines.append(f"{indent}  scf.yield {yielded} : f32")
                lines.append(f"{indent}}}")
            else:
                lines.append(f"{indent}{name} = arith.negf {a} : f32")
            pool.append(name)

    pool = ["%x", "%y"]
    emit_ops(pool, "  ", 0, int(rng.integers(4, 14)))
    returned = pool[int(rng.integers(len(pool)))]
    constants = "\n".join(f"  %c{k} = arith.constant {k} : index" for k in range(4))
    body = "\n".join(lines)
    return (
        "func.func @main(%x: f32, %y: f32, %flag: i1, %buf: memref<4xf32>) -> f32 {\n"
        f"{constants}\n{body}\n  return {returned} : f32\n}}\n"
        "func.func @helper(%a: f32) -> f32 {\n"
        "  %r = arith.mulf %a, %a : f32\n  return %r : f32\n}"
    )


@task03_3
def test_dce_matches_the_library_on_random_modules(impl):
    """Same printed result as DCEPass, and the same values and stores when run."""
    rng = np.random.default_rng(3301)
    for number in range(30):
        text = random_dce_module(rng)
        module = expect_dce_result(f"DeadCodeElimination().run(random module #{number})",
                                   impl, text)  # fmt: skip
        expect_same_behaviour(f"random module #{number}", text, module, rng, trials=2)


@task03_3
def test_dce_is_a_pass_the_pass_manager_can_run(impl):
    dce = impl.DeadCodeElimination()
    expect_equal("DeadCodeElimination().name", dce.name, "my-dce")
    module = parse(DCE_CASES["chains"][0])
    with without_library("DeadCodeElimination().run", impl, "Task 03.3", LIBRARY_DCE):
        dce.run(module)
    expect_equal(
        'DeadCodeElimination().statistics["ops erased"] after erasing %a, %b and %c',
        dce.statistics["ops erased"],
        3,
    )


# -- Task 03.4 -------------------------------------------------------------------------------
task03_4 = pytest.mark.task03_4

ARITH_OPS = ("arith.addi", "arith.subi", "arith.muli")
FREE_OPS = ("builtin.module", "func.func", "func.return", "arith.constant")
"""Ops the budget does not count: the functions, their returns and the constants."""

SIMPLIFY_EXAMPLE = """
func.func @f(%x: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %a = arith.addi %x, %c3 : i32
  %b = arith.addi %a, %c5 : i32
  %c = arith.subi %c7, %b : i32
  %d = arith.muli %c, %c3 : i32
  %e = arith.muli %d, %c5 : i32
  return %e : i32
}"""


def counted_ops(module: ModuleOp) -> list[Operation]:
    """The ops the budget counts: everything but the functions, returns and constants."""
    return [op for op in module.walk() if op.name not in FREE_OPS]


# A chain step: ("add", c) is y + c, ("sub", c) is y - c, ("rsub", c) is c - y, ("mul", c)
# is y * c. Runs: ("add", s, C) is s * y + C with s = +-1, ("mul", F) is y * F.
Step = tuple[str, int]


def chain_runs(steps: list[Step], width: int) -> tuple[tuple, ...]:
    """The runs a chain of constant steps comes down to, modulo ``2**width``: consecutive
    additive steps are one run, consecutive multiplications another; a run that is the
    identity (``+ 0``, ``* 1``) goes, and its neighbours then meet."""
    wrap = 2**width
    runs: list[tuple] = []
    for kind, c in steps:
        last = runs[-1] if runs else None
        if kind == "mul":
            factor = c % wrap
            if last is not None and last[0] == "mul":
                runs[-1] = ("mul", last[1] * factor % wrap)
            else:
                runs.append(("mul", factor))
        else:
            sign, total = (last[1], last[2]) if last is not None and last[0] == "add" else (1, 0)
            if last is None or last[0] != "add":
                runs.append(("add", 1, 0))
            if kind == "add":
                total += c
            elif kind == "sub":
                total -= c
            else:  # c - (sign * y + total)
                sign, total = -sign, c - total
            runs[-1] = ("add", sign, total % wrap)
        if runs[-1] in (("mul", 1), ("add", 1, 0)):
            runs.pop()
    return tuple(runs)


def budget(chains: list[tuple[str, tuple]]) -> int:
    """One op per distinct prefix of runs: ``(argument, runs)`` pairs that agree up to a
    run compute the same value there, and one op can serve both."""
    prefixes = {(base, runs[: n + 1]) for base, runs in chains for n in range(len(runs))}
    return len(prefixes)


SIMPLIFY_TYPES = {"%x": ("i32", 32), "%y": ("i32", 32), "%n": ("index", 64)}


def random_simplify_program(rng: np.random.Generator) -> tuple[str, int]:
    """A function whose results are chains of constant steps on its arguments (some
    twice, some spelled differently, some unused), and the budget for it."""
    lines: list[str] = []
    constants: dict[tuple[int, str], str] = {}
    counter = itertools.count()

    def constant(value: int, type_name: str) -> str:
        width = 32 if type_name == "i32" else 64
        value = (value + 2 ** (width - 1)) % 2**width - 2 ** (width - 1)  # signed, wrapped
        if (value, type_name) not in constants:
            name = f"%k{len(constants)}"
            constants[(value, type_name)] = name
        return constants[(value, type_name)]

    def emit(base: str, steps: list[Step]) -> str:
        type_name = SIMPLIFY_TYPES[base][0]
        value = base
        for kind, c in steps:
            k = constant(c, type_name)
            name = f"%v{next(counter)}"
            left_constant = kind in ("add", "mul") and rng.random() < 0.3
            op = {"add": "addi", "sub": "subi", "rsub": "subi", "mul": "muli"}[kind]
            a, b = (k, value) if kind == "rsub" or left_constant else (value, k)
            lines.append(f"{name} = arith.{op} {a}, {b} : {type_name}")
            value = name
        return value

    def random_steps(base: str) -> list[Step]:
        big = SIMPLIFY_TYPES[base][1] == 32 and rng.random() < 0.2
        steps = []
        for _ in range(int(rng.integers(1, 7))):
            kind = ["add", "sub", "rsub", "mul"][int(rng.integers(4))]
            if kind == "mul":
                c = int(rng.choice([-3, -1, 1, 1, 2, 3, 5, 7]))
            elif big:
                c = int(rng.choice([2**31 - 1, -(2**31), 2**30]))
            else:
                c = int(rng.integers(-6, 10))
            steps.append((kind, c))
        return steps

    def respelled(steps: list[Step]) -> list[Step]:
        """Other steps with the same runs: a constant split in two, or negated."""
        out: list[Step] = []
        for kind, c in steps:
            if kind == "add" and rng.random() < 0.5:
                out += [("add", c - 2), ("add", 2)]
            elif kind in ("add", "sub") and rng.random() < 0.5:
                out.append(("sub" if kind == "add" else "add", -c))
            else:
                out.append((kind, c))
        return out

    results, chains = [], []
    for _ in range(int(rng.integers(2, 5))):
        base = ["%x", "%y", "%n"][int(rng.integers(3))]
        steps = random_steps(base)
        results.append((emit(base, steps), base))
        chains.append((base, chain_runs(steps, SIMPLIFY_TYPES[base][1])))
        if rng.random() < 0.5:  # the same value again, spelled the same or not
            again = steps if rng.random() < 0.5 else respelled(steps)
            results.append((emit(base, again), base))
            chains.append((base, chain_runs(again, SIMPLIFY_TYPES[base][1])))
    emit("%x", random_steps("%x"))  # a chain nobody reads
    types = [SIMPLIFY_TYPES[base][0] for _, base in results]
    header = [f"{name} = arith.constant {v} : {t}" for (v, t), name in constants.items()]
    body = "\n  ".join(header + lines)
    returned = ", ".join(name for name, _ in results)
    text = (
        f"func.func @main(%x: i32, %y: i32, %n: index) -> ({', '.join(types)}) {{\n"
        f"  {body}\n  return {returned} : {', '.join(types)}\n}}"
    )
    return text, budget(chains)


def leftover_hint(module: ModuleOp) -> str:
    """Point at one spot where the budget is lost: two constant steps in a row, or two
    ops that compute the same value spelled differently."""
    for op in counted_ops(module):
        if op.name not in ARITH_OPS:
            continue
        for operand in op.operands:
            producer = operand.defining_op()
            if producer is None or producer.name not in ARITH_OPS:
                continue
            additive = ("arith.addi", "arith.subi")
            same_kind = (op.name in additive) == (producer.name in additive)
            constants = [v for v in (*op.operands, *producer.operands) if _is_constant(v)]
            if same_kind and len(constants) == 2:
                return (
                    f"\nhint: `{print_ir(producer)}` then `{print_ir(op)}`: two constant "
                    f"steps of the same kind in a row are one step with one constant"
                )
    seen: dict[tuple, Operation] = {}
    for op in counted_ops(module):
        key = (op.name, tuple(op.operands))
        if key in seen:
            return (
                f"\nhint: `{print_ir(seen[key])}` and `{print_ir(op)}` are the same op on the "
                "same values: nothing merged them"
            )
        seen[key] = op
    plus_constant: dict[tuple, Operation] = {}
    for op in counted_ops(module):
        if op.name not in ("arith.addi", "arith.subi") or not _is_constant(op.operands[1]):
            continue
        key = (op.operands[0], op.results[0].type)
        if key in plus_constant and plus_constant[key].name != op.name:
            return (
                f"\nhint: `{print_ir(plus_constant[key])}` and `{print_ir(op)}` both shift the "
                "same value by a constant, spelled two ways: with one spelling, equal values "
                "become the same op"
            )
        plus_constant[key] = op
    return ""


def _is_constant(value) -> bool:
    producer = value.defining_op()
    return producer is not None and producer.name == "arith.constant"


def expect_within_budget(what: str, impl, text: str, allowed: int, rng) -> None:
    module = parse(text)
    try:
        impl.simplify(module)
    except NotImplementedError:
        raise
    except Exception as error:  # a pattern that builds a bad op, a driver that gave up...
        hint = ""
        if "out of range" in str(error):
            hint = (
                "\nhint: a constant computed from two others must have the bits the op "
                "would compute: i32 arithmetic wraps around modulo 2^32"
            )
        raise GradingFailure(
            f"{what}: simplify raised {type(error).__name__}: {error}"
            f"{student_line(impl, error)}{hint}\n"
            f"IR before:\n{print_ir(parse(text))}"
        ) from None
    expect_verifies(what, module, text)
    expect_same_behaviour(what, text, module, rng, trials=6)
    left = counted_ops(module)
    if len(left) > allowed:
        raise GradingFailure(
            f"{what}: {len(left)} ops are left (arith.constant, functions and returns not "
            f"counted); the budget is {allowed}.{leftover_hint(module)}\n"
            f"IR after:\n{print_ir(module)}"
        )


@task03_4
def test_simplify_the_worked_example(impl):
    expect_within_budget(
        "simplify(@f of the docstring)", impl, SIMPLIFY_EXAMPLE, 2, np.random.default_rng(340)
    )


@task03_4
def test_simplify_random_programs_within_budget(impl):
    """Random chains of constant steps; the budget is counted for each program."""
    rng = np.random.default_rng(3401)
    for number in range(30):
        text, allowed = random_simplify_program(rng)
        expect_within_budget(f"simplify(random program #{number})", impl, text, allowed, rng)
