"""Graded tests for chapter 04, tensor programs and linalg.generic (`ch04_tensor_programs.py`).

Each test carries its task's marker; `impl` is the module under test (see conftest.py).

* Task 04.1 traces the student's `swiglu` with `tinycomp.trace`, runs the module in the
  reference interpreter on random inputs and compares it with numpy; it also checks the
  program's kernels (three matmuls, no product computed twice) and the trace-time error.
* Task 04.2 compares the student's generic with what `linalg-generalize-named-ops` makes of
  `linalg.matmul` and `linalg.batch_matmul` (`ir_equal`, and real `mlir-opt-22` where it is
  installed), then runs random contractions against `numpy.einsum`.
* Task 04.3 compares FLOP and byte counts with exact numbers derived by hand for each case
  (the derivation is written next to each number, and the feedback shows it).
* Task 04.4 is open: the student's attention is traced, run against numpy (large scores
  included), and its bytes, counted by the library's `program_bytes`, must stay within 85%
  of `nn.attention`'s on four long-sequence shapes.

While the student's code runs, the library's own implementation of the task at hand
(`StructuredOp.generalize`, `GeneralizePass`, the functions of `tinycomp.perf.kernel_cost`)
refuses to run, and a call to it fails the task with a message that says so.

Random cases come from fixed seeds and from hypothesis with `derandomize`, so a grade
never changes from one run to the next.
"""

from __future__ import annotations

import importlib
import math
import shutil
import subprocess
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tinycomp.affine import AffineMap, parse_affine_map
from tinycomp.dialects.func import FuncOp, ReturnOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.linalg.named import BatchMatmulOp, MatmulOp
from tinycomp.frontend import TensorSpec, TraceError, exp, nn, softmax, trace
from tinycomp.grading.checks import (
    GradingFailure,
    expect_array_close,
    expect_equal,
    expect_instance,
)
from tinycomp.grading.ir_checks import without_names
from tinycomp.grading.library_calls import library_replaced as without_library
from tinycomp.interp import interpret
from tinycomp.ir import (
    Builder,
    ModuleOp,
    VerifyError,
    first_difference,
    ir_equal,
    parse,
    parse_type,
    print_ir,
    verify,
)
from tinycomp.ir.naming import SSANames
from tinycomp.ir.printer import naming_root
from tinycomp.ir.types import FunctionType
from tinycomp.passes import GeneralizePass
from tinycomp.perf import KernelCost, program_bytes

task04_1 = pytest.mark.task04_1
task04_2 = pytest.mark.task04_2
task04_3 = pytest.mark.task04_3

GRADED = settings(
    max_examples=30,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
)
"""Random cases: the same ones on every run, no time limit, reported as drawn."""


# -- the library's own answers are off limits ------------------------------------------------
LIBRARY_GENERALIZE = {
    "StructuredOp.generalize (what linalg-generalize-named-ops calls)": (
        StructuredOp,
        "generalize",
    ),
    "GeneralizePass": (GeneralizePass, "run"),
}
kernel_cost_module = importlib.import_module("tinycomp.perf.kernel_cost")
LIBRARY_COSTS = {
    f"tinycomp.perf.kernel_cost.{name}": getattr(kernel_cost_module, name)
    for name in ("payload_flops", "operand_bytes", "kernel_cost", "kernel_costs", "program_bytes")
}


def linalg_ops(module: ModuleOp) -> list[StructuredOp]:
    """The linalg ops of ``module``, in program order."""
    return [op for op in module.walk() if isinstance(op, StructuredOp)]


def op_names(module: ModuleOp) -> list[str]:
    """The names of the ops of the module's first function (its kernels and the rest)."""
    return [op.name for op in module.body.first_op.regions[0].entry_block]


# == Task 04.1: swiglu ====================================================================
def swiglu_reference(x, w_gate, w_up, w_down) -> np.ndarray:
    """numpy's SwiGLU, computed in float64."""
    x, w_gate, w_up, w_down = (a.astype(np.float64) for a in (x, w_gate, w_up, w_down))
    gate, up = x @ w_gate, x @ w_up
    return (gate / (1.0 + np.exp(-gate)) * up) @ w_down


def swiglu_inputs(tokens: int, width: int, hidden: int, dtype, seed: int) -> list[np.ndarray]:
    """Random ``x, w_gate, w_up, w_down`` scaled as a model's would be."""
    rng = np.random.default_rng(seed)
    shapes = [(tokens, width), (width, hidden), (width, hidden), (hidden, width)]
    scales = [1.0, width**-0.5, width**-0.5, hidden**-0.5]
    return [(rng.standard_normal(s) * k).astype(dtype) for s, k in zip(shapes, scales, strict=True)]


def trace_swiglu(impl, arrays: list[np.ndarray]) -> ModuleOp:
    """Trace the student's swiglu; a ``TraceError`` becomes feedback."""
    shapes = ", ".join(str(a.shape) for a in arrays)
    try:
        return trace(impl.swiglu, *arrays)
    except TraceError as error:
        raise GradingFailure(
            f"trace(swiglu) on shapes x, w_gate, w_up, w_down = {shapes} raised a TraceError "
            f"although the shapes fit:\n{error}"
        ) from None


SWIGLU_SHAPES = [(4, 8, 16), (1, 8, 8), (3, 5, 7), (6, 16, 4)]


@task04_1
@pytest.mark.parametrize("tokens, width, hidden", SWIGLU_SHAPES)
def test_swiglu_matches_numpy(impl, tokens, width, hidden):
    arrays = swiglu_inputs(tokens, width, hidden, np.float32, seed=tokens * 100 + hidden)
    module = trace_swiglu(impl, arrays)
    expect_equal(
        "trace(swiglu): the result type",
        str(module.body.first_op.function_type.results[0]),
        f"tensor<{tokens}x{width}xf32>",
    )
    found = interpret(module, *arrays)
    expected = swiglu_reference(*arrays).astype(np.float32)
    expect_array_close(
        f"swiglu traced on x {arrays[0].shape}, run by the interpreter",
        found,
        expected,
        rtol=1e-4,
        atol=1e-5,
    )


