"""func calls, cf branches and scf regions: the interpreter's walk over blocks."""

from __future__ import annotations

import numpy as np
import pytest

from interp.helpers import run
from tinycomp.interp import InterpreterError

FIBONACCI = """
func.func @fib(%n: i64) -> i64 {
  %c2 = arith.constant 2 : i64
  %small = arith.cmpi slt, %n, %c2 : i64
  cf.cond_br %small, ^base, ^recurse
^base:
  return %n : i64
^recurse:
  %c1 = arith.constant 1 : i64
  %n1 = arith.subi %n, %c1 : i64
  %n2 = arith.subi %n, %c2 : i64
  %f1 = call @fib(%n1) : (i64) -> i64
  %f2 = call @fib(%n2) : (i64) -> i64
  %sum = arith.addi %f1, %f2 : i64
  return %sum : i64
}
"""


def test_recursive_calls_and_branches():
    assert [int(run(FIBONACCI, np.int64(n), entry="fib")) for n in range(10)] == [
        0, 1, 1, 2, 3, 5, 8, 13, 21, 34,
    ]  # fmt: skip


def test_runaway_recursion_is_reported():
    text = """
    func.func @forever(%x: i32) -> i32 {
      %r = call @forever(%x) : (i32) -> i32
      return %r : i32
    }"""
    with pytest.raises(InterpreterError, match="calls nest deeper than"):
        run(text, np.int32(1), entry="forever")


def test_a_loop_written_with_blocks_sums_a_memref():
    text = """
    func.func @main(%m: memref<10xf32>) -> f32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c10 = arith.constant 10 : index
      %zero = arith.constant 0.0 : f32
      cf.br ^header(%c0, %zero : index, f32)
    ^header(%i: index, %acc: f32):
      %more = arith.cmpi slt, %i, %c10 : index
      cf.cond_br %more, ^body, ^exit(%acc : f32)
    ^body:
      %v = memref.load %m[%i] : memref<10xf32>
      %next = arith.addf %acc, %v : f32
      %i1 = arith.addi %i, %c1 : index
      cf.br ^header(%i1, %next : index, f32)
    ^exit(%r: f32):
      return %r : f32
    }"""
    values = np.random.default_rng(12).standard_normal(10).astype(np.float32)
    expected = np.float32(0)
    for v in values:  # the same order as the loop
        expected = np.float32(expected + v)
    assert run(text, values) == expected


def test_cf_assert():
    text = """
    func.func @main(%x: i32) {
      %c0 = arith.constant 0 : i32
      %ok = arith.cmpi sge, %x, %c0 : i32
      "cf.assert"(%ok) <{msg = "x must be non-negative"}> : (i1) -> ()
      return
    }"""
    run(text, np.int32(3))
    with pytest.raises(InterpreterError, match="'cf.assert' at line 5: .*x must be non-negative"):
        run(text, np.int32(-3))


def test_scf_for_with_iter_args_and_unit_loop():
    text = """
    func.func @main(%lb: index, %ub: index, %step: index) -> (index, index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %sum, %count = scf.for %i = %lb to %ub step %step iter_args(%s = %c0, %n = %c0)
          -> (index, index) {
        %s1 = arith.addi %s, %i : index
        %n1 = arith.addi %n, %c1 : index
        scf.yield %s1, %n1 : index, index
      }
      return %sum, %count : index, index
    }"""
    for lb, ub, step in [(0, 10, 1), (3, 20, 4), (5, 5, 1), (7, 2, 1), (-6, 6, 5)]:
        total, count = run(text, np.int64(lb), np.int64(ub), np.int64(step))
        assert (int(total), int(count)) == (sum(range(lb, ub, step)), len(range(lb, ub, step)))
    with pytest.raises(InterpreterError, match="expected positive steps, got \\[0\\]"):
        run(text, np.int64(0), np.int64(4), np.int64(0))


def test_scf_for_over_i32_gives_i32_induction_variables():
    text = """
    func.func @main(%ub: i32) -> i32 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %r = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
        %a = arith.addi %acc, %i : i32
        scf.yield %a : i32
      }
      return %r : i32
    }"""
    result = run(text, np.int32(5))
    assert result.dtype == np.int32 and int(result) == 10


