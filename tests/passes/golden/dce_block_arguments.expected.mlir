module {
  func.func @f(%x: i32, %c: i1) -> i32 {
    cf.cond_br %c, ^bb1(%x : i32), ^bb2
  ^bb1(%used: i32):  // pred: ^bb0
    cf.br ^bb3(%used : i32)
  ^bb2:  // pred: ^bb0
    cf.br ^bb3(%x : i32)
  ^bb3(%r: i32):  // 2 preds: ^bb1, ^bb2
    return %r : i32
  }
}
