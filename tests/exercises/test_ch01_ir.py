"""Graded tests for chapter 01 (`ch01_ir.py`): build IR, verify an op, walk use lists.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
Built IR is graded on what it is and what it does, not on its text: it must verify, have
the contracted signature and ops, and compute the right values in the reference
interpreter on random inputs (special floats included), so every correct program passes
and a wrong one is answered with the input, the value it returned and the value expected.
Tasks that teach the `Builder` refuse IR parsed from text; Task 01.5 is graded on its op
count against a budget.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tinycomp.dialects import arith, cf
from tinycomp.dialects.func import FuncOp, ReturnOp
from tinycomp.grading.checks import (
    GradingFailure,
    expect_equal,
    expect_instance,
    expect_text,
)
from tinycomp.grading.ir_checks import random_value, same_bits
from tinycomp.grading.library_calls import library_calls_refused
from tinycomp.interp import Interpreter, InterpreterError
from tinycomp.interp.rules import ALL_RULES
from tinycomp.ir import (
    Block,
    BlockArgument,
    Builder,
    FunctionType,
    ModuleOp,
    Operation,
    Value,
    VerifyError,
    f32,
    index,
    parse,
    parse_type,
    print_ir,
    verify,
)
from tinycomp.ir.naming import SSANames
from tinycomp.ir.parser import Parser

task01_1 = pytest.mark.task01_1
task01_2 = pytest.mark.task01_2
task01_3 = pytest.mark.task01_3
task01_4 = pytest.mark.task01_4
task01_5 = pytest.mark.task01_5


# -- shared: building, refusing, running ------------------------------------------------------
def library_refused(reason: str, forbidden: dict[str, Callable[..., Any]]):
    """Run the student's code; fail with ``reason`` if it reached one of ``forbidden``."""
    return library_calls_refused(forbidden, reason)


PARSER = {"the IR parser (tinycomp.parse)": Parser.parse_operation}


def build(impl, builder: str, task: str, *, parsing_allowed: bool = False) -> ModuleOp:
    """Call ``impl.<builder>()`` twice; the first module, checked to be fresh and to verify."""
    what = f"{builder}()"
    refused = {} if parsing_allowed else PARSER
    reason = (
        f"{what} reads IR text with {{called}}; Task {task} asks you to build the ops "
        "with a Builder (as the chapter builds @lerp and @pick)"
    )
    with library_refused(reason, refused):
        found = getattr(impl, builder)()
        again = getattr(impl, builder)()
    expect_instance(what, found, ModuleOp, "a ModuleOp (put the function in ModuleOp.build)")
    if found is again:
        raise GradingFailure(f"{what} returned the same module twice; build a new one per call")
    try:
        verify(found)
    except VerifyError as error:
        raise GradingFailure(
            f"{what}: expected IR that verifies, found a VerifyError:\n{error}\n"
            f"in the IR you built:\n{print_ir(found)}"
        ) from None
    return found


def the_function(what: str, module: ModuleOp, name: str, signature: str) -> FuncOp:
    """The module's only op, a ``func.func @name`` of type ``signature``."""
    ops = list(module.body)
    names = [op.name for op in ops]
    if names != ["func.func"]:
        raise GradingFailure(f"{what}: expected a module holding one func.func, found {names}")
    func = ops[0]
    expect_equal(f"{what}: the function's name", func.sym_name, name)
    expect_equal(f"{what}: the type of @{name}", str(func.function_type), signature)
    return func


def body_ops(func: FuncOp) -> list[Operation]:
    """Every op of the function except the terminators of its blocks, in walk order."""
    return [op for op in func.walk() if op is not func and not op.is_terminator]


def with_ir(module: ModuleOp) -> str:
    """The module's text, for the end of a feedback message."""
    return f"\nin the IR you built:\n{print_ir(module)}"


class OutOfFuel(Exception):
    """The function took more branches than it was allowed: it does not stop."""


def run_with_fuel(module: ModuleOp, entry: str, arguments: list, branches: int) -> object:
    """Run ``@entry`` in the reference interpreter, stopping after ``branches`` branches."""
    taken = 0

    def counted(rule):
        def run(op, operands, interp):
            nonlocal taken
            taken += 1
            if taken > branches:
                raise OutOfFuel(op)
            return rule(op, operands, interp)

        return run

    rules = dict(ALL_RULES)
    for name in ("cf.br", "cf.cond_br"):
        rules[name] = counted(ALL_RULES[name])
    (result,) = Interpreter(module, rules=rules).call(entry, arguments)
    return result


