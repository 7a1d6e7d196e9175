// scf.for: plain loops (the yield is implied), loop-carried values, i32 and unsigned bounds.
module {
  func.func @sum(%buf: memref<?xf32>, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %total = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %buf[%i] : memref<?xf32>
      %next = arith.addf %acc, %x : f32
      scf.yield %next : f32
    }
    return %total : f32
  }
  func.func @fill(%buf: memref<8x8xf32>, %v: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c8 step %c2 {
        memref.store %v, %buf[%i, %j] : memref<8x8xf32>
      }
    } {tinycomp.note = "row by row"}
    return
  }
  func.func @fibonacci(%n: i32) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %r:2 = scf.for %k = %c0_i32 to %n step %c1_i32 iter_args(%a = %c0_i32, %b = %c1_i32) -> (i32, i32)  : i32 {
      %s = arith.addi %a, %b : i32
      scf.yield %b, %s : i32, i32
    }
    scf.for unsigned %u = %c0_i32 to %n step %c1_i32  : i32 {
    }
    return %r#0, %r#1 : i32, i32
  }
}
