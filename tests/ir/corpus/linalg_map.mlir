// linalg.map applies its payload elementwise. Short form: one op on the inputs.
// Long form: a body whose arguments are the input elements, then the output's.
func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.map { arith.addf } ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>)
  return %r : tensor<4x8xf32>
}
func.func @relu(%x: tensor<64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.map ins(%x : tensor<64xf32>) outs(%init : tensor<64xf32>)
    (%in: f32, %out: f32) {
      %y = arith.maximumf %in, %zero : f32
      linalg.yield %y : f32
    }
  return %r : tensor<64xf32>
}
func.func @scale_buffer(%x: memref<16xf32>, %y: memref<16xf32>) {
  linalg.map { arith.mulf {fastmath = #arith.fastmath<fast>} } ins(%x, %x : memref<16xf32>, memref<16xf32>) outs(%y : memref<16xf32>)
  return
}
