module {
  func.func @f(%x: i32, %y: f32, %i: index) -> (i32, f32, i32, i32, f32, index) {
    return %x, %y, %x, %x, %y, %i : i32, f32, i32, i32, f32, index
  }
}
