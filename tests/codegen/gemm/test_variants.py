"""The pipeline's matmuls the GEMM is compared with: interchange, naive, tiled + vectorized."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.codegen.gemm import InterchangePass, naive_matmul, tiled_matmul
from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.passes.errors import PassError

GENERIC = """func.func @f(%x: memref<3x5xf32>, %y: memref<5x4xf32>, %out: memref<3x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<3x5xf32>, memref<5x4xf32>) outs(%out : memref<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %j = linalg.index 1 : index
    %jf = arith.index_cast %j : index to i32
    %jx = arith.sitofp %jf : i32 to f32
    %ab = arith.mulf %a, %b : f32
    %abj = arith.addf %ab, %jx : f32
    %s = arith.addf %c, %abj : f32
    linalg.yield %s : f32
  }
  return
}"""


def test_interchange_keeps_the_meaning():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    y = rng.standard_normal((5, 4)).astype(np.float32)
    before = np.zeros((3, 4), np.float32)
    interpret(GENERIC, x, y, before, entry="f")
    module = parse(GENERIC)
    interchange = InterchangePass((0, 2, 1))
    interchange.run(module)
    generic = next(op for op in module.walk() if op.name == "linalg.generic")
    assert generic.iterator_types() == ["parallel", "reduction", "parallel"]
    assert [str(m) for m in generic.indexing_maps()][1] == "(d0, d1, d2) -> (d1, d2)"
    index_op = next(op for op in module.walk() if op.name == "linalg.index")
    assert index_op.dim == 2  # j is now loop 2
    after = np.zeros((3, 4), np.float32)
    interpret(module, x, y, after, entry="f")
    np.testing.assert_allclose(after, before, rtol=1e-6)
    assert dict(interchange.statistics) == {"ops interchanged": 1}


def test_interchange_rejects_a_non_permutation():
    with pytest.raises(PassError, match=r"permutation of 0..2, got \(0, 0, 1\)"):
        InterchangePass((0, 0, 1))


@pytest.mark.parametrize(("m", "n", "k"), [(5, 7, 3), (17, 40, 33)])
def test_naive_and_tiled_equal_numpy(m, n, k):
    rng = np.random.default_rng(m)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    expected = a.astype(np.float64) @ b
    np.testing.assert_allclose(naive_matmul(a, b)(a, b), expected, rtol=1e-5, atol=1e-5)
    tiled, report = tiled_matmul(a, b, tile_sizes=(4, 16, 8), lanes=8)
    np.testing.assert_allclose(tiled(a, b), expected, rtol=1e-5, atol=1e-5)
    assert "innermost loops vectorized" in report


def test_tiled_inner_loop_is_vector_fmas():
    a = np.ones((16, 64), np.float32)
    b = np.ones((64, 64), np.float32)
    tiled, report = tiled_matmul(a, b, tile_sizes=(8, 32, 16), lanes=8)
    assert "2 of 2 innermost loops vectorized" in report
    ir = tiled.cpu_module.llvm_ir
    assert "@llvm.fma.v8f32" in ir
