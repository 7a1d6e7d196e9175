"""Graded tests for chapter 07 (`ch07_bufferization.py`): in-place decisions, liveness and
peak memory, a static memory plan under a budget.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).

Every reference answer comes from the library: the decisions are `analyze_in_place`'s
(the conflicting read is the op its reason names), the live ranges and peaks are the
`BufferizationReport`'s, and the best plan is found by exhaustive search. Every program
rewritten with the student's code runs in the reference interpreter on random inputs
and must compute what numpy (or the tensor program) computes. Random cases come from
fixed seeds and from hypothesis with `derandomize`, so a grade never changes from one
run to the next.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp.compiler import CompileOptions
from tinycomp.frontend import TensorSpec, attention, layernorm, rmsnorm, softmax
from tinycomp.grading.checks import GradingFailure, expect_instance
from tinycomp.interp import InterpreterError, interpret
from tinycomp.ir import ModuleOp, Operation, Use, ir_equal, parse, print_ir
from tinycomp.passes import PassError, PassManager
from tinycomp.passes.bufferize import (
    BufferDeallocationPass,
    BufferizationReport,
    OneShotBufferizePass,
    analyze_in_place,
    bufferization_passes,
    run_bufferized,
)
from tinycomp.passes.bufferize.liveness import OpIndices, buffer_liveness
from tinycomp.passes.bufferize.memref_types import buffer_bytes
from tinycomp.testing import KERNELS

task07_1 = pytest.mark.task07_1
task07_2 = pytest.mark.task07_2
task07_3 = pytest.mark.task07_3

GRADED = settings(
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
)
"""Random cases: the same ones on every run, no time limit, reported as drawn."""


# -- programs -----------------------------------------------------------------------------------
T = "tensor<3x3xf32>"
ID = "affine_map<(i, j) -> (i, j)>"
SWAP = "affine_map<(i, j) -> (j, i)>"


def generic(result: str, ins: list[str], outs: str, maps: list[str], payload: str) -> str:
    """``%result = linalg.generic`` on 3x3 tensors, elementwise (both loops parallel):
    ``ins`` read through ``maps``, ``outs`` through the identity; ``payload`` computes
    ``%y`` from ``%i0, %i1...`` (the inputs) and ``%o`` (the old output element)."""
    arguments = ", ".join([*(f"%i{n}: f32" for n in range(len(ins))), "%o: f32"])
    ins_text = f"ins({', '.join(ins)} : {', '.join([T] * len(ins))}) " if ins else ""
    return (
        f"  {result} = linalg.generic {{indexing_maps = [{', '.join([*maps, ID])}], "
        f'iterator_types = ["parallel", "parallel"]}}\n'
        f"      {ins_text}outs({outs} : {T}) {{\n"
        f"  ^bb0({arguments}):\n"
        f"    {payload}\n"
        f"    linalg.yield %y : f32\n"
        f"  }} -> {T}"
    )


def function(arguments: list[str], body: list[str], results: list[str]) -> str:
    signature = ", ".join(f"{a}: {T}" for a in arguments)
    types = ", ".join([T] * len(results))
    return "\n".join(
        [
            f"func.func @main({signature}) -> ({types}) {{",
            *body,
            f"  return {', '.join(results)} : {types}",
            "}",
        ]
    )


EMPTY = "  {} = tensor.empty() : " + T
EXP = "%y = math.exp %i0 : f32"
ADD = "%y = arith.addf %i0, %i1 : f32"
UPDATE = "%y = arith.addf %i0, %o : f32"  # reads the old element: the write destroys it

DECISION_CASES = {
    # name: (function text, writable_arguments, what it teaches)
    "fresh destination": (
        function(["%x"], [EMPTY.format("%e"), generic("%a", ["%x"], "%e", [ID], EXP)], ["%a"]),
        False,
        "a tensor.empty destination has nothing to lose: in place",
    ),
    "overwritten value read later": (
        function(
            ["%x"],
            [
                EMPTY.format("%e"),
                generic("%a", ["%x"], "%e", [ID], EXP),
                generic("%b", ["%x"], "%a", [ID], UPDATE),
                EMPTY.format("%e2"),
                generic("%c", ["%a", "%a"], "%e2", [ID, ID], ADD),
            ],
            ["%b", "%c"],
        ),
        False,
        "%b would overwrite %a, and %c reads %a afterwards",
    ),
    "overwritten value returned": (
        function(
            ["%x"],
            [
                EMPTY.format("%e"),
                generic("%a", ["%x"], "%e", [ID], EXP),
                generic("%b", ["%x"], "%a", [ID], UPDATE),
            ],
            ["%a", "%b"],
        ),
        False,
        "the return reads %a after %b would have overwritten it",
    ),
    "read before the write": (
        function(
            ["%x"],
            [
                EMPTY.format("%e"),
                generic("%a", ["%x"], "%e", [ID], EXP),
                EMPTY.format("%e2"),
                generic("%s", ["%a", "%a"], "%e2", [ID, ID], ADD),
                generic("%b", ["%x"], "%a", [ID], UPDATE),
            ],
            ["%s", "%b"],
        ),
        False,
        "%s reads %a before %b overwrites it: in place",
    ),
    "read-only argument": (
        function(["%x"], [generic("%b", ["%x"], "%x", [ID], UPDATE)], ["%b"]),
        False,
        "the caller's array is read-only: copy",
    ),
    "writable argument": (
        function(["%x"], [generic("%b", ["%x"], "%x", [ID], UPDATE)], ["%b"]),
        True,
        "with writable_arguments=True, x += x may write %x: each element is read, then "
        "written, by one iteration",
    ),
    "elementwise self-update": (
        function(
            ["%x"],
            [
                EMPTY.format("%e"),
                generic("%a", ["%x"], "%e", [ID], EXP),
                generic("%b", ["%a"], "%a", [ID], UPDATE),
            ],
            ["%b"],
        ),
        False,
        "ins(%a) outs(%a) through the same map: in place",
    ),
    "transposed self-update": (
        function(
            ["%x"],
            [
                EMPTY.format("%e"),
                generic("%a", ["%x"], "%e", [ID], EXP),
                generic("%b", ["%a"], "%a", [SWAP], UPDATE),
            ],
            ["%b"],
        ),
        False,
        "ins(%a transposed) outs(%a): element (0, 1) is overwritten before (1, 0) reads "
        "it: the op conflicts with itself",
    ),
    "two results, one destination": (
        "\n".join(
            [
                f"func.func @main(%x: {T}) -> ({T}, {T}) {{",
                EMPTY.format("%e"),
                f"  %r:2 = linalg.generic {{indexing_maps = [{ID}, {ID}, {ID}], "
                'iterator_types = ["parallel", "parallel"]}',
                f"      ins(%x : {T}) outs(%e, %e : {T}, {T}) {{",
                "  ^bb0(%i0: f32, %o0: f32, %o1: f32):",
                "    %y = math.exp %i0 : f32",
                "    %z = math.tanh %i0 : f32",
                "    linalg.yield %y, %z : f32, f32",
                f"  }} -> ({T}, {T})",
                f"  return %r#0, %r#1 : {T}, {T}",
                "}",
            ]
        ),
        False,
        "outs(%e, %e): two results cannot share one buffer",
    ),
    "one shared tensor.empty": (
        function(
            ["%x"],
            [
                EMPTY.format("%e"),
                generic("%a", ["%x"], "%e", [ID], EXP),
                generic("%b", ["%x"], "%e", [ID], "%y = math.tanh %i0 : f32"),
                generic("%c", ["%a", "%b"], "%e", [ID, ID], ADD),
            ],
            ["%c"],
        ),
        False,
        "CSE leaves one tensor.empty for three ops: %c and %b take it, and %a, still read "
        "by %c after %b has written the buffer, needs its own",
    ),
    "an update of a tensor.empty": (
        function(
            ["%x"],
            [
                EMPTY.format("%e"),
                generic("%a", ["%x"], "%e", [ID], EXP),
                generic("%b", ["%x"], "%e", [ID], UPDATE),
            ],
            ["%a", "%b"],
        ),
        False,
        "%b reads the elements of %e, but a tensor.empty holds nothing anyone wrote: "
        "reading it is never a conflict. %a still needs a buffer of its own: the return "
        "reads it after %b has written the shared one",
    ),
    "matmul accumulating into its input": (
        "\n".join(
            [
                f"func.func @main(%x: {T}, %w: {T}) -> {T} {{",
                EMPTY.format("%e"),
                generic("%a", ["%x"], "%e", [ID], EXP),
                f"  %m = linalg.matmul ins(%a, %w : {T}, {T}) outs(%a : {T}) -> {T}",
                f"  return %m : {T}",
                "}",
            ]
        ),
        False,
        "a matmul reads a whole row of %a for each element it writes: it conflicts with itself",
    ),
}


def numbered(text: str) -> str:
    """The text with line numbers, the way decisions name ops ('at line 7')."""
    lines = text.strip("\n").split("\n")
    return "\n".join(f"{number:3} | {line}" for number, line in enumerate(lines, start=1))


def by_line(module: ModuleOp) -> dict[int, Operation]:
    return {op.location.line: op for op in module.walk() if op.location is not None}


READER = re.compile(r"copy: (%[\w$.#-]+) is (?:read later|also read) by '[\w.]+' at line (\d+)")


def library_read(module: ModuleOp, reason: str) -> tuple[Operation, str] | None:
    """The read the library's reason names: the op at that line, and the value it reads
    (an op may read one value through several operands: any of them will do)."""
    found = READER.match(reason)
    if found is None:
        return None
    return by_line(module)[int(found.group(2))], found.group(1)


def printed(value) -> str:
    from tinycomp.ir.naming import SSANames

    root = value.parent_block().parent_op()
    while root.parent_op() is not None:
        root = root.parent_op()
    return SSANames(root).value_name(value)


def describe_op(op: Operation) -> str:
    where = f" at line {op.location.line}" if op.location is not None else ""
    return f"'{op.name}'{where}"


def describe_read(read: Use) -> str:
    value = printed(read.user.operands[read.index])
    return f"{describe_op(read.user)} (its operand #{read.index}, {value})"


def call_decide(impl, what: str, function_op, writable: bool) -> list:
    verdicts = impl.decide_in_place(function_op, writable)
    expect_instance(what, verdicts, list, "a list of Verdict")
    for verdict in verdicts:
        expect_instance(f"{what}: an element", verdict, impl.Verdict, "a Verdict")
    return verdicts


def expect_same_decisions(impl, what: str, text: str, writable: bool = False) -> None:
    """The student's verdicts equal ``analyze_in_place``'s, one by one, with the same
    conflicting read for each copy the library blames on a read."""
    module = parse(text)
    function_op = module.body.first_op
    library = analyze_in_place(function_op, writable).decisions
    student_module = parse(text)
    verdicts = call_decide(impl, what, student_module.body.first_op, writable)
    listing = f"\nthe program:\n{numbered(text)}"
    if len(verdicts) != len(library):
        raise GradingFailure(
            f"{what}: expected {len(library)} verdicts (one per written operand: a linalg "
            f"op's tensor outs), found {len(verdicts)}{listing}"
        )
    mirror = dict(zip(student_module.walk(), module.walk(), strict=True))
    for number, (expected, found) in enumerate(zip(library, verdicts, strict=True)):
        found_op = mirror.get(found.op)
        written = printed(expected.op.operands[expected.operand_index])
        subject = f"{describe_op(expected.op)}, operand #{expected.operand_index} ({written})"
        if found_op is not expected.op or found.operand_index != expected.operand_index:
            got = (
                f"{describe_op(found_op)}, operand #{found.operand_index}"
                if found_op is not None
                else repr(found.op)
            )
            raise GradingFailure(
                f"{what}: verdict #{number}: expected {subject}, found {got} (decide the ops "
                f"last first, each op's written operands in order){listing}"
            )
        if found.in_place != expected.in_place:
            said = "in place" if found.in_place else f"copy ({found.reason})"
            want = "in place" if expected.in_place else "copy"
            raise GradingFailure(
                f"{what}: {subject}: expected {want} ({expected.reason}), found {said}{listing}"
            )
        want_read = library_read(module, expected.reason)
        got_read = found.conflicting_read
        if got_read is not None and not isinstance(got_read, Use):
            raise GradingFailure(
                f"{what}: {subject}: conflicting_read should be a Use(op, operand index), "
                f"found {got_read!r}"
            )
        if got_read is not None:
            reader = mirror.get(got_read.user, got_read.user)
            got_read = (reader, printed(reader.operands[got_read.index]))
        if want_read != got_read:
            expected_text = "none" if want_read is None else describe_reader(*want_read)
            found_text = "none" if got_read is None else describe_reader(*got_read)
            raise GradingFailure(
                f"{what}: {subject} is a copy ({expected.reason}): expected the conflicting "
                f"read {expected_text}, found {found_text}{listing}"
            )


def describe_reader(reader: Operation, value: str) -> str:
    return f"{describe_op(reader)} reading {value}"


# == Task 07.1: in place or copy =================================================================
CONFLICT_PROGRAM = function(
    ["%x"],
    [
        EMPTY.format("%e"),
        generic("%a", ["%x"], "%e", [ID], EXP),  # line 3
        EMPTY.format("%e2"),
        generic("%s", ["%a", "%a"], "%e2", [ID, ID], ADD),  # line 10
        generic("%b", ["%a"], "%a", [ID], UPDATE),  # line 16: writes %a
        generic("%t", ["%a"], "%a", [SWAP], UPDATE),  # line 22: writes %a
        f"  %m = linalg.matmul ins(%b, %x : {T}, {T}) outs(%b : {T}) -> {T}",  # line 28
    ],
    ["%a", "%b", "%m", "%x"],
)
CONFLICT_CASES = {
    # name: (writer line, written operand, reader line, read operand, conflict?, rule)
    "read of a tensor.empty": (10, 2, 3, 1, False, "rule 1: %e has no contents to lose"),
    "the same outs operand": (16, 1, 16, 1, False, "rule 2a: each element read, then written"),
    "elementwise input, same buffer": (16, 1, 16, 0, False, "rule 2b: same map, all parallel"),
    "transposed input, same buffer": (
        22,
        1,
        22,
        0,
        True,
        "rule 2c: (1, 0) is read after (0, 1) was written",
    ),  # fmt: skip
    "matmul reads its outs buffer": (
        28,
        2,
        28,
        0,
        True,
        "rule 2c: a reduction reads a whole row of %b for one element",
    ),  # fmt: skip
    "a later read of the old value": (
        16,
        1,
        29,
        0,
        True,
        "rule 3: the return reads %a, defined before the write",
    ),  # fmt: skip
    "a later read of an argument": (
        16,
        1,
        29,
        3,
        True,
        "rule 3: an argument is defined before every op",
    ),  # fmt: skip
    "an earlier read": (16, 1, 10, 0, False, "rule 4: %s reads %a before the write"),
    "a later read of a value made by the write": (
        16,
        1,
        29,
        1,
        False,
        "rule 4: %b is the write's own result",
    ),  # fmt: skip
}


@task07_1
@pytest.mark.parametrize("case", list(CONFLICT_CASES))
def test_conflicts(impl, case):
    writer_line, write_index, reader_line, read_index, expected, rule = CONFLICT_CASES[case]
    module = parse(CONFLICT_PROGRAM)
    ops = by_line(module)
    position = {op: n for n, op in enumerate(module.body.first_op.entry_block.ops)}
    write, read = Use(ops[writer_line], write_index), Use(ops[reader_line], read_index)
    found = impl.conflicts(write, read, position)
    if found is not expected:
        raise GradingFailure(
            f"conflicts(write={describe_op(write.user)} operand #{write_index}, "
            f"read={describe_read(read)}) [case '{case}']: expected {expected}, found "
            f"{found!r} ({rule})\nthe program:\n{numbered(CONFLICT_PROGRAM)}"
        )


@task07_1
@pytest.mark.parametrize("case", list(DECISION_CASES))
def test_decisions_on_hand_written_programs(impl, case):
    text, writable, lesson = DECISION_CASES[case]
    try:
        expect_same_decisions(impl, f"decide_in_place [case '{case}']", text, writable)
    except GradingFailure as failure:
        raise GradingFailure(f"{failure}\nhint: {lesson}") from None


PROGRAMS = {
    "softmax": (softmax, [(4, 8)]),
    "layernorm": (layernorm, [(4, 8), (8,), (8,)]),
    "rmsnorm": (rmsnorm, [(4, 8), (8,)]),
    "attention": (attention, [(4, 8), (6, 8), (6, 5)]),
    "mlp2": (KERNELS["mlp2"].fn, [(8, 16), (16, 32), (32,), (32, 8), (8,)]),
    "matmul + bias + 1": (lambda a, b, c: (a @ b + c) + 1.0, [(5, 6), (6, 4), (4,)]),
}
"""name: (traced function, argument shapes)."""


def random_arrays(shapes, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


def stage_text(name: str, stage: str) -> str:
    """Program ``name`` after ``stage`` ("traced" is the frontend's text, one
    tensor.empty per op; "fused" has gone through canonicalize, CSE and fusion)."""
    fn, shapes = PROGRAMS[name]
    specs = [TensorSpec(shape) for shape in shapes]
    return tinycomp.compile(fn, *specs, stop_after=stage).stages[stage]


@task07_1
@pytest.mark.parametrize("stage", ["traced", "fused"])
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_decisions_on_traced_programs(impl, program, stage):
    what = f"decide_in_place on {program} (stage '{stage}')"
    expect_same_decisions(impl, what, stage_text(program, stage))


@st.composite
def straight_line_programs(draw, update_empty: bool = False) -> str:
    """Random elementwise programs on 3x3 tensors: each op writes a fresh tensor.empty,
    one shared tensor.empty, or an existing value in place (its payload reading the old
    element), and reads one or two existing values, some transposed. With
    ``update_empty`` an update may read the shared tensor.empty too (a program to
    analyze, not to run: its elements are undefined)."""
    values = [f"%x{i}" for i in range(draw(st.integers(1, 2)))]
    arguments = list(values)
    body = [EMPTY.format("%shared")]
    for k in range(draw(st.integers(1, 6))):
        ins = draw(st.lists(st.sampled_from(values), min_size=1, max_size=2))
        maps = [draw(st.sampled_from([ID, SWAP])) for _ in ins]
        kind = draw(st.sampled_from(["fresh", "shared", "update"]))
        if kind == "fresh":
            outs = f"%e{k}"
            body.append(EMPTY.format(outs))
        else:
            choices = values + ["%shared"] if update_empty else values
            outs = "%shared" if kind == "shared" else draw(st.sampled_from(choices))
        operation = draw(st.sampled_from(["addf", "mulf", "subf", "maximumf"]))
        payload = f"%y = arith.{operation} %i0, %i{len(ins) - 1} : f32"
        if kind == "update":
            payload = payload.replace("%y", "%t") + "\n    %y = arith.addf %t, %o : f32"
        body.append(generic(f"%v{k}", ins, outs, maps, payload))
        values.append(f"%v{k}")
    results = draw(st.lists(st.sampled_from(values[len(arguments) :]), min_size=1, max_size=2))
    return function(arguments, body, results)


@task07_1
@settings(GRADED)
@given(text=straight_line_programs(update_empty=True), writable=st.booleans())
def test_decisions_on_random_programs(impl, text, writable):
    expect_same_decisions(impl, f"decide_in_place(writable_arguments={writable})", text, writable)


def run_passes(what: str, passes: list, module: ModuleOp):
    """Run ``passes`` with the pass manager. A stub's ``NotImplementedError`` comes out
    as itself; any other failure as feedback."""
    before = print_ir(module)
    try:
        return PassManager(passes).run(module)
    except PassError as error:
        if isinstance(error.__cause__, NotImplementedError):
            raise error.__cause__ from None
        raise GradingFailure(f"{what}: {error}\nIR before:\n{before}") from None


def compile_with(what: str, fn, shapes, options: CompileOptions):
    try:
        specs = [TensorSpec(shape) for shape in shapes]
        return tinycomp.compile(fn, *specs, options=options, stop_after="bufferized")
    except PassError as error:
        if isinstance(error.__cause__, NotImplementedError):
            raise error.__cause__ from None
        raise GradingFailure(f"{what}: {error}") from None


def execute(what: str, module: ModuleOp, arrays: list):
    """``run_bufferized``; an interpreter error (a use after free, a read of memory no
    one wrote) becomes feedback with the IR."""
    try:
        return run_bufferized(module, *arrays)
    except InterpreterError as error:
        raise GradingFailure(
            f"{what}: the rewritten program fails in the interpreter: {error}\n"
            f"IR:\n{print_ir(module)}"
        ) from None


def expect_numbers(what: str, found, expected, ir_text: str) -> None:
    found = found if isinstance(found, tuple) else (found,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for number, (got, want) in enumerate(zip(found, expected, strict=True)):
        if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            where = tuple(int(i) for i in np.argwhere(~np.isclose(got, want, 1e-4, 1e-5))[0])
            raise GradingFailure(
                f"{what}: result #{number} differs: at {list(where)} expected "
                f"{float(want[where]):.6g}, the bufferized IR gives {float(got[where]):.6g}\n"
                f"IR:\n{ir_text}"
            )


@task07_1
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_my_one_shot_bufferize_in_the_pipeline(impl, program):
    fn, shapes = PROGRAMS[program]
    what = f"tinycomp.compile({program}) with MyOneShotBufferize after 'tiled'"
    mine = compile_with(
        what, fn, shapes, CompileOptions(extra_passes={"tiled": [impl.MyOneShotBufferize()]})
    )
    library = compile_with(f"tinycomp.compile({program})", fn, shapes, CompileOptions())
    arrays = random_arrays(shapes, seed=701)
    expect_numbers(
        what, mine(*arrays), library.run(*arrays, stage="fused"), mine.stages["bufferized"]
    )
    if not ir_equal(mine.ir("bufferized"), library.ir("bufferized")):
        raise GradingFailure(
            f"{what}: the bufferized IR differs from the library's (a different decision "
            f"somewhere)\nyours:\n{mine.stages['bufferized']}\nthe library's:\n"
            f"{library.stages['bufferized']}"
        )


# == Task 07.2: live ranges and peak memory ======================================================
LOOP_AND_VIEWS = """
func.func @main(%x: memref<8x4xf32>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8x4xf32>
  memref.copy %x, %a : memref<8x4xf32> to memref<8x4xf32>
  %b = memref.alloc() : memref<8x4xf32>
  memref.copy %a, %b : memref<8x4xf32> to memref<8x4xf32>
  scf.for %i = %c0 to %c8 step %c2 {
    %t = memref.alloc() : memref<2x4xf32>
    %v = memref.subview %b[%i, 0] [2, 4] [1, 1]
        : memref<8x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    memref.copy %v, %t : memref<2x4xf32, strided<[4, 1], offset: ?>> to memref<2x4xf32>
    %w = memref.subview %out[%i, 0] [2, 4] [1, 1]
        : memref<8x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    memref.copy %t, %w : memref<2x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
    memref.dealloc %t : memref<2x4xf32>
  }
  %unused = memref.alloc() : memref<4xf32>
  return
}"""
"""Op indices: %a 4..7 (dies at the copy into %b); %b 6..14, read through a view inside
the loop, so it lives to the loop's end (op 14, the body's implicit ``scf.yield``); %t
9..13, inside the body and freed there; %unused 15..15. Peak 288 bytes."""

ESCAPING = """
func.func private @consume(memref<4xf32>)
func.func @main(%x: memref<4xf32>, %n: index, %out: memref<4xf32>) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  memref.copy %x, %c : memref<4xf32> to memref<4xf32>
  func.call @consume(%c) : (memref<4xf32>) -> ()
  %d = memref.alloc(%n) : memref<?xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %a : memref<4xf32>
}"""
"""%a is returned: it escapes and lives to the end (1..10); %c is passed to a call, which
may keep it: it escapes too (3..10), although nothing uses it after op 5; %d has a
dynamic size (bytes None, counted 0); %b (7..9) is freed after its last use. Peak 48."""

VIEW_READ_LATER = """
func.func @main(%x: memref<8xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  %b = memref.alloc() : memref<8xf32>
  memref.copy %x, %b : memref<8xf32> to memref<8xf32>
  %w = memref.subview %b[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  memref.copy %w, %out : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32>
  memref.copy %v, %out : memref<4xf32, strided<[1], offset: 2>> to memref<4xf32>
  return
}"""
"""%a is last touched directly at op 2, but its view %v is read at op 8: %a lives 1..8;
%b 4..7 through %w."""

LIVENESS_CASES = {
    "loop and views": LOOP_AND_VIEWS,
    "escaping, dynamic, freed": ESCAPING,
    "a view read later": VIEW_READ_LATER,
}


def measured(module: Operation) -> BufferizationReport:
    report = BufferizationReport()
    report.measure(module, "now")
    return report


def last_use_note(function_op: Operation, name: str) -> str:
    """Where the library says the buffer ``name`` dies, and why."""
    from tinycomp.ir.naming import SSANames

    names = SSANames(function_op.parent_op() or function_op)
    indices = OpIndices(function_op)
    for alloc in [op for op in function_op.walk() if op.name == "memref.alloc"]:
        if names.value_name(alloc.results[0]) != name:
            continue
        liveness = buffer_liveness(alloc)
        if liveness.escapes:
            return f"{name} escapes (a user passes it on, or uses it outside its block)"
        last = liveness.last_use
        return (
            f"the last op of {name}'s block that uses it (or a view of it) is '{last.name}' "
            f"at op index {indices.start[last]}, ending at op index {indices.end[last]}"
        )
    return ""


def expect_live_intervals(impl, what: str, module: Operation) -> None:
    function_op = next(
        op for op in module.walk() if op.name == "func.func" and op.regions[0].blocks
    )
    expected = measured(function_op).liveness
    found = impl.live_intervals(function_op)
    expect_instance(what, found, list, "a list of LiveInterval")
    listing = f"\nthe function:\n{print_ir(function_op)}"
    if [tuple(i)[0] for i in found] != [i.name for i in expected]:
        raise GradingFailure(
            f"{what}: expected one interval per memref.alloc, in walk order: "
            f"{[i.name for i in expected]}, found {[tuple(i)[0] for i in found]}{listing}"
        )
    for want, got in zip(expected, found, strict=True):
        got = tuple(got)
        if got[1:] != tuple(want)[1:]:
            field = next(n for n, (a, b) in enumerate(zip(got, want, strict=True)) if a != b)
            label = ["name", "start", "end", "bytes"][field]
            note = last_use_note(function_op, want.name) if label == "end" else ""
            raise GradingFailure(
                f"{what}: {want.name}: expected live {want.start}..{want.end} "
                f"({want.bytes} bytes), found {got[1]}..{got[2]} ({got[3]} bytes): the "
                f"{label} differs" + (f"; {note}" if note else "") + listing
            )


def expect_peak(impl, what: str, module: Operation, expected: int | None = None) -> None:
    function_op = next(
        op for op in module.walk() if op.name == "func.func" and op.regions[0].blocks
    )
    report = measured(function_op)
    expected = report.peak_bytes["now"] if expected is None else expected
    found = impl.peak_bytes(function_op)
    if found != expected:
        held = ", ".join(
            f"{a.name} {a.held[0]}..{a.held[1]} ({a.bytes or 0} B)" for a in report.allocations
        )
        raise GradingFailure(
            f"{what}: expected a peak of {expected} bytes, found {found!r}; the held ranges "
            f"(alloc to before its dealloc, or to the end) are: {held or 'none'}\n"
            f"the function:\n{print_ir(function_op)}"
        )


@task07_2
@pytest.mark.parametrize("case", list(LIVENESS_CASES))
def test_live_intervals_by_hand(impl, case):
    module = parse(LIVENESS_CASES[case])
    expect_live_intervals(impl, f"live_intervals [case '{case}']", module)
    expect_peak(impl, f"peak_bytes [case '{case}']", module)


@task07_2
@pytest.mark.parametrize("reuse", [False, True], ids=["no reuse", "reuse"])
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_liveness_and_peak_after_each_bufferization_pass(impl, program, reuse):
    module = parse(stage_text(program, "traced"))
    passes = bufferization_passes(reuse=reuse)
    for pass_ in passes:
        run_passes(pass_.name, [pass_], module)
        what = f"{program} (traced) after {pass_.name}"
        expect_live_intervals(impl, f"live_intervals: {what}", module)
        expect_peak(impl, f"peak_bytes: {what}", module, passes[0].report.peak_bytes[pass_.name])


TILED = {
    "softmax, rows of 4": (softmax, [(8, 16)], (4,)),
    "matmul + bias, partial tiles": (lambda a, b, c: a @ b + c, [(10, 6), (6, 7), (7,)], (4, 4)),
    "layernorm, rows of 2": (layernorm, [(6, 8), (8,), (8,)], (2,)),
}


@task07_2
@pytest.mark.parametrize("program", list(TILED))
def test_liveness_of_tiled_programs(impl, program):
    """Buffers allocated inside tile loops, read through subviews, partial tiles with
    dynamic sizes; the peak against the one the pipeline reports."""
    fn, shapes, tiles = TILED[program]
    compiled = compile_with(program, fn, shapes, CompileOptions(tile_sizes=tiles))
    module = compiled.ir("bufferized")
    expect_live_intervals(impl, f"live_intervals: {program}, tiled and bufferized", module)
    peak = compiled.reports["one-shot-bufferize"].peak_bytes["buffer-deallocation"]
    expect_peak(impl, f"peak_bytes: {program}, tiled and bufferized", module, peak)


@task07_2
@settings(GRADED)
@given(text=straight_line_programs(), deallocate=st.booleans())
def test_liveness_of_random_programs(impl, text, deallocate):
    module = parse(text)
    PassManager(bufferization_passes(reuse=False, deallocate=deallocate)).run(module)
    what = f"random program, bufferized{' and freed' if deallocate else ''}"
    expect_live_intervals(impl, f"live_intervals: {what}", module)
    expect_peak(impl, f"peak_bytes: {what}", module)


# == Task 07.3: a static memory plan =============================================================
def optimal_bytes(buffers) -> int:
    """The smallest plan, by exhaustive search: each buffer in turn joins a compatible
    open slot or opens one (all set partitions that respect types and overlaps)."""
    best = [sum(b.bytes for b in buffers)]
    order = sorted(buffers, key=lambda b: b.start)

    def place(index: int, slots: list[list], cost: int) -> None:
        if cost >= best[0]:
            return
        if index == len(order):
            best[0] = cost
            return
        buffer = order[index]
        for slot in slots:
            if slot[0].type == buffer.type and all(not overlap(buffer, b) for b in slot):
                slot.append(buffer)
                place(index + 1, slots, cost)
                slot.pop()
        slots.append([buffer])
        place(index + 1, slots, cost + buffer.bytes)
        slots.pop()

    place(0, [], 0)
    return best[0]


def overlap(a, b) -> bool:
    return not (a.end < b.start or b.end < a.start)


def describe_buffer(b) -> str:
    return f"{b.name} (live {b.start}..{b.end}, {b.bytes} B, {b.type})"


def expect_valid_and_optimal(impl, what: str, buffers: list) -> list[int]:
    slots = impl.assign_slots(buffers)
    expect_instance(what, slots, list, "a list of slot numbers")
    listing = "\nthe buffers:\n" + "\n".join(f"  {describe_buffer(b)}" for b in buffers)
    if len(slots) != len(buffers) or not all(isinstance(s, int) for s in slots):
        raise GradingFailure(f"{what}: expected one int slot per buffer, found {slots!r}{listing}")
    for (a, slot_a), (b, slot_b) in itertools.combinations(zip(buffers, slots, strict=True), 2):
        if slot_a != slot_b:
            continue
        if a.type != b.type:
            raise GradingFailure(
                f"{what}: slot {slot_a} holds {describe_buffer(a)} and {describe_buffer(b)}: "
                f"a slot is one allocation of one type{listing}"
            )
        if overlap(a, b):
            both = f"{max(a.start, b.start)}..{min(a.end, b.end)}"
            raise GradingFailure(
                f"{what}: slot {slot_a} holds {describe_buffer(a)} and {describe_buffer(b)}, "
                f"both live at op {both}: one would overwrite the other{listing}"
            )
    sizes = {slot: b.bytes for b, slot in zip(buffers, slots, strict=True)}
    cost, best = sum(sizes.values()), optimal_bytes(buffers)
    if cost > best:
        raise GradingFailure(
            f"{what}: your plan needs {cost} bytes in {len(sizes)} slots, the best plan "
            f"{best} bytes{wasted_slot(buffers, slots)}\nhint: visit the buffers by start, "
            f"and give each one any free slot of its type{listing}"
        )
    return slots


def wasted_slot(buffers, slots) -> str:
    """Name a buffer that opened a slot although an earlier slot was free for it."""
    order = sorted(range(len(buffers)), key=lambda n: buffers[n].start)
    seen: dict[int, list] = {}
    for n in order:
        buffer, slot = buffers[n], slots[n]
        if slot not in seen:
            for other, members in seen.items():
                fits = all(m.type == buffer.type and not overlap(m, buffer) for m in members)
                if fits:
                    return (
                        f": {buffer.name} opens slot {slot}, but slot {other} "
                        f"({', '.join(m.name for m in members)}) is free from op "
                        f"{max(m.end for m in members) + 1}, and {buffer.name} starts at "
                        f"{buffer.start}"
                    )
            seen[slot] = []
        seen[slot].append(buffer)
    return ""


F16 = "memref<4x4xf32>"
F8 = "memref<8xf32>"
SLOT_CASES = {
    # name: [(start, end, type)], 64 bytes for 4x4, 32 for 8
    "a chain": [(1, 4, F16), (3, 6, F16), (5, 7, F16), (7, 9, F16)],
    "ends touching starts": [(1, 3, F16), (3, 5, F16), (5, 7, F16)],
    "nested ranges": [(1, 10, F16), (2, 3, F16), (4, 5, F16), (6, 9, F16)],
    "two types": [(1, 3, F16), (2, 4, F8), (4, 6, F16), (5, 8, F8), (7, 9, F16)],
    "same type, different sizes never share": [(1, 2, F16), (3, 4, F8)],
    "not in start order": [(6, 8, F16), (1, 2, F16), (3, 5, F16), (2, 4, F16)],
    "a greedy by end would waste a slot": [
        (1, 2, F16),
        (1, 5, F16),
        (3, 4, F16),
        (6, 7, F16),
        (5, 6, F16),
    ],
    "one buffer": [(2, 2, F16)],
    "none": [],
}


def make_buffers(impl, spec) -> list:
    return [
        impl.Buffer(f"%b{n}", start, end, 64 if kind == F16 else 32, kind)
        for n, (start, end, kind) in enumerate(spec)
    ]


@task07_3
@pytest.mark.parametrize("case", list(SLOT_CASES))
def test_assign_slots_cases(impl, case):
    expect_valid_and_optimal(
        impl, f"assign_slots [case '{case}']", make_buffers(impl, SLOT_CASES[case])
    )


@st.composite
def buffer_lists(draw):
    count = draw(st.integers(1, 8))
    spec = []
    for _ in range(count):
        start = draw(st.integers(1, 12))
        spec.append((start, start + draw(st.integers(0, 5)), draw(st.sampled_from([F16, F16, F8]))))
    return spec


@task07_3
@settings(GRADED)
@given(spec=buffer_lists())
def test_assign_slots_is_optimal_on_random_buffers(impl, spec):
    expect_valid_and_optimal(impl, "assign_slots on random buffers", make_buffers(impl, spec))


def one_shot(text: str) -> ModuleOp:
    module = parse(text)
    PassManager([OneShotBufferizePass()]).run(module)
    return module


def best_plan(module: ModuleOp) -> tuple[int, int]:
    """``(bytes the best plan needs, bytes of the allocations no plan may place)``, from
    the library's liveness: per block and type, the bytes of one buffer times the most
    buffers of that type live at one op index (no plan can do with fewer slots, and
    visiting by start achieves it); escaping or dynamically sized buffers stay as
    they are."""
    groups: dict[tuple, list[tuple[int, int, int]]] = {}
    fixed = 0
    for function_op in [op for op in module.walk() if op.name == "func.func"]:
        indices = OpIndices(function_op)
        for alloc in [op for op in function_op.walk() if op.name == "memref.alloc"]:
            liveness, memref_type = buffer_liveness(alloc), alloc.results[0].type
            if liveness.escapes or not memref_type.has_static_shape:
                fixed += buffer_bytes(memref_type) or 0
                continue
            start, end = indices.interval(liveness)
            key = (alloc.parent, str(memref_type))
            groups.setdefault(key, []).append((start, end, buffer_bytes(memref_type)))
    need = 0
    for intervals in groups.values():
        most = max(sum(1 for s, e, _ in intervals if s <= at <= e) for at, _, _ in intervals)
        need += most * intervals[0][2]
    return need, fixed


def run_plan(impl, what: str, module: ModuleOp, budget: int | None = None):
    plan = impl.StaticMemoryPlan(budget)
    run_passes(what, [plan], module)
    return plan


@task07_3
@pytest.mark.parametrize("deallocate", [False, True], ids=["before frees", "after frees"])
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_static_plan_on_traced_programs(impl, program, deallocate):
    text = stage_text(program, "traced")
    module = one_shot(text)
    if deallocate:
        PassManager([BufferDeallocationPass()]).run(module)
    before = print_ir(module)
    need, fixed = best_plan(module)
    what = f"StaticMemoryPlan on {program} (traced, bufferized{', freed' if deallocate else ''})"
    plan = run_plan(impl, what, module)
    fn, shapes = PROGRAMS[program]
    arrays = random_arrays(shapes, seed=703)
    expect_numbers(
        what, execute(what, module, arrays), interpret(parse(text), *arrays), print_ir(module)
    )
    allocated = sum(a.bytes or 0 for a in measured(module).allocations)
    if allocated != need + fixed:
        raise GradingFailure(
            f"{what}: after your pass the allocations add up to {allocated} bytes, the best "
            f"plan needs {need + fixed}\nIR before:\n{before}\nIR after:\n{print_ir(module)}"
        )
    if plan.statistics["bytes planned"] != need:
        raise GradingFailure(
            f"{what}: statistics['bytes planned'] is {plan.statistics['bytes planned']}, "
            f"expected {need}"
        )
    if deallocate:
        frees = print_ir(module).count("memref.dealloc")
        allocs = print_ir(module).count("memref.alloc(")
        if frees != allocs:
            raise GradingFailure(
                f"{what}: {allocs} allocations but {frees} deallocs after your pass: erase the "
                f"deallocs of every buffer of a slot but its last one\n{print_ir(module)}"
            )


@task07_3
def test_static_plan_budget(impl):
    text = stage_text("mlp2", "traced")
    need, _ = best_plan(one_shot(text))
    fits = one_shot(text)
    run_plan(impl, f"StaticMemoryPlan(budget={need}) on mlp2", fits, budget=need)
    over = one_shot(text)
    before = print_ir(over)
    plan = impl.StaticMemoryPlan(need - 1)
    try:
        PassManager([plan]).run(over)
    except PassError as error:
        if isinstance(error.__cause__, NotImplementedError):
            raise error.__cause__ from None
        message = str(error)
        if str(need) not in message or str(need - 1) not in message:
            raise GradingFailure(
                f"StaticMemoryPlan(budget={need - 1}) on mlp2: the error should name what the "
                f"plan needs ({need} bytes) and the budget ({need - 1}), found: {message}"
            ) from None
        if print_ir(over) != before:
            raise GradingFailure(
                f"StaticMemoryPlan(budget={need - 1}): the IR changed before the error; check "
                "the budget before rewriting anything"
            ) from None
        return
    raise GradingFailure(
        f"StaticMemoryPlan(budget={need - 1}) on mlp2: the plan needs {need} bytes, one more "
        f"than the budget, but no PassError was raised\nIR after:\n{print_ir(over)}"
    )


@task07_3
def test_static_plan_in_the_pipeline(impl):
    """After the library's passes (deallocs in place), with tiles: allocations inside loops."""
    fn, shapes, tiles = TILED["softmax, rows of 4"]
    options = CompileOptions(
        tile_sizes=tiles,
        buffer_reuse=False,
        extra_passes={"bufferized": [impl.StaticMemoryPlan(4096)]},
    )
    what = (
        "tinycomp.compile(softmax, tile_sizes=(4,), "
        "extra_passes={'bufferized': [StaticMemoryPlan(4096)]})"
    )
    program = compile_with(what, fn, shapes, options)
    arrays = random_arrays(shapes, seed=704)
    expect_numbers(
        what, program(*arrays), program.run(*arrays, stage="fused"), program.stages["bufferized"]
    )


@task07_3
@settings(GRADED)
@given(text=straight_line_programs())
def test_static_plan_on_random_programs(impl, text):
    module = one_shot(text)
    need, fixed = best_plan(module)
    run_plan(impl, "StaticMemoryPlan on a random program", module, budget=need)
    count = len(parse(text).body.first_op.arguments)
    arrays = random_arrays([(3, 3)] * count, seed=705)
    what = "StaticMemoryPlan on a random program"
    expect_numbers(what, execute(what, module, arrays),
                   interpret(parse(text), *arrays), print_ir(module))  # fmt: skip
    allocated = sum(a.bytes or 0 for a in measured(module).allocations)
    if allocated != need + fixed:
        raise GradingFailure(
            f"StaticMemoryPlan on a random program: {allocated} bytes allocated, the best "
            f"plan needs {need + fixed}\n{print_ir(module)}"
        )
