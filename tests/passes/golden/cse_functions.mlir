// RUN: cse
// MLIR-OPT: same
// A function is isolated from above: nothing is shared between two functions.
func.func @f(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %a = arith.addi %x, %c1 : i32
  %c1_again = arith.constant 1 : i32
  %b = arith.addi %x, %c1_again : i32
  %s = arith.muli %a, %b : i32
  return %s : i32
}
func.func @g(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %a = arith.addi %x, %c1 : i32
  return %a : i32
}
