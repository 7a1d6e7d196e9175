"""Graded tests for chapter 08 (`ch08_loops_to_llvm.py`): an emitter, GEMM blocking, a micro-kernel.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).

Task 08.1 registers the student's `emit_fpowi` as the emitter of `math.fpowi`, JIT-compiles
kernels that use it (O0 and O3, i32 and i64 exponents, f32 and f16; a call of
`@llvm.powi`, which the JIT cannot link, is refused before it can crash) and compares them with
numpy on random inputs. Task 08.2 compares `cache_blocking` with the rules its docstring
states, written out again here, on several cache hierarchies (laptop AVX2, Zen 5, Apple M1
without an L3, and small, odd ones). Task 08.3 runs the student's micro-kernel in the
reference interpreter and as native code against numpy, checks its structure (one loop,
every FMA a `vector.fma` on the carried accumulators) and, on an x86 host with FMA, that
LLVM's assembly of it uses vector FMAs on `ymm`/`zmm` registers. Speed is never graded.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator

import numpy as np
import pytest

from tinycomp.codegen.cpu import host_cpu, jit
from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm import EMITTERS, emit_llvm, register_emitter
from tinycomp.grading.checks import GradingFailure, expect_array_close, expect_equal
from tinycomp.interp import interpret
from tinycomp.ir import ParseError, VerifyError, parse, verify

task08_1 = pytest.mark.task08_1
task08_2 = pytest.mark.task08_2
task08_3 = pytest.mark.task08_3


# -- Task 08.1 ---------------------------------------------------------------------------
POWI_KERNEL = """func.func @powi(%x: memref<?x{t}>, %n: {i}, %out: memref<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %len = memref.dim %x, %c0 : memref<?x{t}>
  scf.for %k = %c0 to %len step %c1 {{
    %v = memref.load %x[%k] : memref<?x{t}>
    %p = "math.fpowi"(%v, %n) : ({t}, {i}) -> {t}
    memref.store %p, %out[%k] : memref<?x{t}>
  }}
  return
}}"""


CUBE = """func.func @cube(%x: f32) -> f32 {
  %three = arith.constant 3 : i32
  %p = "math.fpowi"(%x, %three) : (f32, i32) -> f32
  return %p : f32
}"""


def probe_emitter() -> None:
    """Emit a one-op function first: a stub's NotImplementedError comes out as itself
    (the grader then says "not started"), any other failure as feedback."""
    try:
        emit_llvm(parse(CUBE))
    except CodegenError as error:
        if isinstance(error.__cause__, NotImplementedError):
            raise error.__cause__ from None
        raise GradingFailure(f"math.fpowi: your emitter failed on\n{CUBE}\n{error}") from None


@pytest.fixture
def fpowi_emitter(impl) -> Iterator[None]:
    """The student's ``emit_fpowi`` registered for ``math.fpowi`` during one test."""
    before = EMITTERS.get("math.fpowi")
    register_emitter("math.fpowi", replace=True)(impl.emit_fpowi)
    try:
        probe_emitter()
        yield
    finally:
        if before is None:
            EMITTERS.pop("math.fpowi", None)
        else:
            EMITTERS["math.fpowi"] = before


def compile_powi(float_type: str, int_type: str, opt_level: int):
    text = POWI_KERNEL.format(t=float_type, i=int_type)
    try:
        llvm_ir = emit_llvm(parse(text)).text
    except CodegenError as error:
        raise GradingFailure(
            f"math.fpowi ({float_type}, {int_type}): your emitter failed: {error}\nkernel:\n{text}"
        ) from None
    if "@llvm.powi" in llvm_ir:
        # Running it would call __powisf2 at address 0 and crash the grader.
        raise GradingFailure(
            f"math.fpowi ({float_type}, {int_type}): the LLVM IR calls @llvm.powi, which the "
            "JIT cannot link (__powisf2); convert the exponent with sitofp and call @llvm.pow"
        )
    try:
        return jit(parse(text), opt_level=opt_level)
    except CodegenError as error:
        raise GradingFailure(
            f"math.fpowi ({float_type}, {int_type}): LLVM rejected the code of your emitter: "
            f"{error}\nkernel:\n{text}"
        ) from None


@task08_1
@pytest.mark.parametrize("int_type", ["i32", "i64"])
def test_fpowi_converts_the_exponent_and_calls_llvm_pow(impl, fpowi_emitter, int_type):
    text = POWI_KERNEL.format(t="f32", i=int_type)
    llvm_ir = emit_llvm(parse(text)).text
    expect_equal(
        f"LLVM IR of math.fpowi (f32, {int_type}) has 'sitofp {int_type}'",
        f"sitofp {int_type}" in llvm_ir,
        True,
    )
    expect_equal(
        f"LLVM IR of math.fpowi (f32, {int_type}) declares and calls @llvm.pow.f32",
        "declare float @llvm.pow.f32(float, float)" in llvm_ir
        and "call float @llvm.pow.f32(" in llvm_ir,
        True,
    )


