// Ops no dialect registered: generic form, with regions, successors, properties and
// several results. cf-style branches written generically ("test.br") are terminators
// because an unregistered op may be one.
module {
  %0:2 = "test.two_results"() {kind = "pair"} : () -> (i32, f32)
  "test.use"(%0#0, %0#1) : (i32, f32) -> ()
  func.func @regions(%arg0: i32) -> i32 {
    %1 = "test.region_op"(%arg0) ({
    ^bb0(%arg1: i32, %arg2: i32):
      %4 = arith.addi %arg1, %arg2 : i32
      "test.yield"(%4) : (i32) -> ()
    }, {
      %4 = "test.other"() : () -> i32
      "test.yield"(%4) : (i32) -> ()
    }) {tc.flag} : (i32) -> i32
    "test.cond_br"(%1)[^bb1, ^bb2] {prop = 1 : i32} : (i32) -> ()
  ^bb1:  // pred: ^bb0
    "test.br"(%1)[^bb3] : (i32) -> ()
  ^bb2:  // pred: ^bb0
    %2 = "test.op"(%arg0) : (i32) -> i32
    "test.br"(%2)[^bb3] : (i32) -> ()
  ^bb3(%3: i32):  // 2 preds: ^bb1, ^bb2
    "test.graph"() ({
    }) : () -> ()
    return %3 : i32
  }
}
