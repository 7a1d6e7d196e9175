"""``math-polynomial-approximation``: the error bound in ulps, over the whole f32 range.

The inputs are every f32 exponent (0 to 254, subnormals included) with 16 random
significands each, both signs, and the edge values (+-0, the smallest subnormal, the
smallest normal, the thresholds where exp overflows and underflows, +-inf, NaN, the
points where an expansion switches formula). Each approximation runs twice: in the
interpreter on one long vector, and as native code of a vectorized loop (CPU JIT, eight
lanes and a scalar epilogue). The two agree bit for bit, and both are within the bound
the docstring of ``math_polynomials.py`` states of the float64 value (numpy's, or
``math.erf``'s), in ulps of f32 at the exact value.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from interp.test_mlir_runner import LOWERING, requires_mlir_runner, run_with_mlir, runner_module
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.codegen.cpu import jit
from tinycomp.codegen.cpu.target import host_cpu
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.passes import PassError
from tinycomp.passes.math_approximation import MathApproximationPass
from tinycomp.passes.vectorize import VectorizeLoopsPass

REFERENCE = {
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "erf": np.vectorize(math.erf, otypes=[np.float64]),
}
BOUND_ULPS = {"exp": 0.89, "log": 0.75, "tanh": 1.1, "erf": 0.95}
"""The measured worst error, rounded up (the docstring of ``math_polynomials.py``)."""
MLIR_WORST_ULPS = {"exp": 7.0, "log": 1e6, "tanh": 3.5, "erf": 2.5}
"""What MLIR's expansions reach on the same inputs, rounded down (the same docstring)."""

EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.4e-45, -1.4e-45, 1.1754944e-38, 88.72283,
         88.72284, -87.33654, -103.97, -103.98, 89.0, -104.0, 0.0004, -0.0004, 7.9988117,
         4.0, 0.921875, 1.0, -1.0, 0.5, 3.4028235e38]  # fmt: skip


def whole_range() -> np.ndarray:
    """Every exponent x 16 random significands, both signs, then the edges."""
    rng = np.random.default_rng(10)
    exponents = np.arange(255, dtype=np.uint32)[:, None] << 23
    significands = rng.integers(0, 1 << 23, size=(255, 16), dtype=np.uint32)
    positive = (exponents | significands).ravel().view(np.float32)
    return np.concatenate([positive, -positive, np.array(EDGES, np.float32)])


def ulp_errors(got: np.ndarray, x: np.ndarray, fn: str) -> np.ndarray:
    """``|got - exact| / spacing(exact)`` per element; 0 where both are the same
    inf or both NaN, inf where only one is NaN or the signs of an inf differ."""
    with np.errstate(all="ignore"):
        exact = REFERENCE[fn](x.astype(np.float64))
        rounded = exact.astype(np.float32)
        spacing = np.spacing(np.abs(rounded)).astype(np.float64)
        errors = np.abs(got.astype(np.float64) - exact) / spacing
    same = (got == rounded) | (np.isnan(exact) & np.isnan(got))
    errors = np.where(same, 0.0, errors)
    return np.where(np.isnan(exact) != np.isnan(got), np.inf, errors)


def loop_module(fn: str, n: int, dtype: str = "f32") -> str:
    t = f"memref<{n}x{dtype}>"
    return f"""func.func @f(%x: {t}, %y: {t}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  scf.for %i = %c0 to %n step %c1 {{
    %v = memref.load %x[%i] : {t}
    %w = math.{fn} %v : {dtype}
    memref.store %w, %y[%i] : {t}
  }}
  return }}"""


def run_native(fn: str, x: np.ndarray, dtype: str = "f32", width: int = 8):
    """The loop vectorized by ``width``, approximated, JIT-compiled; output and program."""
    module = parse(loop_module(fn, len(x), dtype))
    VectorizeLoopsPass(width).run(module)
    MathApproximationPass().run(module)
    module.verify()
    native = jit(module)
    y = np.zeros_like(x)
    native["f"](x, y)
    return y, native


