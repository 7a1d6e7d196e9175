module {
  func.func @f(%x: i32, %y: f32) -> (i32, f32) {
    %zero = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : i32
    %b = arith.mulf %y, %zero : f32
    return %c0, %b : i32, f32
  }
}
