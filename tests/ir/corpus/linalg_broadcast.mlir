// dimensions lists the output dimensions the input does not have.
func.func @broadcast(%bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %empty = tensor.empty() : tensor<4x16xf32>
  %b = linalg.broadcast ins(%bias : tensor<16xf32>) outs(%empty : tensor<4x16xf32>) dimensions = [0]
  return %b : tensor<4x16xf32>
}
func.func @broadcast_buffers(%x: memref<4xf32>, %y: memref<2x4x8xf32>) {
  linalg.broadcast ins(%x : memref<4xf32>) outs(%y : memref<2x4x8xf32>) dimensions = [0, 2]
  return
}
