// RUN: dce
// Dead pure ops go, chains of them too, and so do unused loads and allocations (they
// only read or allocate); stores, calls and unknown ops stay.
func.func @f(%x: f32, %m: memref<4xf32>, %i: index) -> f32 {
  %a = arith.mulf %x, %x : f32
  %b = arith.addf %a, %x : f32
  %loaded = memref.load %m[%i] : memref<4xf32>
  memref.store %x, %m[%i] : memref<4xf32>
  %buffer = memref.alloc() : memref<8xf32>
  func.call @log(%x) : (f32) -> ()
  return %x : f32
}
func.func private @log(%x: f32) {
  return
}
func.func @g(%x: f32) -> f32 {
  %u = "test.unknown"(%x) : (f32) -> f32
  return %x : f32
}
