"""scf-if-hoist-common: shared ops leave both sides of an scf.if, results unchanged (the
interpreter and the simulator before and after), real MLIR accepts the output, and
convergent ops stay in their branch with the reason reported."""

from __future__ import annotations

import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.gpu.convergence import HALF_SUMS_GPU_IR
from tinycomp.interp import interpret
from tinycomp.ir import ir_equal, parse, print_ir
from tinycomp.passes import PassManager
from tinycomp.passes.hoist_common import HoistCommonPass
from tinycomp.targets.gpu_sim.simulator import simulate

PURE_AND_STORES = """\
func.func @main(%c: i1, %x: f32, %y: f32, %a: memref<4xf32>) -> f32 {
  %i = arith.constant 1 : index
  %r = scf.if %c -> (f32) {
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %p, %x : f32
    %t = arith.subf %q, %y : f32
    memref.store %x, %a[%i] : memref<4xf32>
    scf.yield %t : f32
  } else {
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %p, %x : f32
    %t = arith.divf %q, %y : f32
    memref.store %x, %a[%i] : memref<4xf32>
    scf.yield %t : f32
  }
  return %r : f32
}"""


def _run(text: str, condition: bool, rng: np.random.Generator):
    x, y = (np.float32(v) for v in rng.uniform(0.5, 2.0, 2))
    a = rng.standard_normal(4).astype(np.float32)
    result = interpret(text, condition, x, y, a)
    return float(result), a


def _hoisted(text: str) -> tuple[str, HoistCommonPass]:
    module = parse(text)
    hoist = HoistCommonPass()
    hoist.run(module)
    return print_ir(module), hoist


def test_shared_pure_ops_are_hoisted_and_shared_stores_sunk():
    after, hoist = _hoisted(PURE_AND_STORES)
    assert dict(hoist.statistics) == {"ops hoisted": 2, "ops sunk": 1}
    assert hoist.report == []
    body = parse(after).body.first_op.entry_block
    assert [op.name for op in body.ops] == [
        "arith.constant", "arith.mulf", "arith.addf", "scf.if", "memref.store", "func.return"
    ]  # fmt: skip
    then_ops = [op.name for op in body.ops[3].regions[0].entry_block.ops]
    assert then_ops == ["arith.subf", "scf.yield"]


@pytest.mark.parametrize("condition", [True, False])
def test_results_equal_the_interpreters_before_and_after(condition):
    after, _ = _hoisted(PURE_AND_STORES)
    for seed in range(3):
        before_result, before_memory = _run(PURE_AND_STORES, condition, np.random.default_rng(seed))
        after_result, after_memory = _run(after, condition, np.random.default_rng(seed))
        assert after_result == before_result
        np.testing.assert_array_equal(after_memory, before_memory)


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_accepts_the_hoisted_ir():
    after, _ = _hoisted(PURE_AND_STORES)
    run_mlir_opt(after, "--verify-each")
    assert ir_equal(parse(run_mlir_opt(after)), parse(after))


def test_nested_ifs_hoist_innermost_first_then_again():
    text = """\
func.func @main(%c: i1, %d: i1, %x: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %s = scf.if %d -> (i32) {
      %m = arith.muli %x, %x : i32
      scf.yield %m : i32
    } else {
      %m = arith.muli %x, %x : i32
      %n = arith.addi %m, %x : i32
      scf.yield %n : i32
    }
    scf.yield %s : i32
  } else {
    %m = arith.muli %x, %x : i32
    scf.yield %m : i32
  }
  return %r : i32
}"""
    after, hoist = _hoisted(text)
    assert hoist.statistics["ops hoisted"] == 2
    assert parse(after).body.first_op.entry_block.first_op.name == "arith.muli"
    rng = np.random.default_rng(3)
    for c, d in [(True, True), (True, False), (False, True)]:
        x = np.int32(rng.integers(-1000, 1000))
        assert interpret(after, c, d, x) == interpret(text, c, d, x)


