"""tensor ops against numpy: value semantics, slices, padding, and tensor.empty's
uninitialised elements."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interp.helpers import run
from tinycomp.interp import InterpreterError


@settings(max_examples=30, deadline=None)
@given(
    rows=st.integers(2, 9),
    cols=st.integers(2, 9),
    data=st.data(),
)
def test_extract_slice_then_insert_slice_matches_numpy(rows, cols, data):
    step = data.draw(st.integers(1, 2))
    r0 = data.draw(st.integers(0, rows - 1))
    c0 = data.draw(st.integers(0, cols - 1))
    h = data.draw(st.integers(1, (rows - 1 - r0) // step + 1))
    w = data.draw(st.integers(1, (cols - 1 - c0) // step + 1))
    text = f"""
    func.func @main(%t: tensor<{rows}x{cols}xf32>, %d: tensor<{rows}x{cols}xf32>)
        -> (tensor<{h}x{w}xf32>, tensor<{rows}x{cols}xf32>) {{
      %s = tensor.extract_slice %t[{r0}, {c0}] [{h}, {w}] [{step}, {step}]
          : tensor<{rows}x{cols}xf32> to tensor<{h}x{w}xf32>
      %i = tensor.insert_slice %s into %d[{r0}, {c0}] [{h}, {w}] [{step}, {step}]
          : tensor<{h}x{w}xf32> into tensor<{rows}x{cols}xf32>
      return %s, %i : tensor<{h}x{w}xf32>, tensor<{rows}x{cols}xf32>
    }}"""
    rng = np.random.default_rng(rows * 100 + cols)
    t = rng.standard_normal((rows, cols)).astype(np.float32)
    d = rng.standard_normal((rows, cols)).astype(np.float32)
    d_before = d.copy()
    window = (slice(r0, r0 + h * step, step), slice(c0, c0 + w * step, step))
    piece, inserted = run(text, t, d)
    np.testing.assert_array_equal(piece, t[window])
    expected = d_before.copy()
    expected[window] = t[window]
    np.testing.assert_array_equal(inserted, expected)
    np.testing.assert_array_equal(d, d_before)  # value semantics: the destination is unchanged


def test_rank_reducing_slices():
    text = """
    func.func @main(%t: tensor<4x1x6xf32>, %i: index) -> (tensor<6xf32>, tensor<4x1x6xf32>) {
      %row = tensor.extract_slice %t[%i, 0, 0] [1, 1, 6] [1, 1, 1]
          : tensor<4x1x6xf32> to tensor<6xf32>
      %back = tensor.insert_slice %row into %t[0, 0, 0] [1, 1, 6] [1, 1, 1]
          : tensor<6xf32> into tensor<4x1x6xf32>
      return %row, %back : tensor<6xf32>, tensor<4x1x6xf32>
    }"""
    t = np.random.default_rng(16).standard_normal((4, 1, 6)).astype(np.float32)
    row, back = run(text, t, np.int64(2))
    np.testing.assert_array_equal(row, t[2, 0])
    expected = t.copy()
    expected[0, 0] = t[2, 0]
    np.testing.assert_array_equal(back, expected)


def test_extract_insert_dim_and_reshapes():
    text = """
    func.func @main(%t: tensor<2x3x4xi32>, %i: index)
        -> (i32, index, tensor<6x4xi32>, tensor<2x3x2x2xi32>) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %x = tensor.extract %t[%c1, %c2, %i] : tensor<2x3x4xi32>
      %d = tensor.dim %t, %c2 : tensor<2x3x4xi32>
      %flat = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xi32> into tensor<6x4xi32>
      %split = tensor.expand_shape %t [[0], [1], [2, 3]] output_shape [2, 3, 2, 2]
          : tensor<2x3x4xi32> into tensor<2x3x2x2xi32>
      return %x, %d, %flat, %split : i32, index, tensor<6x4xi32>, tensor<2x3x2x2xi32>
    }"""
    t = np.random.default_rng(17).integers(-100, 100, (2, 3, 4)).astype(np.int32)
    x, d, flat, split = run(text, t, np.int64(3))
    assert x == t[1, 2, 3] and d == 4
    np.testing.assert_array_equal(flat, t.reshape(6, 4))
    np.testing.assert_array_equal(split, t.reshape(2, 3, 2, 2))
    with pytest.raises(InterpreterError, match=r"'tensor.extract' at line 6: index \[1, 2, 4\]"):
        run(text, t, np.int64(4))


def test_pad_with_a_constant_and_with_an_index_function():
    text = """
    func.func @main(%t: tensor<2x3xf32>, %n: index) -> (tensor<5x?xf32>, tensor<3x3xf32>) {
      %zero = arith.constant -1.0 : f32
      %p = tensor.pad %t low[1, %n] high[2, 0] {
      ^bb0(%i: index, %j: index):
        tensor.yield %zero : f32
      } : tensor<2x3xf32> to tensor<5x?xf32>
      %q = tensor.pad %t low[0, 0] high[1, 0] {
      ^bb0(%i: index, %j: index):
        %ij = arith.addi %i, %j : index
        %k = arith.index_cast %ij : index to i32
        %f = arith.sitofp %k : i32 to f32
        tensor.yield %f : f32
      } : tensor<2x3xf32> to tensor<3x3xf32>
      return %p, %q : tensor<5x?xf32>, tensor<3x3xf32>
    }"""
    t = np.random.default_rng(18).standard_normal((2, 3)).astype(np.float32)
    padded, indexed = run(text, t, np.int64(2))
    np.testing.assert_array_equal(padded, np.pad(t, ((1, 2), (2, 0)), constant_values=-1.0))
    np.testing.assert_array_equal(indexed[:2], t)
    np.testing.assert_array_equal(indexed[2], [2.0, 3.0, 4.0])


def test_from_elements_generate_and_concat_in_generic_form():
    text = """
    func.func @main(%a: f32, %b: f32, %n: index)
        -> (tensor<2xf32>, tensor<?xindex>, tensor<4xf32>) {
      %t = "tensor.from_elements"(%a, %b) : (f32, f32) -> tensor<2xf32>
      %g = "tensor.generate"(%n) ({
      ^bb0(%i: index):
        %sq = arith.muli %i, %i : index
        tensor.yield %sq : index
      }) : (index) -> tensor<?xindex>
      %c = "tensor.concat"(%t, %t) <{dim = 0 : i64}>
          : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
      return %t, %g, %c : tensor<2xf32>, tensor<?xindex>, tensor<4xf32>
    }"""
    pair, squares, joined = run(text, np.float32(1.5), np.float32(-2.0), np.int64(5))
    np.testing.assert_array_equal(pair, [1.5, -2.0])
    np.testing.assert_array_equal(squares, [0, 1, 4, 9, 16])
    np.testing.assert_array_equal(joined, [1.5, -2.0, 1.5, -2.0])


EMPTY_READ = """
func.func @main(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<2xf32>
  %t = tensor.insert %x into %e[%c0] : tensor<2xf32>
  %ok = tensor.extract %t[%c0] : tensor<2xf32>
  %bad = tensor.extract %t[%c1] : tensor<2xf32>
  return %bad : f32
}"""


def test_reading_an_element_of_tensor_empty_is_an_error():
    with pytest.raises(
        InterpreterError,
        match=r"'tensor.extract' at line 8: reads %t\[1\], which was never written",
    ):
        run(EMPTY_READ, np.float32(1.0))


def test_computing_on_an_uninitialised_tensor_is_an_error():
    text = """
    func.func @main() -> tensor<2xf32> {
      %e = tensor.empty() : tensor<2xf32>
      %r = arith.addf %e, %e : tensor<2xf32>
      return %r : tensor<2xf32>
    }"""
    with pytest.raises(
        InterpreterError,
        match=r"'arith.addf' at line 4: reads operand #0 \(%e\), a tensor whose element \[0\] "
        "was never written",
    ):
        run(text)


def test_returning_an_uninitialised_tensor_is_an_error():
    text = """
    func.func @main() -> tensor<2xf32> {
      %e = tensor.empty() : tensor<2xf32>
      return %e : tensor<2xf32>
    }"""
    with pytest.raises(
        InterpreterError, match=r"result #0 of @main is a tensor whose element \[0\]"
    ):
        run(text)


def test_filling_a_tensor_empty_by_slices_makes_it_whole():
    text = """
    func.func @main(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<4x4xf32> {
      %e = tensor.empty() : tensor<4x4xf32>
      %top = tensor.insert_slice %a into %e[0, 0] [2, 4] [1, 1]
          : tensor<2x4xf32> into tensor<4x4xf32>
      %all = tensor.insert_slice %b into %top[2, 0] [2, 4] [1, 1]
          : tensor<2x4xf32> into tensor<4x4xf32>
      %r = arith.addf %all, %all : tensor<4x4xf32>
      return %r : tensor<4x4xf32>
    }"""
    rng = np.random.default_rng(19)
    a, b = (
        rng.standard_normal((2, 4)).astype(np.float32),
        rng.standard_normal((2, 4)).astype(np.float32),
    )
    np.testing.assert_array_equal(run(text, a, b), 2 * np.concatenate([a, b]))


def test_bufferization_boundary_ops():
    text = """
    func.func @main(%m: memref<3xf32>, %t: tensor<3xf32>) -> tensor<3xf32> {
      %old = "bufferization.to_tensor"(%m) <{restrict}> : (memref<3xf32>) -> tensor<3xf32>
      "bufferization.materialize_in_destination"(%t, %m) <{restrict, writable}>
          : (tensor<3xf32>, memref<3xf32>) -> ()
      %buffer = "bufferization.to_buffer"(%old) : (tensor<3xf32>) -> memref<3xf32>
      %c0 = arith.constant 0 : index
      %x = arith.constant 9.0 : f32
      memref.store %x, %buffer[%c0] : memref<3xf32>
      %back = "bufferization.to_tensor"(%buffer) : (memref<3xf32>) -> tensor<3xf32>
      return %back : tensor<3xf32>
    }"""
    m = np.array([1.0, 2.0, 3.0], np.float32)
    t = np.array([4.0, 5.0, 6.0], np.float32)
    result = run(text, m, t)
    np.testing.assert_array_equal(m, t)  # materialized into the caller's memref
    np.testing.assert_array_equal(result, [9.0, 2.0, 3.0])
