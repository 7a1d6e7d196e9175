"""memref views against numpy slicing, and the memory errors an oracle must catch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interp.helpers import run
from tinycomp.interp import InterpreterError


def layout(strides, offset) -> str:
    return f"strided<[{', '.join(map(str, strides))}], offset: {offset}>"


@st.composite
def nested_slices(draw):
    """A 2-d shape and two nested (offsets, sizes, strides) slices inside it."""
    shape = (draw(st.integers(2, 12)), draw(st.integers(2, 12)))
    slices, current = [], shape
    for _ in range(2):
        offsets, sizes, steps = [], [], []
        for extent in current:
            step = draw(st.integers(1, 3))
            offset = draw(st.integers(0, extent - 1))
            size = draw(st.integers(1, (extent - 1 - offset) // step + 1))
            offsets.append(offset)
            sizes.append(size)
            steps.append(step)
        slices.append((offsets, sizes, steps))
        current = tuple(sizes)
    return shape, slices


@settings(max_examples=40, deadline=None)
@given(nested_slices(), st.integers(0, 2**32 - 1))
def test_subview_of_subview_matches_numpy_slicing(case, seed):
    shape, slices = case
    strides, offset = [shape[1], 1], 0
    lines, source, source_type = [], "%A", f"memref<{shape[0]}x{shape[1]}xf32>"
    for number, (offsets, sizes, steps) in enumerate(slices):
        offset += sum(o * s for o, s in zip(offsets, strides, strict=True))
        strides = [s * k for s, k in zip(strides, steps, strict=True)]
        view_type = f"memref<{sizes[0]}x{sizes[1]}xf32, {layout(strides, offset)}>"
        lines.append(
            f"  %v{number} = memref.subview {source}[{offsets[0]}, {offsets[1]}] "
            f"[{sizes[0]}, {sizes[1]}] [{steps[0]}, {steps[1]}] : {source_type} to {view_type}"
        )
        source, source_type = f"%v{number}", view_type
    final = slices[-1][1]
    text = (
        f"func.func @main(%A: memref<{shape[0]}x{shape[1]}xf32>, "
        f"%out: memref<{final[0]}x{final[1]}xf32>, %x: f32) {{\n" + "\n".join(lines) + "\n"
        f"  memref.copy {source}, %out : {source_type} to memref<{final[0]}x{final[1]}xf32>\n"
        f"  linalg.fill ins(%x : f32) outs({source} : {source_type})\n"
        "  return\n}"
    )
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    expected_copy = nested_view(a, slices).copy()
    expected_after = a.copy()
    nested_view(expected_after, slices)[...] = 7.0
    out = np.zeros(final, np.float32)
    argument = a.copy()
    run(text, argument, out, np.float32(7.0))
    np.testing.assert_array_equal(out, expected_copy)
    np.testing.assert_array_equal(argument, expected_after)  # the fill wrote through both views


def nested_view(array: np.ndarray, slices) -> np.ndarray:
    """numpy's view for a chain of (offsets, sizes, strides) slices."""
    for offsets, sizes, steps in slices:
        array = array[
            offsets[0] : offsets[0] + sizes[0] * steps[0] : steps[0],
            offsets[1] : offsets[1] + sizes[1] * steps[1] : steps[1],
        ]
    return array


def test_views_reinterpret_collapse_expand_transpose():
    text = """
    func.func @main(%A: memref<4x6xf32>) -> (f32, f32, f32, f32) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %r = memref.reinterpret_cast %A to offset: [2], sizes: [3, 4], strides: [6, 1]
          : memref<4x6xf32> to memref<3x4xf32, strided<[6, 1], offset: 2>>
      %a = memref.load %r[%c1, %c2] : memref<3x4xf32, strided<[6, 1], offset: 2>>
      %flat = memref.collapse_shape %A [[0, 1]] : memref<4x6xf32> into memref<24xf32>
      %b = memref.load %flat[%c5] : memref<24xf32>
      %split = memref.expand_shape %A [[0], [1, 2]] output_shape [4, 3, 2]
          : memref<4x6xf32> into memref<4x3x2xf32>
      %c = memref.load %split[%c2, %c2, %c1] : memref<4x3x2xf32>
      %t = "memref.transpose"(%A) <{permutation = affine_map<(d0, d1) -> (d1, d0)>}>
          : (memref<4x6xf32>) -> memref<6x4xf32, strided<[1, 6]>>
      %d = memref.load %t[%c5, %c1] : memref<6x4xf32, strided<[1, 6]>>
      return %a, %b, %c, %d : f32, f32, f32, f32
    }"""
    a = np.random.default_rng(15).standard_normal((4, 6)).astype(np.float32)
    got = run(text, a)
    flat = a.reshape(-1)
    assert got == (flat[2 + 6 + 2], flat[5], a.reshape(4, 3, 2)[2, 2, 1], a.T[5, 1])


