// RUN: canonicalize
// MLIR-OPT: same
// select(true, a, b) -> a; select(false, a, b) -> b; select(c, a, a) -> a.
func.func @f(%c: i1, %a: f32, %b: f32) -> (f32, f32, f32, f32) {
  %true = arith.constant true
  %false = arith.constant false
  %x = arith.select %true, %a, %b : f32
  %y = arith.select %false, %a, %b : f32
  %z = arith.select %c, %a, %a : f32
  %w = arith.select %c, %a, %b : f32
  return %x, %y, %z, %w : f32, f32, f32, f32
}
