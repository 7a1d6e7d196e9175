"""linalg semantics: the vectorized path against the scalar one, linalg.index, aliasing,
uninitialised outputs, errors in bodies, and the named ops."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interp import kernels
from interp.helpers import DTYPES, both_paths, rng_for, run, sequential_matmul
from tinycomp.interp import InterpreterError
from tinycomp.interp.rules.linalg import named_problem, split_ins_outs
from tinycomp.ir import parse


@pytest.mark.parametrize("type_name", ["f32", "f16", "bf16"])
def test_vectorized_and_scalar_paths_agree_exactly(type_name):
    dtype = DTYPES[type_name]
    rng = rng_for("paths", type_name)
    a, b = rng.standard_normal((5, 7)).astype(dtype), rng.standard_normal((7, 4)).astype(dtype)
    fast, slow, _ = both_paths(kernels.matmul_tensors(5, 4, 7, type_name), a, b)
    np.testing.assert_array_equal(fast, slow)
    x = rng.standard_normal((3, 9)).astype(dtype)
    fast, slow, _ = both_paths(kernels.softmax_tensors(3, 9, type_name), x)
    np.testing.assert_array_equal(fast, slow)
    g, beta = rng.standard_normal(9).astype(dtype), rng.standard_normal(9).astype(dtype)
    fast, slow, _ = both_paths(kernels.layernorm_tensors(3, 9, type_name), x, g, beta)
    np.testing.assert_array_equal(fast, slow)


def test_vectorized_and_scalar_conv_on_memrefs_agree_exactly():
    rng = rng_for("paths conv")
    padded = rng.standard_normal((1, 7, 7, 2)).astype(np.float32)
    kernel = rng.standard_normal((3, 3, 2, 3)).astype(np.float32)
    out = rng.standard_normal((1, 3, 3, 3)).astype(np.float32)
    text = kernels.conv_memrefs(padded.shape, kernel.shape, out.shape, 2)
    fast_out, slow_out = out.copy(), out.copy()
    run(text, padded, kernel, fast_out)
    run(text, padded, kernel, slow_out, vectorize_linalg=False)
    np.testing.assert_array_equal(fast_out, slow_out)


LINALG_INDEX = """
func.func @main(%t: tensor<4x6xi32>) -> tensor<4x6xi32> {
  %c10 = arith.constant 10 : index
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<4x6xi32>) outs(%t : tensor<4x6xi32>) {
  ^bb0(%x: i32, %o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.muli %i, %c10 : index
    %ij = arith.addi %k, %j : index
    %v = arith.index_cast %ij : index to i32
    %r = arith.addi %v, %x : i32
    linalg.yield %r : i32
  } -> tensor<4x6xi32>
  return %r : tensor<4x6xi32>
}"""


def test_linalg_index_on_both_paths():
    t = rng_for("index").integers(-50, 50, (4, 6)).astype(np.int32)
    fast, slow, _ = both_paths(LINALG_INDEX, t)
    expected = t + (10 * np.arange(4)[:, None] + np.arange(6)[None, :]).astype(np.int32)
    np.testing.assert_array_equal(fast, expected)
    np.testing.assert_array_equal(slow, expected)


def test_in_place_memref_update_follows_the_loop_order():
    """A[i + 1] = 2 * A[i] through two views of one buffer: each step reads what the
    previous one wrote (the scalar path runs, as aliasing requires)."""
    text = """
    func.func @main(%A: memref<6xf32>) {
      %two = arith.constant 2.0 : f32
      %src = memref.subview %A[0] [5] [1] : memref<6xf32> to memref<5xf32, strided<[1]>>
      %dst = memref.subview %A[1] [5] [1] : memref<6xf32> to memref<5xf32, strided<[1], offset: 1>>
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                      iterator_types = ["parallel"]}
          ins(%src : memref<5xf32, strided<[1]>>)
          outs(%dst : memref<5xf32, strided<[1], offset: 1>>) {
      ^bb0(%x: f32, %y: f32):
        %r = arith.mulf %x, %two : f32
        linalg.yield %r : f32
      }
      return
    }"""
    a = np.array([1.5, 9.0, 9.0, 9.0, 9.0, 9.0], np.float32)
    run(text, a)
    np.testing.assert_array_equal(a, 1.5 * 2.0 ** np.arange(6, dtype=np.float32))


def test_an_output_shared_by_several_points_keeps_the_last_write():
    text = """
    func.func @main(%x: tensor<3x4xf32>, %o: tensor<3xf32>) -> tensor<3xf32> {
      %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                            affine_map<(i, j) -> (i)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%x : tensor<3x4xf32>) outs(%o : tensor<3xf32>) {
      ^bb0(%a: f32, %b: f32):
        linalg.yield %a : f32
      } -> tensor<3xf32>
      return %r : tensor<3xf32>
    }"""
    x = rng_for("last write").standard_normal((3, 4)).astype(np.float32)
    fast, slow, _ = both_paths(text, x, np.ones(3, np.float32))
    np.testing.assert_array_equal(fast, x[:, -1])
    np.testing.assert_array_equal(slow, x[:, -1])


def test_reading_an_unfilled_output_is_an_error_on_both_paths():
    text = (
        kernels.MATMUL_MAPS
        + """
    func.func @main(%A: tensor<2x3xf32>, %B: tensor<3x2xf32>) -> tensor<2x2xf32> {
      %empty = tensor.empty() : tensor<2x2xf32>
      %R = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c],
                           iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%A, %B : tensor<2x3xf32>, tensor<3x2xf32>) outs(%empty : tensor<2x2xf32>) {
      ^bb0(%a: f32, %b: f32, %c: f32):
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        linalg.yield %s : f32
      } -> tensor<2x2xf32>
      return %R : tensor<2x2xf32>
    }"""
    )
    a, b = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
    for vectorize in (True, False):
        with pytest.raises(
            InterpreterError,
            match=r"'linalg.generic' at line \d+: reads %empty\[0, 0\], which was never written",
        ):
            run(text, a, b, vectorize_linalg=vectorize)


def test_an_error_in_the_body_names_the_inner_op_and_the_linalg_op():
    text = """
    func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
      %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                            affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]}
          ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%a : tensor<4xi32>) {
      ^bb0(%x: i32, %y: i32, %o: i32):
        %q = arith.divsi %x, %y : i32
        linalg.yield %q : i32
      } -> tensor<4xi32>
      return %r : tensor<4xi32>
    }"""
    with pytest.raises(InterpreterError) as error:
        run(text, np.ones(4, np.int32), np.array([1, 2, 0, 4], np.int32))
    assert "'arith.divsi' at line 8: division by zero" in str(error.value)
    assert "in the body of 'linalg.generic' at line 3" in str(error.value)
    with pytest.raises(InterpreterError, match=r"at the loop point \(d0\) = \(2\)"):
        run(text, np.ones(4, np.int32), np.array([1, 2, 0, 4], np.int32), vectorize_linalg=False)


# -- named ops ---------------------------------------------------------------------------------
def test_named_matmul_with_mixed_precision():
    text = """
    func.func @main(%a: tensor<6x10xf16>, %b: tensor<10x5xf16>, %c: tensor<6x5xf32>)
        -> tensor<6x5xf32> {
      %r = linalg.matmul ins(%a, %b : tensor<6x10xf16>, tensor<10x5xf16>)
                         outs(%c : tensor<6x5xf32>) -> tensor<6x5xf32>
      return %r : tensor<6x5xf32>
    }"""
    rng = rng_for("named matmul")
    a = rng.standard_normal((6, 10)).astype(np.float16)
    b = rng.standard_normal((10, 5)).astype(np.float16)
    c = rng.standard_normal((6, 5)).astype(np.float32)
    result = run(text, a, b, c)
    np.testing.assert_array_equal(
        result, sequential_matmul(a.astype(np.float32), b.astype(np.float32), c)
    )


def test_named_batch_matmul_on_memrefs():
    text = """
    func.func @main(%a: memref<3x4x5xf32>, %b: memref<3x5x2xf32>, %c: memref<3x4x2xf32>) {
      linalg.batch_matmul ins(%a, %b : memref<3x4x5xf32>, memref<3x5x2xf32>)
                          outs(%c : memref<3x4x2xf32>)
      return
    }"""
    rng = rng_for("batch matmul")
    a, b = (
        rng.standard_normal((3, 4, 5)).astype(np.float32),
        rng.standard_normal((3, 5, 2)).astype(np.float32),
    )
    c = rng.standard_normal((3, 4, 2)).astype(np.float32)
    expected = c + np.einsum("bik,bkj->bij", a.astype(np.float64), b.astype(np.float64))
    run(text, a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def test_named_conv_with_strides_and_dilations():
    text = """
    func.func @main(%i: tensor<1x11x11x2xf32>, %k: tensor<3x3x2x4xf32>, %o: tensor<1x4x4x4xf32>)
        -> tensor<1x4x4x4xf32> {
      %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>,
                                     strides = dense<2> : tensor<2xi64>}
          ins(%i, %k : tensor<1x11x11x2xf32>, tensor<3x3x2x4xf32>)
          outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
      return %r : tensor<1x4x4x4xf32>
    }"""
    rng = rng_for("named conv")
    image = rng.standard_normal((1, 11, 11, 2)).astype(np.float32)
    kernel = rng.standard_normal((3, 3, 2, 4)).astype(np.float32)
    out = rng.standard_normal((1, 4, 4, 4)).astype(np.float32)
    expected = out.astype(np.float64)
    for kh in range(3):
        for kw in range(3):
            window = image[:, 2 * kh : 2 * kh + 8 : 2, 2 * kw : 2 * kw + 8 : 2, :].astype(
                np.float64
            )
            expected = expected + np.einsum(
                "nhwc,cf->nhwf", window, kernel[kh, kw].astype(np.float64)
            )
    np.testing.assert_allclose(run(text, image, kernel, out), expected, rtol=1e-5, atol=1e-5)


def test_named_fill_transpose_broadcast_reduce_map():
    text = """
    func.func @main(%x: tensor<2x3x4xf32>, %v: tensor<3xf32>, %s: f32)
        -> (tensor<4x2x3xf32>, tensor<3x5xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>) {
      %e1 = tensor.empty() : tensor<4x2x3xf32>
      %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e1 : tensor<4x2x3xf32>)
          permutation = [2, 0, 1]
      %e2 = tensor.empty() : tensor<3x5xf32>
      %b = linalg.broadcast ins(%v : tensor<3xf32>) outs(%e2 : tensor<3x5xf32>) dimensions = [1]
      %e3 = tensor.empty() : tensor<2x4xf32>
      %lowest = arith.constant 0xFF800000 : f32
      %init = linalg.fill ins(%lowest : f32) outs(%e3 : tensor<2x4xf32>) -> tensor<2x4xf32>
      %r = linalg.reduce ins(%x : tensor<2x3x4xf32>) outs(%init : tensor<2x4xf32>) dimensions = [1]
        (%in: f32, %acc: f32) {
          %m = arith.maximumf %in, %acc : f32
          linalg.yield %m : f32
        }
      %e4 = tensor.empty() : tensor<2x3x4xf32>
      %filled = linalg.fill ins(%s : f32) outs(%e4 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      %mapped = linalg.map { arith.mulf } ins(%x, %filled : tensor<2x3x4xf32>, tensor<2x3x4xf32>)
          outs(%e4 : tensor<2x3x4xf32>)
      return %t, %b, %r, %mapped
          : tensor<4x2x3xf32>, tensor<3x5xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>
    }"""
    rng = rng_for("named misc")
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    v = rng.standard_normal(3).astype(np.float32)
    transposed, broadcast, reduced, mapped = run(text, x, v, np.float32(1.5))
    np.testing.assert_array_equal(transposed, np.transpose(x, (2, 0, 1)))
    np.testing.assert_array_equal(broadcast, np.broadcast_to(v[:, None], (3, 5)))
    np.testing.assert_array_equal(reduced, x.max(axis=1))
    np.testing.assert_array_equal(mapped, x * np.float32(1.5))


def test_named_op_in_mlir_generic_form_runs_its_own_region():
    """What ``mlir-opt --mlir-print-op-generic`` prints for a linalg.matmul."""
    text = """
    "builtin.module"() ({
      "func.func"() <{function_type = (tensor<3x4xf32>, tensor<4x2xf32>, tensor<3x2xf32>)
          -> tensor<3x2xf32>, sym_name = "main"}> ({
      ^bb0(%arg0: tensor<3x4xf32>, %arg1: tensor<4x2xf32>, %arg2: tensor<3x2xf32>):
        %0 = "linalg.matmul"(%arg0, %arg1, %arg2) <{indexing_maps = [
            affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>,
            affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>}> ({
        ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
          %1 = "arith.mulf"(%arg3, %arg4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %2 = "arith.addf"(%arg5, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "linalg.yield"(%2) : (f32) -> ()
        }) : (tensor<3x4xf32>, tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
        "func.return"(%0) : (tensor<3x2xf32>) -> ()
      }) : () -> ()
    }) : () -> ()"""
    rng = rng_for("generic form")
    a, b = (
        rng.standard_normal((3, 4)).astype(np.float32),
        rng.standard_normal((4, 2)).astype(np.float32),
    )
    c = rng.standard_normal((3, 2)).astype(np.float32)
    np.testing.assert_array_equal(run(text, a, b, c), sequential_matmul(a, b, c))


def test_an_indexing_map_reaching_outside_an_operand_is_reported():
    text = """
    func.func @main(%x: tensor<4xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
      %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]}
          ins(%x : tensor<4xf32>) outs(%o : tensor<4xf32>) {
      ^bb0(%a: f32, %b: f32):
        linalg.yield %a : f32
      } -> tensor<4xf32>
      return %r : tensor<4xf32>
    }"""
    for vectorize in (True, False):
        with pytest.raises(InterpreterError, match=r"reads %x\[4\], out of bounds for shape 4"):
            run(
                text,
                np.ones(4, np.float32),
                np.ones(4, np.float32),
                vectorize_linalg=vectorize,
                verify=False,
            )


@st.composite
def contractions(draw):
    """A contraction over three loops in a random order: out[i, j] += x[i, k] * y[k, j],
    with the loops (i, j, k) appearing as (d_a, d_b, d_c) for a random permutation."""
    order = draw(st.permutations([0, 1, 2]))
    sizes = [draw(st.integers(1, 5)) for _ in range(3)]
    return order, sizes


@settings(max_examples=25, deadline=None)
@given(contractions(), st.integers(0, 2**32 - 1))
def test_random_loop_orders_agree_on_both_paths(case, seed):
    (i, j, k), (m, n, p) = case
    kinds = ["parallel"] * 3
    kinds[k] = "reduction"
    d = [f"d{position}" for position in (i, j, k)]
    text = f"""
    func.func @main(%x: tensor<{m}x{p}xf16>, %y: tensor<{p}x{n}xf16>, %o: tensor<{m}x{n}xf16>)
        -> tensor<{m}x{n}xf16> {{
      %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> ({d[0]}, {d[2]})>,
                                            affine_map<(d0, d1, d2) -> ({d[2]}, {d[1]})>,
                                            affine_map<(d0, d1, d2) -> ({d[0]}, {d[1]})>],
                           iterator_types = ["{kinds[0]}", "{kinds[1]}", "{kinds[2]}"]}}
          ins(%x, %y : tensor<{m}x{p}xf16>, tensor<{p}x{n}xf16>) outs(%o : tensor<{m}x{n}xf16>) {{
      ^bb0(%a: f16, %b: f16, %c: f16):
        %t = arith.mulf %a, %b : f16
        %s = arith.addf %c, %t : f16
        linalg.yield %s : f16
      }} -> tensor<{m}x{n}xf16>
      return %r : tensor<{m}x{n}xf16>
    }}"""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, p)).astype(np.float16)
    y = rng.standard_normal((p, n)).astype(np.float16)
    o = rng.standard_normal((m, n)).astype(np.float16)
    fast, slow, _ = both_paths(text, x, y, o)
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_array_equal(fast, sequential_matmul(x, y, o))


def test_named_ops_without_a_body_get_one_built():
    """Ops no class registers yet, in generic form with an empty region: the interpreter's
    own table gives their maps and builds their bodies."""
    text = """
    func.func @main(%x: tensor<4x3xf32>, %v: tensor<3xf32>, %w: tensor<3xf32>, %o: tensor<4xf32>,
                    %s: tensor<f32>, %y: tensor<4x3xf32>)
        -> (tensor<4xf32>, tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
      %mv = "linalg.matvec"(%x, %v, %o) <{operandSegmentSizes = array<i32: 2, 1>}> ({
      }) : (tensor<4x3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
      %d = "linalg.dot"(%v, %w, %s) <{operandSegmentSizes = array<i32: 2, 1>}> ({
      }) : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<f32>
      %a = "linalg.add"(%x, %y, %y) <{operandSegmentSizes = array<i32: 2, 1>}> ({
      }) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
      %e = "linalg.exp"(%x, %y) <{operandSegmentSizes = array<i32: 1, 1>}> ({
      }) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
      %c = "linalg.copy"(%x, %y) <{operandSegmentSizes = array<i32: 1, 1>}> ({
      }) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
      return %mv, %d, %a, %e, %c
          : tensor<4xf32>, tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
    }"""
    rng = rng_for("bodiless")
    x, y = (
        rng.standard_normal((4, 3)).astype(np.float32),
        rng.standard_normal((4, 3)).astype(np.float32),
    )
    v, w = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    o, s = rng.standard_normal(4).astype(np.float32), np.array(rng.standard_normal(), np.float32)
    matvec, dot, added, exp, copied = run(text, x, v, w, o, s, y)
    np.testing.assert_allclose(matvec, o + x.astype(np.float64) @ v, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(dot, s + v.astype(np.float64) @ w, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(added, x + y)
    np.testing.assert_allclose(exp, np.exp(x.astype(np.float64)), rtol=1e-7)
    np.testing.assert_array_equal(copied, x)


@pytest.mark.parametrize(
    "op_text",
    [
        "linalg.matmul ins(%a, %b : tensor<4x5xf32>, tensor<5x6xf32>) outs(%c : tensor<4x6xf32>)"
        " -> tensor<4x6xf32>",
        "linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2,"
        " 1]> : tensor<2xi64>} ins(%i, %k : tensor<1x9x9x2xf32>, tensor<3x3x2x4xf32>)"
        " outs(%o : tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32>",
        "linalg.transpose ins(%t : tensor<2x3x4xf32>) outs(%u : tensor<4x2x3xf32>)"
        " permutation = [2, 0, 1]",
        "linalg.broadcast ins(%v : tensor<3xf32>) outs(%w : tensor<3x5xf32>) dimensions = [1]",
    ],
)
def test_the_interpreters_table_agrees_with_the_op_classes(op_text):
    """For ops whose class defines indexing_maps()/iterator_types(), the interpreter's own
    table (used for ops without a class) must say the same."""
    text = f"""
    func.func @f(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %c: tensor<4x6xf32>,
                 %i: tensor<1x9x9x2xf32>, %k: tensor<3x3x2x4xf32>, %o: tensor<1x4x5x4xf32>,
                 %t: tensor<2x3x4xf32>, %u: tensor<4x2x3xf32>, %v: tensor<3xf32>,
                 %w: tensor<3x5xf32>) {{
      %r = {op_text}
      return
    }}"""
    op = parse(text).body.first_op.regions[0].blocks[0].first_op
    shapes = [np.zeros([d for d in value.type.shape], np.float32) for value in op.operands]
    inputs, outputs = split_ins_outs(op, shapes)
    maps, iterators = named_problem(op, inputs, outputs)
    assert [m.simplify() for m in maps] == [m.simplify() for m in op.indexing_maps()]
    assert iterators == list(op.iterator_types())


def test_a_body_that_gathers_runs_on_the_scalar_path():
    """An embedding lookup: the body reads another tensor at a computed index
    (``tensor.extract`` is not elementwise, so the loop nest runs point by point)."""
    text = """
    func.func @main(%ids: tensor<3xindex>, %table: tensor<5x4xf32>) -> tensor<3x4xf32> {
      %e = tensor.empty() : tensor<3x4xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>,
                                            affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%ids : tensor<3xindex>) outs(%e : tensor<3x4xf32>) {
      ^bb0(%id: index, %o: f32):
        %j = linalg.index 1 : index
        %v = tensor.extract %table[%id, %j] : tensor<5x4xf32>
        linalg.yield %v : f32
      } -> tensor<3x4xf32>
      return %r : tensor<3x4xf32>
    }"""
    table = rng_for("gather").standard_normal((5, 4)).astype(np.float32)
    ids = np.array([4, 0, 2], np.int64)
    np.testing.assert_array_equal(run(text, ids, table), table[ids])
    with pytest.raises(InterpreterError, match=r"'tensor.extract' at line \d+: index \[5, 0\]"):
        run(text, np.array([5, 0, 2], np.int64), table)