@task04_1
def test_swiglu_kernels(impl):
    arrays = swiglu_inputs(4, 8, 16, np.float32, seed=7)
    module = trace_swiglu(impl, arrays)
    arguments = list(module.body.first_op.regions[0].entry_block.arguments)
    names = SSANames(naming_root(module), use_asm_names=True)
    matmuls = [op for op in linalg_ops(module) if op.name == "linalg.matmul"]
    listing = "\n".join(
        f"  {names.value_name(op.results[0])} = linalg.matmul ins("
        + ", ".join(names.value_name(v) for v in op.inputs)
        + ")"
        for op in matmuls
    )
    if len(matmuls) > 3:
        raise GradingFailure(
            f"the traced swiglu has {len(matmuls)} linalg.matmul ops, expected 3: a trace "
            "records every call and does no CSE, so a product written twice is computed "
            "twice; compute it once, keep the Tensor in a variable and use that:\n" + listing
        )
    if len(matmuls) < 3:
        raise GradingFailure(
            f"the traced swiglu has {len(matmuls)} linalg.matmul ops, expected 3 "
            f"(x @ w_gate, x @ w_up, and the down projection):\n{listing}"
        )
    x, w_gate, w_up, w_down = arguments
    operands = [tuple(op.inputs) for op in matmuls]
    for what, wanted in (("x @ w_gate", (x, w_gate)), ("x @ w_up", (x, w_up))):
        if wanted not in operands:
            raise GradingFailure(
                f"the traced swiglu has no linalg.matmul computing {what} directly from the "
                f"function's arguments:\n{listing}"
            )
    if not any(op.inputs[1] is w_down for op in matmuls):
        raise GradingFailure(
            f"the traced swiglu has no linalg.matmul reading w_down as its right operand:\n"
            f"{listing}"
        )
    has_exp = any(op.name in ("math.exp", "math.tanh") for op in module.walk())
    expect_equal("the traced swiglu computes a sigmoid (math.exp or math.tanh)", has_exp, True)


@task04_1
def test_swiglu_keeps_the_element_type(impl):
    arrays = [a * 0.5 for a in swiglu_inputs(4, 8, 16, np.float16, seed=3)]
    module = trace_swiglu(impl, arrays)
    expect_equal(
        "trace(swiglu) on float16 inputs: the result type",
        str(module.body.first_op.function_type.results[0]),
        "tensor<4x8xf16>",
    )
    found = interpret(module, *arrays)
    expected = swiglu_reference(*arrays).astype(np.float16)
    expect_array_close("swiglu on float16, run by the interpreter", found, expected, atol=2e-2)


@task04_1
@pytest.mark.parametrize("up_shape", [(8, 1), (8, 17), (16, 8)])
def test_swiglu_rejects_a_w_up_that_does_not_match_w_gate(impl, up_shape):
    specs = [TensorSpec((4, 8)), TensorSpec((8, 16)), TensorSpec(up_shape), TensorSpec((16, 8))]
    silently = " (silu(gate) * up would broadcast (4, 16) with (4, 1))" if 1 in up_shape else ""
    try:
        trace(impl.swiglu, *specs)
    except TraceError as error:
        message = str(error)
    except NotImplementedError:
        raise
    except Exception as error:
        raise GradingFailure(
            f"trace(swiglu) with w_gate (8, 16) and w_up {up_shape}: expected a TraceError "
            f"(made by trace_error('swiglu', message), which points at your line), found "
            f"{type(error).__name__}: {error}"
        ) from None
    else:
        raise GradingFailure(
            f"trace(swiglu) with w_gate (8, 16) and w_up {up_shape} traced without an error"
            f"{silently}; expected a TraceError from your check of w_up's shape"
        )
    first = message.splitlines()[0]
    if not first.startswith("swiglu:"):
        raise GradingFailure(
            f"trace(swiglu) with w_gate (8, 16) and w_up {up_shape}: expected the TraceError "
            f"of your own check, made with trace_error('swiglu', ...) before any product is "
            f"traced, found one from the frontend:\n{message}"
        )
    for shape in ((8, 16), up_shape):
        if str(shape) not in first:
            raise GradingFailure(
                f"trace(swiglu) with w_up {up_shape}: expected the message to name the shapes "
                f"of w_gate (8, 16) and w_up {up_shape}, found: {first}"
            )
    if "ch04_tensor_programs.py" not in message:
        raise GradingFailure(
            f"the TraceError should point at the line of your code that raised it (use "
            f"trace_error, which adds 'at file:line'), found:\n{message}"
        )


# == Task 04.2: contractions ================================================================
def expect_maps(what: str, found, expected_maps: list[AffineMap], expected_iterators, loops):
    """Compare ``(maps, iterator_types)`` with the reference; name the operand at fault."""
    expect_instance(what, found, (tuple, list), "a (maps, iterator_types) pair")
    expect_equal(f"{what}: how many items", len(found), 2)
    maps, iterators = found
    expect_equal(
        f"{what}: the iterator types (loops {loops}: the output's letters, then the reduced ones)",
        list(iterators),
        list(expected_iterators),
    )
    expect_equal(f"{what}: how many maps (lhs, rhs, output)", len(maps), 3)
    for operand, mine, reference in zip(("lhs", "rhs", "output"), maps, expected_maps, strict=True):
        expect_instance(f"{what}: the map of {operand}", mine, AffineMap, "an AffineMap")
        if mine != reference:
            raise GradingFailure(
                f"{what}: the map of {operand}: expected {reference}, found {mine} "
                f"(the loops are {loops}: the output's letters first, then the reduced ones)"
            )


