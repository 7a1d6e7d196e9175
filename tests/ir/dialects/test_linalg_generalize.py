"""``generalize()`` agrees with ``mlir-opt-22 --linalg-generalize-named-ops``.

Every named op of a module is replaced by its ``generalize()``; mlir-opt's pass does
the same to the module's text. The two results must be structurally equal
(``ir_equal``): same indexing maps, iterator types and payload ops, op for op. Every
result is returned, because mlir-opt's rewriter erases unused pure ops.
"""

from __future__ import annotations

import pytest

from tinycomp.dialects.linalg import GenericOp, StructuredOp
from tinycomp.ir import Builder, ModuleOp, first_difference, parse, print_ir

from ..mlir_opt import requires_mlir_opt, run_mlir_opt

pytestmark = [pytest.mark.mlir, requires_mlir_opt]

ON_BUFFERS = """
func.func @named(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>, %x: f32,
                 %t: memref<16x4xf32>, %r: memref<4xf32>, %ai: memref<2x4x8xi8>,
                 %bi: memref<2x8x16xi8>, %ci: memref<2x4x16xi32>, %i: memref<1x10x10x3xf16>,
                 %w: memref<3x3x3x8xf16>, %o: memref<1x4x2x8xf32>, %at: memref<8x4xf32>,
                 %bt: memref<16x8xf32>) {
  linalg.fill ins(%x : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.transpose ins(%c : memref<4x16xf32>) outs(%t : memref<16x4xf32>) permutation = [1, 0]
  linalg.reduce { arith.addf } ins(%c : memref<4x16xf32>) outs(%r : memref<4xf32>)
      dimensions = [1]
  linalg.reduce ins(%c : memref<4x16xf32>) outs(%r : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  linalg.broadcast ins(%r : memref<4xf32>) outs(%c : memref<4x16xf32>) dimensions = [1]
  linalg.map { arith.subf } ins(%c, %c : memref<4x16xf32>, memref<4x16xf32>)
      outs(%c : memref<4x16xf32>)
  linalg.batch_matmul {cast = #linalg.type_fn<cast_unsigned>}
      ins(%ai, %bi : memref<2x4x8xi8>, memref<2x8x16xi8>) outs(%ci : memref<2x4x16xi32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>,
                            strides = dense<[2, 3]> : tensor<2xi64>}
      ins(%i, %w : memref<1x10x10x3xf16>, memref<3x3x3x8xf16>) outs(%o : memref<1x4x2x8xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%at, %bt : memref<8x4xf32>, memref<16x8xf32>) outs(%c : memref<4x16xf32>)
  return
}
"""

ON_TENSORS = """
func.func @named(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xf32>, %x: f32,
                 %e: tensor<16x4xf32>, %r: tensor<4xf32>, %ba: tensor<2x4x8xf32>,
                 %bb: tensor<2x8x16xf32>, %bc: tensor<2x4x16xf32>, %i: tensor<1x9x9x3xf32>,
                 %w: tensor<3x3x3x8xf32>, %o: tensor<1x7x7x8xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<4x16xf32>,
        tensor<4x16xf32>, tensor<2x4x16xf32>, tensor<1x7x7x8xf32>) {
  %0 = linalg.fill ins(%x : f32) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%0 : tensor<4x16xf32>)
      -> tensor<4x16xf32>
  %2 = linalg.transpose ins(%1 : tensor<4x16xf32>) outs(%e : tensor<16x4xf32>) permutation = [1, 0]
  %3 = linalg.reduce { arith.maximumf } ins(%1 : tensor<4x16xf32>) outs(%r : tensor<4xf32>)
      dimensions = [1]
  %4 = linalg.broadcast ins(%3 : tensor<4xf32>) outs(%c : tensor<4x16xf32>) dimensions = [1]
  %5 = linalg.map { arith.subf } ins(%1, %4 : tensor<4x16xf32>, tensor<4x16xf32>)
      outs(%c : tensor<4x16xf32>)
  %6 = linalg.batch_matmul ins(%ba, %bb : tensor<2x4x8xf32>, tensor<2x8x16xf32>)
      outs(%bc : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %7 = linalg.conv_2d_nhwc_hwcf ins(%i, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>)
      outs(%o : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<16x4xf32>,
      tensor<4xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x16xf32>, tensor<1x7x7x8xf32>
}
"""


def generalize_all(module: ModuleOp) -> ModuleOp:
    """Replace every named linalg op of ``module`` by its ``generalize()``."""
    for op in list(module.walk()):
        if isinstance(op, StructuredOp) and not isinstance(op, GenericOp):
            generic = Builder.before(op).insert(op.generalize())
            for old, new in zip(op.results, generic.results, strict=True):
                old.replace_all_uses_with(new)
            op.erase()
    module.verify()
    return module


@pytest.mark.parametrize("text", [ON_BUFFERS, ON_TENSORS], ids=["buffers", "tensors"])
def test_generalize_matches_mlir_opt(text):
    ours = generalize_all(parse(text))
    theirs = parse(run_mlir_opt(text, "--linalg-generalize-named-ops"))
    difference = first_difference(ours, theirs)
    assert difference is None, difference
    run_mlir_opt(print_ir(ours), "--verify-each")


@pytest.mark.parametrize("text", [ON_BUFFERS, ON_TENSORS], ids=["buffers", "tensors"])
def test_maps_iterators_and_payloads_op_by_op(text):
    """The same comparison spelled out: what a reader would check by eye."""
    named = [op for op in parse(text).walk() if isinstance(op, StructuredOp)]
    theirs = parse(run_mlir_opt(text, "--linalg-generalize-named-ops"))
    generics = [op for op in theirs.walk() if isinstance(op, GenericOp)]
    assert len(named) == len(generics)
    for op, reference in zip(named, generics, strict=True):
        ours = op.generalize()
        assert ours.indexing_maps() == reference.indexing_maps(), op.name
        assert ours.iterator_types() == reference.iterator_types(), op.name
        assert [o.name for o in ours.body] == [o.name for o in reference.body], op.name
        assert op.indexing_maps() == reference.indexing_maps(), op.name
        assert op.static_loop_sizes() == reference.static_loop_sizes(), op.name
