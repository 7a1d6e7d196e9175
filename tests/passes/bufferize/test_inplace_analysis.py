"""The in-place analysis: which written operands may share their buffer, and why not.

Each verdict is checked two ways: the decision and its reason, and (for the
conflicts) the numbers: bufferizing with the decision gives the interpreter's answer.
"""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.interp import interpret, run_bufferized
from tinycomp.ir import parse
from tinycomp.passes import LinalgToLoopsPass, PassError
from tinycomp.passes.bufferize import OneShotBufferizePass, analyze_in_place

from .cases import HAND_WRITTEN, ID1, ID2


def verdicts(text: str, writable_arguments: bool = False) -> list[tuple[str, int, str]]:
    analysis = analyze_in_place(parse(text).body.first_op, writable_arguments)
    return [(d.op.name, d.operand_index, d.reason) for d in analysis.decisions]


def check_numbers(text: str, *arrays, writable_arguments: bool = False) -> None:
    """Bufferized, the function computes what the tensor program computes."""
    expected = interpret(text, *[a.copy() if isinstance(a, np.ndarray) else a for a in arrays])
    module = parse(text)
    OneShotBufferizePass(writable_arguments).run(module)
    module.verify()
    np.testing.assert_array_equal(run_bufferized(module, *arrays), expected)


def test_a_value_read_after_the_write_is_copied_bottom_up():
    assert verdicts(HAND_WRITTEN["branching use"]) == [
        ("linalg.generic", 2, "in place: no later read of %e2"),
        ("linalg.generic", 0, "copy: %a is read later by 'linalg.generic' at line 17"),
        ("linalg.generic", 1, "in place: no later read of %e"),
    ]
    x = np.random.default_rng(0).standard_normal(8).astype(np.float32)
    check_numbers(HAND_WRITTEN["branching use"], x)


def test_a_loop_whose_body_reads_its_init_gets_a_copy_of_it():
    assert verdicts(HAND_WRITTEN["loop reads its init"]) == [
        ("linalg.generic", 1, "in place: no later read of %acc"),
        ("scf.for", 3, "copy: %init is read later by 'linalg.generic' at line 14"),
        ("linalg.generic", 1, "in place: no later read of %e"),
    ]
    x = np.random.default_rng(1).standard_normal(8).astype(np.float32)
    check_numbers(HAND_WRITTEN["loop reads its init"], x)


def test_function_arguments_are_read_only_unless_allowed():
    text = HAND_WRITTEN["writes an argument"]
    ((op, index, reason),) = verdicts(text)
    assert (op, index) == ("linalg.fill", 1)
    assert reason == (
        "copy: %x is a function argument (read-only; writable_arguments=True allows writing it)"
    )
    assert verdicts(text, writable_arguments=True) == [
        ("linalg.fill", 1, "in place: no later read of %x")
    ]
    x = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    before = x.copy()
    check_numbers(text, x, 1.5)
    np.testing.assert_array_equal(x, before)  # the caller's array is untouched
    check_numbers(text, x, 1.5, writable_arguments=True)
    assert (x == np.float32(1.5)).all()  # now the fill went into the caller's array


def test_tiling_pattern_is_in_place_all_the_way_down():
    reasons = verdicts(HAND_WRITTEN["2-d tiled matmul + bias, bound loops"])
    assert [(op, index) for op, index, _ in reasons] == [
        ("tensor.insert_slice", 1),
        ("linalg.generic", 2),  # ins(%m) outs(%m): elementwise, one map
        ("linalg.matmul", 2),
        ("linalg.fill", 1),  # writes the window that insert_slice puts back
        ("scf.for", 3),
        ("scf.for", 3),
    ]
    assert all(reason.startswith("in place") for _, _, reason in reasons)


TRANSPOSE_IN_PLACE = f"""
func.func @main(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {{
  %e = tensor.empty() : tensor<3x3xf32>
  %a = linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%x : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) {{
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }} -> tensor<3x3xf32>
  %t = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (j, i)>, {ID2}],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%a : tensor<3x3xf32>) outs(%a : tensor<3x3xf32>) {{
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }} -> tensor<3x3xf32>
  return %t : tensor<3x3xf32>
}}"""


def test_an_op_reading_its_output_buffer_through_another_map_gets_a_copy():
    first = verdicts(TRANSPOSE_IN_PLACE)[0]
    assert first == (
        "linalg.generic",
        1,
        "copy: %a is also read by 'linalg.generic' at line 9, which writes it",
    )
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    check_numbers(TRANSPOSE_IN_PLACE, x)


OTHER_WINDOW = """
func.func @main(%x: tensor<8xf32>, %v: f32) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%v : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (tensor<8xf32>) {
    %c = tensor.extract_slice %acc[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %two = arith.constant 2.0 : f32
    %f = linalg.fill ins(%two : f32) outs(%c : tensor<4xf32>) -> tensor<4xf32>
    %ins = tensor.insert_slice %f into %acc[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
    scf.yield %ins : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}"""


def test_a_write_into_another_window_than_the_insert_is_a_conflict():
    assert verdicts(OTHER_WINDOW)[:2] == [
        ("tensor.insert_slice", 1, "in place: no later read of %acc"),
        ("linalg.fill", 1, "copy: %acc is read later by 'tensor.insert_slice' at line 12"),
    ]
    check_numbers(OTHER_WINDOW, np.zeros(8, np.float32), -1.0)


