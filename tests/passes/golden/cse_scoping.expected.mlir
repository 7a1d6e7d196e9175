module {
  func.func @f(%x: i32, %y: i32, %c: i1, %m: memref<4xi32>, %i: index) -> (i32, i32, i32, i32, i32, i32, i32) {
    %a = arith.addi %x, %y : i32
    %r = scf.if %c -> (i32) {
      %m1 = arith.muli %a, %a : i32
      scf.yield %m1 : i32
    } else {
      %m2 = arith.muli %a, %a : i32
      scf.yield %m2 : i32
    }
    %after = arith.muli %a, %a : i32
    %load1 = memref.load %m[%i] : memref<4xi32>
    memref.store %a, %m[%i] : memref<4xi32>
    memref.store %a, %m[%i] : memref<4xi32>
    %load3 = memref.load %m[%i] : memref<4xi32>
    return %a, %a, %r, %after, %load1, %load1, %load3 : i32, i32, i32, i32, i32, i32, i32
  }
}