WARP_OP_KERNEL = """\
gpu.module @kernels {{
  gpu.func @k(%x: memref<64xf32>, %out: memref<64xf32>) kernel {{
    %block = gpu.block_id  x
    %lane = gpu.thread_id  x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %width = arith.constant 32 : i32
    %first = arith.muli %block, %c32 : index
    %tid = arith.addi %first, %lane : index
    %full = arith.constant -1 : i32
    %one = arith.constant 1 : i32
    %c31 = arith.constant 31 : i32
    %v = memref.load %x[%tid] : memref<64xf32>
    %low = arith.cmpi eq, %block, %c0 : index
    scf.if %low {{
      %w = arith.mulf %v, %v : f32
{warp_op}
      %u = arith.addf %r, %v : f32
      memref.store %u, %out[%tid] : memref<64xf32>
{closing}
    }} else {{
      %w = arith.mulf %v, %v : f32
{warp_op}
      %u = arith.subf %r, %v : f32
      memref.store %u, %out[%tid] : memref<64xf32>
{closing}
    }}
    gpu.return
  }}
}}"""

WARP_OPS = {
    "nvvm.shfl.sync": "      %r = nvvm.shfl.sync  bfly %full, %w, %one, %c31 : f32 -> f32",
    "gpu.shuffle": "      %r, %ok = gpu.shuffle  xor %w, %one, %width : f32",
    "nvvm.vote.sync": (
        "      %p = arith.cmpf ogt, %w, %v : f32\n"
        "      %b = nvvm.vote.sync  ballot %full, %p -> i32\n"
        "      %r = arith.sitofp %b : i32 to f32"
    ),
}


@pytest.mark.parametrize("warp_op", sorted(WARP_OPS))
def test_a_warp_op_in_both_branches_stays_and_the_reason_is_reported(warp_op):
    text = WARP_OP_KERNEL.format(warp_op=WARP_OPS[warp_op], closing="      gpu.barrier")
    after, hoist = _hoisted(text)
    pure_ops_in_front = {"nvvm.vote.sync": 2}.get(warp_op, 1)  # the mulf (and the cmpf)
    assert hoist.statistics["ops hoisted"] == pure_ops_in_front
    ops = list(parse(text).walk())
    line = next(op for op in ops if op.name == warp_op).location.line
    barrier_line = next(op for op in ops if op.name == "gpu.barrier").location.line
    assert [str(kept) for kept in hoist.report] == [
        f"{warp_op} at line {line}: not hoisted above an scf.if: convergent; moving it out "
        "of the branch would change which threads execute it together",
        f"gpu.barrier at line {barrier_line}: not sunk "
        "below an scf.if: convergent; moving it out of the branch would change which "
        "threads execute it together",
    ]
    assert hoist.statistics["convergent ops kept in place"] == 2
    names_in_branches = [
        op.name for op in parse(after).walk() if op.parent_op() and op.parent_op().name == "scf.if"
    ]
    assert names_in_branches.count(warp_op) == 2
    assert names_in_branches.count("gpu.barrier") == 2

    # The branch is uniform per block (each block runs one side with all its threads),
    # so the kernel is correct as written; the pass cannot know that, and keeps the ops.
    rng = np.random.default_rng(11)
    x = rng.standard_normal(64).astype(np.float32)
    before_out, after_out = np.zeros(64, np.float32), np.zeros(64, np.float32)
    simulate(parse(text), grid=2, block=32, args=[x.copy(), before_out])  # block 0: then
    simulate(parse(after), grid=2, block=32, args=[x.copy(), after_out])
    assert np.all(before_out != 0)
    np.testing.assert_array_equal(after_out, before_out)


def test_the_half_sums_kernel_keeps_its_warp_sums():
    after, hoist = _hoisted(HALF_SUMS_GPU_IR)
    assert ir_equal(parse(after), parse(HALF_SUMS_GPU_IR))
    assert [kept.op_name for kept in hoist.report] == ["gpu.subgroup_reduce"]
    assert hoist.report[0].where == " at line 9"


def test_the_pass_runs_by_name_in_a_pipeline():
    module = parse(PURE_AND_STORES)
    result = PassManager.parse("scf-if-hoist-common").run(module)
    assert result.statistics[-1].counts == {"ops hoisted": 2, "ops sunk": 1}


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_accepts_the_warp_kernel_after_the_pass():
    text = WARP_OP_KERNEL.format(warp_op=WARP_OPS["gpu.shuffle"], closing="      gpu.barrier")
    after, _ = _hoisted(text)
    run_mlir_opt(after, "--verify-each")
