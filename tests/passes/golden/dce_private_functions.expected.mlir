module {
  func.func private @helper(%x: i32) -> i32 {
    %y = arith.addi %x, %x : i32
    return %y : i32
  }
  func.func @main(%x: i32) -> i32 {
    %r = call @helper(%x) : (i32) -> i32
    return %r : i32
  }
  func.func @also_public() {
    return
  }
}
