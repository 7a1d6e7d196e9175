// RUN: canonicalize
// MLIR-OPT: same
// scf.if on a constant takes one branch: its ops move out, its yield replaces the results.
func.func @f(%a: f32, %b: f32) -> (f32, f32) {
  %true = arith.constant true
  %false = arith.constant false
  %x = scf.if %true -> (f32) {
    %m = arith.mulf %a, %b : f32
    scf.yield %m : f32
  } else {
    scf.yield %a : f32
  }
  %y = scf.if %false -> (f32) {
    scf.yield %a : f32
  } else {
    %d = arith.divf %a, %b : f32
    scf.yield %d : f32
  }
  return %x, %y : f32, f32
}