NAMED_CONTRACTIONS = [
    ("mk,kn->mn", MatmulOp, None, "(m, n, k)"),
    ("bmk,bkn->bmn", BatchMatmulOp, None, "(b, m, n, k)"),
    ("mk,nk->mn", MatmulOp, ["(m,n,k)->(m,k)", "(m,n,k)->(n,k)", "(m,n,k)->(m,n)"], "(m, n, k)"),
    ("km,kn->mn", MatmulOp, ["(m,n,k)->(k,m)", "(m,n,k)->(k,n)", "(m,n,k)->(m,n)"], "(m, n, k)"),
]


@task04_2
@pytest.mark.parametrize("spec, op_class, maps, loops", NAMED_CONTRACTIONS)
def test_contraction_maps_of_named_ops(impl, spec, op_class, maps, loops):
    types = [parse_type("tensor<2x2xf32>")] * 3
    if op_class is BatchMatmulOp:
        types = [parse_type("tensor<2x2x2xf32>")] * 3
    arguments = FuncOp.build("f", FunctionType(tuple(types), ())).body.entry_block.arguments
    indexing_maps = None if maps is None else [parse_affine_map(m) for m in maps]
    named = op_class.build(*arguments, indexing_maps=indexing_maps)
    with without_library(f"contraction_maps({spec!r})", impl, "Task 04.2", LIBRARY_GENERALIZE):
        found = impl.contraction_maps(spec)
    expect_maps(
        f"contraction_maps({spec!r})",
        found,
        named.indexing_maps(),
        named.iterator_types(),
        loops,
    )


GENERAL_CONTRACTIONS = {
    # spec: (loops, [lhs map, rhs map, output map], iterator types)
    "i,j->ij": ("(i, j)", ["(d0, d1) -> (d0)", "(d0, d1) -> (d1)", "(d0, d1) -> (d0, d1)"], "pp"),
    "ij,j->i": ("(i, j)", ["(d0, d1) -> (d0, d1)", "(d0, d1) -> (d1)", "(d0, d1) -> (d0)"], "pr"),
    "k,k->": ("(k)", ["(d0) -> (d0)", "(d0) -> (d0)", "(d0) -> ()"], "r"),
    "ijk,ikl->jl": (
        "(j, l, i, k)",
        [
            "(d0, d1, d2, d3) -> (d2, d0, d3)",
            "(d0, d1, d2, d3) -> (d2, d3, d1)",
            "(d0, d1, d2, d3) -> (d0, d1)",
        ],
        "pprr",
    ),  # fmt: skip
    "bqd,bkd->bqk": (
        "(b, q, k, d)",
        [
            "(d0, d1, d2, d3) -> (d0, d1, d3)",
            "(d0, d1, d2, d3) -> (d0, d2, d3)",
            "(d0, d1, d2, d3) -> (d0, d1, d2)",
        ],
        "pppr",
    ),  # fmt: skip
    "ab,ba->ba": (
        "(b, a)",
        ["(d0, d1) -> (d1, d0)", "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0, d1)"],
        "pp",
    ),  # fmt: skip
}


@task04_2
@pytest.mark.parametrize("spec", list(GENERAL_CONTRACTIONS))
def test_contraction_maps_of_other_contractions(impl, spec):
    loops, maps, kinds = GENERAL_CONTRACTIONS[spec]
    iterators = ["parallel" if kind == "p" else "reduction" for kind in kinds]
    expected = [parse_affine_map(m) for m in maps]
    with without_library(f"contraction_maps({spec!r})", impl, "Task 04.2", LIBRARY_GENERALIZE):
        found = impl.contraction_maps(spec)
    expect_maps(f"contraction_maps({spec!r})", found, expected, iterators, loops)


@task04_2
@pytest.mark.parametrize("spec", ["ii,ij->j", "mk,kn->mz", "mk->mk", "mk,kn,nj->mj", "mk,kn->mm"])
def test_contraction_maps_rejects_what_linalg_cannot_express(impl, spec):
    try:
        impl.contraction_maps(spec)
    except ValueError:
        return
    raise GradingFailure(
        f"contraction_maps({spec!r}): expected a ValueError (call parse_contraction(spec) "
        f"first), found none"
    )


def contraction_module(types: list[str], make) -> ModuleOp:
    """``func.func @f(%lhs, %rhs, %init) -> init type`` around the op ``make`` builds."""
    parsed = tuple(parse_type(t) for t in types)
    function = FuncOp.build("f", FunctionType(parsed, (parsed[2],)))
    block = function.body.entry_block
    for argument, name in zip(block.arguments, ("lhs", "rhs", "init"), strict=True):
        argument.name_hint = name
    builder = Builder.at_end(block)
    op = make(*block.arguments)
    if not isinstance(op, GenericOp):
        raise GradingFailure(
            f"contraction_generic: expected a GenericOp (GenericOp.build(...)), found "
            f"{type(op).__name__}"
        )
    if op.parent is not None:
        raise GradingFailure("contraction_generic: expected a detached op, found one in a block")
    builder.insert(op)
    builder.insert(ReturnOp.build([op.results[0]]))
    return ModuleOp.build([function])


def payload_signature(op: GenericOp) -> list[str]:
    """The payload as ``arith.addf(acc, #2)``: each op with its operands named by role
    (``a``, ``b``, ``acc`` for the block arguments, ``#i`` for the result of op ``i``)."""
    arguments = zip(op.body.arguments, ("a", "b", "acc"), strict=False)
    roles = {argument: name for argument, name in arguments}
    signature = []
    for number, nested in enumerate(op.body):
        operands = ", ".join(roles.get(value, "outside") for value in nested.operands)
        signature.append(f"{nested.name}({operands})")
        for result in nested.results:
            roles[result] = f"#{number}"
    return signature


