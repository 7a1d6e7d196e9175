// A 2-D convolution (NHWC input, HWCF filter, stride 2) as a linalg.generic. The
// loops are (n, oh, ow, f, kh, kw, c); the input is read at row oh * 2 + kh, which
// is not a plain loop index, so tiling needs a footprint computation to slice it.
#input = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#filter = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#output = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @conv(%in: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x8xf32>, %init: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %r = linalg.generic {indexing_maps = [#input, #filter, #output],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                         "reduction", "reduction", "reduction"]}
      ins(%in, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%init : tensor<1x4x4x8xf32>) {
  ^bb0(%x: f32, %k: f32, %acc: f32):
    %p = arith.mulf %x, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}
