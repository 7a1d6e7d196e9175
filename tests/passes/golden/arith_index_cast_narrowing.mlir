// RUN: canonicalize
// index -> i32 -> index is kept: truncating to 32 bits changes large indices.
// (MLIR folds it, assuming the value fits; tinycomp does not.)
func.func @f(%i: index) -> index {
  %n = arith.index_cast %i : index to i32
  %back = arith.index_cast %n : i32 to index
  return %back : index
}