def expect_same_generic(what: str, mine: ModuleOp, reference: ModuleOp) -> None:
    """The student's module equals the reference up to names; else say what differs:
    the maps, the iterator types, the payload op by op, or else the first difference."""
    if ir_equal(mine, reference):
        return
    mine_op, reference_op = (next(iter(linalg_ops(m))) for m in (mine, reference))
    for operand, found, expected in zip(
        ("lhs", "rhs", "output"),
        mine_op.indexing_maps(),
        reference_op.indexing_maps(),
        strict=False,
    ):
        if found != expected:
            raise GradingFailure(
                f"{what}: the map of {operand}: expected {expected}, found {found}"
            )
    expect_equal(f"{what}: iterator types", mine_op.iterator_types(), reference_op.iterator_types())
    found_payload, expected_payload = payload_signature(mine_op), payload_signature(reference_op)
    if found_payload != expected_payload:
        hint = ""
        for found_line, expected_line in zip(found_payload, expected_payload, strict=False):
            if found_line != expected_line and found_line.split("(")[0] == "arith.addf":
                hint = (
                    "\nhint: MLIR's named ops add the product to the accumulator, "
                    "accumulator first: add(builder, acc, product)"
                )
        if any("ext" in line or "tofp" in line for line in expected_payload) and not any(
            "ext" in line or "tofp" in line for line in found_payload
        ):
            hint = (
                "\nhint: the inputs' element type differs from the output's: convert a and b "
                "first (convert_scalar(builder, value, acc.type))"
            )
        raise GradingFailure(
            f"{what}: the payload differs from linalg-generalize-named-ops (operands named a, b, "
            f"acc for the block arguments, #i for the result of payload op i):\n"
            f"  expected: {'; '.join(expected_payload)}\n"
            f"  found:    {'; '.join(found_payload)}{hint}"
        )
    raise GradingFailure(
        f"{what}: differs from linalg-generalize-named-ops (yours vs reference): "
        f"{first_difference(mine, reference)}\nyours:\n{without_names(mine)}\n"
        f"reference:\n{without_names(reference)}"
    )


GENERALIZED = [
    ("mk,kn->mn", MatmulOp, None, ["tensor<4x8xf32>", "tensor<8x2xf32>", "tensor<4x2xf32>"]),
    ("mk,kn->mn", MatmulOp, None, ["tensor<4x8xf16>", "tensor<8x2xf16>", "tensor<4x2xf32>"]),
    (
        "bmk,bkn->bmn",
        BatchMatmulOp,
        None,
        ["tensor<3x4x8xi8>", "tensor<3x8x2xi8>", "tensor<3x4x2xi32>"],
    ),
    (
        "bmk,bkn->bmn",
        BatchMatmulOp,
        None,
        ["tensor<3x4x8xbf16>", "tensor<3x8x2xbf16>", "tensor<3x4x2xbf16>"],
    ),
    (
        "mk,nk->mn",
        MatmulOp,
        ["(m,n,k)->(m,k)", "(m,n,k)->(n,k)", "(m,n,k)->(m,n)"],
        ["tensor<4x8xf32>", "tensor<2x8xf32>", "tensor<4x2xf32>"],
    ),
]


@task04_2
@pytest.mark.parametrize("spec, op_class, maps, types", GENERALIZED)
def test_contraction_generic_is_the_generalized_named_op(impl, spec, op_class, maps, types):
    indexing_maps = None if maps is None else [parse_affine_map(m) for m in maps]
    what = f"contraction_generic({spec!r}) on {', '.join(types)}"
    with without_library(what, impl, "Task 04.2", LIBRARY_GENERALIZE):
        mine = contraction_module(types, lambda a, b, c: impl.contraction_generic(spec, a, b, c))
    reference = contraction_module(
        types, lambda a, b, c: op_class.build(a, b, c, indexing_maps=indexing_maps).generalize()
    )
    what = f"contraction_generic({spec!r}) on {', '.join(types)}"
    expect_same_generic(what, mine, reference)
    verify(mine)


