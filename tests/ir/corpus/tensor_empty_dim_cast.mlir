// tensor.empty makes a tensor used only for its shape; tensor.dim measures one;
// tensor.cast trades static information without touching data.
func.func @shapes(%x: tensor<?x16xf32>) -> (tensor<4x16xf32>, index, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %static = tensor.cast %x : tensor<?x16xf32> to tensor<4x16xf32>
  %erased = tensor.cast %e : tensor<?x16xf32> to tensor<?x?xf32>
  return %static, %n, %erased : tensor<4x16xf32>, index, tensor<?x?xf32>
}
