module {
  func.func @f(%x: i32, %y: f32) -> (i32, i32, f32, f32) {
    %c0_i32 = arith.constant 0 : i32
    %d = arith.subf %y, %y : f32
    return %x, %c0_i32, %y, %d : i32, i32, f32, f32
  }
}
