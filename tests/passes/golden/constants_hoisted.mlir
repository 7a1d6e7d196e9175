// RUN: canonicalize
// MLIR-OPT: same
// Constants are folded, deduplicated and moved to the top of the function, as
// mlir-opt --canonicalize does (the most recently hoisted first); dead ops are erased.
func.func @f(%x: i32, %y: i32) -> (i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %a = arith.addi %c1, %x : i32
  %c0 = arith.constant 0 : i32
  %b = arith.addi %a, %c0 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %d = arith.addi %c2, %c3 : i32
  %e = arith.muli %b, %d : i32
  %c5 = arith.constant 5 : i32
  %dead = arith.muli %y, %c5 : i32
  %g = arith.subi %x, %x : i32
  %c7 = arith.constant 7 : i32
  %h = arith.addi %y, %c7 : i32
  return %e, %g, %h : i32, i32, i32
}
