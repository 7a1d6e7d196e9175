// scf.execute_region: a small control-flow graph inside structured code.
module {
  func.func @clamp(%x: i32, %lo: i32, %hi: i32) -> i32 {
    %r = scf.execute_region -> i32 {
      %below = arith.cmpi slt, %x, %lo : i32
      cf.cond_br %below, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      scf.yield %lo : i32
    ^bb2:  // pred: ^bb0
      %m = arith.minsi %x, %hi : i32
      scf.yield %m : i32
    }
    %s:2 = scf.execute_region -> (i32, i32) no_inline {
      scf.yield %r, %x : i32, i32
    }
    scf.execute_region {
      scf.yield
    }
    return %r : i32
  }
}
