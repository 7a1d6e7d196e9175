// RUN: canonicalize
// MLIR-OPT: same
// COMPARE: ignore the sign of zero
// With fast-math flags nnan and nsz, x * 0.0 -> 0.0 is valid (no NaN, sign of zero
// ignored); nnan alone is not enough. x + 0.0 -> x under nsz is left to LLVM, as MLIR does.
func.func @f(%y: f32) -> (f32, f32, f32) {
  %zero = arith.constant 0.0 : f32
  %a = arith.mulf %y, %zero fastmath<nnan,nsz> : f32
  %b = arith.addf %y, %zero fastmath<nsz> : f32
  %c = arith.mulf %y, %zero fastmath<nnan> : f32
  return %a, %b, %c : f32, f32, f32
}
