// Reshapes merge or split neighbouring dimensions.
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %f = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  return %f : tensor<6x4xf32>
}
func.func @heads(%x: tensor<?x64xf32>, %n: index) -> tensor<?x8x8xf32> {
  %h = tensor.expand_shape %x [[0], [1, 2]] output_shape [%n, 8, 8] : tensor<?x64xf32> into tensor<?x8x8xf32>
  return %h : tensor<?x8x8xf32>
}
func.func @to_scalar(%x: tensor<1x1xf32>) -> tensor<1x1x1xf32> {
  %s = tensor.collapse_shape %x [] : tensor<1x1xf32> into tensor<f32>
  %e = tensor.expand_shape %s [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
  return %e : tensor<1x1x1xf32>
}