@task08_1
@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("int_type", ["i32", "i64"])
def test_fpowi_matches_numpy_in_f32(impl, fpowi_emitter, opt_level, int_type):
    module = compile_powi("f32", int_type, opt_level)
    rng = np.random.default_rng(81 + opt_level)
    for length in (1, 7, 40):
        magnitude = rng.uniform(0.5, 2.0, length)
        x = (magnitude * rng.choice([-1.0, 1.0], length)).astype(np.float32)
        for n in (0, 1, 2, 3, 5, -1, -2):
            out = np.full(length, np.nan, np.float32)
            module["powi"](x, n, out)
            expected = np.power(x.astype(np.float64), n).astype(np.float32)
            expect_array_close(
                f"math.fpowi(x, {n}) ({int_type}, O{opt_level}, length {length})",
                out,
                expected,
                rtol=1e-5,
            )


@task08_1
def test_fpowi_matches_numpy_in_f16(impl, fpowi_emitter):
    module = compile_powi("f16", "i32", 3)
    rng = np.random.default_rng(82)
    x = rng.uniform(0.5, 1.5, 33).astype(np.float16)
    for n in (2, 3, -1):
        out = np.full(33, np.nan, np.float16)
        module["powi"](x, n, out)
        expected = np.power(x.astype(np.float64), n).astype(np.float16)
        expect_array_close(f"math.fpowi(x, {n}) in f16", out, expected, rtol=5e-3)


# -- Task 08.2 ---------------------------------------------------------------------------
KIB, MIB = 1024, 1024 * 1024
MACHINES = {
    # name: (MR, NR, L1, L2, L3 share or None, itemsize); caches as (size, ways, line)
    "laptop AVX2": (6, 16, (32 * KIB, 8, 64), (256 * KIB, 4, 64), (2 * MIB, 16, 64), 4),
    "Zen 5 (AVX-512)": (14, 32, (48 * KIB, 12, 64), (1 * MIB, 16, 64), (4 * MIB, 16, 64), 4),
    "Apple M1 (no L3)": (14, 8, (128 * KIB, 8, 128), (3 * MIB, 12, 128), None, 4),
    "Skylake-X": (14, 32, (32 * KIB, 8, 64), (1 * MIB, 16, 64), (1408 * KIB, 11, 64), 4),
    "f64 on AVX2": (4, 12, (32 * KIB, 8, 64), (256 * KIB, 4, 64), (8 * MIB, 16, 64), 8),
    "tiny caches": (8, 8, (4 * KIB, 2, 32), (16 * KIB, 2, 32), (64 * KIB, 4, 32), 4),
    "odd tile": (5, 24, (32 * KIB, 8, 64), (512 * KIB, 8, 64), (16 * MIB, 16, 64), 2),
}


