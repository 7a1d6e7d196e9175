module {
  func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<1x3xf32>) {
    %part = tensor.extract_slice %x[1, 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<1x3xf32>
    return %x, %part : tensor<2x3xf32>, tensor<1x3xf32>
  }
}