def run_interpreted(fn: str, x: np.ndarray) -> np.ndarray:
    n = len(x)
    module = parse(f"""func.func @f(%x: vector<{n}xf32>) -> vector<{n}xf32> {{
      %y = math.{fn} %x : vector<{n}xf32>
      return %y : vector<{n}xf32> }}""")
    MathApproximationPass().run(module)
    module.verify()
    assert not [op for op in module.walk() if op.name == f"math.{fn}"]
    return np.asarray(interpret(module, x, entry="f"))


@pytest.mark.parametrize("fn", sorted(REFERENCE))
def test_error_bound_over_the_whole_range(fn):
    x = whole_range()
    interpreted = run_interpreted(fn, x)
    native, program = run_native(fn, x)
    assert np.array_equal(interpreted.view(np.uint32), native.view(np.uint32))
    errors = ulp_errors(native, x, fn)
    worst = int(np.argmax(errors))
    assert errors[worst] <= BOUND_ULPS[fn], (
        f"{fn}({x[worst]!r}) = {native[worst]!r}: {errors[worst]:.2f} ulp, "
        f"expected at most {BOUND_ULPS[fn]}"
    )
    assert errors[worst] > 0.25, f"{fn}: an error bound of 0 ulp means the test compares nothing"


@pytest.mark.parametrize("fn", sorted(REFERENCE))
def test_native_code_stays_in_vector_registers(fn):
    _, program = run_native(fn, whole_range()[:1003])
    assembly = program.assembly("f")
    assert "call" not in assembly, f"{fn}: the native code still calls a library function"
    assert f"@llvm.{fn}." not in program.optimized_ir
    assert "ymm" in assembly or "zmm" in assembly, f"{fn}: no vector register in the code"


@pytest.mark.parametrize("width", [4, 16])
def test_every_vector_width_gives_the_same_bits(width):
    """4 lanes (SSE), 16 (AVX-512, split in two by LLVM on an AVX2 machine): the same
    arith ops lane by lane, so the same bits as the interpreter."""
    x = whole_range()
    for fn in REFERENCE:
        native, _ = run_native(fn, x, width=width)
        assert np.array_equal(native.view(np.uint32), run_interpreted(fn, x).view(np.uint32))


def test_without_the_pass_llvm_calls_the_library_per_lane():
    """The problem the pass solves: ``llvm.exp.v8f32`` becomes scalar ``expf`` calls."""
    module = parse(loop_module("exp", 64))
    VectorizeLoopsPass(8).run(module)
    native = jit(module)
    assert "@llvm.exp.v8f32" in native.llvm_ir
    assembly = native.assembly("f")
    assert "$expf" in assembly and assembly.count("call") >= 8  # a call per lane


SPECIAL = {
    "exp": {np.inf: np.inf, -np.inf: 0.0, 89.0: np.inf, -104.0: 0.0, 0.0: 1.0},
    "log": {0.0: -np.inf, -1e-45: np.nan, -1.0: np.nan, np.inf: np.inf, -np.inf: np.nan, 1.0: 0.0},
    "tanh": {np.inf: 1.0, -np.inf: -1.0, 0.0: 0.0, 20.0: 1.0},
    "erf": {np.inf: 1.0, -np.inf: -1.0, 0.0: 0.0, 5.0: 1.0},
}


@pytest.mark.parametrize("fn", sorted(SPECIAL))
def test_special_values(fn):
    x = np.array([*SPECIAL[fn], np.nan], np.float32)
    expected = np.array([*SPECIAL[fn].values(), np.nan], np.float32)
    np.testing.assert_array_equal(run_interpreted(fn, x), expected)
    np.testing.assert_array_equal(run_native(fn, x)[0], expected)


