// RUN: canonicalize
// MLIR-OPT: same
// A slice at offset 0 with the full size and stride 1 is the tensor itself.
func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<1x3xf32>) {
  %whole = tensor.extract_slice %x[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  %part = tensor.extract_slice %x[1, 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<1x3xf32>
  return %whole, %part : tensor<2x3xf32>, tensor<1x3xf32>
}
