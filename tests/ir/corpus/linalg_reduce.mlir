// linalg.reduce in the short form (one op applied to the accumulator and the
// element) and in the long form (any body).
func.func @row_sums(%x: tensor<4x16xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
  return %r : tensor<4xf32>
}
func.func @sum_of_squares(%x: tensor<2x8x4xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.reduce ins(%x : tensor<2x8x4xf32>) outs(%init : tensor<8xf32>) dimensions = [0, 2]
    (%in: f32, %acc: f32) {
      %sq = arith.mulf %in, %in : f32
      %s = arith.addf %acc, %sq : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}
func.func @column_max(%x: memref<4x16xi32>, %out: memref<16xi32>) {
  linalg.reduce { arith.maxsi } ins(%x : memref<4x16xi32>) outs(%out : memref<16xi32>) dimensions = [0]
  return
}
