module {
  func.func @f(%x: i32, %v: vector<4xi32>, %y: f32) -> (i32, i32, vector<4xi32>, f32, f32) {
    %zero = arith.constant 0.000000e+00 : f32
    %e = arith.addf %y, %zero : f32
    return %x, %x, %v, %y, %e : i32, i32, vector<4xi32>, f32, f32
  }
}
