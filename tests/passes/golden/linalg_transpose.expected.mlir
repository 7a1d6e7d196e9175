module {
  func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) {
    %i4 = tensor.empty() : tensor<4x2x3xf32>
    %t4 = linalg.transpose ins(%y : tensor<2x3x4xf32>) outs(%i4 : tensor<4x2x3xf32>) permutation = [2, 0, 1] 
    return %x, %t4 : tensor<2x3xf32>, tensor<4x2x3xf32>
  }
}
