"""What chapter 08 says about LLVM and x86 CPUs, checked against LLVM itself.

Every test compiles for a *named* CPU on the x86-64 triple (llvmlite carries all of
LLVM's targets), so the answers are LLVM's CPU models and passes, the same on any host.
The memref-descriptor test runs real MLIR (``mlir-opt-22``) and skips without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import llvmlite.binding as llvm
import pytest

from tinycomp.codegen.cpu.optimize import optimize
from tinycomp.codegen.llvm import emit_llvm
from tinycomp.ir import parse
from tinycomp.viz.hot_loop_view import compile_variant

X86_64 = "x86_64-unknown-linux-gnu"


def machine(cpu: str, features: str = "", opt_level: int = 3) -> llvm.TargetMachine:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(X86_64)
    return target.create_target_machine(cpu=cpu, features=features, opt=opt_level)


def compile_llvm(text: str, cpu: str, features: str = "") -> tuple[str, str]:
    """(optimized LLVM IR, assembly) of LLVM IR ``text`` at O3 for ``cpu``."""
    target = machine(cpu, features)
    module = llvm.parse_assembly(text)
    module.triple, module.data_layout = target.triple, str(target.target_data)
    module.verify()
    optimize(module, target, 3)
    return str(module), target.emit_assembly(module)


def widest_float_vector(ir: str) -> int:
    return max([int(n) for n in re.findall(r"<(\d+) x float>", ir)] or [1])


def axpy_loop(fastmath: str = "") -> str:
    """``out[i] = x[i] * 2 + y[i]`` as a tinycomp loop, the ops with ``fastmath``."""
    flags = f" fastmath<{fastmath}>" if fastmath else ""
    return f"""func.func @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {{
    %a = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %y[%i] : memref<?xf32>
    %m = arith.mulf %a, %two{flags} : f32
    %s = arith.addf %m, %b{flags} : f32
    memref.store %s, %out[%i] : memref<?xf32>
  }}
  return
}}"""


def test_llvms_parser_renames_a_misnamed_intrinsic():
    """Why Task 08.1 checks the name: ``llvm.pow.f32`` declared on ``half`` is accepted
    and silently becomes ``llvm.pow.f16`` (the verifier never sees the mistake)."""
    text = """declare half @llvm.pow.f32(half, half)
define half @f(half %x, half %y) {
  %r = call half @llvm.pow.f32(half %x, half %y)
  ret half %r
}"""
    module = llvm.parse_assembly(text)
    module.verify()
    assert "@llvm.pow.f16(half %x, half %y)" in str(module)
    assert "llvm.pow.f32" not in str(module)


@pytest.mark.parametrize("cpu", ["haswell", "znver4"])
def test_times_two_is_an_add_made_by_the_backend_not_by_instcombine(cpu):
    """After the whole O3 pipeline (InstCombine included) the IR still multiplies by 2;
    the x86 code adds ``x + x``: the rewrite is the SelectionDAG combiner's, in codegen."""
    optimized, assembly = compile_llvm(emit_llvm(parse(axpy_loop())).text, cpu)
    assert re.search(r"fmul <\d+ x float> %\S+, splat \(float 2\.0+e\+00\)", optimized)
    arithmetic = set(re.findall(r"\bv(mul|add)ps\b", assembly))
    assert arithmetic == {"add"}, "x * 2 should be x + x in the machine code"
    assert "vfmadd" not in assembly


@pytest.mark.parametrize("cpu", ["haswell", "skylake-avx512", "znver4"])
def test_fma_contraction_needs_the_contract_flag(cpu):
    plain = compile_variant(axpy_loop(), "axpy", cpu, 3, 0)
    contracted = compile_variant(axpy_loop("contract"), "axpy", cpu, 3, 0)
    assert "vfmadd" not in plain.assembly
    assert re.search(r"vfmadd\w*ps", contracted.assembly)
    assert "fmul contract" in emit_llvm(parse(axpy_loop("contract"))).text


@pytest.mark.parametrize(
    "cpu, lanes",
    [("haswell", 8), ("skylake-avx512", 8), ("icelake-server", 8), ("sapphirerapids", 8),
     ("znver4", 16), ("znver5", 16)],
)  # fmt: skip
def test_the_loop_vectorizers_width_per_cpu(cpu, lanes):
    """LLVM prefers 256-bit vectors on Intel's AVX-512 cores (tuning ``prefer-256-bit``)
    and uses 512 bits on AMD's Zen 4 and 5."""
    assert compile_variant(axpy_loop(), "axpy", cpu, 3, 0).llvm_vector_lanes == lanes


def test_prefer_vector_width_is_a_tuning_the_target_can_drop():
    text = emit_llvm(parse(axpy_loop())).text
    assert widest_float_vector(compile_llvm(text, "skylake-avx512", "-prefer-256-bit")[0]) == 16
    assert widest_float_vector(compile_llvm(text, "znver4", "+prefer-256-bit")[0]) == 8