NEXT_ITERATION = f"""
func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<6xf32>
  %v = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%x : tensor<6xf32>) outs(%e : tensor<6xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  }} -> tensor<6xf32>
  %e2 = tensor.empty() : tensor<6xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6xf32>) -> tensor<6xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<6xf32>) {{
    %sum = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%v : tensor<6xf32>) outs(%acc : tensor<6xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %y = arith.addf %in, %out : f32
      linalg.yield %y : f32
    }} -> tensor<6xf32>
    %bumped = linalg.generic {{indexing_maps = [{ID1}], iterator_types = ["parallel"]}}
        outs(%v : tensor<6xf32>) {{
    ^bb0(%out: f32):
      %one = arith.constant 1.0 : f32
      %y = arith.addf %out, %one : f32
      linalg.yield %y : f32
    }} -> tensor<6xf32>
    scf.yield %sum : tensor<6xf32>
  }}
  return %r : tensor<6xf32>
}}"""


def test_a_write_in_a_loop_conflicts_with_a_read_earlier_in_the_next_iteration():
    reasons = verdicts(NEXT_ITERATION)
    assert reasons[0] == (
        "linalg.generic",
        0,
        "copy: %v is read by 'linalg.generic' at line 17 in the next iteration of "
        "'scf.for' at line 16",
    )
    x = np.random.default_rng(3).standard_normal(6).astype(np.float32)
    check_numbers(NEXT_ITERATION, x)


def test_ops_without_a_rule_are_refused_with_their_name_and_line():
    text = """
    func.func @g(%t: tensor<4xf32>) -> tensor<4xf32> { return %t : tensor<4xf32> }
    func.func @main(%t: tensor<4xf32>) -> tensor<4xf32> {
      %r = func.call @g(%t) : (tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    }"""
    with pytest.raises(PassError, match=r"no bufferization rule for 'func.call' at line 4"):
        analyze_in_place(parse(text).body.ops[1])


def test_reading_a_tensor_empty_is_no_conflict_but_reading_a_result_is():
    """Both loops start from one ``tensor.empty``. The second loop may take its buffer
    (the first loop's read of the empty tensor reads nothing); the first may not, since
    the second loop reads its result tile by tile while writing that buffer. Tiles are
    disjoint, but the analysis does not reason about subsets across iterations, so it
    plays safe: a new buffer, with nothing to copy into it."""
    reasons = verdicts(HAND_WRITTEN["loops sharing one tensor.empty"])
    assert reasons[2] == ("scf.for", 3, "in place: no later read of %e")
    assert reasons[5] == (
        "scf.for",
        3,
        "copy: %as is read by 'linalg.generic' at line 23 in the next iteration of 'scf.for' "
        "at line 20 after 'tensor.insert_slice' at line 29 writes into its buffer",
    )
    module = parse(HAND_WRITTEN["loops sharing one tensor.empty"])
    OneShotBufferizePass().run(module)
    names = [op.name for op in module.walk()]
    assert names.count("memref.alloc") == 1 and "memref.copy" not in names
    x = np.random.default_rng(4).standard_normal(8).astype(np.float32)
    check_numbers(HAND_WRITTEN["loops sharing one tensor.empty"], x)


SHIFTED_WINDOWS = f"""
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {{
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {{
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }} -> tensor<8xf32>
  %src = tensor.extract_slice %a[0] [7] [1] : tensor<8xf32> to tensor<7xf32>
  %dst = tensor.extract_slice %a[1] [7] [1] : tensor<8xf32> to tensor<7xf32>
  %s = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%src : tensor<7xf32>) outs(%dst : tensor<7xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %twice = arith.addf %in, %in : f32
    linalg.yield %twice : f32
  }} -> tensor<7xf32>
  %r = tensor.insert_slice %s into %a[1] [7] [1] : tensor<7xf32> into tensor<8xf32>
  return %r : tensor<8xf32>
}}"""


def test_elementwise_is_only_safe_on_the_same_buffer_not_a_shifted_view():
    """``s[i] = 2 * a[i]`` written to ``a[i + 1]`` in place would read elements the
    loop already overwrote; one map, but two different windows of one buffer."""
    assert verdicts(SHIFTED_WINDOWS)[1] == (
        "linalg.generic",
        1,
        "copy: %src is also read by 'linalg.generic' at line 11, which writes it",
    )
    x = np.arange(1, 9, dtype=np.float32)
    module = parse(SHIFTED_WINDOWS)
    OneShotBufferizePass().run(module)
    LinalgToLoopsPass().run(module)  # element by element, in order
    expected = np.concatenate([x[:1], 2 * x[:7]])
    np.testing.assert_array_equal(run_bufferized(module, x), expected)


TWO_OUTPUTS_ONE_TENSOR = f"""
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {{
  %e = tensor.empty() : tensor<4xf32>
  %r:2 = linalg.generic {{indexing_maps = [{ID1}, {ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%x : tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {{
  ^bb0(%in: f32, %o1: f32, %o2: f32):
    %twice = arith.addf %in, %in : f32
    %square = arith.mulf %in, %in : f32
    linalg.yield %twice, %square : f32, f32
  }} -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}}"""


def test_two_outputs_of_one_op_never_share_a_buffer():
    assert [reason for _, _, reason in verdicts(TWO_OUTPUTS_ONE_TENSOR)] == [
        "in place: no later read of %e",
        "copy: %e is also written by 'linalg.generic' at line 4",
    ]
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    module = parse(TWO_OUTPUTS_ONE_TENSOR)
    OneShotBufferizePass().run(module)
    twice, square = run_bufferized(module, x)
    np.testing.assert_array_equal(twice, x + x)
    np.testing.assert_array_equal(square, x * x)
