// RUN: cse
// MLIR-OPT: same
// A value computed outside a region is reused inside it, never the other way round;
// b + a is the same expression as a + b; stores are never merged, and two loads only
// when no store comes between them.
func.func @f(%x: i32, %y: i32, %c: i1, %m: memref<4xi32>, %i: index) -> (i32, i32, i32, i32, i32, i32, i32) {
  %a = arith.addi %x, %y : i32
  %b = arith.addi %y, %x : i32
  %r = scf.if %c -> (i32) {
    %inner = arith.addi %x, %y : i32
    %m1 = arith.muli %inner, %inner : i32
    scf.yield %m1 : i32
  } else {
    %m2 = arith.muli %a, %a : i32
    scf.yield %m2 : i32
  }
  %after = arith.muli %a, %a : i32
  %load1 = memref.load %m[%i] : memref<4xi32>
  %load2 = memref.load %m[%i] : memref<4xi32>
  memref.store %a, %m[%i] : memref<4xi32>
  memref.store %a, %m[%i] : memref<4xi32>
  %load3 = memref.load %m[%i] : memref<4xi32>
  return %a, %b, %r, %after, %load1, %load2, %load3 : i32, i32, i32, i32, i32, i32, i32
}
