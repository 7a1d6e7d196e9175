// collapse_shape and expand_shape: static and dynamic sizes, strided sources, memory spaces.
module {
  func.func @reshape(%A: memref<4x8x16xf32>, %D: memref<?x16xf32>, %S: memref<4x8xf32, strided<[8, 1], offset: 4>>, %W: memref<2x32xi8, 3>, %n: index) {
    %flat = memref.collapse_shape %A [[0, 1, 2]] : memref<4x8x16xf32> into memref<512xf32>
    %rows = memref.collapse_shape %A [[0, 1], [2]] : memref<4x8x16xf32> into memref<32x16xf32>
    %grid = memref.expand_shape %flat [[0, 1]] output_shape [32, 16] : memref<512xf32> into memref<32x16xf32>
    %dyn_flat = memref.collapse_shape %D [[0, 1]] : memref<?x16xf32> into memref<?xf32>
    %dyn_grid = memref.expand_shape %dyn_flat [[0, 1]] output_shape [%n, 4] : memref<?xf32> into memref<?x4xf32>
    %strided_flat = memref.collapse_shape %S [[0, 1]] : memref<4x8xf32, strided<[8, 1], offset: 4>> into memref<32xf32, strided<[1], offset: 4>>
    %strided_grid = memref.expand_shape %S [[0], [1, 2]] output_shape [4, 2, 4] : memref<4x8xf32, strided<[8, 1], offset: 4>> into memref<4x2x4xf32, strided<[8, 4, 1], offset: 4>>
    %bytes = memref.collapse_shape %W [[0, 1]] : memref<2x32xi8, 3> into memref<64xi8, 3>
    %one = memref.expand_shape %bytes [[0, 1]] output_shape [1, 64] : memref<64xi8, 3> into memref<1x64xi8, 3>
    return
  }
}
