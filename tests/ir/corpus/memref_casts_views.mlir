// cast, reinterpret_cast and view: new types over the same memory.
module {
  func.func @views(%A: memref<16xf32>, %D: memref<?xf32>, %n: index, %off: index) {
    %erased = memref.cast %A : memref<16xf32> to memref<?xf32>
    %known = memref.cast %D : memref<?xf32> to memref<16xf32>
    %loose = memref.cast %A : memref<16xf32> to memref<16xf32, strided<[?], offset: ?>>
    %grid = memref.reinterpret_cast %A to offset: [0], sizes: [4, 4], strides: [4, 1] : memref<16xf32> to memref<4x4xf32, strided<[4, 1]>>
    %window = memref.reinterpret_cast %D to offset: [%off], sizes: [%n, 2], strides: [2, 1] : memref<?xf32> to memref<?x2xf32, strided<[2, 1], offset: ?>>
    %bytes = memref.alloc() : memref<2048xi8>
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %first = memref.view %bytes[%c0][] : memref<2048xi8> to memref<16x16xf32>
    %second = memref.view %bytes[%c1024][%n] : memref<2048xi8> to memref<?x4xf32>
    memref.dealloc %bytes : memref<2048xi8>
    return
  }
}