def test_explicit_512_bit_vectors_stay_512_bit_on_intel():
    """The preference narrows what the vectorizers choose, not what the IR says."""
    text = """func.func @f(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %v = vector.load %x[%c0] : memref<?xf32>, vector<16xf32>
  %w = vector.fma %v, %v, %v : vector<16xf32>
  vector.store %w, %y[%c0] : memref<?xf32>, vector<16xf32>
  return
}"""
    assert re.search(
        r"vfmadd\w*ps\s+[^\n]*%zmm", compile_variant(text, "f", "skylake-avx512").assembly
    )


@pytest.mark.parametrize(
    "cpu, has_fma",
    [("ivybridge", False), ("haswell", True), ("btver2", False), ("znver1", True),
     ("silvermont", False), ("goldmont", False), ("goldmont-plus", False), ("tremont", False),
     ("gracemont", True), ("x86-64-v2", False), ("x86-64-v3", True)],
)  # fmt: skip
def test_which_x86_cpus_have_fma(cpu, has_fma):
    """Not every x86 CPU since 2013 has FMA: LLVM's models of Intel's Atom cores up to
    Tremont (2019-2021 parts) and of AMD's Jaguar (``btver2``, 2013) have none."""
    text = """declare float @llvm.fma.f32(float, float, float)
define float @f(float %a, float %b, float %c) {
  %r = call float @llvm.fma.f32(float %a, float %b, float %c)
  ret float %r
}"""
    assembly = machine(cpu).emit_assembly(llvm.parse_assembly(text))
    assert bool(re.search(r"\bvfmadd\w*ss\b", assembly)) is has_fma


ROWSUM = """func.func @rowsum(%a: memref<?x?xf32>, %out: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %a, %c0 : memref<?x?xf32>
  %cols = memref.dim %a, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {{
    %sum = scf.for %j = %c0 to %cols step %c1 iter_args(%acc = %zero) -> (f32) {{
      %x = memref.load %a[%i, %j] : memref<?x?xf32>
      %next = arith.addf %acc, %x{flags} : f32
      scf.yield %next : f32
    }}
    memref.store %sum, %out[%i] : memref<?xf32>
  }}
  return
}}"""


def test_an_ordered_float_sum_is_vectorized_only_when_it_may_be_reassociated():
    ordered = compile_variant(ROWSUM.format(flags=""), "rowsum", "znver4")
    reassociated = compile_variant(ROWSUM.format(flags=" fastmath<reassoc>"), "rowsum", "znver4")
    assert ordered.llvm_vector_lanes == 1
    assert reassociated.llvm_vector_lanes > 1


def test_llvm_leaves_a_loop_carried_memory_dependence_scalar():
    prefix = """func.func @prefix(%x: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c1 to %c64 step %c1 {
    %im1 = arith.subi %i, %c1 : index
    %prev = memref.load %x[%im1] : memref<64xf32>
    %cur = memref.load %x[%i] : memref<64xf32>
    %s = arith.addf %prev, %cur : f32
    memref.store %s, %x[%i] : memref<64xf32>
  }
  return
}"""
    assert compile_variant(prefix, "prefix", "znver4").llvm_vector_lanes == 1


@pytest.mark.mlir
@pytest.mark.skipif(
    shutil.which("mlir-opt-22") is None, reason="mlir-opt-22 is not on PATH (mlir-22-tools)"
)
def test_memref_arguments_become_the_fields_of_mlirs_descriptor():
    """A strided 2-D memref is seven LLVM parameters in MLIR's lowering, as in tinycomp's."""
    strided = "memref<?x?xf32, strided<[?, 1], offset: ?>>"
    text = f"func.func @rowsum(%a: {strided}, %out: memref<?xf32>) {{\n  return\n}}"
    lowered = subprocess.run(
        ["mlir-opt-22", "--convert-func-to-llvm", "--reconcile-unrealized-casts"],
        input=text, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    signature = re.search(r"llvm\.func @rowsum\((.*?)\)", lowered).group(1)
    mlir_types = [part.split(": ")[1].replace("!llvm.", "") for part in signature.split(", ")]
    define = re.search(r"define void @rowsum\((.*?)\)", emit_llvm(parse(text)).text).group(1)
    tinycomp_types = [part.split(" ")[0] for part in define.split(", ")]
    assert (
        mlir_types == tinycomp_types == ["ptr", "ptr"] + ["i64"] * 5 + ["ptr", "ptr"] + ["i64"] * 3
    )


def test_aarch64_vectorizes_the_loads_of_an_ordered_sum_but_keeps_its_order():
    """On AArch64 LLVM uses an ordered reduction: vector loads, additions still one by one."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("aarch64-unknown-linux-gnu")
    arm = target.create_target_machine(cpu="apple-m1", features="", opt=3)
    module = llvm.parse_assembly(emit_llvm(parse(ROWSUM.format(flags=""))).text)
    module.triple, module.data_layout = arm.triple, str(arm.target_data)
    optimize(module, arm, 3)
    reductions = [
        line for line in str(module).splitlines() if "call" in line and "reduce.fadd" in line
    ]
    assert reductions and not any("reassoc" in line for line in reductions)
    assert re.search(r"llvm\.vector\.reduce\.fadd\.v4f32\(float %", reductions[0])
