// RUN: canonicalize
// MLIR-OPT: same
// A buffer that is only written and freed is never read: the alloc, its stores and its
// dealloc go. A buffer that is read (or escapes) stays.
func.func @f(%v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %unused = memref.alloc() : memref<4xf32>
  memref.dealloc %unused : memref<4xf32>
  %written = memref.alloc() : memref<4xf32>
  memref.store %v, %written[%c0] : memref<4xf32>
  memref.dealloc %written : memref<4xf32>
  %scratch = memref.alloca() : memref<4xf32>
  memref.store %v, %scratch[%c0] : memref<4xf32>
  %read = memref.alloc() : memref<4xf32>
  memref.store %v, %read[%c0] : memref<4xf32>
  %r = memref.load %read[%c0] : memref<4xf32>
  memref.dealloc %read : memref<4xf32>
  return %r : f32
}
