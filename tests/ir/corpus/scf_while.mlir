// scf.while: a condition region and a body region; values flow through scf.condition.
module {
  func.func @collatz_steps(%start: i64) -> i64 {
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %c3_i64 = arith.constant 3 : i64
    %r:2 = scf.while (%x = %start, %steps = %c0_i64) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi ne, %x, %c1_i64 : i64
      scf.condition(%more) %x, %steps : i64, i64
    } do {
    ^bb0(%y: i64, %s: i64):
      %rem = arith.remui %y, %c2_i64 : i64
      %odd = arith.cmpi eq, %rem, %c1_i64 : i64
      %next = scf.if %odd -> (i64) {
        %t = arith.muli %y, %c3_i64 : i64
        %u = arith.addi %t, %c1_i64 : i64
        scf.yield %u : i64
      } else {
        %h = arith.divui %y, %c2_i64 : i64
        scf.yield %h : i64
      }
      %s1 = arith.addi %s, %c1_i64 : i64
      scf.yield %next, %s1 : i64, i64
    }
    return %r#1 : i64
  }
  func.func @shapes_change(%x: f32, %n: index, %c: i1) -> index {
    %r = scf.while (%v = %x) : (f32) -> index {
      scf.condition(%c) %n : index
    } do {
    ^bb0(%k: index):
      %f = arith.index_cast %k : index to i32
      %g = arith.sitofp %f : i32 to f32
      scf.yield %g : f32
    } attributes {unrolled = false}
    scf.while : () -> () {
      scf.condition(%c)
    } do {
      scf.yield
    }
    return %r : index
  }
}
