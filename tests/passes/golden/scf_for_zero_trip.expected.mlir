module {
  func.func @f(%s: f32) -> (f32, f32) {
    return %s, %s : f32, f32
  }
}
