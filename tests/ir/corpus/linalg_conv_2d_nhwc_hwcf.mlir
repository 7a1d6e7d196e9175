// The named convolution: default strides and dilations (1), then stride 2 with
// dilation 2 along the height. Output size per axis:
// (input - (filter - 1) * dilation - 1) / stride + 1.
func.func @conv(%in: tensor<1x10x10x3xf32>, %w: tensor<3x3x3x8xf32>, %out: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = linalg.conv_2d_nhwc_hwcf ins(%in, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>) outs(%out : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}
func.func @conv_strided(%in: tensor<2x11x9x4xf32>, %w: tensor<3x3x4x16xf32>, %out: tensor<2x4x4x16xf32>) -> tensor<2x4x4x16xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<2x11x9x4xf32>, tensor<3x3x4x16xf32>) outs(%out : tensor<2x4x4x16xf32>) -> tensor<2x4x4x16xf32>
  return %r : tensor<2x4x4x16xf32>
}
func.func @conv_buffers(%in: memref<1x6x6x2xf32>, %w: memref<3x3x2x4xf32>, %out: memref<1x4x4x4xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x6x6x2xf32>, memref<3x3x2x4xf32>) outs(%out : memref<1x4x4x4xf32>)
  return
}
