// tensor.pad before a convolution ("same" padding), and tensor.generate building
// a tensor element by element.
func.func @pad_for_conv(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %out: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%n: index, %h: index, %w_: index, %c: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x3xf32> to tensor<1x10x10x3xf32>
  %r = linalg.conv_2d_nhwc_hwcf ins(%padded, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x4xf32>) outs(%out : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %r : tensor<1x8x8x4xf32>
}
func.func @pad_dynamic(%x: tensor<?x4xf32>, %k: index, %v: f32) -> tensor<?x6xf32> {
  %p = tensor.pad %x nofold low[%k, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<?x4xf32> to tensor<?x6xf32>
  return %p : tensor<?x6xf32>
}
func.func @iota(%n: index) -> tensor<?xi32> {
  %g = tensor.generate %n {
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i32
    tensor.yield %v : i32
  } : tensor<?xi32>
  return %g : tensor<?xi32>
}
