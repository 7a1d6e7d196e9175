// RUN: canonicalize
// MLIR-OPT: same
// -(-x) -> x: negation flips the sign bit, twice gives x back bit for bit.
func.func @f(%x: f32) -> f32 {
  %a = arith.negf %x : f32
  %b = arith.negf %a : f32
  return %b : f32
}
