#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d1, d0)>
module {
  func.func @duplicates(%x: tensor<3x3xf32>, %y: tensor<3xf32>, %init: tensor<3x3xf32>) -> tensor<3x3xf32> {
    %r = linalg.generic {indexing_maps = [#map, #map1, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %x : tensor<3x3xf32>, tensor<3xf32>, tensor<3x3xf32>) outs(%init : tensor<3x3xf32>) {
    ^bb0(%a: f32, %b: f32, %a_transposed: f32, %out: f32):
      %0 = arith.mulf %a, %a : f32
      %1 = arith.addf %0, %b : f32
      %2 = arith.subf %1, %a_transposed : f32
      linalg.yield %2 : f32
    } -> tensor<3x3xf32>
    return %r : tensor<3x3xf32>
  }
  func.func @dead_input_that_sizes_a_loop(%x: tensor<3x5xf32>, %acc: tensor<3xf32>) -> tensor<3xf32> {
    %cst = arith.constant 1.000000e+00 : f32
    %count = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x5xf32>) outs(%acc : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %out, %cst : f32
      linalg.yield %0 : f32
    } -> tensor<3xf32>
    return %count : tensor<3xf32>
  }
}