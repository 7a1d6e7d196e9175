"""What chapter 04 says about MLIR, checked against ``mlir-opt-22``.

1. ``mlir-opt --linalg-generalize-named-ops`` makes the same generics of the traced dense
   layer as tinycomp's ``GeneralizePass``: the fill yields its value, the matmul's payload
   adds the product to the accumulator, accumulator first, and the pass's greedy driver
   merges the two equal constants;
2. the generalized ``linalg.conv_2d_nhwc_hwcf`` has the loops ``(n, oh, ow, f, kh, kw, c)``,
   the last three reductions, and the stride in the input map (``d1 * 2 + d4``);
3. MLIR prints the ``-inf`` init of a max as the hex float ``0xFF800000``, as tinycomp does.
"""

from __future__ import annotations

import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.frontend import TensorSpec, conv2d, maximum, trace
from tinycomp.ir import ir_equal, parse
from tinycomp.passes import GeneralizePass


def dense_relu(x, w, b):
    return maximum(x @ w + b, 0.0)


def generalized(module):
    copy = parse(str(module))
    GeneralizePass().run(copy)
    return copy


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_generalizes_the_dense_layer_as_tinycomp_does():
    layer = trace(dense_relu, TensorSpec((4, 8)), TensorSpec((8, 16)), TensorSpec((16,)))
    theirs = parse(run_mlir_opt(str(layer), "--linalg-generalize-named-ops"))
    assert ir_equal(theirs, generalized(layer))
    constants = [op for op in theirs.walk() if op.name == "arith.constant"]
    assert len(constants) == 1  # %cst and %cst_0 merged
    matmul = [op for op in theirs.walk() if op.name == "linalg.generic"][1]
    mul, add, _ = matmul.regions[0].blocks[0].ops
    assert add.operands[0] is matmul.regions[0].blocks[0].arguments[2]  # %out + %in * %in_0
    assert add.operands[1] is mul.results[0]


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_generalizes_the_strided_convolution_with_the_chapters_loops():
    module = trace(
        lambda x, w: conv2d(x, w, stride=2, padding=1),
        TensorSpec((1, 6, 6, 2)),
        TensorSpec((3, 3, 2, 4)),
    )
    theirs = parse(run_mlir_opt(str(module), "--linalg-generalize-named-ops"))
    assert ir_equal(theirs, generalized(module))
    conv = [op for op in theirs.walk() if op.name == "linalg.generic"][-1]
    assert conv.iterator_types() == ["parallel"] * 4 + ["reduction"] * 3
    assert str(conv.indexing_maps()[0]).endswith("-> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)")


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_prints_minus_infinity_as_hex():
    row_max = trace(lambda x: x.max(axis=-1, keepdims=True), TensorSpec((4, 8)))
    assert "0xFF800000" in str(row_max)
    assert "arith.constant 0xFF800000 : f32" in run_mlir_opt(str(row_max))
