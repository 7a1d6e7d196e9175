"""Loop-invariant code motion: the same IR as ``mlir-opt-22 --loop-invariant-code-motion``
on each input, the same numbers before and after in the interpreter, and convergent ops
left in their loops."""

from __future__ import annotations

import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.interp import interpret
from tinycomp.ir import first_difference, parse, print_ir
from tinycomp.passes import PassManager
from tinycomp.passes.licm import LOOP_CONVERGENT_REASON, LoopInvariantCodeMotionPass

NESTED_FOR = """
func.func @f(%a: memref<?xf32>, %n: index, %x: f32, %y: f32, %i0: i32, %i1: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = arith.addf %x, %y : f32
    %t = arith.mulf %s, %s : f32
    %r = arith.remsi %i0, %i1 : i32
    %c7 = arith.constant 7 : i32
    %d7 = arith.divsi %i0, %c7 : i32
    %d = arith.divsi %i0, %i1 : i32
    %sum = arith.addi %d7, %d : i32
    %sum2 = arith.addi %sum, %r : i32
    %fs = arith.sitofp %sum2 : i32 to f32
    %cmp = arith.cmpi slt, %i0, %i1 : i32
    %ld = memref.load %a[%c0] : memref<?xf32>
    %u = arith.addf %t, %ld : f32
    %sel = scf.if %cmp -> f32 {
      scf.yield %t : f32
    } else {
      scf.yield %s : f32
    }
    %u2 = arith.addf %u, %sel : f32
    %u3 = arith.addf %u2, %fs : f32
    memref.store %u3, %a[%i] : memref<?xf32>
    scf.for %j = %c0 to %n step %c1 {
      %w = arith.mulf %x, %x : f32
      %v = arith.addf %w, %y : f32
      %jf = arith.index_cast %j : index to i32
      %jv = arith.sitofp %jf : i32 to f32
      %v2 = arith.addf %v, %jv : f32
      memref.store %v2, %a[%j] : memref<?xf32>
    }
  }
  return
}
"""

WHILE_AND_INNER_LOOPS = """
func.func @f(%a: memref<?xf32>, %n: index, %x: f32, %y: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w:2 = scf.while (%k = %c0) : (index) -> (index, index) {
    %s = arith.mulf %x, %x : f32
    %dim = memref.dim %a, %c0 : memref<?xf32>
    %cond = arith.cmpi slt, %k, %dim : index
    scf.condition(%cond) %k, %dim : index, index
  } do {
  ^bb0(%k2: index, %d2: index):
    %q = arith.addi %n, %c1 : index
    %inner = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %x) -> f32 {
      %m = arith.mulf %acc, %x : f32
      scf.yield %m : f32
    }
    %inner2 = scf.for %j = %c0 to %n step %q iter_args(%acc = %x) -> f32 {
      %m = arith.addf %acc, %x : f32
      scf.yield %m : f32
    }
    %sum = arith.addf %inner, %inner2 : f32
    memref.store %sum, %a[%k2] : memref<?xf32>
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %k3 : index
  }
  return
}
"""

PARALLEL_AND_AFFINE = """
func.func @f(%a: memref<?xf32>, %b: memref<10xf32>, %n: index, %x: f32, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %e = math.exp %x : f32
    %sel = arith.select %p, %e, %x : f32
    memref.store %sel, %a[%i] : memref<?xf32>
    scf.reduce
  }
  affine.for %i = 0 to 10 {
    %e = math.sqrt %x : f32
    %inner = affine.for %j = 0 to 4 iter_args(%acc = %x) -> f32 {
      %m = arith.mulf %acc, %e : f32
      affine.yield %m : f32
    }
    %sum = arith.addf %e, %inner : f32
    memref.store %sum, %b[%i] : memref<10xf32>
  }
  return
}
"""

DIVISIONS = """
func.func @f(%a: memref<?xi32>, %n: index, %x: i32, %y: i32, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm1 = arith.constant -1 : i32
  %c5 = arith.constant 5 : i32
  scf.for %i = %c0 to %n step %c1 {
    %d1 = arith.divsi %x, %cm1 : i32
    %d2 = arith.divui %x, %cm1 : i32
    %d3 = arith.divui %x, %c5 : i32
    %d4 = arith.ceildivsi %x, %y : i32
    %d5 = arith.floordivsi %x, %y : i32
    %d6 = arith.remui %x, %y : i32
    %d7 = arith.ceildivui %x, %c5 : i32
    %dim = memref.dim %a, %k : memref<?xi32>
    %s1 = arith.addi %d1, %d2 : i32
    %s2 = arith.addi %s1, %d3 : i32
    %s3 = arith.addi %s2, %d4 : i32
    %s4 = arith.addi %s3, %d5 : i32
    %s5 = arith.addi %s4, %d6 : i32
    %s6 = arith.addi %s5, %d7 : i32
    memref.store %s6, %a[%i] : memref<?xi32>
  }
  return
}
"""

CASES = {
    "nested_for": NESTED_FOR,
    "while_and_inner_loops": WHILE_AND_INNER_LOOPS,
    "parallel_and_affine": PARALLEL_AND_AFFINE,
    "divisions": DIVISIONS,
}


def hoisted(text: str) -> tuple[object, dict]:
    module = parse(text)
    licm = LoopInvariantCodeMotionPass()
    licm.run(module)
    return module, dict(licm.statistics)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("name", CASES)
