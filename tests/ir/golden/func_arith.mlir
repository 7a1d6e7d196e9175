// A small function with constants, named values and every arith flag kind.
module {
  func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
    %ax = arith.mulf %a, %x fastmath<contract> : f32
    %sum = arith.addf %ax, %y : f32
    %sum_0 = arith.subf %sum, %y fastmath<fast> : f32
    return %sum_0 : f32
  }
  func.func @index_math(%arg0: index, %arg1: index) -> index {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c-1_i32 = arith.constant -1 : i32
    %true = arith.constant true
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant 2.500000e-01 : f32
    %0 = arith.muli %arg0, %c4 overflow<nsw> : index
    %1 = arith.addi %0, %arg1 overflow<nsw, nuw> : index
    %2 = arith.floordivsi %1, %c4 : index
    %3 = arith.maxsi %2, %c0 : index
    return %3 : index
  }
}
