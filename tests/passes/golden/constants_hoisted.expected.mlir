module {
  func.func @f(%x: i32, %y: i32) -> (i32, i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c5_i32 = arith.constant 5 : i32
    %c7 = arith.constant 7 : i32
    %c1 = arith.constant 1 : i32
    %a = arith.addi %x, %c1 : i32
    %e = arith.muli %a, %c5_i32 : i32
    %h = arith.addi %y, %c7 : i32
    return %e, %c0_i32, %h : i32, i32, i32
  }
}
