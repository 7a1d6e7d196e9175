// RUN: canonicalize
// MLIR-OPT: differs: mlir-opt-22 runs this pattern inside --linalg-fuse-elementwise-ops, not --canonicalize (tests/passes/test_linalg_dedup.py compares there)
// A linalg.generic reads each (value, indexing map) pair once, and drops inputs its payload never reads unless they size a loop.
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @duplicates(%x: tensor<3x3xf32>, %y: tensor<3xf32>, %init: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row, #id, #swap, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y, %x, %x, %y : tensor<3x3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<3xf32>)
      outs(%init : tensor<3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %a_again: f32, %a_transposed: f32, %b_unused: f32, %out: f32):
    %0 = arith.mulf %a, %a_again : f32
    %1 = arith.addf %0, %b : f32
    %2 = arith.subf %1, %a_transposed : f32
    linalg.yield %2 : f32
  } -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}
func.func @dead_input_that_sizes_a_loop(%x: tensor<3x5xf32>, %acc: tensor<3xf32>) -> tensor<3xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %count = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x5xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %cst : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  return %count : tensor<3xf32>
}
