"""The JIT's public face: LLVM IR before and after optimization, assembly, timings,
optimization levels, the CPU it targets, and ``compile_for_cpu``."""

from __future__ import annotations

import platform

import numpy as np
import pytest

import tinycomp
from tinycomp.codegen.cpu import CpuModule, host_cpu, jit
from tinycomp.codegen.cpu.program import compile_for_cpu
from tinycomp.testing import KERNELS, check_against_reference

X86 = platform.machine().lower() in ("x86_64", "amd64")
requires_x86 = pytest.mark.skipif(not X86, reason="checks x86 instruction names")

ADD = """func.func @add(%a: memref<?xf32>, %b: memref<?xf32>,
                   %out: memref<?xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %out[%i] : memref<?xf32>
  }
  return
}"""


def test_a_cpu_module_keeps_every_form_of_the_code():
    module = jit(ADD, opt_level=2)
    assert isinstance(module, CpuModule)
    assert module.llvm_ir.startswith("target datalayout")
    assert "define void @add(ptr %a.allocated" in module.llvm_ir
    assert "define void @_mlir_add(ptr" in module.optimized_ir  # the packed wrapper
    assert module.optimized_ir != module.llvm_ir
    assert set(module.timings) == {"emit", "parse", "optimize", "codegen"}
    assert module.cpu == host_cpu()[0] and module.opt_level == 2
    assert repr(module) == f"<CpuModule @add (O2, {host_cpu()[0]})>"
    a, b = (np.random.default_rng(s).standard_normal(101).astype(np.float32) for s in (1, 2))
    np.testing.assert_array_equal(module["add"].run(a, b, output_shapes=[(101,)]), a + b)


@requires_x86
def test_o3_vectorizes_the_loop_and_o0_does_not():
    vectorized = jit(ADD, opt_level=3, cpu="x86-64").assembly("add")  # SSE2 baseline
    scalar = jit(ADD, opt_level=0, cpu="x86-64").assembly("add")
    assert vectorized.startswith("add:") and "addps" in vectorized  # packed: 4 floats at once
    assert "addss" in scalar and "addps" not in scalar  # scalar: one float at a time
    assert "<4 x float>" in jit(ADD, opt_level=3, cpu="x86-64").optimized_ir


@requires_x86
def test_the_host_cpu_gets_its_widest_vectors():
    features = host_cpu()[1]
    if "+avx2" not in features:
        pytest.skip("the host has no AVX2")
    assembly = jit(ADD, opt_level=3).assembly("add")
    assert "%ymm" in assembly or "%zmm" in assembly


def test_a_named_cpu_is_recorded():
    module = jit(ADD, opt_level=1, cpu="x86-64")
    assert module.cpu == "x86-64"
    assert "x86-64" not in module.llvm_ir  # the CPU is the target machine's, not the IR's


def test_compile_for_cpu_runs_a_tensor_program_end_to_end():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 7)).astype(np.float32)
    w = rng.standard_normal((7, 3)).astype(np.float32)
    loops = tinycomp.compile(lambda a, b: a @ b, x, w, stop_after="loops")
    program = compile_for_cpu(loops.module, "main", loops.result_shapes, opt_level=3)
    np.testing.assert_allclose(program(x, w), x @ w, rtol=1e-5, atol=1e-5)
    assert program.output_shapes == ((5, 3),)
    assert program.assembly().startswith("main:")
    assert "define void @main(" in program.llvm_ir
    assert "@main" in program.optimized_ir


@pytest.mark.skipif(
    "cpu" not in tinycomp.compiler.TARGETS, reason='tinycomp.compile has no target="cpu" yet'
)
def test_tinycomp_compile_for_the_cpu_target():
    kernel = KERNELS["layernorm"]
    inputs = kernel.make_inputs(np.random.default_rng(4), "f32", rows=5, cols=9)
    options = tinycomp.CompileOptions(tile_sizes=(2, 4), opt_level=2)
    program = tinycomp.compile(kernel.fn, *inputs, target="cpu", options=options)
    check_against_reference(kernel, program(*inputs), inputs, "f32")
    assert program.assembly().startswith("main:")
    assert "define void @main(" in program.llvm_ir
