// A strided 2-d convolution with padding handled by affine.if on the input window.
#set = affine_set<(d0, d1) : (d0 * 2 + d1 - 1 >= 0, d0 * -2 - d1 + 32 >= 0)>
module {
  func.func @conv(%input: memref<32x32xf32>, %filter: memref<3x3xf32>, %output: memref<16x16xf32>) {
    affine.for %oh = 0 to 16 {
      affine.for %ow = 0 to 16 {
        affine.for %kh = 0 to 3 {
          affine.for %kw = 0 to 3 {
            affine.if #set(%oh, %kh) {
              %x = affine.load %input[%oh * 2 + %kh - 1, %ow * 2 + %kw] : memref<32x32xf32>
              %w = affine.load %filter[%kh, %kw] : memref<3x3xf32>
              %y = affine.load %output[%oh, %ow] : memref<16x16xf32>
              %p = arith.mulf %x, %w : f32
              %s = arith.addf %y, %p : f32
              affine.store %s, %output[%oh, %ow] : memref<16x16xf32>
            }
          }
        }
      }
    }
    return
  }
}