def test_memref_arguments_are_written_in_place_even_when_strided():
    text = """
    func.func @main(%m: memref<3x4xf32, strided<[?, ?], offset: ?>>, %x: f32) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      memref.store %x, %m[%c1, %c2] : memref<3x4xf32, strided<[?, ?], offset: ?>>
      return
    }"""
    big = np.zeros((6, 8), np.float32)
    view = big[1:4, ::2]
    run(text, view, np.float32(5.0))
    assert big[2, 4] == 5.0 and big.sum() == 5.0


def test_an_identity_memref_needs_a_contiguous_array():
    text = "func.func @main(%m: memref<3x4xf32>) {\n  return\n}"
    with pytest.raises(InterpreterError, match="argument %m of @main: expected a memref<3x4xf32>"):
        run(text, np.zeros((6, 8), np.float32)[1:4, ::2])


def test_tensor_arguments_are_never_changed():
    text = """
    func.func @main(%t: tensor<4xf32>, %x: f32) -> tensor<4xf32> {
      %c0 = arith.constant 0 : index
      %r = tensor.insert %x into %t[%c0] : tensor<4xf32>
      return %r : tensor<4xf32>
    }"""
    t = np.arange(4, dtype=np.float32)
    result = run(text, t, np.float32(9.0))
    np.testing.assert_array_equal(t, np.arange(4, dtype=np.float32))
    assert result[0] == 9.0 and result.flags.writeable


LOAD_OOB = """
func.func @main(%A: memref<4x8xf32>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %A[%i, %c0] : memref<4x8xf32>
  return %v : f32
}"""


def test_out_of_bounds_load_names_op_index_and_shape():
    a = np.zeros((4, 8), np.float32)
    with pytest.raises(InterpreterError) as error:
        run(LOAD_OOB, a, np.int64(4))
    message = str(error.value)
    assert "'memref.load' at line 4" in message
    assert "index [4, 0] is out of bounds for %A (shape 4x8)" in message
    with pytest.raises(InterpreterError, match=r"index \[-1, 0\]"):
        run(LOAD_OOB, a, np.int64(-1))


def test_out_of_bounds_store_through_a_view():
    text = """
    func.func @main(%A: memref<4x8xf32>, %x: f32) {
      %c2 = arith.constant 2 : index
      %v = memref.subview %A[1, 1] [2, 2] [1, 1]
          : memref<4x8xf32> to memref<2x2xf32, strided<[8, 1], offset: 9>>
      memref.store %x, %v[%c2, %c2] : memref<2x2xf32, strided<[8, 1], offset: 9>>
      return
    }"""
    with pytest.raises(
        InterpreterError, match=r"'memref.store' at line 6: index \[2, 2\] .*shape 2x2"
    ):
        run(text, np.zeros((4, 8), np.float32), np.float32(1.0))


def test_subview_outside_its_source_is_an_error():
    text = """
    func.func @main(%A: memref<4x8xf32>, %row: index) {
      %v = memref.subview %A[%row, 0] [2, 8] [1, 1]
          : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
      return
    }"""
    run(text, np.zeros((4, 8), np.float32), np.int64(2))
    with pytest.raises(InterpreterError, match="out of bounds for %A .*dimension 0 reaches 3..4"):
        run(text, np.zeros((4, 8), np.float32), np.int64(3))


def test_reading_uninitialised_memory_is_an_error():
    text = """
    func.func @main() -> f32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %x = arith.constant 1.0 : f32
      %m = memref.alloc() : memref<2xf32>
      memref.store %x, %m[%c0] : memref<2xf32>
      %ok = memref.load %m[%c0] : memref<2xf32>
      %bad = memref.load %m[%c1] : memref<2xf32>
      return %bad : f32
    }"""
    with pytest.raises(InterpreterError) as error:
        run(text)
    assert "'memref.load' at line 9: reads %m[1], which was never written" in str(error.value)
    assert "memref.alloc at line 6" in str(error.value)


