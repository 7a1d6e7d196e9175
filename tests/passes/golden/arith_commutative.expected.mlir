module {
  func.func @f(%x: i32, %y: f32, %b: i1) -> (i32, i32, i32, f32, f32, i1, i32) {
    %true = arith.constant true
    %two = arith.constant 2.000000e+00 : f32
    %c5 = arith.constant 5 : i32
    %a = arith.addi %x, %c5 : i32
    %m = arith.muli %x, %c5 : i32
    %n = arith.andi %x, %c5 : i32
    %p = arith.addf %y, %two : f32
    %q = arith.maximumf %y, %two : f32
    %r = arith.xori %b, %true : i1
    %s = arith.subi %c5, %x : i32
    return %a, %m, %n, %p, %q, %r, %s : i32, i32, i32, f32, f32, i1, i32
  }
}
