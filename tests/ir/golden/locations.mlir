module {
  func.func @f(%arg0: f32) -> f32 {
    %0 = arith.addf %arg0, %arg0 : f32 loc("kernel.py":3:9)
    %1 = "test.op"(%0) : (f32) -> f32 loc("kernel.py":4:9)
    return %1 : f32 loc("kernel.py":5:5)
  } loc("kernel.py":2:1)
} loc("kernel.py":1:1)
