"""interpret(): arguments checked against the signature, results handed back."""

from __future__ import annotations

import numpy as np
import pytest

from interp.helpers import BF16, run
from tinycomp.interp import Interpreter, InterpreterError, interpret
from tinycomp.ir import parse

SIGNATURE = """
func.func @main(%x: f32, %n: i32, %flag: i1, %t: tensor<2x?xf16>, %m: memref<3xi64>) -> (f32, i32) {
  return %x, %n : f32, i32
}"""


def arguments():
    return [np.float32(1.5), np.int32(7), True, np.zeros((2, 5), np.float16), np.zeros(3, np.int64)]


def test_good_arguments_and_a_tuple_of_results():
    x, n = run(SIGNATURE, *arguments())
    assert (x.dtype, float(x), n.dtype, int(n)) == (np.float32, 1.5, np.int32, 7)


def test_python_scalars_are_converted():
    args = arguments()
    args[0], args[1] = 0.1, -3
    x, n = run(SIGNATURE, *args)
    assert x == np.float32(0.1) and n == -3


@pytest.mark.parametrize(
    ("position", "value", "message"),
    [
        (
            0,
            np.float64(1.0),
            r"argument %x of @main: expected a f32 \(numpy float32\), got numpy float64",
        ),
        (1, 2**40, r"argument %n of @main: 1099511627776 does not fit in i32"),
        (1, 1.5, r"argument %n of @main: expected a number for i32, got float"),
        (2, 1, r"argument %flag of @main: expected a bool for i1, got int"),
        (3, np.zeros((3, 5), np.float16), r"argument %t of @main: expected 2 in dimension 0"),
        (
            3,
            np.zeros((2, 5), np.float32),
            r"argument %t of @main: expected a numpy array of float16",
        ),
        (3, np.zeros(10, np.float16), r"argument %t of @main: expected rank 2"),
        (4, [1, 2, 3], r"argument %m of @main: expected a numpy array for memref<3xi64>, got list"),
    ],
)
def test_bad_arguments_are_named(position, value, message):
    args = arguments()
    args[position] = value
    with pytest.raises(InterpreterError, match=message):
        run(SIGNATURE, *args)


def test_wrong_count_and_missing_entry():
    with pytest.raises(InterpreterError, match=r"@main takes 5 arguments .* got 1"):
        run(SIGNATURE, np.float32(1.0))
    with pytest.raises(
        InterpreterError, match=r"no function @other in the module \(it has: \['main'\]\)"
    ):
        run(SIGNATURE, *arguments(), entry="other")


def test_read_only_memref_argument_is_rejected():
    m = np.zeros(3, np.int64)
    m.flags.writeable = False
    args = arguments()
    args[4] = m
    with pytest.raises(InterpreterError, match="must be a writable array"):
        run(SIGNATURE, *args)


def test_no_results_gives_none_and_a_parsed_module_works_too():
    module = parse("func.func @main(%x: bf16) {\n  return\n}")
    assert interpret(module, BF16.type(1.0)) is None


def test_the_interpreter_class_can_be_driven_directly():
    module = parse(
        "func.func @twice(%x: i64) -> i64 {\n  %y = arith.addi %x, %x : i64\n  return %y : i64\n}"
    )
    interpreter = Interpreter(module)
    assert interpreter.call("twice", [np.int64(21)]) == [np.int64(42)]
    with pytest.raises(InterpreterError, match="argument #0: expected a i64"):
        interpreter.call("twice", [np.int32(21)])


def test_result_type_mismatch_is_reported_at_the_op():
    """A rule result that contradicts the IR's declared type is caught where it happens
    (here: a tensor.cast claiming a static size the value does not have)."""
    text = """
    func.func @main(%t: tensor<?xf32>) -> tensor<4xf32> {
      %c = tensor.cast %t : tensor<?xf32> to tensor<4xf32>
      return %c : tensor<4xf32>
    }"""
    np.testing.assert_array_equal(run(text, np.ones(4, np.float32)), np.ones(4))
    with pytest.raises(
        InterpreterError,
        match=r"'tensor.cast' at line 3: result #0: expected a tensor<4xf32>, got an array of "
        "shape 5",
    ):
        run(text, np.ones(5, np.float32))


def test_the_same_array_twice_is_one_memory():
    """``%dst = 2 * %src`` where both are the caller's one array: an in-place update,
    seen as such (both linalg paths read each element before writing it)."""
    text = """
    func.func @main(%src: memref<5xf32>, %dst: memref<5xf32>) {
      %two = arith.constant 2.0 : f32
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                      iterator_types = ["parallel"]}
          ins(%src : memref<5xf32>) outs(%dst : memref<5xf32>) {
      ^bb0(%x: f32, %y: f32):
        %r = arith.mulf %x, %two : f32
        linalg.yield %r : f32
      }
      return
    }"""
    a = np.arange(5, dtype=np.float32)
    run(text, a, a)
    np.testing.assert_array_equal(a, 2 * np.arange(5, dtype=np.float32))
    b = np.arange(6, dtype=np.float32)
    with pytest.raises(InterpreterError, match="overlap in memory"):
        run(text, b[:5], b[1:])
