"""Tests of producer-consumer fusion (``linalg-fuse-elementwise-ops``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

import tinycomp.passes.fusion  # noqa: F401  (registers the pass)
from tinycomp.frontend import exp, negative, softmax, tanh, trace
from tinycomp.frontend import sum as reduce_sum
from tinycomp.interp import interpret
from tinycomp.ir import Operation, parse
from tinycomp.passes import PassManager
from tinycomp.passes.fusion import FusionPass
from tinycomp.passes.registry import lookup_pass

SHAPE = (3, 4)


def fused(module: Operation) -> tuple[Operation, FusionPass]:
    """A fused copy of ``module`` (the original is left alone) and the pass that ran."""
    copy = parse(str(module))
    fusion = FusionPass()
    fusion.run(copy)
    copy.verify()
    return copy, fusion


def count_generics(module: Operation) -> int:
    return sum(1 for op in module.walk() if op.name == "linalg.generic")


def random_inputs(seed: int, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


def check_same_numbers(before: Operation, after: Operation, expected, arrays) -> None:
    """Before and after agree (f32, rtol 1e-6), and both agree with numpy."""
    result_before = interpret(before, *arrays)
    result_after = interpret(after, *arrays)
    np.testing.assert_allclose(result_after, result_before, rtol=1e-6)
    np.testing.assert_allclose(result_after, expected, rtol=1e-5, atol=1e-6)


def test_registered_under_mlir_name():
    assert lookup_pass("linalg-fuse-elementwise-ops") is FusionPass


def test_exp_of_difference_times_two_is_one_kernel():
    x, y = random_inputs(0, SHAPE, SHAPE)
    module = trace(lambda a, b: exp(a - b) * 2.0, x, y)
    after, fusion = fused(module)
    assert count_generics(module) == 3 and count_generics(after) == 1
    assert fusion.statistics["kernels before"] == 3
    assert fusion.statistics["kernels after"] == 1
    assert fusion.statistics["intermediate bytes not materialized"] == 2 * 3 * 4 * 4
    assert fusion.report == []
    check_same_numbers(module, after, np.exp(x - y) * 2.0, [x, y])


def test_chain_of_four_elementwise_ops():
    x, y = random_inputs(1, SHAPE, SHAPE)
    module = trace(lambda a, b: tanh(negative(a * b) + 1.0) - b, x, y)
    after, _ = fused(module)
    assert count_generics(module) == 5 and count_generics(after) == 1
    check_same_numbers(module, after, np.tanh(-(x * y) + 1.0) - y, [x, y])


def test_broadcast_producer_fuses_with_projected_map():
    x, b = random_inputs(2, SHAPE, SHAPE[1:])
    module = trace(lambda a, bias: a + exp(bias), x, b)
    after, _ = fused(module)
    assert count_generics(after) == 1
    assert "affine_map<(d0, d1) -> (d1)>" in str(after)  # exp's input keeps the broadcast
    check_same_numbers(module, after, x + np.exp(b), [x, b])


TRANSPOSE_THEN_ADD = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%x: tensor<4x3xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %t = linalg.generic {indexing_maps = [#id, #swap], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %e2 = tensor.empty() : tensor<3x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %y : tensor<3x4xf32>, tensor<3x4xf32>) outs(%e2 : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  return %s : tensor<3x4xf32>
}
"""


def test_transposing_producer_output_map_is_inverted():
    module = parse(TRANSPOSE_THEN_ADD)
    after, fusion = fused(module)
    assert count_generics(after) == 1
    fused_op = next(op for op in after.walk() if op.name == "linalg.generic")
    maps = [str(m) for m in fused_op.indexing_maps()]
    assert maps == ["(d0, d1) -> (d1, d0)", "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0, d1)"]
    x, y = random_inputs(3, (4, 3), (3, 4))
    check_same_numbers(module, after, np.exp(x).T + y, [x, y])


PRODUCER_READS_ITS_INIT = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<5xf32>, %acc: tensor<5xf32>) -> tensor<5xf32> {
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf32>) outs(%acc : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %e = tensor.empty() : tensor<5xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  return %c : tensor<5xf32>
}
"""


def test_producer_that_reads_its_init_passes_it_as_an_input():
    module = parse(PRODUCER_READS_ITS_INIT)
    after, _ = fused(module)
    assert count_generics(after) == 1
    x, acc = random_inputs(4, (5,), (5,))
    check_same_numbers(module, after, np.exp(x * acc), [x, acc])


def two_users(a):
    """``exp(a)`` feeds two generics: it must stay a kernel of its own."""
    shared = exp(a)
    return (shared + 1.0) * (shared * 2.0)


def test_two_users_fuse_after_deduplication():
    x = random_inputs(5, SHAPE)[0]
    module = trace(two_users, x)
    after, fusion = fused(module)
    # Both users of exp fuse into the multiply, which then reads exp twice; deduplicating
    # that input leaves exp one user, and it fuses too (step 6).
    assert count_generics(after) == 1
    assert fusion.report == [] or all("2 users" not in line for line in fusion.report)
    fused_op = next(op for op in after.walk() if op.name == "linalg.generic")
    assert [op.name for op in fused_op.body.ops].count("math.exp") == 1  # exp computed once
    check_same_numbers(module, after, (np.exp(x) + 1.0) * (np.exp(x) * 2.0), [x])


USED_BY_RETURN = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  return %p, %c : tensor<3x4xf32>, tensor<3x4xf32>
}
"""


