"""Results to out-params (``function_boundary.py``) and calling the result
(``run_bufferized``)."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.dialects.func.out_params import out_param_positions
from tinycomp.interp import InterpreterError, run_bufferized
from tinycomp.ir import parse
from tinycomp.passes.bufferize import OneShotBufferizePass, buffer_results_to_out_params

from .cases import HAND_WRITTEN

RETURNS = """
func.func @main(%x: memref<4xf32>, %n: index) -> (memref<4xf32>, index, memref<4xf32>,
                                                   memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  %c1 = arith.constant 1 : index
  memref.store %v, %a[%c1] : memref<4xf32>
  return %a, %n, %a, %x : memref<4xf32>, index, memref<4xf32>, memref<4xf32>
}"""


def test_an_allocated_result_becomes_the_out_param_and_the_others_are_copied():
    module = parse(RETURNS)
    function = module.body.first_op
    out_params = buffer_results_to_out_params(function)
    module.verify()
    assert len(out_params) == 3
    assert [op.name for op in function.entry_block.ops] == [
        "memref.copy",  # %x into the first out-param, which replaced %a
        "arith.constant",
        "memref.load",
        "arith.constant",
        "memref.store",
        "memref.copy",  # %a again: a second out-param needs its own copy
        "memref.copy",  # %x: an argument is the caller's memory
        "func.return",
    ]
    assert str(function.function_type) == (
        "(memref<4xf32>, index, memref<4xf32>, memref<4xf32>, memref<4xf32>) -> index"
    )
    assert out_param_positions(function) == [2, 3, 4]
    x = np.array([5.0, 6.0, 7.0, 8.0], np.float32)
    n, first, second, third = run_bufferized(module, x, 3)
    expected = np.array([5.0, 5.0, 7.0, 8.0], np.float32)
    assert n == 3
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(second, expected)
    np.testing.assert_array_equal(third, x)


def test_without_hoisting_every_result_is_copied():
    module = parse(RETURNS)
    buffer_results_to_out_params(module.body.first_op, hoist_allocations=False)
    names = [op.name for op in module.walk()]
    assert names.count("memref.alloc") == 1 and names.count("memref.copy") == 4


def test_existing_argument_attributes_are_kept():
    module = parse(
        "func.func @f(%x: memref<2xf32> {my.tag}) -> memref<2xf32> { return %x : memref<2xf32> }"
    )
    buffer_results_to_out_params(module.body.first_op)
    assert str(module.body.first_op).splitlines()[0] == (
        "func.func @f(%x: memref<2xf32> {my.tag}, %arg0: memref<2xf32> {bufferize.result}) {"
    )


def test_run_bufferized_allocates_dynamic_out_params_from_given_shapes():
    module = parse(HAND_WRITTEN["dynamic shapes"])
    OneShotBufferizePass().run(module)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    with pytest.raises(InterpreterError, match=r"pass its shape in output_shapes"):
        run_bufferized(module, x)
    with pytest.raises(InterpreterError, match=r"got shape \(3, 5\)"):
        run_bufferized(module, x, output_shapes=[(3, 5)])
    result = run_bufferized(module, x, output_shapes=[(3, 4)])
    expected = x * x
    expected[0, 1] = 1.0
    np.testing.assert_array_equal(result, expected)


def test_run_bufferized_counts_the_arguments_besides_out_params():
    module = parse(HAND_WRITTEN["writes an argument"])
    OneShotBufferizePass().run(module)
    with pytest.raises(InterpreterError, match="takes 2 arguments besides its 1 out-params"):
        run_bufferized(module, np.zeros((2, 3), np.float32))


def test_reading_the_out_param_before_writing_it_is_an_error():
    text = """
    func.func @main(%x: memref<2xf32>, %out: memref<2xf32> {bufferize.result}) {
      %c0 = arith.constant 0 : index
      %v = memref.load %out[%c0] : memref<2xf32>
      memref.store %v, %out[%c0] : memref<2xf32>
      return
    }"""
    with pytest.raises(InterpreterError, match="never written"):
        run_bufferized(text, np.zeros(2, np.float32))


def test_out_params_keep_the_other_arguments_attributes_and_the_convention_reads_them():
    from tinycomp.dialects.func.out_params import count_out_params, out_param_types

    module = parse(
        """func.func @f(%x: memref<4xf32> {my.note = 1 : i32}) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  return %a : memref<4xf32>
}"""
    )
    function = module.body.first_op
    buffer_results_to_out_params(function)
    assert "%x: memref<4xf32> {my.note = 1 : i32}" in str(function)
    assert out_param_positions(function) == [1] and count_out_params(function) == 1
    assert [str(t) for t in out_param_types(function)] == ["memref<4xf32>"]
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(run_bufferized(module, x, entry="f"), x)