def show(value: object) -> str:
    """An f32 for feedback, as short as it prints exactly: ``3.375``, ``-0.0``, ``nan``."""
    return str(np.float32(value))


# -- Task 01.1 -------------------------------------------------------------------------------
@task01_1
def test_build_axpy_builds_one_mulf_then_one_addf(impl):
    module = build(impl, "build_axpy", "01.1")
    func = the_function("build_axpy()", module, "axpy", "(f32, f32, f32) -> f32")
    found = Counter(op.name for op in body_ops(func))
    if found != Counter({"arith.mulf": 1, "arith.addf": 1}):
        hint = ""
        if "math.fma" in found:
            hint = " (math.fma rounds once; a * x + y here rounds after each op)"
        raise GradingFailure(
            f"build_axpy(): expected one arith.mulf and one arith.addf before the return, "
            f"found {dict(found) or 'no ops'}{hint}{with_ir(module)}"
        )


@task01_1
def test_axpy_computes_a_times_x_plus_y(impl):
    module = build(impl, "build_axpy", "01.1")
    the_function("build_axpy()", module, "axpy", "(f32, f32, f32) -> f32")
    rng = np.random.default_rng(101)
    plain = [tuple(row) for row in rng.uniform(-4, 4, (10, 3)).astype(np.float32)]
    special = [tuple(random_value(f32, rng) for _ in range(3)) for _ in range(30)]
    for a, x, y in plain + special:  # plain numbers first: the clearest counter-examples
        with np.errstate(all="ignore"):
            expected = np.float32(a * x) + y  # numpy f32: rounds after each op, like arith
        found = run_with_fuel(module, "axpy", [a, x, y], branches=10)
        if not same_bits(found, expected):
            raise GradingFailure(
                f"@axpy(a={show(a)}, x={show(x)}, y={show(y)}): expected a * x + y = "
                f"{show(expected)}, found {show(found)}{with_ir(module)}"
            )


# -- Task 01.2 -------------------------------------------------------------------------------
def clamp_function(impl, x: str, lo: str, hi: str, result: str) -> tuple[ModuleOp, Operation]:
    """A module with ``func.func @clamp`` holding one ``tc.clamp`` of the given types."""
    x_type, lo_type, hi_type, result_type = (parse_type(t) for t in (x, lo, hi, result))
    func = FuncOp.build("clamp", FunctionType([x_type, lo_type, hi_type], [result_type]))
    for argument, hint in zip(func.arguments, ("x", "lo", "hi"), strict=True):
        argument.name_hint = hint
    b = Builder.at_end(func.entry_block)
    clamp = b.insert(impl.ClampFOp(list(func.arguments), [result_type]))
    clamp.result.name_hint = "r"
    b.insert(ReturnOp.build([clamp.result]))
    return ModuleOp.build([func]), clamp


def describe_clamp(x: str, lo: str, hi: str, result: str) -> str:
    """The op in generic form, for feedback."""
    return f'"tc.clamp"(%x, %lo, %hi) : ({x}, {lo}, {hi}) -> {result}'


@task01_2
@pytest.mark.parametrize(
    "value_type",
    ["f32", "f16", "bf16", "f64", "vector<4xf32>", "tensor<2x3xf16>", "tensor<?xbf16>"],
)
def test_clamp_accepts_one_float_type(impl, value_type):
    module, _ = clamp_function(impl, value_type, value_type, value_type, value_type)
    try:
        verify(module)
    except VerifyError as error:
        what = describe_clamp(*[value_type] * 4)
        raise GradingFailure(
            f"verify({what}): expected no error, found VerifyError: {error}"
        ) from None


