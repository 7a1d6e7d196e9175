"""Graded tests for chapter 07 (`ch07_bufferization.py`): in-place decisions, liveness and
peak memory, a static memory plan under a budget, an arena within 10% of the best.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
While the student's code runs, the library's own answers to the task (its in-place
analysis, its liveness, its buffer reuse) raise `LibraryAnswer` (`own_work`), however
they were imported: the tasks ask for the computation, not for a call.

Every reference answer comes from the library: the decisions are `analyze_in_place`'s
(any read that conflicts is accepted as the conflicting read), the live ranges and peaks
are the `BufferizationReport`'s, and the best plans are found by exhaustive search. The
student's code is also plugged into the pipeline: programs bufferized with their
decisions, freed where their liveness says buffers die, or rewritten to their plan run
in the reference interpreter on random inputs and must compute what the tensor program
computes, so a wrong rule shows up as a wrong element or a use after free. Random cases
come from fixed seeds and from hypothesis with `derandomize`, so a grade never changes
from one run to the next.
"""

from __future__ import annotations

import itertools
import re
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp.compiler import CompileOptions
from tinycomp.dialects.memref.alloc import DeallocOp
from tinycomp.frontend import TensorSpec, attention, layernorm, rmsnorm, softmax
from tinycomp.grading.checks import GradingFailure, expect_instance
from tinycomp.grading.library_calls import library_answers_blocked
from tinycomp.interp import InterpreterError, interpret
from tinycomp.ir import Builder, ModuleOp, Operation, Use, ir_equal, parse, print_ir
from tinycomp.passes import PassError, PassManager
from tinycomp.passes.bufferize import (
    BufferDeallocationPass,
    BufferizationReport,
    OneShotBufferizePass,
    analyze_in_place,
    bufferization_passes,
    run_bufferized,
)
from tinycomp.passes.bufferize.alias_sets import ValueSets
from tinycomp.passes.bufferize.aliasing import (
    has_undefined_contents,
    reads_operand,
)
from tinycomp.passes.bufferize.empty_tensors import split_shared_empty_tensors
from tinycomp.passes.bufferize.liveness import OpIndices, buffer_liveness
from tinycomp.passes.bufferize.memref_types import buffer_bytes
from tinycomp.testing import KERNELS

# -- your own work: the library's answers are out of reach while your code runs ----------
own_work = library_answers_blocked  # (impl, what, answers): the library's answers blocked


ANSWERS = {
    "07.1": {
        "tinycomp.passes.bufferize.inplace_analysis:analyze_in_place": "its in-place analysis",
        "tinycomp.passes.bufferize.inplace_analysis:InPlaceAnalysis": "its in-place analysis",
        "tinycomp.passes.bufferize.inplace_analysis:_elementwise_pair": "its same-op rule",
    },
    "07.2": {
        "tinycomp.passes.bufferize.liveness:buffer_liveness": "its buffer liveness",
        "tinycomp.passes.bufferize.liveness:OpIndices": "its op indices and live ranges",
        "tinycomp.passes.bufferize.liveness:aliases_of": "its views of a buffer",
        "tinycomp.passes.bufferize.report:BufferizationReport.measure": "the report's ranges",
        "tinycomp.viz.memory_timeline:memory_timeline": "the liveness charts' ranges",
        "tinycomp.viz.memory_timeline:bufferization_timelines": "the liveness charts' ranges",
    },
    "07.3": {
        "tinycomp.passes.bufferize.reuse:reuse_buffers": "buffer-reuse's linear scan",
        "tinycomp.passes.bufferize.reuse:BufferReusePass": "the buffer-reuse pass",
    },
    "07.4": {},
}
"""Per task, the library code that computes its answer: blocked while the student's code
runs (the building blocks the exercise file imports stay usable)."""


def ask(impl, task: str, what: str, function: str, *args):
    """``impl.function(*args)``, with the library's answers to ``task`` blocked."""
    with own_work(impl, what, ANSWERS[task]):
        return getattr(impl, function)(*args)


def guarded(impl, task: str, what: str, function):
    """``function`` wrapped so that every call runs with ``task``'s answers blocked (for
    student code that the pipeline calls, such as ``decide_in_place`` inside
    ``MyOneShotBufferize``)."""

    def run(*args, **kwargs):
        with own_work(impl, what, ANSWERS[task]):
            return function(*args, **kwargs)

    return run


