"""Graded tests for chapter 01 (`ch01_ir.py`): build IR, verify an op, walk use lists.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
Built IR is compared with the reference by `expect_built_module` (SSA names are not graded);
on a difference the feedback names the first op that differs and shows the two texts as a
diff. Functions are also run by the reference interpreter on random inputs and checked
against numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.grading.checks import (
    GradingFailure,
    expect_close,
    expect_equal,
    expect_instance,
    expect_text,
)
from tinycomp.grading.ir_checks import expect_built_module, run_for_one_result
from tinycomp.ir import (
    Block,
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
from tinycomp.ir.dialects import arith, cf
from tinycomp.ir.dialects.func import FuncOp, ReturnOp

task01_1 = pytest.mark.task01_1
task01_2 = pytest.mark.task01_2
task01_3 = pytest.mark.task01_3
task01_4 = pytest.mark.task01_4

AXPY = """\
module {
  func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
    %ax = arith.mulf %a, %x : f32
    %r = arith.addf %ax, %y : f32
    return %r : f32
  }
}"""

POWI = """\
module {
  func.func @powi(%x: f32, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cst = arith.constant 1.000000e+00 : f32
    cf.br ^bb1(%c0, %cst : index, f32)
  ^bb1(%i: index, %acc: f32):  // 2 preds: ^bb0, ^bb2
    %done = arith.cmpi sge, %i, %n : index
    cf.cond_br %done, ^bb3, ^bb2
  ^bb2:  // pred: ^bb1
    %acc_next = arith.mulf %acc, %x : f32
    %i_next = arith.addi %i, %c1 : index
    cf.br ^bb1(%i_next, %acc_next : index, f32)
  ^bb3:  // pred: ^bb1
    return %acc : f32
  }
}"""
"""The references, printed exactly as the printer prints them (so line numbers agree)."""


# -- Task 01.1 -------------------------------------------------------------------------------
@task01_1
def test_build_axpy_matches_the_reference(impl):
    expect_built_module("build_axpy()", impl.build_axpy(), AXPY)


@task01_1
def test_build_axpy_returns_a_fresh_module_each_time(impl):
    first, second = impl.build_axpy(), impl.build_axpy()
    expect_equal("build_axpy() is build_axpy() (a new module per call)", first is second, False)


@task01_1
def test_axpy_computes_a_times_x_plus_y(impl):
    module = expect_built_module("build_axpy()", impl.build_axpy(), AXPY)
    rng = np.random.default_rng(101)
    for a, x, y in rng.standard_normal((20, 3)).astype(np.float32):
        found = run_for_one_result(module, "axpy", a, x, y)
        expected = a * x + y  # numpy float32 arithmetic, rounded like arith.mulf/addf
        expect_close(f"@axpy({a:.4g}, {x:.4g}, {y:.4g})", float(found), float(expected))


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
    from tinycomp.ir.naming import SSANames

    return SSANames(func).value_name(value)


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
    missing = [str(op) for op in expected if op not in found]
    extra = [str(op) for op in found if op not in expected]
    if missing or extra:
        lines = [f"{what}: expected {len(expected)} ops, found {len(found)}"]
        lines += [f"  missing: {line}" for line in missing]
        lines += [f"  not in the slice: {line}" for line in extra]
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
@task01_4
def test_build_powi_matches_the_reference(impl):
    expect_built_module("build_powi()", impl.build_powi(), POWI)


@task01_4
def test_powi_computes_x_to_the_n(impl):
    module = expect_built_module("build_powi()", impl.build_powi(), POWI)
    rng = np.random.default_rng(104)
    xs = rng.uniform(-1.5, 1.5, size=12).astype(np.float32)
    ns = rng.integers(0, 12, size=12)
    for x, n in zip(xs, ns, strict=True):
        found = run_for_one_result(module, "powi", x, int(n))
        expected = np.power(x, np.float32(n), dtype=np.float32)
        expect_close(f"@powi({x:.4g}, {n})", float(found), float(expected), rtol=1e-5)