INVALID_CLAMPS = [
    # x, lo, hi, result, the types the message must name, what is wrong
    ("f32", "f16", "f32", "f32", ["f32", "f16"], "%lo is f16 but %x is f32"),
    ("f32", "f32", "f64", "f32", ["f32", "f64"], "%hi is f64 but %x is f32"),
    ("f32", "f32", "f32", "f16", ["f32", "f16"], "the result is f16 but %x is f32"),
    ("bf16", "f32", "f32", "f32", ["bf16", "f32"], "%lo is f32 but %x is bf16"),
    ("vector<4xf32>", "f32", "f32", "vector<4xf32>", ["vector<4xf32>"], "%lo is a scalar"),
    (
        "tensor<2xf32>",
        "tensor<2xf32>",
        "tensor<3xf32>",
        "tensor<2xf32>",
        ["tensor<2xf32>", "tensor<3xf32>"],
        "%hi has another shape",
    ),
    ("i32", "i32", "i32", "i32", ["i32"], "i32 is not a float"),
    ("index", "index", "index", "index", ["index"], "index is not a float"),
    ("vector<4xi32>",) * 4 + (["vector<4xi32>"], "its elements are not floats"),
]


@task01_2
@pytest.mark.parametrize("x, lo, hi, result, named, why", INVALID_CLAMPS)
def test_clamp_rejects_bad_types_and_says_why(impl, x, lo, hi, result, named, why):
    module, clamp = clamp_function(impl, x, lo, hi, result)
    what = f"verify({describe_clamp(x, lo, hi, result)})"
    try:
        verify(module)
    except VerifyError as error:
        caught = error
    else:
        raise GradingFailure(f"{what}: expected a VerifyError ({why}), found none")
    if caught.op is not clamp:
        culprit = "no op" if caught.op is None else f"'{caught.op.name}'"
        raise GradingFailure(
            f"{what}: expected the VerifyError to come from 'tc.clamp' (raise self.error(...)), "
            f"found one from {culprit}: {caught.message}"
        )
    message = caught.message
    if "expected" not in message or any(name not in message for name in named):
        raise GradingFailure(
            f"{what}: expected a message that says what was expected and what was found, "
            f"naming {' and '.join(named)}; found: {message}"
        )
    if x == lo == hi == result and "float" not in message:
        raise GradingFailure(f"{what}: expected a message that asks for a float, found: {message}")


@task01_2
def test_clamp_error_points_at_the_source_line(impl):
    module = parse(
        """
func.func @f(%x: f32, %lo: f16, %hi: f32) -> f32 {
  %r = "tc.clamp"(%x, %lo, %hi) : (f32, f16, f32) -> f32
  return %r : f32
}""",
        verify=False,
    )
    clamp = module.body.first_op.entry_block.first_op
    if not isinstance(clamp, impl.ClampFOp):
        pytest.skip("tc.clamp is registered by another copy of ch01_ir.py in this process")
    try:
        verify(module)
    except VerifyError as error:
        if "at line 3" not in error.message:
            raise GradingFailure(
                "verify() of a tc.clamp parsed from line 3: expected the message to name the "
                f"line ('at line 3'; raise self.error(...) adds it), found: {error.message}"
            ) from None
    else:
        raise GradingFailure("verify() of a tc.clamp with %lo: f16, %x: f32: expected an error")


@task01_2
def test_clamp_custom_syntax_round_trips(impl):
    text = """module {
  func.func @f(%x: vector<4xf32>, %lo: vector<4xf32>, %hi: vector<4xf32>) -> vector<4xf32> {
    %r = tc.clamp %x, %lo, %hi : vector<4xf32>
    return %r : vector<4xf32>
  }
}"""
    try:
        module = parse(text)
    except VerifyError as error:
        raise GradingFailure(
            f"parse() of a valid tc.clamp: expected no error, found {error}"
        ) from None
    expect_text("print(parse(text)) with a valid tc.clamp", print_ir(module), text)


# -- Task 01.3 -------------------------------------------------------------------------------
FLOAT_OPS = [arith.AddFOp, arith.SubFOp, arith.MulFOp, arith.MaximumFOp]
INDEX_OPS = [arith.AddIOp, arith.MulIOp]


