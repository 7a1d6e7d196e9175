// How SSA names are chosen, following MLIR: a region's own values are numbered before
// those of the regions nested in it; sibling regions restart from the same number;
// multi-result ops take one number; name hints are deduplicated with _N suffixes.
module {
  func.func @names(%arg0: index, %arg1: index) -> index {
    %c0 = arith.constant 0 : index
    %0 = "test.loop"(%c0, %arg0) ({
    ^bb0(%arg2: index, %arg3: index):
      %c0_0 = arith.constant 0 : index
      %4 = arith.addi %arg2, %arg3 : index
      %5 = "test.if"(%4) ({
        %6 = arith.muli %4, %4 : index
        %cst_1 = arith.constant 1.000000e+00 : f32
        "test.yield"(%6) : (index) -> ()
      }, {
        %6 = arith.subi %4, %4 : index
        "test.yield"(%6) : (index) -> ()
      }) : (index) -> index
      "test.yield"(%5) : (index) -> ()
    }) : (index, index) -> index
    %1:2 = "test.pair"() : () -> (index, index)
    %acc = arith.addi %1#0, %1#1 : index
    %acc_0 = arith.addi %acc, %0 : index
    %2 = arith.addi %acc_0, %arg1 : index
    %cst = arith.constant 2.000000e+00 : f32
    %3 = "test.consume"(%cst, %2) : (f32, index) -> index
    return %3 : index
  }
}
