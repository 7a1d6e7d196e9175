module {
  func.func @f(%x: f32, %y: f32, %n: i32) -> (f32, i32) {
    %cst = arith.constant 6.000000e+00 : f32
    %b = arith.mulf %x, %cst : f32
    %d = arith.addf %b, %b : f32
    %k2 = arith.muli %n, %n : i32
    %k4 = arith.subi %k2, %k2 : i32
    return %d, %k4 : f32, i32
  }
}