task07_1 = pytest.mark.task07_1
task07_2 = pytest.mark.task07_2
task07_3 = pytest.mark.task07_3
task07_4 = pytest.mark.task07_4

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
    verdicts = ask(impl, "07.1", what, "decide_in_place", function_op, writable)
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
        if want_read is None:
            if got_read is not None:
                raise GradingFailure(
                    f"{what}: {subject} ({expected.reason}): no read forces this verdict, "
                    f"found the conflicting read {describe_reader(*got_read)}{listing}"
                )
            continue
        allowed = conflicting_reads(module, library, number)
        if want_read not in allowed:  # the grader's own replay disagrees with the library
            raise RuntimeError(f"{what}: the replay of verdict #{number} misses {want_read}")
        if got_read not in allowed:
            found_text = "none" if got_read is None else describe_reader(*got_read)
            raise GradingFailure(
                f"{what}: {subject} is a copy ({expected.reason}): expected a read that "
                f"conflicts with the write (for example {describe_reader(*want_read)}), "
                f"found {found_text}{listing}"
            )


def reference_conflict(write: Use, read: Use, position: dict[Operation, int]) -> bool:
    """The chapter's read-after-write rule for straight-line programs."""
    writer, reader = write.user, read.user
    value = reader.operands[read.index]
    if has_undefined_contents(value):
        return False
    if writer is reader:
        if read.index == write.index:
            return False
        if read.index >= writer.num_inputs:
            return True
        maps, kinds = writer.indexing_maps(), writer.iterator_types()
        same_map = maps[read.index] == maps[write.index] and maps[write.index].is_permutation()
        return not (same_map and all(kind == "parallel" for kind in kinds))
    defining = value.defining_op()
    defined_at = -1 if defining is None else position[defining]
    return position[reader] > position[writer] and defined_at < position[writer]


def conflicting_reads(module: ModuleOp, decisions, number: int) -> set[tuple[Operation, str]]:
    """Every read that conflicts with verdict ``number`` of ``decisions`` (replayed from
    the verdicts before it): ``(reader, the value it reads)`` pairs."""
    ops = list(module.body.first_op.entry_block.ops)
    position = {op: n for n, op in enumerate(ops)}
    buffers, in_place = ValueSets(), set()
    for decision in decisions[:number]:
        op, index = decision.op, decision.operand_index
        if decision.in_place:
            in_place.add(Use(op, index))
            buffers.union(op.operands[index], op.results[index - op.num_inputs])
    op, index = decisions[number].op, decisions[number].operand_index
    members = buffers.merged_members(op.operands[index], op.results[index - op.num_inputs])
    reads = [use for v in members for use in v.uses if reads_operand(use.user, use.index)]
    writes = [Use(op, index)] + [use for v in members for use in v.uses if use in in_place]
    return {
        (read.user, printed(read.user.operands[read.index]))
        for write in writes
        for read in reads
        if reference_conflict(write, read, position)
    }


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
    # name: (writer line, written operand, reader line, read operand, conflict?, why)
    "read of a tensor.empty": (
        10, 2, 3, 1, False,
        "%e comes from tensor.empty: it has no contents anyone could miss",
    ),
    "the same outs operand": (
        16, 1, 16, 1, False,
        "an op reading the old element of the operand it writes is accumulating: each "
        "element is read, then written, by its own iteration",
    ),
    "elementwise input, same buffer": (
        16, 1, 16, 0, False,
        "all loops parallel, and the input read through the output's own map: every "
        "element is read and then written by one iteration, which no other touches",
    ),
    "transposed input, same buffer": (
        22, 1, 22, 0, True,
        "the input is read through (j, i), the output written through (i, j): the "
        "iteration writing (0, 1) may run before the one reading it as (1, 0)",
    ),
    "matmul reads its outs buffer": (
        28, 2, 28, 0, True,
        "a matmul reads a whole row of %b for each element it writes: some of those "
        "reads come after other iterations overwrote them",
    ),
    "a later read of the old value": (
        16, 1, 29, 0, True,
        "the return runs after the write and names %a, the value from before it",
    ),
    "a later read of an argument": (
        16, 1, 29, 3, True,
        "an argument exists before every op: a read after the write wants the old contents",
    ),
    "an earlier read": (
        16, 1, 10, 0, False,
        "%s reads %a before the write happens",
    ),
    "a later read of a value made by the write": (
        16, 1, 29, 1, False,
        "%b is the write's own result: reading the new contents is what it wants",
    ),
}  # fmt: skip


