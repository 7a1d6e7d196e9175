// The convolution on buffers, with f16 inputs accumulated in f32 (arith.extf in the
// payload) and a dilation of 2 along the width.
#input = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw * 2, c)>
#filter = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#output = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @conv(%in: memref<2x8x8x4xf16>, %w: memref<3x3x4x16xf16>, %out: memref<2x6x4x16xf32>) {
  linalg.generic {indexing_maps = [#input, #filter, #output],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                    "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x8x8x4xf16>, memref<3x3x4x16xf16>) outs(%out : memref<2x6x4x16xf32>) {
  ^bb0(%x: f16, %k: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %kf = arith.extf %k : f16 to f32
    %p = arith.mulf %xf, %kf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