@pytest.mark.mlir
@task04_2
def test_contraction_generic_is_what_mlir_opt_generalizes_matmul_into(impl):
    mlir_opt = shutil.which("mlir-opt-22")
    if mlir_opt is None:
        pytest.skip("mlir-opt-22 is not on PATH (Debian package mlir-22-tools)")
    types = ["tensor<4x8xf16>", "tensor<8x2xf16>", "tensor<4x2xf32>"]
    named = contraction_module(types, lambda a, b, c: MatmulOp.build(a, b, c).generalize())
    source = f"""
func.func @f(%lhs: {types[0]}, %rhs: {types[1]}, %init: {types[2]}) -> {types[2]} {{
  %0 = linalg.matmul ins(%lhs, %rhs : {types[0]}, {types[1]}) outs(%init : {types[2]}) -> {types[2]}
  return %0 : {types[2]}
}}"""
    result = subprocess.run(
        [mlir_opt, "--linalg-generalize-named-ops"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
    )
    generalized_by_mlir = parse(result.stdout)
    assert ir_equal(generalized_by_mlir, named), (  # a check of the library, not of your code
        f"the library's generalized matmul differs from mlir-opt-22's:\n{print_ir(named)}"
    )
    with without_library("contraction_generic", impl, "Task 04.2", LIBRARY_GENERALIZE):
        mine = contraction_module(
            types, lambda a, b, c: impl.contraction_generic("mk,kn->mn", a, b, c)
        )
    expect_same_generic(
        "contraction_generic('mk,kn->mn') vs mlir-opt-22", mine, generalized_by_mlir
    )


@st.composite
def contractions(draw) -> tuple[str, dict[str, int]]:
    """A random valid two-operand contraction over the letters a..e, and letter sizes."""
    letters = "abcde"
    lhs = "".join(draw(st.permutations(letters))[: draw(st.integers(0, 3))])
    rhs = "".join(draw(st.permutations(letters))[: draw(st.integers(0, 3))])
    present = sorted(set(lhs + rhs))
    out_letters = (
        draw(st.lists(st.sampled_from(present), unique=True, max_size=3)) if present else []
    )
    sizes = {letter: draw(st.integers(1, 3)) for letter in letters}
    return f"{lhs},{rhs}->{''.join(out_letters)}", sizes


@task04_2
@GRADED
@given(case=contractions(), seed=st.integers(0, 2**16))
def test_contraction_generic_matches_numpy_einsum(impl, case, seed):
    spec, sizes = case
    lhs_letters, rest = spec.split(",")
    rhs_letters, out_letters = rest.split("->")
    shapes = [tuple(sizes[c] for c in part) for part in (lhs_letters, rhs_letters, out_letters)]
    types = ["tensor<" + "".join(f"{s}x" for s in shape) + "f32>" for shape in shapes]
    with without_library(f"contraction_generic({spec!r})", impl, "Task 04.2", LIBRARY_GENERALIZE):
        module = contraction_module(types, lambda a, b, c: impl.contraction_generic(spec, a, b, c))
    try:
        verify(module)
    except Exception as error:
        raise GradingFailure(
            f"contraction_generic({spec!r}) on {', '.join(types)}: the op does not verify: "
            f"{error}\n{print_ir(module)}"
        ) from None
    rng = np.random.default_rng(seed)
    lhs, rhs, init = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    expected = (init + np.einsum(spec, lhs, rhs)).astype(np.float32)
    found = interpret(module, lhs, rhs, init, entry="f")
    expect_array_close(
        f"contraction_generic({spec!r}) run on random {', '.join(types)} (init not zero: the "
        f"result is init + einsum)",
        np.asarray(found),
        expected,
        rtol=1e-5,
        atol=1e-5,
    )


def einsum_attention(impl):
    """Attention with the student's contractions: no transpose of k."""

    def attention(q, k, v):
        scores = impl.einsum("bqd,bkd->bqk", q, k) * (1.0 / math.sqrt(q.shape[-1]))
        return impl.einsum("bqk,bkd->bqd", softmax(scores), v)

    return attention


@task04_2
def test_einsum_attention_runs_through_the_pipeline(impl):
    shapes = [(2, 3, 4), (2, 5, 4), (2, 5, 6)]
    rng = np.random.default_rng(11)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    try:
        with without_library("einsum attention", impl, "Task 04.2", LIBRARY_GENERALIZE):
            module = trace(einsum_attention(impl), q, k, v)
    except VerifyError as error:
        raise GradingFailure(
            f"attention traced with einsum('bqd,bkd->bqk') and einsum('bqk,bkd->bqd') does not "
            f"verify (see the contraction_maps tests first): {error}"
        ) from None
    expect_equal(
        "attention traced with einsum: linalg.transpose ops (the map of k reads it transposed)",
        op_names(module).count("linalg.transpose"),
        0,
    )
    reference = trace(nn.attention, q, k, v)
    expected = interpret(reference, q, k, v)
    expect_array_close(
        "attention with einsum, run by the interpreter", interpret(module, q, k, v), expected
    )
    GeneralizePass().run(module)
    expect_array_close(
        "attention with einsum after linalg-generalize-named-ops",
        interpret(module, q, k, v),
        expected,
    )


# == Task 04.3: FLOPs and bytes =============================================================
@dataclass(frozen=True)
class Expected:
    """Exact counts for one kernel, with the derivation the feedback shows."""

    flops: int
    flops_why: str
    moves: tuple[tuple[str, int], ...]
    """``(what, bytes)`` per operand transfer."""

    @property
    def bytes(self) -> int:
        return sum(count for _, count in self.moves)

    def bytes_why(self) -> str:
        return " + ".join(f"{what} {count} B" for what, count in self.moves)


def kernel_of(text: str, name: str) -> StructuredOp:
    """The first op called ``name`` in the module ``text``."""
    module = parse(text)
    return next(op for op in module.walk() if op.name == name)


def traced_kernel(fn, shapes, name: str, index: int = 0, dtype=np.float32) -> StructuredOp:
    """Op number ``index`` among those called ``name`` in ``trace(fn)``."""
    module = trace(fn, *(TensorSpec(s, dtype) for s in shapes))
    return [op for op in module.walk() if op.name == name][index]


def describe_kernel(op: StructuredOp) -> str:
    """``%max = linalg.generic (loops 4×8: parallel, reduction)``."""
    names = SSANames(naming_root(op), use_asm_names=True)
    title = op.name
    if op.results:
        title = f"{names.value_name(op.results[0])} = {op.name}"
    sizes = "×".join(str(s) for s in op.static_loop_sizes()) or "none"
    return f"{title} (loops {sizes}: {', '.join(op.iterator_types()) or 'no loops'})"


CONV_F16 = """
func.func @conv(%in: tensor<1x9x9x3xf16>, %w: tensor<3x3x3x4xf16>, %out: tensor<1x4x4x4xf32>)
    -> tensor<1x4x4x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<1x9x9x3xf16>, tensor<3x3x3x4xf16>) outs(%out : tensor<1x4x4x4xf32>)
      -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}"""

CONV_LARGER_INPUT = """
func.func @conv(%in: tensor<1x12x12x1xf32>, %w: tensor<2x2x1x1xf32>, %out: tensor<1x4x4x1xf32>)
    -> tensor<1x4x4x1xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<3> : tensor<2xi64>}
      ins(%in, %w : tensor<1x12x12x1xf32>, tensor<2x2x1x1xf32>) outs(%out : tensor<1x4x4x1xf32>)
      -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}"""

MEMREF_ADD = """
func.func @add(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x8xf32>, memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}"""

PAYLOAD_WITH_EXTRAS = """
func.func @f(%x: tensor<4x8xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %t = arith.mulf %in, %half : f32
    %u = arith.addf %t, %jf : f32
    %pos = arith.cmpf ogt, %u, %half : f32
    %r = arith.select %pos, %u, %half : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}"""


def payload_cases() -> dict[str, tuple[StructuredOp, int, str]]:
    """name -> (op, expected payload FLOPs, why)."""
    matmul = traced_kernel(lambda a, b: a @ b, [(4, 8), (8, 16)], "linalg.matmul")
    return {
        "matmul": (matmul, 2, "arith.mulf and arith.addf"),
        "fill": (
            traced_kernel(lambda a, b: a @ b, [(4, 8), (8, 16)], "linalg.fill"),
            0,
            "the payload only yields the fill value",
        ),
        "transpose": (
            traced_kernel(lambda a: a.T, [(4, 8)], "linalg.transpose"),
            0,
            "the payload only yields the element it read",
        ),
        "sum": (traced_kernel(lambda a: a.sum(), [(4, 8)], "linalg.generic"), 1, "arith.addf"),
        "exp": (traced_kernel(exp, [(4, 8)], "linalg.generic"), 1, "math.exp"),
        "conv f16->f32": (
            kernel_of(CONV_F16, "linalg.conv_2d_nhwc_hwcf"),
            2,
            "arith.mulf and arith.addf; the two arith.extf casts only change the type",
        ),
        "payload with constants, index and casts": (
            kernel_of(PAYLOAD_WITH_EXTRAS, "linalg.generic"),
            4,
            "mulf, addf, cmpf, select; not arith.constant, linalg.index, index_cast or sitofp",
        ),
    }


@task04_3
@pytest.mark.parametrize("case", list(payload_cases()))
def test_payload_flops(impl, case):
    op, expected, why = payload_cases()[case]
    with without_library("payload_flops", impl, "Task 04.3", LIBRARY_COSTS):
        found = impl.payload_flops(op)
    if found != expected:
        payload = ", ".join(nested.name for nested in op.body)
        raise GradingFailure(
            f"payload_flops({describe_kernel(op)}): expected {expected} ({why}), found {found}; "
            f"the payload: {payload}"
        )


def f32_bytes(*shape: int) -> int:
    return 4 * math.prod(shape)


def kernel_cases() -> dict[str, tuple[StructuredOp, Expected]]:
    """name -> (op, exact counts)."""
    mm = [(4, 8), (8, 16)]
    row = [(4, 8)]
    return {
        "matmul": (
            traced_kernel(lambda a, b: a @ b, mm, "linalg.matmul"),
            Expected(
                2 * 4 * 16 * 8,
                "2 FLOPs (mulf, addf) x 4×16×8 iterations",
                (
                    ("read %a 4x8", f32_bytes(4, 8)),
                    ("read %b 8x16", f32_bytes(8, 16)),
                    ("read the init 4x16 (the payload reads %out: an accumulator)", 256),
                    ("write the result 4x16", 256),
                ),
            ),
        ),
        "fill": (
            traced_kernel(lambda a, b: a @ b, mm, "linalg.fill"),
            Expected(
                0,
                "the payload only yields",
                (("write 4x16 (the f32 fill value is a scalar: no bytes)", 256),),
            ),
        ),
        "row max, keepdims": (
            traced_kernel(lambda x: x.max(axis=-1, keepdims=True), row, "linalg.generic"),
            Expected(
                32,
                "1 FLOP (maximumf) x 4×8 iterations",
                (
                    ("read %x 4x8", 128),
                    ("read the init: footprint of (d0, d1) -> (d0, 0) is 4x1", 16),
                    ("write 4x1", 16),
                ),
            ),
        ),
        "subtract a row vector (broadcast)": (
            traced_kernel(lambda x: x - x.max(axis=-1, keepdims=True), row, "linalg.generic", 1),
            Expected(
                32,
                "1 FLOP (subf) x 4×8 iterations",
                (
                    ("read %x 4x8", 128),
                    ("read %max: footprint of (d0, d1) -> (d0, 0) is 4x1", 16),
                    ("write 4x8 (outs is tensor.empty: not read)", 128),
                ),
            ),
        ),
        "add a bias (broadcast)": (
            traced_kernel(lambda x, b: x + b, [(4, 8), (8,)], "linalg.generic"),
            Expected(
                32,
                "1 FLOP (addf) x 4×8 iterations",
                (
                    ("read %x 4x8", 128),
                    ("read %b: footprint of (d0, d1) -> (d1) is 8", 32),
                    ("write 4x8", 128),
                ),
            ),
        ),
        "sum of all elements (a 0-d result)": (
            traced_kernel(lambda x: x.sum(), [(3, 4)], "linalg.generic"),
            Expected(
                12,
                "1 FLOP (addf) x 3×4 iterations",
                (
                    ("read %x 3x4", 48),
                    ("read the 0-d init (a map with no results: 1 element)", 4),
                    ("write 1 element", 4),
                ),
            ),
        ),
        "transpose": (
            traced_kernel(lambda k: k.transpose(0, 2, 1), [(2, 5, 4)], "linalg.transpose"),
            Expected(0, "the payload only yields", (("read 2x5x4", 160), ("write 2x4x5", 160))),
        ),
        "x * x (one tensor, two operands)": (
            traced_kernel(lambda x: x * x, row, "linalg.generic"),
            Expected(
                32,
                "1 FLOP (mulf) x 4×8 iterations",
                (("read operand #0 4x8", 128), ("read operand #1 4x8", 128), ("write", 128)),
            ),
        ),
        "exp on bf16": (
            kernel_of(
                """
func.func @e(%x: tensor<4x8xbf16>, %y: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xbf16>) outs(%y : tensor<4x8xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %e = math.exp %in : bf16
    linalg.yield %e : bf16
  } -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}""",
                "linalg.generic",
            ),
            Expected(
                32,
                "1 FLOP (exp) x 4×8 iterations",
                (("read 4x8 bf16 (2 bytes each)", 64), ("write 4x8 bf16", 64)),
            ),
        ),
        "compare: i1 output": (
            traced_kernel(lambda x, y: x > y, [(4, 8), (4, 8)], "linalg.generic"),
            Expected(
                32,
                "1 FLOP (cmpf) x 4×8 iterations",
                (("read %x", 128), ("read %y", 128), ("write 4x8 i1 (1 byte each)", 32)),
            ),
        ),
        "conv, f16 in, f32 out, stride 2": (
            kernel_of(CONV_F16, "linalg.conv_2d_nhwc_hwcf"),
            Expected(
                2 * 4 * 4 * 4 * 3 * 3 * 3,
                "2 FLOPs (mulf, addf; the extf casts do not count) x 1×4×4×4×3×3×3 iterations",
                (
                    ("read %in: footprint 1x9x9x3 f16", 2 * 243),
                    ("read %w 3x3x3x4 f16", 2 * 108),
                    ("read the init 1x4x4x4 f32 (an accumulator)", 256),
                    ("write 1x4x4x4 f32", 256),
                ),
            ),
        ),
        "conv reading only part of its input": (
            kernel_of(CONV_LARGER_INPUT, "linalg.conv_2d_nhwc_hwcf"),
            Expected(
                2 * 4 * 4 * 2 * 2,
                "2 FLOPs x 1×4×4×1×2×2×1 iterations",
                (
                    (
                        "read %in: the footprint of oh * 3 + kh over oh < 4, kh < 2 is rows "
                        "0..10, so 1x11x11x1 elements, not the whole 12x12 input",
                        4 * 121,
                    ),
                    ("read %w 2x2x1x1", 16),
                    ("read the init 1x4x4x1", 64),
                    ("write 1x4x4x1", 64),
                ),
            ),
        ),
        "generic on memrefs (writes a buffer)": (
            kernel_of(MEMREF_ADD, "linalg.generic"),
            Expected(
                32,
                "1 FLOP (addf) x 4×8 iterations",
                (("read %a", 128), ("read %b", 128), ("write %c (a memref is shaped too)", 128)),
            ),
        ),
    }


@task04_3
@pytest.mark.parametrize("case", list(kernel_cases()))
def test_kernel_cost(impl, case):
    op, expected = kernel_cases()[case]
    what = f"kernel_cost({describe_kernel(op)})"
    with without_library(what, impl, "Task 04.3", LIBRARY_COSTS):
        found = impl.kernel_cost(op)
    expect_instance(what, found, KernelCost, "a KernelCost(name, flops, bytes)")
    if found.flops != expected.flops:
        raise GradingFailure(
            f"{what}: FLOPs: expected {expected.flops} = {expected.flops_why}, found {found.flops}"
        )
    if found.bytes != expected.bytes:
        raise GradingFailure(
            f"{what}: bytes: expected {expected.bytes} = {expected.bytes_why()}, "
            f"found {found.bytes}"
        )


def per_kernel(impl, module: ModuleOp) -> str:
    """The student's cost of each kernel, one per line, for feedback."""
    lines = []
    for op in linalg_ops(module):
        with without_library("kernel_cost", impl, "Task 04.3", LIBRARY_COSTS):
            cost = impl.kernel_cost(op)
        lines.append(f"  {describe_kernel(op)}: {cost.flops} FLOPs, {cost.bytes} B")
    return "\n".join(lines)


def expect_program_cost(impl, what: str, module: ModuleOp, flops: int, moved: int, why: str):
    with without_library(what, impl, "Task 04.3", LIBRARY_COSTS):
        found = impl.program_cost(module)
    expect_instance(what, found, KernelCost, "a KernelCost(name, flops, bytes)")
    if (found.flops, found.bytes) != (flops, moved):
        raise GradingFailure(
            f"{what}: expected {flops} FLOPs and {moved} B ({why}), found {found.flops} FLOPs "
            f"and {found.bytes} B; your kernel_cost of each linalg op:\n{per_kernel(impl, module)}"
        )


@task04_3
@pytest.mark.parametrize("rows, cols", [(4, 8), (1, 5), (3, 16)])
def test_program_cost_of_softmax(impl, rows, cols):
    elements = rows * cols
    module = trace(softmax, TensorSpec((rows, cols)))
    # max, sub, exp, sum, div: 1 FLOP per element each. Bytes, in elements: fill R;
    # max E + R (init) + R; sub E + R + E; exp E + E; fill R; sum E + R + R; div E + R + E.
    expect_program_cost(
        impl,
        f"program_cost(softmax on {rows}x{cols})",
        module,
        5 * elements,
        4 * (8 * elements + 8 * rows),
        "5 FLOPs per element; 8 passes over the 4-byte elements and 8 over the row vectors",
    )


@task04_3
@pytest.mark.parametrize("rows, cols", [(2, 8), (5, 3)])
def test_program_cost_of_layernorm(impl, rows, cols):
    e, r, c = rows * cols, rows, cols
    module = trace(nn.layernorm, TensorSpec((rows, cols)), TensorSpec((cols,)), TensorSpec((cols,)))
    # FLOPs: sum E, /C R, x - mean E, square E, sum E, /C R, + eps R, rsqrt R, * rsqrt E,
    # * gamma E, + beta E.  Bytes in elements: fill R | sum E+2R | div 2R | sub 2E+R |
    # square 3E | fill R | sum E+2R | div 2R | add 2R | rsqrt 2R | mul 2E+R | gamma 2E+C |
    # beta 2E+C.
    expect_program_cost(
        impl,
        f"program_cost(layernorm on {rows}x{cols})",
        module,
        7 * e + 4 * r,
        4 * (13 * e + 16 * r + 2 * c),
        "7 FLOPs per element and 4 per row; 13 passes over the elements, 16 over the rows, 2 "
        "over gamma and beta",
    )


@task04_3
@GRADED
@given(
    batch=st.integers(1, 2),
    queries=st.integers(1, 4),
    keys=st.integers(1, 5),
    depth=st.integers(1, 4),
    value_depth=st.integers(1, 3),
)
def test_program_cost_of_attention(impl, batch, queries, keys, depth, value_depth):
    b, q, s, d, dv = batch, queries, keys, depth, value_depth
    module = trace(
        nn.attention, TensorSpec((b, q, d)), TensorSpec((b, s, d)), TensorSpec((b, s, dv))
    )
    scores, rows = b * q * s, b * q
    flops = 2 * scores * d + scores + 5 * scores + 2 * b * q * dv * s
    elements = (
        2 * b * s * d  # transpose k: read and write
        + scores  # fill the scores
        + b * q * d + b * d * s + 2 * scores  # q @ k^T: read q, k^T, the init; write
        + 2 * scores  # scale
        + 8 * scores + 8 * rows  # softmax
        + b * q * dv  # fill the output
        + scores + b * s * dv + 2 * b * q * dv  # p @ v
    )  # fmt: skip
    expect_program_cost(
        impl,
        f"program_cost(attention, q {b}x{q}x{d}, k {b}x{s}x{d}, v {b}x{s}x{dv})",
        module,
        flops,
        4 * elements,
        "transpose, fill, batch_matmul, scale, softmax (7 linalg ops), fill, batch_matmul",
    )


# == Task 04.4: attention within a byte budget ===============================================
task04_4 = pytest.mark.task04_4

BUDGET_SHARE = 0.85
"""The budget: this share of the bytes ``nn.attention``'s traced program moves."""
BUDGET_SHAPES = [(2, 16, 64, 8), (2, 4, 16, 4), (1, 32, 128, 32), (1, 8, 32, 8)]
"""``(B, L, S, d)`` with ``dv = d``: long sequences, ``S = 4 L``, ``d <= L``."""


def attention_reference(q, k, v) -> np.ndarray:
    """numpy's attention in float64, with the maximum subtracted (safe for any scores)."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def trace_lean_attention(impl, arrays: list[np.ndarray]) -> ModuleOp:
    shapes = ", ".join(str(a.shape) for a in arrays)
    try:
        return trace(impl.lean_attention, *arrays)
    except TraceError as error:
        raise GradingFailure(
            f"trace(lean_attention) on q, k, v of shapes {shapes} raised a TraceError:\n{error}"
        ) from None


def expect_attention_values(impl, what: str, arrays: list[np.ndarray]) -> None:
    module = trace_lean_attention(impl, arrays)
    b, length, _ = arrays[0].shape
    dv = arrays[2].shape[-1]
    expect_equal(
        f"{what}: the result type",
        str(module.body.first_op.function_type.results[0]),
        f"tensor<{b}x{length}x{dv}xf32>",
    )
    with np.errstate(over="ignore", invalid="ignore"):
        found = np.asarray(interpret(module, *arrays))
    expected = attention_reference(*arrays)
    bad = ~np.isfinite(found)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        q, k = (a.astype(np.float64) for a in arrays[:2])
        largest = np.abs(q @ k.transpose(0, 2, 1)).max() / math.sqrt(q.shape[-1])
        raise GradingFailure(
            f"{what}: element {list(where)} of the result is {found[where]}, expected "
            f"{expected[where]:.6g}. The scores here reach {largest:.0f}: exp of a score "
            "above 88.7 overflows f32 to inf, and inf / inf is NaN"
        )
    expect_array_close(what, found, expected.astype(np.float32), rtol=1e-4, atol=1e-5)


@task04_4
@pytest.mark.parametrize("b, length, s, d", [(2, 3, 5, 4), (1, 16, 64, 8)])
def test_lean_attention_matches_numpy(impl, b, length, s, d):
    rng = np.random.default_rng(4400 + s)
    arrays = [rng.standard_normal(shape).astype(np.float32) for shape in
              [(b, length, d), (b, s, d), (b, s, d + 1)]]  # fmt: skip
    expect_attention_values(impl, f"lean_attention on q {arrays[0].shape}", arrays)


@task04_4
def test_lean_attention_is_safe_for_large_scores(impl):
    rng = np.random.default_rng(4401)
    q, k, v = (
        rng.standard_normal(s).astype(np.float32) for s in [(1, 4, 8), (1, 16, 8), (1, 16, 8)]
    )
    arrays = [q * 30, k * 30, v]  # scores of several hundred
    expect_attention_values(impl, "lean_attention with q and k scaled by 30", arrays)


def kernel_bytes_table(module: ModuleOp) -> str:
    """The kernels of ``module``, the most bytes first: what a student should look at."""
    rows = []
    for op in linalg_ops(module):
        cost = kernel_cost_module.kernel_cost(op)
        rows.append((int(cost.bytes), describe_kernel(op)))
    rows.sort(key=lambda row: -row[0])
    return "\n".join(f"  {moved:>8} B  {kernel}" for moved, kernel in rows)


@task04_4
@pytest.mark.parametrize("b, length, s, d", BUDGET_SHAPES)
def test_lean_attention_within_the_byte_budget(impl, b, length, s, d):
    specs = [TensorSpec((b, length, d)), TensorSpec((b, s, d)), TensorSpec((b, s, d))]
    mine = trace_lean_attention(impl, specs)
    reference = trace(nn.attention, *specs)
    moved, theirs = program_bytes(mine), program_bytes(reference)
    allowed = math.floor(BUDGET_SHARE * theirs)
    if moved > allowed:
        raise GradingFailure(
            f"lean_attention on q ({b}, {length}, {d}), k and v ({b}, {s}, {d}): its traced "
            f"program moves {moved} B, {moved / theirs:.0%} of nn.attention's {theirs} B; the "
            f"budget is {allowed} B ({BUDGET_SHARE:.0%}). Your kernels, the most bytes first "
            f"(a ({b}, {length}, {s}) tensor of scores is {4 * b * length * s} B each time a "
            f"kernel reads or writes it):\n{kernel_bytes_table(mine)}"
        )
