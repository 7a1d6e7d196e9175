"""interchange-loops: a permutation of a linalg.generic's loops keeps what it computes."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.interp import interpret
from tinycomp.ir import parse
from tinycomp.passes.errors import PassError
from tinycomp.passes.interchange import InterchangePass

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