def test_result_also_returned_is_not_fused():
    module = parse(USED_BY_RETURN)
    after, fusion = fused(module)
    assert count_generics(after) == 2
    assert fusion.report == ["%p -> %c: result has 2 users"]
    x = random_inputs(10, SHAPE)[0]
    for got, want in zip(interpret(after, x), [np.exp(x), np.exp(x) ** 2], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_softmax_reduction_producers_are_not_fused():
    x = random_inputs(6, SHAPE)[0]
    module = trace(softmax, x)
    after, fusion = fused(module)
    assert any("producer has a reduction iterator" in line for line in fusion.report)
    assert count_generics(after) == count_generics(module) - 1  # only x - max into exp
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    check_same_numbers(module, after, e / e.sum(axis=-1, keepdims=True), [x])


def test_elementwise_producer_fuses_into_a_reduction_consumer():
    x = random_inputs(12, SHAPE)[0]
    module = trace(lambda a: reduce_sum(exp(a), axis=-1), x)
    after, fusion = fused(module)
    assert count_generics(after) == 1 and fusion.report == []
    check_same_numbers(module, after, np.exp(x).sum(axis=-1), [x])


UNARY = {"tanh": (tanh, np.tanh), "neg": (negative, np.negative)}
"""Unary steps of the chain property (no exp: a chain of them overflows float32)."""


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(["tanh", "neg", "add_y", "mul_y"]), min_size=1, max_size=5))
def test_any_single_use_elementwise_chain_becomes_one_kernel(steps):
    x, y = random_inputs(7, SHAPE, SHAPE)

    def chain(a, b, lib):
        for step in steps:
            if step == "add_y":
                a = a + b
            elif step == "mul_y":
                a = a * b
            else:
                a = UNARY[step][lib](a)
        return a

    module = trace(lambda a, b: chain(a, b, 0), x, y)
    after, _ = fused(module)
    assert count_generics(after) == 1
    check_same_numbers(module, after, chain(x, y, 1), [x, y])


def mlir_generic_count(text: str) -> int:
    return run_mlir_opt(text, "--linalg-fuse-elementwise-ops").count("linalg.generic")


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(
    "name",
    ["exp_sub_mul", "chain", "broadcast", "transpose_add", "used_by_return", "into_reduction"],
)
def test_mlir_opt_accepts_fused_ir_and_fuses_as_much(name):
    x = random_inputs(8, SHAPE)[0]
    b = x[0]
    programs = {
        "exp_sub_mul": lambda: trace(lambda a, c: exp(a - c) * 2.0, x, x),
        "chain": lambda: trace(lambda a, c: tanh(negative(a * c) + 1.0) - c, x, x),
        "broadcast": lambda: trace(lambda a, c: a + exp(c), x, b),
        "transpose_add": lambda: parse(TRANSPOSE_THEN_ADD),
        "used_by_return": lambda: parse(USED_BY_RETURN),
        "into_reduction": lambda: trace(lambda a: reduce_sum(exp(a), axis=-1), x),
    }
    module = programs[name]()
    after, _ = fused(module)
    run_mlir_opt(str(after), "--verify-each")
    assert count_generics(after) == mlir_generic_count(str(module))


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_on_softmax_agrees_on_kernel_count():
    # Both rules refuse reduction producers and multi-use results; both fuse elementwise
    # producers into reduction consumers when every loop keeps an operand that sizes it.
    module = trace(softmax, random_inputs(9, SHAPE)[0])
    after, _ = fused(module)
    run_mlir_opt(str(after), "--verify-each")
    assert count_generics(after) == mlir_generic_count(str(module))


FUSE_DEDUPLICATE_FUSE = "linalg-fuse-elementwise-ops,canonicalize,linalg-fuse-elementwise-ops"
"""Fusion, canonicalize (which also holds DeduplicateAndRemoveDeadOperands), fusion."""


def test_deduplication_is_also_a_canonicalization():
    """The deduplication pattern is also one of canonicalize's: a pipeline that runs it
    between two fusions reaches the same single kernel (the first fusion already has)."""
    x = random_inputs(11, SHAPE)[0]
    module = trace(two_users, x)
    after = parse(str(module))
    result = PassManager.parse(FUSE_DEDUPLICATE_FUSE).run(after)
    after.verify()
    assert count_generics(module) == 4 and count_generics(after) == 1
    check_same_numbers(module, after, (np.exp(x) + 1.0) * (np.exp(x) * 2.0), [x])
    assert result.statistics[0].counts["kernels after"] == 1  # the first fusion already did it


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_and_tinycomp_fuse_a_shared_producer_alike():
    # MLIR 22 runs the deduplication (EraseUnusedOperandsAndResults.cpp) inside
    # --linalg-fuse-elementwise-ops itself, and so does tinycomp's fusion pass (step 6).
    module = trace(two_users, random_inputs(11, SHAPE)[0])
    fused_alone, _ = fused(module)
    run_mlir_opt(str(fused_alone), "--verify-each")
    theirs = run_mlir_opt(str(module), "--linalg-fuse-elementwise-ops")
    assert count_generics(fused_alone) == theirs.count("linalg.generic") == 1
