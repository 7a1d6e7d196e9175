// scf.if: with and without else, with results, nested in loops.
module {
  func.func @relu(%buf: memref<?xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %buf[%i] : memref<?xf32>
      %neg = arith.cmpf olt, %x, %zero : f32
      scf.if %neg {
        memref.store %zero, %buf[%i] : memref<?xf32>
      }
    }
    return
  }
  func.func @select(%c: i1, %a: f32, %b: f32, %i: index) -> (f32, index) {
    %r:2 = scf.if %c -> (f32, index) {
      %s = arith.addf %a, %b : f32
      scf.yield %s, %i : f32, index
    } else {
      %c7 = arith.constant 7 : index
      scf.yield %b, %c7 : f32, index
    }
    %t = scf.if %c -> (f32) {
      scf.yield %a : f32
    } else {
      %n = arith.negf %a : f32
      scf.yield %n : f32
    } {branch_hint = "likely"}
    scf.if %c {
      "test.side_effect"() : () -> ()
    } else {
      "test.other_effect"() : () -> ()
    }
    return %t, %r#1 : f32, index
  }
}
