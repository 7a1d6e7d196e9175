"""``scf-for-full-unroll``: the same numbers before and after in the interpreter on random
inputs, loops it must leave alone left alone, output that ``mlir-opt-22`` accepts, and the
same unrolled loop as MLIR's own full unrolling."""

from __future__ import annotations

import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.interp import interpret
from tinycomp.ir import IndexType, MemRefType, Operation, parse, to_numpy_dtype
from tinycomp.passes import PassManager
from tinycomp.passes.unroll import (
    UNROLL_LIMIT,
    FullUnrollPass,
    constant_trip_count,
    is_fully_unrollable,
    unroll_loop,
)
from tinycomp.rewrite.matchers import constant_scalar

ITER_ARGS = """
func.func @main(%a: memref<32xf32>, %x: f32, %y: f32) -> (f32, f32) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c20 = arith.constant 20 : index
  %r:2 = scf.for %i = %c2 to %c20 step %c3 iter_args(%sum = %x, %prod = %y) -> (f32, f32) {
    %v = memref.load %a[%i] : memref<32xf32>
    %s = arith.addf %sum, %v : f32
    %p = arith.mulf %prod, %v : f32
    %j = arith.addi %i, %c2 : index
    memref.store %s, %a[%j] : memref<32xf32>
    scf.yield %s, %p : f32, f32
  }
  return %r#0, %r#1 : f32, f32
}
"""

NESTED = """
func.func @main(%a: memref<16xf32>, %b: memref<4x4xf32>, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (f32) {
    %r2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc2 = %acc) -> (f32) {
      %k = arith.muli %i, %c4 : index
      %l = arith.addi %k, %j : index
      %v = memref.load %a[%l] : memref<16xf32>
      %w = memref.load %b[%j, %i] : memref<4x4xf32>
      %m = arith.mulf %v, %w : f32
      %s = arith.addf %acc2, %m : f32
      memref.store %s, %b[%i, %j] : memref<4x4xf32>
      scf.yield %s : f32
    }
    scf.yield %r2 : f32
  }
  return %r : f32
}
"""

ZERO_TRIPS = """
func.func @main(%a: memref<8xf32>, %x: f32) -> f32 {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c5 to %c3 step %c1 iter_args(%acc = %x) -> (f32) {
    %v = memref.load %a[%i] : memref<8xf32>
    %s = arith.addf %acc, %v : f32
    memref.store %s, %a[%c1] : memref<8xf32>
    scf.yield %s : f32
  }
  return %r : f32
}
"""

CONSTANT_INSIDE_RUNTIME = """
func.func @main(%a: memref<8x4xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %s = arith.addi %i, %j : index
      %v = arith.index_cast %s : index to i32
      memref.store %v, %a[%i, %j] : memref<8x4xi32>
    }
  }
  return
}
"""

I32_BOUNDS = """
func.func @main(%a: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %lb = arith.constant -2 : i32
  %ub = arith.constant 5 : i32
  %step = arith.constant 2 : i32
  scf.for %i = %lb to %ub step %step  : i32 {
    %j = arith.addi %i, %ub : i32
    %k = arith.index_cast %j : i32 to index
    memref.store %i, %a[%k] : memref<16xi32>
  }
  return
}
"""


UNSIGNED_ACROSS_THE_SIGN = """
func.func @main(%a: memref<4xi32>) {
  %lb = arith.constant 2147483646 : i32
  %ub = arith.constant -2147483646 : i32
  %c1 = arith.constant 1 : i32
  scf.for unsigned %i = %lb to %ub step %c1  : i32 {
    %j = arith.subi %i, %lb : i32
    %k = arith.index_cast %j : i32 to index
    memref.store %i, %a[%k] : memref<4xi32>
  }
  return
}
"""


def _trip_loop(trips: int) -> str:
    """A loop of ``trips`` iterations summing ``a[i % 8]``."""
    return f"""
func.func @main(%a: memref<8xf32>, %x: f32) -> f32 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = arith.constant {trips} : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {{
    %j = arith.remui %i, %c8 : index
    %v = memref.load %a[%j] : memref<8xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }}
  return %r : f32
}}
"""


def _random_arguments(func: Operation, rng: np.random.Generator, n: int = 5) -> list:
    """Random arrays for the memref arguments, random floats, and ``n`` for an index."""
    arguments = []
    for argument in func.arguments:
        if isinstance(argument.type, MemRefType):
            shape = tuple(argument.type.shape)
            dtype = to_numpy_dtype(argument.type)
            if np.issubdtype(dtype, np.integer):
                arguments.append(rng.integers(-50, 50, shape).astype(dtype))
            else:
                arguments.append(rng.standard_normal(shape).astype(dtype))
        elif isinstance(argument.type, IndexType):
            arguments.append(n)
        else:
            arguments.append(np.float32(rng.standard_normal()))
    return arguments


def _same_results(before: Operation, after: Operation, seed: int = 0) -> None:
    """Run both modules on the same random inputs; results and arrays must match."""
    rng = np.random.default_rng(seed)
    arguments = _random_arguments(before.body.first_op, rng)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in arguments]
    expected = interpret(before, *arguments)
    actual = interpret(after, *copies)
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))
    for mine, theirs in zip(copies, arguments, strict=True):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))


def _loops(module: Operation) -> list[Operation]:
    return [op for op in module.walk() if op.name == "scf.for"]


def _unrolled(text: str, **options) -> tuple[Operation, Operation, FullUnrollPass]:
    before = parse(text)
    after = parse(text)
    unroll = FullUnrollPass(**options)
    unroll.run(after)
    after.verify()
    return before, after, unroll