def test_subnormal_results_and_inputs():
    x = np.array([-100.0, -95.5, -88.0, -103.5], np.float32)
    got = run_interpreted("exp", x)
    assert np.all(got > 0) and np.all(got < np.float32(1.1754944e-38))
    assert ulp_errors(got, x, "exp").max() <= BOUND_ULPS["exp"]
    tiny = np.array([1.4e-45, 3e-42, 1e-40], np.float32)
    assert ulp_errors(run_interpreted("log", tiny), tiny, "log").max() <= BOUND_ULPS["log"]


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("fn", sorted(REFERENCE))
def test_half_precision_is_computed_in_f32(fn, dtype):
    """Every f16 / bf16 value: the result is the correctly rounded one, or its neighbour.
    On a CPU with AVX-512 BF16 the rounding to bf16 is ``vcvtneps2bf16``, which treats a
    subnormal as zero (Intel SDM): a result below bf16's smallest normal may come out 0."""
    numpy_type = np.float16 if dtype == "f16" else ml_dtypes.bfloat16
    bits = np.arange(1 << 16, dtype=np.uint16)
    x = bits.view(numpy_type)
    got, _ = run_native(fn, x, dtype)
    with np.errstate(all="ignore"):
        exact = REFERENCE[fn](x.astype(np.float64))
        rounded = exact.astype(numpy_type)
    if dtype == "bf16" and "+avx512bf16" in host_cpu()[1].split(","):
        tiny = np.abs(exact) < np.finfo(np.float32).tiny  # a subnormal float before rounding
        flushed = tiny & (got.astype(np.float32) == 0)
        rounded[flushed] = got[flushed]
    finite = np.isfinite(rounded) & np.isfinite(got)
    neighbours = np.abs(
        rounded[finite].view(np.int16).astype(np.int32) - got[finite].view(np.int16)
    )
    assert neighbours.max() <= 1
    assert np.array_equal(np.isnan(rounded), np.isnan(got))
    assert np.array_equal(np.isinf(rounded[~np.isnan(rounded)]), np.isinf(got[~np.isnan(got)]))


def test_unknown_function_is_refused():
    with pytest.raises(PassError, match="no approximation for math.sin"):
        MathApproximationPass(functions=("exp", "sin"))


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("fn", sorted(REFERENCE))
def test_mlir_opt_accepts_the_expansion(fn):
    module = parse(loop_module(fn, 20))
    VectorizeLoopsPass(8).run(module)
    MathApproximationPass().run(module)
    printed = run_mlir_opt(str(module))
    assert f"math.{fn}" not in printed
    assert "arith.select" in printed and "vector<8xf32>" in printed


MLIR_FLAGS = ["-test-math-polynomial-approximation", *LOWERING]
"""MLIR's own expansions (the test pass of ``PolynomialApproximation.cpp``), then to LLVM."""


@pytest.mark.mlir
@requires_mlir_runner
@pytest.mark.parametrize("fn", sorted(REFERENCE))
def test_mlir_polynomial_approximation_is_measured_too(fn):
    """MLIR's expansions on the same finite inputs, run by ``mlir-runner-22``: their
    worst errors are those the docstring of ``math_polynomials.py`` quotes, and ours are
    at most as large."""
    x = whole_range()
    x = x[np.isfinite(x)]
    kernel = loop_module(fn, len(x)).replace("func.func @f(", "func.func @kernel(")
    module = runner_module(kernel, {"xin": x, "yout": np.zeros_like(x)}, "yout")
    theirs = ulp_errors(run_with_mlir(module, x.shape, MLIR_FLAGS), x, fn)
    ours = ulp_errors(run_interpreted(fn, x), x, fn)
    assert ours.max() <= theirs.max(), (fn, ours.max(), theirs.max())
    assert theirs.max() >= MLIR_WORST_ULPS[fn], (fn, theirs.max())
    if fn == "log":  # MLIR clamps subnormals to the smallest normal: log(2**-126)
        subnormal = (x > 0) & (x < np.float32(1.1754944e-38))
        got = run_with_mlir(module, x.shape, MLIR_FLAGS)[subnormal]
        np.testing.assert_allclose(got, np.float32(-87.33654), rtol=1e-6)