def random_function(rng: np.random.Generator) -> ModuleOp:
    """A random func/arith/cf function: straight-line code, then (sometimes) a diamond
    ``^bb1 | ^bb2 -> ^bb3(%m: f32)`` that passes a value to a block argument."""
    func = FuncOp.build("f", FunctionType([f32, f32, index, f32], [f32]))
    values = {f32: [func.arguments[i] for i in (0, 1, 3)], index: [func.arguments[2]]}

    def grow(block: Block, pool: dict, count: int) -> None:
        b = Builder.at_end(block)
        for _ in range(count):
            kind = f32 if rng.random() < 0.75 else index
            op_class = rng.choice(FLOAT_OPS if kind == f32 else INDEX_OPS)
            lhs, rhs = (pool[kind][rng.integers(len(pool[kind]))] for _ in range(2))
            pool[kind].append(b.insert(op_class.build(lhs, rhs)).result)

    grow(func.entry_block, values, int(rng.integers(2, 9)))
    last = func.entry_block
    if rng.random() < 0.6:
        then_block = func.body.append_block(Block())
        else_block = func.body.append_block(Block())
        merge = func.body.append_block(Block([f32]))
        b = Builder.at_end(func.entry_block)
        a, c = values[f32][-1], values[f32][rng.integers(len(values[f32]))]
        condition = b.insert(arith.CmpFOp.build("olt", a, c)).result
        b.insert(cf.CondBranchOp.build(condition, then_block, [], else_block, []))
        for block in (then_block, else_block):
            pool = {kind: list(found) for kind, found in values.items()}
            grow(block, pool, int(rng.integers(0, 4)))
            Builder.at_end(block).insert(cf.BranchOp.build(merge, [pool[f32][-1]]))
        values[f32].append(merge.arguments[0])
        last = merge
    grow(last, values, int(rng.integers(1, 6)))
    Builder.at_end(last).insert(ReturnOp.build([values[f32][-1]]))
    module = ModuleOp.build([func])
    verify(module)
    return module


def slice_by_scanning(func: Operation, value: Value) -> list[Operation]:
    """The forward slice computed without use lists: scan every op's operands until no
    new op joins, then keep walk order."""
    tainted: set[Value] = {value}
    found: set[Operation] = set()
    changed = True
    while changed:
        changed = False
        for op in func.walk():
            if op not in found and any(operand in tainted for operand in op.operands):
                found.add(op)
                tainted.update(op.results)
                changed = True
    return [op for op in func.walk() if op in found]


def every_value(func: Operation) -> list[Value]:
    """Block arguments and op results of ``func``, in printed order."""
    values: list[Value] = []
    for block in func.regions[0].blocks:
        values.extend(block.arguments)
        for op in block:
            values.extend(op.results)
    return values


def value_name(func: Operation, value: Value) -> str:
    """The printed name of ``value`` (``%3``, ``%arg1``), as in ``print(func)``."""
    return SSANames(func).value_name(value)


def ops(count: int) -> str:
    """``1 op``, ``3 ops``."""
    return f"{count} op" if count == 1 else f"{count} ops"


def why_in_slice(func: Operation, op: Operation, expected: list, value: Value) -> str:
    """Why a missing op belongs to the slice: the operand that makes it depend on value."""
    names = SSANames(func)
    for operand in op.operands:
        if operand is value:
            return f"  (it reads {names.value_name(value)} itself)"
        if operand.defining_op() in expected:
            return f"  (it reads {names.value_name(operand)}, a result of an op in the slice)"
    return ""


def why_not_in_slice(op: Operation) -> str:
    """Why an extra op is not in the slice, when the reason is a block argument."""
    for operand in op.operands:
        if isinstance(operand, BlockArgument) and not operand.block.is_entry_block:
            return "  (it depends only through a block argument; the slice stops there)"
    return ""


def expect_slice(impl, func: Operation, value: Value) -> None:
    """Check ``forward_slice(func, value)`` against the scan, with feedback in IR terms."""
    before = print_ir(func)
    what = f"forward_slice(@{func.attributes['sym_name'].value}, {value_name(func, value)})"
    found = impl.forward_slice(func, value)
    expect_text(f"the function after {what} (it must not change the IR)", print_ir(func), before)
    expect_instance(what, found, list, "a list of ops")
    expected = slice_by_scanning(func, value)
    if found == expected:
        return
    context = f"\nin:\n{before}"
    for op in found:
        if not isinstance(op, Operation):
            raise GradingFailure(f"{what}: expected a list of ops, found an item {op!r}{context}")
    duplicates = [str(op) for op in dict.fromkeys(found) if found.count(op) > 1]
    if duplicates:
        raise GradingFailure(
            f"{what}: expected each op once, found twice: {duplicates[0]}{context}"
        )
    missing = [op for op in expected if op not in found]
    extra = [op for op in found if op not in expected]
    if missing or extra:
        lines = [f"{what}: expected {ops(len(expected))}, found {ops(len(found))}"]
        lines += [f"  missing: {op}{why_in_slice(func, op, expected, value)}" for op in missing]
        lines += [f"  not in the slice: {op}{why_not_in_slice(op)}" for op in extra]
        raise GradingFailure("\n".join(lines) + context)
    width = max(len(str(op)) for op in found)
    rows = [f"  {'yours'.ljust(width)}  |  walk order"]
    rows += [f"  {str(a).ljust(width)}  |  {b}" for a, b in zip(found, expected, strict=True)]
    raise GradingFailure(
        f"{what}: expected the right ops in func.walk() order, found another order:\n"
        + "\n".join(rows)
        + context
    )


