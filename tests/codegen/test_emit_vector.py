"""The vector dialect through LLVM: the instructions each op becomes, vectorized loops
JIT-compiled and run on numpy arrays (equal to the interpreter), and the vector
registers in the x86 assembly."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tinycomp
from tinycomp import CompileOptions
from tinycomp.codegen.cpu import host_cpu, jit
from tinycomp.codegen.cpu.program import compile_for_cpu
from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm import emit_llvm
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.passes.vectorize import VectorizeLoopsPass
from tinycomp.testing import KERNELS, check_against_reference

from .helpers import MLIR_DTYPES, as_float64

ODD = {
    "softmax": {"rows": 3, "cols": 37},
    "layernorm": {"rows": 3, "cols": 21},
    "rmsnorm": {"rows": 2, "cols": 13},
    "matmul": {"m": 3, "k": 5, "n": 11},
    "batch_matmul": {"batch": 2, "m": 3, "k": 4, "n": 9},
    "conv2d": {"n": 1, "h": 5, "w": 6, "c": 2, "f": 9, "kh": 3, "kw": 2},
    "conv2d_plain": {"n": 1, "h": 4, "w": 5, "c": 3, "f": 10, "kh": 2, "kw": 2},
    "attention": {"batch": 1, "l": 3, "s": 9, "d": 4, "dv": 11},
    "mlp2": {"m": 3, "k": 5, "hidden": 9, "n": 10},
}
"""Innermost loops longer than 8 that 8 does not divide: vector loop and epilogue."""


def llvm_body(text: str) -> str:
    """The instructions of the only function of ``text`` compiled to LLVM IR."""
    emitted = emit_llvm(parse(text)).text
    return emitted.split("entry:", 1)[1]


# -- one op, its instructions ------------------------------------------------------------------
def one_op(op_line: str, arguments: str, result: str) -> str:
    return f"""func.func @f({arguments}) -> {result} {{
  %r = {op_line}
  return %r : {result}
}}"""


EMITTED = {
    "load": (
        one_op("vector.load %m[%i, %j] : memref<4x32xf16>, vector<16xf16>",
               "%m: memref<4x32xf16>, %i: index, %j: index", "vector<16xf16>"),
        ["= load <16 x half>, ptr %ptr, align 2"],
    ),
    "broadcast": (
        one_op("vector.broadcast %s : f32 to vector<8xf32>", "%s: f32", "vector<8xf32>"),
        ["%r.lane0 = insertelement <8 x float> poison, float %s, i64 0",
         "%r = shufflevector <8 x float> %r.lane0, <8 x float> poison, <8 x i32> zeroinitializer"],
    ),
    "ordered sum": (
        one_op("vector.reduction <add>, %v, %s : vector<8xf32> into f32",
               "%v: vector<8xf32>, %s: f32", "f32"),
        ["%r = call float @llvm.vector.reduce.fadd.v8f32(float %s, <8 x float> %v)"],
    ),
    "reassociated sum": (
        one_op("vector.reduction <add>, %v fastmath<reassoc> : vector<8xf32> into f32",
               "%v: vector<8xf32>", "f32"),
        ["%r = call reassoc float @llvm.vector.reduce.fadd.v8f32(float 0x8000000000000000, "],
    ),
    "maximum with acc": (
        one_op("vector.reduction <maximumf>, %v, %s : vector<8xf32> into f32",
               "%v: vector<8xf32>, %s: f32", "f32"),
        ["%r.lanes = call float @llvm.vector.reduce.fmaximum.v8f32(<8 x float> %v)",
         "%r = call float @llvm.maximum.f32(float %s, float %r.lanes)"],
    ),
    "integer max": (
        one_op("vector.reduction <maxsi>, %v : vector<4xi32> into i32", "%v: vector<4xi32>",
               "i32"),
        ["%r = call i32 @llvm.vector.reduce.smax.v4i32(<4 x i32> %v)"],
    ),
    "half sum lane by lane": (
        one_op("vector.reduction <add>, %v, %s : vector<2xf16> into f16",
               "%v: vector<2xf16>, %s: f16", "f16"),
        ["%r.lane0 = extractelement <2 x half> %v, i64 0", "%r.acc0 = fadd half %s, %r.lane0",
         "%r.lane1 = extractelement <2 x half> %v, i64 1", "%r = fadd half %r.acc0, %r.lane1"],
    ),
    "fma": (
        one_op("vector.fma %v, %v, %v : vector<8xf32>", "%v: vector<8xf32>", "vector<8xf32>"),
        ["%r = call <8 x float> @llvm.fma.v8f32(<8 x float> %v, <8 x float> %v, "],
    ),
    "extract": (
        one_op("vector.extract %v[%i] : f32 from vector<8xf32>", "%v: vector<8xf32>, %i: index",
               "f32"),
        ["%r = extractelement <8 x float> %v, i64 %i"],
    ),
    "insert": (
        one_op("vector.insert %s, %v [5] : f32 into vector<8xf32>", "%v: vector<8xf32>, %s: f32",
               "vector<8xf32>"),
        ["%r = insertelement <8 x float> %v, float %s, i64 5"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(EMITTED))
def test_each_op_becomes_llvm_vector_instructions(case):
    text, lines = EMITTED[case]
    body = llvm_body(text)
    for line in lines:
        assert line in body, f"{line!r} not in\n{body}"


def test_store_writes_the_vector_at_lane_zero():
    body = llvm_body("""func.func @f(%v: vector<8xf32>, %m: memref<9x16xf32>, %i: index) {
      vector.store %v, %m[%i, %i] : memref<9x16xf32>, vector<8xf32>
      return
    }""")
    assert "store <8 x float> %v, ptr %ptr, align 4" in body


def test_n_d_vectors_are_refused_with_the_op_named():
    text = one_op("vector.fma %v, %v, %v : vector<2x8xf32>", "%v: vector<2x8xf32>",
                  "vector<2x8xf32>")  # fmt: skip
    with pytest.raises(CodegenError, match=r"'vector.fma' .*expected a 1-D vector, got "):
        emit_llvm(parse(text))


# -- JIT-compiled vector code against the interpreter ------------------------------------------
EVERY_OP = """
func.func @f(%x: memref<4x16xf32>, %y: memref<16xf32>, %out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %s = memref.load %y[%c3] : memref<16xf32>
  %b = vector.broadcast %s : f32 to vector<8xf32>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c16 step %c8 {
      %v = vector.load %x[%r, %j] : memref<4x16xf32>, vector<8xf32>
      %w = vector.load %y[%j] : memref<16xf32>, vector<8xf32>
      %f = vector.fma %v, %w, %b : vector<8xf32>
      %m = vector.reduction <maximumf>, %f : vector<8xf32> into f32
      %sum = vector.reduction <add>, %f, %m : vector<8xf32> into f32
      %e = vector.extract %f[%r] : f32 from vector<8xf32>
      %g = vector.insert %sum, %f [7] : f32 into vector<8xf32>
      %h = vector.insert %e, %g [0] : f32 into vector<8xf32>
      vector.store %h, %out[%r, %j] : memref<4x16xf32>, vector<8xf32>
    }
  }
  return
}"""


@pytest.mark.parametrize("opt_level", [0, 3])
def test_every_vector_op_runs_natively_like_the_interpreter(opt_level):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((4, 16)).astype(np.float32)
    y = rng.standard_normal(16).astype(np.float32)
    native, reference = np.zeros((4, 16), np.float32), np.zeros((4, 16), np.float32)
    jit(EVERY_OP, opt_level=opt_level)["f"](x, y, native)
    interpret(parse(EVERY_OP), x, y, reference, entry="f")
    np.testing.assert_array_equal(native, reference)


def vectorized_program(name: str, dtype: str, width: int = 8, reassociate: bool = True):
    options = CompileOptions(extra_passes={"loops": [VectorizeLoopsPass(width, reassociate)]})
    return tinycomp.compile(KERNELS[name].trace(dtype, **ODD[name]), options=options)


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_vectorized_kernels_run_natively_like_the_interpreter(name, dtype):
    program = vectorized_program(name, dtype)
    assert "vector.load" in program.stages["loops"] or "vector.store" in program.stages["loops"]
    inputs = KERNELS[name].make_inputs(np.random.default_rng(21), dtype, **ODD[name])
    native = compile_for_cpu(program.module, entry="main", opt_level=3)(*inputs)
    interpreted = program(*inputs)
    assert native.dtype == MLIR_DTYPES[dtype]
    check_against_reference(KERNELS[name], native, inputs, dtype)
    if dtype == "f32":  # the same ops in the same order; only libm may differ (expf...)
        np.testing.assert_allclose(
            as_float64(native), as_float64(interpreted), rtol=1e-6, atol=1e-7
        )


@pytest.mark.parametrize("name", ["softmax", "layernorm"])
def test_ordered_vector_code_is_bit_exact_natively(name):
    program = vectorized_program(name, "f32", reassociate=False)
    inputs = KERNELS[name].make_inputs(np.random.default_rng(4), "f32", **ODD[name])
    native = compile_for_cpu(program.module, entry="main", opt_level=0)(*inputs)
    np.testing.assert_array_equal(native, program(*inputs))


# -- the assembly ------------------------------------------------------------------------------
def vector_registers(assembly: str) -> set[str]:
    return set(re.findall(r"%(ymm|zmm)\d+", assembly))


def test_vectorized_loops_use_vector_registers_even_unoptimized():
    """At O0 LLVM vectorizes nothing itself: scalar loops stay scalar (``xmm`` lanes
    only), the vector dialect's loops use ``ymm`` (8 floats) or ``zmm`` (16) registers."""
    scalar = tinycomp.compile(KERNELS["softmax"].trace("f32", **ODD["softmax"]))
    assert vector_registers(jit(scalar.module, opt_level=0).assembly("main")) == set()
    eight = jit(vectorized_program("softmax", "f32", width=8).module, opt_level=0)
    assembly = eight.assembly("main")
    assert "ymm" in vector_registers(assembly)
    assert re.search(r"\bvmaxps\b.*%ymm", assembly) or re.search(r"\bvaddps\b.*%ymm", assembly)
    if "+avx512f" in host_cpu()[1]:
        sixteen = jit(vectorized_program("softmax", "f32", width=16).module, opt_level=0)
        assert "zmm" in vector_registers(sixteen.assembly("main"))
