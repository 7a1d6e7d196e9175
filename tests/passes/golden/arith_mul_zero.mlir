// RUN: canonicalize
// MLIR-OPT: same
// x * 0 -> 0 for integers; not for floats: NaN * 0 and inf * 0 are NaN, -1.0 * 0.0 is -0.0.
func.func @f(%x: i32, %y: f32) -> (i32, f32) {
  %c0 = arith.constant 0 : i32
  %a = arith.muli %x, %c0 : i32
  %zero = arith.constant 0.0 : f32
  %b = arith.mulf %y, %zero : f32
  return %a, %b : i32, f32
}
