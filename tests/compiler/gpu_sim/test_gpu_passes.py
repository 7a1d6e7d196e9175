"""The passes of the GPU lowering, one by one, against the reference interpreter.

1. ``lower_affine_ops``: every affine operator (``+``, ``*``, ``floordiv``, ``ceildiv``,
   ``mod``, symbols, ``min``) computes what ``affine.apply``/``affine.min`` computed, on
   random indices.
2. ``fold_views``: loads and stores through views of views (offsets, strides) and a
   ``memref.copy`` give the same buffers as before, on random data.
3. ``gpu-map-kernels``: each kernel's loops are bound to the grid with its threads, and a
   kernel without a parallel loop is left alone with a decision that names a target.
4. ``cooperate_on_rows``: a row sum over one block of threads equals numpy's, for
   block sizes of one warp and of several.
"""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.dialects.gpu import GPUFuncOp, address_space
from tinycomp.frontend import TensorSpec, trace
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.types import MemRefType, i64
from tinycomp.ir.values import BlockArgument
from tinycomp.passes import PassManager
from tinycomp.passes.gpu import GpuMappingPass
from tinycomp.passes.gpu.fold_views import fold_views
from tinycomp.passes.gpu.lower_affine import lower_affine_ops
from tinycomp.passes.gpu.row_cooperation import cooperate_on_rows
from tinycomp.targets.gpu_sim.simulator import simulate

AFFINE = """
func.func @f(%i: index, %j: index, %n: index) -> (index, index) {
  %a = affine.apply affine_map<(d0, d1)[s0] -> ((d0 * 3 + d1) floordiv 4 + (d1 mod 5) * s0)>
      (%i, %j)[%n]
  %b = affine.min affine_map<(d0, d1)[s0] -> (-d0 + s0, d1 ceildiv 3, 7)>(%i, %j)[%n]
  return %a, %b : index, index
}
"""


def test_lower_affine_computes_the_same_indices():
    module = parse(AFFINE)
    lowered = parse(AFFINE)
    lower_affine_ops(lowered)
    lowered.verify()
    assert not any(op.name.startswith("affine.") for op in lowered.walk())
    rng = np.random.default_rng(0)
    for i, j, n in rng.integers(0, 40, size=(50, 3)):
        args = (int(i), int(j), int(n) + int(i))
        assert interpret(lowered, *args, entry="f") == interpret(module, *args, entry="f")


VIEWS = """
func.func @f(%a: memref<9x10xf32>, %b: memref<9x10xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = memref.subview %a[%i, 1] [4, 6] [2, 1]
      : memref<9x10xf32> to memref<4x6xf32, strided<[20, 1], offset: ?>>
  %w = memref.subview %v[1, %i] [2, 3] [1, 2]
      : memref<4x6xf32, strided<[20, 1], offset: ?>> to memref<2x3xf32, strided<[20, 2], offset: ?>>
  %x = memref.load %w[%c1, %c2] : memref<2x3xf32, strided<[20, 2], offset: ?>>
  %y = arith.addf %x, %x : f32
  memref.store %y, %v[%c2, %c1] : memref<4x6xf32, strided<[20, 1], offset: ?>>
  %u = memref.subview %b[%c1, 2] [3, 5] [1, 1]
      : memref<9x10xf32> to memref<3x5xf32, strided<[10, 1], offset: ?>>
  %t = memref.subview %a[0, 0] [3, 5] [1, 1]
      : memref<9x10xf32> to memref<3x5xf32, strided<[10, 1]>>
  memref.copy %t, %u
      : memref<3x5xf32, strided<[10, 1]>> to memref<3x5xf32, strided<[10, 1], offset: ?>>
  return
}
"""


@pytest.mark.parametrize("i", [0, 1])
def test_folded_views_and_copies_write_the_same_buffers(i):
    module, folded = parse(VIEWS), parse(VIEWS)
    fold_views(folded)
    folded.verify()
    names = {op.name for op in folded.walk()}
    assert "memref.subview" not in names and "memref.copy" not in names
    rng = np.random.default_rng(i)
    a, b = rng.standard_normal((2, 9, 10)).astype(np.float32)
    expected_a, expected_b, before = a.copy(), b.copy(), b.copy()
    interpret(module, expected_a, expected_b, i, entry="f")
    interpret(folded, a, b, i, entry="f")
    np.testing.assert_array_equal(a, expected_a)
    np.testing.assert_array_equal(b, expected_b)
    assert not np.array_equal(b, before)  # the copy wrote something


def _map(fn, *specs):
    module = trace(fn, *specs)
    mapping = GpuMappingPass()
    PassManager([mapping]).run(module)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    return mapping.decisions, loops


def test_a_matmul_is_bound_to_a_2d_grid_of_16x16_threads():
    (decision,), loops = _map(lambda a, b: a @ b, TensorSpec((40, 8)), TensorSpec((8, 20)))
    assert decision.strategy == "contraction" and decision.chosen
    binds = [(str(op.attributes["tinycomp.bind"].value), op.attributes["tinycomp.threads"].value)
             for op in loops]  # fmt: skip
    assert binds == [("gpu.block.y", 16), ("gpu.block.x", 16)]
    assert "grid 2x3" in decision.reason


def test_a_full_reduction_gets_no_mapping_and_names_a_target():
    (decision,), loops = _map(lambda x: x.sum(), TensorSpec((7, 5)))
    assert not decision.chosen and not loops
    assert "no parallel loop" in decision.reason and "'cpu' or 'interp'" in decision.reason


ROW_SUM = """
gpu.module @k {
  gpu.func @row_sum(%x: memref<3x{n}xf32>, %acc: memref<3x1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cn = arith.constant {n} : index
    %zero = arith.constant 0.0 : f32
    %row = gpu.block_id x
    memref.store %zero, %acc[%row, %c0] : memref<3x1xf32>
    scf.for %j = %c0 to %cn step %c1 {
      %in = memref.load %x[%row, %j] : memref<3x{n}xf32>
      %out = memref.load %acc[%row, %c0] : memref<3x1xf32>
      %s = arith.addf %in, %out : f32
      memref.store %s, %acc[%row, %c0] : memref<3x1xf32>
    }
    gpu.return
  }
}
"""


@pytest.mark.parametrize(("n", "threads"), [(45, 32), (300, 128), (7, 64)])
def test_a_block_of_threads_sums_a_row_together(n, threads):
    module = parse(ROW_SUM.replace("{n}", str(n)))
    func = next(op for op in module.walk() if isinstance(op, GPUFuncOp))
    cooperate_on_rows(func.entry_block, threads)
    tree = [op for op in func.walk() if op.name == "memref.alloc"]
    assert len(tree) == (1 if threads > 32 else 0)
    for alloc in tree:  # the warps' totals: a buffer the kernel declares as shared
        alloc.results[0].replace_all_uses_with(_shared(func, alloc.results[0].type))
        alloc.erase()
    module.verify()
    x = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)
    acc = np.full((3, 1), np.nan, np.float32)
    simulate(func, grid=3, block=threads, args=[x, acc])
    np.testing.assert_allclose(acc[:, 0], x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)


def _shared(func: GPUFuncOp, memref_type: MemRefType) -> BlockArgument:
    shared = MemRefType(
        memref_type.shape, memref_type.element_type, memory_space=address_space("workgroup")
    )
    argument = func.entry_block.add_argument(shared)
    func.attributes["workgroup_attributions"] = IntegerAttr(1, i64)
    return argument