@task07_1
@pytest.mark.parametrize("case", list(CONFLICT_CASES))
def test_conflicts(impl, case):
    writer_line, write_index, reader_line, read_index, expected, why = CONFLICT_CASES[case]
    module = parse(CONFLICT_PROGRAM)
    ops = by_line(module)
    position = {op: n for n, op in enumerate(module.body.first_op.entry_block.ops)}
    write, read = Use(ops[writer_line], write_index), Use(ops[reader_line], read_index)
    what = (
        f"conflicts(write={describe_op(write.user)} operand #{write_index}, "
        f"read={describe_read(read)}) [case '{case}']"
    )
    found = ask(impl, "07.1", what, "conflicts", write, read, position)
    if found is not expected:
        raise GradingFailure(
            f"{what}: expected {expected}, found {found!r}\nhint: {why}\n"
            f"the program:\n{numbered(CONFLICT_PROGRAM)}"
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
    options = CompileOptions(extra_passes={"tiled": [impl.MyOneShotBufferize()]})
    with your_decisions(impl, what):
        mine = compile_with(what, fn, shapes, options)
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


@contextmanager
def replaced(module, name: str, value):
    """``module.name`` is ``value`` inside the block."""
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def your_decisions(impl, what: str):
    """``MyOneShotBufferize`` decides with the student's ``decide_in_place``, guarded."""
    return replaced(impl, "decide_in_place", guarded(impl, "07.1", what, impl.decide_in_place))


def first_wrong_verdict(text: str, verdicts, writable: bool) -> str:
    """The first of the student's verdicts that differs from the library's, in words."""
    module = parse(text)
    function_op = module.body.first_op
    split_shared_empty_tensors(function_op)
    library = {
        (d.op.location.line, d.operand_index): d
        for d in analyze_in_place(function_op, writable).decisions
    }
    for verdict in verdicts:
        line = verdict.op.location.line if verdict.op.location else None
        expected = library.get((line, verdict.operand_index))
        if expected is not None and expected.in_place != verdict.in_place:
            said = "in place" if verdict.in_place else "a copy"
            return (
                f"your verdict on '{verdict.op.name}' at line {line}, operand "
                f"#{verdict.operand_index}, is {said}; the library's: {expected.reason}"
            )
    return "every verdict agrees with the library's"


@task07_1
@settings(GRADED)
@given(text=straight_line_programs(), writable=st.booleans())
def test_your_decisions_compute_what_the_tensors_compute(impl, text, writable):
    """Bufferized with the student's verdicts, the program runs in the interpreter on
    random inputs: an in-place write that destroys a value still read shows up as a
    wrong element."""
    what = f"MyOneShotBufferize(writable_arguments={writable}) on a random program"
    module = parse(text)
    plan = impl.MyOneShotBufferize(writable)
    with your_decisions(impl, what):
        run_passes(what, [plan], module)
    count = len(parse(text).body.first_op.arguments)
    arrays = random_arrays([(3, 3)] * count, seed=702)
    expected = interpret(parse(text), *[a.copy() for a in arrays])
    found = execute(what, module, [a.copy() for a in arrays])
    try:
        expect_numbers(what, found, expected, print_ir(module))
    except GradingFailure as failure:
        verdict = first_wrong_verdict(text, plan.verdicts, writable)
        raise GradingFailure(
            f"{failure}\nthe tensor program:\n{numbered(text)}\n{verdict}"
        ) from None


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
    found = ask(impl, "07.2", what, "live_intervals", function_op)
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
    found = ask(impl, "07.2", what, "peak_bytes", function_op)
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


def free_where_yours_die(impl, what: str, module: ModuleOp) -> ModuleOp:
    """Insert a ``memref.dealloc`` right after the op where the student's liveness says
    each buffer dies (buffers that escape, by the library's liveness, stay unfreed)."""
    function_op = next(op for op in module.walk() if op.name == "func.func")
    intervals = ask(impl, "07.2", what, "live_intervals", function_op)
    allocs = [op for op in function_op.walk() if op.name == "memref.alloc"]
    expect_instance(what, intervals, list, "a list of LiveInterval")
    if len(intervals) != len(allocs):
        raise GradingFailure(
            f"{what}: expected {len(allocs)} intervals (one per memref.alloc), found "
            f"{len(intervals)}\n{print_ir(function_op)}"
        )
    indices = OpIndices(function_op)
    for alloc, interval in zip(allocs, intervals, strict=True):
        if buffer_liveness(alloc).escapes:
            continue
        end = tuple(interval)[2]
        ops = [op for op in alloc.parent.ops if op.name != "memref.dealloc"]
        holder = [op for op in ops if indices.start[op] <= end][-1]
        if holder.name in ("scf.yield", "func.return"):
            holder = holder.prev_op
        if indices.start[holder] < indices.start[alloc]:
            holder = alloc
        Builder.after(holder).insert(DeallocOp.build(alloc.results[0]))
    return module


@task07_2
@pytest.mark.parametrize("program", [*PROGRAMS, *TILED])
def test_buffers_freed_where_yours_die_are_never_used_again(impl, program):
    """The student's liveness drives deallocation: each buffer freed right after its
    interval ends, the program must still run in the interpreter and compute the same
    numbers. A buffer that dies too early shows up as a use after free."""
    if program in PROGRAMS:
        fn, shapes = PROGRAMS[program]
        module = one_shot(stage_text(program, "traced"))
    else:
        fn, shapes, tiles = TILED[program]
        specs = [TensorSpec(shape) for shape in shapes]
        tiled = tinycomp.compile(fn, *specs, options=CompileOptions(tile_sizes=tiles),
                                 stop_after="tiled")  # fmt: skip
        module = parse(tiled.stages["tiled"])
        PassManager([OneShotBufferizePass()]).run(module)
    what = f"{program}, bufferized, freed where your live_intervals ends each buffer"
    free_where_yours_die(impl, what, module)
    arrays = random_arrays(shapes, seed=706)
    expected = tinycomp.compile(fn, *arrays, stop_after="traced").run(*arrays, stage="traced")
    expect_numbers(what, execute(what, module, arrays), expected, print_ir(module))


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
    slots = ask(impl, "07.3", what, "assign_slots", buffers)
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


def library_live_intervals(function_op) -> list:
    """The library's live ranges: what ``block_buffers`` gets in the tests of Task 07.3,
    so that a Task 07.2 still to do does not count against it."""
    return measured(function_op).liveness


@contextmanager
def planning(impl, what: str):
    """Inside: the student's plan runs on the library's liveness, with buffer-reuse
    (the library's own linear scan) blocked."""
    with replaced(impl, "live_intervals", library_live_intervals):
        with own_work(impl, what, ANSWERS["07.3"]):
            yield


def run_plan(impl, what: str, module: ModuleOp, budget: int | None = None):
    plan = impl.StaticMemoryPlan(budget)
    with planning(impl, what):
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
        with planning(impl, f"StaticMemoryPlan(budget={need - 1}) on mlp2"):
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
    with planning(impl, what):
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


# == Task 07.4: one arena, buffers of any size, within 10% of the best ===========================
ARENA_SLACK = 1.1
"""The arena may be at most 10% larger than the smallest possible."""


def first_fit(buffers, order) -> list[int]:
    """Each buffer, in ``order``, at the lowest offset clear of the buffers placed so far
    that are live with it."""
    offsets: list[int | None] = [None] * len(buffers)
    for number in order:
        buffer = buffers[number]
        busy = sorted(
            (offsets[other], offsets[other] + buffers[other].bytes)
            for other in range(len(buffers))
            if offsets[other] is not None and overlap(buffer, buffers[other])
        )
        at = 0
        for low, high in busy:
            if at + buffer.bytes <= low:
                break
            at = max(at, high)
        offsets[number] = at
    return offsets


def arena_bytes(buffers, offsets) -> int:
    return max((o + b.bytes for o, b in zip(offsets, buffers, strict=True)), default=0)


def live_floor(buffers) -> int:
    """The most bytes live at one op index: no arena is smaller."""
    starts = {b.start for b in buffers}
    return max((sum(b.bytes for b in buffers if b.start <= s <= b.end) for s in starts), default=0)


def best_arena(buffers) -> tuple[int, list[int]] | None:
    """The smallest arena and one placement reaching it, or ``None`` when unknown.

    Placing the buffers one by one, each at the lowest free offset, in the order of the
    offsets of an optimal placement gives offsets no higher than those (each buffer fits
    where the optimum put it): so trying every order finds the optimum. Sets of more than
    eight buffers are decided only when some order reaches the floor of bytes live."""
    floor = live_floor(buffers)
    orders = [
        sorted(range(len(buffers)), key=lambda n: (-buffers[n].bytes, buffers[n].start)),
        sorted(range(len(buffers)), key=lambda n: buffers[n].start),
    ]
    best = None
    for order in orders:
        offsets = first_fit(buffers, order)
        if best is None or arena_bytes(buffers, offsets) < best[0]:
            best = (arena_bytes(buffers, offsets), offsets)
    if best is None or best[0] == floor:
        return best or (0, [])
    if len(buffers) > 8:
        return None
    for order in itertools.permutations(range(len(buffers))):
        offsets = first_fit(buffers, order)
        size = arena_bytes(buffers, offsets)
        if size < best[0]:
            best = (size, offsets)
            if size == floor:
                break
    return best


def expect_arena(impl, what: str, buffers) -> list[int]:
    offsets = ask(impl, "07.4", what, "arena_offsets", buffers)
    listing = "\nthe buffers:\n" + "\n".join(f"  {describe_buffer(b)}" for b in buffers)
    expect_instance(what, offsets, list, "a list of byte offsets")
    if len(offsets) != len(buffers) or not all(isinstance(o, int) and o >= 0 for o in offsets):
        raise GradingFailure(
            f"{what}: expected one int offset >= 0 per buffer, found {offsets!r}{listing}"
        )
    for (a, at_a), (b, at_b) in itertools.combinations(zip(buffers, offsets, strict=True), 2):
        if overlap(a, b) and at_a < at_b + b.bytes and at_b < at_a + a.bytes:
            both = f"{max(a.start, b.start)}..{min(a.end, b.end)}"
            low, high = max(at_a, at_b), min(at_a + a.bytes, at_b + b.bytes)
            raise GradingFailure(
                f"{what}: {a.name} at bytes {at_a}..{at_a + a.bytes - 1} and {b.name} at bytes "
                f"{at_b}..{at_b + b.bytes - 1} are both live at op {both}: they share bytes "
                f"{low}..{high - 1}, and one would overwrite the other{listing}"
            )
    best = best_arena(buffers)
    assert best is not None, f"{what}: the grader cannot tell the best arena here"
    size = arena_bytes(buffers, offsets)
    if size > ARENA_SLACK * best[0]:
        placement = ", ".join(f"{b.name} at {o}" for b, o in zip(buffers, best[1], strict=True))
        raise GradingFailure(
            f"{what}: your arena needs {size} bytes, more than 10% above the best, {best[0]} "
            f"bytes (for example {placement}); the bytes live at the busiest op index are "
            f"{live_floor(buffers)}{listing}"
        )
    return offsets


def sized_buffers(impl, spec) -> list:
    return [
        impl.Buffer(f"%b{n}", start, end, size, f"memref<{size // 4}xf32>")
        for n, (start, end, size) in enumerate(spec)
    ]


ARENA_CASES = {
    # name: [(start, end, bytes)]
    "one buffer": [(1, 3, 64)],
    "none": [],
    "a chain of different sizes": [(1, 3, 64), (2, 5, 32), (4, 6, 64), (6, 8, 128)],
    "a small buffer that must not split a big gap": [(1, 4, 64), (1, 2, 64), (3, 6, 32),
                                                     (5, 8, 128), (7, 9, 64)],
    "first come, first placed, wastes": [(1, 2, 32), (1, 6, 64), (3, 4, 96), (5, 8, 32),
                                         (7, 8, 96)],
    "nested lifetimes": [(1, 10, 256), (2, 4, 64), (3, 8, 128), (5, 6, 64), (7, 9, 192)],
}  # fmt: skip


@task07_4
@pytest.mark.parametrize("case", list(ARENA_CASES))
def test_arena_cases(impl, case):
    expect_arena(impl, f"arena_offsets [case '{case}']", sized_buffers(impl, ARENA_CASES[case]))


@st.composite
def sized_buffer_lists(draw):
    spec = []
    for _ in range(draw(st.integers(1, 7))):
        start = draw(st.integers(1, 12))
        size = draw(st.sampled_from([32, 48, 64, 96, 128, 256, 512]))
        spec.append((start, start + draw(st.integers(0, 5)), size))
    return spec


@task07_4
@settings(GRADED)
@given(spec=sized_buffer_lists())
def test_arena_on_random_buffers(impl, spec):
    expect_arena(impl, "arena_offsets on random buffers", sized_buffers(impl, spec))


def program_buffers(impl, module: ModuleOp) -> list:
    """The placeable buffers of a bufferized program, with the library's liveness."""
    function_op = next(op for op in module.walk() if op.name == "func.func")
    indices = OpIndices(function_op)
    found = []
    for alloc in [op for op in function_op.walk() if op.name == "memref.alloc"]:
        liveness, memref_type = buffer_liveness(alloc), alloc.results[0].type
        if liveness.escapes or not memref_type.has_static_shape:
            continue
        start, end = indices.interval(liveness)
        name = printed(alloc.results[0])
        found.append(impl.Buffer(name, start, end, buffer_bytes(memref_type), str(memref_type)))
    return found


@task07_4
@pytest.mark.parametrize("program", list(PROGRAMS))
def test_arena_for_traced_programs(impl, program):
    """The temporaries of a traced program: rows, matrices and row statistics of
    different sizes, placed in one scratchpad."""
    buffers = program_buffers(impl, one_shot(stage_text(program, "traced")))
    expect_arena(impl, f"arena_offsets for {program} (traced, bufferized)", buffers)