def reference_blocking(mr, nr, l1, l2, l3, itemsize):
    """The rules of ``cache_blocking``'s docstring (the same as tinycomp.codegen.gemm)."""
    s = itemsize
    way1 = l1[0] // l1[1]
    a_ways = max(1, math.floor((l1[1] - 1) / (1 + nr / mr)))
    quantum = l1[2] // math.gcd(l1[2], mr * s)
    kc = max(quantum, a_ways * way1 // (mr * s) // quantum * quantum)
    way2 = l2[0] // l2[1]
    a_block_ways = max(1, l2[1] - 1 - math.ceil(nr * kc * s / way2))
    mc = max(mr, a_block_ways * way2 // (kc * s) // mr * mr)
    if l3 is None:
        return kc, mc, max(nr, 4096 // nr * nr)
    way3 = l3[0] // l3[1]
    panel_ways = max(1, l3[1] - 1 - math.ceil(mc * kc * s / way3))
    return kc, mc, max(nr, panel_ways * way3 // (kc * s) // nr * nr)


@task08_2
@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_cache_blocking_follows_the_rules(impl, machine):
    mr, nr, l1, l2, l3, itemsize = MACHINES[machine]
    found = impl.cache_blocking(mr, nr, l1, l2, l3, itemsize)
    expected = reference_blocking(mr, nr, l1, l2, l3, itemsize)
    for part, got, want in zip(("KC", "MC", "NC"), tuple(found), expected, strict=True):
        expect_equal(f"{machine}: {part} (MR={mr}, NR={nr}, {itemsize}-byte elements)", got, want)


@task08_2
def test_cache_blocking_fits_the_caches(impl):
    for machine, (mr, nr, l1, l2, l3, s) in sorted(MACHINES.items()):
        kc, mc, nc = impl.cache_blocking(mr, nr, l1, l2, l3, s)
        expect_equal(f"{machine}: MC is a multiple of MR={mr}", mc % mr, 0)
        expect_equal(f"{machine}: NC is a multiple of NR={nr}", nc % nr, 0)
        expect_equal(f"{machine}: an A sliver is whole L1 lines", (mr * kc * s) % l1[2], 0)
        expect_equal(f"{machine}: the B sliver fits in L1", (mr + nr) * kc * s <= l1[0], True)


# -- Task 08.3 ---------------------------------------------------------------------------
SHAPES = [(2, 8, 8), (4, 16, 8), (6, 16, 8), (3, 32, 16)]


def kernel_module(impl, mr: int, nr: int, lanes: int):
    text = impl.microkernel_ir(mr, nr, lanes)
    what = f"microkernel_ir({mr}, {nr}, {lanes})"
    try:
        module = parse(text)
        verify(module)
    except (ParseError, VerifyError) as error:
        raise GradingFailure(f"{what} is not valid IR: {error}\nIR:\n{text}") from None
    return module, text, what


def random_operands(rng, mr: int, nr: int, k: int):
    a = rng.standard_normal((mr, k)).astype(np.float32)
    b = rng.standard_normal((k, nr)).astype(np.float32)
    c = rng.standard_normal((mr, nr)).astype(np.float32)
    return a, b, c


@task08_3
@pytest.mark.parametrize("mr, nr, lanes", SHAPES)
def test_microkernel_matches_numpy_in_the_interpreter(impl, mr, nr, lanes):
    module, _, what = kernel_module(impl, mr, nr, lanes)
    rng = np.random.default_rng(83 + mr)
    for k in (1, 7, 33):
        a, b, c = random_operands(rng, mr, nr, k)
        expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
        interpret(module, a, b, c, entry="tile")
        expect_array_close(
            f"{what}, k={k}: C + A @ B (interpreter)",
            c,
            expected.astype(np.float32),
            rtol=1e-4,
            atol=1e-5,
        )


@task08_3
@pytest.mark.parametrize("mr, nr, lanes", SHAPES)
def test_microkernel_is_register_blocked(impl, mr, nr, lanes):
    module, text, what = kernel_module(impl, mr, nr, lanes)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    expect_equal(f"{what}: number of scf.for loops (one, over k; i and j unrolled)", len(loops), 1)
    accumulators = mr * nr // lanes
    expect_equal(
        f"{what}: accumulators carried by the k loop (iter_args)",
        len(loops[0].results),
        accumulators,
    )
    fmas = [op for op in loops[0].walk() if op.name == "vector.fma"]
    expect_equal(f"{what}: vector.fma ops in the k loop", len(fmas), accumulators)
    scalar = [
        op.name for op in module.walk() if op.name in ("arith.mulf", "arith.addf", "math.fma")
    ]
    expect_equal(
        f"{what}: scalar multiply/add ops (all arithmetic should be vector.fma)", scalar, []
    )


@task08_3
@pytest.mark.parametrize("mr, nr, lanes", SHAPES)
def test_microkernel_runs_natively(impl, mr, nr, lanes, record_property):
    module, text, what = kernel_module(impl, mr, nr, lanes)
    try:
        native = jit(module, opt_level=3)
    except CodegenError as error:
        raise GradingFailure(f"{what}: LLVM could not compile it: {error}") from None
    rng = np.random.default_rng(84 + mr)
    for k in (1, 16, 129):
        a, b, c = random_operands(rng, mr, nr, k)
        expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
        native["tile"](a, b, c)
        expect_array_close(
            f"{what}, k={k}: C + A @ B (native)",
            c,
            expected.astype(np.float32),
            rtol=1e-4,
            atol=1e-5,
        )

    if (mr, nr, lanes) == SPEED_SHAPE:
        record_property("tinycomp_note", measured_speed(native, mr, nr, lanes))


SPEED_SHAPE = (6, 16, 8)
"""The tile whose speed the feedback reports: BLIS's AVX2 micro-kernel."""


def measured_speed(native, mr: int, nr: int, lanes: int) -> str:
    """The micro-kernel's speed on this machine, for the feedback: measured, never graded."""
    k = 4096
    a, b, c = random_operands(np.random.default_rng(7), mr, nr, k)
    calls = 50
    start = time.perf_counter()
    for _ in range(calls):
        native["tile"](a, b, c)
    seconds = time.perf_counter() - start
    gflops = 2 * mr * nr * k * calls / seconds / 1e9
    return (
        f"your {mr}x{nr} micro-kernel ({lanes} lanes) ran at {gflops:.1f} GFLOPS on this "
        "machine, Python call overhead included (measured, not graded)"
    )


def host_has(feature: str) -> bool:
    name, features = host_cpu()
    return f"+{feature}" in features.split(",")


@task08_3
@pytest.mark.parametrize("mr, nr, lanes, register", [(6, 16, 8, "ymm"), (4, 32, 16, "zmm")])
def test_microkernel_assembly_has_vector_fmas(impl, mr, nr, lanes, register):
    needed = "avx512f" if register == "zmm" else "fma"
    if not host_has(needed):
        pytest.skip(f"the host CPU has no {needed}: its assembly cannot show {register} FMAs")
    module, _, what = kernel_module(impl, mr, nr, lanes)
    assembly = jit(module, opt_level=3).assembly("tile")
    fmas = re.findall(rf"vfmadd\w*ps\s+[^\n]*%{register}", assembly)
    expect_equal(
        f"{what}: vector FMAs on {register} registers in the x86 assembly (vfmadd...ps)",
        len(fmas) >= mr * nr // lanes,
        True,
    )
