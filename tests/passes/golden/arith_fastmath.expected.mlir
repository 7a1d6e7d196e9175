module {
  func.func @f(%y: f32) -> (f32, f32, f32) {
    %zero = arith.constant 0.000000e+00 : f32
    %b = arith.addf %y, %zero fastmath<nsz> : f32
    %c = arith.mulf %y, %zero fastmath<nnan> : f32
    return %zero, %b, %c : f32, f32, f32
  }
}
