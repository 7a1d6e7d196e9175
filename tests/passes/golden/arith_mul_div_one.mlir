// RUN: canonicalize
// MLIR-OPT: same
// x * 1 -> x and x / 1 -> x, exact for integers and floats alike.
func.func @f(%x: i32, %y: f32, %i: index) -> (i32, f32, i32, i32, f32, index) {
  %c1 = arith.constant 1 : i32
  %a = arith.muli %x, %c1 : i32
  %one = arith.constant 1.0 : f32
  %b = arith.mulf %one, %y : f32
  %c = arith.divsi %x, %c1 : i32
  %d = arith.divui %x, %c1 : i32
  %e = arith.divf %y, %one : f32
  %c1_index = arith.constant 1 : index
  %g = arith.muli %i, %c1_index : index
  return %a, %b, %c, %d, %e, %g : i32, f32, i32, i32, f32, index
}
