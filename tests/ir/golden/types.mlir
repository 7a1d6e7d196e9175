// Every kind of type tinycomp models, as function arguments and results.
#map = affine_map<(d0, d1) -> (d1, d0)>
module {
  func.func private @scalars(index, i1, i8, i16, i32, i64, i7, f16, bf16, f32, f64, none) -> i1
  func.func private @shaped(vector<4xf32>, vector<2x8xi1>, vector<f32>, tensor<f32>, tensor<4x?x8xbf16>, tensor<?x?xindex>, tensor<0x3xf32>) -> tensor<2xf32>
  func.func private @memrefs(memref<f32>, memref<4x8xf32>, memref<?x?xf16>, memref<4x8xf32, strided<[8, 1]>>, memref<?x8xf32, strided<[?, 1], offset: ?>>, memref<8xf32, strided<[2], offset: 4>, 1>, memref<4xf32, 3>, memref<16xi8, #gpu.address_space<workgroup>>, memref<4x4xf32, #map>, memref<0xf32>)
  func.func private @functions((f32) -> f32, () -> (), (i32, i32) -> (i32, i32)) -> ((f32) -> f32)
  func.func private @dialect_types(!llvm.ptr, !gpu.async.token, !llvm.struct<(i32, f32)>) -> !llvm.ptr<1>
}
