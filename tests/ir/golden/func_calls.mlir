// Calls, declarations, argument/result attributes, function attributes, a named module.
module @kernels attributes {tc.target = "cpu"} {
  func.func private @ext_sin(f32) -> f32 attributes {tc.pure}
  func.func nested @helper(%arg0: f32 {tc.noalias}, %arg1: i32) -> (f32 {tc.result}, i32) {
    return %arg0, %arg1 : f32, i32
  }
  func.func @main(%arg0: f32) -> f32 attributes {tc.entry, tc.threads = 128 : i32} {
    %c7_i32 = arith.constant 7 : i32
    %0 = call @ext_sin(%arg0) : (f32) -> f32
    %1:2 = call @helper(%0, %c7_i32) : (f32, i32) -> (f32, i32)
    %2 = call @nothing() {tc.note = "no args"} : () -> f32
    return %1#0 : f32
  }
  func.func private @nothing() -> f32
  func.func @no_results() {
    call @no_results() : () -> ()
    return
  }
}