def test_the_same_ir_as_mlir_opt(name):
    ours, _ = hoisted(CASES[name])
    theirs = parse(run_mlir_opt(CASES[name], "--loop-invariant-code-motion"))
    assert first_difference(ours, theirs) is None, print_ir(ours)


def test_hoists_through_nested_loops_and_keeps_what_must_stay():
    module, statistics = hoisted(NESTED_FOR)
    func = module.body.first_op
    outer = next(op for op in func.entry_block.ops if op.name == "scf.for")
    outside = [op.name for op in func.entry_block.ops[: func.entry_block.ops.index(outer)]]
    # the inner loop's x*x + y went out of both loops; scf.if with invariant operands too
    assert outside.count("arith.mulf") == 2 and "scf.if" in outside
    inside = [op.name for op in outer.regions[0].entry_block.ops]
    # the load (a store in the loop may change it) and the division by %i1 stay
    assert "memref.load" in inside and "arith.divsi" in inside
    assert statistics == {"ops hoisted": 2 + 9}  # 2 out of the inner loop, 9 out of both


def test_a_loop_without_invariants_is_unchanged():
    text = """
    func.func @f(%a: memref<?xf32>, %n: index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        %v = memref.load %a[%i] : memref<?xf32>
        %w = arith.addf %v, %v : f32
        memref.store %w, %a[%i] : memref<?xf32>
      }
      return
    }"""
    module, statistics = hoisted(text)
    assert first_difference(module, parse(text)) is None and statistics == {}


def _arguments(name: str, rng: np.random.Generator) -> list:
    n = int(rng.integers(2, 6))
    x = np.float32(rng.uniform(0.5, 1.5))
    if name == "nested_for":
        i1 = np.int32(rng.integers(1, 50))
        return [
            rng.standard_normal(8).astype(np.float32),
            n,
            x,
            np.float32(0.75),
            np.int32(rng.integers(-100, 100)),
            i1,
        ]
    if name == "while_and_inner_loops":
        return [rng.standard_normal(n).astype(np.float32), n, x, np.int32(3)]
    if name == "parallel_and_affine":
        return [
            rng.standard_normal(8).astype(np.float32),
            rng.standard_normal(10).astype(np.float32),
            n,
            x,
            np.bool_(rng.integers(0, 2)),
        ]
    return [
        rng.integers(1, 9, 8).astype(np.int32),
        n,
        np.int32(rng.integers(-1000, 1000)),
        np.int32(rng.integers(1, 40)),
        int(rng.integers(0, 1)),
    ]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", CASES)
def test_the_interpreter_gives_the_same_numbers_before_and_after(name, seed):
    before, after = parse(CASES[name]), hoisted(CASES[name])[0]
    arguments = _arguments(name, np.random.default_rng(seed))
    first = [np.copy(a) if isinstance(a, np.ndarray) else a for a in arguments]
    second = [np.copy(a) if isinstance(a, np.ndarray) else a for a in arguments]
    interpret(before, *first, entry="f")
    interpret(after, *second, entry="f")
    changed = False
    for original, a, b in zip(arguments, first, second, strict=True):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
            changed = changed or not np.array_equal(a, original)
    assert changed  # the loops wrote something


GPU_LOOP = """
gpu.module @kernels {
  gpu.func @k(%out: memref<?xf32>, %x: f32, %n: index)
      workgroup(%tile: memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %tx = gpu.thread_id x
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> f32 {
      %bd = gpu.block_dim x
      %sq = arith.mulf %x, %x : f32
      %sh, %ok = gpu.shuffle xor %x, %c1_i32, %c32_i32 : f32
      gpu.barrier
      %t = memref.load %tile[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      %s1 = arith.addf %acc, %sh : f32
      %s2 = arith.addf %s1, %sq : f32
      %s3 = arith.addf %s2, %t : f32
      scf.yield %s3 : f32
    }
    memref.store %r, %out[%tx] : memref<?xf32>
    gpu.return
  }
}
"""


def test_gpu_loop_keeps_convergent_ops_and_barriers_in_place():
    module, statistics = hoisted(GPU_LOOP)
    loop = next(op for op in module.walk() if op.name == "scf.for")
    inside = [op.name for op in loop.regions[0].entry_block.ops]
    assert inside[:3] == ["gpu.shuffle", "gpu.barrier", "memref.load"]
    assert "gpu.block_dim" not in inside and "arith.mulf" not in inside
    # the invariant shuffle is reported; the barrier is not pure, so convergence is not why
    assert statistics == {"ops hoisted": 2, "convergent ops kept in place": 1}


def test_licm_reports_each_convergent_op_it_keeps_in_place():
    licm = LoopInvariantCodeMotionPass()
    licm.run(parse(GPU_LOOP))
    assert [str(kept) for kept in licm.report] == [
        "gpu.shuffle at line 13: not hoisted out of the scf.for: " + LOOP_CONVERGENT_REASON
    ]


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_hoists_the_pure_shuffle_that_tinycomp_keeps():
    theirs = parse(run_mlir_opt(GPU_LOOP, "--loop-invariant-code-motion"))
    loop = next(op for op in theirs.walk() if op.name == "scf.for")
    assert "gpu.shuffle" not in [op.name for op in loop.regions[0].entry_block.ops]
    run_mlir_opt(print_ir(hoisted(GPU_LOOP)[0]), "--verify-each")


def test_the_pass_runs_by_name_in_a_pipeline():
    module = parse(NESTED_FOR)
    PassManager.parse("loop-invariant-code-motion").run(module)
    assert first_difference(module, hoisted(NESTED_FOR)[0]) is None
