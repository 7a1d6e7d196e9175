"""``vectorize-loops``: the vector loops compute what the scalar loops computed.

Every catalogue kernel is compiled to loops twice, with and without the pass, and both
are run by the interpreter on the same random inputs: bit for bit equal when float
sums keep their order (``reassociate=False``), within the dtype's tolerance of the
float64 reference when they are reassociated. Hand-written loops check the remainder
loop over many trip counts and widths (hypothesis), the reasons loops are left alone,
and, with real MLIR, that ``mlir-opt-22`` accepts the vector IR and that lowering it
with ``-convert-vector-to-llvm`` and running it gives the interpreter's numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interp.test_mlir_runner import LOWERING, requires_mlir_runner, run_with_mlir, runner_module
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

import tinycomp
from tinycomp import CompileOptions
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.ir.verifier import verify
from tinycomp.passes import PassError, PassManager
from tinycomp.passes.vectorize import VectorizeLoopsPass
from tinycomp.testing import KERNELS, check_against_reference
from tinycomp.testing.tolerances import TOLERANCES

ODD = {
    "softmax": {"rows": 3, "cols": 19},
    "layernorm": {"rows": 3, "cols": 21},
    "rmsnorm": {"rows": 2, "cols": 13},
    "matmul": {"m": 3, "k": 5, "n": 11},
    "batch_matmul": {"batch": 2, "m": 3, "k": 4, "n": 9},
    "conv2d": {"n": 1, "h": 5, "w": 6, "c": 2, "f": 9, "kh": 3, "kw": 2},
    "conv2d_plain": {"n": 1, "h": 4, "w": 5, "c": 3, "f": 10, "kh": 2, "kw": 2},
    "attention": {"batch": 1, "l": 3, "s": 9, "d": 4, "dv": 11},
    "mlp2": {"m": 3, "k": 5, "hidden": 9, "n": 10},
}
"""Shapes whose innermost loops are longer than 8 but not multiples of it."""


def compile_pair(name, dtype, shape, tile_sizes=(), **pass_options):
    """The kernel compiled to loops without and with ``vectorize-loops``."""
    module = KERNELS[name].trace(dtype, **shape)
    vectorize = VectorizeLoopsPass(**pass_options)
    scalar = tinycomp.compile(module, options=CompileOptions(tile_sizes=tile_sizes))
    vector_options = CompileOptions(tile_sizes=tile_sizes, extra_passes={"loops": [vectorize]})
    vector = tinycomp.compile(KERNELS[name].trace(dtype, **shape), options=vector_options)
    return scalar, vector, vectorize.report


EVEN = {
    **{name: dict(KERNELS[name].default_shape) for name in KERNELS},
    "conv2d": {"n": 1, "h": 6, "w": 6, "c": 2, "f": 8, "kh": 3, "kw": 3},
    "conv2d_plain": {"n": 1, "h": 5, "w": 5, "c": 2, "f": 16, "kh": 2, "kw": 2},
}
"""The catalogue's default shapes (innermost sizes multiples of 8), convolutions smaller."""


def shape_of(name: str, which: str) -> dict[str, int]:
    return EVEN[name] if which == "even" else ODD[name]


def test_odd_and_even_shapes_are_valid_catalogue_shapes():
    for name in KERNELS:
        assert KERNELS[name].shape(**ODD[name]) and KERNELS[name].shape(**EVEN[name])


