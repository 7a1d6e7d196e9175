// linalg.index reads the current loop index inside a payload: a lower-triangular
// mask (the causal mask of attention) keeps x[i, j] where j <= i, else -inf.
#id = affine_map<(i, j) -> (i, j)>
func.func @causal_mask(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %minus_inf = arith.constant 0xFF800000 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%empty : tensor<8x8xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %keep = arith.cmpi ule, %j, %i : index
    %m = arith.select %keep, %v, %minus_inf : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
func.func @iota(%out: memref<16xi32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%out : memref<16xi32>) {
  ^bb0(%unused: i32):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i32
    linalg.yield %v : i32
  }
  return
}