@pytest.mark.parametrize("text", [ITER_ARGS, NESTED, ZERO_TRIPS, I32_BOUNDS])
def test_unrolling_keeps_the_numbers_and_leaves_no_loop(text: str):
    before, after, _ = _unrolled(text)
    assert _loops(before) and not _loops(after)
    _same_results(before, after)


def test_iter_args_are_threaded_through_every_copy():
    _, after, unroll = _unrolled(ITER_ARGS)
    trips = len(range(2, 20, 3))
    assert dict(unroll.statistics) == {"loops unrolled": 1, "body copies": trips}
    stores = [op for op in after.walk() if op.name == "memref.store"]
    indices = [constant_scalar(op.operands[2]) for op in stores]
    assert len(stores) == trips and indices == [i + 2 for i in range(2, 20, 3)]


def test_nested_loops_unroll_innermost_first_into_constant_indices():
    _, after, unroll = _unrolled(NESTED)
    assert unroll.statistics["loops unrolled"] == 2
    loads = [op for op in after.walk() if op.name == "memref.load"]
    assert len(loads) == 2 * 16
    assert all(index.defining_op().name == "arith.constant" for op in loads
               for index in op.operands[1:])  # fmt: skip
    assert not [op for op in after.walk() if op.name in ("arith.muli", "arith.addi")]


def test_a_loop_that_never_runs_becomes_its_inits():
    _, after, _ = _unrolled(ZERO_TRIPS)
    func = after.body.first_op
    assert [op.name for op in func.entry_block.ops] == ["func.return"]
    assert func.entry_block.ops[0].operands[0] is func.arguments[1]


@pytest.mark.parametrize("trips", [UNROLL_LIMIT, UNROLL_LIMIT + 1])
def test_the_limit_is_the_most_iterations_unrolled(trips: int):
    before, after, _ = _unrolled(_trip_loop(trips))
    assert len(_loops(after)) == (0 if trips <= UNROLL_LIMIT else 1)
    _same_results(before, after)


def test_a_smaller_limit_leaves_longer_loops_alone():
    _, after, unroll = _unrolled(NESTED, limit=3)
    assert len(_loops(after)) == 2 and not unroll.statistics


def test_runtime_bounds_are_left_alone_and_constant_loops_inside_them_unrolled():
    before, after, _ = _unrolled(CONSTANT_INSIDE_RUNTIME)
    (outer,) = _loops(after)
    assert outer.operands[1] is after.body.first_op.arguments[1]
    stores = [op for op in outer.walk() if op.name == "memref.store"]
    assert len(stores) == 4
    _same_results(before, after)


def test_an_unsigned_loop_may_count_past_the_largest_signed_value():
    _, after, _ = _unrolled(UNSIGNED_ACROSS_THE_SIGN)
    assert not _loops(after)
    out = np.zeros(4, np.int32)
    interpret(after, out)
    assert out.view(np.uint32).tolist() == [2**31 - 2, 2**31 - 1, 2**31, 2**31 + 1]


def test_trip_counts_follow_the_loops_comparison():
    module = parse("""
func.func @f(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m1 = arith.constant -1 : i32
  %c0i = arith.constant 0 : index
  %c3i = arith.constant 3 : index
  scf.for %i = %c0 to %m1 step %c1  : i32 { }
  scf.for unsigned %i = %c0 to %m1 step %c1  : i32 { }
  scf.for %i = %c0 to %n step %c1  : i32 { }
  scf.for %i = %c0 to %c1 step %m1  : i32 { }
  scf.for %i = %c0i to %c3i step %c3i { }
  return
}""")
    counts = [constant_trip_count(loop) for loop in _loops(module)]
    assert counts == [0, 2**32 - 1, None, None, 1]
    assert [is_fully_unrollable(loop) for loop in _loops(module)] == [
        True, False, False, False, True,
    ]  # fmt: skip


def test_unroll_loop_refuses_a_loop_without_constant_bounds():
    module = parse(CONSTANT_INSIDE_RUNTIME)
    outer = _loops(module)[0]
    with pytest.raises(ValueError, match="the scf.for at line 6 has a non-constant upper bound"):
        unroll_loop(outer)


def test_without_the_cleanup_the_copies_still_compute_the_same():
    before, after, _ = _unrolled(NESTED, cleanup=False)
    assert not _loops(after)
    _same_results(before, after)


def test_the_pass_is_registered_for_pipelines():
    before = parse(NESTED)
    after = parse(NESTED)
    result = PassManager.parse("scf-for-full-unroll,cse").run(after)
    assert [stage.name for stage in result.stages] == ["input", "scf-for-full-unroll", "cse"]
    assert not _loops(after)
    _same_results(before, after)


def test_a_negative_limit_is_refused():
    with pytest.raises(ValueError, match="expected a limit >= 0, got -1"):
        FullUnrollPass(limit=-1)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(
    "text",
    [ITER_ARGS, NESTED, ZERO_TRIPS, CONSTANT_INSIDE_RUNTIME, I32_BOUNDS, UNSIGNED_ACROSS_THE_SIGN],
)
def test_mlir_opt_accepts_the_unrolled_ir(text: str):
    _, after, _ = _unrolled(text)
    run_mlir_opt(str(after), "--verify-each")


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("text", [ITER_ARGS, ZERO_TRIPS, _trip_loop(12)])
def test_mlir_full_unrolling_computes_the_same(text: str):
    theirs = parse(
        run_mlir_opt(text, "--test-loop-unrolling=unroll-factor=-1", "--canonicalize", "--cse")
    )
    _, mine, _ = _unrolled(text)
    assert not _loops(theirs) and not _loops(mine)
    loads = [sum(op.name == "memref.load" for op in m.walk()) for m in (theirs, mine)]
    assert loads[0] == loads[1]
    _same_results(theirs, mine, seed=3)
