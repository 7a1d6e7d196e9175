module {
  func.func @f(%x: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %a = arith.addi %x, %c1 : i32
    %s = arith.muli %a, %a : i32
    return %s : i32
  }
  func.func @g(%x: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %a = arith.addi %x, %c1 : i32
    return %a : i32
  }
}
