// RUN: canonicalize
// MLIR-OPT: same
// A loop from 4 to 4 (or from 5 to 2) never runs: its results are its initial values.
func.func @f(%s: f32) -> (f32, f32) {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c4 to %c4 step %c1 iter_args(%acc = %s) -> (f32) {
    %n = arith.addf %acc, %acc : f32
    scf.yield %n : f32
  }
  %q = scf.for %i = %c5 to %c2 step %c1 iter_args(%acc = %s) -> (f32) {
    %n = arith.mulf %acc, %acc : f32
    scf.yield %n : f32
  }
  return %r, %q : f32, f32
}
