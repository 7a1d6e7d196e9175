// RUN: canonicalize
// MLIR-OPT: same
// Constants go to the right operand of commutative ops: c op x -> x op c.
func.func @f(%x: i32, %y: f32, %b: i1) -> (i32, i32, i32, f32, f32, i1, i32) {
  %c5 = arith.constant 5 : i32
  %a = arith.addi %c5, %x : i32
  %m = arith.muli %c5, %x : i32
  %n = arith.andi %c5, %x : i32
  %two = arith.constant 2.0 : f32
  %p = arith.addf %two, %y : f32
  %q = arith.maximumf %two, %y : f32
  %true = arith.constant true
  %r = arith.xori %true, %b : i1
  %s = arith.subi %c5, %x : i32
  return %a, %m, %n, %p, %q, %r, %s : i32, i32, i32, f32, f32, i1, i32
}
