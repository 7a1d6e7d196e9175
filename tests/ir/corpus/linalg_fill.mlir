// linalg.fill writes one scalar everywhere: on a tensor it returns the filled tensor,
// on a memref it writes the buffer. Its payload (yield %in) is implicit.
func.func @fill_tensor(%v: f32) -> tensor<2x3x4xf32> {
  %empty = tensor.empty() : tensor<2x3x4xf32>
  %r = linalg.fill ins(%v : f32) outs(%empty : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}
func.func @fill_buffer(%v: i32, %buf: memref<16xi32>) {
  linalg.fill ins(%v : i32) outs(%buf : memref<16xi32>)
  return
}
func.func @fill_scalar_tensor(%v: bf16, %t: tensor<bf16>) -> tensor<bf16> {
  %r = linalg.fill ins(%v : bf16) outs(%t : tensor<bf16>) -> tensor<bf16>
  return %r : tensor<bf16>
}
