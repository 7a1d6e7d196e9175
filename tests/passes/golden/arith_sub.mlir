// RUN: canonicalize
// MLIR-OPT: same
// x - 0 -> x; x - x -> 0 for integers only (inf - inf is NaN); x - 0.0 -> x for floats.
func.func @f(%x: i32, %y: f32) -> (i32, i32, f32, f32) {
  %c0 = arith.constant 0 : i32
  %a = arith.subi %x, %c0 : i32
  %b = arith.subi %x, %x : i32
  %zero = arith.constant 0.0 : f32
  %c = arith.subf %y, %zero : f32
  %d = arith.subf %y, %y : f32
  return %a, %b, %c, %d : i32, i32, f32, f32
}