# -- the catalogue -----------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["even", "odd"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_ordered_vectorization_is_bit_exact(name, which):
    shape = shape_of(name, which)
    scalar, vector, report = compile_pair(name, "f32", shape, vector_width=8, reassociate=False)
    assert report.vectorized, f"{name}: no loop vectorized\n{report}"
    assert "vector.load" in vector.stages["loops"] or "vector.store" in vector.stages["loops"]
    inputs = KERNELS[name].make_inputs(np.random.default_rng(7), "f32", **shape)
    expected, got = scalar(*inputs), vector(*inputs)
    assert expected.shape == got.shape
    np.testing.assert_array_equal(got, expected, err_msg=f"{name} {shape}")


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("which", ["even", "odd"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_reassociated_vectorization_matches_the_reference(name, which, dtype):
    shape = shape_of(name, which)
    scalar, vector, report = compile_pair(name, dtype, shape, vector_width=8)
    assert report.vectorized
    inputs = KERNELS[name].make_inputs(np.random.default_rng(11), dtype, **shape)
    got = vector(*inputs)
    check_against_reference(KERNELS[name], got, inputs, dtype)
    rtol, atol = TOLERANCES[dtype]
    np.testing.assert_allclose(
        got.astype(np.float64), scalar(*inputs).astype(np.float64), rtol=rtol, atol=atol
    )


@pytest.mark.parametrize("name", ["softmax", "layernorm", "rmsnorm", "matmul"])
def test_tiled_loops_with_dynamic_trip_counts(name):
    shape = KERNELS[name].default_shape
    scalar, vector, report = compile_pair(name, "f32", shape, tile_sizes=(2, 3), vector_width=4)
    assert any(d.remainder == "dynamic" for d in report.vectorized), str(report)
    inputs = KERNELS[name].make_inputs(np.random.default_rng(3), "f32", **shape)
    np.testing.assert_allclose(vector(*inputs), scalar(*inputs), rtol=1e-5, atol=1e-6)


def test_softmax_loops_become_vector_loops_with_reductions():
    _, vector, report = compile_pair("softmax", "f32", {"rows": 4, "cols": 37})
    text = vector.stages["loops"]
    assert "vector.reduction <maximumf>" in text and "vector.reduction <add>" in text
    assert "vector<8xf32>" in text and "vector.broadcast" in text
    vectorized = report.vectorized
    assert [d.remainder for d in vectorized] == [5, 5, 5, 5]
    assert [d.reductions for d in vectorized] == [
        ("maximumf (memory memref<4x1xf32>)",),
        (),
        ("add (memory memref<4x1xf32>)",),
        (),
    ]
    assert all("trip count 1 is below the vector width 8" in d.reason for d in report.left_alone)


# -- remainders, widths, reductions: hypothesis -----------------------------------------------
LOOPS = """
func.func @main(%x: memref<{n}xf32>, %y: memref<{n}xf32>, %m: memref<1xf32>, %a: f32,
                %lb: index, %ub: index) -> f32 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %lower = {lower}
  %upper = {upper}
  %sum = scf.for %i = %lower to %upper step %c1 iter_args(%acc = %zero) -> (f32) {{
    %v = memref.load %x[%i] : memref<{n}xf32>
    %w = memref.load %y[%i] : memref<{n}xf32>
    %p = arith.mulf %v, %a : f32
    %q = arith.addf %p, %w : f32
    memref.store %q, %y[%i] : memref<{n}xf32>
    %old = memref.load %m[%c0] : memref<1xf32>
    %big = arith.maximumf %old, %q : f32
    memref.store %big, %m[%c0] : memref<1xf32>
    %next = arith.addf %acc, %v : f32
    scf.yield %next : f32
  }}
  return %sum : f32
}}
"""


def loops_module(n: int, lower: int, upper: int, static: bool):
    bounds = {
        "lower": f"arith.constant {lower} : index" if static else "arith.addi %lb, %c0 : index",
        "upper": f"arith.constant {upper} : index" if static else "arith.addi %ub, %c0 : index",
    }
    return parse(LOOPS.format(n=n, **bounds))


def run_loops(module, n, lower, upper, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    m = np.array([-np.inf], np.float32)
    total = interpret(module, x, y, m, np.float32(0.75), lower, upper)
    return float(total), y, m


@settings(max_examples=40, deadline=None)
@given(
    trips=st.integers(0, 40),
    lower=st.integers(0, 5),
    width=st.integers(2, 16),
    static=st.booleans(),
    reassociate=st.booleans(),
)
def test_any_trip_count_and_width(trips, lower, width, static, reassociate):
    n = lower + trips + 3
    upper = lower + trips
    scalar = loops_module(n, lower, upper, static)
    vector = loops_module(n, lower, upper, static)
    vectorize = VectorizeLoopsPass(width, reassociate=reassociate)
    vectorize.run(vector)
    verify(vector)
    (decision,) = vectorize.report.decisions
    assert decision.vectorized == (not static or trips >= width), decision.reason
    expected_sum, expected_y, expected_max = run_loops(scalar, n, lower, upper, trips)
    got_sum, got_y, got_max = run_loops(vector, n, lower, upper, trips)
    np.testing.assert_array_equal(got_y, expected_y)
    np.testing.assert_array_equal(got_max, expected_max)
    if reassociate:
        assert got_sum == pytest.approx(expected_sum, rel=1e-5, abs=1e-5)
    else:
        assert got_sum == expected_sum
    if decision.vectorized and static:
        assert decision.remainder == trips % width


def test_divisible_trip_count_leaves_no_epilogue():
    module = loops_module(19, 0, 16, static=True)
    VectorizeLoopsPass(8).run(module)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert len(loops) == 1 and "vector.reduction <add>" in str(module)


def test_running_the_pass_twice_changes_nothing():
    module = loops_module(40, 1, 30, static=True)
    VectorizeLoopsPass(8).run(module)
    once = str(module)
    again = VectorizeLoopsPass(8)
    again.run(module)
    assert str(module) == once and again.report.decisions == []


def test_ordered_reduction_keeps_one_scalar_per_iteration():
    module = loops_module(40, 0, 32, static=True)
    VectorizeLoopsPass(8, reassociate=False).run(module)
    text = str(module)
    assert "iter_args(%acc = %zero, %old = %cst) -> (f32, vector<8xf32>)" in text
    assert "%next = vector.reduction <add>, %v, %acc : vector<8xf32> into f32" in text


# -- contraction into vector.fma -------------------------------------------------------------
DOT = """
func.func @main(%x: memref<27xf32>, %y: memref<27xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c27 = arith.constant 27 : index
  %zero = arith.constant 0.0 : f32
  %dot = scf.for %i = %c0 to %c27 step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = memref.load %x[%i] : memref<27xf32>
    %b = memref.load %y[%i] : memref<27xf32>
    %p = arith.mulf %a, %b FLAGS : f32
    %s = arith.addf %acc, %p FLAGS : f32
    scf.yield %s : f32
  }
  return %dot : f32
}
"""


@pytest.mark.parametrize(
    ("flags", "contract", "fused"),
    [("", False, False), ("", True, True), ("fastmath<contract>", False, True)],
)
def test_contraction_into_fma(flags, contract, fused):
    module = parse(DOT.replace("FLAGS", flags))
    vectorize = VectorizeLoopsPass(8, contract=contract)
    vectorize.run(module)
    verify(module)
    assert ("vector.fma" in str(module)) == fused
    assert ("1 fma" in str(vectorize.report)) == fused
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(27).astype(np.float32), rng.standard_normal(27).astype(np.float32)
    expected = float(np.dot(x.astype(np.float64), y.astype(np.float64)))
    assert float(interpret(module, x, y)) == pytest.approx(expected, rel=1e-5, abs=1e-5)


# -- loops left alone, and why -----------------------------------------------------------------
def single_loop(body: str, extra_args: str = "", iter_args: str = "") -> str:
    return f"""
func.func @main(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %r: index{extra_args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  {iter_args}scf.for %i = %c0 to %c16 step %c1 {{
{body}
  }}
  return
}}
func.func private @f(f32) -> f32
"""


REASONS = {
    "gather": (
        single_loop("    %v = memref.load %x[%i, %r] : memref<16x16xf32>\n"
                    "    memref.store %v, %y[%r, %i] : memref<16x16xf32>"),
        "the induction variable moves dimension 0 (by 1 per iteration, 16 elements apart "
        "in memory), not the last one: a gather",
    ),
    "strided": (
        single_loop("    %j = arith.muli %i, %c2 : index\n"
                    "    %v = memref.load %x[%r, %j] : memref<16x16xf32>\n"
                    "    memref.store %v, %y[%r, %i] : memref<16x16xf32>"),
        "the last index moves by 2 per iteration (a strided access)",
    ),
    "store not at the iv": (
        single_loop("    %v = memref.load %x[%r, %i] : memref<16x16xf32>\n"
                    "    memref.store %v, %y[%r, %c0] : memref<16x16xf32>"),
        "writes the same element in every iteration and is not a recognized reduction",
    ),
    "indirect": (
        single_loop("    %v = memref.load %x[%r, %i] : memref<16x16xf32>\n"
                    "    %k = arith.fptosi %v : f32 to i32\n"
                    "    %j = arith.index_cast %k : i32 to index\n"
                    "    %w = memref.load %x[%r, %j] : memref<16x16xf32>\n"
                    "    memref.store %w, %y[%r, %i] : memref<16x16xf32>"),
        "computes an index from loaded data",
    ),
    "iv as data": (
        single_loop("    %k = arith.index_cast %i : index to i32\n"
                    "    %f = arith.sitofp %k : i32 to f32\n"
                    "    memref.store %f, %y[%r, %i] : memref<16x16xf32>"),
        "uses %i as data: lanes would need the vector of their own indices",
    ),
    "call": (
        single_loop("    %v = memref.load %x[%r, %i] : memref<16x16xf32>\n"
                    "    %w = func.call @f(%v) : (f32) -> f32\n"
                    "    memref.store %w, %y[%r, %i] : memref<16x16xf32>"),
        "is not a load, a store or a pure arith/math op",
    ),
    "control flow": (
        single_loop("    %v = memref.load %x[%r, %i] : memref<16x16xf32>\n"
                    "    %p = arith.cmpf ogt, %v, %zero : f32\n"
                    "    scf.if %p {\n"
                    "      memref.store %v, %y[%r, %i] : memref<16x16xf32>\n"
                    "    }"),
        "'scf.if' in the body is control flow: widening it needs masks",
    ),
    "dependence": (
        single_loop("    %j = arith.addi %i, %c1 : index\n"
                    "    %v = memref.load %x[%r, %i] : memref<16x16xf32>\n"
                    "    memref.store %v, %x[%r, %j] : memref<16x16xf32>"),
        "may touch the same memory in different iterations: a loop-carried dependence "
        "through memory",
    ),
    "recurrence": (
        single_loop("    %v = memref.load %x[%r, %i] : memref<16x16xf32>\n"
                    "    %w = arith.subf %acc, %v : f32\n"
                    "    scf.yield %w : f32",
                    iter_args="").replace(
            "scf.for %i = %c0 to %c16 step %c1 {",
            "%s = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {"),
        "is updated by '%w = arith.subf %acc, %v : f32', not by one associative combining op",
    ),
    "short": (
        single_loop("    %v = memref.load %x[%r, %i] : memref<16x16xf32>\n"
                    "    memref.store %v, %y[%r, %i] : memref<16x16xf32>").replace(
            "to %c16 step", "to %c2 step"),
        "trip count 2 is below the vector width 8",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(REASONS))
def test_loops_left_alone_say_why(case):
    text, reason = REASONS[case]
    module = parse(text)
    before = str(module)
    vectorize = VectorizeLoopsPass(8)
    vectorize.run(module)
    assert str(module) == before  # left exactly as it was
    (decision,) = vectorize.report.decisions
    assert not decision.vectorized
    assert reason in decision.reason, decision.reason
    assert reason in str(vectorize.report)
    assert vectorize.statistics["loops left alone"] == 1


def test_matmul_inner_loop_reason_names_the_gather():
    _, _, report = compile_pair("matmul", "f32", {"m": 4, "k": 16, "n": 8})
    reasons = list(report.reasons().values())
    assert reasons == [
        "'%in_0 = memref.load %b[%d2, %d1] : memref<16x8xf32>': the induction variable moves "
        "dimension 0 (by 1 per iteration, 8 elements apart in memory), not the last one: "
        "a gather"
    ]


def test_the_pass_is_registered_and_checks_its_width():
    module = loops_module(20, 0, 17, static=True)
    PassManager.parse("vectorize-loops").run(module)
    assert "vector<8xf32>" in str(module)
    with pytest.raises(PassError, match="expected a vector_width >= 2, got 1"):
        VectorizeLoopsPass(1)
    with pytest.raises(PassError, match="expected an int vector_width, got 8.0"):
        VectorizeLoopsPass(8.0)


# -- real MLIR ---------------------------------------------------------------------------------
EXACT = {"matmul", "batch_matmul", "conv2d", "conv2d_plain"}
VECTOR_LOWERING = [
    LOWERING[0],
    "-expand-strided-metadata",
    *LOWERING[1:3],
    "-convert-vector-to-llvm",
    *LOWERING[3:],
]


def kernel_text(program) -> str:
    lines = program.stages["loops"].rstrip().splitlines()
    start = lines.index("module {")
    body = "\n".join(lines[:start] + lines[start + 1 : -1])
    return body.replace("func.func @main(", "func.func @kernel(", 1)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_mlir_opt_accepts_vectorized_loops(name):
    _, vector, _ = compile_pair(name, "f32", ODD[name], tile_sizes=(2, 3), vector_width=4)
    run_mlir_opt(vector.stages["loops"], "--verify-each")


def run_on_mlir(program, inputs) -> np.ndarray:
    """``program``'s loops lowered by ``mlir-opt-22`` and run by ``mlir-runner-22``."""
    shape = program(*inputs).shape
    named = {f"in{i}": array for i, array in enumerate(inputs)}
    named["out"] = np.zeros(shape, np.float32)
    return run_with_mlir(runner_module(kernel_text(program), named, "out"), shape, VECTOR_LOWERING)


def ulps(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64)).max())


@pytest.mark.mlir
@requires_mlir_runner
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_mlir_runner_agrees_with_the_interpreter(name):
    """Ordered: MLIR runs the vector loops bit for bit like the scalar ones (libm calls
    included). Reassociated: MLIR and the interpreter differ only where they already
    differed on the scalar loops (libm's ``expf``/``tanhf`` against numpy's)."""
    inputs = KERNELS[name].make_inputs(np.random.default_rng(99), "f32", **ODD[name])
    scalar, ordered, _ = compile_pair(name, "f32", ODD[name], vector_width=8, reassociate=False)
    scalar_on_mlir = run_on_mlir(scalar, inputs)
    assert ulps(run_on_mlir(ordered, inputs), scalar_on_mlir) == 0
    _, vector, _ = compile_pair(name, "f32", ODD[name], vector_width=8)
    libm_share = ulps(scalar_on_mlir, scalar(*inputs))
    assert libm_share <= (0 if name in EXACT else 8), (name, libm_share)
    assert ulps(run_on_mlir(vector, inputs), vector(*inputs)) <= libm_share
