module {
  func.func @f(%a: f32, %b: f32) -> (f32, f32) {
    %m = arith.mulf %a, %b : f32
    %d = arith.divf %a, %b : f32
    return %m, %d : f32, f32
  }
}
