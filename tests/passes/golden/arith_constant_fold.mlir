// RUN: canonicalize
// MLIR-OPT: same
// Constant folding keeps the exact type: i32 and i8 wrap around, f16 and bf16 round.
func.func @f() -> (i32, i8, f16, bf16, i1, f32, index, vector<2xi32>) {
  %max = arith.constant 2147483647 : i32
  %c1 = arith.constant 1 : i32
  %wrap = arith.addi %max, %c1 : i32
  %c100 = arith.constant 100 : i8
  %i8 = arith.muli %c100, %c100 : i8
  %h = arith.constant 0.1 : f16
  %f16 = arith.addf %h, %h : f16
  %b = arith.constant 3.0 : bf16
  %b2 = arith.constant 7.0 : bf16
  %bf16 = arith.divf %b, %b2 : bf16
  %lt = arith.cmpi slt, %wrap, %c1 : i32
  %s = arith.sitofp %max : i32 to f32
  %idx = arith.index_cast %c1 : i32 to index
  %v = arith.constant dense<[1, 2]> : vector<2xi32>
  %v2 = arith.muli %v, %v : vector<2xi32>
  return %wrap, %i8, %f16, %bf16, %lt, %s, %idx, %v2 : i32, i8, f16, bf16, i1, f32, index, vector<2xi32>
}
// A division by zero is not folded: it is undefined behaviour, not a value.
func.func @undefined() -> i32 {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %div = arith.divsi %c1, %c0 : i32
  return %div : i32
}
