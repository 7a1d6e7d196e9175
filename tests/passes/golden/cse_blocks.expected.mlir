module {
  func.func @f(%x: i32, %c: i1) -> i32 {
    %a = arith.muli %x, %x : i32
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    %t = arith.addi %a, %x : i32
    cf.br ^bb3(%t : i32)
  ^bb2:  // pred: ^bb0
    %t2 = arith.addi %a, %x : i32
    cf.br ^bb3(%t2 : i32)
  ^bb3(%j: i32):  // 2 preds: ^bb1, ^bb2
    %t3 = arith.addi %a, %x : i32
    %s = arith.subi %j, %t3 : i32
    return %s : i32
  }
}
