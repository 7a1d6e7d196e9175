// Heap and stack buffers: dynamic sizes, layout symbols, alignment, memory spaces.
#map = affine_map<(d0)[s0] -> (d0 + s0)>
module {
  func.func @buffers(%n: index, %m: index) {
    %heap = memref.alloc(%n) : memref<?x8xf32>
    %both = memref.alloc(%n, %m) : memref<?x?xi32>
    %shifted = memref.alloc(%n)[%m] : memref<?xf32, #map>
    %aligned = memref.alloc() {alignment = 64 : i64} : memref<16x16xf16>
    %shared = memref.alloc() : memref<32x32xf32, 3>
    %workgroup = memref.alloca() : memref<128xf32, #gpu.address_space<workgroup>>
    %tmp = memref.alloca(%m) : memref<?xbf16>
    %scalar = memref.alloca() : memref<f64>
    %strided = memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
    memref.dealloc %heap : memref<?x8xf32>
    memref.dealloc %both : memref<?x?xi32>
    memref.dealloc %shifted : memref<?xf32, #map>
    memref.dealloc %aligned : memref<16x16xf16>
    memref.dealloc %shared : memref<32x32xf32, 3>
    memref.dealloc %strided : memref<4x4xf32, strided<[8, 1]>>
    return
  }
}
