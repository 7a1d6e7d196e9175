// Element access: tensor.insert returns a new tensor; the old one is unchanged.
func.func @swap_corners(%t: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %a = tensor.extract %t[%c0, %c0] : tensor<4x4xi32>
  %b = tensor.extract %t[%c3, %c3] : tensor<4x4xi32>
  %t1 = tensor.insert %b into %t[%c0, %c0] : tensor<4x4xi32>
  %t2 = tensor.insert %a into %t1[%c3, %c3] : tensor<4x4xi32>
  return %t2 : tensor<4x4xi32>
}
func.func @scalar(%t: tensor<f64>) -> f64 {
  %v = tensor.extract %t[] : tensor<f64>
  return %v : f64
}
