// Output dimension i is input dimension permutation[i].
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %empty = tensor.empty() : tensor<3x4x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%empty : tensor<3x4x2xf32>) permutation = [1, 2, 0]
  return %t : tensor<3x4x2xf32>
}
func.func @transpose_buffers(%x: memref<4x8xf32>, %y: memref<8x4xf32>) {
  linalg.transpose ins(%x : memref<4x8xf32>) outs(%y : memref<8x4xf32>) permutation = [1, 0]
  return
}
