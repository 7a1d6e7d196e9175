"""The example kernels' IR: accepted by mlir-opt, parsed back equal, with the structure
each kernel's algorithm needs and the Python line on every op."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.dialects.nvvm import shuffle_clamp
from tinycomp.ir import ir_equal, parse, print_ir

from . import kernels
from .helpers import kernel_func, op_names, ops_named

KERNELS = kernels.KERNELS


def module_of(name: str):
    kernel, make_args = KERNELS[name]
    return kernel.specialize(*make_args())


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_mlir_opt_accepts_every_kernel_and_it_parses_back_equal(name):
    module = module_of(name)
    text = print_ir(module)
    run_mlir_opt(text, "--verify-each")
    run_mlir_opt(print_ir(module, generic=True), "--verify-each")
    assert ir_equal(module, parse(text))
    assert ir_equal(module, parse(run_mlir_opt(text, "--mlir-print-op-generic")))


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_op_has_its_kernel_line(name):
    kernel, _ = KERNELS[name]
    lines, first = inspect.getsourcelines(kernel.fn)
    module = module_of(name)
    func = kernel_func(module)
    for op in func.walk():
        assert op.location is not None, op.name
        assert Path(op.location.file).name == "kernels.py"
        assert first <= op.location.line < first + len(lines), (op.name, op.location)


def test_saxpy_reads_like_the_kernel():
    module = module_of("saxpy")
    func = kernel_func(module)
    assert [a.name_hint for a in func.arguments] == ["a", "x", "y", "n"]
    assert [str(a.type) for a in func.arguments] == ["f32", "memref<?xf32>", "memref<?xf32>", "i32"]
    text = print_ir(module)
    assert "%i = arith.addi" in text and "arith.index_cast %n : i32 to index" in text
    (branch,) = ops_named(module, "scf.if")
    assert [op.name for op in branch.regions[0].entry_block.ops] == [
        "memref.load", "arith.mulf", "memref.load", "arith.addf", "memref.store", "scf.yield",
    ]  # fmt: skip


def test_naive_matmul_carries_the_sum_through_the_k_loop():
    module = module_of("matmul_naive")
    (loop,) = ops_named(module, "scf.for")
    assert [str(t) for t in loop.result_types] == ["f32"]
    assert loop.upper_bound.op.name == "memref.dim"
    body_ops = [op.name for op in loop.regions[0].entry_block.ops]
    assert body_ops.count("memref.load") == 2 and "arith.mulf" in body_ops
    (store,) = ops_named(module, "memref.store")
    assert store.operands[0] is loop.results[0]


def test_tiled_matmul_has_two_shared_tiles_and_two_barriers_per_tile():
    module = module_of("matmul_tiled")
    func = kernel_func(module)
    assert [str(a.type) for a in func.workgroup_attributions] == [
        "memref<16x16xf32, #gpu.address_space<workgroup>>"
    ] * 2
    tile_loop = next(op for op in ops_named(module, "scf.for") if op.parent_op() is func)
    body = [op.name for op in tile_loop.regions[0].entry_block.ops]
    assert body.count("gpu.barrier") == 2
    assert body.index("gpu.barrier") < body.index("scf.for") < len(body) - 2
    assert str(tile_loop.step.op.attributes["value"]) == "16 : index"
    guarded_loads = [op for op in ops_named(module, "scf.if") if op.results]
    assert len(guarded_loads) == 2  # the tiles' loads are guarded, yielding 0.0 outside


def test_warp_reduction_shuffles_down_with_the_full_warp_clamp():
    module = module_of("warp_reduce")
    (shuffle,) = ops_named(module, "nvvm.shfl.sync")
    assert shuffle.kind == "down"
    assert shuffle.clamp.op.attributes["value"].value == shuffle_clamp("down", 32) == 31
    assert shuffle.mask.op.attributes["value"].value == -1
    (loop,) = ops_named(module, "scf.while")
    assert [str(t) for t in loop.result_types] == ["f32", "i32"]
    (atomic,) = ops_named(module, "memref.atomic_rmw")
    assert atomic.kind == "addf" and atomic.value is loop.results[0]


def test_block_reduction_halves_the_stride_in_shared_memory():
    module = module_of("block_reduce")
    assert len(ops_named(module, "gpu.barrier")) == 2
    (loop,) = ops_named(module, "scf.while")
    assert [str(t) for t in loop.result_types] == ["index"]
    assert "arith.divsi" in [op.name for op in loop.after_block.ops]


def test_transpose_pads_its_tile_to_33_columns():
    func = kernel_func(module_of("transpose"))
    (tile,) = func.workgroup_attributions
    assert str(tile.type) == "memref<32x33xf32, #gpu.address_space<workgroup>>"
    assert tile.name_hint == "tile"


def test_histogram_counts_in_shared_memory_then_global():
    module = module_of("histogram")
    atomics = ops_named(module, "memref.atomic_rmw")
    assert [a.kind for a in atomics] == ["addi", "addi"]
    spaces = [str(a.memref.type) for a in atomics]
    assert spaces == ["memref<64xi32, #gpu.address_space<workgroup>>", "memref<?xi32>"]
    assert "arith.remsi" in op_names(module)


def test_warp_scan_shuffles_up_and_adds_only_where_the_source_exists():
    module = module_of("warp_inclusive_scan")
    (shuffle,) = ops_named(module, "nvvm.shfl.sync")
    assert shuffle.kind == "up" and shuffle.clamp.op.attributes["value"].value == 0
    (loop,) = ops_named(module, "scf.while")
    inner = [op for op in loop.after_block.ops if op.name == "scf.if"]
    assert len(inner) == 1 and [str(t) for t in inner[0].result_types] == ["f32"]


def test_ballot_counts_the_set_bits():
    module = module_of("ballot_count")
    (vote,) = ops_named(module, "nvvm.vote.sync")
    assert vote.kind == "ballot" and str(vote.result.type) == "i32"
    short_circuit = vote.operands[1].op
    assert short_circuit.name == "scf.if"  # `i < n and x[i] > 0.0` reads only in bounds


def test_float4_copy_loads_and_stores_four_lanes():
    module = module_of("float4_copy")
    (load,) = ops_named(module, "vector.load")
    assert str(load.result.type) == "vector<4xf32>"
    assert len(ops_named(module, "vector.extract")) == 4
    (pack,) = ops_named(module, "vector.from_elements")
    assert [v.op.name for v in pack.operands] == ["vector.extract"] * 4
    (store,) = ops_named(module, "vector.store")
    assert store.operands[0] is pack.result


def test_an_early_return_branches_to_an_exit_block_that_comes_last():
    func = kernel_func(module_of("relu_early_exit"))
    blocks = func.regions[0].blocks
    assert len(blocks) == 3
    branch = blocks[0].last_op
    assert branch.name == "cf.cond_br" and branch.successors == (blocks[2], blocks[1])
    assert [op.name for op in blocks[2].ops] == ["gpu.return"]
    assert blocks[1].last_op.name == "gpu.return"
    assert "arith.maxnumf" in [op.name for op in blocks[1].ops]
