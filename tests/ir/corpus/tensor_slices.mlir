// Slices: static and dynamic offsets/sizes/strides, a rank-reducing slice (one row
// as a 1-D tensor), and writing a tile back with insert_slice.
func.func @tiles(%t: tensor<8x16xf32>, %i: index, %n: index) -> (tensor<8x16xf32>, tensor<?x4xf32>) {
  %tile = tensor.extract_slice %t[%i, 0] [4, 8] [1, 1] : tensor<8x16xf32> to tensor<4x8xf32>
  %row = tensor.extract_slice %t[2, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
  %strided = tensor.extract_slice %t[0, %i] [%n, 4] [2, 3] : tensor<8x16xf32> to tensor<?x4xf32>
  %new = tensor.insert_slice %tile into %t[4, 8] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x16xf32>
  %new2 = tensor.insert_slice %row into %new[%i, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<8x16xf32>
  return %new2, %strided : tensor<8x16xf32>, tensor<?x4xf32>
}
func.func @element_as_tensor(%t: tensor<8x16xf32>) -> tensor<f32> {
  %e = tensor.extract_slice %t[3, 5] [1, 1] [1, 1] : tensor<8x16xf32> to tensor<f32>
  return %e : tensor<f32>
}
