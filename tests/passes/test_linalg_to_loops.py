"""``convert-linalg-to-loops``: linalg on memrefs becomes scf.for nests that compute the
same memref contents (checked with the interpreter on random inputs) and that real
``mlir-opt`` accepts."""

from __future__ import annotations

import numpy as np
import pytest
from interp import kernels
from interp.helpers import rng_for
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.ir.verifier import verify
from tinycomp.passes import PassManager
from tinycomp.passes.linalg_to_loops import LinalgToLoopsPass

TRANSPOSE = """
func.func @main(%X: memref<5x7xf32>, %Y: memref<7x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%X : memref<5x7xf32>) outs(%Y : memref<7x5xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}"""

ROW_SUM = """
func.func @main(%X: memref<6x9xf32>, %S: memref<6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%X : memref<6x9xf32>) outs(%S : memref<6xf32>) {
  ^bb0(%x: f32, %s: f32):
    %t = arith.addf %s, %x : f32
    linalg.yield %t : f32
  }
  return
}"""

DYNAMIC_SCALE_BY_INDEX = """
func.func @main(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%X : memref<?x?xf32>) outs(%Y : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %r = arith.mulf %x, %jf : f32
    linalg.yield %r : f32
  }
  return
}"""

INDEX_ARITHMETIC = """
func.func @main(%A: memref<4xf32>, %B: memref<4xf32>, %C: memref<4xf32>, %Y: memref<10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i mod 4)>, affine_map<(i) -> (i floordiv 3)>,
                                   affine_map<(i) -> (i ceildiv 3)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%A, %B, %C : memref<4xf32>, memref<4xf32>, memref<4xf32>) outs(%Y : memref<10xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %y: f32):
    %ab = arith.mulf %a, %b : f32
    %r = arith.addf %ab, %c : f32
    linalg.yield %r : f32
  }
  return
}"""

NAMED_MATMUL = """
func.func @main(%A: memref<4x6xf32>, %B: memref<6x3xf32>, %C: memref<4x3xf32>) {
  linalg.matmul ins(%A, %B : memref<4x6xf32>, memref<6x3xf32>) outs(%C : memref<4x3xf32>)
  return
}"""


def conv_text() -> str:
    return kernels.conv_memrefs((2, 9, 11, 3), (3, 3, 3, 4), (2, 4, 5, 4), stride=2)


def random_arguments(text: str, seed_key: str, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    rng = rng_for("linalg-to-loops", seed_key)
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


CASES = {
    "matmul": (kernels.matmul_memrefs(5, 4, 7), [(5, 7), (7, 4), (5, 4)]),
    "named matmul": (NAMED_MATMUL, [(4, 6), (6, 3), (4, 3)]),
    "conv2d nhwc stride 2": (conv_text(), [(2, 9, 11, 3), (3, 3, 3, 4), (2, 4, 5, 4)]),
    "transpose": (TRANSPOSE, [(5, 7), (7, 5)]),
    "row sum": (ROW_SUM, [(6, 9), (6,)]),
    "softmax": (kernels.softmax_memrefs(3, 8), [(3, 8), (3, 8)]),
    "mod, floordiv and ceildiv indices": (INDEX_ARITHMETIC, [(4,), (4,), (4,), (10,)]),
    "dynamic sizes and linalg.index": (DYNAMIC_SCALE_BY_INDEX, [(3, 5), (3, 5)]),
}


def lowered(text: str):
    module = parse(text)
    LinalgToLoopsPass().run(module)
    return module


@pytest.mark.parametrize("case", sorted(CASES))
def test_lowering_removes_linalg_and_keeps_the_memref_contents(case):
    text, shapes = CASES[case]
    before = random_arguments(text, case, shapes)
    after = [array.copy() for array in before]
    interpret(text, *before)
    module = lowered(text)
    verify(module)
    assert not [op.name for op in module.walk() if op.name.startswith("linalg.")]
    assert any(op.name == "scf.for" for op in module.walk())
    interpret(module, *after)
    for expected, actual in zip(before, after, strict=True):
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)


def test_results_agree_with_numpy():
    text, shapes = CASES["matmul"]
    a, b, c = random_arguments(text, "numpy matmul", shapes)
    expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    interpret(lowered(text), a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def test_conv_indices_use_affine_apply_and_loops_follow_the_loop_dims():
    module = lowered(conv_text())
    assert not [op for op in module.walk() if op.name in ("arith.muli", "arith.addi")]
    applies = [op for op in module.walk() if op.name == "affine.apply"]
    assert len(applies) == 2  # oh * 2 + kh, ow * 2 + kw; plain dims stay the IVs
    assert all(op.map.num_results == 1 and op.map.num_symbols == 0 for op in applies)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert len(loops) == 7
    induction_vars = [loop.induction_var for loop in loops]
    assert all(list(op.operands) == induction_vars for op in applies)  # fed every IV
    trip_counts = [loop.upper_bound.defining_op().value.value for loop in loops]
    assert trip_counts == [2, 4, 5, 4, 3, 3, 3]


def test_dynamic_bounds_come_from_memref_dim():
    module = lowered(DYNAMIC_SCALE_BY_INDEX)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert [loop.upper_bound.defining_op().name for loop in loops] == ["memref.dim"] * 2


def test_tensor_ops_are_left_alone_with_a_reason():
    text = kernels.matmul_tensors(3, 4, 5)
    module = parse(text)
    lowering = LinalgToLoopsPass()
    lowering.run(module)
    assert any(op.name == "linalg.generic" for op in module.walk())
    tensor_ops = sum(1 for op in module.walk() if isinstance(op, StructuredOp))
    assert dict(lowering.statistics) == {
        "left alone: tensor semantics (bufferize first)": tensor_ops
    }


def test_registered_for_pipelines():
    module = parse(TRANSPOSE)
    result = PassManager.parse("convert-linalg-to-loops").run(module)
    assert [stage.name for stage in result.stages] == ["input", "convert-linalg-to-loops"]
    assert not any(isinstance(op, StructuredOp) for op in module.walk())


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("case", sorted(CASES))
def test_mlir_opt_accepts_the_lowered_module(case):
    text, _ = CASES[case]
    run_mlir_opt(str(lowered(text)), "--verify-each")