def test_scf_if_and_while():
    text = """
    func.func @main(%n: index) -> (index, f32) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %steps, %v = scf.while (%i = %n, %k = %c0) : (index, index) -> (index, index) {
        %more = arith.cmpi ugt, %i, %c1 : index
        scf.condition(%more) %i, %k : index, index
      } do {
      ^bb0(%i: index, %k: index):
        %rem = arith.remui %i, %c2 : index
        %even = arith.cmpi eq, %rem, %c0 : index
        %next = scf.if %even -> (index) {
          %h = arith.divui %i, %c2 : index
          scf.yield %h : index
        } else {
          %t = arith.muli %i, %c2 : index
          %t1 = arith.addi %t, %i : index
          %t2 = arith.addi %t1, %c1 : index
          scf.yield %t2 : index
        }
        %k1 = arith.addi %k, %c1 : index
        scf.yield %next, %k1 : index, index
      }
      %f = arith.constant 1.5 : f32
      return %v, %f : index, f32
    }"""

    def collatz_steps(n: int) -> int:
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    for n in [1, 6, 7, 27]:
        steps, _ = run(text, np.int64(n))
        assert int(steps) == collatz_steps(n)


def test_scf_parallel_with_a_reduction_in_lexicographic_order():
    text = """
    func.func @main(%m: memref<6x5xf32>) -> f32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %zero = arith.constant 0.0 : f32
      %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c5) step (%c1, %c1) init (%zero) -> f32 {
        %v = memref.load %m[%i, %j] : memref<6x5xf32>
        scf.reduce(%v : f32) {
        ^bb0(%a: f32, %b: f32):
          %s = arith.addf %a, %b : f32
          scf.reduce.return %s : f32
        }
      }
      return %sum : f32
    }"""
    values = np.random.default_rng(13).standard_normal((6, 5)).astype(np.float32)
    expected = np.float32(0)
    for v in values.reshape(-1):
        expected = np.float32(expected + v)
    assert run(text, values) == expected


def test_scf_forall_with_parallel_insert_slice():
    text = """
    func.func @main(%t: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %two = arith.constant 2.0 : f32
      %r = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>,
          staticLowerBound = array<i64: 0, 0>, staticStep = array<i64: 4, 2>,
          staticUpperBound = array<i64: 8, 8>}> ({
      ^bb0(%i: index, %j: index, %o: tensor<8x8xf32>):
        %tile = tensor.extract_slice %o[%i, %j] [4, 2] [1, 1] : tensor<8x8xf32> to tensor<4x2xf32>
        %s = arith.mulf %tile, %tile : tensor<4x2xf32>
        "scf.forall.in_parallel"() ({
          "tensor.parallel_insert_slice"(%s, %o, %i, %j) <{operandSegmentSizes =
              array<i32: 1, 1, 2, 0, 0>, static_offsets = array<i64: -9223372036854775808,
              -9223372036854775808>, static_sizes = array<i64: 4, 2>,
              static_strides = array<i64: 1, 1>}>
              : (tensor<4x2xf32>, tensor<8x8xf32>, index, index) -> ()
        }) : () -> ()
      }) : (tensor<8x8xf32>) -> tensor<8x8xf32>
      return %r : tensor<8x8xf32>
    }"""
    values = np.random.default_rng(14).standard_normal((8, 8)).astype(np.float32)
    np.testing.assert_array_equal(run(text, values), values * values)


def test_scf_index_switch_and_execute_region():
    text = """
    func.func @main(%n: index) -> i32 {
      %r = "scf.index_switch"(%n) <{cases = array<i64: 2, 5>}> ({
        %c = arith.constant 30 : i32
        scf.yield %c : i32
      }, {
        %c = arith.constant 10 : i32
        scf.yield %c : i32
      }, {
        %c = arith.constant 20 : i32
        scf.yield %c : i32
      }) : (index) -> i32
      %e = "scf.execute_region"() ({
        %one = arith.constant 1 : i32
        %s = arith.addi %r, %one : i32
        scf.yield %s : i32
      }) : () -> i32
      return %e : i32
    }"""
    assert [int(run(text, np.int64(n))) for n in [0, 2, 5, 7]] == [31, 11, 21, 31]


def test_unknown_op_names_the_op_line_and_dialects():
    text = """
    func.func @main(%x: f32) -> f32 {
      %y = "mystery.op"(%x) : (f32) -> f32
      return %y : f32
    }"""
    with pytest.raises(InterpreterError) as error:
        run(text, np.float32(1.0))
    message = str(error.value)
    assert "'mystery.op' at line 3" in message
    assert "no rule" in message and "'arith'" in message and "'linalg'" in message
