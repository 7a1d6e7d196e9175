// Softmax over the rows of a 4x16 matrix, as four generics on tensors:
// row max (reduction), exp(x - max), row sum (reduction), divide.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x16xf32>
  %max_init = linalg.fill ins(%lowest : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%max_init : tensor<4xf32>) {
  ^bb0(%v: f32, %m: f32):
    %n = arith.maximumf %v, %m : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x16xf32>, tensor<4xf32>) outs(%full : tensor<4x16xf32>) {
  ^bb0(%v: f32, %m: f32, %unused: f32):
    %d = arith.subf %v, %m : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<4x16xf32>
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<4x16xf32>) outs(%sum_init : tensor<4xf32>) {
  ^bb0(%v: f32, %s: f32):
    %n = arith.addf %v, %s : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<4x16xf32>, tensor<4xf32>) outs(%full : tensor<4x16xf32>) {
  ^bb0(%v: f32, %s: f32, %unused: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
