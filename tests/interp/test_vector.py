"""The vector dialect's interpreter rules, on random values, against numpy and real MLIR."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interp.helpers import BF16, DTYPES, random_floats
from interp.test_mlir_runner import LOWERING, requires_mlir_runner, run_with_mlir, runner_module
from tinycomp.interp import InterpreterError, interpret
from tinycomp.ir import parse

VECTOR_LOWERING = [*LOWERING[:3], "-convert-vector-to-llvm", *LOWERING[3:]]


def run(text: str, *args):
    return interpret(parse(text), *args)


# -- load and store ------------------------------------------------------------------------------
LOAD_STORE = """
func.func @main(%a: memref<5x12xf32>, %b: memref<5x12xf32>, %i: index, %j: index) {
  %row = vector.load %a[%i, %j] : memref<5x12xf32>, vector<6xf32>
  %box = vector.load %a[%i, %j] : memref<5x12xf32>, vector<2x3xf32>
  %c0 = arith.constant 0 : index
  vector.store %row, %b[%i, %j] : memref<5x12xf32>, vector<6xf32>
  vector.store %box, %b[%c0, %c0] : memref<5x12xf32>, vector<2x3xf32>
  return
}"""


@settings(max_examples=20, deadline=None)
@given(i=st.integers(0, 3), j=st.integers(0, 6))
def test_load_and_store_move_the_lanes_numpy_slices_name(i, j):
    rng = np.random.default_rng(i * 10 + j)
    a = random_floats(rng, (5, 12), DTYPES["f32"])
    b = random_floats(rng, (5, 12), DTYPES["f32"])
    expected = b.copy()
    expected[i, j : j + 6] = a[i, j : j + 6]
    expected[0:2, 0:3] = a[i : i + 2, j : j + 3]
    run(LOAD_STORE, a, b, i, j)
    np.testing.assert_array_equal(b, expected)


def test_load_through_a_strided_view():
    text = """
    func.func @main(%a: memref<6x10xf16>, %i: index) -> vector<4xf16> {
      %c1 = arith.constant 1 : index
      %view = memref.subview %a[1, 2] [4, 6] [1, 1]
          : memref<6x10xf16> to memref<4x6xf16, strided<[10, 1], offset: 12>>
      %v = vector.load %view[%i, %c1] : memref<4x6xf16, strided<[10, 1], offset: 12>>, vector<4xf16>
      return %v : vector<4xf16>
    }"""
    a = random_floats(np.random.default_rng(1), (6, 10), DTYPES["f16"])
    got = run(text, a, 2)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, a[3, 3:7])


def test_lanes_out_of_bounds_are_an_error():
    a, b = np.zeros((5, 12), np.float32), np.zeros((5, 12), np.float32)
    with pytest.raises(InterpreterError) as caught:
        run(LOAD_STORE, a, b, 1, 7)
    assert str(caught.value) == (
        "'vector.load' at line 3: reads lanes [1, 7 .. 12] of %a (shape 5x12), out of bounds "
        "in dimension 1: a vector of 6 lanes starting at 7 ends at 12, expected <= 11"
    )
    with pytest.raises(InterpreterError, match="out of bounds in dimension 0: a vector of 2"):
        run(LOAD_STORE, a, b, 4, 0)


def test_reading_uninitialised_lanes_is_an_error():
    text = """
    func.func @main() -> vector<4xf32> {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %zero = arith.constant 0.0 : f32
      %m = memref.alloc() : memref<8xf32>
      memref.store %zero, %m[%c0] : memref<8xf32>
      %v = vector.load %m[%c0] : memref<8xf32>, vector<4xf32>
      return %v : vector<4xf32>
    }"""
    with pytest.raises(InterpreterError, match=r"reads lane \[1\] of %m at index \[0\], which was"):
        run(text)


# -- broadcast, fma, elementwise ----------------------------------------------------------------
def test_broadcast_a_scalar_and_a_row():
    text = """
    func.func @main(%s: bf16, %row: vector<4xbf16>) -> (vector<8xbf16>, vector<3x4xbf16>) {
      %a = vector.broadcast %s : bf16 to vector<8xbf16>
      %b = vector.broadcast %row : vector<4xbf16> to vector<3x4xbf16>
      return %a, %b : vector<8xbf16>, vector<3x4xbf16>
    }"""
    row = random_floats(np.random.default_rng(2), 4, BF16)
    splat, rows = run(text, BF16.type(1.5), row)
    assert splat.dtype == BF16 and splat.shape == (8,) and (splat == BF16.type(1.5)).all()
    np.testing.assert_array_equal(rows, np.stack([row] * 3))


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_fma_rounds_once(dtype):
    text = f"""
    func.func @main(%a: vector<16x{dtype}>, %b: vector<16x{dtype}>, %c: vector<16x{dtype}>)
        -> vector<16x{dtype}> {{
      %r = vector.fma %a, %b, %c : vector<16x{dtype}>
      return %r : vector<16x{dtype}>
    }}"""
    rng = np.random.default_rng(3)
    a, b, c = (random_floats(rng, 16, DTYPES[dtype]) for _ in range(3))
    wide = [x.astype(np.float64) for x in (a, b, c)]
    expected = (wide[0] * wide[1] + wide[2]).astype(DTYPES[dtype])
    np.testing.assert_array_equal(run(text, a, b, c), expected)


def test_arith_and_math_run_lane_by_lane():
    text = """
    func.func @main(%a: vector<8xf32>, %b: vector<8xf32>) -> vector<8xf32> {
      %d = arith.subf %a, %b : vector<8xf32>
      %e = math.exp %d : vector<8xf32>
      %p = arith.cmpf ogt, %a, %b : vector<8xf32>
      %r = arith.select %p, %e, %b : vector<8xi1>, vector<8xf32>
      return %r : vector<8xf32>
    }"""
    rng = np.random.default_rng(4)
    a, b = random_floats(rng, 8, DTYPES["f32"]), random_floats(rng, 8, DTYPES["f32"])
    expected = np.where(a > b, np.exp((a - b).astype(np.float64)).astype(np.float32), b)
    np.testing.assert_array_equal(run(text, a, b), expected)


# -- reductions --------------------------------------------------------------------------------
FLOAT_KINDS = {
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "maximumf": lambda x, y: np.float32(np.nan) if np.isnan(x) or np.isnan(y) else max(x, y),
    "minimumf": lambda x, y: np.float32(np.nan) if np.isnan(x) or np.isnan(y) else min(x, y),
    "maxnumf": np.fmax,
    "minnumf": np.fmin,
}
INT_KINDS = {
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "maxsi": max,
    "minsi": min,
    "maxui": lambda x, y: x if x & 0xFFFFFFFF >= y & 0xFFFFFFFF else y,
    "minui": lambda x, y: x if x & 0xFFFFFFFF <= y & 0xFFFFFFFF else y,
    "and": lambda x, y: x & y,
    "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y,
}


def wrap32(value: int) -> int:
    """``value`` modulo 2**32, read as a signed i32."""
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


def reduction_function(kind: str, element: str, with_acc: bool) -> str:
    acc = f", %acc : vector<8x{element}> into {element}" if with_acc else ""
    tail = acc or f" : vector<8x{element}> into {element}"
    return f"""
    func.func @main(%v: vector<8x{element}>, %acc: {element}) -> {element} {{
      %r = vector.reduction <{kind}>, %v{tail}
      return %r : {element}
    }}"""


def sequential(combine, lanes, start=None):
    values = list(lanes)
    result = values.pop(0) if start is None else start
    for lane in values:
        result = combine(result, lane)
    return result


@pytest.mark.parametrize("with_acc", [False, True])
@pytest.mark.parametrize("kind", sorted(FLOAT_KINDS))
def test_float_reductions_fold_the_lanes_in_order(kind, with_acc):
    rng = np.random.default_rng(len(kind))
    lanes = random_floats(rng, 8, DTYPES["f32"])
    lanes[3] = np.float32(np.nan) if kind.endswith("numf") else lanes[3]
    acc = np.float32(rng.standard_normal())
    got = run(reduction_function(kind, "f32", with_acc), lanes, acc)
    with np.errstate(invalid="ignore"):
        expected = sequential(FLOAT_KINDS[kind], lanes, acc if with_acc else None)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.float32(expected))


@pytest.mark.parametrize("kind", sorted(INT_KINDS))
def test_integer_reductions_wrap_like_i32(kind):
    rng = np.random.default_rng(len(kind) + 100)
    lanes = rng.integers(-(2**31), 2**31, 8, dtype=np.int64).astype(np.int32)
    acc = np.int32(rng.integers(-(2**31), 2**31))
    got = run(reduction_function(kind, "i32", True), lanes, acc)
    expected = sequential(lambda x, y: wrap32(INT_KINDS[kind](x, y)), map(int, lanes), int(acc))
    assert got.dtype == np.int32 and int(got) == expected


def test_an_ordered_sum_is_the_scalar_loops_sum():
    lanes = np.array([1e8, 1, -1e8, 1, 3, 1e-3, 7, -3], np.float32)
    got = run(reduction_function("add", "f32", True), lanes, np.float32(0.5))
    total = np.float32(0.5)
    for lane in lanes:
        total = np.float32(total + lane)
    assert got == total and got != np.float32(lanes.astype(np.float64).sum() + 0.5)


def test_maximumf_propagates_nan_and_maxnumf_ignores_it():
    lanes = np.array([1, 2, np.nan, 4, 5, 6, 7, 8], np.float32)
    assert np.isnan(run(reduction_function("maximumf", "f32", False), lanes, np.float32(0)))
    assert run(reduction_function("maxnumf", "f32", False), lanes, np.float32(0)) == 8


# -- extract and insert ------------------------------------------------------------------------
def test_extract_and_insert_with_static_and_dynamic_positions():
    text = """
    func.func @main(%m: vector<4x8xi32>, %i: index, %x: i32) -> (i32, vector<8xi32>, vector<4x8xi32>) {
      %a = vector.extract %m[%i, 5] : i32 from vector<4x8xi32>
      %row = vector.extract %m[2] : vector<8xi32> from vector<4x8xi32>
      %changed = vector.insert %x, %row [%i] : i32 into vector<8xi32>
      %n = vector.insert %changed, %m [0] : vector<8xi32> into vector<4x8xi32>
      return %a, %changed, %n : i32, vector<8xi32>, vector<4x8xi32>
    }"""  # noqa: E501
    m = np.random.default_rng(6).integers(-100, 100, (4, 8)).astype(np.int32)
    a, changed, n = run(text, m, 3, np.int32(77))
    assert a == m[3, 5]
    expected_row = m[2].copy()
    expected_row[3] = 77
    np.testing.assert_array_equal(changed, expected_row)
    np.testing.assert_array_equal(n, np.vstack([expected_row, m[1:]]))
    with pytest.raises(InterpreterError, match=r"position \[4, 5\] is out of bounds"):
        run(text, m, 4, np.int32(0))


# -- real MLIR ---------------------------------------------------------------------------------
EVERY_OP_KERNEL = """
func.func @kernel(%x: memref<4x16xf32>, %y: memref<16xf32>, %out: memref<4x16xf32>) {
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


@pytest.mark.mlir
@requires_mlir_runner
def test_every_vector_op_computes_what_mlir_computes():
    rng = np.random.default_rng(8)
    inputs = {  # named apart from the values of the harness's own code
        "x_in": random_floats(rng, (4, 16), DTYPES["f32"]),
        "y_in": random_floats(rng, 16, DTYPES["f32"]),
        "out": np.zeros((4, 16), np.float32),
    }
    expected = inputs["out"].copy()
    interpret(parse(EVERY_OP_KERNEL), inputs["x_in"], inputs["y_in"], expected, entry="kernel")
    module = runner_module(EVERY_OP_KERNEL, inputs, "out")
    from_mlir = run_with_mlir(module, (4, 16), VECTOR_LOWERING)
    np.testing.assert_array_equal(from_mlir, expected)