@task01_3
def test_forward_slice_follows_results_to_the_return(impl):
    module = parse(
        """
func.func @f(%x: f32, %y: f32) -> f32 {
  %a = arith.mulf %x, %x : f32
  %b = arith.addf %y, %y : f32
  %c = arith.addf %a, %b : f32
  %d = arith.subf %b, %b : f32
  return %c : f32
}"""
    )
    func = module.body.first_op
    for value in every_value(func):
        expect_slice(impl, func, value)


@task01_3
def test_forward_slice_stops_at_block_arguments(impl):
    module = parse(
        """
func.func @f(%c: i1, %x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  cf.cond_br %c, ^bb1(%y : f32), ^bb1(%x : f32)
^bb1(%m: f32):
  %z = arith.addf %m, %m : f32
  return %z : f32
}"""
    )
    func = module.body.first_op
    for value in every_value(func):
        expect_slice(impl, func, value)


@task01_3
def test_forward_slice_agrees_with_a_scan_on_random_functions(impl):
    rng = np.random.default_rng(103)
    for _ in range(40):
        func = random_function(rng).body.first_op
        for value in every_value(func):
            expect_slice(impl, func, value)


# -- Task 01.4 -------------------------------------------------------------------------------
def successors_of(func: FuncOp) -> dict[Block, list[Block]]:
    """The control-flow graph: each block's successors."""
    return {block: list(block.last_op.successors) for block in func.body.blocks}


def has_cycle(graph: dict[Block, list[Block]]) -> bool:
    """True if some block can reach itself."""
    state: dict[Block, str] = {}

    def visit(block: Block) -> bool:
        state[block] = "open"
        for successor in graph[block]:
            if state.get(successor) == "open":
                return True
            if successor not in state and visit(successor):
                return True
        state[block] = "done"
        return False

    return any(block not in state and visit(block) for block in graph)


def float_power(x: np.float32, n: int) -> np.float32:
    """``x`` multiplied by itself ``n`` times in f32, one rounding per product."""
    result = np.float32(1.0)
    with np.errstate(all="ignore"):
        for _ in range(n):
            result = np.float32(result * x)
    return result


def close_or_same(found: object, expected: np.float32, rtol: float) -> bool:
    """Equal bits for special values and exact results, else within ``rtol``."""
    found32 = np.float32(found)
    if same_bits(found32, expected):
        return True
    if not np.isfinite(expected) or expected == 0:
        return False
    return bool(np.isclose(found32, expected, rtol=rtol, atol=0.0))


POWI_INPUTS = [0.0, -0.0, 1.0, -1.0, 2.0, float("inf"), float("nan"), 0.5]


@task01_4
def test_build_powi_is_a_loop_of_blocks(impl):
    module = build(impl, "build_powi", "01.4")
    func = the_function("build_powi()", module, "powi", "(f32, index) -> f32")
    for op in body_ops(func):
        if op.name.split(".")[0] not in ("arith", "cf"):
            raise GradingFailure(
                f"build_powi(): '{op.name}' is not a func, arith or cf op; Task 01.4 builds "
                f"the loop itself, out of blocks and branches{with_ir(module)}"
            )
    if not has_cycle(successors_of(func)):
        raise GradingFailure(
            "build_powi(): no block branches back to one that ran before it, so @powi has "
            "no loop; with n known only at run time, x ** n needs one" + with_ir(module)
        )


