// RUN: cse
// MLIR-OPT: same
// Across blocks, an op is reused only where it dominates: the entry block's %a serves
// both branches; the then-block's %t does not serve the else-block or the join.
func.func @f(%x: i32, %c: i1) -> i32 {
  %a = arith.muli %x, %x : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %a1 = arith.muli %x, %x : i32
  %t = arith.addi %a1, %x : i32
  cf.br ^bb3(%t : i32)
^bb2:
  %t2 = arith.addi %a, %x : i32
  cf.br ^bb3(%t2 : i32)
^bb3(%j: i32):
  %t3 = arith.addi %a, %x : i32
  %s = arith.subi %j, %t3 : i32
  return %s : i32
}
