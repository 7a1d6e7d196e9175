// One matmul per batch entry: loops (b, m, n, k).
func.func @batch_matmul(%a: tensor<3x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<3x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3x4x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x4x16xf32>) -> tensor<3x4x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x4x8xf32>, tensor<3x8x16xf32>) outs(%c : tensor<3x4x16xf32>) -> tensor<3x4x16xf32>
  return %r : tensor<3x4x16xf32>
}
func.func @batch_matmul_buffers(%a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<2x4x16xf32>)
  return
}
