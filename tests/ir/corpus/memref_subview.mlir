// Subviews: static and dynamic offsets, sizes and strides; rank-reduced results; memory spaces.
module {
  func.func @tiles(%A: memref<64x64xf32>, %B: memref<?x?xf32>, %S: memref<32x32xf16, 3>, %i: index, %j: index, %n: index) {
    %static = memref.subview %A[8, 16] [4, 4] [1, 1] : memref<64x64xf32> to memref<4x4xf32, strided<[64, 1], offset: 528>>
    %dyn_offset = memref.subview %A[%i, %j] [4, 8] [1, 1] : memref<64x64xf32> to memref<4x8xf32, strided<[64, 1], offset: ?>>
    %strided = memref.subview %A[0, 0] [32, 16] [2, 4] : memref<64x64xf32> to memref<32x16xf32, strided<[128, 4]>>
    %all_dyn = memref.subview %B[%i, %j] [%n, %n] [%i, %j] : memref<?x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
    %row = memref.subview %A[%i, 0] [1, 64] [1, 1] : memref<64x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    %col = memref.subview %A[0, %j] [64, 1] [1, 1] : memref<64x64xf32> to memref<64xf32, strided<[64], offset: ?>>
    %shared_tile = memref.subview %S[16, 0] [16, 32] [1, 1] : memref<32x32xf16, 3> to memref<16x32xf16, strided<[32, 1], offset: 512>, 3>
    %nested = memref.subview %dyn_offset[1, 2] [2, 2] [1, 3] : memref<4x8xf32, strided<[64, 1], offset: ?>> to memref<2x2xf32, strided<[64, 3], offset: ?>>
    %whole = memref.subview %A[0, 0] [64, 64] [1, 1] : memref<64x64xf32> to memref<64x64xf32>
    %x = memref.load %nested[%i, %j] : memref<2x2xf32, strided<[64, 3], offset: ?>>
    memref.store %x, %row[%j] : memref<64xf32, strided<[1], offset: ?>>
    return
  }
}