def test_use_after_free_and_double_free():
    use = """
    func.func @main() -> f32 {
      %c0 = arith.constant 0 : index
      %x = arith.constant 1.0 : f32
      %m = memref.alloc() : memref<2xf32>
      memref.store %x, %m[%c0] : memref<2xf32>
      memref.dealloc %m : memref<2xf32>
      %v = memref.load %m[%c0] : memref<2xf32>
      return %v : f32
    }"""
    with pytest.raises(
        InterpreterError,
        match=r"'memref.load' at line 8: uses %m after it was freed.*memref.dealloc at line 7",
    ):
        run(use)
    twice = """
    func.func @main() {
      %m = memref.alloc() : memref<2xf32>
      memref.dealloc %m : memref<2xf32>
      memref.dealloc %m : memref<2xf32>
      return
    }"""
    with pytest.raises(InterpreterError, match="frees %m twice"):
        run(twice)


def test_freeing_the_callers_memory_is_an_error():
    text = "func.func @main(%m: memref<2xf32>) {\n  memref.dealloc %m : memref<2xf32>\n  return\n}"
    with pytest.raises(InterpreterError, match="did not allocate"):
        run(text, np.zeros(2, np.float32))


def test_alloca_memory_dies_with_its_function():
    text = """
    func.func @make() -> memref<2xf32> {
      %c0 = arith.constant 0 : index
      %x = arith.constant 1.0 : f32
      %m = memref.alloca() : memref<2xf32>
      memref.store %x, %m[%c0] : memref<2xf32>
      return %m : memref<2xf32>
    }
    func.func @main() -> f32 {
      %c0 = arith.constant 0 : index
      %m = call @make() : () -> memref<2xf32>
      %v = memref.load %m[%c0] : memref<2xf32>
      return %v : f32
    }"""
    with pytest.raises(InterpreterError, match="after it was freed .*return from @make"):
        run(text)


def test_globals_constant_and_mutable():
    text = """
    memref.global "private" constant @weights : memref<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]>
    memref.global "private" @state : memref<2xi32> = dense<0>
    func.func @main() -> (f32, i32) {
      %c1 = arith.constant 1 : index
      %w = memref.get_global @weights : memref<2x2xf32>
      %v = memref.load %w[%c1, %c1] : memref<2x2xf32>
      %s = memref.get_global @state : memref<2xi32>
      %seven = arith.constant 7 : i32
      memref.store %seven, %s[%c1] : memref<2xi32>
      %again = memref.get_global @state : memref<2xi32>
      %r = memref.load %again[%c1] : memref<2xi32>
      return %v, %r : f32, i32
    }"""
    assert run(text) == (4.0, 7)
    constant_store = text.replace(
        "memref.store %seven, %s[%c1] : memref<2xi32>",
        "%f = arith.constant 0.0 : f32\n      memref.store %f, %w[%c1, %c1] : memref<2x2xf32>",
    )
    with pytest.raises(InterpreterError, match="writes to %w, which is constant"):
        run(constant_store)


def test_returned_memrefs_come_back_as_arrays():
    text = """
    func.func @main(%x: f32) -> memref<3xf32> {
      %m = memref.alloc() : memref<3xf32>
      linalg.fill ins(%x : f32) outs(%m : memref<3xf32>)
      return %m : memref<3xf32>
    }"""
    np.testing.assert_array_equal(run(text, np.float32(2.0)), np.full(3, 2.0, np.float32))
    partly = text.replace("linalg.fill ins(%x : f32) outs(%m : memref<3xf32>)", "")
    with pytest.raises(
        InterpreterError, match=r"result #0 of @main is a memref whose element \[0\]"
    ):
        run(partly, np.float32(2.0))


def test_memref_copy_rejects_overlap():
    text = """
    func.func @main(%A: memref<8xf32>) {
      %a = memref.subview %A[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
      %b = memref.subview %A[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
      memref.copy %a, %b : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[1], offset: 2>>
      return
    }"""
    with pytest.raises(InterpreterError, match="overlap"):
        run(text, np.zeros(8, np.float32))


def test_memref_copy_of_a_window_onto_itself_does_nothing():
    text = """
    func.func @main(%A: memref<8xf32>) {
      %a = memref.subview %A[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
      %b = memref.subview %A[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
      memref.copy %a, %b : memref<4xf32, strided<[1], offset: 2>>
                        to memref<4xf32, strided<[1], offset: 2>>
      return
    }"""
    values = np.random.default_rng(3).standard_normal(8).astype(np.float32)
    array = values.copy()
    run(text, array)
    np.testing.assert_array_equal(array, values)
