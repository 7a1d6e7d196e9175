module {
  func.func @f(%x: f32, %m: memref<4xf32>, %i: index) -> f32 {
    memref.store %x, %m[%i] : memref<4xf32>
    call @log(%x) : (f32) -> ()
    return %x : f32
  }
  func.func private @log(%x: f32) {
    return
  }
  func.func @g(%x: f32) -> f32 {
    %u = "test.unknown"(%x) : (f32) -> f32
    return %x : f32
  }
}
