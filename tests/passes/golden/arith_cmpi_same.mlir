// RUN: canonicalize
// MLIR-OPT: same
// cmpi of a value with itself: eq, sle, sge, ule, uge are true; ne, slt, sgt, ult, ugt false.
// cmpf of a value with itself is kept: oeq is false for NaN.
func.func @f(%x: i32, %y: f32) -> (i1, i1, i1, i1, i1) {
  %eq = arith.cmpi eq, %x, %x : i32
  %ne = arith.cmpi ne, %x, %x : i32
  %sle = arith.cmpi sle, %x, %x : i32
  %ult = arith.cmpi ult, %x, %x : i32
  %oeq = arith.cmpf oeq, %y, %y : f32
  return %eq, %ne, %sle, %ult, %oeq : i1, i1, i1, i1, i1
}
