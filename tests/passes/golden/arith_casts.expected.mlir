module {
  func.func @f(%x: i32, %h: f16, %y: f32) -> (i32, i32, f16, f32) {
    %t = arith.truncf %y : f32 to f16
    %c = arith.extf %t : f16 to f32
    return %x, %x, %h, %c : i32, i32, f16, f32
  }
}
