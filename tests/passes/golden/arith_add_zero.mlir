// RUN: canonicalize
// MLIR-OPT: same
// x + 0 -> x for integers; for floats only x + (-0.0) -> x: -0.0 + 0.0 is +0.0.
func.func @f(%x: i32, %v: vector<4xi32>, %y: f32) -> (i32, i32, vector<4xi32>, f32, f32) {
  %c0 = arith.constant 0 : i32
  %a = arith.addi %x, %c0 : i32
  %b = arith.addi %c0, %x : i32
  %zeros = arith.constant dense<0> : vector<4xi32>
  %c = arith.addi %v, %zeros : vector<4xi32>
  %neg_zero = arith.constant -0.0 : f32
  %d = arith.addf %y, %neg_zero : f32
  %zero = arith.constant 0.0 : f32
  %e = arith.addf %y, %zero : f32
  return %a, %b, %c, %d, %e : i32, i32, vector<4xi32>, f32, f32
}
