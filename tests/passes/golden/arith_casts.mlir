// RUN: canonicalize
// MLIR-OPT: same
// Round trips that lose nothing are removed: i32 -> index -> i32 (sign- or zero-extending)
// and f16 -> f32 -> f16.
// extf(truncf(x)) is kept: truncation to f16 rounds, and extending cannot undo it.
func.func @f(%x: i32, %h: f16, %y: f32) -> (i32, i32, f16, f32) {
  %i = arith.index_cast %x : i32 to index
  %a = arith.index_cast %i : index to i32
  %u = arith.index_castui %x : i32 to index
  %au = arith.index_castui %u : index to i32
  %e = arith.extf %h : f16 to f32
  %b = arith.truncf %e : f32 to f16
  %t = arith.truncf %y : f32 to f16
  %c = arith.extf %t : f16 to f32
  return %a, %au, %b, %c : i32, i32, f16, f32
}
