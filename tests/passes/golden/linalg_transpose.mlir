// RUN: canonicalize
// MLIR-OPT: same
// transpose(transpose(x, p), q) -> x when p[q[i]] == i, else one transpose by p[q[i]].
func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %i1 = tensor.empty() : tensor<3x2xf32>
  %t1 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%i1 : tensor<3x2xf32>) permutation = [1, 0]
  %i2 = tensor.empty() : tensor<2x3xf32>
  %t2 = linalg.transpose ins(%t1 : tensor<3x2xf32>) outs(%i2 : tensor<2x3xf32>) permutation = [1, 0]
  %i3 = tensor.empty() : tensor<3x4x2xf32>
  %t3 = linalg.transpose ins(%y : tensor<2x3x4xf32>) outs(%i3 : tensor<3x4x2xf32>) permutation = [1, 2, 0]
  %i4 = tensor.empty() : tensor<4x2x3xf32>
  %t4 = linalg.transpose ins(%t3 : tensor<3x4x2xf32>) outs(%i4 : tensor<4x2x3xf32>) permutation = [1, 2, 0]
  return %t2, %t4 : tensor<2x3xf32>, tensor<4x2x3xf32>
}
