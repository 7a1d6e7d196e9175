// Multiple blocks with cf branches: block arguments instead of phi nodes, a loop with a
// back edge, and the "// pred:" comments MLIR prints on block headers.
module {
  func.func @select_min(%arg0: f32, %arg1: f32) -> f32 {
    %0 = arith.cmpf olt, %arg0, %arg1 : f32
    cf.cond_br %0, ^bb1(%arg0 : f32), ^bb1(%arg1 : f32)
  ^bb1(%1: f32):  // 2 preds: ^bb0, ^bb0
    return %1 : f32
  }
  func.func @sum_to(%n: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    cf.br ^bb1(%c0, %c0 : index, index)
  ^bb1(%i: index, %acc: index):  // 2 preds: ^bb0, ^bb2
    %0 = arith.cmpi slt, %i, %n : index
    cf.cond_br %0, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %1 = arith.addi %acc, %i : index
    %2 = arith.addi %i, %c1 : index
    cf.br ^bb1(%2, %1 : index, index)
  ^bb3:  // 2 preds: ^bb1, ^bb4
    return %acc : index
  ^bb4:  // no predecessors
    %3 = arith.addi %0, %0 : i1
    cf.br ^bb3
  }
}
