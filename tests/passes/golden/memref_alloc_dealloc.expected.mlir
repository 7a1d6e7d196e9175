module {
  func.func @f(%v: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %read = memref.alloc() : memref<4xf32>
    memref.store %v, %read[%c0] : memref<4xf32>
    %r = memref.load %read[%c0] : memref<4xf32>
    memref.dealloc %read : memref<4xf32>
    return %r : f32
  }
}
