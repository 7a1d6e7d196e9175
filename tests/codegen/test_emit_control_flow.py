"""Control flow and functions: scf, affine, cf and func, natively and interpreted.

Loops become blocks with phi nodes, conditionals diamonds, calls LLVM calls; each test
runs a small function both ways (or against a Python formula) on random inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.affine.expr import apply_binary
from tinycomp.codegen.cpu import jit
from tinycomp.codegen.llvm import emit_llvm

from .helpers import run_both


def test_scf_for_with_iter_args_is_a_phi_per_value():
    text = """func.func @f(%a: memref<?xf32>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  %sum, %max = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero, %m = %ninf) -> (f32, f32) {
    %v = memref.load %a[%i] : memref<?xf32>
    %s2 = arith.addf %s, %v : f32
    %m2 = arith.maximumf %m, %v : f32
    scf.yield %s2, %m2 : f32, f32
  }
  return %sum, %max : f32, f32
}"""
    a = np.random.default_rng(1).standard_normal(29).astype(np.float32)
    for opt_level in (0, 3):
        total, largest = jit(text, opt_level=opt_level)["f"](a)
        assert largest == a.max()
        assert abs(total - a.astype(np.float64).sum()) < 1e-5
    assert "%s = phi float [ 0x0000000000000000, %entry ]" in emit_llvm(text).text


def test_a_memref_carried_by_a_loop_has_one_phi_per_field():
    text = """func.func @f(%x: memref<8xf32>, %y: memref<8xf32>,
                 %out: memref<8xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %last, %other = scf.for %step = %c0 to %c5 step %c1 iter_args(%src = %x, %dst = %y)
      -> (memref<8xf32>, memref<8xf32>) {
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %src[%i] : memref<8xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %dst[%i] : memref<8xf32>
    }
    scf.yield %dst, %src : memref<8xf32>, memref<8xf32>
  }
  memref.copy %last, %out : memref<8xf32> to memref<8xf32>
  return
}"""
    x = np.random.default_rng(2).standard_normal(8).astype(np.float32)
    expected = x * 32  # doubled 5 times, ping-pong between the two buffers
    native = jit(text)["f"].run(x, np.zeros(8, np.float32))
    np.testing.assert_array_equal(native, expected)


def test_scf_if_with_results_and_scf_while():
    text = """func.func @f(%n: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %last, %steps = scf.while (%x = %n, %k = %c0) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi sgt, %x, %c1 : i64
    scf.condition(%more) %x, %k : i64, i64
  } do {
  ^bb0(%x: i64, %k: i64):
    %r = arith.remsi %x, %c2 : i64
    %even = arith.cmpi eq, %r, %c0 : i64
    %next = scf.if %even -> (i64) {
      %h = arith.divsi %x, %c2 : i64
      scf.yield %h : i64
    } else {
      %t = arith.muli %x, %c3 : i64
      %t1 = arith.addi %t, %c1 : i64
      scf.yield %t1 : i64
    }
    %k1 = arith.addi %k, %c1 : i64
    scf.yield %next, %k1 : i64, i64
  }
  return %last, %steps : i64, i64
}"""

    def collatz_steps(n: int) -> int:
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    function = jit(text)["f"]
    for n in (1, 6, 27, 97):
        assert function(n) == (1 if n > 1 else n, collatz_steps(n))


def test_cf_branches_with_block_arguments():
    text = """func.func @f(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^loop(%c0, %c0 : i32, i32)
^loop(%i: i32, %acc: i32):
  %done = arith.cmpi sge, %i, %n : i32
  cf.cond_br %done, ^exit(%acc : i32), ^body
^body:
  %sq = arith.muli %i, %i : i32
  %acc2 = arith.addi %acc, %sq : i32
  %i2 = arith.addi %i, %c1 : i32
  cf.br ^loop(%i2, %acc2 : i32, i32)
^exit(%r: i32):
  return %r : i32
}"""
    function = jit(text)["f"]
    assert [function(n) for n in (0, 1, 5, 10)] == [
        sum(i * i for i in range(n)) for n in (0, 1, 5, 10)
    ]


def test_cond_br_to_one_block_with_two_values():
    text = """func.func @f(%a: f32, %b: f32) -> f32 {
  %c = arith.cmpf ogt, %a, %b : f32
  cf.cond_br %c, ^bb1(%a : f32), ^bb1(%b : f32)
^bb1(%m: f32):
  return %m : f32
}"""
    function = jit(text, opt_level=0)["f"]
    assert function(1.5, -2.0) == 1.5 and function(-3.0, 2.0) == 2.0


@pytest.mark.parametrize("kind", ["floordiv", "ceildiv", "mod"])
def test_affine_division_rounds_like_mlir(kind):
    text = f"""func.func @f(%i: index, %s: index) -> index {{
  %r = affine.apply affine_map<(d0)[s0] -> (d0 {kind} 4 + d0 {kind} s0)>(%i)[%s]
  return %r : index
}}"""
    function = jit(text)["f"]
    for i in range(-9, 10):
        for s in (1, 3, 7):
            assert function(i, s) == apply_binary(kind, i, 4) + apply_binary(kind, i, s), (i, s)


def test_affine_min_max_for_load_store_if():
    text = """func.func @f(%a: memref<10xf32>, %out: memref<10xf32> {bufferize.result}) {
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 10 {
    affine.store %zero, %out[%i] : memref<10xf32>
  }
  affine.for %t = 0 to 10 step 3 {
    %end = affine.min affine_map<(d0) -> (d0 + 3, 10)>(%t)
    %start = affine.max affine_map<(d0) -> (d0 - 1, 0)>(%t)
    %sum = affine.for %i = max affine_map<(d0) -> (d0 - 1, 0)>(%t)
        to min affine_map<(d0) -> (d0 + 3, 10)>(%t) iter_args(%acc = %zero) -> (f32) {
      %v = affine.load %a[%i] : memref<10xf32>
      %acc2 = arith.addf %acc, %v : f32
      affine.yield %acc2 : f32
    }
    %width = arith.subi %end, %start : index
    %w = arith.index_cast %width : index to i32
    %wf = arith.sitofp %w : i32 to f32
    %mean = arith.divf %sum, %wf : f32
    affine.if affine_set<(d0) : (d0 - 3 >= 0)>(%t) {
      affine.store %mean, %out[%t] : memref<10xf32>
    } else {
      affine.store %mean, %out[%t + 1] : memref<10xf32>
    }
  }
  return
}"""
    a = np.random.default_rng(3).standard_normal(10).astype(np.float32)
    native, reference = run_both(text, a)
    np.testing.assert_array_equal(native, reference)
    assert native[1] == (a[0] + a[1] + a[2]) / np.float32(3)  # t = 0 goes to out[1]
    assert native[9] == (a[8] + a[9]) / np.float32(2)  # the last window: rows 8 and 9


def test_calls_of_internal_and_declared_functions():
    text = """func.func private @sincos(%x: f32) -> (f32, f32) {
  %s = math.sin %x : f32
  %c = math.cos %x : f32
  return %s, %c : f32, f32
}
func.func private @hypotf(f32, f32) -> f32
func.func @f(%x: f32) -> f32 {
  %s, %c = call @sincos(%x) : (f32) -> (f32, f32)
  %h = call @hypotf(%s, %c) : (f32, f32) -> f32
  return %h : f32
}"""
    module = jit(text)
    assert list(module.functions) == ["f"]  # private functions are internal
    assert "define internal { float, float } @sincos" in module.llvm_ir
    assert "declare float @hypotf(float, float)" in module.llvm_ir
    assert abs(module["f"](0.7) - 1.0) < 1e-6  # sin^2 + cos^2 = 1, through libm's hypotf


def test_half_and_bfloat_scalars_cross_the_packed_interface():
    text = """func.func @f(%a: f16, %b: bf16) -> (f16, bf16) {
  %a2 = arith.mulf %a, %a : f16
  %b2 = arith.addf %b, %b : bf16
  return %a2, %b2 : f16, bf16
}"""
    import ml_dtypes

    a, b = jit(text)["f"](np.float16(1.5), ml_dtypes.bfloat16(3.0))
    assert a == np.float16(2.25) and a.dtype == np.float16
    assert float(b) == 6.0 and b.dtype == np.dtype(ml_dtypes.bfloat16)
