"""memref ops: descriptors, views, allocation and copies, natively and interpreted.

Every function reads through a view or a fresh buffer and writes an out-param; the
native result must equal the interpreter's exactly (these ops only move data).
"""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.codegen import CodegenError
from tinycomp.codegen.cpu import jit
from tinycomp.codegen.llvm import emit_llvm
from tinycomp.codegen.llvm.emit_memref import dropped_dimensions

from .helpers import run_both

COPY_2D = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %{src}, %c0 : {type}
  %cols = memref.dim %{src}, %c1 : {type}
  scf.for %i = %c0 to %rows step %c1 {{
    scf.for %j = %c0 to %cols step %c1 {{
      %v = memref.load %{src}[%i, %j] : {type}
      memref.store %v, %out[%i, %j] : {out_type}
    }}
  }}"""


def copy_2d(src: str, type_: str, out_type: str) -> str:
    return COPY_2D.format(src=src, type=type_, out_type=out_type)


def test_static_strided_subview():
    view = "memref<3x4xf32, strided<[20, 2], offset: 11>>"
    text = f"""func.func @f(%a: memref<6x10xf32>, %out: memref<3x4xf32> {{bufferize.result}}) {{
  %s = memref.subview %a[1, 1] [3, 4] [2, 2] : memref<6x10xf32> to {view}
{copy_2d("s", view, "memref<3x4xf32>")}
  return
}}"""
    a = np.random.default_rng(1).standard_normal((6, 10)).astype(np.float32)
    native, reference = run_both(text, a)
    np.testing.assert_array_equal(native, reference)
    np.testing.assert_array_equal(native, a[1:7:2, 1:9:2])


def test_dynamic_subview_of_a_dynamic_memref():
    view = "memref<2x?xf32, strided<[?, 1], offset: ?>>"
    text = f"""func.func @f(%a: memref<?x?xf32>, %k: index, %n: index,
                 %out: memref<2x?xf32> {{bufferize.result}}) {{
  %s = memref.subview %a[%k, %k] [2, %n] [1, 1] : memref<?x?xf32> to {view}
{copy_2d("s", view, "memref<2x?xf32>")}
  return
}}"""
    a = np.random.default_rng(2).standard_normal((5, 7)).astype(np.float32)
    native = jit(text)["f"].run(a, 2, 3, output_shapes=[(2, 3)])
    np.testing.assert_array_equal(native, a[2:4, 2:5])


def test_rank_reducing_subview():
    text = """func.func @f(%a: memref<4x1x6xf16>, %out: memref<6xf16> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %row = memref.subview %a[2, 0, 0] [1, 1, 6] [1, 1, 1]
      : memref<4x1x6xf16> to memref<6xf16, strided<[1], offset: 12>>
  scf.for %j = %c0 to %c6 step %c1 {
    %v = memref.load %row[%j] : memref<6xf16, strided<[1], offset: 12>>
    memref.store %v, %out[%j] : memref<6xf16>
  }
  return
}"""
    a = np.random.default_rng(3).standard_normal((4, 1, 6)).astype(np.float16)
    native, reference = run_both(text, a)
    np.testing.assert_array_equal(native, a[2, 0])
    np.testing.assert_array_equal(native, reference)
    assert sorted(dropped_dimensions([1, 1, 6], [6])) == [0, 1]


def test_collapse_and_expand_shape():
    text = """func.func @f(%a: memref<2x3x4xf32>, %out: memref<4x6xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %flat = memref.collapse_shape %a [[0, 1, 2]] : memref<2x3x4xf32> into memref<24xf32>
  %grid = memref.expand_shape %flat [[0, 1]] output_shape [4, 6]
      : memref<24xf32> into memref<4x6xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c6 step %c1 {
      %v = memref.load %grid[%i, %j] : memref<4x6xf32>
      memref.store %v, %out[%i, %j] : memref<4x6xf32>
    }
  }
  return
}"""
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    native, reference = run_both(text, a)
    np.testing.assert_array_equal(native, a.reshape(4, 6))
    np.testing.assert_array_equal(native, reference)


def test_cast_and_reinterpret_cast():
    text = """func.func @f(%a: memref<4x4xi32>, %out: memref<2x2xi32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %dyn = memref.cast %a : memref<4x4xi32> to memref<?x?xi32>
  %corner = memref.reinterpret_cast %dyn to offset: [10], sizes: [2, 2], strides: [4, 1]
      : memref<?x?xi32> to memref<2x2xi32, strided<[4, 1], offset: 10>>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %v = memref.load %corner[%i, %j] : memref<2x2xi32, strided<[4, 1], offset: 10>>
      memref.store %v, %out[%i, %j] : memref<2x2xi32>
    }
  }
  return
}"""
    a = np.arange(16, dtype=np.int32).reshape(4, 4)
    native, reference = run_both(text, a)
    np.testing.assert_array_equal(native, a[2:, 2:])
    np.testing.assert_array_equal(native, reference)


def test_dim_with_a_dynamic_index_and_rank():
    text = """func.func @f(%a: memref<3x?x5xf32>, %d: index) -> (index, index) {
  %size = memref.dim %a, %d : memref<3x?x5xf32>
  %rank = memref.rank %a : memref<3x?x5xf32>
  return %size, %rank : index, index
}"""
    function = jit(text)["f"]
    a = np.zeros((3, 4, 5), np.float32)
    assert [function(a, d) for d in range(3)] == [(3, 3), (4, 3), (5, 3)]


@pytest.mark.parametrize("alloc", ["memref.alloc(%n)", "memref.alloc(%n) {alignment = 64}",
                                   "memref.alloca(%n)"])  # fmt: skip
def test_allocations_hold_intermediate_results(alloc):
    text = f"""func.func @f(%a: memref<?xf32>, %out: memref<?xf32> {{bufferize.result}}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %tmp = {alloc} : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {{
    %v = memref.load %a[%i] : memref<?xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %tmp[%i] : memref<?xf32>
  }}
  memref.copy %tmp, %out : memref<?xf32> to memref<?xf32>
  {"memref.dealloc %tmp : memref<?xf32>" if "alloca" not in alloc else ""}
  return
}}"""
    a = np.random.default_rng(4).standard_normal(37).astype(np.float32)
    module = jit(text, opt_level=0)
    native = module["f"].run(a, output_shapes=[(37,)])
    np.testing.assert_array_equal(native, a * a)
    assert "@llvm.memcpy" in module.llvm_ir  # contiguous on both sides: one memcpy
    if "alignment" in alloc:
        assert "@aligned_alloc(i64 64," in module.llvm_ir


def test_copy_into_a_strided_window_is_a_loop_nest():
    window = "memref<2x3xf32, strided<[5, 1], offset: 6>>"
    text = f"""func.func @f(%a: memref<2x3xf32>, %out: memref<4x5xf32> {{bufferize.result}}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {{
    scf.for %j = %c0 to %c5 step %c1 {{
      memref.store %zero, %out[%i, %j] : memref<4x5xf32>
    }}
  }}
  %w = memref.subview %out[1, 1] [2, 3] [1, 1] : memref<4x5xf32> to {window}
  memref.copy %a, %w : memref<2x3xf32> to {window}
  return
}}"""
    a = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    native, reference = run_both(text, a)
    expected = np.zeros((4, 5), np.float32)
    expected[1:3, 1:4] = a
    np.testing.assert_array_equal(native, expected)
    np.testing.assert_array_equal(native, reference)
    assert "memcpy" not in emit_llvm(text).text


def test_strided_arguments_take_numpy_views_without_copies():
    type_ = "memref<?x?xf64, strided<[?, ?], offset: ?>>"
    text = f"""func.func @f(%a: {type_}, %out: memref<?x?xf64> {{bufferize.result}}) {{
{copy_2d("a", type_, "memref<?x?xf64>")}
  return
}}"""
    base = np.random.default_rng(5).standard_normal((6, 8))
    view = base.T[::2, 1:]  # byte strides (16, 64): transposed and stepped
    native = jit(text)["f"].run(view, output_shapes=[view.shape])
    np.testing.assert_array_equal(native, view)


def test_identity_layout_inputs_are_made_contiguous_outputs_must_be():
    text = f"""func.func @f(%a: memref<3x4xf32>, %out: memref<3x4xf32> {{bufferize.result}}) {{
{copy_2d("a", "memref<3x4xf32>", "memref<3x4xf32>")}
  return
}}"""
    function = jit(text)["f"]
    a = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    np.testing.assert_array_equal(function.run(a), a)  # copied to row-major first
    out = np.zeros((4, 3), np.float32).T
    with pytest.raises(CodegenError, match=r"argument #1 \(%out: memref<3x4xf32>\).*strides"):
        function(a, out)