@task01_4
def test_powi_computes_x_to_the_n(impl):
    module = build(impl, "build_powi", "01.4")
    the_function("build_powi()", module, "powi", "(f32, index) -> f32")
    rng = np.random.default_rng(104)
    xs = list(rng.uniform(-1.5, 1.5, 12).astype(np.float32)) + [np.float32(v) for v in POWI_INPUTS]
    for number, x in enumerate(xs):
        for n in (0, 1, 2, 3, int(rng.integers(4, 12)), 11 - number % 3):
            expected = float_power(x, n)
            what = f"@powi({show(x)}, {n})"
            try:
                found = run_with_fuel(module, "powi", [x, np.int64(n)], branches=40 + 4 * n)
            except OutOfFuel as stop:
                raise GradingFailure(
                    f"{what}: still running after {40 + 4 * n} branches (the last at "
                    f"'{stop.args[0].name}'): the loop does not stop. Where does control go "
                    f"once the counter has reached n?{with_ir(module)}"
                ) from None
            except InterpreterError as error:
                raise GradingFailure(f"{what} fails to run: {error}{with_ir(module)}") from None
            if close_or_same(found, expected, rtol=1e-6 * (n + 1)):
                continue
            hint = ""
            if close_or_same(found, float_power(x, n + 1), 1e-6 * (n + 2)):
                hint = ": that is x ** (n + 1), one trip too many"
            elif n > 1 and close_or_same(found, float_power(x, n - 1), 1e-6 * n):
                hint = ": that is x ** (n - 1), one trip too few"
            raise GradingFailure(
                f"{what}: expected {show(expected)}, found {show(found)}{hint}" + with_ir(module)
            )


# -- Task 01.5: a budget of five ops ----------------------------------------------------------
BUDGET = 5
POW15_EXACT = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, float("inf"), float("-inf")]


def pow_reference(x: np.float32, k: int) -> np.float32:
    """``x ** k`` computed in float64 (exact for the inputs used here), rounded once to f32."""
    with np.errstate(all="ignore"):
        return np.float32(np.float64(x) ** k)


def pow15_reference(x: np.float32) -> np.float32:
    """The expected result of ``@pow15(x)``."""
    return pow_reference(x, 15)


@task01_5
def test_pow15_fits_the_budget(impl):
    module = build(impl, "build_pow15", "01.5", parsing_allowed=True)
    func = the_function("build_pow15()", module, "pow15", "(f32) -> f32")
    if len(func.body.blocks) != 1:
        raise GradingFailure(
            f"build_pow15(): expected straight-line code in one block, found "
            f"{len(func.body.blocks)} blocks{with_ir(module)}"
        )
    ops = body_ops(func)
    for op in ops:
        if op.name.split(".")[0] != "arith":
            raise GradingFailure(
                f"build_pow15(): '{op.name}' is not an arith op; the task is to reach x ** 15 "
                f"with arith alone{with_ir(module)}"
            )
    if len(ops) > BUDGET:
        counts = ", ".join(
            f"{count} {name}" for name, count in Counter(o.name for o in ops).items()
        )
        raise GradingFailure(
            f"build_pow15(): {len(ops)} ops before the return ({counts}); the budget is "
            f"{BUDGET}. Squaring alone (x2, x4, x8, then multiplying together the powers "
            "that 15 needs) takes 6 multiplications. A product, once computed, can be read "
            "by any number of later ops: which powers of x, kept, reach 15 in fewer steps?"
            + with_ir(module)
        )


@task01_5
def test_pow15_computes_x_to_the_15th(impl):
    module = build(impl, "build_pow15", "01.5", parsing_allowed=True)
    the_function("build_pow15()", module, "pow15", "(f32) -> f32")
    rng = np.random.default_rng(105)
    magnitudes = rng.uniform(0.05, 3.0, 40) * rng.choice([-1.0, 1.0], 40)
    inputs = [np.float32(v) for v in [*POW15_EXACT[4:8], *magnitudes, *POW15_EXACT, np.nan]]
    for x in inputs:
        expected = pow15_reference(x)
        found = run_with_fuel(module, "pow15", [x], branches=10)
        exact = float(x) in POW15_EXACT or np.isnan(x)
        if same_bits(np.float32(found), expected):
            continue
        if not exact and close_or_same(found, expected, rtol=2e-6):
            continue
        why = "exactly" if exact else "within f32 rounding"
        powers = [k for k in range(31) if close_or_same(found, pow_reference(x, k), 2e-6)]
        telling = np.isfinite(x) and abs(x) not in (0, 1)  # where powers differ
        hint = f": that is x ** {powers[0]}" if powers and telling else ""
        raise GradingFailure(
            f"@pow15({show(x)}): expected x ** 15 = {show(expected)} ({why}), found "
            f"{show(found)}{hint}{with_ir(module)}"
        )
