module {
  func.func @f(%c: i1, %a: f32, %b: f32) -> (f32, f32, f32, f32) {
    %w = arith.select %c, %a, %b : f32
    return %a, %b, %a, %w : f32, f32, f32, f32
  }
}
